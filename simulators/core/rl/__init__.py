"""The game-AI environments: every game's StepGame in PettingZoo and OpenSpiel.

``openspiel`` (pyspiel Python games), ``pettingzoo`` (AEC environments) and
``check`` (their own API tests, one result per check) are game-agnostic and
need the optional extra ``[rl]``; importing one without it raises
ImportError naming the extra. This package itself imports neither library.
See docs/envs.md.
"""

MISSING = 'the game-AI environments need the optional extra: pip install -e ".[rl]"'
