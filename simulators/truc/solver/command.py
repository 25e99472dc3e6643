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


def equity_question(q) -> SolveTableRun | None:
    """``--equity --recompute``: the table's study (see ``manche.EQUITY_TABLE``)."""
    if not (q.equity and q.recompute):
        return None
    return SolveTableRun({"card_call": True, "target": target_of(q),
                          "lines": LINES if q.lines is None else q.lines})


def text(doc: dict) -> str:
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
