"""Manille coincée: rules, referee, vectorized engine, policies and odds (RULINGS MA-1..MA-6)."""

from simulators.manille.rules import DealRecord, GameRecord, ManilleConfig

__all__ = ["DealRecord", "GameRecord", "ManilleConfig"]
