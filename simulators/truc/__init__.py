"""Truc (2 players): rules, batch engine, referee, policies and odds."""
