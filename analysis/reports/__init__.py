"""One module per game's report (``<game slug>.py`` defining ``REPORT``); see analysis.reporting.

These are the only modules of ``analysis`` that may import a game package.
"""
