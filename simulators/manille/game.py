"""Manille coincée as the toolkit sees it: units, scores, metrics, conformance and odds hooks.

Registered as the entry point ``manille`` (group ``tapisvert.games``); see
:mod:`simulators.core.game` for what each field means.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from simulators.core.game import CardArgument, Conformance, Game, Odds, Tables, Unit, referee_replay
from simulators.core.pimc import (
    DEFAULT_WORLDS,
    PLAY_DOC,
    WORLDS_DOC,
    check_strength_question,
    odds_units_per_chunk,
    parse_plays,
    strength_reference,
)
from simulators.manille import rules as R
from simulators.manille.env import ManilleSteps
from simulators.manille.learn import LEARN, NetPolicy
from simulators.manille.metrics import DEAL_METRICS, odds_metrics, play_metrics
from simulators.manille.observations import POLICY_METHODS
from simulators.manille.policies import POLICIES
from simulators.manille.solver.command import SOLVE
from simulators.manille.solver.pimc import PimcPolicy

# ------------------------------------------------------------------ units


def play_deals(config: R.ManilleConfig, policies, first: int, count: int, seed: int) -> Tables:
    """Independent deals ``first .. first + count - 1``: the ``deals`` table."""
    from simulators.manille.engine import simulate_deals

    return {"deals": simulate_deals(config, policies, count, seed, first_deal=first).table}


def play_games(config: R.ManilleConfig, policies, first: int, count: int, seed: int) -> Tables:
    """Whole games to the target (MA-6): every deal of them, and one row per game."""
    from simulators.manille.engine import simulate_games

    batch = simulate_games(config, policies, count, seed, first_game=first)
    return {"deals": batch.deals, "games": batch.games}


def _team_to_seats(team0: np.ndarray, team1: np.ndarray) -> np.ndarray:
    """(units, 4) seat scores from per-team values: seats 0 & 2 get team 0's."""
    return np.stack([team0, team1, team0, team1], axis=1).astype(np.int32)


def deal_scores(tables: Tables, config: R.ManilleConfig) -> np.ndarray:
    """(deals, 4) each seat's net deal score: his team's score minus the other's (MA-6)."""
    deals = tables["deals"]
    s0, s1 = (deals[c].to_numpy().astype(np.int32) for c in ("score_team0", "score_team1"))
    return _team_to_seats(s0 - s1, s1 - s0)


def game_scores(tables: Tables, config: R.ManilleConfig) -> np.ndarray:
    """(games, 4) 1 for the seats of the winning team, 0 for the others (MA-6)."""
    winner = tables["games"].sort("game_id")["winner"].to_numpy()
    return _team_to_seats(winner == 0, winner == 1)


DEALS = Unit(
    name="deals", singular="deal", default_chunk=50_000, play=play_deals, seat_scores=deal_scores,
    score="net deal score: the seat's team's MA-6 score minus the other team's (zero-sum)",
    metrics=DEAL_METRICS, policy_methods=POLICY_METHODS, default_size=100_000,
    doc="independent deals, each from a fresh shuffle, dealer = id % 4",
)
GAMES = Unit(
    name="games", singular="game", tables=("deals", "games"), default_chunk=5_000, play=play_games,
    seat_scores=game_scores,
    score="game won: 1 for the two seats of the team that reached the target first (MA-6)",
    metrics=DEAL_METRICS, cluster="game_id", policy_methods=POLICY_METHODS, default_size=10_000,
    doc="whole games to the target (MA-6), first dealer drawn, deal passing counter-clockwise",
)


# ------------------------------------------------------------------ conformance


replay = referee_replay("simulators.manille.engine", "simulators.manille.crosscheck")


def conservation(config, policies, first: int, count: int, seed: int) -> None:
    """Each card dealt once and played once, 8 tricks and 68 points a deal (MA-1, MA-5, MA-6)."""
    from simulators.manille.crosscheck import check_invariants
    from simulators.manille.engine import simulate_deals

    a = simulate_deals(config, policies, count, seed, first_deal=first).arrays
    assert (np.sort(a.deck, axis=1) == np.arange(R.N_CARDS)).all(), "each deck is 32 cards"
    check_invariants(a)


def invariants(unit: str, config, tables: Tables) -> None:
    """68 points and 8 tricks a deal, only the team above 34 scores, games total their deals."""
    deals = tables["deals"]
    p0, p1 = deals["team0_points"].to_numpy(), deals["team1_points"].to_numpy()
    assert (p0 + p1 == R.DEAL_POINTS).all(), "MA-6: 68 points a deal"
    t0, t1 = deals["team0_tricks"].to_numpy(), deals["team1_tricks"].to_numpy()
    assert (t0.astype(int) + t1 == R.N_TRICKS).all(), "MA-6: 8 tricks a deal"
    s0, s1 = deals["score_team0"].to_numpy(), deals["score_team1"].to_numpy()
    assert not ((s0 > 0) & (s1 > 0)).any(), "MA-6: only the team above 34 scores"
    assert ((s0 > 0) == (p0 > R.THRESHOLD)).all() and ((s1 > 0) == (p1 > R.THRESHOLD)).all(), \
        "MA-6: the team above 34 scores"
    factor = (np.array(R.CONTRE_FACTOR)[deals["contre_level"].to_numpy()]
              * np.where(deals["sans_atout"].to_numpy(), 2, 1))
    assert (s0 == np.maximum(p0 - R.THRESHOLD, 0) * factor).all(), "MA-6: multipliers"
    if unit == "deals":
        ids = deals["deal_id"].to_numpy()
        assert (deals["dealer"].to_numpy() == ids % 4).all(), "deal i is dealt by seat i % 4"
        return
    games = tables["games"].sort("game_id")
    totals = deals.group_by("game_id").agg(pl.col("score_team0").cast(pl.Int64).sum(),
                                           pl.col("score_team1").cast(pl.Int64).sum(),
                                           pl.len()).sort("game_id")
    assert (totals["score_team0"] == games["score_team0"]).all() and \
        (totals["score_team1"] == games["score_team1"]).all(), "MA-6: game = sum of its deals"
    assert (totals["len"] == games["n_deals"]).all(), "n_deals counts the game's deals"
    top = np.maximum(games["score_team0"].to_numpy(), games["score_team1"].to_numpy())
    assert (top >= config.target).all(), "MA-6: a game ends at the target"
    last = deals.group_by("game_id").agg(
        (pl.col("score_team0").cum_sum().shift(1).fill_null(0).max() < config.target)
        & (pl.col("score_team1").cum_sum().shift(1).fill_null(0).max() < config.target))
    assert last[last.columns[1]].all(), "MA-6: no deal after the target is reached"


CONFORMANCE = Conformance(
    configs=(
        R.ManilleConfig(),
        R.ManilleConfig(sans_atout_must_beat=True, packets=(3, 2, 3), target=100),
        R.ManilleConfig(partner_may_sans_atout=False, target=150),
    ),
    replay=replay, conservation=conservation, invariants=invariants,
    slow_policies=("pimc",),  # about a second a deal: replayed under -m slow
    bad_options=(({"target": 75}, "target"), ({"sans_atout_must_beat": "yes"},
                                              "sans_atout_must_beat"),
                 ({"packets": (4, 3)}, "packets"), ({"max_deals": 0}, "max_deals")),
)


# ------------------------------------------------------------------ odds


@dataclass(frozen=True)
class OddsQuestion:
    """The dealer's 8 cards; every choice is played (see ``dealing.play_choices``)."""

    hand: str = field(metadata={"doc": 'the dealer\'s 8 cards, e.g. "10P AP RP 9P 10C 7C AK 8T"'})
    play: str | None = field(default=None, metadata={"doc": PLAY_DOC})
    worlds: int = field(default=DEFAULT_WORLDS, metadata={"doc": WORLDS_DOC})

    def __post_init__(self) -> None:
        check_strength_question(self.play, self.worlds)


def play_odds(config, policies, question: OddsQuestion, count: int, seed: int,
              first: int = 0) -> pl.DataFrame:
    """Deals ``first .. first + count - 1`` with the dealer's hand, every decision on the
    same deals (paired)."""
    from simulators.manille.dealing import Situation, play_choices

    if question.play is not None:
        from simulators.manille.solver.odds import play_strengths

        return play_strengths(config, policies, Situation(question.hand), question.play, count,
                              seed, worlds=question.worlds, first=first)
    frame = play_choices(config, policies, Situation(question.hand), count, seed, first=first)
    passing = frame.filter(pl.col("decision") == "pass").select("deal_id",
                                                                 pass_margin="margin")
    return (frame.join(passing, on="deal_id", how="left", maintain_order="left")
            .with_columns(margin_vs_pass=pl.col("margin") - pl.col("pass_margin"))
            .drop("pass_margin"))


def describe_odds(config, question: OddsQuestion) -> str:
    """The heading line of an odds table."""
    from simulators.manille.dealing import Situation

    hand = Situation(question.hand).hand
    if question.play is not None:
        return (f"dealer holding {R.format_cards(hand)}, target {config.target}; the trump "
                "choice and contre by the policies, the cards played "
                f"{', '.join(parse_plays(question.play))} on the same deals (margin = the "
                "dealer's team's score minus the other's):")
    return (f"dealer holding {R.format_cards(hand)}, target {config.target}; each decision "
            "played on the same deals (margin = the dealer's team's score minus the other's):")


def _odds_metrics(config, question: OddsQuestion):
    if question.play is not None:
        return play_metrics(parse_plays(question.play))
    return odds_metrics(R.DECISIONS)





def _odds_reference(question: OddsQuestion) -> str:
    return strength_reference(question.play, "pass")  # every decision against passing


ODDS = Odds(question=OddsQuestion, play=play_odds, metrics=_odds_metrics,
            describe=describe_odds, reference=_odds_reference,
            units_per_chunk=odds_units_per_chunk, cards={
                "hand": CardArgument(R.parse_cards, R.format_cards, "10P AP RP 9P 10C 7C AK 8T")})


GAME = Game(
    name="manille", title="Manille coincée", config=R.ManilleConfig,
    policies={**POLICIES, "pimc": PimcPolicy, "net": NetPolicy},
    units=(DEALS, GAMES), conformance=CONFORMANCE, odds=ODDS, players=lambda config: R.N_SEATS,
    rules_doc="docs/rules/manille.md", solve=SOLVE, learn=LEARN,
    steps=ManilleSteps,  # one deal, one move at a time (env.py): the game-AI environments
    partnerships=lambda config: ((0, 2), (1, 3)),  # MA-2: partners face to face
)
make_policy = GAME.make_policy  # a registered policy by name, parameters validated
