"""``tapisvert solve manille``: double-dummy values of the engine's deals, or of one position.

    tapisvert solve manille --deals 1000 --seed 1 --json
    tapisvert solve manille --hands "10P AP; RP DP; VP 9P; 8P 7P" --trump P --leader 0
    tapisvert solve manille --hands "AP; RP DP; VP 9P; 8P 7P" --trump P --trick "10P"

A value is side 0's points (cards, MA-1, and 1 per trick, MA-6) from the
first card (``--deals``: side 0 = the taking team, the dealer's) or from the
position (``--hands``: side 0 = ``--side``, default seats 0 and 2) on, every
hand visible, side 0 maximising and side 1 minimising. See
:mod:`simulators.core.double_dummy_command` for the shared flags.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core import double_dummy_command as ddc
from simulators.core import tricks
from simulators.core.game import Solve, SolveDeals
from simulators.manille import rules as R

DEALS_VALUE_IS = ("the taking team's (the dealer's team's) points of 68 (card points and 1 per "
                  "trick, MA-6) when the four hands are played double-dummy (every hand "
                  "visible, the taking team maximising its points, the defence minimising them) "
                  "from the first card, with the trump the deal was played with")
DEALS_MADE_IS = "the taking team above 34 (MA-6)"
POSITION_VALUE_IS = ("side 0's points from here on (card points and 1 per trick, MA-6; the "
                     "trick in progress included) under double-dummy play: every hand visible, "
                     "side 0 maximising, side 1 minimising")
POSITION_MADE_IS = "side 0 ends above 34 (MA-6): --banked plus the value"


def _rules():
    from simulators.manille.solver import RULES

    return RULES


@dataclass(frozen=True)
class ManilleSolveQuestion(ddc.DoubleDummyQuestion):
    """``tapisvert solve manille``'s question: the shared flags and the rule option."""

    hands: str | None = ddc.hands_flag("10P AP; RP DP; VP 9P; 8P 7P")
    trump: str | None = ddc.flag("with --hands: the trump, P C K T (a suit) or SA (sans "
                                 "atout); required there (--deals: each deal's own trump)")
    leader: int | None = ddc.flag("with --hands: the seat (0..3) that led the trick in "
                                  "progress, or leads the next one (default 0); play turns "
                                  "counter-clockwise, seat s then s-1 (MA-5)", "SEAT")
    side: str | None = ddc.flag("with --hands: side 0, the partners whose points are counted: "
                                "0,2 (default) or 1,3", "SEATS")
    banked: int | None = ddc.flag("with --hands: points side 0 has already won this deal "
                                  "(cards and 1 per trick; default 0); only 'made' (above 34, "
                                  "MA-6) uses it", "N")
    sans_atout_must_beat: bool = ddc.flag("the rule option sans_atout_must_beat (MA-5): in "
                                          "sans atout, beat an opponent who holds the trick "
                                          "when following", default=False)

    def read_position(self):
        return _position(self)

    def deals_config(self) -> R.ManilleConfig:
        return R.ManilleConfig(sans_atout_must_beat=self.sans_atout_must_beat)


def _check_side(side: tuple[int, ...], n: int) -> None:
    if side not in ((0, 2), (1, 3)):
        raise ValueError(f"--side must be a partnership, 0,2 or 1,3 (MA-2), got "
                         f"{','.join(map(str, side))}")


def _position(args):
    trump = ddc.read_trump(args.trump, R.parse_trump)
    from simulators.manille.solver import CARD_POINTS

    reading = ddc.read_position(args, _rules(), CARD_POINTS, default_side=lambda n: (0, 2),
                                check_side=_check_side)
    ddc.check_trick(reading, _rules(), _why_illegal(trump, args.sans_atout_must_beat))
    return trump, reading


def _why_illegal(trump: int, must_beat: bool):
    """The referee's MA-5 duties as ``ddc.check_trick`` asks them: None for a legal play."""
    from simulators.manille import referee

    def why(hand, earlier, seat, card):
        if card in referee.legal_plays(hand, earlier, seat, trump, must_beat):
            return None
        return f"{referee.why_illegal(hand, earlier, seat, trump, card, must_beat)} (MA-5)"

    return why


def run(args, log) -> dict:
    from simulators.manille import solver

    if ddc.mode(args) == "position":
        trump, reading = _position(args)
        pos = ddc.position(reading, solver.RULES, trump_mask=int(tricks.SUIT_MASK[trump]),
                           obligations=R.duties(trump, args.sans_atout_must_beat),
                           card_points=solver.CARD_POINTS)
        ddc.warm_up()
        return ddc.position_document(
            reading, pos, solver.RULES, made=lambda total: bool(solver.made(total)),
            value_is=POSITION_VALUE_IS, made_is=POSITION_MADE_IS,
            read_as={"trump": R.format_trump(trump),
                     "sans_atout_must_beat": bool(args.sans_atout_must_beat)})
    raise ValueError("--deals is a study: the toolkit's executor runs SOLVE.deals")


def _question(args):
    return ddc.question(args, {"sans_atout_must_beat": bool(args.sans_atout_must_beat)})


def solve_deals(config: R.ManilleConfig, policies, seed: int, first: int, count: int):
    """Deals ``first .. first + count - 1`` of ``seed`` played by ``policies`` and solved from
    their first card: the columns of :class:`~simulators.core.game.SolveDeals`."""
    from simulators.manille import solver
    from simulators.manille.engine import simulate_deals

    arrays, sums = ddc.play(simulate_deals, config, policies, seed, first, count)
    pos = solver.deal_positions(arrays, config.sans_atout_must_beat)
    values, sums["solve_seconds"] = ddc.solve_rows(pos)
    played = (arrays.taking_card_points + arrays.taking_tricks).astype(np.int64)
    return {"value": values, "made": np.asarray(solver.made(values), bool),
            "solved": np.ones(count, bool), "trump": np.asarray(arrays.trump, np.int64),
            "dealer": np.asarray(arrays.dealer, np.int64), "played": played}, sums


def deals_document(config: R.ManilleConfig, seed: int, count: int, columns, sums,
                   interval) -> dict:
    """The ``--deals`` document of every deal's columns (deal order) and the summed times."""
    from simulators.manille import solver

    played = columns["played"]
    return ddc.deals_document(
        title=solver.RULES.title, n_deals=count, seed=seed, values=columns["value"],
        made=columns["made"], solved=columns["solved"], seconds=sums["solve_seconds"],
        warm_up_seconds=sums["warm_up_seconds"], value_is=DEALS_VALUE_IS,
        made_is=DEALS_MADE_IS, interval=interval,
        trumps=[R.format_trump(int(t)) for t in columns["trump"]],
        dealers=[int(d) for d in columns["dealer"]],
        played=played.tolist(), played_mean=round(float(played.mean()), 4),
        played_made_rate=round(float(solver.made(played).mean()), 6),
        simulate_seconds=round(sums["simulate_seconds"], 3),
        policy="heuristic", options={"sans_atout_must_beat": config.sans_atout_must_beat})


text = ddc.text
SOLVE = Solve(question=ManilleSolveQuestion, run=run, text=text,
              doc="double-dummy values of the engine's deals or of one position (MA-5, MA-6)",
              deals=SolveDeals(question=_question, solve=solve_deals, document=deals_document,
                               units_per_chunk=ddc.CHUNK))
