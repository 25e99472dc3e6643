"""The reports' last section, the default player's strength against PIMC, on small fake
strength documents (and absent or empty ones), and bench/pimc_strength.py's plan and a
tiny run of it feeding the section."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from bench_scripts import load

from analysis.compare import comparison_record
from analysis.reporting import find_estimate
from analysis.reports import bianco_mano as B
from analysis.reports import manille as M

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def _gain_rows(mean, low, high, n, p):
    return [
        {"row": "A", "policy": "pimc", "mean": 1.0, "low": 0.0, "high": 2.0, "n": n,
         "p_value": None},
        {"row": "B", "policy": "heuristic", "mean": 1.0 - mean, "low": 0.0, "high": 2.0, "n": n,
         "p_value": None},
        {"row": "A - B paired", "policy": "pimc - heuristic", "mean": mean, "low": low,
         "high": high, "n": n, "p_value": p},
        {"row": "A - B unpaired", "policy": "pimc - heuristic", "mean": mean, "low": low - 1,
         "high": high + 1, "n": n, "p_value": p}]


def _gain(mean, low, high, n, p):
    return {"comparison": comparison_record(_gain_rows(mean, low, high, n, p))}


def _piece(kind, decisions, deals, worlds=8, **extra):
    settings = {"deals": deals, "seed": 2026, "params": {}}
    if worlds is not None:
        settings["worlds"] = worlds
    return {"kind": kind, "decisions": decisions, "settings": settings,
            "command": f"tapisvert {kind} --deals {deals}", "wall_seconds": 12.3,
            "measured": "2026-11-26T00:00:00+00:00", **extra}


def _rate(metric, label, value, low, high, n, kind="rate"):
    return {"metric": metric, "label": label, "kind": kind, "value": value, "low": low,
            "high": high, "n": n}


def _manille_rates(made, margin):
    return {"rows": [
        _rate("dealer_names", "dealer names the trump", 0.7, 0.6, 0.8, 40),
        _rate("taking_success", "taking team above 34", made, made - 0.1, made + 0.1, 40),
        _rate("sans_atout_success", "sans atout success", None, 0.0, 1.0, 0),
        _rate("taking_margin", "taking team's net score per deal", margin, margin - 3,
              margin + 3, 40, kind="mean")]}


def manille_doc():
    return {"schema": 1, "game": "manille", "pieces": {
        "gain_default": {**_piece("gain", ["card play"], 100), **_gain(1.5, 0.5, 2.5, 100, 0.01)},
        "gain_choose": {**_piece("gain", ["trump choice"], 100),
                        **_gain(-0.8, -2.0, 0.4, 100, 0.2)},
        "gain_contre": {**_piece("gain", ["contre/surcontre"], 100),
                        **_gain(-1.2, -2.0, -0.4, 100, 0.004)},
        "gain_play": {**_piece("gain", ["card play"], 100, same_as="gain_default"),
                      **_gain(1.5, 0.5, 2.5, 100, 0.01)},
        "rates_pimc": {**_piece("rates", ["card play"], 40), **_manille_rates(0.7, 6.0)},
        "rates_heuristic": {**_piece("rates", None, 40, worlds=None),
                            **_manille_rates(0.6, 4.0)},
    }}


def _bm_rates(take, made, capo, n):
    taken = round(take * n)
    return {"rows": [
        _rate("take_rate", "take rate", take, take - 0.1, take + 0.1, n),
        _rate("round2_share", "taken in round 2", 0.2, 0.1, 0.3, taken),
        _rate("contract_success", "contract success", made, made - 0.1, made + 0.1, taken),
        _rate("capo_rate", "capo", capo, 0.0, capo + 0.05, taken),
        _rate("bonus_rate", "bonus announced", 0.0, 0.0, 0.1, taken)]}


def bianco_mano_doc(counts=(3, 4, 5)):
    pieces = {}
    for i, n in enumerate(counts):
        pieces[f"gain_{n}p"] = {**_piece("gain", ["card play"], 200, players=n),
                                **_gain(0.1 * (i - 1), 0.1 * (i - 1) - 0.05,
                                        0.1 * (i - 1) + 0.05, 200, 0.03)}
        pieces[f"rates_pimc_{n}p"] = {**_piece("rates", ["card play"], 50, players=n),
                                      **_bm_rates(0.7, 0.8, 0.05, 50)}
        pieces[f"rates_heuristic_{n}p"] = {**_piece("rates", None, 50, worlds=None, players=n),
                                           **_bm_rates(0.7, 0.65, 0.02, 50)}
    return {"schema": 1, "game": "bianco-mano", "pieces": pieces}


def _text(section) -> str:
    """Everything a reader sees of a section, as one string."""
    parts = [section.title, section.method, section.plot.caption, *section.findings]
    for table in section.tables:
        parts.append(table.caption)
        parts += [str(v) for row in table.frame.iter_rows() for v in row]
        parts += table.frame.columns
    return "\n".join(parts)


# ---------------------------------------------------------------- not measured yet


@pytest.mark.parametrize("report", [M, B], ids=["manille", "bianco-mano"])
@pytest.mark.parametrize("content", [None, "", "  \n", "{not json", "[]", "{}",
                                     '{"schema": 1, "pieces": {}}'])
def test_absent_or_empty_figures_say_not_measured_and_give_the_command(tmp_path, report,
                                                                       content):
    path = tmp_path / "strength.json"
    if content is not None:
        path.write_text(content)
    doc = report.read_strength(path)
    assert isinstance(doc, dict)
    section = report.section_strength(doc, 400_000)
    text = _text(section)
    assert "not measured yet" in text and "n=" in text
    assert "bench/pimc_strength.py" in text and report.STRENGTH_COMMAND in text
    assert section.plot.png.startswith(PNG)
    assert section.summary.is_empty()
    assert set(report.STRENGTH_SCHEMA) <= set(section.summary.columns)
    assert "The default player's strength" in section.title


@pytest.mark.parametrize("report", [M, B], ids=["manille", "bianco-mano"])
def test_the_shipped_figures_give_a_section(report):
    """Whatever is shipped (the placeholder until the real run, then the figures)."""
    assert report.STRENGTH_PATH.is_file()
    doc = report.read_strength()
    assert doc.get("schema") == 1
    section = report.section_strength(doc)
    assert section.plot.png.startswith(PNG) and section.findings


def test_the_strength_files_ship_with_the_package():
    text = (ROOT / "pyproject.toml").read_text()
    for package in ("simulators.manille.solver", "simulators.bianco_mano.solver"):
        assert f'"{package}" = ["data/*.json"]' in text


# ---------------------------------------------------------------- Manille


def test_manille_gains_by_decision_kind_and_rates_side_by_side():
    section = M.section_strength(manille_doc(), 400_000)
    summary = section.summary
    gain = find_estimate(summary, part="gain", piece="gain_contre")
    assert (gain.value, gain.low, gain.high, gain.n) == (-1.2, -2.0, -0.4, 100)
    assert summary.filter(pl.col("part") == "gain").height == 4
    made = find_estimate(summary, part="rate", what="PIMC", measure="taking team above 34")
    assert made.value == pytest.approx(0.7) and made.n == 40
    undefined = find_estimate(summary, part="rate", what="PIMC", measure="sans atout success")
    assert undefined.n == 0 and undefined.value != undefined.value  # NaN, shown as "–"

    gains, rates, measured = section.tables
    assert gains.frame["PIMC decides"].to_list() == ["card play", "trump choice",
                                                     "contre/surcontre", "card play"]
    assert gains.frame["PIMC's gain per deal"][2] == "-1.20 [-2.00, -0.40]"
    assert "(= PIMC's defaults)" in gains.frame["arm"][3]
    assert "n=100 deals per comparison" in gains.caption
    assert rates.frame.columns == ["measure", "heuristic, every seat", "n (heuristic)",
                                   "PIMC, every seat", "n (PIMC)"]
    row = rates.frame.filter(pl.col("measure") == "taking team above 34").row(0, named=True)
    assert row["heuristic, every seat"] == "60.0% [50.0, 70.0]"
    assert row["PIMC, every seat"] == "70.0% [60.0, 80.0]"
    margin = rates.frame.filter(pl.col("measure") == "taking team's net score per deal")
    assert margin["PIMC, every seat"][0] == "6.00 [3.00, 9.00]"  # a mean, not a rate
    assert rates.frame.filter(pl.col("measure") == "sans atout success")["n (PIMC)"][0] == "0"
    assert measured.frame["command"][0] == "tapisvert gain --deals 100"
    assert measured.frame["wall time"][0] == "12 s"

    text = "\n".join(section.findings)
    assert "The heuristic loses 1.50 points per deal to PIMC" in text
    assert "contre/surcontre only -1.20" in text and "heuristic does better there" in text
    assert "70.0% [60.0, 80.0]" in text and "60.0% [50.0, 70.0]" in text
    assert "400,000" in text and "100 per comparison" in text and "40 per rate arm" in text
    assert "negative figure means the heuristic does better" in section.method
    assert "ignore what the bidding reveals" in section.method


def test_manille_negative_default_gain_reads_as_the_heuristic_doing_better():
    doc = manille_doc()
    doc["pieces"]["gain_default"].update(_gain(-0.5, -1.5, 0.5, 100, 0.3))
    text = "\n".join(M.section_strength(doc).findings)
    assert "The heuristic does better than PIMC at one seat, by 0.50 points" in text
    assert "the interval covers 0" in text and "the rest of this report" in text


def test_manille_partial_figures_show_what_is_there():
    doc = manille_doc()
    for key in ("gain_choose", "gain_contre", "rates_heuristic"):
        del doc["pieces"][key]
    section = M.section_strength(doc)
    gains, rates, measured = section.tables
    assert gains.frame.height == 2 and measured.frame.height == 3
    assert set(rates.frame["heuristic, every seat"]) == {"–"}
    only_rates = {"pieces": {"rates_pimc": manille_doc()["pieces"]["rates_pimc"]}}
    assert len(M.section_strength(only_rates).tables) == 2


# ---------------------------------------------------------------- Bianco Mano


def test_bianco_mano_gains_per_player_count_and_rates():
    section = B.section_strength(bianco_mano_doc(), 1_000_000)
    summary = section.summary
    assert find_estimate(summary, part="gain", players=5).value == pytest.approx(0.1)
    made = find_estimate(summary, part="rate", players=4, what="PIMC",
                         measure="contract success")
    assert made.value == pytest.approx(0.8) and made.n == 35
    # the rates shown: take rate, contract success, capo (not round 2, not the bonus)
    assert set(summary.filter(pl.col("part") == "rate")["measure"]) == {
        "take rate", "contract success", "capo"}

    gains, rates, _measured = section.tables
    assert gains.frame["players"].to_list() == ["3", "4", "5"]
    assert gains.frame["PIMC's gain per deal"][0] == "-0.100 [-0.150, -0.050]"
    assert "bidding, espion, call and announcement are the heuristic's" in gains.caption
    assert "same by construction" in rates.caption
    row = rates.frame.filter((pl.col("players") == "3")
                             & (pl.col("measure") == "contract success")).row(0, named=True)
    assert row["PIMC, every seat"] == "80.0% [70.0, 90.0]" and row["n (PIMC)"] == "35"

    text = "\n".join(section.findings)
    assert "the heuristic does better than PIMC with 3 players, by 0.100" in text
    assert "the heuristic loses 0.100 points per deal to PIMC with 5 players" in text
    assert text.count("the same in both arms, by construction") == 3
    assert "1,000,000" in text and "200 per comparison" in text and "50 per rate arm" in text
    assert "Bidding, espion, call and announcement are the heuristic's" in section.method


def test_bianco_mano_one_player_count_only():
    section = B.section_strength(bianco_mano_doc(counts=(4,)))
    assert section.summary.filter(pl.col("part") == "gain")["players"].to_list() == [4]
    assert section.plot.png.startswith(PNG)
    doc = bianco_mano_doc(counts=(4,))
    doc["pieces"]["rates_pimc_4p"]["rows"][0]["value"] = 0.5  # a take rate that differs
    text = "\n".join(B.section_strength(doc).findings)
    assert "the take rate is 50.0%" in text


# ---------------------------------------------------------------- the bench script


def _bench():
    return load("pimc_strength")


def test_bench_plans_every_piece_with_its_command():
    bench = _bench()
    args = type("Args", (), {"seed": 7, "chunk_size": 25, "deals": 300, "rate_deals": 30,
                             "worlds": 4, "players": (3, 4, 5)})()
    manille = bench.pieces("manille", args)
    assert list(manille) == ["gain_default", "gain_choose", "gain_contre", "gain_play",
                             "rates_pimc", "rates_heuristic"]
    choose = manille["gain_choose"]
    assert choose["decisions"] == ["trump choice"]
    assert " ".join(choose["argv"]).startswith("compare manille --a pimc --b heuristic --seats 0 "
                                               "--deals 300 --seed 7")
    assert "pimc_choose=true" in choose["argv"] and "worlds=4" in choose["argv"]
    assert choose["settings"]["params"]["pimc_play"] is False
    assert manille["rates_heuristic"]["settings"] == {
        "deals": 30, "seed": 7, "params": bench.policy_defaults("manille", "heuristic")}
    defaults = bench.pimc_defaults("manille")
    twins = [k for k, p in manille.items() if p.get("same_as") == "gain_default"]
    assert twins == [k for k, (changes, _) in bench.MANILLE_GAINS.items()
                     if k != "gain_default" and all(defaults[c] == v for c, v in changes.items())]
    bianco = bench.pieces("bianco-mano", args)
    assert set(bianco) == {f"{kind}_{n}p" for kind in ("gain", "rates_pimc", "rates_heuristic")
                           for n in (3, 4, 5)}
    assert bianco["gain_3p"]["argv"][:4] == ["compare", "bianco-mano", "--players", "3"]
    assert bianco["rates_pimc_5p"]["decisions"] == ["card play"]


def test_bench_tiny_run_writes_figures_the_section_reads_and_resumes(tmp_path):
    command = [sys.executable, str(ROOT / "bench" / "pimc_strength.py"), "--game",
               "bianco-mano", "--players", "5", "--deals", "4", "--rate-deals", "2",
               "--worlds", "1", "--chunk-size", "2", "--out-dir", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    path = tmp_path / "bianco_mano" / "strength.json"
    doc = json.loads(path.read_text())
    assert set(doc["pieces"]) == {"gain_5p", "rates_pimc_5p", "rates_heuristic_5p"}
    gain = doc["pieces"]["gain_5p"]
    assert gain["command"].startswith("tapisvert compare bianco-mano --players 5 --a pimc")
    assert gain["settings"]["worlds"] == 1 and gain["wall_seconds"] > 0
    assert set(gain["comparison"]) == {"a", "b", "paired", "unpaired"}
    assert gain["comparison"]["paired"]["n"] == 4
    section = B.section_strength(B.read_strength(path))
    assert section.summary.filter(pl.col("part") == "gain")["n"].to_list() == [4]
    again = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert again.returncode == 0 and again.stderr.count("skipped") == 3
    assert json.loads(path.read_text()) == doc


# ---------------------------------------------------------------- Bango and Five Crowns rollouts


def _compared(a_mean, gain, low, high, n, p=0.01):
    rows = _gain_rows(gain, low, high, n, p)
    rows[0]["mean"], rows[1]["mean"] = a_mean, a_mean - gain
    return {"comparison": comparison_record(rows), "command": f"tapisvert compare --games {n}",
            "wall_seconds": 60.0,
            "measured": "2026-11-26T00:00:00+00:00"}


def test_bango_rollout_figures_are_read_per_player_count_and_k():
    from analysis.reports import bango as BR

    doc = {"schema": 1, "game": "bango", "pieces": {
        "rollout_vs_optimal_3p": _compared(17.5, 2.4, 1.7, 3.0, 400),
        "rollout_vs_heuristic_3p": _compared(17.5, 4.1, 3.2, 5.0, 400),
        "rollout_k8_3p": _compared(15.9, 0.8, 0.1, 1.5, 400),
        "rollout_k32_3p": _compared(17.5, 2.4, 1.7, 3.0, 400)}}
    rows = BR.summarize_rollouts(doc)
    assert rows.height == 4
    k_rows = rows.filter(pl.col("k").is_not_null()).sort("k")
    assert k_rows["k"].to_list() == [8, 32] and k_rows["value"].to_list() == [0.8, 2.4]
    mine = rows.filter(pl.col("k").is_null() & (pl.col("against") == "heuristic")).row(
        0, named=True)
    assert (mine["players"], mine["value"], mine["b_mean"]) == (3, 4.1, 17.5 - 4.1)
    tables, findings = BR._rollout_tables(rows, doc["pieces"])
    assert len(tables) == 3 and "3 players +2.40 [+1.70, +3.00]" in findings[0]
    empty_tables, empty_findings = BR._rollout_tables(BR.summarize_rollouts({}), {})
    assert "not measured yet" in empty_tables[0].caption and "bench/rollout_strength.py" in \
        empty_findings[0]


def test_five_crowns_strong_player_figures_are_read_per_round_and_k():
    from analysis.reports import five_crowns as FR

    doc = {"schema": 1, "game": "five-crowns", "pieces": {
        "lookahead_r6": _compared(-7.63, 2.65, 2.58, 2.71, 90_000),
        "rollout_r6": _compared(-8.6, 1.04, 0.51, 1.57, 1_000),
        "rollout_k16_r6": _compared(-8.6, 1.04, 0.51, 1.57, 1_000)}}
    rows = FR.summarize_strong(doc["pieces"])
    assert sorted(rows["piece"].to_list()) == ["lookahead_r6", "rollout_k16_r6", "rollout_r6"]
    assert rows.filter(pl.col("piece") == "rollout_k16_r6")["k"].to_list() == [16]
    tables, findings = FR._strong_players(doc["pieces"])
    penalties = tables[0].frame.filter(pl.col("player").str.starts_with("lookahead"))
    assert penalties.row(0, named=True)["its penalty"] == "7.63"
    assert penalties.row(0, named=True)["heuristic's penalty"] == "10.28"
    assert any(f.startswith("Lookahead saves round 6 +2.65") for f in findings)
    assert "not measured yet" in FR._strong_players({})[0][0].caption
