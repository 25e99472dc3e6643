"""The spec a game fills in so the whole toolkit can play, test and report it.

A game lives in its own package ``simulators/<game>/`` and describes itself
with one :class:`Game` object, ``GAME``, in ``simulators/<game>/game.py``.
It is registered as a package entry point in ``pyproject.toml``::

    [project.entry-points."tapisvert.games"]
    bianco-mano = "simulators.bianco_mano.game:GAME"

(re-run ``pip install -e . --no-deps`` once after adding the line). From then
on the command line (``tapisvert simulate <game>``, ``compare``, ``sweep``,
``odds``, ``report``), the runner, the statistics and the conformance suite
(``tests/test_conformance.py``) find it through :func:`get_game` alone; no
module of ``analysis/`` names a game outside ``analysis/reports/``.

What a game provides
--------------------
``Game``
    name, title, rule-config dataclass, policy registry, units, headline
    metrics, conformance hooks, and optionally the "odds with this hand" hook.
``Unit``
    one thing the game can simulate independently: a deal, a round, a whole
    game… Each unit names the tables its ``play`` function returns, the id
    column those tables carry, how to turn them into per-seat scores, what
    that score means, and its metrics.
``Metric``
    a headline rate or mean declared as polars expressions over one table
    (*declared, not computed*: ``analysis`` evaluates them lazily over a
    whole run and attaches intervals).
``Conformance``
    what the shared conformance suite needs: example configs, a referee
    replay, card conservation, the game's own invariants on real tables,
    and bad inputs that must be refused.
``Odds``
    a question dataclass (its fields become ``tapisvert odds`` flags), a
    play function returning one row per simulated deal and decision, and
    metrics evaluated per decision.

The report
----------
A game's report is the module ``analysis.reports.<slug>`` (``slug`` is the
name with ``-`` replaced by ``_``, e.g. ``analysis/reports/bianco_mano.py``),
found by that convention; see ``analysis/reporting.py`` for what it
declares. It is the only place in ``analysis/`` that imports the game.

Contract of a ``play`` function
-------------------------------
``play(config, policies, first, count, seed) -> dict[str, pl.DataFrame]``
plays units ``first .. first + count - 1`` of ``seed`` with ``policies``
(one policy object for every seat, or a sequence of one per seat) and
returns every table named in ``Unit.tables``. Requirements, all checked by
the conformance suite:

* each table has the unit's ``id_column``; its rows are sorted by it (and
  by any within-unit column, e.g. ``deal_no``, ``seat``);
* unit ``i``'s rows depend only on ``(config, policies, seed, i)``: every
  random number comes from ``simulators.core.rng.draw_per_unit`` on the
  unit ids, never from the batch size, so any chunking gives identical
  tables;
* bad input (``count < 1``, ``first < 0``, the wrong number of policies, a
  policy lacking a decision method) raises ``ValueError`` naming it;
* an action the rules forbid raises ``simulators.core.dispatch.IllegalAction``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import numpy as np
import polars as pl

from simulators.core.params import Policy, policy_from_registry

ENTRY_POINT_GROUP = "tapisvert.games"

Tables = dict[str, pl.DataFrame]
PlayFunction = Callable[[Any, Any, int, int, int], Tables]
"""``play(config, policies, first, count, seed) -> {table name: DataFrame}``."""


@dataclass(frozen=True, eq=False)
class Metric:
    """A headline figure of one table, declared as polars expressions.

    ``kind="rate"``: the share of rows satisfying ``where`` for which the
    boolean expression ``value`` holds (Wilson interval); ``kind="mean"``:
    the mean of the numeric expression ``value`` over rows satisfying
    ``where`` (Student-t interval). ``where=None`` means every row.

    Parameters
    ----------
    name : identifier (``take_rate``), used in tables and ``--metric``.
    label : short human text (``"take rate"``).
    kind : ``"rate"`` or ``"mean"``.
    value : boolean event (rate) or numeric value (mean), e.g.
        ``pl.col("outcome") != "all_pass"``.
    where : the rows counted (the denominator), e.g. only taken deals.
    doc : one sentence for reports and ``--help`` (what exactly is counted).

    Examples
    --------
    >>> taken = pl.col("outcome") != "all_pass"
    >>> Metric("contract_success", "contract success", "rate",
    ...        pl.col("outcome").is_in(["made", "capo"]), where=taken)  # doctest: +SKIP
    """

    name: str
    label: str
    kind: Literal["rate", "mean"]
    value: pl.Expr
    where: pl.Expr | None = None
    doc: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("rate", "mean"):
            raise ValueError(f"Metric {self.name!r}: kind must be 'rate' or 'mean', "
                             f"got {self.kind!r}")


def rate(name: str, label: str, event: pl.Expr, where: pl.Expr | None = None,
         doc: str = "") -> Metric:
    """A rate metric: share of ``where`` rows where ``event`` holds."""
    return Metric(name, label, "rate", event, where, doc)


def mean(name: str, label: str, value: pl.Expr, where: pl.Expr | None = None,
         doc: str = "") -> Metric:
    """A mean metric: mean of ``value`` over ``where`` rows."""
    return Metric(name, label, "mean", value, where, doc)


@dataclass(frozen=True, eq=False)
class Unit:
    """One kind of independent sample a game can simulate (a deal, a round, a game).

    Parameters
    ----------
    name : plural noun, also the command-line flag: ``"deals"`` gives
        ``--deals N``.
    singular : ``"deal"`` (progress bars, "score per deal").
    tables : names of the tables ``play`` returns; each becomes a folder of
        Parquet parts in a run directory (default: ``(name,)``).
    id_column : the column numbering units in every table (default:
        ``f"{singular}_id"``, e.g. ``"deal_id"``).
    default_chunk : units per chunk in the runner (aim for ~1 s of work and
        a few tens of MB per chunk).
    play : see the module docstring.
    seat_scores : ``seat_scores(tables, config) -> ndarray (count, seats)``,
        one row per unit in id order, higher is better for the seat. This is
        what ``compare`` and ``sweep`` add up for the seats under study.
    score : what one score means, in words printed beside every figure
        (``"score change per deal, BM-10 points (zero-sum)"``).
    summary_table : the table the ``metrics`` read (default: the first of ``tables``).
    metrics : headline figures of ``summary_table`` (see :class:`Metric`).
    cluster : a column of ``summary_table`` grouping rows that are *not*
        independent (``"game_id"`` when the summary rows are the deals of
        whole games); ``None`` when every row is its own unit.
    policy_methods : decision methods every policy for this unit must have
        (checked once when the experiment is built).
    seats : number of seats for a config (``None``: the game's ``players``).
    default_size : the command line's default number of units.
    doc : one line for ``--help``.
    ignores : rule options this unit does not read (Five Crowns rounds
        ignore ``first_round``); the command line refuses them rather than
        accept an option that changes nothing.
    """

    name: str
    singular: str
    default_chunk: int
    play: PlayFunction
    seat_scores: Callable[[Tables, Any], np.ndarray]
    score: str
    tables: tuple[str, ...] = ()
    id_column: str = ""
    summary_table: str = ""
    metrics: tuple[Metric, ...] = ()
    cluster: str | None = None
    policy_methods: tuple[str, ...] = ()
    seats: Callable[[Any], int] | None = None
    default_size: int = 100_000
    doc: str = ""
    ignores: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # the house conventions, unless the unit says otherwise (frozen: set once, here)
        object.__setattr__(self, "tables", tuple(self.tables) or (self.name,))
        object.__setattr__(self, "id_column", self.id_column or f"{self.singular}_id")
        object.__setattr__(self, "summary_table", self.summary_table or self.tables[0])
        if self.summary_table not in self.tables:
            raise ValueError(f"Unit {self.name!r}: summary_table {self.summary_table!r} is not "
                             f"one of its tables {self.tables}")
        if self.default_chunk < 1 or self.default_size < 1:
            raise ValueError(f"Unit {self.name!r}: default_chunk and default_size must be >= 1")


@dataclass(frozen=True, eq=False)
class Conformance:
    """What ``simulators.core.conformance`` needs to check a game.

    Parameters
    ----------
    configs : a few rule configs covering the player counts and the options
        that change play (each is played and replayed by the suite).
    replay : ``replay(unit_name, config, policies, first, count, seed) -> int``
        plays units with the engine and replays every one through the
        independent referee from its record (deck order + decisions); raises
        ``AssertionError`` naming the unit and the difference on the first
        disagreement; returns the number of units (or deals) checked. Units
        without a referee may be skipped (return 0) — say so in ``doc``.
    conservation : ``conservation(config, policies, first, count, seed)``
        plays units of the game's first unit and asserts that every card of
        the deck is accounted for exactly once (hands, tricks, piles…).
    invariants : ``invariants(unit_name, config, tables)`` asserts the game's
        own laws on real tables: point totals, zero-sum scores, value
        ranges… (``AssertionError`` with a message).
    bad_options : rule options the config must refuse with ``ValueError``,
        e.g. ``({"n_players": 2}, "n_players")``: (options, text the message
        must contain).
    doc : anything the suite should know (units without a referee…).
    slow_policies : registered policies the default suite leaves out because
        building one takes minutes (e.g. a solved equilibrium); the slow suite
        (``pytest -m slow``) replays and conserves them too.
    """

    configs: tuple[Any, ...]
    replay: Callable[..., int]
    conservation: Callable[..., None]
    invariants: Callable[[str, Any, Tables], None]
    bad_options: tuple[tuple[Mapping[str, Any], str], ...] = ()
    doc: str = ""
    slow_policies: tuple[str, ...] = ()


@dataclass(frozen=True)
class CardArgument:
    """A card argument's notation: ``read(text)`` its value (``ValueError`` with one line
    when the text is not exactly cards of the game), ``write(value)`` its canonical text.

    The contract every game keeps (docs/cards.md): cards are separated by spaces
    or commas, letters in either case; ``read(write(v)) == v``; every token is
    one card or the text is refused, so nothing is dropped or merged silently.
    """

    read: Callable[[str], Any]
    write: Callable[[Any], str]
    example: str = ""


@dataclass(frozen=True, eq=False)
class Odds:
    """"What are my odds with this hand?" for one game.

    Parameters
    ----------
    question : a frozen dataclass whose fields describe the situation (the
        hand, the position…); every field becomes a ``tapisvert odds`` flag
        of the field's type, required when it has no default. Document each
        field with ``field(metadata={"doc": ...})``.
    play : ``play(config, policies, question, count, seed) -> pl.DataFrame``:
        one row per simulated deal and decision, with a string column
        ``decision`` (e.g. ``"take"``, ``"pass"``) and an integer ``deal_id``
        (the same deal under every decision; null on a row that stands for
        no deal); raises ``ValueError`` for an impossible situation.
    metrics : ``(decision, Metric)`` pairs evaluated on the rows of each
        decision; or ``metrics(config, question) -> pairs`` where the
        decisions depend on the question (which cards to throw).
    describe : ``describe(config, question) -> str``, the heading line.
    reference : the decision every other is paired against, on the same
        deals (rows with equal ``deal_id``), for each metric both declare
        (default: the first decision of ``metrics``); or
        ``reference(question) -> decision`` where it depends on the question.
    exact : ``exact(config, question) -> list[dict]``, figures computed
        exactly rather than simulated, as rows of the odds table (``decision,
        metric, value, low, high, n``) shown beside the simulated ones; None
        where the game has none.
    cards : the question's card arguments, ``{field: CardArgument}``: how each
        is read and written back in canonical notation, so the command echoes
        what it understood (the one card-notation contract, docs/cards.md).
    units_per_chunk : ``units_per_chunk(question) -> int | None``: deals per chunk
        of a question whose play is costly (a strong player at every seat), so
        the progress bar moves every few seconds; None: the unit's default.
    verdict : ``verdict(config, question, table) -> str``, one line read from the
        finished odds table (which decision is best, by how much); None where the
        game has none.
    """

    question: type
    play: Callable[..., pl.DataFrame]
    metrics: tuple[tuple[str, Metric], ...] | Callable[[Any, Any], tuple[tuple[str, Metric], ...]]
    describe: Callable[[Any, Any], str]
    reference: str | None | Callable[[Any], str | None] = None
    exact: Callable[[Any, Any], list[dict]] | None = None
    cards: Mapping[str, CardArgument] = field(default_factory=dict)
    units_per_chunk: Callable[[Any], int | None] | None = None
    verdict: Callable[[Any, Any, pl.DataFrame], str] | None = None

    def reference_for(self, question) -> str | None:
        """The decision the others are paired against for ``question``."""
        return self.reference(question) if callable(self.reference) else self.reference

    def understood(self, question) -> dict[str, str]:
        """Each card argument of ``question`` read and written back in canonical notation
        (``ValueError`` naming the argument when one cannot be read)."""
        out = {}
        for name, argument in self.cards.items():
            raw = getattr(question, name)
            if raw is None:
                continue
            try:
                out[name] = argument.write(argument.read(raw))
            except ValueError as error:
                raise ValueError(f"{name.replace('_', '-')}: {error}") from None
        return out

    def metrics_for(self, config, question) -> tuple[tuple[str, Metric], ...]:
        """The (decision, metric) pairs of one question."""
        return tuple(self.metrics(config, question) if callable(self.metrics) else self.metrics)


@dataclass(frozen=True)
class SolveDealsRun:
    """A ``solve GAME --deals`` question: the engine's deals ``0 .. count - 1`` of ``seed``,
    played under ``options`` (the game's rule options) by the registered ``policy``."""

    options: dict[str, Any]
    count: int
    seed: int
    policy: str = "heuristic"


@dataclass(frozen=True, eq=False)
class SolveDeals:
    """The ``--deals`` half of an exact solver: a pure function of (config, seed, deal ids)
    that the toolkit's executor maps over chunks of deals (any number of workers, a Dask
    cluster, a run directory resumed after a kill), and the document of every deal.

    ``question(q)`` is the run the solve question ``q`` asks for, or None when it asks
    another mode (one position). ``solve(config, policies, seed, first, count)`` plays deals
    ``first .. first + count - 1`` of ``seed`` (deal ``i`` is the same deal whatever the
    chunk) and solves them: ``(columns, sums)``, ``columns`` one 1-D array per name with a
    row per deal (``value``, ``made``, ``solved`` and the game's own), ``sums`` additive
    numbers (the seconds taken: ``solve_seconds``, ``simulate_seconds``,
    ``warm_up_seconds``). ``document(config, seed, count, columns, sums, interval)`` is the
    JSON document of every deal's columns in deal order and the sums over every chunk;
    ``interval(k, n)`` is the (low, high) 95% interval of a share of ``k`` in ``n``.
    ``units_per_chunk``: deals per chunk unless the command says otherwise.
    """

    question: Callable[[Any], SolveDealsRun | None]
    solve: Callable[[Any, Any, int, int, int], tuple[dict[str, np.ndarray], dict[str, float]]]
    document: Callable[..., dict]
    units_per_chunk: int = 250


@dataclass(frozen=True)
class SolveTableRun:
    """A ``solve`` question answered by a table solved in waves: ``settings``, the plain
    values that shape the table (recorded in the run directory: a resume must ask the
    same)."""

    settings: dict[str, Any]


@dataclass(frozen=True, eq=False)
class SolveTable:
    """A table solved in waves, each wave's entries reading only earlier waves' (Truc's
    equity table: scores never go down, so a line of scores reads only the lines above it).
    The toolkit's executor maps each wave's units over its workers (a Dask cluster, a run
    directory resumed after a kill), one unit per chunk.

    ``question(q)`` is the run the question asks for, or None when it asks another mode.
    ``waves(settings)`` lists each wave's units in order (a unit is plain JSON: lists of
    ints). ``solve(settings, unit, known)`` is a unit's entries ``{key: number}``, a pure
    function of ``known``, the entries of the earlier waves. ``document(settings, entries,
    run)`` is the table's JSON document; ``run`` holds ``seconds`` (wall) and ``n_jobs``.
    ``unit_names``: what a unit is called, plural and singular.
    """

    question: Callable[[Any], SolveTableRun | None]
    waves: Callable[[dict[str, Any]], list[list[Any]]]
    solve: Callable[[dict[str, Any], Any, dict[str, float]], dict[str, float]]
    document: Callable[[dict[str, Any], dict[str, float], dict[str, Any]], dict]
    unit_names: tuple[str, str] = ("units", "unit")


@dataclass(frozen=True, eq=False)
class Solve:
    """A game's exact solver, behind ``tapisvert solve GAME`` (double-dummy, Truc's CFR+).

    ``question`` is a frozen dataclass, the question as data: each field is a flag of the
    command (``metadata["doc"]`` its help, ``metadata["metavar"]`` and ``metadata["read"]``,
    a reader of the command line's text, optional; a bool field is a switch, ``--name``, or
    ``--no-name`` when it defaults to True), and ``__post_init__`` refuses bad input with a
    ``ValueError`` naming the flag, before any work. A Python caller builds it by keyword.
    ``run(question, log)`` returns the JSON document of a question that is not a study
    (``log`` takes progress lines); ``deals`` and ``table``, when given, are the studies
    the toolkit's executor runs instead when their ``question(q)`` names one (``--json``
    and the executor's flags are the command line's); ``text(document)`` renders any
    document for people.
    """

    question: type
    run: Callable[[Any, Callable[[str], None]], dict]
    text: Callable[[dict], str]
    doc: str = ""
    deals: SolveDeals | None = None
    table: SolveTable | None = None


@dataclass(frozen=True, eq=False)
class Game:
    """Everything the toolkit knows about one game.

    Parameters
    ----------
    name : command-line name, lowercase with hyphens (``"bianco-mano"``).
    title : display name (``"Bianco Mano"``).
    config : the rule-config class: a frozen dataclass whose fields are the
        rule options (each with a default, validated in ``__post_init__``
        with a ``ValueError`` naming the option); ``--option NAME=VALUE``
        values are typed from these fields.
    policies : registry ``name -> Policy subclass`` (``simulators.core.params``).
    units : what can be simulated; the first is the default.
    conformance : hooks of the conformance suite.
    players : number of seats of a config (default ``config.n_players``).
    default_policy : the policy used when none is given.
    random_policy : the registry name of random legal play (conformance).
    odds : the odds hook, or ``None`` if the game has no odds command yet.
    solve : the exact solver hook (``tapisvert solve``), or ``None``.
    learn : the learned players (:class:`simulators.core.learn.spec.LearnSpec`: ``tapisvert
        learn``, the ``net`` policy), or ``None``.
    steps : ``config -> StepGame`` (:mod:`simulators.core.steps`): the game one move at a
        time, for the PettingZoo and OpenSpiel environments, or ``None``. It may take
        keyword options beyond the config (``steps(config, **extra)``, e.g. a reduced
        deck), each with a default and echoed in ``info.parameters``; build it with
        :func:`simulators.core.steps.make_step_game`.
    rules_doc : path of the project's rule text, cited in error messages.
    partnerships : ``config -> ((0, 2), (1, 3))``: the fixed partnerships of a config,
        seats that share one score, each with its ruling in the game; ``()`` (or None) when
        every seat plays for itself or the sides change from deal to deal. The seats under
        study in ``compare``, ``sweep`` and ``tune`` must lie in one partnership: summed
        across two, a zero-sum score is the same for every policy.
    """

    name: str
    title: str
    config: type
    policies: Mapping[str, type[Policy]]
    units: tuple[Unit, ...]
    conformance: Conformance
    players: Callable[[Any], int] = field(default=lambda config: config.n_players)
    default_policy: str = "heuristic"
    random_policy: str = "random"
    odds: Odds | None = None
    solve: Solve | None = None
    learn: Any = None
    steps: Callable[[Any], Any] | None = None
    rules_doc: str = ""
    partnerships: Callable[[Any], tuple[tuple[int, ...], ...]] | None = None

    def __post_init__(self) -> None:
        if not self.units:
            raise ValueError(f"Game {self.name!r} declares no unit")
        names = [u.name for u in self.units]
        if len(set(names)) != len(names):
            raise ValueError(f"Game {self.name!r}: unit names must be distinct, got {names}")
        if not dataclasses.is_dataclass(self.config):
            raise ValueError(f"Game {self.name!r}: config must be a dataclass")
        for policy in (self.default_policy, self.random_policy):
            if policy not in self.policies:
                raise ValueError(f"Game {self.name!r}: policy {policy!r} is not registered")

    def __reduce__(self):
        # Travel to worker processes by name: the worker loads its own copy.
        return get_game, (self.name,)

    @property
    def slug(self) -> str:
        """The name as a module name: ``bianco_mano`` (report module, docs, tests)."""
        return self.name.replace("-", "_")

    def unit(self, name: str) -> Unit:
        """A unit by name, or a ValueError listing the units."""
        for unit in self.units:
            if unit.name == name:
                return unit
        raise ValueError(f"unit must be one of {', '.join(u.name for u in self.units)} for "
                         f"{self.name}, got {name!r}")

    def make_config(self, **options: Any):
        """The validated rule config; an unknown option is named with the known ones."""
        known = [f.name for f in dataclasses.fields(self.config)]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ValueError(f"unknown rule option(s) for {self.name}: {', '.join(unknown)} "
                             f"(options: {', '.join(known)})")
        return self.config(**options)

    def make_policy(self, name: str, **params: Any) -> Policy:
        """A registered policy by name with validated parameters."""
        return policy_from_registry(dict(self.policies), self.title, name, **params)

    def seats(self, unit: Unit, config: Any) -> int:
        """Number of seats a unit is played with."""
        return unit.seats(config) if unit.seats is not None else self.players(config)

    def teams(self, config: Any) -> tuple[tuple[int, ...], ...]:
        """The fixed partnerships of a config (see ``partnerships``), ``()`` for none."""
        return tuple(self.partnerships(config)) if self.partnerships is not None else ()


# ------------------------------------------------------------------ registry


@cache
def registered_names() -> tuple[str, ...]:
    """Names of the registered games, sorted, without importing any game."""
    from importlib.metadata import entry_points

    return tuple(sorted({point.name for point in entry_points(group=ENTRY_POINT_GROUP)}))


@cache
def _load(name: str) -> Game:
    """Import one game's entry point (and only that game's packages)."""
    from importlib.metadata import entry_points

    point = next(p for p in entry_points(group=ENTRY_POINT_GROUP) if p.name == name)
    game = point.load()
    if not isinstance(game, Game):
        raise TypeError(f"entry point {point.name!r} = {point.value!r} is not a Game")
    if game.name != point.name:
        raise ValueError(f"entry point {point.name!r} loads a Game named {game.name!r}")
    return game


def games() -> dict[str, Game]:
    """Every registered game by name (entry point group ``tapisvert.games``), sorted."""
    return {name: _load(name) for name in registered_names()}


def game_names() -> tuple[str, ...]:
    """Names of the registered games, sorted (no game is imported)."""
    return registered_names()


def get_game(name: str | Game) -> Game:
    """A registered game by name (a Game is returned as is); imports that game only."""
    if isinstance(name, Game):
        return name
    if name not in registered_names():
        raise ValueError(f"unknown game {name!r} (known: "
                         f"{', '.join(registered_names()) or 'none'}; a new game needs an "
                         f"entry point in group {ENTRY_POINT_GROUP!r})")
    return _load(name)


def make_policy_attribute(module: str, game_module: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``make_policy`` as the game's :meth:`Game.make_policy`.

    A game's ``policies.py`` cannot import its ``game.py`` (which imports the
    registry from it), so it declares ``__getattr__ = make_policy_attribute(
    __name__, "simulators.<game>.game")``: ``from simulators.<game>.policies
    import make_policy`` then gives the one implementation, looked up on use.
    """
    def __getattr__(name: str) -> Any:
        if name == "make_policy":
            from importlib import import_module

            return import_module(game_module).GAME.make_policy
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def referee_replay(engine_module: str, crosscheck_module: str) -> Callable[..., int]:
    """A :class:`Conformance` ``replay`` for a game whose units are ``deals`` and ``games``.

    ``simulate_deals`` / ``simulate_games`` of ``engine_module`` play the units and
    ``check_deals`` / ``check_games`` of ``crosscheck_module`` replay every deal through the
    referee; it returns the deals checked. Both modules are imported on use, like the game's
    other hooks' engine imports, so that importing a ``game.py`` stays cheap.
    """
    def replay(unit: str, config, policies, first: int, count: int, seed: int) -> int:
        """Engine units replayed by the referee, move by move; returns the deals checked."""
        from importlib import import_module

        engine, crosscheck = import_module(engine_module), import_module(crosscheck_module)
        if unit == "deals":
            return crosscheck.check_deals(
                engine.simulate_deals(config, policies, count, seed, first_deal=first))
        return crosscheck.check_games(
            engine.simulate_games(config, policies, count, seed, first_game=first))

    return replay
