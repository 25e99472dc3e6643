"""tapisvert analysis: statistics, experiments and the command line."""
