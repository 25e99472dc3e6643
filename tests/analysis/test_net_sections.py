"""The reports' learned-player sections: the headline figures under `net` beside the heuristic
on the same deals, the shipped certificates and regret tables (bench/net_strength.py), and the
bench's plan."""

from __future__ import annotations

import polars as pl
import pytest
from bench_scripts import load

from analysis.reporting import find_estimate
from analysis.reports import bianco_mano as B
from analysis.reports import manille as M
from simulators.bianco_mano import BiancoManoConfig
from simulators.bianco_mano import engine as bianco_engine
from simulators.core.game import get_game
from simulators.manille import engine as manille_engine
from simulators.manille.rules import ManilleConfig

PNG = b"\x89PNG\r\n\x1a\n"
DEALS = 300


def _text(section) -> str:
    parts = [section.title, section.method, section.plot.caption, *section.findings]
    for table in section.tables:
        parts += [table.caption, *table.frame.columns,
                  *(str(v) for row in table.frame.iter_rows() for v in row)]
    return "\n".join(parts)


def _doc(players=None):
    cert = {"kind": "certificate", "label": "net against the heuristic", "players": players,
            "settings": {}, "command": "tapisvert learn x certify --deals 20000",
            "wall_seconds": 9.0, "measured": "2026-11-27",
            "against": {"heuristic": {"mean": 0.6, "low": 0.39, "high": 0.81, "n": 20000,
                                      "p_value": 1e-8, "net_mean": 0.3, "opponent_mean": -0.3}}}
    regret = {"kind": "regret", "label": "regret", "players": players, "settings": {},
              "command": "tapisvert learn x certify --regret heuristic,net",
              "double_dummy_regret": [
                  {"policy": p, "units": 2000, "card_plays": 30000, "share_giving_up": s,
                   "share_low": s - 0.01, "share_high": s + 0.01, "mean_points_given_up": m,
                   "mean_low": m - 0.03, "mean_high": m + 0.03}
                  for p, s, m in (("heuristic", 0.218, 1.14), ("net", 0.204, 0.952))]}
    gain = {"kind": "gain", "command": "tapisvert compare x --a pimc", "comparison": {}}
    return {"schema": 1, "pieces": {"net_vs_heuristic": cert, "regret": regret,
                                    "gain_default": gain}}


@pytest.fixture(scope="module")
def manille_pair():
    config, game = ManilleConfig(), get_game("manille")
    columns = ["deal_id", *M.DEAL_COLUMNS[1:]]
    frames = [manille_engine.simulate_deals(config, game.make_policy(p), DEALS, seed=5)
              .table.select(columns) for p in ("heuristic", "net")]
    return frames


def test_manille_section_pairs_the_same_deals_and_shows_the_certificate(manille_pair):
    base, net = manille_pair
    section = M.section_net(base, net, _doc())
    s = section.summary
    made = M.DEAL["taking_success"].label
    # the figures are the deals' own counts, under each policy
    for arm, frame in (("learned", net), ("base", base)):
        assert find_estimate(s, measure=made, arm=arm).value == pytest.approx(
            frame.select(M.DEAL["taking_success"].value.mean()).item())
    diff = find_estimate(s, measure=made, arm="difference")
    assert diff.value == pytest.approx(find_estimate(s, measure=made, arm="learned").value
                                       - find_estimate(s, measure=made, arm="base").value)
    assert diff.n == DEALS
    # the net makes the auction too: the dealer's choice differs on some deals, paired
    names = find_estimate(s, measure=M.DEAL["dealer_names"].label, arm="difference")
    passed = [f.select((~pl.col("dealer_passed")).mean()).item() for f in (net, base)]
    assert names.value == pytest.approx(passed[0] - passed[1]) and names.n == DEALS
    text = _text(section)
    assert "+0.600 [+0.390, +0.810]" in text and "it wins" in text
    assert "net 0.952" in text and "20.4%" in text
    assert "tapisvert compare x" not in text  # PIMC's pieces are section h's
    assert f"n={DEALS:,} deals" in text and section.plot.png.startswith(PNG)


def test_manille_strength_section_keeps_to_pimcs_pieces():
    text = _text(M.section_strength(_doc()))
    assert "tapisvert learn x certify" not in text


def test_without_certificates_the_section_gives_the_command(manille_pair):
    base, net = manille_pair
    text = _text(M.section_net(base, net, {}))
    assert "not measured yet" in text and M.NET_COMMAND in text
    alone = M.section_net(None, None, {})
    assert "not measured yet" in _text(alone) and alone.plot.png.startswith(PNG)


def test_bianco_mano_section_by_player_count_and_seat():
    game = get_game("bianco-mano")
    pairs = {}
    for n in (3, 4):
        config = BiancoManoConfig(n_players=n)
        pairs[f"{n} players"] = tuple(
            bianco_engine.simulate_deals(config, policy, DEALS // 3, seed=5)
            .table.select(B.NET_COLUMNS)
            for policy in (game.make_policy("heuristic"), game.make_policy("net", auction=False)))
    section = B.section_net(pairs, _doc(players=4))
    s = section.summary
    assert set(s["deals"]) == {"3 players", "4 players"}
    take = B.DEAL["take_rate"].label
    for arm in ("3 players", "4 players"):  # the heuristic's bidding: the same takes
        assert find_estimate(s, deals=arm, measure=take, arm="difference").value == 0
    # the seat rows are the contract success of the deals each seat took (4 players only)
    base = pairs["4 players"][0].with_columns(position=B.M.TAKER_POSITION)
    for p in range(4):
        label = f"contract success, taker at seat {B._position_label(p, 4)}"
        taken = base.filter(pl.col("position") == p)
        want = taken.select(B.M.MADE.mean()).item() if taken.height else float("nan")
        got = find_estimate(s, deals="4 players", measure=label, arm="base")
        assert got.n == taken.height and (got.value == pytest.approx(want) or taken.height == 0)
    assert not s.filter((pl.col("deals") == "3 players")
                        & pl.col("measure").str.contains("seat")).height
    text = _text(section)
    assert "heuristic, 4 players" in text and "it wins" in text


def _bench():
    return load("net_strength")


def test_bench_plans_each_certificate_with_the_shipped_weights_digest():
    bench = _bench()
    args = type("Args", (), {"seed": 2027, "deals": 20000, "pimc_deals": 2000,
                             "regret_deals": 2000, "players": (3, 4, 5),
                             "regret_players": (4,), "lookahead_rounds": 10000,
                             "fc_rounds": (1, 6, 11), "bango_games": 5000,
                             "rollout_games": 2000, "bango_players": (2, 3, 4, 5),
                             "rollout_players": (3,)})()
    manille = bench.pieces("manille", args)
    assert list(manille) == ["net_vs_heuristic", "net_vs_pimc", "net_in_pimc_seat", "regret"]
    assert manille["net_in_pimc_seat"]["argv"] == ["learn", "manille", "certify", "--deals",
                                                   "2000", "--against", "pimc", "--design",
                                                   "same-seat", "--seed", "2027"]
    assert manille["net_vs_pimc"]["argv"] == ["learn", "manille", "certify", "--deals", "2000",
                                              "--against", "pimc", "--seed", "2027"]
    assert len(manille["regret"]["settings"]["weights_sha256"]) == 64
    bianco = bench.pieces("bianco-mano", args)
    assert set(bianco) == {f"net_vs_{b}_{n}p" for b in ("heuristic", "pimc") for n in (3, 4, 5)
                           } | {"regret_4p"} | {f"net_in_pimc_seat_{n}p" for n in (3, 4, 5)}
    assert bianco["net_vs_heuristic_5p"]["argv"][7:9] == ["--players", "5"]
    crowns = bench.pieces("five-crowns", args)
    assert set(crowns) == {f"net_vs_{b}_r{r}" for b in ("heuristic", "lookahead")
                           for r in (1, 6, 11)}  # no regret: not a trick game
    assert crowns["net_vs_lookahead_r6"]["argv"] == [
        "learn", "five-crowns", "certify", "--rounds", "10000", "--against", "lookahead",
        "--option", "round_no=6", "--seed", "2027"]
    assert crowns["net_vs_lookahead_r6"]["setting"] == "round 6"
    bango = bench.pieces("bango", args)
    assert set(bango) == {f"net_vs_{b}_{n}p" for b in ("heuristic", "optimal")
                          for n in (2, 3, 4, 5)} | {"net_vs_rollout_3p"}
    assert bango["net_vs_rollout_3p"]["argv"] == [
        "learn", "bango", "certify", "--games", "2000", "--against", "rollout",
        "--players", "3", "--seed", "2027"]
    assert bango["net_vs_optimal_5p"]["players"] == 5
    # the net's default parameters are part of what is certified: a new default, a new piece
    assert bango["net_vs_rollout_3p"]["settings"]["net_params"]["margin"] == \
        get_game("bango").make_policy("net").margin


def test_five_crowns_section_pairs_the_same_rounds_by_round_number():
    """Section g: each round number's figures under net and the heuristic on the same rounds
    (the per-round means by hand), the difference paired; a certificate labelled with its
    round."""
    from analysis.reports import five_crowns as F
    from simulators.five_crowns import engine as crowns_engine
    from simulators.five_crowns.rules import FiveCrownsConfig

    game = get_game("five-crowns")
    frames = [pl.concat([crowns_engine.simulate_rounds(FiveCrownsConfig(round_no=r),
                                                       game.make_policy(p), 150, seed=r).table
                         for r in (2, 9)]) for p in ("heuristic", "net")]
    base, net = frames
    doc = _doc()
    doc["pieces"]["net_vs_heuristic"]["setting"] = "round 9"
    section = F.section_net(base, net, doc)
    s = section.summary
    penalty = F.ROUND["mean_penalty"].label
    for arm, frame in (("learned", net), ("base", base)):
        for r in (2, 9):
            want = frame.filter(pl.col("round_no") == r).select(
                pl.mean_horizontal(pl.col(r"^penalty_\d+$")).mean()).item()
            assert find_estimate(s, measure=penalty, arm=arm, round_no=r).value \
                == pytest.approx(want)
    diff = find_estimate(s, measure=penalty, arm="difference", round_no=9)
    assert diff.n == 150 and diff.value == pytest.approx(
        find_estimate(s, measure=penalty, arm="learned", round_no=9).value
        - find_estimate(s, measure=penalty, arm="base", round_no=9).value)
    text = _text(section)
    assert "heuristic, round 9" in text and "+0.600 [+0.390, +0.810]" in text
    assert "150 rounds per round number" in text and section.plot.png.startswith(PNG)
    alone = F.section_net(None, None, {})
    assert F.NET_COMMAND in _text(alone) and alone.plot.png.startswith(PNG)


def test_bango_section_pairs_the_same_games_by_player_count():
    """Section h: one value per game (the mean over its players, the first player's, the
    winner's), under net and the heuristic on the same decks; the difference paired game by
    game; a certificate labelled with its player count."""
    from analysis.reports import bango as BR
    from simulators.bango import engine as bango_engine
    from simulators.bango.rules import BangoConfig

    game = get_game("bango")
    base, net = ({n: bango_engine.simulate_games(BangoConfig(n_players=n), game.make_policy(p),
                                                 120, seed=n).games for n in (2, 4)}
                 for p in ("heuristic", "net"))
    section = BR.section_net(base, net, _doc(players=4))
    s = section.summary
    for arm, frames in (("learned", net), ("base", base)):
        for n in (2, 4):
            games = frames[n]
            assert find_estimate(s, measure="score per player", arm=arm, players=n).value \
                == pytest.approx(games["score"].mean())
            first = games.filter(pl.col("order") == 0)
            assert find_estimate(s, measure="first player's score", arm=arm, players=n
                                 ).value == pytest.approx(first["score"].mean())
            best = games.group_by("game_id").agg(pl.col("score").max())["score"].mean()
            assert find_estimate(s, measure="winning score", arm=arm, players=n).value \
                == pytest.approx(best)
    diff = find_estimate(s, measure="score per player", arm="difference", players=4)
    assert diff.n == 120 and diff.value == pytest.approx(
        net[4]["score"].mean() - base[4]["score"].mean())
    text = _text(section)
    assert "heuristic, 4 players" in text and "+0.600 [+0.390, +0.810]" in text
    assert "120 games per count" in text and section.plot.png.startswith(PNG)
    alone = BR.section_net(None, None, {})
    assert BR.NET_COMMAND in _text(alone) and alone.plot.png.startswith(PNG)
