"""Bango engine: referee replays, card conservation, exact explosion odds, determinism."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from simulators.bango import crosscheck, observations
from simulators.bango import rules as R
from simulators.bango.engine import IllegalAction, simulate_games
from simulators.bango.game import make_policy
from simulators.bango.policies import HeuristicPolicy, RandomPolicy

GAMES_PER_COUNT = 1_000  # replayed by the referee in the default suite, per player count


@pytest.mark.parametrize("n_players", R.PLAYER_COUNTS)
def test_bg2_to_bg8_engine_games_replayed_by_referee(n_players):
    """1,000 games per player count (half heuristic, half random): every turn and score agree
    (10^5 per count under -m slow)."""
    config = R.BangoConfig(n_players=n_players)
    half = GAMES_PER_COUNT // 2
    checked = 0
    for policy in (HeuristicPolicy(), RandomPolicy()):
        checked += crosscheck.check_games(simulate_games(config, policy, half, seed=11))
    assert checked == GAMES_PER_COUNT


@pytest.mark.slow
@pytest.mark.parametrize("n_players", R.PLAYER_COUNTS)
def test_bg2_to_bg8_engine_games_replayed_by_referee_large(n_players):
    """10^5 games per player count, options included (slow)."""
    checked = 0
    for k, config in enumerate((R.BangoConfig(n_players=n_players),
                                R.BangoConfig(n_players=n_players, free_discard=True),
                                R.BangoConfig(n_players=n_players, removed=0, hand_limit=4))):
        games = 90_000 if k == 0 else 5_000
        for policy in (HeuristicPolicy(), RandomPolicy()):
            for first in range(0, games // 2, 5_000):
                batch = simulate_games(config, policy, 5_000, seed=13, first_game=first)
                checked += crosscheck.check_games(batch)
    assert checked >= 100_000


@pytest.mark.parametrize("config", [R.BangoConfig(n_players=3, free_discard=True),
                                    R.BangoConfig(n_players=2, removed=0, hand_limit=3),
                                    R.BangoConfig(n_players=5, removed=30)])
def test_options_replayed_by_referee(config):
    for policy in (HeuristicPolicy(stop_threshold=0.5, lay_margin=0.0), RandomPolicy()):
        assert crosscheck.check_games(simulate_games(config, policy, 300, seed=4)) == 300


def test_bg1_card_conservation_catches_a_lost_card():
    batch = simulate_games(R.BangoConfig(n_players=4), HeuristicPolicy(), 50, seed=1)
    assert crosscheck.check_conservation(batch) == 50
    batch.table.public[7, 3] -= 1
    with pytest.raises(AssertionError, match="cards not conserved"):
        crosscheck.check_conservation(batch)


def test_tables_shape_and_invariants():
    batch = simulate_games(R.BangoConfig(n_players=3), HeuristicPolicy(), 200, seed=2)
    games, turns = batch.games, batch.turns
    assert len(games) == 600 and games["game_id"].n_unique() == 200
    assert set(games["n_sequences"].unique()) <= {0, 1, 2, 3}
    assert (games["n_winners"] >= 1).all()
    # the stock (99 - 15 removed - 3 dealt = 81 cards) is revealed exactly once
    per_game = turns.group_by("game_id").agg(pl.col("revealed").sum())
    assert (per_game["revealed"] == 81).all()
    assert (turns["taken"] >= 1).sum() > 0.9 * len(turns)
    assert turns.group_by("game_id").len()["len"].to_list() == games.filter(
        games["seat"] == 0).sort("game_id")["turns"].to_list()


# ---------------------------------------------------------------- determinism


@pytest.mark.parametrize("policy", [HeuristicPolicy(), RandomPolicy()], ids=["heur", "rand"])
def test_games_do_not_depend_on_batching(policy):
    config = R.BangoConfig(n_players=4)
    whole = simulate_games(config, policy, 120, seed=9)
    parts = [simulate_games(config, policy, 50, seed=9),
             simulate_games(config, policy, 70, seed=9, first_game=50)]
    assert whole.games.equals(pl.concat([p.games for p in parts]))
    assert whole.turns.equals(pl.concat([p.turns for p in parts]))
    again = simulate_games(config, policy, 120, seed=9)
    assert whole.games.equals(again.games)
    other = simulate_games(config, policy, 120, seed=10)
    assert not whole.games.equals(other.games)


# ---------------------------------------------------------------- exact odds


def exact_first_pair_match(n_players: int, removed: int) -> Fraction:
    """P(the first two stock cards share a value) after BG-2's setup, exactly.

    k blacks among the removed cards (hypergeometric), x coloured 1s among
    the removed coloured ones, the black 1 removed with probability k/11, z
    coloured 1s dealt (each seat gets a uniform coloured card of those left);
    the stock is uniformly ordered, so the answer is
    11 E[s(s-1)] / (S(S-1)) with s the 1s left in the stock.
    """
    def hyper(total, good, draws, hits):
        if hits < 0 or hits > good or draws - hits > total - good or draws - hits < 0:
            return Fraction(0)
        return Fraction(math.comb(good, hits) * math.comb(total - good, draws - hits),
                        math.comb(total, draws))

    size = R.N_CARDS - removed - n_players
    expect = Fraction(0)
    for k in range(0, min(11, removed) + 1):
        pk = hyper(99, 11, removed, k)
        if not pk:
            continue
        coloured_left = 88 - (removed - k)
        for y, py in ((1, Fraction(k, 11)), (0, 1 - Fraction(k, 11))):
            for x in range(0, 9):
                px = hyper(88, 8, removed - k, x)
                for z in range(0, n_players + 1):
                    pz = hyper(coloured_left, 8 - x, n_players, z)
                    s = 9 - x - y - z
                    expect += pk * py * px * pz * s * (s - 1)
    return 11 * expect / (size * (size - 1))


def test_exact_first_pair_match_on_hand_computed_cases():
    """One coloured card dealt, nothing removed: its value keeps 8 of its 9 cards in the
    98-card stock, the 10 other values 9 each."""
    assert exact_first_pair_match(1, 0) == Fraction(10 * 9 * 8 + 8 * 7, 98 * 97)
    # two dealt: same value with probability 7/87, then that value keeps 7
    same, other = Fraction(7, 87), Fraction(80, 87)
    expect = (same * (10 * 9 * 8 + 7 * 6) + other * (9 * 9 * 8 + 2 * 8 * 7)) / (97 * 96)
    assert exact_first_pair_match(2, 0) == expect


@dataclass(frozen=True)
class AlwaysSecondCard(HeuristicPolicy):
    """Draws a second card on the first turn's first reveal, and never plays a bango."""

    def bango(self, obs):
        return np.full(len(obs.seat), -1, dtype=np.int8)

    def draw_on(self, obs):
        return (obs.centre_len == 1) | super().draw_on(obs)


@pytest.mark.parametrize(("n_players", "games"), [(4, 6000), (2, 4000)])
def test_bg3_first_draw_explosion_rate_matches_exact_value(n_players, games):
    config = R.BangoConfig(n_players=n_players)
    batch = simulate_games(config, AlwaysSecondCard(), games, seed=21)
    first = batch.turns.filter(batch.turns["turn"] == 0)
    exploded_on_second = int((first["exploded"] & (first["revealed"] == 2)).sum())
    p = float(exact_first_pair_match(n_players, config.n_removed))
    low, high = stats.binom.interval(0.999, games, p)
    assert low <= exploded_on_second <= high, (exploded_on_second, games * p)


@pytest.mark.slow
def test_bg3_first_draw_explosion_rate_large():
    for n in R.PLAYER_COUNTS:
        config = R.BangoConfig(n_players=n)
        batch = simulate_games(config, AlwaysSecondCard(), 60_000, seed=22)
        first = batch.turns.filter(batch.turns["turn"] == 0)
        hits = int((first["exploded"] & (first["revealed"] == 2)).sum())
        low, high = stats.binom.interval(0.999, 60_000,
                                         float(exact_first_pair_match(n, config.n_removed)))
        assert low <= hits <= high


CAPTURED: list = []


@dataclass(frozen=True)
class Capturing(HeuristicPolicy):
    """The heuristic, keeping every draw-on observation it sees."""

    def draw_on(self, obs):
        CAPTURED.append(obs)
        return super().draw_on(obs)


def test_explosion_probability_equals_exact_enumeration():
    """On real game states: the policy's chance equals counting every unseen card one by one."""
    CAPTURED.clear()
    simulate_games(R.BangoConfig(n_players=3), Capturing(), 40, seed=5)
    checked = 0
    deck = R.full_deck()
    for obs in CAPTURED[::3]:
        chance = observations.explosion_probability(obs)
        for i in range(0, len(obs.seat), 3):
            seen = Counter()
            for k in range(R.N_KINDS):
                seen[k] += int(obs.hand[i, k]) + int(obs.public[i, k])
            seen.update(int(c) for c in obs.centre[i] if c >= 0)
            unseen = list((Counter(deck) - seen).elements())
            centre_values = {R.value_of(c) for c in obs.centre[i] if c >= 0}
            exact = Fraction(sum(R.value_of(c) in centre_values for c in unseen), len(unseen))
            assert chance[i] == pytest.approx(float(exact), abs=1e-12)
            checked += 1
    assert checked > 100


def test_next_card_is_uniform_over_unseen_cards_by_full_enumeration():
    """Why counting unseen cards is exact: over every ordering of a small hidden pool split
    into a removed card, an opponent's hand and the stock, the stock's top card explodes
    exactly as often as the share of exploding values in the pool."""
    pool = R.parse_cards("3B 3R 5V 7Y 3K 9B")
    centre_values = {3, 9}
    hits = total = 0
    for order in permutations(range(len(pool))):
        stock_top = pool[order[2]]  # order[0] removed, order[1] in a hand, the rest the stock
        hits += R.value_of(stock_top) in centre_values
        total += 1
    share = Fraction(sum(R.value_of(c) in centre_values for c in pool), len(pool))
    assert Fraction(hits, total) == share == Fraction(4, 6)


# ---------------------------------------------------------------- bad input


def test_bad_input_is_refused_before_any_work():
    config = R.BangoConfig(n_players=3)
    with pytest.raises(ValueError, match="n_games must be a positive integer"):
        simulate_games(config, HeuristicPolicy(), 0)
    with pytest.raises(ValueError, match="expected one policy or 3"):
        simulate_games(config, [HeuristicPolicy()] * 2, 5)
    with pytest.raises(ValueError, match="lacks the method"):
        simulate_games(config, object(), 5)
    with pytest.raises(ValueError, match="stop_threshold must be in"):
        HeuristicPolicy(stop_threshold=1.5)
    with pytest.raises(ValueError, match="unknown Bango policy 'nope'"):
        make_policy("nope")


@dataclass(frozen=True)
class TakesNothing(HeuristicPolicy):
    def take(self, obs):
        return np.zeros(len(obs.seat), dtype=np.uint16)


@dataclass(frozen=True)
class DiscardsEverything(HeuristicPolicy):
    def lay(self, obs):
        return np.ones(len(obs.seat), dtype=bool)

    def arrange(self, obs):
        return np.full((len(obs.seat), 3, 11), -1, dtype=np.int8)


def test_illegal_actions_raise():
    config = R.BangoConfig(n_players=2)
    with pytest.raises(IllegalAction, match=r"take mask 0x0 .*take 1\+ centre cards \(BG-3\)"):
        simulate_games(config, TakesNothing(), 20, seed=1)
    with pytest.raises(IllegalAction, match="compulsory placement"):
        simulate_games(config, DiscardsEverything(), 20, seed=1)


def test_per_seat_policies():
    config = R.BangoConfig(n_players=3)
    batch = simulate_games(config, [HeuristicPolicy(), RandomPolicy(), HeuristicPolicy()], 300,
                           seed=3)
    assert crosscheck.check_games(batch) == 300
    mean = batch.games.group_by("seat").agg(pl.col("score").mean()).sort("seat")
    scores = mean["score"].to_list()
    assert scores[1] < min(scores[0], scores[2])  # random play loses to the heuristic
