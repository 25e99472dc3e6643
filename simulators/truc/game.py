"""Truc as the toolkit sees it: units, scores, metrics, conformance and odds hooks.

Registered as the entry point ``truc`` (group ``tapisvert.games``); see
:mod:`simulators.core.game` for what each field means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np
import polars as pl

from simulators.core.game import CardArgument, Conformance, Game, Odds, Solve, Tables, Unit
from simulators.truc import rules as R
from simulators.truc.metrics import DEAL_METRICS, ODDS_METRICS
from simulators.truc.observations import POLICY_METHODS
from simulators.truc.policies import POLICIES

# ------------------------------------------------------------------ units


def play_deals(config: R.TrucConfig, policies, first: int, count: int, seed: int) -> Tables:
    """Independent deals ``first .. first + count - 1`` at 0-0: the ``deals`` table."""
    from simulators.truc.engine import simulate_deals

    return {"deals": simulate_deals(config, policies, count, seed, first_deal=first).table}


def play_matches(config: R.TrucConfig, policies, first: int, count: int, seed: int) -> Tables:
    """Whole matches (TR-6): every deal, one row per manche and one per match."""
    from simulators.truc.engine import simulate_matches

    batch = simulate_matches(config, policies, count, seed, first_match=first)
    return {"deals": batch.deals, "manches": batch.manches, "matches": batch.matches}


def deal_scores(tables: Tables, config: R.TrucConfig) -> np.ndarray:
    """(deals, 2) each seat's points minus the other's (zero-sum)."""
    deals = tables["deals"]
    d0 = deals["delta_0"].to_numpy().astype(np.int32)
    d1 = deals["delta_1"].to_numpy().astype(np.int32)
    return np.stack([d0 - d1, d1 - d0], axis=1)


def match_scores(tables: Tables, config: R.TrucConfig) -> np.ndarray:
    """(matches, 2) 1 for the seat that won the match, 0 for the other (TR-6)."""
    winner = tables["matches"].sort("match_id")["winner"].to_numpy()
    return np.stack([winner == 0, winner == 1], axis=1).astype(np.int32)


DEALS = Unit(
    name="deals", singular="deal", default_chunk=100_000, play=play_deals, seat_scores=deal_scores,
    score="net points per deal: the seat's points minus the other's (TR-4/TR-5 stakes)",
    metrics=DEAL_METRICS, policy_methods=POLICY_METHODS, default_size=200_000,
    doc="independent deals at 0-0, each from a fresh shuffle, dealer = id % 2",
)
MATCHES = Unit(
    name="matches", singular="match", tables=("deals", "manches", "matches"), default_chunk=5_000,
    play=play_matches, seat_scores=match_scores,
    score="match won: 1 for the seat that won two manches (TR-6)", metrics=DEAL_METRICS,
    cluster="match_id", policy_methods=POLICY_METHODS, default_size=20_000,
    doc="whole matches: manches to 12, two manches won, the deal alternating (TR-6)",
)


# ------------------------------------------------------------------ conformance


def replay(unit: str, config, policies, first: int, count: int, seed: int) -> int:
    """Engine units replayed by the referee, move by move; returns the deals checked."""
    from simulators.truc.crosscheck import check_deals, check_matches
    from simulators.truc.engine import simulate_deals, simulate_matches

    if unit == "deals":
        return check_deals(simulate_deals(config, policies, count, seed, first_deal=first))
    return check_matches(simulate_matches(config, policies, count, seed, first_match=first))


def conservation(config, policies, first: int, count: int, seed: int) -> None:
    """Each deck is the 32 cards; each card played once, from the hands of the hand played."""
    from simulators.truc.engine import simulate_deals

    a = simulate_deals(config, policies, count, seed, first_deal=first).arrays
    assert (np.sort(a.deck, axis=1) == np.arange(R.N_CARDS)).all(), "TR-1: each deck is 32 cards"
    start = np.maximum(a.hand_no, 0).astype(np.intp)[:, None] * R.DEAL_SIZE
    dealt = np.take_along_axis(a.deck, start + np.arange(R.DEAL_SIZE), axis=1)
    for i in range(len(a.deck)):
        cards = [int(c) for c in a.plays[i] if c >= 0]
        assert len(set(cards)) == len(cards), f"deal {i}: a card played twice"
        assert set(cards) <= set(dealt[i].tolist()), f"deal {i}: a card not dealt was played"
        if a.hand_no[i] < 0:
            assert not cards, f"deal {i}: an abandoned deal is not played (TR-2)"


def invariants(unit: str, config, tables: Tables) -> None:
    """One seat scores the stake of a scored deal; manches end at the target; matches at 2."""
    deals = tables["deals"]
    d0, d1 = deals["delta_0"].to_numpy(), deals["delta_1"].to_numpy()
    points, outcome = deals["points"].to_numpy(), deals["outcome"].cast(str).to_numpy()
    assert not ((d0 > 0) & (d1 > 0)).any(), "one seat scores a deal"
    assert (d0.astype(int) + d1 == points).all(), "the winner scores the points"
    scored = np.isin(outcome, ["played", "refused"])
    assert (points[~scored] == 0).all(), "TR-2/TR-3: null and abandoned deals score nothing"
    assert (points[scored] >= 1).all(), "TR-4: a scored deal is worth at least 1"
    played = outcome == "played"
    assert (points[played] == deals["stake"].to_numpy()[played]).all(), "TR-4: stake scored"
    assert deals["tricks_played"].to_numpy()[played].min(initial=2) >= 2, "TR-3: 2 tricks"
    if unit == "deals":
        ids = deals["deal_id"].to_numpy()
        assert (deals["dealer"].to_numpy() == ids % 2).all(), "deal i is dealt by seat i % 2"
        return
    manches, matches = tables["manches"], tables["matches"]
    top = np.maximum(manches["score_0"].to_numpy(), manches["score_1"].to_numpy())
    low = np.minimum(manches["score_0"].to_numpy(), manches["score_1"].to_numpy())
    assert (top >= config.target).all() and (low < config.target).all(), \
        "TR-6: a manche ends when one player reaches the target"
    wins = np.maximum(matches["manches_0"].to_numpy(), matches["manches_1"].to_numpy())
    assert (wins == config.manches_to_win).all(), "TR-6: a match ends at two manches won"
    dealer = deals.sort(["match_id", "deal_no"]).group_by("match_id", maintain_order=True).agg(
        (pl.col("dealer").diff().drop_nulls().abs() == 1).all().alias("alternates"))
    assert dealer["alternates"].all(), "TR-6: the deal alternates"


CONFORMANCE = Conformance(
    configs=(
        R.TrucConfig(),
        R.TrucConfig(card_call=False, target=6),
        R.TrucConfig(counter_banco=False, manches_to_win=1),
    ),
    replay=replay, conservation=conservation, invariants=invariants,
    bad_options=(({"target": 1}, "target"), ({"card_call": "yes"}, "card_call"),
                 ({"manches_to_win": 0}, "manches_to_win"),
                 ({"counter_banco": 2}, "counter_banco")),
    # the equilibrium solves a deal tree on first use (minutes without the user cache)
    slow_policies=("equilibrium",),
)


# ------------------------------------------------------------------ odds


@dataclass(frozen=True)
class OddsQuestion:
    """My three cards, my seat and the scores; playing and asking are both played."""

    hand: str = field(metadata={"doc": 'my three cards, e.g. "7P 8C AK" or bare ranks "7 8 A"'})
    role: str = field(default="non-dealer",
                      metadata={"doc": "non-dealer (asked first, leads) or dealer"})
    my_score: int = field(default=0, metadata={"doc": "my manche score (0-11)"})
    opp_score: int = field(default=0, metadata={"doc": "the other player's manche score (0-11)"})


def _situation(question: OddsQuestion):
    from simulators.truc.dealing import Situation

    return Situation(question.hand, question.role, question.my_score, question.opp_score)


def play_odds(config, policies, question: OddsQuestion, count: int, seed: int,
              first: int = 0) -> pl.DataFrame:
    """Deals ``first .. first + count - 1`` with my hand, playing and asking on the same deals
    (paired)."""
    from simulators.truc.dealing import play_choices

    return play_choices(config, policies, _situation(question), count, seed, first=first)


def describe_odds(config, question: OddsQuestion) -> str:
    """The heading line of an odds table."""
    s = _situation(question)
    extra = " after the non-dealer asked for new cards" if s.role == "dealer" else ""
    return (f"{s.role} holding {R.format_cards(s.hand)} at {s.my_score}-{s.opp_score}{extra}; "
            "playing and asking for new cards on the same deals (net = my points minus the "
            "other's):")


ODDS = Odds(question=OddsQuestion, play=play_odds, metrics=ODDS_METRICS, describe=describe_odds,
            cards={"hand": CardArgument(partial(R.parse_hand, size=None), R.format_cards,
                                        "7 8 A")})


def _solve_hook() -> Solve:
    from simulators.core.game import SolveTable
    from simulators.truc.solver import command, manche

    table = SolveTable(question=command.equity_question, waves=manche.equity_waves,
                       solve=manche.solve_equity_group, document=manche.equity_document,
                       unit_names=("state groups", "state group"))
    return Solve(question=command.TrucSolveQuestion, run=command.run, text=command.text,
                 doc="CFR+ on a deal with the card call; the equity table", table=table)


def steps(config: R.TrucConfig, **options):
    """One deal, one move at a time (``simulators/truc/env.py``): the game-AI environments."""
    from simulators.truc.env import step_game

    return step_game(config, **options)


GAME = Game(
    name="truc", title="Truc", config=R.TrucConfig, policies=POLICIES,
    units=(DEALS, MATCHES), conformance=CONFORMANCE, odds=ODDS, players=lambda config: R.N_SEATS,
    rules_doc="docs/rules/truc.md", solve=_solve_hook(), steps=steps,
)
make_policy = GAME.make_policy  # a registered policy by name, parameters validated


def policy_from_text(text: str):
    """A registered policy from ``name`` or ``name:param=value,param=value`` (the benches'
    and the solver's command lines); values typed from the parameter's default."""
    name, _, rest = text.partition(":")
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r} (known: {', '.join(sorted(POLICIES))})")
    declared = POLICIES[name].parameters()
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        kind = type(declared[key]["default"]) if key in declared else str
        params[key] = value.lower() in ("1", "true", "yes") if kind is bool else kind(value)
    return make_policy(name, **params)
