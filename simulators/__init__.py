"""tapisvert simulators: one room per game, plus the shared batch core."""
