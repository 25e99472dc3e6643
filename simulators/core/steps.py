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

__all__ = ["CHANCE", "TERMINAL", "StepGameInfo", "StepState", "StepGame", "TurnState",
           "as_action", "as_seat", "by_count", "checked_config", "game_parameters",
           "make_step_game", "step_parameters", "uniform", "with_hands"]

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


class TurnState(StepState):
    """The skeleton the games' states share; a game's ``env.py`` writes only its rules.

    The state keeps ``actions`` (every action applied: :meth:`history`) and
    ``dealer``, a seat or -1 until a first chance move draws him uniformly. The
    base class does the rest of the plumbing:

    * :meth:`apply_action` refuses a move once :meth:`is_terminal`, draws the
      dealer, hands the other chance outcomes to :meth:`_deal`, checks a
      player's move against :meth:`legal_actions` (the error names the seat,
      :meth:`phase_name` and :meth:`_why`) and hands it to :meth:`_move`;
    * :meth:`chance_outcomes` draws the dealer, then asks :meth:`_deal_outcomes`;
    * :meth:`action_to_string` names the chance moves (``card_string`` formats a
      card) and asks :meth:`_move_string` for the others;
    * :meth:`clone` shares the immutable attributes and copies the lists named
      in ``LISTS`` and the lists of lists in ``NESTED``;
    * :meth:`_tensor` starts a tensor with the seat and dealer one-hots.

    Hooks a game writes: ``current_player``, ``is_terminal``, ``legal_actions``,
    ``returns``, the tensors and strings, ``phase_name``, ``_deal``,
    ``_deal_outcomes``, ``_move`` and ``_move_string`` (and ``_why``).
    """

    UNIT = "deal"  # the unit in the messages: "the deal is over"
    LISTS: tuple[str, ...] = ()  # list attributes a clone copies
    NESTED: tuple[str, ...] = ()  # list-of-lists attributes a clone copies
    card_string = staticmethod(str)  # a chance outcome (a card) as text
    actions: list[int]
    dealer: int

    def apply_action(self, action: int) -> None:
        action = as_action(action)
        if self.is_terminal():
            raise ValueError(f"action {action}: the {self.UNIT} is over")
        if self.current_player() == CHANCE:
            self._chance(action)
        else:
            legal = self.legal_actions()
            if action not in legal:
                raise ValueError(self._illegal(action, legal))
            self._move(action)
        self.actions.append(action)

    def _chance(self, outcome: int) -> None:
        """A chance move: the dealer's draw, then :meth:`_deal`."""
        if self.dealer >= 0:
            self._deal(outcome)
            return
        n = self.game.info.num_players
        if not 0 <= outcome < n:
            raise ValueError(f"chance outcome {outcome}: the dealer is a seat 0..{n - 1}")
        self.dealer = outcome

    def _illegal(self, action: int, legal: list[int]) -> str:
        """The message refusing ``action`` (not in ``legal``)."""
        seat = self.current_player()
        return (f"action {action} ({self.action_to_string(seat, action)}) is illegal for seat "
                f"{seat} at the {self.phase_name()}{self._why(action)}; legal: {legal}")

    def _why(self, action: int) -> str:
        """The ruling a refused action breaks, as `` (XX-n)`` (for the error message)."""
        return ""

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return []
        if self.dealer < 0:
            return uniform(range(self.game.info.num_players))
        return self._deal_outcomes()

    def action_to_string(self, player: int, action: int) -> str:
        action = as_action(action)
        if player != CHANCE:
            return self._move_string(action)
        if self.dealer < 0:
            return f"dealer {action}"
        if 0 <= action < self.game.info.max_chance_outcomes:
            return f"deal {self.card_string(action)}"
        return str(action)

    def history(self) -> list[int]:
        return list(self.actions)  # the dealer's draw first (unless fixed), then every move

    def clone(self) -> TurnState:
        other = self.__class__.__new__(self.__class__)
        other.__dict__.update(self.__dict__)  # ints, bools, the game: shared as they are
        for name in self.NESTED:
            setattr(other, name, [list(x) for x in getattr(self, name)])
        for name in self.LISTS:
            setattr(other, name, list(getattr(self, name)))
        return other

    def _tensor(self, player: int, size: int, at: dict) -> tuple[int, np.ndarray]:
        """``player`` checked, and a zero tensor of ``size`` with the one-hots of the seat
        and (once drawn) the dealer at the blocks ``at["seat"]`` and ``at["dealer"]``."""
        player = as_seat(player, self.game.info.num_players)
        out = np.zeros(size, np.float32)
        out[at["seat"] + player] = 1.0
        if self.dealer >= 0:
            out[at["dealer"] + self.dealer] = 1.0
        return player, out

    @abstractmethod
    def phase_name(self) -> str:
        """The phase in words (for the error messages)."""

    def _deal(self, outcome: int) -> None:
        """A chance move once the dealer is known; ``ValueError`` if it cannot come (a game
        that overrides :meth:`_chance` need not write it)."""
        raise NotImplementedError

    def _deal_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) of a chance move once the dealer is known (a game that
        overrides :meth:`chance_outcomes` need not write it)."""
        raise NotImplementedError

    @abstractmethod
    def _move(self, action: int) -> None:
        """A player's legal move."""

    @abstractmethod
    def _move_string(self, action: int) -> str:
        """A player's action in words."""


def uniform(outcomes) -> list[tuple[int, float]]:
    """Each of ``outcomes`` with the same probability (a chance move's law)."""
    outcomes = list(outcomes)
    return [(o, 1.0 / len(outcomes)) for o in outcomes]


def by_count(counts) -> list[tuple[int, float]]:
    """Each outcome ``k`` with probability ``counts[k] / sum(counts)``, those of count 0 left
    out (a card of a kind drawn from what is left)."""
    total = sum(counts)
    return [(k, count / total) for k, count in enumerate(counts) if count]


def with_hands(text: str, hands, format_cards) -> str:
    """``text`` followed by every hand (a state's ``__str__`` for reading, not comparing)."""
    return f"{text} | hands {' / '.join(format_cards(sorted(h)) for h in hands)}"


def checked_config(config, kind: type):
    """``config``, or ``kind()`` for None; a ValueError if it is not a ``kind``."""
    config = kind() if config is None else config
    if not isinstance(config, kind):
        raise ValueError(f"config must be a {kind.__name__}, got {type(config).__name__}")
    return config


def game_parameters(config, **extra) -> dict:
    """``StepGameInfo.parameters``: the rule options of ``config`` then the step game's own."""
    return {**dataclasses.asdict(config), **extra}


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
