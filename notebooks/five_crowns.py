# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Five Crowns with tapisvert
#
# Three questions, each answered on a worked example with a number and a 95%
# interval, played by the penalty-minimising heuristic on top of the exact
# meld solver (FC-4, FC-5):
#
# 1. *What are my chances with this hand?* — the exact solver on a concrete
#    hand (lowest penalty, best discard, arrangement), then the chance of
#    going out within k draws from it.
# 2. *Which strategy is better, and is the difference real?* — a policy class
#    written here, in the notebook, against the heuristic on the same rounds.
# 3. *Is this rule, seat or variant balanced?* — the first player and the
#    dealer, full versus express games (FC-7).
#
# Then the solitaire (FC-8) and where a run lives on disk.
#
# **Sizes are small so the notebook runs in seconds** (a few hundred rounds
# or dozens of games per arm). Intervals narrow like 1/√n: 100x the rounds
# gives intervals 10x narrower (`--n-jobs 2` on the command line, or
# `compare(..., precision=...)`). Rulings FC-1..FC-8 are in
# `../shared/rules/RULINGS.md`.

# %%
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analysis import stats
from analysis.compare import compare, reading, sweep
from analysis.experiment import Experiment
from simulators.core.params import param
from simulators.five_crowns import melds
from simulators.five_crowns.engine import simulate_games, simulate_rounds
from simulators.five_crowns.policies import HeuristicPolicy, SolitaireHeuristic
from simulators.five_crowns.rules import JOKER, N_KINDS, FiveCrownsConfig, format_cards, parse_cards
from simulators.five_crowns.solitaire import simulate_solitaire

SEED = 2026
print(f"solver compiled in {melds.warm_up():.1f} s (cached after the first run)")



# %% [markdown]
# ## 1. What are my chances with this hand?
# **The solver, exactly.** Round 4 deals 6 cards and 6s are wild: the rule
# text's example hand melds entirely (a book of Jacks, a run 8-9-10) once
# the 3 of clubs is discarded.

# %%
hand = parse_cards("JH JD JS 8C 9C 10C 3C")
counts = np.bincount(hand, minlength=N_KINDS).astype(np.uint8)
penalty, discard = melds.best_discard(counts[None, :], 6)
print(f"best discard {format_cards([int(discard[0])])}, penalty left {int(penalty[0])}")
print(melds.arrangement(np.bincount(parse_cards("JH JD JS 8C 9C 10C"), minlength=56), 6))

# %% [markdown]
# **A hand still far from out.** Round 4 again, dealt `JH JD 8C 9C KS 4H`:
# nothing melds yet (penalty 56). Drawing blind from the stock each turn and
# discarding what the solver says, how likely am I to go out within k draws?
# The unseen cards (the two decks less my hand) come in a uniformly random
# order; the 6 draws of every trial are played in one batched solver call
# per turn. This ignores the discard pile and the opponents, so it is a
# floor on the real chance (taking a useful discard only helps).

# %%
wild = 6  # round 4
dealt = np.bincount(parse_cards("JH JD 8C 9C KS 4H"), minlength=N_KINDS).astype(np.uint8)
print(f"penalty now {int(melds.min_penalty(dealt[None, :], wild)[0])}")
deck = np.full(N_KINDS, 2)
deck[JOKER] = 6  # two sets of 58 cards: 55 suited kinds twice, six jokers (FC-1)
unseen = np.repeat(np.arange(N_KINDS), deck - dealt)
trials, draws = 4_000, 6
gen = np.random.default_rng(SEED)
next_cards = unseen[gen.random((trials, unseen.size)).argsort(axis=1)[:, :draws]]
hands, rows = np.tile(dealt, (trials, 1)), np.arange(trials)
out = np.zeros(trials, dtype=bool)
chances = []
for k in range(draws):
    hands[rows, next_cards[:, k]] += 1
    left, kind = melds.best_discard(hands, wild)
    hands[rows, kind] -= 1
    out |= left == 0
    e = stats.proportion(int(out.sum()), trials)
    chances.append({"draws": k + 1, "P(out)": e.value, "low": e.low, "high": e.high})
chances = pl.DataFrame(chances)
chances

# %% [markdown]
# ## 2. Which strategy is better, and is the difference real?
# **A strategy of your own.** A policy is a frozen dataclass whose methods
# map a batch of observations to a batch of actions (README "Writing a
# policy"). `Choosy` keeps the heuristic but takes the discard-pile top only
# when, with it, the hand gets within `close` penalty points of going out;
# otherwise it draws blind from the stock (and shows the others nothing).
# Its one parameter is declared with `param`, so it is validated and listed.
# The heuristic decides its draw in `draw_with_plan` (which also plans the
# discard that follows): that is the method to override — a subclass that
# overrides only `draw` is not consulted by the engine.

# %%
@dataclass(frozen=True)
class Choosy(HeuristicPolicy):
    """The heuristic, but the discard is taken only when it brings the hand close to out."""

    close: float = param(30.0, low=0.0, high=300.0,
                         doc="take the discard only if the hand's penalty is then at most this")

    def draw_with_plan(self, obs):
        take, plan = super().draw_with_plan(obs)
        with_top = obs.hand.copy()
        with_top[np.arange(len(with_top)), obs.top] += 1
        after, _ = melds.best_discard(with_top, obs.wild)
        return take & (after <= self.close), plan


Choosy.parameters()["close"]

# %% [markdown]
# Seat 0 plays `Choosy` (A), then the heuristic (B); the other two seats
# keep the heuristic. Round 8 (10 cards, 10s wild), 3 players, the **same**
# deals for both arms, so the difference is paired. The score is minus seat
# 0's penalty per round (higher is better). A strategy is called better only
# when the paired interval excludes 0 — here the unpaired interval, which
# ignores that the deals are shared, would not see the difference.

# %%
base = Experiment("five-crowns", {"n_players": 3, "round_no": 8}, unit="rounds", size=300,
                  seed=SEED)
duel = compare(base, Choosy(), HeuristicPolicy(), seats=(0,), progress=False)
print(reading(duel, "round"))
duel

# %% [markdown]
# **Tuning the heuristic itself.** A sweep plays every grid point on the same
# rounds; seat 0 plays the swept heuristic, the others the default one;
# `p_adjusted` compares each point with the first (Holm correction).

# %%
grid = sweep(base.replace(size=150), {"take_margin": [0.0, 5.0, 15.0], "tie_break": [0, 2]},
             seats=(0,), progress=False)
grid.select("param_take_margin", "param_tie_break", "score", "score_low", "score_high",
            "p_adjusted")

# %%
heat = grid.pivot(on="param_tie_break", index="param_take_margin", values="score")
fig, ax = plt.subplots(figsize=(4, 3))
image = ax.imshow(heat.drop("param_take_margin").to_numpy(), aspect="auto", cmap="viridis")
ax.set_xticks(range(2), heat.columns[1:])
ax.set_yticks(range(3), heat["param_take_margin"].to_list())
ax.set_xlabel("tie_break")
ax.set_ylabel("take_margin")
ax.set_title("Seat 0 score per round (n=150)")
fig.colorbar(image)
plt.show()

# %% [markdown]
# ## 3. Is this rule, seat or variant balanced?
# **How fast does someone go out, round by round?** (4 players)

# %%
rounds = pl.concat([
    simulate_rounds(FiveCrownsConfig(n_players=4, round_no=r), HeuristicPolicy(), 150,
                    seed=SEED).table
    for r in range(1, 12)
])
fig, ax = plt.subplots(figsize=(6.5, 3))
for k in (1, 2, 3, 5):
    share = (rounds.group_by("round_no")
             .agg(((pl.col("out_player_turn") >= 1) & (pl.col("out_player_turn") <= k)).mean())
             .sort("round_no"))
    ax.plot(share["round_no"], share["out_player_turn"], marker="o", label=f"by own turn {k}")
ax.set_xlabel("round")
ax.set_ylabel("someone has gone out")
ax.set_title("Going out, 4 players (n=150 rounds per round)")
ax.legend()
plt.show()

# %% [markdown]
# **Mean penalty per round: the first player and the dealer.**

# %%
pens = np.stack([rounds[f"penalty_{s}"].to_numpy() for s in range(4)], axis=1)
dealer = rounds["dealer"].to_numpy()
idx = np.arange(len(dealer))
per_round = pl.DataFrame({
    "round_no": rounds["round_no"],
    "mean": pens.mean(axis=1),
    "first player": pens[idx, (dealer + 1) % 4],
    "dealer": pens[idx, dealer],
}).group_by("round_no").mean().sort("round_no")
per_round

# %% [markdown]
# **Full versus express games (FC-7).** The express variant starts at round
# 6; "total" is a player's penalty points over the game (lower is better).
# The first player (left of the first dealer) should win 1/4 of games.

# %%
full = simulate_games(FiveCrownsConfig(n_players=4), HeuristicPolicy(), 60, seed=SEED).games
express = simulate_games(FiveCrownsConfig(n_players=4, first_round=6), HeuristicPolicy(), 60,
                         seed=SEED).games
for name, games in (("full", full), ("express", express)):
    total = stats.mean(games["total"].to_numpy())
    first = games.filter((pl.col("seat") - pl.col("first_dealer")) % 4 == 1)
    share = stats.mean((first["is_winner"] / first["n_winners"]).to_numpy())
    print(f"{name:8s} mean total {total.value:6.1f} [{total.low:.1f}, {total.high:.1f}]; first "
          f"player wins {100 * share.value:.0f}% [{100 * share.low:.0f}, {100 * share.high:.0f}]"
          f" (n={first.height} games)")

# %% [markdown]
# ## The solitaire (FC-8)

# %%
solitaire = simulate_solitaire(SolitaireHeuristic(), 150, seed=SEED).table
win = stats.proportion(int(solitaire["won"].sum()), solitaire.height)
print(f"win rate {100 * win.value:.1f}% [{100 * win.low:.1f}, {100 * win.high:.1f}] "
      f"(n={win.n})")
solitaire["hands_closed"].value_counts().sort("hands_closed")

# %% [markdown]
# ## Where a run lives on disk
# `analysis.runner.run(experiment, out_dir)` (or `tapisvert simulate
# five-crowns --rounds 20000 --out-dir runs/fc`) writes one Parquet part per
# chunk and table plus `manifest.json`, resumes after an interruption, and
# `analysis.runner.load(out_dir).table("rounds")` reads it back; the Bianco
# Mano notebook shows it step by step. A policy class saved in
# `mypolicies.py` is given to the command line as `module:Class`:
#
# ```bash
# tapisvert compare five-crowns --rounds 20000 --a mypolicies:Choosy --n-jobs 2
# tapisvert report five-crowns --n-jobs 2
# ```
