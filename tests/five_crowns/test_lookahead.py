"""The Five Crowns lookahead policy (issue 22): exact expectations over the next stock card.

Hand-worked cases first (round 1, 3s wild: hands of 3 cards, FC-2), with the
unseen cards pinned down by what the player has seen; then ~50 observations
of real rounds against a brute force written here: every unseen card drawn,
every discard of the resulting hand tried, each hand solved by
``melds.min_penalty`` (the pairs {d, e} spelled out, not the policy's
``best_discard`` search), the expectation as an exact fraction.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from analysis.cli import main
from simulators.five_crowns import lookahead, melds
from simulators.five_crowns import rules as R
from simulators.five_crowns.engine import Dispatch, simulate_rounds
from simulators.five_crowns.game import GAME
from simulators.five_crowns.lookahead import LookaheadPolicy, stock_sums, unseen_cards
from simulators.five_crowns.observations import DiscardObs, DrawObs
from simulators.five_crowns.odds import KIND_COPIES
from simulators.five_crowns.policies import HeuristicPolicy


def counts(text: str) -> np.ndarray:
    return np.bincount(R.parse_cards(text), minlength=R.N_KINDS).astype(np.uint8)


def seen_leaving(hand: str, unseen: str) -> np.ndarray:
    """The seen cards that leave exactly ``unseen`` hidden beside ``hand`` (FC-1 copies)."""
    return (KIND_COPIES - counts(hand) - counts(unseen)).astype(np.int16)


def draw_obs(hand: str, top: str, seen: np.ndarray, round_no: int = 1) -> DrawObs:
    h = counts(hand)[None, :]
    return DrawObs(h, melds.min_penalty(h, R.wild_rank(round_no)),
                   np.array([R.parse_card(top)], dtype=np.int8), R.wild_rank(round_no), round_no,
                   np.zeros(1, np.int8), 4, np.zeros(1, bool), np.array([40]), 4, None,
                   seen[None, :])


def discard_obs(hand: str, seen: np.ndarray, final: bool = False, round_no: int = 1
                ) -> DiscardObs:
    return DiscardObs(counts(hand)[None, :], np.zeros(1, np.int8), np.zeros(1, bool), None,
                      R.wild_rank(round_no), round_no, np.zeros(1, np.int8), 4,
                      np.array([final]), 4, None, seen[None, :])


# ------------------------------------------------------------------ worked by hand


@pytest.mark.parametrize("top, take", [("4S", True), ("5C", False), ("9C", False)])
def test_draw_takes_the_top_only_below_the_stock_expectation(top, take):
    """FC-3, FC-5. Hand 5H 6H KS, unseen 7H, QC, QC, 4D (everything else seen, the top too).
    Stock: 7H makes the run 5-6-7H (0, KS thrown); QC leaves 5+6+12 = 23; 4D leaves 15:
    E = (0 + 2 * 23 + 15) / 4 = 15.25. Taking the top and throwing KS leaves 11 + its rank:
    4S 15 < 15.25 takes; 5C 16 and 9C 20 draw from the stock."""
    seen = seen_leaving("5H 6H KS", "7H QC QC 4D")
    assert seen[R.parse_card(top)] >= 1  # the top lies on the pile: seen
    obs = draw_obs("5H 6H KS", top, seen)
    unseen = unseen_cards(obs.hand, obs.seen)
    assert unseen.sum() == 4
    assert stock_sums(obs.hand, np.zeros(1, np.int64), unseen, 3).tolist() == [61]
    assert LookaheadPolicy().draw(obs).tolist() == [take]
    assert HeuristicPolicy(take_margin=0).draw(obs).tolist() == [True]  # all save on KS 24


def test_take_margin_shifts_the_draw():
    """15 + 0.5 > 15.25: with a half-point margin the 4S stays on the pile."""
    obs = draw_obs("5H 6H KS", "4S", seen_leaving("5H 6H KS", "7H QC QC 4D"))
    assert LookaheadPolicy(take_margin=0.5).draw(obs).tolist() == [False]
    assert LookaheadPolicy(take_margin=0.2).draw(obs).tolist() == [True]


def test_a_tie_draws_from_the_stock():
    """A hand that melds (5-6-7H) keeps penalty 0 whatever comes: 0 == E[0], the stock."""
    obs = draw_obs("5H 6H 7H", "7S", seen_leaving("5H 6H 7H", "KD 4C JK"))
    assert LookaheadPolicy().draw(obs).tolist() == [False]


def test_discard_keeps_the_cards_the_unseen_ones_complete():
    """After the draw 5H 6H 9C 10C; unseen JC, JC, 8C. The heuristic throws 10C (5+6+9 = 20
    left, the least now). The lookahead values each throw by the next stock draw:
    5H: JC or 8C makes a clubs run with 9C 10C, 6H is thrown: 0 every time; 6H: likewise 0;
    10C: JC leaves 20, 8C leaves 5+6+8 = 19: (40 + 19) / 3; 9C: (2 * 21 + 19) / 3.
    5H and 6H tie at 0; the immediate penalty breaks it: keeping 5H 9C 10C (24) beats
    6H 9C 10C (25), so 6H goes."""
    seen = seen_leaving("5H 6H 9C 10C", "JC JC 8C")
    obs = discard_obs("5H 6H 9C 10C", seen)
    assert LookaheadPolicy().discard(obs).tolist() == [R.parse_card("6H")]
    assert HeuristicPolicy().discard(obs).tolist() == [R.parse_card("10C")]
    assert LookaheadPolicy(discard_ahead=False).discard(obs).tolist() == [R.parse_card("10C")]


def test_fc5_last_turn_discard_minimises_the_immediate_penalty():
    """FC-5: after someone went out there is no next turn: the heuristic's throw."""
    obs = discard_obs("5H 6H 9C 10C", seen_leaving("5H 6H 9C 10C", "JC JC 8C"), final=True)
    assert LookaheadPolicy().discard(obs).tolist() == [R.parse_card("10C")]


def test_a_discard_that_goes_out_is_taken():
    """FC-3: throwing KS leaves the run 5-6-7H (0 now and after any draw)."""
    obs = discard_obs("5H 6H 7H KS", seen_leaving("5H 6H 7H KS", "8H 4H JK"))
    assert LookaheadPolicy().discard(obs).tolist() == [R.parse_card("KS")]


def test_the_engine_asks_the_lookahead_draw_not_the_heuristic_plan():
    """draw_with_plan is the heuristic's draw: the lookahead has none, so neither the engine
    (with or without heuristics at the table) nor the odds study plans with it."""
    look, heur = LookaheadPolicy(), HeuristicPolicy()
    assert not callable(getattr(look, "draw_with_plan", None))
    assert not Dispatch(look, 4).has("draw_with_plan", standing_for=("draw",))
    assert not Dispatch([look, heur, heur, heur], 4).has("draw_with_plan",
                                                         standing_for=("draw",))
    assert GAME.make_policy("lookahead") == look and LookaheadPolicy.costly


# ------------------------------------------------------------------ brute force


def brute_pen(hands: list[np.ndarray], wild: int) -> list[int]:
    return melds.min_penalty(np.array(hands, dtype=np.uint8), wild).tolist()


def held(hand: np.ndarray) -> list[int]:
    return [k for k in range(R.N_KINDS) if hand[k] > 0]


def plus(hand: np.ndarray, add=(), remove=()) -> np.ndarray:
    out = hand.astype(np.int64).copy()
    for k in add:
        out[k] += 1
    for k in remove:
        out[k] -= 1
    return out


def brute_unseen(hand: np.ndarray, seen: np.ndarray) -> dict[int, int]:
    left = {k: int(KIND_COPIES[k]) - int(hand[k]) - int(seen[k]) for k in range(R.N_KINDS)}
    return {k: w for k, w in left.items() if w > 0}


def brute_draw(hand, top, seen, wild) -> tuple[int, Fraction]:
    """(least penalty after taking the top and the best throw, E over the stock card)."""
    taken = plus(hand, [top])
    take = min(brute_pen([plus(taken, remove=[e]) for e in held(taken)], wild))
    unseen = brute_unseen(hand, seen)
    total = 0
    for c, w in unseen.items():
        drawn = plus(hand, [c])
        total += w * min(brute_pen([plus(drawn, remove=[e]) for e in held(drawn)], wild))
    return take, Fraction(total, sum(unseen.values()))


def brute_discard(hand, seen, wild, final: bool) -> int:
    """min over d of (E_c[min(pen(h-d), min_e pen(h-d-e+c))], pen(h-d), -own(d), -d)."""
    unseen = brute_unseen(hand, seen)
    keys = []
    for d in held(hand):
        kept = plus(hand, remove=[d])
        now = brute_pen([kept], wild)[0]
        if final:
            value = Fraction(now)
        else:
            total = 0
            for c, w in unseen.items():
                others = [plus(kept, [c], [e]) for e in held(kept)]
                total += w * min([now, *brute_pen(others, wild)])
            value = Fraction(total, sum(unseen.values()))
        keys.append((value, now, -R.penalty(d, wild), -d, d))
    return min(keys)[-1]


class Recorder:
    """Plays the heuristic and keeps a copy of every observation (the engine mutates hands)."""

    def __init__(self):
        self.inner, self.draws, self.discards = HeuristicPolicy(), [], []

    def draw(self, obs):
        self.draws.append(obs._replace(hand=obs.hand.copy(), seen=obs.seen.copy()))
        return self.inner.draw(obs)

    def discard(self, obs):
        self.discards.append(obs._replace(hand=obs.hand.copy(), seen=obs.seen.copy()))
        return self.inner.discard(obs)

    def go_out(self, obs):
        return self.inner.go_out(obs)


def one_row(obs, i: int):
    n = len(obs.seat)
    return obs._replace(**{name: value[i:i + 1] for name, value in obs._asdict().items()
                           if isinstance(value, np.ndarray) and value.ndim and len(value) == n})


def sampled(kind: str, per_round: int, seed: int) -> list:
    """Single-row observations of real 4-player rounds 2, 6 and 10, mid-round and final."""
    g = np.random.default_rng(seed)
    rows = []
    for round_no in (2, 6, 10):
        recorder = Recorder()
        simulate_rounds(R.FiveCrownsConfig(n_players=4, round_no=round_no), recorder, 6,
                        seed=round_no)
        batches = recorder.draws if kind == "draw" else recorder.discards
        every = [(b, i) for b in batches for i in range(len(b.seat))]
        finals = [x for x in every if x[0].final[x[1]]]
        picks = [every[j] for j in g.choice(len(every), per_round, replace=False)]
        picks += finals[:2] if kind == "discard" else []
        rows += [one_row(b, i) for b, i in picks]
    return rows


def test_draw_and_its_expectation_match_the_brute_force_on_real_rounds():
    """FC-3: the take and E_c[best discard after drawing c] as exact fractions."""
    observations = sampled("draw", 16, seed=1)
    takes = 0
    for obs in observations:
        take, expected = brute_draw(obs.hand[0], int(obs.top[0]), obs.seen[0], obs.wild)
        unseen = unseen_cards(obs.hand, obs.seen)
        got = stock_sums(obs.hand, np.zeros(1, np.int64), unseen, obs.wild)[0]
        assert Fraction(int(got), int(unseen.sum())) == expected
        assert LookaheadPolicy().draw(obs)[0] == (take < expected)
        takes += take < expected
    assert 0 < takes < len(observations)


def test_discard_matches_the_brute_force_on_real_rounds():
    """The lookahead throw (FC-5 last turns: the immediate least) against the pairs {d, e}
    solved one by one; the sample holds throws where it differs from the heuristic's."""
    observations = sampled("discard", 15, seed=2)
    assert any(bool(obs.final[0]) for obs in observations)
    differs = 0
    for obs in observations:
        want = brute_discard(obs.hand[0], obs.seen[0], obs.wild, bool(obs.final[0]))
        assert LookaheadPolicy().discard(obs)[0] == want
        differs += HeuristicPolicy().discard(obs)[0] != want
    assert differs > 0


@pytest.mark.parametrize("kind, fields", [
    ("draw", ("hand", "hand_penalty", "top", "seat", "final", "stock_left", "seen")),
    ("discard", ("hand", "drawn", "took_discard", "seat", "final", "seen"))])
def test_a_batch_decides_as_its_rows_one_by_one(monkeypatch, kind, fields):
    """Rows of several hands in one call, cut into solver blocks of at most 300 hands, as
    each row alone."""
    monkeypatch.setattr(lookahead, "MAX_HANDS", 300)
    observations = sampled(kind, 4, seed=3)
    decide = getattr(LookaheadPolicy(), kind)
    for wild in {o.wild for o in observations}:  # one round's wild rank per call
        mine = [o for o in observations if o.wild == wild]
        batch = mine[0]._replace(**{name: np.concatenate([getattr(o, name) for o in mine])
                                    for name in fields})
        assert decide(batch).tolist() == [decide(o)[0] for o in mine]


def test_compare_lookahead_with_the_heuristic_from_the_cli(capsys):
    assert main(["compare", "five-crowns", "--a", "lookahead", "--b", "heuristic",
                 "--rounds", "80", "--option", "round_no=4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    paired = next(r for r in doc["rows"] if r["row"] == "A - B paired")
    assert paired["policy"] == "lookahead - heuristic" and paired["n"] == 80
    assert paired["low"] <= paired["mean"] <= paired["high"]
    assert doc["experiment"]["a"]["name"] == "lookahead"
    assert doc["experiment"]["options"]["round_no"] == 4
