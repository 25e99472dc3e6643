"""Truc (2 players): rules, batch engine, referee, policies and odds (RULINGS TR-1..TR-6)."""

from simulators.truc.engine import (
    DealBatch,
    IllegalAction,
    MatchBatch,
    simulate_deals,
    simulate_matches,
)
from simulators.truc.game import make_policy
from simulators.truc.policies import HeuristicPolicy, OrderedPolicy, RandomPolicy
from simulators.truc.rules import TrucConfig, format_cards, parse_cards, parse_hand

__all__ = [
    "DealBatch", "HeuristicPolicy", "IllegalAction", "MatchBatch", "OrderedPolicy",
    "RandomPolicy", "TrucConfig", "format_cards", "make_policy", "parse_cards", "parse_hand",
    "simulate_deals", "simulate_matches",
]
