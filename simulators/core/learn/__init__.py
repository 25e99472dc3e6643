"""Learned players: small nets distilled from a strong, slow teacher (names no game).

A game supplies, in its own room, a :class:`~simulators.core.learn.spec.LearnSpec`: one
:class:`~simulators.core.learn.spec.Decision` per kind of decision the net makes (its
feature encoder over a batch observation, its legal actions, and the teacher's value of
every legal action), the behaviour policy that plays while states are recorded, and the
registered ``net`` policy that plays from the weights.

* :mod:`.record` — a :class:`~.record.Recorder` that a game's recording policy calls at
  each decision: a sample of the batch's rows, each with its features, legal actions and
  the teacher's values (soft labels: every legal action's value, not only the best);
* :mod:`.mlp` — the net at play time, plain numpy over a whole batch, and its weights file
  (``.npz``: the layers, the input scaling and what the net is for, checked on load).

Label generation is a study of the toolkit's executor and training uses the optional
``[learn]`` extra; both live in ``analysis/learn.py``. Nothing here needs the extra: a
fresh install plays the shipped weights.
"""
