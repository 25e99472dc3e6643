"""``tapisvert solve bianco-mano``: double-dummy values of the engine's deals, or of one position.

    tapisvert solve bianco-mano --deals 1000 --seed 1 --json
    tapisvert solve bianco-mano --deals 1000 --players 5 --json
    tapisvert solve bianco-mano --hands "1R 2B; 3R 1B; 4R 2J; 5R 3J" --trump R --leader 0

A value is side 0's card points (BM-1: the dominant family's doubled) from
the first card (``--deals``: side 0 = the taker's side, the espion counted,
BM-10) or from the position (``--hands``: side 0 = ``--side``) on, every hand
visible, side 0 maximising and side 1 minimising. Deals where everybody
passed have no play: their value and "made" are null, and they are counted
(``all_pass``). See :mod:`simulators.core.double_dummy_command` for the
shared flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulators.bianco_mano import rules as R
from simulators.core import double_dummy_command as ddc
from simulators.core import tricks
from simulators.core.game import Solve, SolveDeals

DEALS_VALUE_IS = ("the taker's side's card points of 75 (BM-1), its espion included (BM-10), "
                  "when the hands are played double-dummy (every hand visible, the taker's "
                  "side maximising its points, the others minimising them) from the first "
                  "card; null for a deal where everybody passed (no play)")
DEALS_MADE_IS = "the taker's side reaches 45, the announced Bianco Mano bonus counting 5 (BM-10, " \
                "BM-11)"
POSITION_VALUE_IS = ("side 0's card points from here on (BM-1: the dominant family's doubled; "
                     "the trick in progress included) under double-dummy play: every hand "
                     "visible, side 0 maximising, side 1 minimising")
POSITION_MADE_IS = ("side 0 reaches 45 (BM-10): --banked plus the value, plus 5 with "
                    "--bianco-mano (BM-11)")
DEFAULT_SIDE = {3: (0,), 4: (0, 2), 5: (0, 2)}


@dataclass(frozen=True)
class BiancoManoSolveQuestion(ddc.DoubleDummyQuestion):
    """``tapisvert solve bianco-mano``'s question: the shared flags, the player count and the
    bonus."""

    hands: str | None = ddc.hands_flag("1R 2B; 3R 1B; 4R 2J; 5R 3J")
    trump: str | None = ddc.flag("with --hands: the dominant family, R B J V (BM-1; the trump "
                                 "of the trick games); required there (--deals: each deal's "
                                 "own)")
    leader: int | None = ddc.flag("with --hands: the seat that led the trick in progress, or "
                                  "leads the next one (default 0: the taker leads the first "
                                  "trick, BM-8); play turns clockwise, seat s then s+1", "SEAT")
    side: str | None = ddc.flag("with --hands: side 0, the taker's side whose points are "
                                "counted: with 3 hands one seat (default 0), with 4 a "
                                "partnership 0,2 (default) or 1,3, with 5 the taker and his "
                                "partner (default 0,2)", "SEATS")
    banked: int | None = ddc.flag("with --hands: points side 0 already holds, its espion and "
                                  "the tricks it won (default 0); only 'made' (45, BM-10) uses "
                                  "it", "N")
    players: int | None = field(default=None, metadata={
        "doc": "--deals: the player count of the deals (default 4; BM-4..BM-6); --hands: must "
               "match the number of hands", "choices": R.PLAYER_COUNTS})
    bianco_mano: bool = ddc.flag("--deals: the rule option bianco_mano (BM-11; the heuristic "
                                 "taker announces when he may); --hands: the taker announced "
                                 "it, 5 more for 'made'", default=False)

    def read_position(self):
        return _position(self)

    def deals_config(self) -> R.BiancoManoConfig:
        return _config(self)


def _check_side(side: tuple[int, ...], n: int) -> None:
    shown = ",".join(map(str, side))
    if n == 3 and len(side) != 1:
        raise ValueError(f"--side: with 3 players the taker plays alone (BM-4): one seat, got "
                         f"{shown}")
    if n == 4 and side not in ((0, 2), (1, 3)):
        raise ValueError(f"--side: with 4 players the sides are 0,2 and 1,3 (BM-5), got {shown}")
    if n == 5 and len(side) != 2:
        raise ValueError(f"--side: with 5 players the taker plays with the holder of the called "
                         f"card (BM-6): two seats, got {shown}")


def _position(args):
    dominant = ddc.read_trump(args.trump, R.parse_family)
    from simulators.bianco_mano.solver import RULES, card_points

    reading = ddc.read_position(args, RULES, card_points(dominant),
                                default_side=DEFAULT_SIDE.__getitem__, check_side=_check_side)
    if args.players is not None and args.players != reading.n_seats:
        raise ValueError(f"--players {args.players} but --hands gives {reading.n_seats} hands")
    ddc.check_trick(reading, RULES, _why_illegal(dominant))
    return dominant, reading


def _why_illegal(dominant: int):
    """The referee's BM-8 duties as ``ddc.check_trick`` asks them: None for a legal play."""
    from simulators.bianco_mano import referee

    def why(hand, earlier, seat, card):
        trick = [c for _, c in earlier]
        if card in referee.legal_plays(hand, trick, dominant):
            return None
        return f"{referee._why_illegal(hand, trick, dominant, card)} (BM-8)"

    return why


def _config(args) -> R.BiancoManoConfig:
    return R.BiancoManoConfig(n_players=4 if args.players is None else args.players,
                              bianco_mano=args.bianco_mano)


def run(args, log) -> dict:
    from simulators.bianco_mano import solver

    if ddc.mode(args) == "position":
        from simulators.bianco_mano.engine import DUTIES

        dominant, reading = _position(args)
        pos = ddc.position(reading, solver.RULES, trump_mask=int(tricks.SUIT_MASK[dominant]),
                           obligations=DUTIES, card_points=solver.card_points(dominant))
        ddc.warm_up()
        return ddc.position_document(
            reading, pos, solver.RULES,
            made=lambda total: solver.made(total, args.bianco_mano),
            value_is=POSITION_VALUE_IS, made_is=POSITION_MADE_IS,
            read_as={"dominant": R.FAMILY_CODES[dominant], "players": reading.n_seats,
                     "bianco_mano": bool(args.bianco_mano)})
    raise ValueError("--deals is a study: the toolkit's executor runs SOLVE.deals")


def _question(args):
    config = _config(args)
    return ddc.question(args, {"n_players": config.n_players,
                               "bianco_mano": config.bianco_mano})


def solve_deals(config: R.BiancoManoConfig, policies, seed: int, first: int, count: int):
    """Deals ``first .. first + count - 1`` of ``seed`` played by ``policies`` and the taken
    ones solved from their first card (a deal passed by everybody: not solved): the
    columns of :class:`~simulators.core.game.SolveDeals`."""
    from simulators.bianco_mano import solver
    from simulators.bianco_mano.engine import simulate_deals

    arrays, sums = ddc.play(simulate_deals, config, policies, seed, first, count)
    rows, pos, espion_points, bonus = solver.deal_positions(arrays, config.n_players)
    values = np.zeros(count, np.int64)
    made = np.zeros(count, bool)
    solved = np.zeros(count, bool)
    side_values, sums["solve_seconds"] = ddc.solve_rows(pos)
    values[rows] = side_values + espion_points
    made[rows] = solver.made(values[rows], bonus)
    solved[rows] = True
    return {"value": values, "made": made, "solved": solved,
            "taker": np.asarray(arrays.taker, np.int64),
            "dominant": np.asarray(arrays.dominant, np.int64),
            "bonus": np.asarray(arrays.bonus, bool),
            "played": np.asarray(arrays.side_points).astype(np.int64),
            "played_made": np.asarray(arrays.outcome) != R.FAILED}, sums


def deals_document(config: R.BiancoManoConfig, seed: int, count: int, columns, sums,
                   interval) -> dict:
    """The ``--deals`` document of every deal's columns (deal order) and the summed times."""
    from simulators.bianco_mano import solver

    solved, taker, played = columns["solved"], columns["taker"], columns["played"]
    all_pass = count - int(solved.sum())
    return ddc.deals_document(
        title=solver.RULES.title, n_deals=count, seed=seed, values=columns["value"],
        made=columns["made"], solved=solved, seconds=sums["solve_seconds"],
        warm_up_seconds=sums["warm_up_seconds"], value_is=DEALS_VALUE_IS,
        made_is=DEALS_MADE_IS, interval=interval, all_pass=all_pass,
        notes=[f"{all_pass} of {count} deal(s) passed by everybody: no play, value and "
               "made null, left out of the mean and the share"] if all_pass else [],
        players=config.n_players,
        takers=[int(t) if t >= 0 else None for t in taker],
        dominants=[R.FAMILY_CODES[int(d)] if t >= 0 else None
                   for d, t in zip(columns["dominant"], taker, strict=True)],
        bonus=[bool(b) if s else None for b, s in zip(columns["bonus"], solved, strict=True)],
        played=[int(p) if s else None for p, s in zip(played, solved, strict=True)],
        **({"played_mean": round(float(played[solved].mean()), 4),
            "played_made_rate": round(float(columns["played_made"][solved].mean()), 6)}
           if solved.any() else {}),
        simulate_seconds=round(sums["simulate_seconds"], 3), policy="heuristic",
        options={"n_players": config.n_players, "bianco_mano": config.bianco_mano})


text = ddc.text
SOLVE = Solve(question=BiancoManoSolveQuestion, run=run, text=text,
              doc="double-dummy values of the engine's deals or of one position (BM-8..BM-11)",
              deals=SolveDeals(question=_question, solve=solve_deals, document=deals_document,
                               units_per_chunk=ddc.CHUNK))
