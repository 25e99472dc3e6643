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
# # Bango with tapisvert
#
# Push-your-luck drawing, bangos and sequences (rulings BG-1..BG-8 in
# `../shared/rules/RULINGS.md`, the project's rules in `docs/rules/bango.md`).
# Three questions, each on a worked example with a number and a 95% interval:
#
# 1. *What are my odds with this hand?* — stop or draw with these cards
#    revealed (`analysis.odds`, the exact risk, one-turn optimal stopping).
# 2. *Which strategy is better, and is the difference real?* — a policy class
#    written here, in the notebook, then one-turn optimal stopping, each
#    against the heuristic on the same decks (`analysis.compare`).
# 3. *Is the table balanced?* — win share by playing order and player count.
#
# **Sizes are small so the notebook runs in seconds** (a few hundred games
# per arm); an interval narrows like 1/√n, so 100x the games gives
# intervals 10x narrower (`compare(..., precision=...)`, or the command line
# with `--n-jobs 2`).

# %%
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analysis import stats
from analysis.compare import compare, reading
from analysis.experiment import Experiment
from analysis.odds import odds
from simulators.bango import rules as R
from simulators.bango import stopping
from simulators.bango.engine import simulate_games
from simulators.bango.observations import explosion_probability, situation, unseen_counts
from simulators.bango.odds import OddsQuestion
from simulators.bango.policies import HeuristicPolicy, OptimalStoppingPolicy
from simulators.core.params import param

SEED = 2026


print(f"stopping kernel compiled in {stopping.warm_up():.1f} s (cached after the first run)")

# %% [markdown]
# ## 1. Odds: with these cards revealed and this hand, stop or draw?
# Four players. I hold a blue 4 and a red 6 and have laid 7-8-9 blue; the
# centre shows a yellow 5 (it fits: it joins my 4 and 6), a black 9 and a
# violet 2. Face up elsewhere: a red 1, a blue 1 and a yellow 3.

# %%
obs = situation(hand="4B 6R", centre="5Y 9K 2V", sequences=("7B 8B 9B",), seen="1R 1B 3Y")
risk = float(explosion_probability(obs)[0])
stop, draw = (float(v[0]) for v in stopping.stopping_values(obs))
print(f"P(next card explodes) = {risk:.4f} (exact: unseen 5s, 9s and 2s over all unseen cards)")
print(f"one-turn optimal stopping: stop is worth {stop:.2f}, drawing on {draw:.2f} "
      f"-> {'draw' if draw > stop else 'stop'}")

# %% [markdown]
# The probability is exact because every unseen card — in the deck, among
# the removed cards or in an opponent's hand — is equally likely to come
# next. A quick Monte Carlo check deals the unseen cards at random:

# %%
pool = np.repeat(np.arange(R.N_KINDS), unseen_counts(obs)[0])
gen = np.random.default_rng(SEED)
next_cards = pool[gen.integers(0, len(pool), size=200_000)]
hits = np.isin(R.KIND_VALUE[next_cards], [5, 9, 2]).mean()
print(f"Monte Carlo: {hits:.4f} (n=200,000); exact {risk:.4f}")

# %% [markdown]
# **The rest of the turn, simulated.** `analysis.odds` plays both decisions
# on the same random completions of the unseen cards, the rest of the turn
# by the heuristic: how often the turn explodes and how many fitting cards
# I collect, with intervals. The command line gives the same table:
#
#     tapisvert odds bango --hand "4B 6R" --centre "5Y 9K 2V" \
#         --sequences "7B 8B 9B" --seen "1R 1B 3Y"


# %%
question = OddsQuestion(hand="4B 6R", centre="5Y 9K 2V", sequences="7B 8B 9B",
                        seen="1R 1B 3Y")
odds(Experiment("bango", {"n_players": 4}, HeuristicPolicy(), unit="games", size=4_000,
                seed=SEED), question)

# %% [markdown]
# The same hand with an emptier centre, and the DP's verdict as the centre grows:

# %%
rows = []
for centre in ("5Y", "5Y 2V", "5Y 2V 9K", "5Y 2V 9K 11R", "5Y 2V 9K 11R 3B"):
    o = situation(hand="4B 6R", centre=centre, sequences=("7B 8B 9B",), seen="1R 1B 3Y")
    s, d = (float(v[0]) for v in stopping.stopping_values(o))
    rows.append({"centre": centre, "P(explode)": round(float(explosion_probability(o)[0]), 3),
                 "stop": round(s, 2), "draw": round(d, 2), "decision": "draw" if d > s else "stop"})
pl.DataFrame(rows)

# %% [markdown]
# ## 2. Which strategy is better, and is the difference real?
# **A strategy of your own.** A policy is a frozen dataclass whose methods
# map a batch of observations to a batch of actions (README "Writing a
# policy"). `FullCentre` keeps the heuristic but ignores the risk: it draws
# on until the centre holds `target` cards. Plain numpy: `obs.centre` is an
# (N, 12) array of the revealed cards, -1 past the last one. Its one
# parameter is declared with `param`, so it is validated and listed.

# %%
@dataclass(frozen=True)
class FullCentre(HeuristicPolicy):
    """The heuristic, except stop-or-draw: draw until the centre holds enough cards."""

    target: int = param(3, low=1, high=12, doc="draw on while the centre holds fewer cards")

    def draw_on(self, obs):
        return (obs.centre >= 0).sum(axis=1) < self.target


FullCentre.parameters()["target"]

# %% [markdown]
# Seat 0 plays `FullCentre` (A), then the heuristic (B); the other seats
# keep the heuristic; both arms play the same decks, so the difference of
# seat 0's game score is paired. A strategy is called better only when the
# paired interval excludes 0. (Here the games diverge quickly once a
# decision differs, so pairing narrows the interval less than in the trick
# games.)

# %%
base = Experiment("bango", {"n_players": 4}, unit="games", size=300, seed=SEED)
duel = compare(base, FullCentre(), HeuristicPolicy(), seats=(0,), progress=False)
print(reading(duel, "game"))
duel

# %% [markdown]
# **One-turn optimal stopping** against the threshold heuristic, seat 0 only,
# the other seats the default heuristic, on the same decks (paired).

# %%
result = compare(base, OptimalStoppingPolicy(), HeuristicPolicy(), seats=(0,), progress=False)
print(reading(result, "game"))
result

# %% [markdown]
# ## 3. Is the table balanced? Win share by playing order and player count
# The first player is drawn at random (BG-2); a fair seat wins 1/n.

# %%
rows = []
for n in R.PLAYER_COUNTS:
    games = simulate_games(R.BangoConfig(n_players=n), HeuristicPolicy(), 400, seed=SEED).games
    for order in range(n):
        part = games.filter(pl.col("order") == order)
        e = stats.mean((part["is_winner"] / part["n_winners"]).to_numpy())
        rows.append({"players": n, "order": order, "share": e.value, "low": e.low,
                     "high": e.high, "fair": 1 / n, "mean score": part["score"].mean()})
balance = pl.DataFrame(rows)
fig, ax = plt.subplots(figsize=(6.5, 3))
for n in R.PLAYER_COUNTS:
    part = balance.filter(pl.col("players") == n)
    ax.errorbar(part["order"] + 0.05 * n, part["share"] * n,
                yerr=[(part["share"] - part["low"]) * n, (part["high"] - part["share"]) * n],
                marker="o", capsize=2, label=f"{n} players")
ax.axhline(1, color="k", ls="--", lw=0.8)
ax.set_xlabel("playing order (0 = first player)")
ax.set_ylabel("win share x players (1 = fair)")
ax.set_title("Seat balance, heuristic at every seat (n=400 games per count)")
ax.legend(fontsize=8)
plt.show()
balance.group_by("players").agg(pl.col("mean score").mean()).sort("players")

# %% [markdown]
# ## Where a run lives on disk
# `analysis.runner.run(Experiment("bango", ...), out_dir)` (or
# `tapisvert simulate bango --out-dir runs/bango`) writes one Parquet part per
# chunk and table plus `manifest.json`, resumes after an interruption, and
# `analysis.runner.load(out_dir).table()` reads it back; the Bianco Mano
# notebook shows it step by step. A policy class saved in `mypolicies.py`
# is given to the command line as `module:Class`, e.g.
# `tapisvert compare bango --a mypolicies:FullCentre --b heuristic --n-jobs 2`.
