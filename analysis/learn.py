"""``tapisvert learn GAME generate|train|certify``: learned players, from labels to a
certificate (the game's :class:`~simulators.core.learn.spec.LearnSpec`; names no game).

* **generate** — a study of the executor (``--n-jobs``, ``--backend dask``, resumed from
  ``--out-dir`` after a kill, ``--progress``): units played by the behaviour policy at
  every seat, each decision the nets make labelled by the teacher (its value of every
  legal action). A chunk keeps its rows in ``OUT/labels/labels-<decision>/part-*``;
* **train** — a multi-layer perceptron per decision (scikit-learn's ``MLPRegressor``, the
  ``[learn]`` extra), seeded, fitted to each row's action values centred on their legal
  mean (a row's level does not matter, only which action is better and by how much);
  the last ``holdout`` share of each labels directory's chunks (units the training never
  saw) measures it at every epoch: the share of rows where the net picks one of the
  teacher's best actions, and the teacher's value lost by the net's pick (its regret). Writes
  ``OUT/weights-<decision>.npz`` (loaded by the ``net`` policy, plain numpy) and
  ``OUT/train-<decision>.json`` (the log);
* **certify** — the net against the heuristic and against the teacher's policy on fresh
  deals (another seed), duplicate (:func:`analysis.compare.duplicate_comparison`).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis.experiment import Experiment
from analysis.runner import Study, map_chunks
from simulators.core.game import Game
from simulators.core.learn import mlp
from simulators.core.learn.spec import RESERVED_COLUMNS, Recorder

LABELS = "labels"
TRAIN_SEED = 2026
BATCH = 256  # the training's minibatch rows (doubled each epoch by --grow-batch)


def _table(decision: str) -> str:
    return f"labels-{decision}"


class LabelStudy(Study):
    """Units played by the behaviour at every seat, the nets' decisions labelled."""

    kind = "learn-labels"

    def __init__(self, experiment: Experiment, decisions: tuple[str, ...],
                 teacher: dict[str, Any], chunk: int, round_no: int = 0):
        self.arms, self.decisions, self.teacher = (experiment,), tuple(decisions), dict(teacher)
        self.tables = tuple(_table(d) for d in self.decisions)
        self._chunk, self.round_no = chunk, round_no

    @property
    def default_chunk(self) -> int:
        return self._chunk

    def settings(self) -> dict[str, Any]:
        return {"decisions": list(self.decisions), "teacher": self.teacher,
                **({"round": self.round_no} if self.round_no else {})}

    def reduce_chunk(self, first: int, count: int):
        exp = self.base
        spec = exp.game.learn
        recorder = Recorder(spec, self.decisions, spec.teacher(**self.teacher))
        behaviour = exp.per_seat()
        wrapped = {id(p): spec.recording(p, recorder) for p in behaviour}
        policies = tuple(wrapped[id(p)] for p in behaviour)
        exp.unit.play(exp.config, policies[0] if len(wrapped) == 1 else policies, first,
                      count, exp.seed)
        sums, tables = {"units": float(count)}, {}
        for d in self.decisions:
            columns = recorder.columns(d)
            n = len(columns["values"]) if columns else 0
            sums[f"rows:{d}"] = float(n)
            tables[_table(d)] = pl.DataFrame({"first_unit": np.full(n, first, np.int64),
                                              **columns})
        return sums, tables


def labels_dir(out_dir: str | Path, round_no: int, options: dict[str, Any] | None = None,
               decisions: tuple[str, ...] | None = None) -> Path:
    """Round 0 (the heuristic's states): ``OUT/labels``; DAgger round k: ``OUT/labels-k``;
    rule options other than the defaults add themselves (``OUT/labels-n_players=3``), and
    so does a chosen subset of the decisions (``OUT/labels-choose+contre``: a teacher's
    settings may differ by decision, e.g. more worlds for rollouts)."""
    name = LABELS + (f"-{round_no}" if round_no else "")
    name += "".join(f"-{k}={v}" for k, v in sorted((options or {}).items()))
    name += f"-{'+'.join(decisions)}" if decisions else ""
    return Path(out_dir) / name


def subset(game: Game, decisions: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The decisions asked for when they are not all of the game's (else None)."""
    if decisions is None or set(decisions) == set(_spec(game).decisions):
        return None
    return tuple(decisions)


def trained_nets(game: Game, out_dir: str | Path) -> str | None:
    """``out_dir`` when it holds a trained net of the game's first decision (the teacher may
    play it, e.g. a rollout teacher), else None: the teacher plays the shipped nets."""
    first = next(iter(_spec(game).decisions))
    return str(Path(out_dir).absolute()) if (Path(out_dir) / f"weights-{first}.npz"
                                              ).is_file() else None


def generate(game: Game, *, units: int, seed: int, decisions: tuple[str, ...] | None = None,
             teacher: dict[str, Any] | None = None, round_no: int = 0,
             net_seats: tuple[int, ...] | None = None,
             options: dict[str, Any] | None = None,
             out_dir: str | Path, chunk_size: int | None = None, n_jobs: int = 1,
             backend: str = "loky", scheduler: str | None = None,
             progress: bool | None = None) -> dict[str, Any]:
    """Label ``units`` units of ``seed`` (see the module docstring); the run's figures.
    Round 0 plays the heuristic; round k > 0 (DAgger) plays the net trained so far in
    ``out_dir``, on :func:`round_seed` (its own states, other deals), at every seat or at
    ``net_seats`` only, the heuristic at the others (every seat is recorded)."""
    spec = _spec(game)
    if round_no < 0:
        raise ValueError(f"--round must be at least 0, got {round_no}")
    seats = _net_seats(game, options, round_no, net_seats)
    behaviour: Any = "heuristic"
    if round_no > 0:
        behaviour = net_policy(out_dir, next(iter(spec.decisions)), spec.behaviour_params)
        seed = round_seed(seed, round_no)
        if seats is not None:
            behaviour = tuple(behaviour if s in net_seats else "heuristic" for s in seats)
    decisions = tuple(spec.decisions) if decisions is None else tuple(decisions)
    unknown = [d for d in decisions if d not in spec.decisions]
    if unknown:
        raise ValueError(f"{game.name} has no learned decision {unknown[0]!r} (decisions: "
                         f"{', '.join(spec.decisions)})")
    exp = Experiment(game, config=dict(options or {}), policies=behaviour, size=units,
                     seed=seed)
    teacher = dict(teacher or {})
    nets = trained_nets(game, out_dir)
    if nets is not None and "nets" in inspect.signature(spec.teacher).parameters:
        teacher["nets"] = nets  # a teacher that plays the nets plays this directory's
    study = LabelStudy(exp, decisions, teacher, chunk=chunk_size or 10, round_no=round_no)
    began = time.perf_counter()
    where = labels_dir(out_dir, round_no, options, subset(game, decisions))
    result = map_chunks(study, where, n_jobs=n_jobs, backend=backend, scheduler=scheduler,
                        progress=progress, chunk_size=chunk_size)
    return {"game": game.name, "units": result.units, "seed": seed, "round": round_no,
            "behaviour": behaviour, "teacher": teacher,
            "rows": {d: int(result.totals[f"rows:{d}"]) for d in decisions},
            "labels": str(where), "seconds": time.perf_counter() - began}


def round_seed(seed: int, round_no: int) -> int:
    """The seed of DAgger round ``round_no``'s deals: ``seed`` for round 0, else a 32-bit
    number drawn from ``SeedSequence([seed, round_no])``. Not ``seed + k``: round 1 of the
    default labels seed (2026) then dealt the very deals of the certificates' old seed
    (2027), and a neighbouring seed is what a user passes to ``certify --seed``."""
    if round_no == 0:
        return seed
    return int(np.random.SeedSequence([seed, round_no]).generate_state(1)[0])


def label_seeds(out_dir: str | Path) -> list[int]:
    """The seeds whose deals the labels in ``out_dir`` were played on (every labels
    directory's manifest), and those the weights there were trained on (their ``meta``'s
    ``label_seeds``): the seeds a certificate of these nets must not be measured on."""
    seeds = set()
    for manifest in Path(out_dir).glob(f"{LABELS}*/manifest.json"):
        seeds.add(int(json.loads(manifest.read_text())["seed_entropy"]))
    for weights in Path(out_dir).glob("weights-*.npz"):
        try:
            with np.load(weights, allow_pickle=False) as data:
                seeds.update(json.loads(str(data["meta"])).get("label_seeds", []))
        except (OSError, ValueError, KeyError):
            continue  # not a weights file: the net's own load says so, in its words
    return sorted(seeds)


def _net_seats(game: Game, options: dict[str, Any] | None, round_no: int,
               net_seats: tuple[int, ...] | None) -> range | None:
    """Every seat of the labelled units when ``net_seats`` is given (checked: a DAgger
    round's, seats of the table), else None."""
    if net_seats is None:
        return None
    if round_no < 1:
        raise ValueError("--net-seats is for a DAgger round (--round k > 0): round 0 is the "
                         "heuristic's")
    seats = range(game.seats(game.units[0], game.make_config(**dict(options or {}))))
    if not net_seats or len(set(net_seats)) != len(net_seats) \
            or any(s not in seats for s in net_seats):
        raise ValueError(f"--net-seats: distinct seats from 0 to {len(seats) - 1}, got "
                         f"{','.join(map(str, net_seats))}")
    return seats


def _spec(game: Game):
    if game.learn is None:
        raise ValueError(f"{game.name} has no learned players (yet)")
    return game.learn


def labelled(out_dir: str | Path, decision: str) -> bool:
    """Whether ``out_dir`` holds rows of the decision (any labels directory)."""
    return any(Path(out_dir).glob(f"{LABELS}*/{_table(decision)}/part-*.parquet"))


def read_labels(out_dir: str | Path, decision: str) -> pl.DataFrame:
    """Every labelled row of one decision, every labels directory (DAgger rounds, rule
    options), in (directory, unit) order; ``round`` numbers the directory."""
    parts = []
    for k, folder in enumerate(sorted(Path(out_dir).glob(f"{LABELS}*"))):
        for path in sorted((folder / _table(decision)).glob("part-*.parquet")):
            frame = pl.read_parquet(path)
            if frame.height:
                parts.append(frame.with_columns(pl.lit(k, pl.Int64).alias("round")))
    if not parts:
        raise ValueError(f"no labels of the {decision} decision in {str(out_dir)!r}: run "
                         "'tapisvert learn GAME generate --out-dir' with that directory first")
    return pl.concat(parts).sort("round", "first_unit", maintain_order=True)


def arrays(decision, frame: pl.DataFrame, block: int = 100_000
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, legal, values) of labelled rows, the features by today's encoder, encoded
    ``block`` rows at a time (an encoder's intermediate arrays for millions of rows would
    not fit in memory: an encoder may solve a hand per action)."""
    columns = [c for c in frame.columns if c not in RESERVED_COLUMNS]
    values = np.asarray(frame["values"].to_numpy(), np.float64)
    x = np.empty((frame.height, decision.n_features), np.float32)
    legal = np.empty((frame.height, decision.n_actions), bool)
    for lo in range(0, frame.height, block):
        part = frame.slice(lo, block)
        hi = lo + part.height
        obs = decision.restore({c: part[c].to_numpy() for c in columns})
        x[lo:hi], legal[lo:hi] = decision.features(obs), decision.legal(obs)
        if decision.values_in_net_order is not None:
            values[lo:hi] = decision.values_in_net_order(obs, values[lo:hi])
    return x, legal, values


def centred(values: np.ndarray, legal: np.ndarray, clip: float | None = None) -> np.ndarray:
    """Each row's legal values minus their mean (illegal: 0): what the net fits. With
    ``clip``, a value more than ``clip`` below its row's best is raised to best - clip
    first: how bad a hopeless action is does not matter, and its size would dominate the
    squared error (a penalty game's values span fractions of a point to fifty)."""
    if clip is not None:
        best = np.where(legal, values, -np.inf).max(axis=1, keepdims=True)
        values = np.maximum(values, best - clip)
    v = np.where(legal, values, 0.0)
    mean = v.sum(axis=1, keepdims=True) / legal.sum(axis=1, keepdims=True)
    return np.where(legal, v - mean, 0.0)


def agreement(scores: np.ndarray, values: np.ndarray, legal: np.ndarray,
              tolerance: float = 1e-9) -> tuple[float, float]:
    """(share of rows where the net's pick is one of the teacher's best, mean regret: the
    teacher's best value minus that of the net's pick)."""
    scores = np.where(legal, scores, -np.inf)
    pick = scores.argmax(axis=1)
    v = np.where(legal, values, -np.inf)
    best = v.max(axis=1)
    got = values[np.arange(len(pick)), pick]
    return float(np.mean(got >= best - tolerance)), float(np.mean(best - got))


def held_out(frame: pl.DataFrame, share: float) -> np.ndarray:
    """Rows of the last ``share`` of each labels directory's chunks (units the training
    never sees): every directory — each DAgger round, each player count — is measured."""
    directory, unit = frame["round"].to_numpy(), frame["first_unit"].to_numpy()
    held = np.zeros(len(frame), bool)
    for k in np.unique(directory):
        chunks = np.unique(unit[directory == k])
        n_held = max(1, int(round(share * len(chunks)))) if len(chunks) > 1 else 0
        held |= (directory == k) & np.isin(unit, chunks[len(chunks) - n_held:])
    return held


def train(game: Game, out_dir: str | Path, decision: str, *, hidden: tuple[int, ...] = (128, 128),
          epochs: int = 30, seed: int = TRAIN_SEED, holdout: float = 0.1,
          clip: float | None = None, grow_batch: int = 0, init: str | Path | None = None,
          learning_rate: float = 1e-3, log=None) -> dict[str, Any]:
    """Fit one decision's net to the labels in ``out_dir`` (module docstring); the log.
    ``grow_batch``: the last that many epochs double the batch each epoch (256, 512, ...),
    which anneals Adam's steps as a falling learning rate would (Smith et al. 2018, "Don't
    decay the learning rate, increase the batch size") with scikit-learn's public
    parameters only. ``init``: a weights file of the same widths to start from (its
    standardisation kept; measured as epoch 0, and kept if no epoch beats it)."""
    spec = _spec(game)
    if decision not in spec.decisions:
        raise ValueError(f"{game.name} has no learned decision {decision!r}")
    if not (0 < learning_rate < 1):
        raise ValueError(f"--learning-rate must be between 0 and 1, got {learning_rate}")
    start = _initial_net(game, decision, init, hidden)
    if clip is not None and not (0 < clip < float("inf")):
        raise ValueError(f"--clip must be a positive number of points, got {clip}")
    if not (0 <= grow_batch <= epochs):
        raise ValueError(f"--grow-batch must be between 0 and --epochs ({epochs}), "
                         f"got {grow_batch}")
    frame = read_labels(out_dir, decision)
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError:
        raise ValueError("training needs the optional extra [learn]: "
                         "pip install -e \".[learn]\"") from None
    d = spec.decisions[decision]
    held = held_out(frame, holdout)
    x, legal, values = arrays(d, frame)
    del frame
    # each part copied once and standardised in place (not a fresh copy of every row per
    # epoch), the rest freed as soon as it is read: millions of rows fit in memory
    z_train = x[~held]
    mean = z_train.mean(axis=0) if start is None else start.mean.copy()
    scale = np.ones_like(mean)  # 0/1 features: centred, not scaled (a rare one would blow up)
    z_held = x[held]
    del x
    for z in (z_train, z_held):
        z -= mean
        z /= scale
    y_train = centred(values[~held], legal[~held], clip)
    values, legal = values[held], legal[held]
    batch = min(BATCH, max(1, int((~held).sum())))
    regressor = MLPRegressor(hidden_layer_sizes=hidden, activation="relu", solver="adam",
                             batch_size=batch,
                             learning_rate_init=learning_rate, alpha=1e-4,
                             random_state=seed, shuffle=True)
    began = time.perf_counter()
    if start is not None:
        _start_from(regressor, start, z_train[:batch], y_train[:batch])
    history, kept = _epochs(regressor, (z_train, y_train), (z_held, values, legal),
                            epochs=epochs, grow_batch=grow_batch, decision=decision, log=log,
                            from_start=start is not None)
    meta = {"game": game.name, "decision": decision, "n_features": d.n_features,
            "n_actions": d.n_actions, "hidden": list(hidden), "epoch": kept[2],
            "epochs": epochs, "seed": seed, **({"clip": clip} if clip is not None else {}),
            **({"init": str(init)} if start is not None else {}),
            **({"learning_rate": learning_rate}
               if start is not None or learning_rate != 1e-3 else {}),
            **({"grow_batch": grow_batch} if grow_batch else {}),
            "rows": int((~held).sum()),
            "holdout_rows": int(held.sum()), "teacher": spec.teacher_doc,
            "label_seeds": sorted(set(label_seeds(out_dir)) | set(
                start.meta.get("label_seeds", []) if start is not None else []))}
    net = mlp.Mlp(mean.astype(np.float32), scale.astype(np.float32), tuple(kept[0]),
                  tuple(kept[1]), meta)
    path = Path(out_dir) / f"weights-{decision}.npz"
    mlp.save(path, net)
    doc = {**meta, "weights": str(path), "bytes": path.stat().st_size,
           "parameters": net.n_parameters, "history": history,
           "seconds": time.perf_counter() - began}
    from simulators.core.files import write_atomically

    write_atomically(Path(out_dir) / f"train-{decision}.json", json.dumps(doc, indent=1))
    return doc


def _initial_net(game: Game, decision: str, init: str | Path | None,
                 hidden: tuple[int, ...]) -> mlp.Mlp | None:
    """The net ``--init`` names, checked before any labels are read (one line)."""
    if init is None:
        return None
    d = _spec(game).decisions[decision]
    net = mlp.load(init, game=game.name, decision=decision, n_features=d.n_features,
                   n_actions=d.n_actions)
    widths = tuple(w.shape[1] for w in net.weights[:-1])
    if widths != tuple(hidden):
        raise ValueError(f"--init {str(init)!r} has hidden widths "
                         f"{','.join(map(str, widths))}, not --hidden "
                         f"{','.join(map(str, hidden))}")
    return net


def _start_from(regressor, net: mlp.Mlp, z_batch: np.ndarray, y_batch: np.ndarray) -> None:
    """Give ``regressor`` the layers of ``net``: one step on one batch makes scikit-learn
    allocate them, then they are overwritten in place (its optimizer holds those arrays)
    and Adam's moments of that step are dropped, so training starts at ``net``."""
    regressor.partial_fit(z_batch, y_batch)
    for mine, theirs in ((regressor.coefs_, net.weights), (regressor.intercepts_, net.biases)):
        for a, b in zip(mine, theirs, strict=True):
            a[...] = b
    if hasattr(regressor, "_optimizer"):
        del regressor._optimizer  # a fresh Adam at the next partial_fit


def _epochs(regressor, fitted, measured, *, epochs: int, grow_batch: int, decision: str, log,
            from_start: bool = False) -> tuple[list[dict[str, Any]], tuple]:
    """``epochs`` passes of ``regressor`` over ``fitted`` (features, targets), each measured
    on ``measured`` (held-out features, values, legal); the last ``grow_batch`` double the
    batch each. The log's rows, and the kept epoch's (weights, biases, epoch): the least
    held-out regret (the last epoch without held-out rows). ``from_start``: the regressor
    holds a net already, measured and kept as epoch 0."""
    z_train, y_train = fitted
    z_held, values, legal = measured
    batch = regressor.batch_size
    history, best, kept = [], None, None
    for epoch in range(0 if from_start else 1, epochs + 1):
        grown = epoch - (epochs - grow_batch)  # 1, 2, ... in the last grow_batch epochs
        if grown > 0:
            regressor.set_params(batch_size=batch * 2 ** grown)
        if epoch:
            regressor.partial_fit(z_train, y_train)
        row = {"epoch": epoch, **({"loss": float(regressor.loss_)} if epoch else {}),
               **({"batch_size": regressor.batch_size} if grow_batch else {})}
        if len(z_held):
            row["holdout_agreement"], row["holdout_regret"] = agreement(
                regressor.predict(z_held).reshape(len(z_held), -1), values, legal)
        history.append(row)
        if log:
            log(f"{decision} epoch {epoch}/{epochs}: "
                + (f"loss {row['loss']:.4f}" if epoch else "the --init net")
                + (f", held-out agreement {row['holdout_agreement']:.3f}, regret "
                   f"{row['holdout_regret']:.4f}" if len(z_held) else ""))
        score = row.get("holdout_regret", -epoch)
        if best is None or score < best:
            best = score
            kept = ([w.astype(np.float32) for w in regressor.coefs_],
                    [b.astype(np.float32) for b in regressor.intercepts_], epoch)
    return history, kept


def weights_digest(out_dir: str | Path) -> str:
    """12 hex digits of the SHA-256 of every weights file in ``out_dir`` (the net plays each
    it finds): a certify study kept there is resumed only by the same nets — retrained
    weights start a new one instead of reading the old nets' chunks."""
    digest = hashlib.sha256()
    for path in sorted(Path(out_dir).glob("weights-*.npz")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def net_policy(out_dir: str | Path, decision: str,
               params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``net`` policy playing the weights trained in ``out_dir`` (and ``params``)."""
    path = Path(out_dir).absolute() / f"weights-{decision}.npz"
    if not path.is_file():
        raise ValueError(f"no trained weights {str(path)!r}: run 'tapisvert learn GAME train "
                         "--out-dir' with that directory first")
    return {"name": "net", "params": {**(params or {}), "weights": str(path)}}


DESIGNS = ("duplicate", "same-seat")
"""How ``certify`` seats the net: ``duplicate``, at one partnership's seats (or seat 0)
against the opponent at the others, seats rotated on the same cards; ``same-seat``, the net
and then the opponent at seat 0 of the same units, the heuristic at the others (the design
of a strong player's own gain over the heuristic, e.g. PIMC's), a paired difference."""


def _design_tag(design: str) -> str:
    return "" if design == "duplicate" else f"-{design}"


def certify_dir(opponent: str, design: str, tag: str, nets: str) -> str:
    """The study directory (in the out-dir) of the net against ``opponent``."""
    return f"certify{_design_tag(design)}-{opponent}{tag}-{nets}"


def certify(game: Game, out_dir: str | Path, *, units: int, seed: int,
            against: tuple[str, ...] = ("heuristic",), options: dict[str, Any] | None = None,
            regret: tuple[str, ...] = (), regret_units: int = 0, design: str = "duplicate",
            n_jobs: int = 1, chunk_size: int | None = None, backend: str = "loky",
            scheduler: str | None = None, progress: bool | None = None) -> dict[str, Any]:
    """The trained net (``net`` with ``out_dir``'s weights) against each opponent, seated
    by ``design`` (:data:`DESIGNS`), on ``units`` units of ``seed``: the net's gain per unit
    with its 95% interval. Each comparison is a study in ``OUT/`` :func:`certify_dir`
    (resumed after a kill, and only by the same nets); the certificate is written to
    ``OUT/certificate[-same-seat][-<rule options>].json``."""
    from analysis.compare import comparison, duplicate_comparison

    if design not in DESIGNS:
        raise ValueError(f"design: one of {', '.join(DESIGNS)}, got {design!r}")
    spec = _spec(game)
    net = net_policy(out_dir, next(iter(spec.decisions)))
    config = game.make_config(**(options or {}))
    teams = game.teams(config)
    seats = tuple(teams[0]) if teams and design == "duplicate" else (0,)
    tag = "".join(f"-{k}={v}" for k, v in sorted((options or {}).items()))
    nets = weights_digest(out_dir)
    for b in against:
        game.make_policy(b)  # an unknown opponent is refused before any work
    if seed in label_seeds(out_dir):
        raise ValueError(f"--seed {seed}: the nets in {str(out_dir)!r} were trained on labels "
                         "of that seed's deals; a certificate is measured on deals the "
                         "training never saw (another --seed)")
    out: dict[str, Any] = {}
    began = time.perf_counter()
    for b in against:
        study = Path(out_dir) / certify_dir(b, design, tag, nets)
        run = {"n_jobs": n_jobs, "chunk_size": chunk_size, "backend": backend,
               "scheduler": scheduler, "progress": progress, "out_dir": study}
        same_seat = design == "same-seat"  # the others: the heuristic, else the opponent
        base = Experiment(game, config=dict(options or {}),
                          policies="heuristic" if same_seat else b, size=units, seed=seed)
        found = (comparison if same_seat else duplicate_comparison)(base, net, b, seats=seats,
                                                                    **run)
        out[b] = {"mean": found.difference.value, "low": found.difference.low,
                  "high": found.difference.high, "n": found.n, "p_value": found.p_value,
                  "net_mean": found.a.value, "opponent_mean": found.b.value}
    if regret:
        out["regret"] = regret_table(
            game, tuple(net if p == "net" else p for p in regret), units=regret_units or units,
            seed=seed, options=options, out_dir=out_dir, n_jobs=n_jobs, backend=backend,
            nets=nets,
            scheduler=scheduler, progress=progress)
    doc = {"game": game.name, "options": dict(options or {}), "units": units, "seed": seed,
           "design": design, "seats": list(seats),
           "weights": net["params"]["weights"],
           "against": {k: v for k, v in out.items() if k != "regret"},
           "double_dummy_regret": out.get("regret", []),
           "seconds": time.perf_counter() - began}
    from simulators.core.files import write_atomically

    write_atomically(Path(out_dir) / f"certificate{_design_tag(design)}{tag}.json",
                     json.dumps(doc, indent=1))
    return doc


class RegretStudy(Study):
    """A policy at every seat; each card play's double-dummy regret, as cluster totals."""

    kind = "learn-regret"

    def __init__(self, experiment: Experiment, chunk: int):
        self.arms, self._chunk = (experiment,), chunk

    @property
    def default_chunk(self) -> int:
        return self._chunk

    def reduce_chunk(self, first: int, count: int) -> dict[str, float]:
        """Per unit (a cluster: its plays are not independent) the card plays with a
        choice, the points given up and the plays giving some up, as cluster totals."""
        from analysis import stats

        exp = self.base
        r = exp.game.learn.regrets(exp.config, exp.play_policies(), exp.seed, first, count)
        counted = ~np.isnan(r)
        plays = counted.sum(axis=1)
        given = np.where(counted, r, 0.0)
        out = {}
        for name, y in (("points", given.sum(axis=1)), ("giving_up", (given > 0).sum(axis=1))):
            totals = stats.ClusterTotals.of(y, plays)
            out |= {f"{name}:{k}": float(v) for k, v in totals._asdict().items()}
        return out


def regret_table(game: Game, policies: tuple[Any, ...], *, units: int, seed: int,
                 options: dict[str, Any] | None = None, out_dir: str | Path | None = None,
                 n_jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
                 progress: bool | None = None, nets: str = "") -> list[dict[str, Any]]:
    """Each policy at every seat on the same ``units`` units: the share of its card plays
    (those with a choice) that give up double-dummy points in the true deal, and the mean
    points given up per card play, with 95% intervals clustered by unit (BEN's DCWER)."""
    from analysis import stats

    spec = _spec(game)
    if spec.regrets is None:
        raise ValueError(f"{game.name} has no double-dummy regret measure")
    tag = "".join(f"-{k}={v}" for k, v in sorted((options or {}).items()))
    rows = []
    for policy in policies:
        exp = Experiment(game, config=dict(options or {}), policies=policy, size=units,
                         seed=seed)
        name = policy if isinstance(policy, str) else policy["name"]
        where = None if out_dir is None else Path(out_dir) / (
            f"regret-{name}{tag}" + (f"-{nets}" if name == "net" and nets else ""))
        chunk = 10 if getattr(exp.policies[0], "costly", False) else 100
        found = map_chunks(RegretStudy(exp, chunk), where, n_jobs=n_jobs, backend=backend,
                           scheduler=scheduler, progress=progress)
        totals = {name: stats.ClusterTotals(*(found.totals[f"{name}:{k}"]
                                              for k in stats.ClusterTotals._fields))
                  for name in ("points", "giving_up")}
        share = stats.clustered(totals["giving_up"], "rate")
        mean = stats.clustered(totals["points"], "mean")
        rows.append({"policy": name, "units": units, "card_plays": mean.n,
                     "share_giving_up": share.value, "share_low": share.low,
                     "share_high": share.high, "mean_points_given_up": mean.value,
                     "mean_low": mean.low, "mean_high": mean.high})
    return rows
