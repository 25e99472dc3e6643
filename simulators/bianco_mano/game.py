"""Bianco Mano as the toolkit sees it: units, scores, metrics, conformance and odds hooks.

Registered as the entry point ``bianco-mano`` (group ``tapisvert.games``);
see :mod:`simulators.core.game` for what each field means.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from simulators.bianco_mano import rules as R
from simulators.bianco_mano.env import BiancoManoSteps
from simulators.bianco_mano.learn import LEARN, NetPolicy
from simulators.bianco_mano.metrics import DEAL_METRICS, ODDS_METRICS, play_metrics
from simulators.bianco_mano.observations import POLICY_METHODS
from simulators.bianco_mano.policies import POLICIES
from simulators.bianco_mano.solver.command import SOLVE
from simulators.bianco_mano.solver.pimc import PimcPolicy
from simulators.core import bits
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
from simulators.core.tables import enum_column

# ------------------------------------------------------------------ units


def play_deals(config: R.BiancoManoConfig, policies, first: int, count: int, seed: int) -> Tables:
    """Independent deals ``first .. first + count - 1``: the ``deals`` table."""
    from simulators.bianco_mano.engine import simulate_deals

    return {"deals": simulate_deals(config, policies, count, seed, first_deal=first).table}


def play_games(config: R.BiancoManoConfig, policies, first: int, count: int, seed: int) -> Tables:
    """Whole games (BM-12): every deal of them, and one row per game and seat."""
    from simulators.bianco_mano.engine import simulate_games

    batch = simulate_games(config, policies, count, seed, first_game=first)
    return {"deals": batch.deals, "games": batch.games}


def deal_scores(tables: Tables, config: R.BiancoManoConfig) -> np.ndarray:
    """(deals, seats) score changes of each deal (BM-10)."""
    deals = tables["deals"]
    return np.stack([deals[f"delta_{s}"].to_numpy() for s in range(config.n_players)],
                    axis=1).astype(np.int32)


def game_scores(tables: Tables, config: R.BiancoManoConfig) -> np.ndarray:
    """(games, seats) final scores (BM-12)."""
    games = tables["games"].sort(["game_id", "seat"])
    return games["score"].to_numpy().reshape(-1, config.n_players).astype(np.int32)


DEALS = Unit(
    name="deals", singular="deal", default_chunk=50_000, play=play_deals, seat_scores=deal_scores,
    score="score change per deal (BM-10: taker ±2, partner ±1, each opponent ∓1)",
    metrics=DEAL_METRICS, policy_methods=POLICY_METHODS, default_size=100_000,
    doc="independent deals, each from a fresh shuffle",
    ignores=("shuffle_every_deal", "gather", "deals_per_game"),
)
GAMES = Unit(
    name="games", singular="game", tables=("deals", "games"), default_chunk=5_000, play=play_games,
    seat_scores=game_scores,
    score="game score: the sum of a seat's BM-10 score changes over the game (BM-12)",
    metrics=DEAL_METRICS, cluster="game_id", policy_methods=POLICY_METHODS, default_size=10_000,
    doc="whole games (BM-12) with carried decks (BM-3) and redeals (BM-7)",
)


# ------------------------------------------------------------------ conformance


replay = referee_replay("simulators.bianco_mano.engine", "simulators.bianco_mano.crosscheck")


def conservation(config, policies, first: int, count: int, seed: int) -> None:
    """Every card is played exactly once or sits in the espion; 75 points a deal (BM-1, BM-4..6)."""
    from simulators.bianco_mano.engine import mask_points, simulate_deals

    a = simulate_deals(config, policies, count, seed, first_deal=first).arrays
    n = config.n_players
    taken = np.flatnonzero(a.taker >= 0)
    assert a.plays.shape[1:] == (R.HAND_SIZE[n], n), "one card per seat and trick"
    cards = a.plays[taken].reshape(taken.size, -1)
    if R.ESPION_SIZE[n]:
        espion = np.stack([bits.bit_index(bits.lowest_bit(a.espion[taken])),
                           bits.bit_index(bits.highest_bit(a.espion[taken]))], axis=1)
        cards = np.concatenate([cards, espion], axis=1)
    else:
        assert (a.espion[taken] == 0).all(), "no espion with 4 players"
    assert (np.sort(cards, axis=1) == np.arange(R.N_CARDS)).all(), "each card once per deal"
    all_cards = np.bitwise_or.reduce(bits.card_bits(cards), axis=1) if taken.size else None
    if taken.size:
        assert (mask_points(all_cards, a.dominant[taken]) == R.TOTAL_POINTS).all(), "BM-1: 75"
    void = a.taker < 0
    assert (a.plays[void] == -1).all(), "all-pass deals play no card (BM-7)"
    assert (np.sort(a.deck, axis=1) == np.arange(R.N_CARDS)).all(), "each deck is 32 cards"


def invariants(unit: str, config, tables: Tables) -> None:
    """Scores follow the outcome (BM-10), points stay in range, games total their deals."""
    n = config.n_players
    deals = tables["deals"]
    deltas = deals.select([pl.col(f"delta_{s}").cast(pl.Int32) for s in range(n)]).to_numpy()
    outcome = deals["outcome"].cast(pl.String).to_numpy()
    taker, partner = deals["taker"].to_numpy(), deals["partner"].to_numpy()
    seats = np.arange(n)
    for code, (taker_d, partner_d, opp_d) in R.SCORE_CHANGES.items():
        rows = outcome == R.OUTCOME_NAMES[code]
        want = np.where(seats == taker[rows, None], taker_d,
                        np.where(seats == partner[rows, None], partner_d, opp_d))
        assert (deltas[rows] == want).all(), f"BM-10 score changes for {R.OUTCOME_NAMES[code]}"
    void = outcome == "all_pass"
    assert (deltas[void] == 0).all() and (taker[void] == -1).all(), "all-pass scores nothing"
    side = deals["side_points"].to_numpy()
    assert ((side[~void] >= 0) & (side[~void] <= R.TOTAL_POINTS)).all(), "BM-1 side points"
    capo = outcome == "capo"
    assert (side[capo] == R.TOTAL_POINTS).all(), "capo means all 75 points (BM-10)"
    if unit == "deals":
        ids = deals["deal_id"].to_numpy()
        assert (deals["dealer"].to_numpy() == ids % n).all(), "deal i is dealt by seat i % n"
        return
    games = tables["games"].sort(["game_id", "seat"])
    per_seat = deals.group_by("game_id").agg(
        [pl.col(f"delta_{s}").cast(pl.Int32).sum() for s in range(n)]).sort("game_id")
    totals = per_seat.select([f"delta_{s}" for s in range(n)]).to_numpy().ravel()
    assert (games["score"].to_numpy() == totals).all(), "BM-12: game score = sum of deltas"
    played = deals.filter(pl.col("outcome") != "all_pass").group_by("game_id").len()
    assert (played["len"] == config.deals_per_game).all(), "BM-12: deals_per_game played"


CONFORMANCE = Conformance(
    configs=(
        R.BiancoManoConfig(n_players=3, bianco_mano=True),
        R.BiancoManoConfig(n_players=4),
        R.BiancoManoConfig(n_players=5, bianco_mano=True),
        R.BiancoManoConfig(n_players=4, gather="trick_order"),
        R.BiancoManoConfig(n_players=3, shuffle_every_deal=True, deals_per_game=3),
    ),
    replay=replay, conservation=conservation, invariants=invariants,
    slow_policies=("pimc",),  # a fraction of a second a deal: replayed under -m slow
    bad_options=(({"n_players": 6}, "n_players"), ({"gather": "heap"}, "gather"),
                 ({"deals_per_game": 0}, "deals_per_game"), ({"bianco_mano": "yes"},
                                                              "bianco_mano")),
)


# ------------------------------------------------------------------ odds


@dataclass(frozen=True)
class OddsQuestion:
    """A bidder's situation at his turn (see ``dealing.Situation``)."""

    hand: str = field(metadata={"doc": 'first-distribution cards, e.g. "1R 3R 5B 8V 2J"'})
    turned: str = field(metadata={"doc": "the turned card, e.g. 4R"})
    position: int = field(default=0, metadata={
        "doc": "bidding position from the dealer's left (0) to the dealer (n-1)"})
    family: str | None = field(default=None, metadata={
        "doc": "take in round 2 naming this family (R, B, J, V) instead of the turned one"})
    play: str | None = field(default=None, metadata={"doc": PLAY_DOC})
    worlds: int = field(default=DEFAULT_WORLDS, metadata={"doc": WORLDS_DOC})

    def __post_init__(self) -> None:
        check_strength_question(self.play, self.worlds)


def _situation(config, question: OddsQuestion):
    from simulators.bianco_mano.dealing import Situation

    situation = Situation(config.n_players, question.position, question.hand, question.turned)
    family = None if question.family is None else R.parse_family(question.family)
    return situation, family


def play_odds(config, policies, question: OddsQuestion, count: int, seed: int,
              first: int = 0) -> pl.DataFrame:
    """Deals ``first .. first + count - 1`` dealt to the situation, played with the bidder
    forced to take and forced to pass.

    One take row per deal dealt, ``reached`` true where everyone before the
    bidder passed (the share is how often his turn comes; the other columns
    are null where it did not); one pass row per deal that reaches his turn.
    A deal has the same ``deal_id`` under both decisions.
    """
    from simulators.bianco_mano.dealing import PASS, TAKE, play_attempts

    situation, family = _situation(config, question)
    if question.play is not None:
        from simulators.bianco_mano.solver.odds import play_strengths

        return play_strengths(config, policies, situation, family, question.play, count, seed,
                              worlds=question.worlds, first=first)
    seat = situation.seat
    dealt = np.arange(first, first + count, dtype=np.int64)
    outcome_names = pl.Enum(list(R.OUTCOME_NAMES))

    def rows(decision, a, ids):
        return pl.DataFrame({
            "decision": [decision] * len(ids), "deal_id": ids,
            "reached": np.ones(len(ids), dtype=bool),
            "outcome": enum_column("outcome", a.outcome, outcome_names.categories),
            "side_points": a.side_points.astype(np.int32),
            "score_change": a.deltas[:, seat].astype(np.int32),
            "other_takes": a.taker >= 0,
            "partner_of_other": (a.taker >= 0) & (np.asarray(a.partner) == seat),
        })

    take, take_ids = play_attempts(config, policies, situation, TAKE, first, count, seed,
                                   family=family)
    give_up, pass_ids = play_attempts(config, policies, situation, PASS, first, count, seed)
    missed = pl.DataFrame({"decision": TAKE, "deal_id": np.setdiff1d(dealt, take_ids),
                           "reached": False})
    return pl.concat([rows(TAKE, take, take_ids), missed, rows(PASS, give_up, pass_ids)],
                     how="diagonal_relaxed")


def describe_odds(config, question: OddsQuestion) -> str:
    """The heading line of an odds table."""
    situation, family = _situation(config, question)
    named = R.FAMILY_NAMES[R.family_of(situation.turned) if family is None else family]
    ways = ("" if question.play is None else
            f"; he takes, the cards played {', '.join(parse_plays(question.play))} on the "
            "same deals")
    return (f"{config.n_players} players, position {situation.position} from the dealer's "
            f"left, hand {R.format_cards(situation.hand)}, turned "
            f"{R.format_card(situation.turned)}; taking names {named}{ways}:")


def _odds_metrics(config, question: OddsQuestion):
    return ODDS_METRICS if question.play is None else play_metrics(parse_plays(question.play))





def _odds_reference(question: OddsQuestion) -> str:
    return strength_reference(question.play, "pass")  # every decision against passing


ODDS = Odds(question=OddsQuestion, play=play_odds, metrics=_odds_metrics,
            describe=describe_odds, reference=_odds_reference,
            units_per_chunk=odds_units_per_chunk, cards={
                "hand": CardArgument(R.parse_cards, R.format_cards, "1R 2R 3B 8V 2J"),
                "turned": CardArgument(R.parse_card, R.format_card, "4R")})


GAME = Game(
    name="bianco-mano", title="Bianco Mano", config=R.BiancoManoConfig,
    policies={**POLICIES, "pimc": PimcPolicy, "net": NetPolicy},
    units=(DEALS, GAMES), conformance=CONFORMANCE, odds=ODDS,
    rules_doc="docs/rules/bianco_mano.md", solve=SOLVE, learn=LEARN,
    steps=BiancoManoSteps,  # one deal, one move at a time (env.py): the game-AI environments
    partnerships=lambda config: ((0, 2), (1, 3)) if config.n_players == 4 else (),  # BM-5
    # (3 and 5 players: the taker's side changes from deal to deal, BM-4, BM-6)
)
make_policy = GAME.make_policy  # a registered policy by name, parameters validated
