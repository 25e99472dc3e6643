"""Headline figures of simulated Five Crowns rounds, as tidy tables with intervals."""

from __future__ import annotations

import polars as pl

from analysis import stats


def five_crowns_rates(rounds: pl.DataFrame | pl.LazyFrame, confidence: float = 0.95
                      ) -> pl.DataFrame:
    """Going-out, first-player and dealer figures and mean penalties of a round table.

    One row per metric: ``metric, label, kind ('rate' or 'mean'), value, low, high, n``.
    """
    frame = rounds.lazy()
    n_players = frame.select(pl.col("n_players").max()).collect().item()
    penalties = [pl.col(f"penalty_{s}") for s in range(n_players)]
    first = (pl.col("dealer") + 1) % pl.col("n_players")
    table = frame.select(
        out=(pl.col("went_out") >= 0),
        first_out=pl.col("went_out") == first,
        dealer_out=pl.col("went_out") == pl.col("dealer"),
        turns_per_player=pl.col("out_player_turn"),
        mean_penalty=pl.mean_horizontal(penalties),
        first_penalty=pl.concat_list(penalties).list.get(first.cast(pl.Int64)),
        dealer_penalty=pl.concat_list(penalties).list.get(pl.col("dealer").cast(pl.Int64)),
    ).collect(engine="streaming")
    n = table.height
    out = table.filter(pl.col("out"))
    rows = [
        ("went_out_rate", "someone goes out", "rate",
         stats.proportion(int(table["out"].sum()), n, confidence)),
        ("first_player_out", "first player goes out", "rate",
         stats.proportion(int(table["first_out"].sum()), n, confidence)),
        ("dealer_out", "dealer goes out", "rate",
         stats.proportion(int(table["dealer_out"].sum()), n, confidence)),
        ("out_turn", "own turn of going out", "mean",
         stats.mean(out["turns_per_player"].to_numpy(), confidence)),
        ("mean_penalty", "penalty per player", "mean",
         stats.mean(table["mean_penalty"].to_numpy(), confidence)),
        ("first_penalty", "first player's penalty", "mean",
         stats.mean(table["first_penalty"].to_numpy(), confidence)),
        ("dealer_penalty", "dealer's penalty", "mean",
         stats.mean(table["dealer_penalty"].to_numpy(), confidence)),
    ]
    return pl.DataFrame([{"metric": m, "label": lab, "kind": kind, "value": e.value,
                          "low": e.low, "high": e.high, "n": e.n} for m, lab, kind, e in rows])


def solitaire_rates(games: pl.DataFrame | pl.LazyFrame, confidence: float = 0.95
                    ) -> pl.DataFrame:
    """Solitaire (FC-8) win rate and hands closed, with intervals."""
    table = games.lazy().select("won", "hands_closed").collect()
    rows = [
        ("win_rate", "solitaire won", "rate",
         stats.proportion(int(table["won"].sum()), table.height, confidence)),
        ("hands_closed", "hands closed of 11", "mean",
         stats.mean(table["hands_closed"].to_numpy(), confidence)),
    ]
    return pl.DataFrame([{"metric": m, "label": lab, "kind": kind, "value": e.value,
                          "low": e.low, "high": e.high, "n": e.n} for m, lab, kind, e in rows])
