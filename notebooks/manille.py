# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Manille coincée with tapisvert
#
# Three questions a club player asks, each answered with a number and a 95%
# interval:
#
# 1. *What are my odds with this hand?* — the dealer's choice: name a suit,
#    sans atout, or pass to his partner.
# 2. *Which strategy is better, and is the difference real?* — two ways of
#    choosing, compared on the same deals.
# 3. *Is the game balanced?* — the first dealer's advantage over whole games,
#    and the effect of the `sans_atout_must_beat` variant.
#
# Sizes are small so the notebook runs in seconds; raise `N` for tighter
# intervals. The rules as the project plays them are in
# `docs/rules/manille.md` (rulings MA-1..MA-6).

# %%
import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analysis import stats
from simulators.manille import ManilleConfig
from simulators.manille.dealing import Situation, paired_differences, play_choices, summarize
from simulators.manille.engine import simulate_deals, simulate_games
from simulators.manille.policies import HeuristicPolicy

N = 20_000  # deals per run
SEED = 2026
config = ManilleConfig()  # game to 50, no beating duty in sans atout

# %% [markdown]
# ## A batch of deals
# One row per deal: who dealt and chose, the trump (`SA` is sans atout), the
# contre level, each team's points (tricks + cards, 68 in all) and MA-6
# score, and the chooser's hand features.

# %%
deals = simulate_deals(config, HeuristicPolicy(), N, seed=SEED).table
deals.select("dealer", "chooser", "trump", "contre", "team0_points", "team1_points",
             "score_team0", "score_team1", "chooser_manilles").head()

# %% [markdown]
# ## 1. What are my odds with this hand?
# The dealer holds the manille and manillon of spades with the king and
# the 9, the manille of hearts, the ace of diamonds and two small cards. The
# other 24 cards are dealt uniformly; every choice is played on the **same**
# deals, so the differences between choices are paired. `margin` is the
# dealer's team's score minus the other team's, in game points.

# %%
hand = Situation("10P AP RP 9P 10C 7C AK 8T")
odds = play_choices(config, HeuristicPolicy(), hand, 4_000, seed=SEED)
summary = summarize(odds)
summary.select("decision", "p_made", "p_made_low", "p_made_high", "mean_margin", "margin_low",
               "margin_high")

# %%
paired_differences(odds)  # each choice against the best one, on the same deals

# %%
fig, ax = plt.subplots(figsize=(6, 3))
err = np.vstack([summary["mean_margin"] - summary["margin_low"],
                 summary["margin_high"] - summary["mean_margin"]])
ax.bar(summary["decision"], summary["mean_margin"], yerr=err, capsize=3, color="#4C72B0")
ax.axhline(0, color="k", lw=0.8)
ax.set_ylabel("net score per deal")
ax.set_title("The dealer's choices with 10P AP RP 9P 10C 7C AK 8T")
plt.show()

# %% [markdown]
# ## 2. Which strategy is better, and is the difference real?
# Team 0 (seats 0 and 2) plays a *cautious* chooser who passes below 26
# instead of 20; team 1 keeps the default. Both arms play the same deals
# (the decks do not depend on the policies), so the difference of team 0's
# net score per deal is paired, and its interval is much narrower than the
# unpaired one.

# %%
default, cautious = HeuristicPolicy(), HeuristicPolicy(pass_threshold=26.0)


def team0_net(policy) -> np.ndarray:
    table = simulate_deals(config, [policy, default, policy, default], N, seed=SEED).table
    return (table["score_team0"] - table["score_team1"]).to_numpy().astype(float)


base, other = team0_net(default), team0_net(cautious)
paired = stats.paired_difference(other, base)
unpaired = stats.unpaired_difference(other, base)
print(f"cautious minus default, per deal: {paired.value:+.3f} "
      f"[{paired.low:+.3f}, {paired.high:+.3f}] paired; "
      f"unpaired interval [{unpaired.low:+.3f}, {unpaired.high:+.3f}]; "
      f"p = {stats.difference_pvalue(other, base):.2g}")

# %% [markdown]
# ## 3. Is the game balanced?
# **First dealer.** Whole games to 50: the first dealer is drawn, the deal
# passes counter-clockwise. A fair game gives the first dealer's team 50%.

# %%
games = simulate_games(config, HeuristicPolicy(), 3_000, seed=SEED).games
first = stats.proportion(int(games["first_dealer_team_wins"].sum()), games.height)
length = stats.mean(games["n_deals"].to_numpy())
print(f"first dealer's team wins {first.format()}; a game lasts {length.format(False)} deals")

# %% [markdown]
# **Game length.** The first dealer's team takes the first deal and, in a
# game of odd length, one deal more than the other team. Does the edge
# shrink when the game is longer (MA-6 target 150)?

# %%
rows = []
for target in (50, 150):
    g = simulate_games(config.replace(target=target), HeuristicPolicy(), 1_500, seed=SEED).games
    wins = stats.proportion(int(g["first_dealer_team_wins"].sum()), g.height)
    rows.append({"target": target, "first dealer's team wins": wins.format(),
                 "deals per game": stats.mean(g["n_deals"].to_numpy()).format(False)})
pl.DataFrame(rows)

# %% [markdown]
# The full balance report (choices, sans atout, contre against never
# countering, the taking side's edge, draws, game length to 50, 100 and 150,
# first-dealer advantage) is one command:
#
#     tapisvert report manille --n-jobs 2
