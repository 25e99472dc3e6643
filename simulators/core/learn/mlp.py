"""The net at play time: a multi-layer perceptron in plain numpy, and its weights file.

A net maps a batch of feature rows (float32, ``(B, F)``) to one score per action
(``(B, A)``): the input is standardised (``(x - mean) / scale``), each hidden layer is
``relu(x @ W + b)`` and the last is linear. The player takes the legal action with the
highest score. A weights file (``.npz``) holds the layers and a ``meta`` JSON string:
``game``, ``decision``, ``n_features``, ``n_actions`` (checked on load, so a file made for
another game, decision or encoder is refused with one line), and how it was made.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 1  # bump when the file's layout changes


@dataclass(frozen=True, eq=False)
class Mlp:
    """A trained net: ``weights[k]`` (in, out) and ``biases[k]`` (out,) float32."""

    mean: np.ndarray
    scale: np.ndarray
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def n_features(self) -> int:
        return int(self.weights[0].shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.weights[-1].shape[1])

    @property
    def n_parameters(self) -> int:
        return int(sum(w.size + b.size for w, b in zip(self.weights, self.biases, strict=True)))

    def scores(self, features: np.ndarray) -> np.ndarray:
        """(B, A) float32 scores of a batch of feature rows."""
        x = (np.asarray(features, np.float32) - self.mean) / self.scale
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = x @ w + b
            if k < last:
                np.maximum(x, 0.0, out=x)
        return x

    def best(self, features: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """(B,) int64: the legal action with the highest score in each row."""
        scores = self.scores(features)
        scores[~np.asarray(legal, bool)] = -np.inf
        return scores.argmax(axis=1)


def save(path: str | Path, net: Mlp) -> None:
    """Write a weights file atomically (see the module docstring)."""
    import io

    from simulators.core.files import write_atomically

    arrays = {"mean": net.mean, "scale": net.scale,
              "meta": np.array(json.dumps({"format": FORMAT, **net.meta}))}
    for k, (w, b) in enumerate(zip(net.weights, net.biases, strict=True)):
        arrays[f"w{k}"], arrays[f"b{k}"] = w.astype(np.float32), b.astype(np.float32)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_atomically(path, buffer.getvalue())


def flush_subnormals(array: np.ndarray) -> np.ndarray:
    """``array`` as float32 with its subnormal values (|x| < 1.2e-38: weights a decay drove
    towards 0) set to 0. Arithmetic on subnormals takes a slow path on some CPUs and BLAS
    builds (measured: a 256x256 layer 40 times slower), and a term that small changes no
    float32 sum of the net's scale."""
    out = np.array(array, np.float32)
    out[np.abs(out) < np.finfo(np.float32).tiny] = 0.0
    return out


def load(path: str | Path, *, game: str, decision: str, n_features: int,
         n_actions: int) -> Mlp:
    """A weights file, checked against what the caller plays (``ValueError``, one line)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no weights file {str(path)!r}")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {k: data[k] for k in data.files if k != "meta"}
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"{str(path)!r} is not a weights file ({error})") from None
    for key, want in (("format", FORMAT), ("game", game), ("decision", decision)):
        if meta.get(key) != want:
            raise ValueError(f"{str(path)!r} holds a net for {key} {meta.get(key)!r}, not "
                             f"{want!r}")
    depth = sum(k.startswith("w") for k in arrays)
    weights = tuple(flush_subnormals(arrays[f"w{k}"]) for k in range(depth))
    biases = tuple(flush_subnormals(arrays[f"b{k}"]) for k in range(depth))
    net = Mlp(arrays["mean"].astype(np.float32), arrays["scale"].astype(np.float32), weights,
              biases, meta)
    shapes_fit = all(w.shape[1] == b.shape[0] for w, b in zip(weights, biases, strict=True)) \
        and all(a.shape[1] == b.shape[0] for a, b in zip(weights, weights[1:], strict=False))
    if (depth == 0 or not shapes_fit or net.n_features != n_features
            or net.n_actions != n_actions or net.mean.shape != (n_features,)):
        raise ValueError(f"{str(path)!r} has the wrong shape: {net.n_features} features and "
                         f"{net.n_actions} actions, this player needs {n_features} and "
                         f"{n_actions}")
    return net
