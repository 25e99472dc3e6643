"""The game-AI adapters (simulators/core/rl/) on a game with a known value: Kuhn poker.

Kuhn poker written once against the StepGame protocol, then seen through
PettingZoo and OpenSpiel: the env-check passes, and OpenSpiel's CFR+ on the
registered game reaches the published value -1/18 (Kuhn 1950). Skipped when
the ``[rl]`` extra is not installed.
"""

from __future__ import annotations

import dataclasses
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from simulators.core.steps import CHANCE, TERMINAL, StepGame, StepGameInfo, StepState
from tests.extras import require_rl

PASS, BET = 0, 1


@dataclasses.dataclass(frozen=True)
class KuhnConfig:
    """Kuhn poker has no rule option but the ante."""

    ante: int = 1


class KuhnGame(StepGame):
    reduced = {}  # already tiny: get_all_states enumerates it

    def __init__(self, config: KuhnConfig):
        self.config = config
        self.info = StepGameInfo(
            short_name="tapisvert_test_kuhn", long_name="Kuhn poker (test)", num_players=2,
            num_distinct_actions=2, max_chance_outcomes=3, max_game_length=5,
            min_utility=-2.0, max_utility=2.0, observation_size=6, information_state_size=9,
            parameters=dataclasses.asdict(config))

    def new_initial_state(self):
        return KuhnState(self)


class KuhnState(StepState):
    def __init__(self, game):
        self.game, self.cards, self.bets = game, [], []

    def current_player(self):
        if len(self.cards) < 2:
            return CHANCE
        return TERMINAL if self.is_terminal() else len(self.bets) % 2

    def is_terminal(self):
        b = self.bets
        return b in ([PASS, PASS], [BET, BET], [BET, PASS], [PASS, BET, PASS], [PASS, BET, BET])

    def legal_actions(self):
        return [] if len(self.cards) < 2 or self.is_terminal() else [PASS, BET]

    def chance_outcomes(self):
        if len(self.cards) >= 2:
            return []
        left = [c for c in range(3) if c not in self.cards]
        return [(c, 1 / len(left)) for c in left]

    def apply_action(self, action):
        if len(self.cards) < 2:
            self.cards.append(int(action))
        elif int(action) in self.legal_actions():
            self.bets.append(int(action))
        else:
            raise ValueError(f"action {action} is not legal")

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        pot = [1.0 + sum(1 for i, b in enumerate(self.bets) if b == BET and i % 2 == p)
               for p in (0, 1)]
        if self.bets[-1] == PASS and BET in self.bets:  # a fold: the bettor takes the pot
            winner = 1 - (len(self.bets) - 1) % 2
        else:
            winner = 0 if self.cards[0] > self.cards[1] else 1
        stake = min(pot)
        return [stake, -stake] if winner == 0 else [-stake, stake]

    def information_state_tensor(self, player):
        t = np.zeros(9, np.float32)
        t[player] = 1.0
        if len(self.cards) > player:
            t[2 + self.cards[player]] = 1.0
        for i, b in enumerate(self.bets):
            t[5 + i] = float(b)
        return t

    def observation_tensor(self, player):
        return self.information_state_tensor(player)[:6]

    def information_state_string(self, player):
        card = self.cards[player] if len(self.cards) > player else "-"
        return f"p{player} card {card} bets {''.join('pb'[b] for b in self.bets)}"

    observation_string = information_state_string

    def action_to_string(self, player, action):
        return f"deal {action}" if player == CHANCE else "pb"[action]

    def history(self):
        return self.cards + self.bets

    def clone(self):
        other = KuhnState(self.game)
        other.cards, other.bets = list(self.cards), list(self.bets)
        return other


def kuhn_spec():
    """A stand-in for a Game spec: what make_step_game reads (name, config, steps)."""
    return SimpleNamespace(name="kuhn", title="Kuhn", config=KuhnConfig,
                           make_config=lambda **o: KuhnConfig(**o),
                           steps=lambda config, **extra: KuhnGame(config))


@pytest.mark.extras
def test_env_check_passes_on_kuhn_poker():
    require_rl()
    from simulators.core.rl import check

    results = check.run_checks(kuhn_spec(), games=20)
    assert [r.name for r in results] == [
        "pettingzoo.api_test", "pettingzoo.seed_test", "pettingzoo.rewards",
        "openspiel.random_sim", "openspiel.state_api", "openspiel.serialize",
        "openspiel.all_states"]
    assert all(r.passed for r in results), [r.line() for r in results if not r.passed]
    # 6 deals x (4 decisions: -, p, b, pb; 5 terminals: pp, bb, bp, pbp, pbb);
    # 3 cards x 4 betting histories = 12 information states
    assert results[-1].detail == ("54 states (24 decisions, 12 information states) of the "
                                  "reduced variant (the default options)")


@pytest.mark.extras
def test_openspiel_cfr_plus_reaches_kuhns_value():
    require_rl()
    import pyspiel

    from simulators.core.rl.openspiel import load

    game = load(kuhn_spec())
    assert str(game) == "tapisvert_test_kuhn(ante=1)"
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(300):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    value = pyspiel.expected_returns(game.new_initial_state(), policy, -1, True)[0]
    assert value == pytest.approx(-1 / 18, abs=2e-3)
    assert pyspiel.exploitability(game, policy) < 2e-3


@pytest.mark.extras
def test_pettingzoo_reset_seeds_the_deal_from_a_seed_sequence():
    require_rl()
    from simulators.core.rl.pettingzoo import StepEnv

    env = StepEnv(kuhn_spec())
    deals = []
    for seed in (1, 2, 1):
        env.reset(seed=seed)
        deals.append(tuple(env.state.cards))
    assert deals[0] == deals[2]
    rng = np.random.default_rng(np.random.SeedSequence(1))  # the same draws, by hand
    first = int(rng.choice(3, p=np.full(3, 1 / 3)))
    assert deals[0][0] == first
    assert env.agents == ["player_0", "player_1"] and env.agent_selection == "player_0"
    obs = env.observe("player_0")
    assert obs["action_mask"].tolist() == [1, 1] and obs["observation"].dtype == np.float32
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0]  # not his turn


@pytest.mark.extras
def test_pettingzoo_rewards_are_the_returns_at_the_end():
    require_rl()
    from simulators.core.rl.pettingzoo import StepEnv

    env = StepEnv(kuhn_spec())
    env.reset(seed=3)
    cards = list(env.state.cards)
    env.step(BET)
    env.step(PASS)  # player 1 folds: player 0 wins the ante
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values())
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(PASS)
    assert env.state.cards == cards


@pytest.mark.extras
def test_env_check_cli(capsys, monkeypatch):
    require_rl()
    from analysis.cli import main
    from simulators.core.game import game_names, get_game
    from simulators.core.steps import make_step_game

    with_steps = [n for n in game_names() if get_game(n).steps is not None]
    # the shortest units first: the command runs every check on the real game
    with_steps.sort(key=lambda n: make_step_game(get_game(n)).info.max_game_length)
    without = [n for n in game_names() if get_game(n).steps is None]
    assert main(["env-check", with_steps[0], "--games", "5"]) == 0
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    # each check says when it starts (a check may take half a minute): stderr, not the output
    started = [line.split(": ", 1)[1] for line in captured.err.splitlines()]
    assert started[:2] == ["pettingzoo.api_test (1/7)...", "pettingzoo.seed_test (2/7)..."]
    assert len(out) == 8 and all(line.startswith("PASS ") for line in out[:7])
    if without:
        assert main(["env-check", without[0]]) == 2
        assert "has no step-by-step game" in capsys.readouterr().err
    assert main(["env-check", with_steps[0], "--option", "no_such=1"]) == 2
    assert "unknown option" in capsys.readouterr().err

    import simulators.core.rl.check as check  # a failing check: exit 1, named in the verdict

    failing = check.CheckResult("openspiel.fake", False, "AssertionError: broken")
    monkeypatch.setattr(check, "run_checks", lambda *a, **k: [failing])
    assert main(["env-check", with_steps[0], "--games", "5"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "FAIL openspiel.fake (0.0 s): AssertionError: broken",
        "1 of 1 checks failed: openspiel.fake"]


def test_env_check_cli_without_the_extra(capsys, monkeypatch):
    from analysis.cli import main
    from simulators.core.game import game_names, get_game

    with_steps = [n for n in game_names() if get_game(n).steps is not None]
    for name in ("simulators.core.rl.check", "simulators.core.rl.openspiel",
                 "simulators.core.rl.pettingzoo"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open_spiel were not installed
    assert main(["env-check", with_steps[0]]) == 2
    assert capsys.readouterr().err.strip() == (
        'tapisvert: error: the game-AI environments need the optional extra: '
        'pip install -e ".[rl]"')
