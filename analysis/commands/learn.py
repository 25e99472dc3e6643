"""``tapisvert learn GAME generate|train|certify``: learned players (:mod:`analysis.learn`).

    tapisvert learn GAME generate --deals 2000 --worlds 2 --out-dir runs/net --n-jobs 2
    tapisvert learn GAME train --out-dir runs/net
    tapisvert learn GAME certify --out-dir runs/net --deals 2000 --n-jobs 2

``generate`` is a study of the executor (``--n-jobs``, ``--backend dask``, resumed from
``--out-dir``); ``train`` needs the ``[learn]`` extra; ``certify`` plays the trained net
against the heuristic and the teacher's policy, duplicate, on deals of another seed.
"""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path

from analysis.commands.common import UsageError, json_value, log_line, typed_options
from analysis.commands.study import run_options, run_parser
from simulators.core.game import get_game
from simulators.core.rng import DEFAULT_SEED

DESIGNS = ("duplicate", "same-seat")  # analysis.learn.DESIGNS (not imported: a light parser)

# Certificates on deals the labels never saw: the shipped nets' DAgger rounds dealt on
# 2026 + k (k = 1..5) before analysis.learn.round_seed, so not 2027; certify also refuses a
# seed its out-dir's labels were dealt on (analysis.learn.label_seeds).
CERTIFY_SEED = 3027


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _seats(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be seat numbers like 0,2, got {text!r}") \
            from None


def _hidden(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1 or len(sizes) > 4:
        raise argparse.ArgumentTypeError(f"must be 1 to 4 layer widths like 128,128, got "
                                         f"{text!r}")
    return sizes


def _options(args, study: str) -> dict:
    """The executor's options, the study's own directory checked (``OUT/<study>``)."""
    return run_options(argparse.Namespace(**{**vars(args), "out_dir": args.out_dir / study}))


def _generate(args, game) -> dict:
    from analysis.learn import generate, labels_dir, subset

    rules = _rules(args, game)
    decisions = tuple(args.decisions.split(",")) if args.decisions else None
    unknown = [d for d in decisions or () if d not in game.learn.decisions]
    if unknown:
        raise UsageError(f"--decisions: {game.name} has no learned decision {unknown[0]!r} "
                         f"(decisions: {', '.join(game.learn.decisions)})")
    options = _options(args, labels_dir(".", args.round, rules,
                                        subset(game, decisions)).name)
    return generate(game, units=getattr(args, game.units[0].name), seed=args.seed,
                    decisions=decisions,
                    teacher={"worlds": args.worlds,
                             **({"true_deal": True} if getattr(args, "true_deal", False)
                                else {})},
                    round_no=args.round, net_seats=args.net_seats, options=rules,
                    out_dir=args.out_dir, **options)


def _train(args, game) -> dict:
    from analysis.learn import labelled, train

    if args.decisions:
        decisions = args.decisions.split(",")
    else:  # every decision labelled in the directory (the first one's error if none is)
        decisions = [d for d in game.learn.decisions if labelled(args.out_dir, d)]
        decisions = decisions or [next(iter(game.learn.decisions))]
    if args.init is not None and len(decisions) != 1:
        raise UsageError(f"--init: one weights file starts one decision's net; give "
                         f"--decisions one of {', '.join(decisions)}")
    out = {}
    for decision in decisions:
        doc = train(game, args.out_dir, decision, hidden=args.hidden, epochs=args.epochs,
                    seed=args.seed, clip=args.clip, grow_batch=args.grow_batch,
                    init=args.init, learning_rate=args.learning_rate, log=log_line)
        out[decision] = doc
    return {"game": game.name, "decisions": out}


def _certify(args, game) -> dict:
    from analysis.learn import certify, certify_dir, weights_digest

    against = tuple(args.against.split(","))
    rules = _rules(args, game)
    tag = "".join(f"-{k}={v}" for k, v in sorted(rules.items()))
    nets = weights_digest(args.out_dir)  # the studies of these nets (analysis.learn.certify)
    for b in against:
        _options(args, certify_dir(b, args.design, tag, nets))
    options = _options(args, certify_dir(against[0], args.design, tag, nets))
    regret = tuple(args.regret.split(",")) if args.regret else ()
    return certify(game, args.out_dir, units=getattr(args, game.units[0].name),
                   seed=args.seed, against=against, options=rules, regret=regret,
                   regret_units=args.regret_deals or 0, design=args.design, **options)


def _rules(args, game) -> dict:
    """``--option`` and ``--players``: rule options, refused before any work if wrong."""
    rules = typed_options(game, args.option or [])
    if args.players is not None:
        rules["n_players"] = args.players
    game.make_config(**rules)
    return rules


ACTIONS = {"generate": _generate, "train": _train, "certify": _certify}


def run(args: argparse.Namespace) -> str:
    game = get_game(args.game)
    if args.out_dir is None:
        raise UsageError(f"learn {args.action} needs --out-dir DIR (the labels, the weights "
                         "and the certificate live there)")
    try:
        doc = ACTIONS[args.action](args, game)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.json:
        return json.dumps(json_value(doc), indent=1)
    return _text(args.action, doc)


def _text(action: str, doc: dict) -> str:
    if action == "generate":
        rows = ", ".join(f"{n:,} {d} rows" for d, n in doc["rows"].items())
        return (f"{doc['game']}: {doc['units']:,} units labelled ({rows}) in "
                f"{doc['seconds']:.0f} s -> {doc['labels']}")
    if action == "train":
        lines = []
        for d, t in doc["decisions"].items():
            last = t["history"][t["epoch"] - 1]
            held = (f", held-out agreement {last['holdout_agreement']:.3f}, regret "
                    f"{last['holdout_regret']:.4f}" if "holdout_agreement" in last else "")
            lines.append(f"{d}: {t['parameters']:,} parameters ({t['bytes']:,} bytes), epoch "
                         f"{t['epoch']} of {t['epochs']} kept{held} -> {t['weights']}")
        return "\n".join(lines)
    rules = "".join(f", {k}={v}" for k, v in doc["options"].items())
    design = ("duplicate" if doc["design"] == "duplicate" else
              "each in the same seat, the heuristic at the others")
    lines = [f"{doc['game']}{rules}: net against each opponent, {design}, {doc['units']:,} "
             f"units of seed {doc['seed']} (net's seats {doc['seats']})"]
    for b, c in doc["against"].items():
        lines.append(f"  vs {b}: {c['mean']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}] per unit "
                     f"(n={c['n']})")
    for r in doc["double_dummy_regret"]:
        lines.append(f"  {r['policy']} double-dummy regret: {r['share_giving_up']:.1%} of "
                     f"{r['card_plays']:,} card plays give up points, "
                     f"{r['mean_points_given_up']:.3f} [{r['mean_low']:.3f}, "
                     f"{r['mean_high']:.3f}] points per play")
    return "\n".join(lines)


def _add_train_parser(actions) -> None:
    """learn GAME train's options."""
    tr = actions.add_parser("train", help="fit the nets (needs the [learn] extra)")
    tr.add_argument("--out-dir", type=Path, help="the directory of 'generate'")
    tr.add_argument("--decisions", help="comma-separated, default every decision with "
                                        "labels in --out-dir")
    tr.add_argument("--epochs", type=_positive, default=30)
    tr.add_argument("--clip", type=float, metavar="POINTS",
                    help="fit each value at most POINTS below its row's best (default: "
                         "no clip)")
    tr.add_argument("--grow-batch", type=int, default=0, metavar="EPOCHS",
                    help="the last EPOCHS epochs double the batch each epoch, from 256 "
                         "(anneals the steps; default 0: 256 throughout)")
    tr.add_argument("--hidden", type=_hidden, default=(128, 128),
                    help="hidden layer widths (default 128,128)")
    tr.add_argument("--seed", type=int, default=2026, help="the training's seed")
    tr.add_argument("--init", type=Path, metavar="WEIGHTS",
                    help="start from this weights file (the same --hidden widths; with "
                         "several --decisions, give one decision)")
    tr.add_argument("--learning-rate", type=float, default=1e-3,
                    help="Adam's step size (default 0.001)")
    tr.add_argument("--json", action="store_true", help="print one JSON object")


def add_parser(commands, scope, run_parent) -> None:
    """learn GAME generate|train|certify, for the games with learned players."""
    learners = [g for g in scope if g.learn is not None]
    if not learners:
        return
    learn = commands.add_parser("learn", help="learned players: label states with a strong "
                                "teacher, train a small net, certify it (duplicate)")
    games_of = learn.add_subparsers(dest="game", required=True, metavar="GAME")
    for g in learners:
        unit = g.units[0]
        sub = games_of.add_parser(g.name, help=f"{g.title}'s nets ({', '.join(g.learn.decisions)})")
        actions = sub.add_subparsers(dest="action", required=True, metavar="ACTION")
        gen = actions.add_parser("generate", parents=[run_parser()],
                                 help="label states with the teacher (an executor study)")
        gen.add_argument(f"--{unit.name}", type=_positive, required=True, metavar="N",
                         help=f"{unit.name} played by the behaviour policy")
        gen.add_argument("--worlds", type=_positive, default=8,
                         help="the teacher's worlds per decision (default 8)")
        if "true_deal" in inspect.signature(g.learn.teacher).parameters:
            gen.add_argument("--true-deal", action="store_true",
                             help="label card plays by each legal card's double-dummy points "
                                  "in the deal actually dealt (one solve per state, no "
                                  "worlds; default: PIMC over --worlds worlds)")
        gen.add_argument("--seed", type=int, default=DEFAULT_SEED)
        gen.add_argument("--option", action="append", metavar="NAME=VALUE",
                         help="a rule option of the labelled units, repeatable")
        gen.add_argument("--players", type=int, help="the player count (a rule option)")
        gen.add_argument("--round", type=int, default=0,
                         help="0 (default): the heuristic plays while states are recorded; "
                              "k > 0: a DAgger round, the net trained so far in --out-dir "
                              "plays (its own states) on deals of a seed drawn from (--seed, k)")
        gen.add_argument("--net-seats", type=_seats, metavar="SEATS",
                         help="a DAgger round's net at these seats only (e.g. 0,2), the "
                              "heuristic at the others; every seat is recorded (default: "
                              "the net at every seat)")
        gen.add_argument("--decisions", help=f"comma-separated, default all: "
                                             f"{', '.join(g.learn.decisions)}")
        _add_train_parser(actions)
        cert = actions.add_parser("certify", parents=[run_parser()],
                                  help="the trained net against the heuristic and the teacher, "
                                       "duplicate, on fresh deals")
        cert.add_argument(f"--{unit.name}", type=_positive, required=True, metavar="N")
        cert.add_argument("--option", action="append", metavar="NAME=VALUE",
                          help="a rule option of the deals, repeatable")
        cert.add_argument("--players", type=int, help="the player count (a rule option)")
        cert.add_argument("--design", choices=DESIGNS, default="duplicate",
                          help="duplicate (default): the net at one partnership's seats (or "
                               "seat 0) against the opponent at the others, seats rotated; "
                               "same-seat: the net, then the opponent, at seat 0 of the same "
                               "deals, the heuristic at the others")
        cert.add_argument("--against", default="heuristic",
                          help="comma-separated opponents (default heuristic; e.g. "
                               "heuristic,pimc)")
        if g.learn.regrets is not None:
            cert.add_argument("--regret", help="policies whose double-dummy regret of card play "
                                               "is measured, each at every seat (e.g. "
                                               "heuristic,net,pimc)")
            cert.add_argument("--regret-deals", type=_positive,
                              help=f"{unit.name} of the regret table (default: as the "
                                   "comparisons)")
        cert.set_defaults(regret=None, regret_deals=None)
        cert.add_argument("--seed", type=int, default=CERTIFY_SEED,
                          help=f"seed of the deals (default {CERTIFY_SEED}, not the labels')")
        sub.set_defaults(run=run)
    learn.set_defaults(run=run)
