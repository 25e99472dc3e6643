"""Any game's :class:`~simulators.core.steps.StepGame` as a PettingZoo AEC environment.

::

    from simulators.core.game import get_game
    from simulators.core.rl.pettingzoo import StepEnv

    env = StepEnv(get_game("truc"), card_call=False)   # rule options as arguments
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else \\
            env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents are ``player_0 .. player_{n-1}`` (the StepGame's players); an
observation is ``{"observation": float32 observation tensor, "action_mask":
int8}``; actions are ``Discrete(num_distinct_actions)`` with the StepGame's
meanings. Chance moves (the deal) are made inside ``reset`` and ``step``
from a numpy Generator seeded by ``reset(seed=...)`` through
``numpy.random.SeedSequence`` (no global random state; ``reset()`` without a
seed continues the same generator). Rewards are 0 until the unit ends, then
each player's return (the game's scores for the unit); every agent is then
terminated.
"""

from __future__ import annotations

import numpy as np

from simulators.core.rl import MISSING
from simulators.core.steps import CHANCE, StepGame, make_step_game

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError:
    raise ImportError(MISSING) from None


def agent_name(player: int) -> str:
    """PettingZoo's name of a player."""
    return f"player_{player}"


class StepEnv(AECEnv):
    """A PettingZoo AEC environment over a game's StepGame (see the module docstring).

    Parameters
    ----------
    game : a :class:`~simulators.core.game.Game` (with ``steps``), or a StepGame.
    render_mode : ``None`` or ``"ansi"`` (``render()`` returns the state's text).
    **options : rule options and the StepGame's own options.
    """

    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game, render_mode: str | None = None, **options):
        super().__init__()
        if isinstance(game, StepGame):
            if options:
                raise ValueError("options are given to the Game, not to a built StepGame")
            self.step_game = game
        else:
            self.step_game = make_step_game(game, **options)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        info = self.step_game.info
        self.metadata = {**self.metadata, "name": info.short_name}
        self.possible_agents = [agent_name(p) for p in range(info.num_players)]
        self.agents = self.possible_agents[:]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        box = spaces.Box(low=info.tensor_low, high=info.tensor_high,
                         shape=(info.observation_size,), dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(info.num_distinct_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(info.num_distinct_actions)
                              for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ play

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new unit; ``seed`` reseeds the chance moves (``SeedSequence(seed)``)."""
        if seed is not None or self._rng is None:
            # SeedSequence(None) draws fresh OS entropy: never the global numpy state
            self._rng = np.random.default_rng(np.random.SeedSequence(seed))
        self.state = self.step_game.new_initial_state()
        self._play_chance()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def step(self, action) -> None:
        """Play ``action`` for the selected agent (``None`` once it is terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: action None is only for terminated agents")
        self.state.apply_action(int(action))  # ValueError naming an illegal action
        self._play_chance()
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_terminal():
            returns = self.state.returns()
            self.rewards = {a: float(returns[self._index[a]]) for a in self.agents}
            self.terminations = {a: True for a in self.agents}
        else:
            self.rewards = {a: 0.0 for a in self.agents}
        self._select(after=agent)
        self._accumulate_rewards()

    def _play_chance(self) -> None:
        """Make every chance move due, drawn from the environment's generator."""
        state = self.state
        while state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            probabilities = np.array([p for _, p in outcomes], dtype=np.float64)
            k = int(self._rng.choice(len(outcomes), p=probabilities / probabilities.sum()))
            state.apply_action(int(outcomes[k][0]))

    def _select(self, after: str | None = None) -> None:
        """The player to move, or (the unit over) each agent in turn from the next one."""
        if not self.state.is_terminal():
            self.agent_selection = agent_name(self.state.current_player())
            return
        start = 0 if after is None else (self._index[after] + 1) % len(self.possible_agents)
        order = self.possible_agents[start:] + self.possible_agents[:start]
        self.agent_selection = next(a for a in order if a in self.agents)

    def observe(self, agent):
        p = self._index[agent]
        mask = np.zeros(self.step_game.info.num_distinct_actions, np.int8)
        if not self.state.is_terminal() and self.state.current_player() == p:
            mask = self.state.legal_actions_mask().astype(np.int8)
        observation = np.asarray(self.state.observation_tensor(p), dtype=np.float32)
        return {"observation": observation, "action_mask": mask}

    def render(self):
        """The state as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            return None
        return str(self.state)

    def close(self) -> None:
        """Nothing to release."""
