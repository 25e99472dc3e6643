"""One game, one move at a time: the protocol behind the PettingZoo and OpenSpiel environments.

The engines play whole batches; the game-AI libraries want one state that
moves one action at a time, can be copied, and says who is to move. A game
offers that by a :class:`StepGame` in ``simulators/<game>/env.py``, built on
its referee's plain-Python rules (one deal, plain lists), and declared on its
:class:`~simulators.core.game.Game` spec (``Game.steps``). The protocol is
OpenSpiel's state API, written here without any dependency, so that

* ``simulators.core.rl.openspiel`` registers every game with
  ``pyspiel.register_game`` by a thin forwarding layer;
* ``simulators.core.rl.pettingzoo`` wraps it as an AEC environment (chance
  moves sampled from the environment's seeded generator);
* the move-by-move cross-check against the vectorized engine needs neither
  library.

Conventions (those of OpenSpiel):

* players are ``0 .. num_players - 1``; :data:`CHANCE` moves deal the cards
  (one card per chance move, uniform over the cards not yet dealt, so the
  deal's law is the rules' own); :data:`TERMINAL` once the unit is over;
* actions are integers ``0 .. num_distinct_actions - 1`` (chance outcomes
  ``0 .. max_chance_outcomes - 1``), with one fixed meaning per game,
  documented in the game's ``env.py``;
* ``returns()`` are each player's scores for the unit, in the game's own
  units (the same per-seat scores as the game's ``Unit.score``);
* ``information_state_tensor(p)`` holds everything player ``p`` has seen
  (perfect recall); ``observation_tensor(p)`` what he sees now.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CHANCE", "TERMINAL", "StepGameInfo", "StepState", "StepGame", "as_action", "as_seat",
           "make_step_game", "step_parameters"]

CHANCE = -1  # pyspiel.PlayerId.CHANCE
TERMINAL = -4  # pyspiel.PlayerId.TERMINAL


@dataclass(frozen=True)
class StepGameInfo:
    """What OpenSpiel's ``GameType`` and ``GameInfo`` need, and PettingZoo's spaces."""

    short_name: str  # e.g. "tapisvert_manille": the name registered with pyspiel
    long_name: str
    num_players: int
    num_distinct_actions: int
    max_chance_outcomes: int
    max_game_length: int  # moves, chance moves included
    min_utility: float
    max_utility: float
    observation_size: int  # length of observation_tensor
    information_state_size: int  # length of information_state_tensor
    zero_sum: bool = True  # the returns sum to 0 in every terminal state
    parameters: dict = field(default_factory=dict)  # the rule options, JSON-able
    # bounds of every tensor entry (PettingZoo's observation Box); the default [0, 1]
    tensor_low: float = 0.0
    tensor_high: float = 1.0


class StepState(ABC):
    """One game in progress; mutable, copied by :meth:`clone`."""

    @abstractmethod
    def current_player(self) -> int:
        """The player to move, :data:`CHANCE` or :data:`TERMINAL`."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The current player's legal actions, ascending; [] at chance and terminal states."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) of the chance move to make; [] elsewhere."""

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Play ``action`` (a chance outcome at chance states); ``ValueError`` if illegal."""

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def returns(self) -> list[float]:
        """Each player's score for the unit (0 for everyone until the end)."""

    @abstractmethod
    def observation_tensor(self, player: int) -> np.ndarray:
        """float32, length ``info.observation_size``."""

    @abstractmethod
    def information_state_tensor(self, player: int) -> np.ndarray:
        """float32, length ``info.information_state_size``."""

    @abstractmethod
    def observation_string(self, player: int) -> str: ...

    @abstractmethod
    def information_state_string(self, player: int) -> str: ...

    @abstractmethod
    def action_to_string(self, player: int, action: int) -> str: ...

    @abstractmethod
    def history(self) -> list[int]:
        """Every action applied so far, chance outcomes included: the state is a pure
        function of the game and its history (serialisation replays it)."""

    @abstractmethod
    def clone(self) -> StepState: ...

    def __str__(self) -> str:
        # OpenSpiel compares states by their text (a clone must print alike): the history
        return " ".join(map(str, self.history()))

    def __deepcopy__(self, memo) -> StepState:
        # OpenSpiel clones a Python state by deep-copying its attributes: clone() shares the
        # (immutable) game and copies only the moves, some twenty times faster
        return self.clone()

    def legal_actions_mask(self) -> np.ndarray:
        """int8 mask of length ``num_distinct_actions`` (PettingZoo's ``action_mask``)."""
        n = self.game.info.num_distinct_actions
        mask = np.zeros(n, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    game: StepGame


class StepGame(ABC):
    """A game with its rule options fixed; makes initial states."""

    info: StepGameInfo
    # options of a variant small enough to enumerate every state (the env-check's
    # get_all_states), e.g. a reduced deck; None where the game has none
    reduced: dict | None = None

    @abstractmethod
    def new_initial_state(self) -> StepState: ...

    def state_from_history(self, history: list[int]) -> StepState:
        """The state reached by ``history`` from the initial state (deserialisation)."""
        state = self.new_initial_state()
        for action in history:
            state.apply_action(int(action))
        return state


# ---------------------------------------------------------------------------
# From a Game spec and options to its StepGame
# ---------------------------------------------------------------------------


def make_step_game(game, **options) -> StepGame:
    """The StepGame of a :class:`~simulators.core.game.Game` with ``options``.

    ``Game.steps`` is called as ``steps(config, **extra)``: the options that
    are fields of the game's config build the validated config
    (``Game.make_config``); the others (``extra``, e.g. a reduced deck or the
    dealer) are the step game's own and are passed on. The StepGame echoes
    every option, with its value, in ``info.parameters``; an option that is
    neither is refused with the list of known ones.
    """
    if game.steps is None:
        raise ValueError(f"{game.name} has no step-by-step game (Game.steps is not declared)")
    fields = {f.name for f in dataclasses.fields(game.config)}
    config = game.make_config(**{k: v for k, v in options.items() if k in fields})
    extra = {k: v for k, v in options.items() if k not in fields}
    if extra:
        known = step_parameters(game)
        unknown = sorted(set(extra) - set(known))
        if unknown:
            raise ValueError(f"unknown option(s) for {game.name}: {', '.join(unknown)} "
                             f"(options: {', '.join(known)})")
    return game.steps(config, **extra)


def step_parameters(game) -> dict:
    """Every option of a game's StepGame with its default value (rule options first)."""
    if game.steps is None:
        raise ValueError(f"{game.name} has no step-by-step game (Game.steps is not declared)")
    return dict(game.steps(game.make_config()).info.parameters)


def as_action(action) -> int:
    """An action as a Python int (numpy integers accepted); ValueError naming it otherwise."""
    try:
        value = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"action {action!r} is not an integer") from None
    if value != action or isinstance(action, bool):
        raise ValueError(f"action {action!r} is not an integer")
    return value


def as_seat(value, n: int, *, name: str = "player", by_chance: bool = False) -> int:
    """A seat 0..n-1 (or -1, drawn by chance, with ``by_chance``) as a Python int; else a
    ValueError naming ``name``."""
    low = -1 if by_chance else 0
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or \
            not low <= value < n:
        if by_chance:
            raise ValueError(f"{name} must be a seat 0..{n - 1} or -1 (drawn by chance), "
                             f"got {value!r}")
        raise ValueError(f"{name} {value!r} is not a seat 0..{n - 1}")
    return int(value)
