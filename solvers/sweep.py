"""Sweeps: a base scenario evaluated over the product (or zip) of axes of
parameter values, in chunks, so that any number of points streams out in
bounded memory. Chunks may be spread over worker processes.

The faces (the CLI) write the rows; this module yields them in point order.
"""

import dataclasses
import math
import signal
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from models.scenario import parse_scenario
from solvers.dask_client import EngineUnavailable, connect
from solvers.evaluate import (evaluate_documents, evaluate_grid,
                              grid_point_documents, points_to_columns)
from solvers.grid import (axis_values, paused_gc, product_indices,
                          validate_values)
from solvers.results import Progress

#: Points evaluated together: large enough to amortise the per-call cost
#: of the vectorised chain, small enough to keep memory flat.
CHUNK_POINTS = 16_384

#: Most points a sweep may have: 1e8 points take hours on a desktop (about
#: 30k points/s per core on the column path); a larger grid is a typo or
#: needs a cluster and a narrower question, and is refused before any
#: work with its count.
MAX_POINTS = 100_000_000


@dataclass(frozen=True)
class SweepPlan:
    """Which points a sweep has.

    Attributes
    ----------
    name : str
    mode : str
        ``product`` (every combination) or ``zip`` (the i-th value of every
        axis together).
    paths : tuple of str
    values : tuple of list
        The values of each axis.
    total : int
        Number of points.
    converters : list
        The validated axis values (:func:`solvers.grid.validate_values`),
        computed once for every chunk.
    """

    name: str
    mode: str
    paths: tuple
    values: tuple
    total: int
    converters: list

    def point(self, index):
        """The values of point ``index``: the last axis varies fastest."""
        return tuple(values[i[0]] for values, i in zip(
            self.values, self.indices(index, index + 1)))

    def indices(self, start, stop):
        """Per axis, the index into its values of points ``start`` to
        ``stop`` (numpy arrays): the last axis varies fastest."""
        if self.mode == "zip":
            return tuple(np.arange(start, stop) for _ in self.values)
        return product_indices([len(v) for v in self.values], start, stop)


def plan(scenario, name=None):
    """The plan of a scenario's sweep (the first one unless named).

    Raises
    ------
    ValueError
        No sweep, an unknown name, zipped axes of unequal length, or a
        value or path the scenario does not accept (named).
    """
    if not scenario.sweeps:
        raise ValueError("sweeps: the scenario defines no sweep (add a "
                         "[[sweeps]] table with axes)")
    names = [s.name for s in scenario.sweeps]
    if name is None:
        sweep = scenario.sweeps[0]
    elif name in names:
        sweep = scenario.sweeps[names.index(name)]
    else:
        raise ValueError(f"--sweep: no sweep named {name!r} (the scenario "
                         f"has {', '.join(map(repr, names))})")
    index = scenario.sweeps.index(sweep)
    values = tuple(axis_values(a) for a in sweep.axes)
    paths = tuple(a.path for a in sweep.axes)
    if len(set(paths)) < len(paths):
        raise ValueError(f"sweeps[{index}].axes: a path appears twice")
    if sweep.mode == "zip":
        lengths = {len(v) for v in values}
        if len(lengths) > 1:
            raise ValueError(f"sweeps[{index}] ({sweep.name!r}): zipped "
                             "axes need equal lengths, got "
                             f"{[len(v) for v in values]}")
        total = len(values[0])
    else:
        total = math.prod(len(v) for v in values)
    if total > MAX_POINTS:
        raise ValueError(f"sweeps[{index}] ({sweep.name!r}): {total:,} "
                         f"points ({' x '.join(f'{len(v):,}' for v in values)})"
                         f" is more than the {MAX_POINTS:,} a sweep may have")
    base = _base(scenario)
    try:
        # distinct values by repr, the key of the converters: lists and
        # tables are values too, and are not hashable
        converters = validate_values(base, paths, [
            sorted({repr(x): x for x in v}.values(), key=repr)
            for v in values])
    except ValueError as err:
        raise ValueError(f"sweeps[{index}] ({sweep.name!r}): {err}") \
            from None
    return SweepPlan(sweep.name, sweep.mode, paths, values, total,
                     converters)


def _base(scenario):
    return scenario.model_copy(update={"variants": [], "sweeps": []})


def run(scenario, sweep_plan, *, chunk_points=CHUNK_POINTS, processes=1,
        callback=None, format_chunk=None, scheduler=None):
    """Evaluate every point, chunk by chunk, in order.

    Parameters
    ----------
    scenario : Scenario
    sweep_plan : SweepPlan
    chunk_points : int
    processes : int
        Worker processes; 1 evaluates in this process.
    callback : callable, optional
        ``callback(progress) -> bool`` after every chunk with a
        :class:`solvers.results.Progress`; returning True ends the sweep
        after that chunk (closing the generator does the same).
    format_chunk : callable, optional
        ``format_chunk(chunk)``, a picklable function of plain data: run
        where the chunk is evaluated (in the worker), what it returns
        (the chunk's text, or the name of the part file the face wrote)
        is the chunk's ``text``, so that the output is formatted and
        written on every core and the caller only orders it.

    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``): the chunks run
        on its cluster's workers instead of local processes, each a pure
        function of plain data (:func:`evaluate_chunk`); ``processes``
        then only bounds the chunks in flight per worker thread. Dask is
        imported only then.

    Yields
    ------
    Chunk
        Consecutive points with their metric values (units:
        :func:`solvers.metric_ids.info`).

    Raises
    ------
    EngineUnavailable
        The scheduler does not answer.
    """
    chunks = _dask_chunks if scheduler is not None else _chunks
    for chunk in chunks(scenario, sweep_plan, chunk_points,
                        scheduler if scheduler is not None else processes,
                        format_chunk):
        yield chunk
        done = chunk.start + len(chunk)
        if callback is not None and callback(Progress(done,
                                                      sweep_plan.total)):
            return


def _chunks(scenario, sweep_plan, chunk_points, processes, format_chunk):
    starts = range(0, sweep_plan.total, chunk_points)
    chunks = ((start, min(start + chunk_points, sweep_plan.total))
              for start in starts)
    if processes <= 1:
        base = _base(scenario)
        for start, stop in chunks:
            yield _formatted(_evaluate_chunk(base, sweep_plan, start, stop),
                             format_chunk)
        return
    text = _base(scenario).model_dump_json()
    pool = ProcessPoolExecutor(processes, initializer=_init_worker,
                               initargs=(text, sweep_plan, format_chunk))
    try:
        # a few chunks in flight, yielded in point order: bounded memory
        pending = deque()
        for bounds in chunks:
            pending.append(pool.submit(_worker_chunk, bounds))
            if len(pending) >= 2 * processes:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True)
class Chunk:
    """Consecutive points of a sweep as columns, compact enough to pass
    between processes cheaply.

    Attributes
    ----------
    start : int
        Index of the first point.
    indices : tuple of numpy.ndarray
        Per axis, the index into the plan's values of each point's value
        (:meth:`SweepPlan.indices`).
    metric_ids : tuple of str
        The metrics any point of the chunk has.
    columns : tuple of numpy.ndarray
        Per metric, its value at each point; NaN where a point has none.
    text : object
        What ``run``'s ``format_chunk`` returned for the chunk (None
        without one).
    """

    start: int
    indices: tuple
    metric_ids: tuple
    columns: tuple
    text: object = None

    def __len__(self):
        return len(self.indices[0])

    def values(self, index):
        """``{metric id: value}`` of the chunk's point ``index``."""
        return {k: float(c[index]) for k, c in zip(self.metric_ids,
                                                   self.columns)
                if not np.isnan(c[index])}


def _evaluate_chunk(base, sweep_plan, start, stop):
    indices = sweep_plan.indices(start, stop)
    with paused_gc():
        numbers = evaluate_grid(base, sweep_plan.paths, sweep_plan.values,
                                sweep_plan.converters, indices)
    return _chunk(sweep_plan, start, indices, numbers)


def _chunk(sweep_plan, start, indices, numbers):
    """The :class:`Chunk` of points ``start`` on with ``indices`` and
    their ``numbers``; ValueError at a metric a model left infinite."""
    for metric, column in numbers.items():
        # NaN marks a metric a point does not have; an infinity is a
        # model's failure
        bad = np.flatnonzero(np.isinf(column))
        if bad.size:
            point = start + int(bad[0])
            where = dict(zip(sweep_plan.paths, sweep_plan.point(point)))
            raise ValueError(f"point {point} {where}: metric {metric} is "
                             "not finite")
    return Chunk(start, indices, tuple(numbers), tuple(numbers.values()))


_WORKER = {}


def _formatted(chunk, format_chunk):
    if format_chunk is None:
        return chunk
    return dataclasses.replace(chunk, text=format_chunk(chunk))


def _ignore_ctrl_c():
    # Ctrl-C is the parent's to handle: it stops handing out chunks and
    # closes the output cleanly; SIGTERM ends a worker outright (a forked
    # one inherits the CLI's handler, which is for the parent alone)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _init_worker(text, sweep_plan, format_chunk):
    _ignore_ctrl_c()
    _WORKER["base"] = parse_scenario(text, "json")
    _WORKER["plan"] = sweep_plan
    _WORKER["format"] = format_chunk


def _init_fleet_worker(jobs):
    # forked workers inherit the parent's documents as they are, with no
    # copy through a pipe nor validation again (about 0.5 ms a document)
    _ignore_ctrl_c()
    _WORKER["fleet"] = jobs


def evaluate_chunk(text, sweep_plan, format_chunk, start, stop):
    """Points ``start`` to ``stop`` of a sweep of the scenario whose base
    (without variants or sweeps) is the JSON ``text``, formatted by
    ``format_chunk``: a pure function of plain data, what a Dask worker
    runs. The parsed base is kept per process, by its text."""
    base = _BASES.get(text)
    if base is None:
        _BASES.clear()   # one sweep at a time per process
        base = _BASES[text] = parse_scenario(text, "json")
    return _formatted(_evaluate_chunk(base, sweep_plan, start, stop),
                      format_chunk)


_BASES = {}


def _dask_chunks(scenario, sweep_plan, chunk_points, scheduler,
                 format_chunk):
    client = _dask_client(scheduler)
    pending = deque()
    try:
        text = _base(scenario).model_dump_json()
        threads = max(1, sum(client.nthreads().values()))
        for start in range(0, sweep_plan.total, chunk_points):
            stop = min(start + chunk_points, sweep_plan.total)
            # pure=False: a chunk writes its own part where it runs
            pending.append(client.submit(
                evaluate_chunk, text, sweep_plan, format_chunk, start, stop,
                pure=False))
            if len(pending) >= 2 * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
        client.close()


def _dask_client(scheduler):
    """A client of the Dask scheduler at ``scheduler`` (Dask imported only
    here); EngineUnavailable, in bounded time, when it cannot be used."""
    return connect(scheduler)


def _worker_chunk(bounds):
    return _formatted(_evaluate_chunk(_WORKER["base"], _WORKER["plan"],
                                      *bounds), _WORKER["format"])


def default_processes(total, cores):
    """Worker processes for a sweep of ``total`` points on a machine with
    ``cores`` cores: one below :data:`PARALLEL_FROM_POINTS`, where spawning
    does not pay, else one per core (at most 8)."""
    if total < PARALLEL_FROM_POINTS:
        return 1
    return max(1, min(cores or 1, 8))


#: Below this many points a second process does not pay for its start-up
#: (each worker imports numpy, scipy and pydantic and parses the scenario,
#: about 0.3 s). Measured on 2 cores with the built-in example, wall time
#: including start-up, 1 vs 2 processes: 1,008 points 0.84 / 0.87 s;
#: 5,040 points 1.41 / 1.21 s; 20,160 points 3.73 / 2.63 s; 100,040
#: points 12.2 / 6.3 s.
PARALLEL_FROM_POINTS = 5_000


# Fleets: the sweeps of many documents (every variant of many scenario
# files) in one run. Each document's points are cut into chunks as its own
# sweep's are, so that every chunk is evaluated exactly as that sweep
# alone evaluates it; chunks of consecutive documents are packed into
# tasks of up to CHUNK_POINTS points, each a pure function of plain data
# run wherever the engine runs it, which formats (and writes) its rows.

#: Most documents in one fleet task: a document costs about 1 ms to parse
#: and a few to evaluate even with a handful of points, so a fleet of
#: small sweeps is spread over this many tasks per 200 documents.
FLEET_TASK_DOCUMENTS = 200


@dataclass(frozen=True)
class FleetJob:
    """One document of a fleet and its sweep.

    Attributes
    ----------
    base : Scenario
        The document (its variants and sweeps are not evaluated).
    plan : SweepPlan
        Planned on ``base``.
    label : object
        Plain data the face needs to write the document's rows (its
        scenario and variant names), handed to ``format_task`` with them.
    """

    base: object
    plan: SweepPlan
    label: object


@dataclass(frozen=True)
class FleetPiece:
    """Points ``start`` to ``stop`` of one fleet document: ``base`` is the
    document's index among the jobs the process holds, or its JSON text
    on a Dask cluster (:func:`_fleet_engine`); ``key`` names
    the list of metrics its columns follow (see :func:`run_fleet`)."""

    base: object
    plan: SweepPlan
    label: object
    start: int
    stop: int
    key: object


@dataclass(frozen=True)
class FleetResult:
    """What a fleet task returns.

    Attributes
    ----------
    first_row : int
        Rows of the fleet's output before this task's.
    rows : int
    columns : dict
        Key -> the metric ids of the lists this task defined (the first
        chunk of a key's documents).
    dropped : tuple of (key, tuple of str)
        Metrics a chunk had beyond its key's list, left out, in order.
    text : object
        What ``format_task`` returned (the pieces as
        ``(label, plan, chunk)`` without one).
    """

    first_row: int
    rows: int
    columns: dict
    dropped: tuple
    text: object


def fleet_tasks(jobs, chunk_points=CHUNK_POINTS):
    """The tasks of a fleet: per task, its first row and its
    ``(job index, start, stop)`` chunks, in output order. A document's
    chunks start at multiples of ``chunk_points`` of its own points, as
    :func:`run` cuts them; a task holds whole chunks, at most
    ``chunk_points`` points (a chunk alone may fill it) and
    :data:`FLEET_TASK_DOCUMENTS` chunks."""
    tasks, bounds, points, first_row = [], [], 0, 0
    for index, job in enumerate(jobs):
        for start in range(0, job.plan.total, chunk_points):
            stop = min(start + chunk_points, job.plan.total)
            if bounds and (points + stop - start > chunk_points
                           or len(bounds) >= FLEET_TASK_DOCUMENTS):
                tasks.append((first_row, bounds))
                first_row += points
                bounds, points = [], 0
            bounds.append((index, start, stop))
            points += stop - start
    if bounds:
        tasks.append((first_row, bounds))
    return tasks


def run_fleet(jobs, *, format_task=None, shared_columns=True,
              chunk_points=CHUNK_POINTS, processes=1, scheduler=None):
    """Evaluate every point of every job, task by task, in output order.

    Parameters
    ----------
    jobs : sequence of FleetJob
    format_task : callable, optional
        ``format_task(first_row, pieces)`` with ``pieces`` a list of
        ``(label, plan, chunk)``: a picklable function of plain data, run
        where the task is evaluated; what it returns is the result's
        ``text``.
    shared_columns : bool
        Every chunk's columns follow the metrics of the fleet's first
        chunk (one header, one schema); else those of its own document's
        first chunk. A metric missing from a chunk is NaN, one beyond the
        list is left out (named in the result's ``dropped``).
    chunk_points, processes, scheduler
        As for :func:`run`: one process evaluates in this one.

    Yields
    ------
    FleetResult

    Raises
    ------
    EngineUnavailable
        The scheduler does not answer.
    """
    def key_of(index):
        return None if shared_columns else index

    def defines(index, start):
        return start == 0 and (index == 0 or not shared_columns)

    submit, window, close = _fleet_engine(processes, scheduler, jobs)
    known, pending, text = {}, deque(), (None, None)
    try:
        for first_row, bounds in fleet_tasks(jobs, chunk_points):
            here = set()
            for index, start, _ in bounds:
                key = key_of(index)
                if defines(index, start):
                    here.add(key)
                while key not in known and key not in here and pending:
                    # its list comes from a task still running
                    result = pending.popleft().result()
                    known.update(result.columns)
                    yield result
            pieces = []
            for index, start, stop in bounds:
                job = jobs[index]
                if scheduler is None:   # the worker has the jobs
                    base = index
                else:   # plain data, dumped once per document
                    if text[0] != index:
                        text = (index, _base(job.base).model_dump_json())
                    base = text[1]
                pieces.append(FleetPiece(base, job.plan, job.label, start,
                                         stop, key_of(index)))
            lists = {key: known[key] for key in {p.key for p in pieces}
                     if key in known}
            pending.append(submit(evaluate_fleet_task, pieces, lists,
                                  format_task, first_row))
            while len(pending) >= window:
                result = pending.popleft().result()
                known.update(result.columns)
                yield result
        while pending:
            yield pending.popleft().result()
    finally:
        close(pending)


def evaluate_fleet_task(pieces, lists, format_task, first_row):
    """Evaluate and format one fleet task: what a worker runs, a pure
    function of plain data on Dask (pieces carry their documents' text),
    of the jobs the process holds otherwise (pieces name them by index).

    Parameters
    ----------
    pieces : list of FleetPiece
    lists : dict
        Key -> metric ids, for the keys this task does not define.
    format_task : callable or None
    first_row : int

    Returns
    -------
    FleetResult
    """
    lists, defined, dropped, done = dict(lists), {}, [], []
    for piece, chunk in zip(pieces, _evaluate_pieces(pieces)):
        metrics = lists.get(piece.key)
        if metrics is None:
            metrics = lists[piece.key] = defined[piece.key] = \
                chunk.metric_ids
        extra = tuple(m for m in chunk.metric_ids if m not in metrics)
        if extra:
            dropped.append((piece.key, extra))
        if chunk.metric_ids != metrics:
            where = dict(zip(chunk.metric_ids, chunk.columns))
            missing = np.full(len(chunk), np.nan)
            chunk = dataclasses.replace(
                chunk, metric_ids=metrics,
                columns=tuple(where.get(m, missing) for m in metrics))
        done.append((piece.label, piece.plan, chunk))
    return FleetResult(first_row, sum(len(c) for _, _, c in done), defined,
                       tuple(dropped), done if format_task is None
                       else format_task(first_row, done))


def _evaluate_pieces(pieces):
    """The :class:`Chunk` of each piece, as :func:`_evaluate_chunk` gives
    it, in order. The pieces whose points are documents of their own
    (small sweeps: :func:`solvers.evaluate.grid_point_documents`) are
    evaluated together, in one call: an analysis costs about as much for
    one document as for hundreds."""
    parsed, grids, documents = {}, [], []
    with paused_gc():
        for piece in pieces:
            base = piece.base
            if isinstance(base, int):
                base = _base(_WORKER["fleet"][base].base)
            else:
                if base not in parsed:
                    parsed[base] = parse_scenario(base, "json")
                base = parsed[base]
            plan = piece.plan
            indices = plan.indices(piece.start, piece.stop)
            each = grid_point_documents(base, plan.paths, plan.values,
                                        plan.converters, indices)
            if each is None:
                grids.append((indices, evaluate_grid(
                    base, plan.paths, plan.values, plan.converters,
                    indices)))
            else:
                grids.append((indices, slice(len(documents),
                                             len(documents) + len(each))))
                documents.extend((str(len(documents) + i), document)
                                 for i, document in enumerate(each))
        points = evaluate_documents(
            documents, scenario="", scenario_sha256="",
            numbers_only=True) if documents else []
    return [_chunk(piece.plan, piece.start, indices,
                   points_to_columns(points[numbers])
                   if isinstance(numbers, slice) else numbers)
            for piece, (indices, numbers) in zip(pieces, grids)]


def _fleet_engine(processes, scheduler, jobs):
    """``submit(function, *args) -> future``, how many tasks to keep in
    flight, and ``close(pending)``: in this process, local processes or
    a Dask cluster. This process and local ones hold the ``jobs``
    (:func:`_init_fleet_worker`): a task names its documents by index."""
    if scheduler is not None:
        client = _dask_client(scheduler)
        threads = max(1, sum(client.nthreads().values()))

        def close_client(pending):
            for future in pending:
                future.cancel()
            client.close()
        # pure=False: a task writes its own part where it runs
        return (lambda f, *a: client.submit(f, *a, pure=False),
                2 * threads, close_client)
    if processes > 1:
        pool = ProcessPoolExecutor(processes, initializer=_init_fleet_worker,
                                   initargs=(jobs,))
        return pool.submit, 2 * processes, \
            lambda pending: pool.shutdown(wait=True, cancel_futures=True)

    _WORKER["fleet"] = jobs

    def here(function, *args):
        done = Future()
        done.set_result(function(*args))
        return done
    return here, 1, lambda pending: _WORKER.pop("fleet", None)
