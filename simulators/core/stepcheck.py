"""Checks of a game's step-by-step protocol (:mod:`simulators.core.steps`), no RL library needed.

The pieces every game's step game uses in its tests and cross-check:

* :func:`drive` plays a recorded unit into a state, move by move: before each
  move the state must have the recorded player to move, and the recorded
  action must be among its chance outcomes or legal actions;
* :func:`kernel_legal`, the legal cards of one trick-taking player by the
  shared kernel's duty table (:mod:`simulators.core.tricks`), to set beside a
  step state's legal actions, which come from the referee's rule text;
* :func:`kernel_check` sets :func:`kernel_legal` beside a step state's legal cards at each
  card to play, and :func:`check_same` words a difference between the engine's view of a
  unit and the step state's, the same way for every game;
* :func:`random_playthrough` plays a state to the end with random legal
  actions and chance outcomes drawn by their probabilities, and raises if it
  gets stuck (no legal action at a player's turn, or longer than
  ``max_game_length``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from simulators.core import bits, tricks
from simulators.core.steps import CHANCE, StepGame, StepState

__all__ = ["drive", "random_playthrough", "check_round_trip", "kernel_legal",
           "kernel_check", "check_same"]


def drive(state: StepState, moves: Iterable[tuple[int, int]], what: str,
          check: Callable[[StepState], str | None] | None = None) -> StepState:
    """Apply ``moves`` ((player, action) pairs, chance moves with player :data:`CHANCE`) to
    ``state``; ``AssertionError`` naming ``what`` and the move at the first disagreement.

    ``check(state)``, called before each move, returns a difference found in the state (e.g.
    its legal actions against another implementation's), or ``None``.
    """
    for k, (player, action) in enumerate(moves):
        if check is not None and (difference := check(state)) is not None:
            raise AssertionError(f"{what}, move {k}: {difference}")
        mover = state.current_player()
        if mover != player:
            raise AssertionError(f"{what}, move {k}: the step state has player {mover} to move, "
                                 f"the record player {player} (action {action})")
        if player == CHANCE:
            outcomes = dict(state.chance_outcomes())
            if outcomes.get(action, 0.0) <= 0.0:
                raise AssertionError(f"{what}, move {k}: chance outcome {action} has no "
                                     f"probability in the step state")
        elif action not in state.legal_actions():
            raise AssertionError(f"{what}, move {k}: player {player}'s action {action} "
                                 f"({state.action_to_string(player, action)}) is not among the "
                                 f"step state's legal actions {state.legal_actions()}")
        state.apply_action(action)
    return state


def random_playthrough(game: StepGame, generator: np.random.Generator) -> StepState:
    """A state played from the start to the end, every chance outcome drawn by its probability
    and every decision uniformly among the legal actions; ``AssertionError`` if it gets stuck."""
    state = game.new_initial_state()
    for _ in range(game.info.max_game_length):
        if state.is_terminal():
            return state
        player = state.current_player()
        if player == CHANCE:
            outcomes = state.chance_outcomes()
            probabilities = np.array([p for _, p in outcomes], dtype=np.float64)
            if not outcomes or abs(float(probabilities.sum()) - 1.0) > 1e-9:
                raise AssertionError(f"chance outcomes {outcomes} do not sum to 1 after "
                                     f"{state.history()}")
            pick = int(generator.choice(len(outcomes), p=probabilities))
            state.apply_action(outcomes[pick][0])
        else:
            legal = state.legal_actions()
            if not legal:
                raise AssertionError(f"player {player} has no legal action after "
                                     f"{state.history()}")
            state.apply_action(legal[int(generator.integers(len(legal)))])
    if not state.is_terminal():
        raise AssertionError(f"not over after max_game_length = {game.info.max_game_length} "
                             f"moves: {state.history()}")
    return state


def check_round_trip(game: StepGame, state: StepState) -> None:
    """``state_from_history(history)`` and ``clone`` give the same state (every view, every
    player); ``AssertionError`` naming the first view that differs."""
    for name, other in (("state_from_history", game.state_from_history(state.history())),
                        ("clone", state.clone())):
        if other.history() != state.history():
            raise AssertionError(f"{name}: history differs")
        if other.current_player() != state.current_player() or \
                other.legal_actions() != state.legal_actions() or \
                other.chance_outcomes() != state.chance_outcomes() or \
                other.returns() != state.returns():
            raise AssertionError(f"{name}: player, actions or returns differ after "
                                 f"{state.history()}")
        for p in range(game.info.num_players):
            same = (np.array_equal(other.information_state_tensor(p),
                                   state.information_state_tensor(p))
                    and np.array_equal(other.observation_tensor(p), state.observation_tensor(p))
                    and other.information_state_string(p) == state.information_state_string(p)
                    and other.observation_string(p) == state.observation_string(p))
            if not same:
                raise AssertionError(f"{name}: player {p}'s views differ after "
                                     f"{state.history()}")


def kernel_legal(hand: Iterable[int], trick: Iterable[tuple[int, int]], trump: int,
                 obligations: tricks.Obligations, opponent: Callable[[int], bool]) -> list[int]:
    """The cards of ``hand`` the shared kernel allows into ``trick`` ((seat, card) pairs in play
    order), ascending; ``trump`` a suit 0..3 or 4 (none); ``opponent(seat)`` whether ``seat``
    plays against the player (the duties set to ``Duty.OPPONENT_HOLDS``)."""
    trump_mask = tricks.SUIT_MASK[trump]
    state = tricks.new_trick(1)
    seats = []
    for position, (seat, c) in enumerate(trick):
        state = tricks.add_card(state, np.array([c], np.int8), position, trump_mask)
        seats.append(seat)
    holder = seats[int(state.best_pos[0])] if seats else -1
    mask = np.uint32(sum(1 << int(c) for c in hand))
    legal = tricks.legal_mask(np.array([mask], np.uint32), state, trump_mask, obligations,
                              np.array([holder >= 0 and opponent(holder)]))
    return bits.cards_of(int(legal[0]))


def kernel_check(play_phase: int, rule: str, question: Callable[[StepState, int], tuple]
                 ) -> Callable[[StepState], str | None]:
    """A :func:`drive` check: at a card to play (``state.phase() == play_phase``), the step
    state's legal cards (from the referee's ``rule`` text, e.g. "MA-5") against
    :func:`kernel_legal` on ``question(state, seat)`` (its hand, trick, trump, obligations
    and opponent arguments); the difference in words, else None."""
    def differs(state: StepState) -> str | None:
        if state.phase() != play_phase:
            return None
        seat = state.current_player()
        want = kernel_legal(*question(state, seat))
        if state.legal_actions() != want:
            return (f"seat {seat}'s legal cards {state.legal_actions()} in the step state, "
                    f"{want} by the kernel ({rule})")
        return None
    return differs


def check_same(what: str, engine: dict, step: dict) -> None:
    """``AssertionError`` naming ``what`` and each entry where the engine's view of a unit and
    the step state's differ (both keyed alike)."""
    if engine != step:
        diff = {key: (engine[key], step[key]) for key in engine if engine[key] != step[key]}
        raise AssertionError(f"{what}: engine vs step state {diff}")
