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
from analysis.odds import odds
from simulators.core.params import param
from simulators.five_crowns import melds
from simulators.five_crowns.engine import simulate_games, simulate_rounds
from simulators.five_crowns.odds import OddsQuestion
from simulators.five_crowns.policies import HeuristicPolicy, SolitaireHeuristic
from simulators.five_crowns.rules import N_KINDS, FiveCrownsConfig, format_cards, parse_cards
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
# **A hand at the table.** Round 5 deals 7 cards and 7s are wild; I hold
# `JH JD 8C 9C KS 4H 3C` and the 10 of clubs tops the discard pile. Take it
# or draw blind? `tapisvert odds five-crowns` answers with the function
# below: both choices on the same dealt worlds (the other hands, the stock),
# the rest of the round played by the heuristic; the chance of going out
# this turn is also computed exactly by enumerating the unseen cards.

# %%
at_the_table = OddsQuestion(round=5, hand="JH JD 8C 9C KS 4H 3C", discard="10C")
table = odds(Experiment.create("five-crowns", size=10_000, seed=SEED), at_the_table)
table

# %%
choice = table.filter(pl.col("metric") == "my penalty at the round's end")
fig, ax = plt.subplots(figsize=(5, 2.6))
err = np.vstack([choice["value"] - choice["low"], choice["high"] - choice["value"]])
ax.bar(choice["decision"], choice["value"], yerr=err, capsize=3, color="#4C72B0")
ax.axhline(0, color="k", lw=0.8)
ax.set_ylabel("penalty points")
ax.set_title("Take the 10C or draw blind: my penalty at the round's end")
plt.show()

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
