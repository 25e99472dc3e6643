"""``tapisvert solve truc``: one state's solved deal, or the equity table (JSON or text).

    tapisvert solve truc --scores 0,0 --json                  # points, card call on
    tapisvert solve truc --scores 10,3 --payoff manche --json # chance of the manche
    tapisvert solve truc --scores 0,0 --no-card-call --json   # the deal alone
    tapisvert solve truc --equity --json                      # the shipped table
    tapisvert solve truc --equity --recompute --n-jobs 2 --out-dir D   # recompute it (an hour)

``--scores A,B`` are the non-dealer's and the dealer's scores before the
deal. A solved state is kept in the user cache and loads in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulators.core.game import SolveTableRun
from simulators.truc.solver.manche import LINES, MAX_ITERATIONS, PAYOFFS, TARGET, TARGET_FLOOR
from simulators.truc.solver.solutions import DEFAULT_TARGET


def read_scores(text: str) -> tuple[int, int]:
    """``--scores 10,3`` (or ``10-3``): the non-dealer's and the dealer's scores."""
    try:
        a, b = (int(x) for x in text.replace("-", ",").split(","))
    except ValueError:
        raise ValueError(f"--scores must look like 10,3 (non-dealer, dealer), got {text!r}") \
            from None
    return a, b


def _flag(doc: str, default=None, **more):
    return field(default=default, metadata={"doc": doc, **more})


@dataclass(frozen=True)
class TrucSolveQuestion:
    """``tapisvert solve truc``'s question: one state's deal, or the equity table."""

    scores: tuple[int, int] | None = _flag(
        "the non-dealer's and the dealer's scores before the deal (default 0,0)",
        metavar="A,B", read=read_scores)
    payoff: str | None = _flag(
        "points per deal (default), or the chance of winning the manche (with the shipped "
        "equity table as the worth of the scores reached)", choices=PAYOFFS)
    card_call: bool = _flag("solve the deal without the card call (TR-2)", default=True)
    equity: bool = _flag("the equity table: the chance of winning the manche from every "
                         "score and dealer", default=False)
    recompute: bool = _flag("solve again instead of loading (with --equity: every state, an "
                            "executor study: --n-jobs, --out-dir, --backend dask; about an "
                            "hour on two cores)", default=False)
    shipped: bool = _flag("the solution the package ships (what the equilibrium policy "
                          "plays): each state's exploitability, measured by the exact best "
                          "response on the shipped bytes, its packing and size",
                          default=False)
    lines: int | None = _flag("with --equity --recompute: solve only the top N lines of scores "
                              "(a + b = 22, 21, ...; default all 23): the states near 12, for "
                              "a quick check against the shipped table", metavar="N")
    target: float | None = _flag(f"exploitability to reach (points per deal, or chance of the "
                                 f"manche; default {DEFAULT_TARGET}, at least {TARGET_FLOOR})")

    def __post_init__(self) -> None:
        if self.scores is not None:
            a, b = self.scores
            if not (0 <= a < TARGET and 0 <= b < TARGET):
                raise ValueError(f"--scores must be in 0..{TARGET - 1}, got {a},{b}")
        if self.payoff is not None and self.payoff not in PAYOFFS:
            raise ValueError(f"--payoff must be one of {', '.join(PAYOFFS)}, got "
                             f"{self.payoff!r}")
        target = target_of(self)
        if not TARGET_FLOOR <= target < 1:
            raise ValueError(f"--target must be in [{TARGET_FLOOR}, 1), got {target:g}: the "
                             f"solver stops at its cap of {MAX_ITERATIONS} CFR+ iterations "
                             "before a smaller exploitability (it falls as about "
                             "1/iterations)")
        if self.lines is not None and not (self.equity and self.recompute):
            raise ValueError("--lines goes with --equity --recompute (the lines of the table "
                             "to solve)")
        if self.lines is not None and not 1 <= self.lines <= LINES:
            raise ValueError(f"--lines must be in 1..{LINES}, got {self.lines}")
        if self.shipped:
            others = [f"--{name.replace('_', '-')}" for name, default in
                      (("scores", None), ("payoff", None), ("equity", False),
                       ("recompute", False), ("lines", None), ("target", None))
                      if getattr(self, name) != default]
            if others or not self.card_call:
                raise ValueError(f"--shipped reads the package's solution; drop "
                                 f"{', '.join(others) or '--no-card-call'}")
        if self.equity:
            _check_equity_flags(self)
        elif self.payoff == "manche" and not self.card_call:
            raise ValueError("--payoff manche needs the card call: the equity table is solved "
                             "with it")


def _check_equity_flags(q) -> None:
    """The flags of one state are refused with --equity (the table of every state), and
    --target without --recompute (the shipped table is read, not solved)."""
    if not q.card_call:
        raise ValueError("--equity is solved with the card call; drop --no-card-call")
    if q.scores is not None:
        raise ValueError("--scores picks one state; --equity is the table of every state: "
                         "drop --scores, or drop --equity to solve that state")
    if q.payoff == "points":
        raise ValueError("--payoff points does not apply to --equity: the table is the chance "
                         "of winning the manche")
    if not q.recompute and q.target is not None:
        raise ValueError("--target applies to solving: --equity without --recompute reads the "
                         "shipped table; add --recompute (about an hour on two cores) or "
                         "drop it")


def target_of(q) -> float:
    """--target, or the default."""
    return DEFAULT_TARGET if q.target is None else q.target


def run(args, log) -> dict:
    if args.shipped:
        return shipped_document()
    if args.equity:
        return _equity(args, log)
    from simulators.truc.solver import solutions

    scores = (0, 0) if args.scores is None else tuple(args.scores)
    payoff = args.payoff or "points"
    target = target_of(args)
    if args.recompute:
        _forget(solutions.state_dir(scores, payoff, args.card_call, target))
    loaded = solutions.load_state(scores, payoff, args.card_call, target)
    state = loaded or solutions.solved_state(scores, payoff, args.card_call, target, log=log)
    return {**state.report(), "scores_are": "non-dealer, dealer",
            "value_is": ("the non-dealer's points minus the dealer's, per deal"
                         if payoff == "points" else
                         "the non-dealer's chance of winning the manche"),
            "cached": loaded is not None}


def _forget(path) -> None:
    import shutil

    if path.exists():
        shutil.rmtree(path)


def _equity(args, log) -> dict:
    from simulators.truc.solver import manche

    doc = dict(manche.shipped_equity(True))
    for key in ("win_probability", "exploitability"):
        doc[key] = [[float(x) for x in row] for row in doc[key]]
    return doc


def shipped_document() -> dict:
    """``--shipped``: the package's solution file, its settings and every state's figures
    (``exploitability[a][b]``: the manche state at non-dealer a, dealer b)."""
    from simulators.truc.solver import packed

    index = packed.shipped_index()
    if index is None:
        raise FileNotFoundError(f"the package has no {packed.SHIPPED.name}: build it with "
                                "python bench/truc_pack.py --out-dir DIR")
    states = index["states"]
    table = [[states.get(packed.member("manche", (a, b)), {}).get("exploitability")
              for b in range(TARGET)] for a in range(TARGET)]
    manche = [m for m in states.values() if m["payoff"] == "manche"]
    worst = max(manche, key=lambda m: m["exploitability"])
    doc = {"shipped": True, "file": packed.SHIPPED.name,
           "file_bytes": packed.SHIPPED.stat().st_size,
           "settings": index["settings"], "states_shipped": len(states),
           "largest_exploitability": worst["exploitability"],
           "largest_at": worst["scores"], "exploitability": table,
           "points": {k: v for k, v in states.get("points-0-0", {}).items() if k != "tried"},
           "as_played": packed.as_played_figures(),
           "states": [{k: v for k, v in m.items() if k != "tried"}
                      for _, m in sorted(states.items())]}
    return doc


def equity_question(q) -> SolveTableRun | None:
    """``--equity --recompute``: the table's study (see ``manche.EQUITY_TABLE``)."""
    if not (q.equity and q.recompute):
        return None
    return SolveTableRun({"card_call": True, "target": target_of(q),
                          "lines": LINES if q.lines is None else q.lines})


def text(doc: dict) -> str:
    if doc.get("shipped"):
        return _shipped_text(doc)
    if "states" in doc:
        rows = ["Chance that the non-dealer wins the manche (rows: his score; columns: the "
                "dealer's):", "     " + "".join(f"{b:>6}" for b in range(TARGET))]
        for a, row in enumerate(doc["win_probability"]):
            rows.append(f"{a:>4} " + "".join(f"{x:6.3f}" for x in row))
        rows.append(f"largest exploitability {doc['largest_exploitability']:.5f} (chance of "
                    f"the manche); solved in {doc['seconds']:.0f} s with {doc['n_jobs']} "
                    "jobs")
        if not doc.get("target_reached", True):
            rows.append(f"TARGET NOT REACHED: some states stopped at the cap of "
                        f"{MAX_ITERATIONS} iterations above the target {doc['target']:g} "
                        "(those states are not cached)")
        return "\n".join(rows)
    a, b = doc["scores"]
    call = "with" if doc["card_call"] else "without"
    text = (f"Truc at {a}-{b} (non-dealer-dealer), {call} the card call, payoff "
            f"{doc['payoff']}:\n  value {doc['value']:+.4f} ({doc['value_is']})\n"
            f"  exploitability {doc['exploitability']:.4f} after {doc['iterations']} CFR+ "
            f"iterations ({doc['seconds']:.0f} s of solving)")
    if not doc["target_reached"]:
        text += (f"\n  TARGET NOT REACHED: stopped at the cap of {doc['iterations']} "
                 f"iterations above the target {doc['target']:g}; not cached as solved")
    return text


def _shipped_text(doc: dict) -> str:
    rows = [f"The shipped solution ({doc['file']}, {doc['file_bytes'] / 2**20:.1f} MiB, "
            f"{doc['states_shipped']} states): exploitability x 1000 in chance of the manche, "
            "exact best response to what ships (rows: the non-dealer's score; columns: the "
            "dealer's):", "     " + "".join(f"{b:>6}" for b in range(TARGET))]
    for a, row in enumerate(doc["exploitability"]):
        rows.append(f"{a:>4} " + "".join("     -" if x is None else f"{1000 * x:6.2f}"
                                         for x in row))
    a, b = doc["largest_at"]
    rows.append(f"largest {doc['largest_exploitability']:.5f} at {a}-{b}")
    if doc["points"]:
        rows.append(f"points at 0-0: exploitability {doc['points']['exploitability']:.5f} "
                    "points per deal")
    for fig in doc["as_played"]:
        rows.append(f"as played (first redeal from the real stock) at {fig['scores'][0]}-"
                    f"{fig['scores'][1]} {fig['payoff']}: {fig['exploitability']:.5f} "
                    f"(solved game {fig['stationary_exploitability']:.5f}; both ask "
                    f"{100 * fig['redeal_chance']:.1f}% of deals)")
    return "\n".join(rows)
