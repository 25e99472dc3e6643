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
# Three questions players and designers ask, each answered on a worked
# example with a number and a 95% interval:
#
# 1. *What are my odds of making this contract with this hand?* — a concrete
#    first distribution and turned card, take or pass (`analysis.odds`).
# 2. *Which strategy is better, and is the difference real?* — a policy class
#    written here, in the notebook, against the shipped heuristic on the same
#    deals (`analysis.compare`), then a sweep of the heuristic's parameters.
# 3. *Is this rule, seat or variant balanced?* — take rates by position,
#    contract success by player count, and the Bianco Mano bonus on/off.
#
# Then: where a run lives on disk, and how to read it back.
#
# **Sizes are small so the notebook runs top to bottom in seconds** (a few
# thousand deals per arm). An interval's half-width shrinks like 1/√n: raise
# `N` (or use `compare(..., precision=0.01)` / the command line with
# `--n-jobs 2`) for intervals 10x narrower at 100x the deals. Rulings
# BM-1..BM-12 are in `../shared/rules/RULINGS.md`.

# %%
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analysis import stats
from analysis.compare import compare, reading, sweep
from analysis.experiment import Experiment
from analysis.odds import odds
from analysis.runner import load, run
from analysis.summaries import evaluate
from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals
from simulators.bianco_mano.game import OddsQuestion
from simulators.bianco_mano.metrics import DEAL_METRICS
from simulators.core.params import param

N = 20_000  # deals per run
SEED = 2026


# %% [markdown]
# ## 1. What are my odds with this hand?
# Four players; I speak first (position 0, the dealer's left) holding
# `1R 2R 3B 8V 2J` and the turned card is the `4R`: rouge would be dominant.
# The unknown cards are dealt uniformly and the rest of the deal is played by
# the heuristic, once with me taking and once with me passing — on the same
# deals. (At a later position, deals where an earlier player took are
# rejected: they passed, since I was asked.) The command line gives the same
# table: `tapisvert odds bianco-mano --hand "1R 2R 3B 8V 2J" --turned 4R`.

# %%
question = OddsQuestion(hand="1R 2R 3B 8V 2J", turned="4R", position=0)
hand_odds = odds(Experiment("bianco-mano", {"n_players": 4}, size=4_000, seed=SEED), question)
hand_odds

# %%
made = hand_odds.filter(pl.col("metric") == "P(made)").row(0, named=True)
gain = hand_odds.filter(pl.col("metric") == "score change")
take, give_up = gain.row(0, named=True), gain.row(1, named=True)
print(f"taking: P(made) {made['value']:.3f} [{made['low']:.3f}, {made['high']:.3f}], "
      f"score change {take['value']:+.3f} [{take['low']:+.3f}, {take['high']:+.3f}]; "
      f"passing: {give_up['value']:+.3f} [{give_up['low']:+.3f}, {give_up['high']:+.3f}] "
      f"(n={made['n']:,} deals each)")

# %% [markdown]
# ## 2. Which strategy is better, and is the difference real?
# **A strategy of your own.** A policy is a frozen dataclass whose methods
# map a batch of observations to a batch of actions (README "Writing a
# policy"). `LongSuit` keeps everything of the heuristic but bids in round 1
# by counting: take the turned family exactly when holding at least
# `min_cards` of it. Its one parameter is declared with `param`, so it is
# validated (`LongSuit(min_cards=9)` raises an error naming the range) and
# listed by `LongSuit.parameters()`. Plain numpy: hands are uint32 bit masks,
# card `c` is rank `c // 4` of family `c % 4`.

# %%
PASS = 4  # bid action; 0..3 take naming that family (BM-7)


@dataclass(frozen=True)
class LongSuit(HeuristicPolicy):
    """The heuristic, except round 1: take exactly when holding enough of the turned family."""

    min_cards: int = param(3, low=1, high=5, doc="cards of the turned family to take in round 1")

    def bid(self, obs):
        heuristic = super().bid(obs)
        if obs.round != 1:
            return heuristic
        family = (obs.turned_card % 4).astype(np.uint32)
        held = np.bitwise_count(obs.hand & (np.uint32(0x11111111) << family))
        return np.where(held >= self.min_cards, family, PASS).astype(np.int8)


LongSuit.parameters()["min_cards"]  # validated, documented, listed with the inherited ones

# %% [markdown]
# The team of seats 0 and 2 plays `LongSuit` (A), then the heuristic (B);
# seats 1 and 3 keep the heuristic; both arms play the **same** deals, so
# the difference is paired and its interval is narrower than the unpaired
# one. The score is the team's score change per deal (BM-10). A strategy is
# called better only when the paired interval excludes 0.

# %%
base = Experiment("bianco-mano", {"n_players": 4}, HeuristicPolicy(), size=N, seed=SEED)
duel = compare(base, LongSuit(), HeuristicPolicy(), seats=(0, 2), progress=False)
print(reading(duel, "deal"))
duel

# %% [markdown]
# The heuristic weighs *which* cards are held (the Mammas, the side
# cards), not only how many. Other values of `min_cards`, same deals:

# %%
for k in (2, 4):
    print(reading(compare(base.replace(size=N // 2), LongSuit(min_cards=k), HeuristicPolicy(),
                          seats=(0, 2), progress=False), "deal"))

# %% [markdown]
# **Tuning the heuristic itself.** A sweep plays every grid point on the
# same deals. Seats 0 and 2 (a team) play the swept heuristic, seats 1 and 3 the default
# one, on the same deals for every grid point. `score` is the team's mean
# score change per deal; `p_adjusted` compares each point with the first
# (Holm correction).

# %%
grid = sweep(base.replace(size=N // 2),
             {"take_threshold": [3.0, 4.0, 5.0], "lead_trump_min": [2, 3, 9]},
             seats=(0, 2), progress=False)
grid.select("param_take_threshold", "param_lead_trump_min", "take_rate", "score", "score_low",
            "score_high", "diff_vs_first", "p_adjusted")

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
# ## 3. Is this rule, seat or variant balanced?
# Three views: who takes by position, how often contracts succeed by player
# count, and what the Bianco Mano bonus (BM-11) changes.
#
# **A batch of deals.** One row per deal; `outcome` is made / failed / capo /
# all_pass and `delta_k` is seat k's score change (BM-10).

# %%
batch = simulate_deals(BiancoManoConfig(n_players=4), HeuristicPolicy(), N, seed=SEED)
deals = batch.table
deals.head()

# %%
deals.to_pandas().describe().T[["mean", "min", "max"]].head(12)

# %% [markdown]
# **Take rates by position and round.**
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
# **Contract success by player count.**
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
# **The Bianco Mano bonus, on paired deals.**
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
# ## Where a run lives on disk
# `analysis.runner.run` plays an experiment in chunks (on several processes
# with `n_jobs`, or a Dask cluster) into a directory: one Parquet part per
# chunk and table, and `manifest.json` (the experiment, seed, version, git
# commit, timings). Rerun the same call after an interruption and it resumes;
# `load` reads a run back, lazily. Here into a temporary directory; use e.g.
# `runs/bm4` to keep it (`tapisvert simulate bianco-mano --out-dir runs/bm4`
# writes the same layout).

# %%
out_dir = Path(tempfile.mkdtemp()) / "bm4"
run(Experiment("bianco-mano", {"n_players": 4}, size=N, seed=SEED), out_dir, chunk_size=5_000,
    progress=False)
print(sorted(str(p.relative_to(out_dir)) for p in out_dir.rglob("*") if p.is_file()))
result = load(out_dir)
print(json.dumps({k: result.manifest[k] for k in ("chunk_size", "n_chunks", "units_done",
                                                 "complete")}))
reloaded = result.table("deals")  # or result.scan("deals"): a polars LazyFrame
evaluate(DEAL_METRICS, reloaded).select("label", "value", "low", "high", "n")

# %% [markdown]
# ## Going bigger
# `analysis.runner.run` plays any experiment in chunks on several processes
# (or a Dask cluster), writes Parquet parts and resumes after an
# interruption; the command line does the same. A policy class saved in
# `mypolicies.py` (in the working directory) is given as `module:Class`:
#
# ```bash
# tapisvert simulate bianco-mano --deals 10000000 --n-jobs 2 --out-dir runs/big
# tapisvert compare bianco-mano --a-param take_threshold=3.5 --seats 0,2 --precision 0.01
# tapisvert compare bianco-mano --a mypolicies:LongSuit --b heuristic --seats 0,2 --n-jobs 2
# tapisvert report bianco-mano
# ```
