"""The games the analysis layer knows, each behind one small adapter.

An adapter says how to build a game's config and policies from plain values
and how to play one chunk of units (deals or games) into tidy tables. Adding
a game means adding one adapter here; the runner, statistics and CLI are
shared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl


@dataclass(frozen=True)
class GameAdapter:
    """How the analysis layer drives one game.

    ``play(config, policies, unit, first, count, seed)`` plays units
    ``first .. first + count - 1`` and returns named tables whose rows carry
    the unit id (``deal_id`` or ``game_id``).
    """

    name: str
    make_config: Callable[..., Any]
    make_policy: Callable[..., Any]
    policy_names: tuple[str, ...]
    units: tuple[str, ...]
    tables: Mapping[str, tuple[str, ...]]  # unit -> tables written per chunk
    unit_id: Mapping[str, str]  # unit -> id column
    play: Callable[..., dict[str, pl.DataFrame]]
    n_players: Callable[[Any], int]
    seat_scores: Callable[[dict[str, pl.DataFrame], str, int], np.ndarray]
    rates: Callable[[pl.DataFrame | pl.LazyFrame], pl.DataFrame]
    summary_table: Mapping[str, str]  # unit -> the table rates() reads
    check_policies: Callable[[str, list], None] = lambda unit, policies: None


def _bianco_mano_play(config, policies, unit: str, first: int, count: int, seed: int):
    from simulators.bianco_mano import simulate_deals, simulate_games

    if unit == "deals":
        return {"deals": simulate_deals(config, policies, count, seed, first_deal=first).table}
    batch = simulate_games(config, policies, count, seed, first_game=first)
    return {"deals": batch.deals, "games": batch.games}


def _bianco_mano_scores(tables: dict[str, pl.DataFrame], unit: str, n: int) -> np.ndarray:
    """(units, seats) score changes per deal, or game scores per game, in unit order."""
    if unit == "deals":
        deals = tables["deals"]
        return np.stack([deals[f"delta_{s}"].to_numpy() for s in range(n)], axis=1).astype(
            np.int32)
    games = tables["games"].sort(["game_id", "seat"])
    return games["score"].to_numpy().reshape(-1, n).astype(np.int32)


def _bianco_mano() -> GameAdapter:
    from simulators.bianco_mano import BiancoManoConfig, make_policy
    from simulators.bianco_mano.policies import POLICIES

    return GameAdapter(
        name="bianco-mano",
        make_config=BiancoManoConfig,
        make_policy=make_policy,
        policy_names=tuple(sorted(POLICIES)),
        units=("deals", "games"),
        tables={"deals": ("deals",), "games": ("deals", "games")},
        unit_id={"deals": "deal_id", "games": "game_id"},
        play=_bianco_mano_play,
        n_players=lambda config: config.n_players,
        seat_scores=_bianco_mano_scores,
        rates=_bianco_mano_rates,
        summary_table={"deals": "deals", "games": "deals"},
    )


def _bianco_mano_rates(deals):
    from analysis.summaries import bianco_mano_rates

    return bianco_mano_rates(deals)


def _five_crowns_play(config, policies, unit: str, first: int, count: int, seed: int):
    from simulators.five_crowns.engine import simulate_games, simulate_rounds
    from simulators.five_crowns.solitaire import simulate_solitaire

    if unit == "rounds":
        return {"rounds": simulate_rounds(config, policies, count, seed,
                                          first_round_id=first).table}
    if unit == "solitaire":
        return {"solitaire": simulate_solitaire(policies, count, seed, first_game=first).table}
    batch = simulate_games(config, policies, count, seed, first_game=first)
    return {"rounds": batch.rounds, "games": batch.games}


def _five_crowns_scores(tables: dict[str, pl.DataFrame], unit: str, n: int) -> np.ndarray:
    """(units, seats) scores = minus the penalties (higher is better, as for every game)."""
    if unit == "rounds":
        rounds = tables["rounds"]
        return -np.stack([rounds[f"penalty_{s}"].to_numpy() for s in range(n)], axis=1)
    if unit == "solitaire":
        return tables["solitaire"]["won"].to_numpy().astype(np.int32)[:, None]
    games = tables["games"].sort(["game_id", "seat"])
    return -games["total"].to_numpy().reshape(-1, n).astype(np.int32)


def _five_crowns_rates(table):
    from analysis.five_crowns_summaries import five_crowns_rates, solitaire_rates

    if "won" in table.lazy().collect_schema().names():
        return solitaire_rates(table)
    return five_crowns_rates(table)


def _five_crowns() -> GameAdapter:
    from simulators.five_crowns.policies import POLICIES, make_policy
    from simulators.five_crowns.rules import FiveCrownsConfig

    return GameAdapter(
        name="five-crowns",
        make_config=FiveCrownsConfig,
        make_policy=make_policy,
        policy_names=tuple(sorted(POLICIES)),
        units=("rounds", "games", "solitaire"),
        tables={"rounds": ("rounds",), "games": ("rounds", "games"),
                "solitaire": ("solitaire",)},
        unit_id={"rounds": "round_id", "games": "game_id", "solitaire": "game_id"},
        play=_five_crowns_play,
        n_players=lambda config: config.n_players,
        seat_scores=_five_crowns_scores,
        rates=_five_crowns_rates,
        summary_table={"rounds": "rounds", "games": "rounds", "solitaire": "solitaire"},
        check_policies=_five_crowns_check,
    )


def _five_crowns_check(unit: str, policies: list) -> None:
    solitaire = [callable(getattr(p, "place", None)) for p in policies]
    if unit == "solitaire" and not (len(policies) == 1 and solitaire[0]):
        raise ValueError("the solitaire unit needs one solitaire policy (policy 'solitaire')")
    if unit != "solitaire" and any(solitaire):
        raise ValueError("policy 'solitaire' plays only the solitaire unit (--solitaire N)")


_FACTORIES: dict[str, Callable[[], GameAdapter]] = {"bianco-mano": _bianco_mano,
                                                     "five-crowns": _five_crowns}
GAME_NAMES = tuple(_FACTORIES)


def game(name: str) -> GameAdapter:
    """The adapter of a game by its command-line name."""
    try:
        return _FACTORIES[name]()
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(GAME_NAMES)})") from None
