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
# # Bianco Mano with tapisvert
#
# A first tour: play a batch of deals, read the tidy table with polars and
# pandas, plot take rates and contract success with 95% intervals, measure
# the Bianco Mano bonus on paired deals, and sweep two policy parameters.
#
# Sizes are small so the notebook runs top to bottom in seconds; raise `N`
# for tighter intervals (the engine plays a few hundred thousand deals per
# second per core). Rulings BM-1..BM-12 are in `../shared/rules/RULINGS.md`.

# %%
import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analysis import stats
from analysis.compare import sweep
from analysis.experiment import Experiment
from analysis.summaries import evaluate
from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals
from simulators.bianco_mano.metrics import DEAL_METRICS

N = 20_000  # deals per run
SEED = 2026

# %% [markdown]
# ## A small run
# One row per deal; `outcome` is made / failed / capo / all_pass and
# `delta_k` is seat k's score change (BM-10).

# %%
batch = simulate_deals(BiancoManoConfig(n_players=4), HeuristicPolicy(), N, seed=SEED)
deals = batch.table
deals.head()

# %%
deals.to_pandas().describe().T[["mean", "min", "max"]].head(12)

# %% [markdown]
# ## Take rates by position and round
# Position 0 speaks first (the dealer's left).

# %%
n = 4
by_position = (
    deals.filter(pl.col("taker") >= 0)
    .with_columns(position=(pl.col("taker") - pl.col("dealer") - 1) % n)
    .group_by("position", "bid_round").len()
    .sort("position", "bid_round")
)
fig, ax = plt.subplots(figsize=(6, 3))
for offset, rnd in ((-0.2, 1), (0.2, 2)):
    rows = by_position.filter(pl.col("bid_round") == rnd)
    est = [stats.proportion(k, deals.height) for k in rows["len"]]
    ax.bar(rows["position"].to_numpy() + offset, [e.value for e in est], width=0.4,
           yerr=np.array([[e.value - e.low for e in est], [e.high - e.value for e in est]]),
           capsize=3, label=f"round {rnd}")
ax.set_xlabel("position from the dealer's left")
ax.set_ylabel("share of deals")
ax.set_title(f"Who takes (n={deals.height:,} deals)")
ax.legend()
plt.show()

# %% [markdown]
# ## Contract success by player count
# The game declares its headline rates as polars expressions (`DEAL_METRICS`);
# `evaluate` turns them into a tidy table with Wilson intervals.

# %%
rates = pl.concat([
    evaluate(DEAL_METRICS, simulate_deals(BiancoManoConfig(n_players=p), HeuristicPolicy(), N,
                                          seed=SEED).table).with_columns(players=pl.lit(p))
    for p in (3, 4, 5)
])
success = rates.filter(pl.col("metric").is_in(["take_rate", "contract_success"]))
success.select("players", "label", "value", "low", "high", "n")

# %%
fig, ax = plt.subplots(figsize=(6, 3))
for offset, metric in ((-0.2, "take_rate"), (0.2, "contract_success")):
    rows = success.filter(pl.col("metric") == metric)
    ax.bar(rows["players"].to_numpy() + offset, rows["value"], width=0.4, label=metric,
           yerr=[rows["value"] - rows["low"], rows["high"] - rows["value"]], capsize=3)
ax.set_xticks([3, 4, 5])
ax.set_xlabel("players")
ax.set_title(f"Take rate and contract success (n={N:,} deals each)")
ax.legend()
plt.show()

# %% [markdown]
# ## The Bianco Mano bonus, on paired deals
# The deals depend only on the seed and the deal id, so the same seed with
# the bonus off and on replays the same deals (BM-11): we can count exactly
# the contracts the +5 turns from failed into made.

# %%
off = simulate_deals(BiancoManoConfig(bianco_mano=False), HeuristicPolicy(), N, seed=SEED).table
on = simulate_deals(BiancoManoConfig(bianco_mano=True), HeuristicPolicy(), N, seed=SEED).table
made_off = off["outcome"].is_in(["made", "capo"]).to_numpy()
made_on = on["outcome"].is_in(["made", "capo"]).to_numpy()
taken = (off["taker"] >= 0).to_numpy()
rescued = int((made_on & ~made_off).sum())
effect = stats.paired_difference(made_on[taken], made_off[taken])
print(f"bonus announced in {int(on['bonus_announced'].sum())} deals; "
      f"{rescued} failures turned into successes")
print(f"success rate change: {100 * effect.value:+.2f} pp "
      f"[{100 * effect.low:+.2f}, {100 * effect.high:+.2f}] (n={effect.n:,} taken deals)")

# %%
announced = on.filter(pl.col("bonus_announced"))
fig, ax = plt.subplots(figsize=(6, 3))
ax.hist(announced["side_points"], bins=np.arange(0, 77, 2), color="tab:green")
ax.axvline(45, color="k", ls="--", label="45 to make")
ax.axvline(40, color="tab:orange", ls=":", label="40: made with the +5")
ax.set_xlabel("taker side card points")
ax.set_title(f"Contracts with the bonus announced (n={announced.height:,})")
ax.legend()
plt.show()

# %% [markdown]
# ## A parameter sweep
# Seats 0 and 2 (a team) play the swept heuristic, seats 1 and 3 the default
# one, on the same deals for every grid point. `score` is the team's mean
# score change per deal; `p_adjusted` compares each point with the first
# (Holm correction).

# %%
base = Experiment("bianco-mano", {"n_players": 4}, HeuristicPolicy(), size=N // 2, seed=SEED)
grid = sweep(base, {"take_threshold": [3.0, 4.0, 5.0], "lead_trump_min": [2, 3, 9]},
             seats=(0, 2), progress=False)
grid.select("param_take_threshold", "param_lead_trump_min", "take_rate", "score",
            "diff_vs_first", "p_adjusted")

# %%
heat = grid.pivot(on="param_lead_trump_min", index="param_take_threshold", values="score")
fig, ax = plt.subplots(figsize=(5, 3))
image = ax.imshow(heat.drop("param_take_threshold").to_numpy(), cmap="viridis", aspect="auto")
ax.set_xticks(range(3), heat.columns[1:])
ax.set_yticks(range(3), heat["param_take_threshold"].to_list())
ax.set_xlabel("lead_trump_min")
ax.set_ylabel("take_threshold")
ax.set_title(f"Team score per deal (n={N // 2:,} deals per cell)")
fig.colorbar(image)
plt.show()

# %% [markdown]
# ## Going bigger
# `analysis.runner.run` plays any experiment in chunks on several processes
# (or a Dask cluster), writes Parquet parts and resumes after an
# interruption; the command line does the same:
#
# ```bash
# tapisvert simulate bianco-mano --deals 10000000 --n-jobs 2 --out-dir runs/big
# tapisvert compare bianco-mano --a-param take_threshold=3.5 --seats 0,2 --precision 0.01
# tapisvert report bianco-mano
# ```
