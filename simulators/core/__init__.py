"""Game-agnostic batch core: bitmask helpers, seeding, policy parameters."""
