"""Bianco Mano (3-5 players): rules, batch engine, referee and policies."""

from simulators.bianco_mano.engine import (
    DealBatch,
    GameBatch,
    IllegalAction,
    simulate_deals,
    simulate_games,
)
from simulators.bianco_mano.game import make_policy
from simulators.bianco_mano.policies import HeuristicPolicy, RandomPolicy
from simulators.bianco_mano.rules import BiancoManoConfig, format_cards, parse_cards

__all__ = [
    "BiancoManoConfig", "DealBatch", "GameBatch", "HeuristicPolicy", "IllegalAction",
    "RandomPolicy", "format_cards", "make_policy", "parse_cards", "simulate_deals",
    "simulate_games",
]
