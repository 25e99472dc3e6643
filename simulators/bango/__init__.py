"""Bango: push-your-luck drawing, bangos and sequences (RULINGS BG-1..BG-8)."""
