"""Stop or draw? The rest of one Bango turn from a given situation, for ``tapisvert odds``.

The situation is what the player sees: his hand and sequences, the cards
revealed this turn, the other face-up cards. The cards he cannot see are
dealt at random (every order of the unseen cards equally likely, the same
orders for both decisions: the comparison is paired), then:

* ``stop`` — he stops now and takes what his policy takes;
* ``draw`` — he reveals the next card, then follows his policy's
  stop-or-draw choice until he stops or explodes (bangos are not played in
  this what-if, so an explosion is final).

Each row reports whether the turn explodes, the cards revealed after the
question, and how many cards that fit his game (the policy's
:func:`~simulators.bango.policies.fit_values`) he collects: on a stop, the
fitting cards taken; on an explosion, the exploding card if it fits (what
else he keeps depends on the opponents' picks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from simulators.bango import rules as R
from simulators.bango.observations import CENTRE_SIZE, situation, unseen_counts
from simulators.core import rng
from simulators.core.game import mean, rate
from simulators.core.params import check_count

STREAM_ODDS = 7


@dataclass(frozen=True)
class OddsQuestion:
    """The turn so far, as the player sees it."""

    hand: str = field(metadata={"doc": 'my hand, e.g. "4B 6R 9K" (may be empty: "")'})
    centre: str = field(metadata={"doc": 'the cards revealed this turn, in order, e.g. "5Y 2V"'})
    sequences: str = field(default="", metadata={
        "doc": 'my sequences separated by ";", e.g. "7B 8B 9B; 2R 3R"'})
    seen: str = field(default="", metadata={
        "doc": "every other face-up card out of play (common and personal discards, "
               "the other players' sequences)"})
    stock_left: int = field(default=40, metadata={"doc": "cards left in the deck"})


def _obs(config: R.BangoConfig, question: OddsQuestion):
    sequences = tuple(R.format_cards(seq) for seq in R.parse_sequences(question.sequences))
    centre = R.parse_cards(question.centre)
    if not centre:
        raise ValueError("centre: give the cards revealed so far (at least one)")
    values = [R.value_of(c) for c in centre]
    if len(set(values)) != len(values):
        raise ValueError(f"centre: {question.centre!r} repeats a value: the turn has already "
                         "exploded (BG-3)")
    if isinstance(question.stock_left, bool) or not 1 <= question.stock_left <= R.N_CARDS:
        raise ValueError(f"stock_left must be in [1, 99], got {question.stock_left!r}")
    return situation(question.hand, question.centre, sequences, question.seen,
                     config.n_players, question.stock_left)


def _tiled(o, centre, length, noise, stock_left: int):
    """The question's one-row observation repeated for each centre (what a drawer sees after
    each draw: the centre grown, the stock shrunk by the cards revealed)."""
    n = len(centre)
    return o._replace(
        seat=np.zeros(n, np.int8), active=np.zeros(n, np.int8),
        hand=np.repeat(o.hand, n, 0), centre=centre, centre_len=length,
        revealed=centre[np.arange(n), np.maximum(length - 1, 0)],
        exploded=np.zeros(n, bool), position=np.full(n, -1),
        seq_mask=np.repeat(o.seq_mask, n, 0), seq_colours=np.repeat(o.seq_colours, n, 0),
        n_open=np.repeat(o.n_open, n, 0), public=np.repeat(o.public, n, 0),
        hand_sizes=np.repeat(o.hand_sizes, n, 0),
        stock_left=np.full(n, stock_left) - (length - o.centre_len[0]),
        forced=np.zeros(n, bool), noise=noise)


def play_odds(config: R.BangoConfig, policies, question: OddsQuestion, count: int,
              seed: int, first: int = 0) -> pl.DataFrame:
    """Completions ``first .. first + count - 1`` of the unseen cards, each played with both
    decisions (completion ``i`` is the same whatever the batch: chunks add up)."""
    from simulators.bango.policies import fit_values, fits

    count = check_count("count", count)
    policy = policies[0] if isinstance(policies, list | tuple) else policies
    for method in ("draw_on", "take"):
        if not callable(getattr(policy, method, None)):
            raise ValueError(f"policies: {type(policy).__name__} lacks the method {method}")
    obs0 = _obs(config, question)
    fit = int(fit_values(obs0)[0])
    pool = np.repeat(np.arange(R.N_KINDS), unseen_counts(obs0)[0]).astype(np.int8)
    entropy = rng.root_entropy(seed)
    first = check_count("first", first, low=0)
    ids = np.arange(first, first + count, dtype=np.int64)
    order = rng.draw_per_unit(entropy, ids, STREAM_ODDS,
                              lambda g, size: rng.permutations(g, size, len(pool)))
    deck = pool[order]  # (count, unseen): the next cards, top first
    rows = np.arange(count)

    def tiled(o, centre, length, noise):
        return _tiled(o, centre, length, noise, question.stock_left)

    def noise_for(step):
        if not getattr(policy, "uses_noise", False):
            return None
        return rng.draw_per_unit(entropy, ids, STREAM_ODDS + 1,
                                 lambda g, size: g.random(size, dtype=np.float32), step)

    def taken_fitting(o):
        mask = np.asarray(policy.take(o)).astype(np.int64)
        take = ((mask[:, None] >> np.arange(CENTRE_SIZE)) & 1).astype(bool) & (o.centre >= 0)
        return (take & fits(np.full(len(mask), fit), o.centre)).sum(axis=1)

    start = np.repeat(obs0.centre, count, 0)
    length = np.full(count, int(obs0.centre_len[0]))
    stop_fit = taken_fitting(tiled(obs0, start, length, noise_for(0)))
    centre, exploded = start.copy(), np.zeros(count, bool)
    revealed = np.zeros(count, np.int16)
    collected = np.zeros(count, np.int64)
    drawing = rows.copy()
    limit = min(question.stock_left, deck.shape[1], CENTRE_SIZE)
    step = 0
    while drawing.size:
        card = deck[drawing, step]
        values = np.where(centre[drawing] >= 0, R.KIND_VALUE[np.maximum(centre[drawing], 0)], 0)
        boom = (values == R.KIND_VALUE[card][:, None]).any(axis=1)
        centre[drawing, length[drawing]] = card
        length[drawing] += 1
        revealed[drawing] += 1
        exploded[drawing] = boom
        collected[drawing[boom]] = fits(np.full(int(boom.sum()), fit), card[boom]).astype(int)
        alive = drawing[~boom]
        step += 1
        if not alive.size:
            break
        o = tiled(obs0, centre[alive], length[alive], None if noise_for(step) is None
                  else noise_for(step)[alive])
        last = (step >= limit) | (length[alive] >= CENTRE_SIZE)
        go_on = np.asarray(policy.draw_on(o)).astype(bool) & ~last
        stopped = alive[~go_on]
        if stopped.size:
            so = tiled(obs0, centre[stopped], length[stopped], None)
            collected[stopped] = taken_fitting(so)
        drawing = alive[go_on]
    frame = lambda decision, boom, shown, got: pl.DataFrame({  # noqa: E731
        "deal_id": ids, "decision": decision, "exploded": boom, "revealed": shown,
        "fitting": got})
    return pl.concat([frame("stop", np.zeros(count, bool), np.zeros(count, np.int16), stop_fit),
                      frame("draw", exploded, revealed, collected)])


def describe_odds(config: R.BangoConfig, question: OddsQuestion) -> str:
    """The heading line of an odds table."""
    obs = _obs(config, question)
    from simulators.bango.observations import explosion_probability

    p = float(explosion_probability(obs)[0])
    return (f"{config.n_players} players; hand {question.hand or '(empty)'}, centre "
            f"{question.centre}, sequences {question.sequences or '(none)'}: the next card "
            f"explodes with probability {p:.4f} (exact); stopping now vs drawing on and "
            "following the policy, on the same unseen-card orders:")


ODDS_METRICS = tuple(
    pair for decision in ("stop", "draw") for pair in (
        (decision, rate("p_explode", "P(the turn explodes)", pl.col("exploded"))),
        (decision, mean("fitting", "cards that fit collected", pl.col("fitting"))),
    )
) + (("draw", mean("revealed", "cards revealed after the question", pl.col("revealed"))),)
