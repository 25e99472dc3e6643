"""Any game's :class:`~simulators.core.steps.StepGame` as an OpenSpiel Python game.

``register(game)`` registers it with ``pyspiel.register_game`` under its
``info.short_name`` (e.g. ``tapisvert_truc``), its options as the game's
parameters; then every OpenSpiel tool loads it by name::

    from simulators.core.game import get_game
    from simulators.core.rl.openspiel import register
    import pyspiel

    name = register(get_game("truc"))
    game = pyspiel.load_game(name, {"card_call": False})

The state forwards every call to the StepState (the rules stay the
project's); the observer gives the information-state tensor (perfect
recall) or the observation tensor, and their strings. Serialisation is
OpenSpiel's own (the history, replayed). Registration is explicit, never an
import side effect, and done once per name per process.

Importing this module needs the ``[rl]`` extra (ImportError saying so);
``simulators.core`` itself never imports it.
"""

from __future__ import annotations

import numpy as np

from simulators.core.rl import MISSING
from simulators.core.steps import StepGame, make_step_game, step_parameters

try:
    import pyspiel
except ImportError:
    raise ImportError(MISSING) from None

SIMPLE = (bool, int, float, str)  # the parameter types pyspiel carries
_REGISTERED: dict[str, type] = {}


def game_type(step_game: StepGame, parameters: dict):
    """The ``pyspiel.GameType`` of a StepGame (its default options as the parameter spec)."""
    info = step_game.info
    kind = pyspiel.GameType
    return kind(
        short_name=info.short_name, long_name=info.long_name,
        dynamics=kind.Dynamics.SEQUENTIAL,
        chance_mode=kind.ChanceMode.EXPLICIT_STOCHASTIC,
        information=kind.Information.IMPERFECT_INFORMATION,
        utility=kind.Utility.ZERO_SUM if info.zero_sum else kind.Utility.GENERAL_SUM,
        reward_model=kind.RewardModel.TERMINAL,
        max_num_players=info.num_players, min_num_players=info.num_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=parameters)


def game_info(step_game: StepGame):
    """The ``pyspiel.GameInfo`` of a StepGame with its options set."""
    info = step_game.info
    return pyspiel.GameInfo(
        num_distinct_actions=info.num_distinct_actions,
        max_chance_outcomes=info.max_chance_outcomes, num_players=info.num_players,
        min_utility=float(info.min_utility), max_utility=float(info.max_utility),
        utility_sum=0.0 if info.zero_sum else None, max_game_length=info.max_game_length)


def register(game) -> str:
    """Register a :class:`~simulators.core.game.Game`'s StepGame with pyspiel; its name.

    Options whose default is not a bool, int, float or str are not OpenSpiel
    parameters (they keep their default).
    """
    default = make_step_game(game)
    name = default.info.short_name
    if name in _REGISTERED:
        return name
    parameters = {k: v for k, v in step_parameters(game).items() if isinstance(v, SIMPLE)}
    kind = game_type(default, parameters)

    class Game(pyspiel.Game):
        """A tapisvert game in OpenSpiel (a forwarding layer over its StepGame)."""

        def __init__(self, params=None):
            given = dict(params or {})
            unknown = sorted(set(given) - set(parameters))
            if unknown:
                raise ValueError(f"unknown parameter(s) for {name}: {', '.join(unknown)} "
                                 f"(parameters: {', '.join(parameters)})")
            self.step_game = make_step_game(game, **{k: _typed(parameters[k], v)
                                                     for k, v in given.items()})
            super().__init__(kind, game_info(self.step_game), given)

        def new_initial_state(self):
            """The unit's first state (chance deals first)."""
            return State(self, self.step_game.new_initial_state())

        def make_py_observer(self, iig_obs_type=None, params=None):
            """The information-state observer (perfect recall) or the observation one."""
            return Observer(self.step_game, iig_obs_type, params)

    Game.__name__ = Game.__qualname__ = f"{game.title.replace(' ', '')}Game"
    pyspiel.register_game(kind, Game)
    _REGISTERED[name] = Game
    return name


def load(game, **options):
    """``pyspiel.load_game`` of a Game's StepGame with ``options`` (registering it first)."""
    return pyspiel.load_game(register(game), options)


def _typed(default, value):
    """A parameter value as its default's type (pyspiel gives ints for integral floats...)."""
    if isinstance(default, bool):
        if isinstance(value, str):
            return value.lower() in ("true", "1")
        return bool(value)
    return type(default)(value)


class State(pyspiel.State):
    """An OpenSpiel state forwarding to a StepState (``self.step``)."""

    def __init__(self, game, step):
        super().__init__(game)
        self.step = step

    def current_player(self):
        return self.step.current_player()

    def _legal_actions(self, player):
        return self.step.legal_actions()

    def chance_outcomes(self):
        return self.step.chance_outcomes()

    def _apply_action(self, action):
        self.step.apply_action(action)

    def _action_to_string(self, player, action):
        return self.step.action_to_string(player, action)

    def is_terminal(self):
        return self.step.is_terminal()

    def returns(self):
        return self.step.returns()

    def __str__(self):
        return str(self.step)


class Observer:
    """OpenSpiel's PyObserver: ``tensor``, ``dict``, ``set_from``, ``string_from``.

    ``perfect_recall=True`` gives the information state (everything the
    player has seen), else the observation (what he sees now). Only the
    player's own view is offered (private info of a single player).
    """

    def __init__(self, step_game: StepGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if iig.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig.public_info:
            raise ValueError("only the player's own view (public and his private information) "
                             "is offered")
        self.recall = bool(iig.perfect_recall)
        info = step_game.info
        size = info.information_state_size if self.recall else info.observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        step = state.step
        tensor = step.information_state_tensor(player) if self.recall else \
            step.observation_tensor(player)
        self.tensor[:] = tensor

    def string_from(self, state, player):
        step = state.step
        return step.information_state_string(player) if self.recall else \
            step.observation_string(player)
