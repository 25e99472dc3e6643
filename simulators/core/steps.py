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

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CHANCE", "TERMINAL", "StepGameInfo", "StepState", "StepGame"]

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

    @abstractmethod
    def new_initial_state(self) -> StepState: ...

    def state_from_history(self, history: list[int]) -> StepState:
        """The state reached by ``history`` from the initial state (deserialisation)."""
        state = self.new_initial_state()
        for action in history:
            state.apply_action(int(action))
        return state
