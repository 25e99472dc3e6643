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
# Rounds, whole games, the express variant and the solitaire, played by the
# penalty-minimising heuristic on top of the exact meld solver (FC-4, FC-5).
# Sizes are small so the notebook runs in seconds; raise them for tighter
# intervals. Rulings FC-1..FC-8 are in `../shared/rules/RULINGS.md`.

# %%
import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analysis import stats
from analysis.compare import sweep
from analysis.experiment import Experiment
from simulators.five_crowns import melds
from simulators.five_crowns.engine import simulate_games, simulate_rounds
from simulators.five_crowns.policies import HeuristicPolicy, SolitaireHeuristic
from simulators.five_crowns.rules import FiveCrownsConfig, format_cards, parse_cards
from simulators.five_crowns.solitaire import simulate_solitaire

SEED = 2026
print(f"solver compiled in {melds.warm_up():.1f} s (cached after the first run)")

# %% [markdown]
# ## The solver on one hand
# Round 4 deals 6 cards and 6s are wild: the rule text's example hand melds
# entirely (a book of Jacks, a run 8-9-10) once the 3 of clubs is discarded.

# %%
hand = parse_cards("JH JD JS 8C 9C 10C 3C")
counts = np.bincount(hand, minlength=56).astype(np.uint8)
penalty, discard = melds.best_discard(counts[None, :], 6)
print(f"best discard {format_cards([int(discard[0])])}, penalty left {int(penalty[0])}")
print(melds.arrangement(np.bincount(parse_cards("JH JD JS 8C 9C 10C"), minlength=56), 6))

# %% [markdown]
# ## How fast does someone go out, round by round?

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
# ## Mean penalty per round; first player and dealer

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
# ## Full versus express games (FC-7)

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
# ## Solitaire (FC-8)

# %%
solitaire = simulate_solitaire(SolitaireHeuristic(), 150, seed=SEED).table
win = stats.proportion(int(solitaire["won"].sum()), solitaire.height)
print(f"win rate {100 * win.value:.1f}% [{100 * win.low:.1f}, {100 * win.high:.1f}] "
      f"(n={win.n})")
solitaire["hands_closed"].value_counts().sort("hands_closed")

# %% [markdown]
# ## A parameter sweep
# Seat 0 plays the swept heuristic, the others the default one, on the same
# rounds; `score` is seat 0's minus penalty per round (higher is better).

# %%
base = Experiment("five-crowns", {"n_players": 3, "round_no": 8}, unit="rounds", size=200,
                  seed=SEED)
grid = sweep(base, {"take_margin": [0.0, 5.0, 15.0], "tie_break": [0, 2]}, seats=(0,),
             progress=False)
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
ax.set_title("Seat 0 score per round (n=200)")
fig.colorbar(image)
plt.show()
