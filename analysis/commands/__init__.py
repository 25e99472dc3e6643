"""The verbs of the ``tapisvert`` command (:mod:`analysis.cli` dispatches to them).

Each verb module has ``add_parser(commands, scope, run_parent)``, which adds its
subcommand (``scope``: the games whose flags it offers; ``run_parent``: the executor's
flags), and ``run(args) -> str``, the text or JSON it prints; :mod:`.common` and
:mod:`.study` hold what several verbs use.
"""
