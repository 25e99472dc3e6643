"""Game-agnostic batch core: the game spec and registry, the conformance suite,
bitmask helpers, seeding, policy parameters and per-seat dispatch.

Nothing here imports a game package or ``analysis`` (checked by ``lint-imports``).
"""
