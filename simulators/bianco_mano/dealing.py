"""Deals with fixed cards: what one player knows at bid time, the rest uniform.

A :class:`Situation` is what a bidder knows when his turn to bid comes: his
seat position from the dealer's left, his first-distribution cards and the
turned card (BM-4..BM-7). :func:`play_situation` deals the unknown cards
uniformly (each deal ``i`` from its own seed child, as everywhere), forces
the bidder's decision (take, naming a family, or pass) and lets the
policies play the rest. Deals where a player before him took are
*rejected*: he would never have been asked, and his having been asked says
the earlier players passed (rejection keeps that information honest). If
too few deals survive, :class:`DealConstraintError` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import STREAM_NOISE, Dispatch, n_decisions, play_batch
from simulators.core import cards32, rng
from simulators.core.dispatch import forwards

STREAM_SITUATION, STREAM_SITUATION_CUT = 10, 11
TAKE, PASS = "take", "pass"


DealConstraintError = cards32.DealConstraintError  # re-exported: the odds' typed failure


@dataclass(frozen=True)
class Situation:
    """A bidder's knowledge at his turn: position, first-distribution cards, turned card.

    ``position`` counts from the dealer's left (0) to the dealer (n-1).
    ``hand`` and ``turned`` accept card notation (``"1R 3R 5B 8V 2J"``).
    """

    n_players: int
    position: int
    hand: tuple[int, ...]
    turned: int

    def __post_init__(self) -> None:
        if self.n_players not in R.PLAYER_COUNTS:
            raise DealConstraintError(f"n_players must be 3, 4 or 5, got {self.n_players!r}")
        hand = R.parse_cards(self.hand) if isinstance(self.hand, str) else tuple(self.hand)
        turned = R.parse_card(self.turned) if isinstance(self.turned, str) else int(self.turned)
        object.__setattr__(self, "hand", tuple(int(c) for c in hand))
        object.__setattr__(self, "turned", turned)
        size = R.FIRST_DISTRIBUTION[self.n_players]
        if len(self.hand) != size:
            raise DealConstraintError(f"a {self.n_players}-player bidder holds {size} cards at bid "
                                      f"time (BM-4..BM-6), got {len(self.hand)}")
        if len(set(self.hand)) != size or not all(0 <= c < R.N_CARDS for c in self.hand):
            raise DealConstraintError(f"hand must be {size} distinct cards, got {self.hand}")
        if self.turned in self.hand:
            raise DealConstraintError(f"the turned card {R.format_card(self.turned)} "
                                      "cannot also be in the hand")
        if not 0 <= self.position < self.n_players:
            raise DealConstraintError(f"position must be in 0..{self.n_players - 1} (0 = dealer's "
                                      f"left), got {self.position!r}")

    @property
    def seat(self) -> int:
        """The bidder's seat when seat 0 deals."""
        return (self.position + 1) % self.n_players


def situation_decks(situation: Situation, first_packet: int, entropy: int,
                    units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pre-cut decks and cuts dealing ``situation``'s cards to the bidder (dealer seat 0)."""
    n, j = situation.n_players, situation.position
    h1 = R.FIRST_DISTRIBUTION[n]
    second = h1 - first_packet
    slots = list(range(first_packet * j, first_packet * j + first_packet))
    slots += list(range(n * first_packet + second * j, n * first_packet + second * (j + 1)))
    known = np.array(situation.hand, dtype=np.int8)
    unknown = np.array([c for c in range(R.N_CARDS)
                        if c not in situation.hand and c != situation.turned], dtype=np.int8)
    free = np.array([p for p in range(R.N_CARDS) if p not in slots and p != n * h1])
    order = rng.draw_per_unit(entropy, units, STREAM_SITUATION,
                              lambda g, size: rng.permutations(g, size, len(unknown)))
    hand_order = rng.draw_per_unit(entropy, units, STREAM_SITUATION,
                                   lambda g, size: rng.permutations(g, size, h1), 1)
    post = np.empty((len(units), R.N_CARDS), dtype=np.int8)
    post[:, free] = unknown[order]
    post[:, slots] = known[hand_order]
    post[:, n * h1] = situation.turned
    cut = rng.draw_per_unit(entropy, units, STREAM_SITUATION_CUT,
                            lambda g, size: g.integers(1, R.N_CARDS, size=size, dtype=np.int8))
    # the engine cuts deck[cut:] + deck[:cut]; undo it so the post-cut deck is `post`
    index = (np.arange(R.N_CARDS)[None, :] - cut[:, None].astype(np.intp)) % R.N_CARDS
    return np.take_along_axis(post, index, 1), cut


@forwards("inner", "first_packet", "espion", "call", "announce", "play", "costly")
class _Forced:
    """Wraps a policy: the bidder's bids are fixed, everything else delegated."""

    def __init__(self, inner, take_round: int | None, family: int):
        self.inner, self.take_round, self.family = inner, take_round, family
        self.uses_noise = getattr(inner, "uses_noise", False)

    def bid(self, obs):
        take = self.take_round == obs.round
        return np.full(len(obs.hand), self.family if take else R.PASS, dtype=np.int8)


def _forced(config: R.BiancoManoConfig, policies, situation: Situation, decision: str,
            family: int | None):
    """The dispatch with the bidder's decision forced, and the bidding slot he is asked at."""
    if config.n_players != situation.n_players:
        raise DealConstraintError(f"config has {config.n_players} players, the situation "
                                  f"{situation.n_players}")
    if decision not in (TAKE, PASS):
        raise DealConstraintError(f"decision must be 'take' or 'pass', got {decision!r}")
    turned_family = R.family_of(situation.turned)
    if family is None or family == turned_family:
        take_round, family = 1, turned_family
    else:
        if not 0 <= family < R.N_FAMILIES:
            raise DealConstraintError(f"family must be 0..3, got {family!r}")
        take_round = 2
    n = config.n_players
    per_seat = list(policies) if isinstance(policies, list | tuple) else [policies] * n
    per_seat[situation.seat] = _Forced(per_seat[situation.seat],
                                       take_round if decision == TAKE else None, family)
    # the bidder is asked in round `ask_round` at bidding slot `slot`
    ask_round = take_round if decision == TAKE else 1
    return Dispatch(per_seat, n), (ask_round - 1) * n + situation.position


def play_attempts(config: R.BiancoManoConfig, policies, situation: Situation, decision: str,
                  first: int, count: int, seed: int = 0, *, family: int | None = None,
                  first_packet: int | None = None):
    """Deal attempts ``first .. first + count - 1`` of ``situation``, the bidder's decision
    forced; the engine's arrays of those that reach his turn (everyone before him passed),
    and their attempt ids.

    Attempt ``i`` is the same deal under every decision and whatever the
    batch it is dealt in (its cards and noise come from unit ``i``), so
    chunks of attempts add up to the same sample and the decisions pair
    deal by deal.
    """
    from simulators.bianco_mano.engine import DealArrays

    dispatch, slot = _forced(config, policies, situation, decision, family)
    n = config.n_players
    first_packet = max(R.FIRST_PACKET_CHOICES[n]) if first_packet is None else first_packet
    entropy = rng.root_entropy(seed)
    units = np.arange(first, first + count, dtype=np.int64)
    deck, cut = situation_decks(situation, first_packet, entropy, units)
    noise = None
    if dispatch.uses_noise:
        draws = rng.draw_per_unit(entropy, units, STREAM_NOISE,
                                  lambda g, size: rng.uniforms(g, size, n_decisions(n)), 0)
        noise = np.ascontiguousarray(draws.T)
    arrays = play_batch(config, dispatch, deck, cut, np.zeros(count, np.int8), noise, units,
                        first_packet=first_packet)
    keep = arrays.bids[:, slot] >= 0
    return DealArrays(*(None if f is None else f[keep] for f in arrays)), units[keep]


def play_situation(config: R.BiancoManoConfig, policies, situation: Situation, decision: str,
                   n_deals: int, seed: int = 0, *, family: int | None = None,
                   first_packet: int | None = None, max_attempts: int | None = None):
    """Play ``n_deals`` accepted deals of ``situation`` with the bidder's decision forced.

    ``decision`` is ``"take"`` (in round 1 with the turned family, or in
    round 2 naming ``family``) or ``"pass"`` (in both rounds). Returns the
    engine's :class:`~simulators.bianco_mano.engine.DealArrays` of the
    first ``n_deals`` accepted deals (:func:`play_attempts` from attempt 0
    on), the number accepted and the number dealt (their ratio is how often
    the bidder's turn comes). Raises :class:`DealConstraintError` when fewer
    than ``n_deals`` survive after ``max_attempts`` dealt (default: 50 times
    ``n_deals``).
    """
    from simulators.bianco_mano.engine import DealArrays

    _forced(config, policies, situation, decision, family)  # refuse bad input before work
    max_attempts = 50 * n_deals if max_attempts is None else max_attempts
    accepted: list[DealArrays] = []
    got, tried, batch = 0, 0, max(1_000, n_deals)
    while got < n_deals and tried < max_attempts:
        arrays, ids = play_attempts(config, policies, situation, decision, tried, batch, seed,
                                    family=family, first_packet=first_packet)
        accepted.append(arrays)
        got += len(ids)
        tried += batch
    if got < n_deals:
        raise DealConstraintError(
            f"only {got} of {n_deals} deals reached the bidder's turn after {tried} dealt: the "
            "players before him almost always take under these policies")
    merged = DealArrays(*(None if parts[0] is None else np.concatenate(parts)[:n_deals]
                          for parts in zip(*accepted, strict=True)))
    return merged, got, tried
