"""``evaluate(scenario) -> Results``: the one entry point every face calls.

The base and all variants are evaluated together: one
:class:`solvers.inputs.Inputs` gathers their model inputs, and each
analysis of the registry (:mod:`solvers.analyses`) runs once for the whole
set. A variant's result is its analyses' results merged in registry order;
its binding limit is the one of the analysis with the lowest
``bottleneck_priority`` that names one.
"""

import functools

import numpy as np

from models.scenario import Scenario, ScenarioError
from solvers import __version__
from solvers.analyses import registry
from solvers.analysis import ColumnResult
from solvers.analysis_cache import InputKeys
from solvers.columns import (StructureChanged, TiledInputs, column_targets,
                             combination_documents, compared_field,
                             distinct_combinations)
from solvers.grid import convert_all, grid_documents
from solvers.inputs import Inputs
from solvers.metric_ids import info as metric_info
from solvers.results import Metric, Results, VariantResult
from solvers.teaming_threshold import threshold_classes


def evaluate(scenario: Scenario, *, cache=None) -> Results:
    """Evaluate the base scenario and every variant.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario document.
    cache : solvers.analysis_cache.AnalysisCache, optional
        Where each analysis's results are kept and looked up by the inputs
        it reads (an editing session's); None computes every analysis.

    Returns
    -------
    Results
        One :class:`VariantResult` per variant, the base first.
    """
    return evaluate_documents(scenario.variant_documents(),
                              scenario=scenario.meta.name,
                              scenario_sha256=scenario.sha256(),
                              cache=cache)


def analyse_all(documents, *, details=True, cache=None):
    """Every analysis of the registry on resolved ``(name, document)``
    pairs, in order; with a ``cache``
    (:class:`solvers.analysis_cache.AnalysisCache`), only those whose
    inputs it does not hold results for.

    Returns
    -------
    list of (module, list of AnalysisResult)
        Each analysis with its result for every document.
    """
    inputs = Inputs(documents, cache)
    keys = None if cache is None else InputKeys(inputs.documents, details)
    done = {}
    for analysis in registry():
        run = functools.partial(
            analysis.analyse, inputs,
            {name: done[name] for name in analysis.requires},
            details=details)
        done[analysis.name] = run() if cache is None else \
            cache.results(analysis, keys.key(analysis), run)
    return [(analysis, done[analysis.name]) for analysis in registry()]


def _floating_point_errors_refused(function):
    """Run a public entry point with numpy's floating-point errors raised,
    not printed, and report one as a refusal of the scenario: the
    document's limits (models.scenario) are meant to keep every model in
    float64's range, so this names a gap in them instead of printing a
    RuntimeWarning and going on with inf or NaN."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        # underflow to zero is the right answer (a tail probability, a
        # decayed rate), not an error
        with np.errstate(all="raise", under="ignore"):
            try:
                return function(*args, **kwargs)
            except FloatingPointError as err:
                raise ScenarioError([("", "the models cannot represent this "
                                      f"scenario (numpy: {err}); please "
                                      "report it with the file")]) from err
    return wrapper


@_floating_point_errors_refused
def evaluate_grid(base, paths, values, converters, indices, *,
                  documents=False):
    """Numbers of points of a grid, as columns: point ``p`` is ``base``
    with axis ``a`` set to ``values[a][indices[a][p]]``.

    Points are grouped by their values of the axes that are no column
    field (:func:`solvers.columns.column_targets`): one document per group
    (the template), its column axes evaluated at once on columns
    (:func:`evaluate_columns`); where a column axis's values change the
    structure of a template's inputs (:class:`solvers.columns.
    StructureChanged`), its points are grouped by that axis too. Without
    a column axis, or with groups of a point or two, every point is a
    document of its own (``evaluate_documents(..., numbers_only=True)``).

    Parameters
    ----------
    base : Scenario
        Without variants.
    paths : sequence of str
    values : sequence of list
        The raw values of each axis.
    converters : list
        :func:`solvers.grid.validate_values` of those values.
    indices : sequence of numpy.ndarray
        Per axis, the index into its values of every point.
    documents : bool
        Also return the groups.

    Returns
    -------
    numbers : dict
        Metric id -> numpy.ndarray of a value per point (NaN where a
        point has none), ids in the order of the first group's points.
    groups : list of (numpy.ndarray, Scenario)
        With ``documents``: the points of each group and their document
        (equal to each point's but in column fields).
    """
    count = len(indices[0]) if indices else 0
    column_axes, other_axes, keys, group_of = _grid_groups(paths, values,
                                                           indices)
    if _per_point(column_axes, keys, count):
        each = _point_documents(base, paths, values, converters, indices)
        numbers = points_to_columns(evaluate_documents(
            [(str(i), doc) for i, doc in enumerate(each)],
            scenario="", scenario_sha256="", numbers_only=True))
        if documents:
            return numbers, [(np.array([i]), doc)
                             for i, doc in enumerate(each)]
        return numbers
    converted = {}   # each point's validated value on each column axis
    for a in column_axes:
        # only the values these points have: a chunk of a long axis
        used, at = np.unique(indices[a], return_inverse=True)
        converted[a] = convert_all(converters[a], [
            values[a][i] for i in used.tolist()])[at.reshape(-1)]
    grid = (paths, values, converters, indices, converted)
    parts = []
    for group, key in enumerate(keys.tolist()):
        members = np.flatnonzero(group_of == group)
        template = _with_axes(base, grid, other_axes, key)
        parts.extend(_column_parts(template, members, column_axes, grid))
    if len(parts) == 1:
        merged = parts[0][2]
    else:
        ids = dict.fromkeys(k for *_, metrics in parts for k in metrics)
        merged = {k: np.full(count, np.nan) for k in ids}
        for members, _, metrics in parts:
            for k, column in metrics.items():
                merged[k][members] = column
    if documents:
        return merged, [(members, doc) for members, doc, _ in parts]
    return merged


def _with_axes(base, grid, axes, key):
    """``base`` with axis ``axes[i]`` at its value ``key[i]``."""
    if not axes:
        return base
    paths, values, converters, _, _ = grid
    return grid_documents(
        base, [paths[a] for a in axes],
        [tuple(values[a][k] for a, k in zip(axes, key))],
        [converters[a] for a in axes])[0]


def _column_parts(template, members, column_axes, grid):
    """``(members, document, numbers)`` of the points ``members`` of a
    template: its column axes on columns, and where their values change
    the structure of its inputs, its points grouped by those axes."""
    paths, values, _, indices, converted = grid
    try:
        return [(members, template, evaluate_columns(
            template, {paths[a]: converted[a][members]
                       for a in column_axes}, members.size))]
    except StructureChanged as changed:
        split = [a for a in column_axes if paths[a] in changed.paths]
    rest = [a for a in column_axes if a not in split]
    shape = [len(values[a]) for a in split]
    flat, part = np.unique(np.ravel_multi_index(
        [indices[a][members] for a in split], shape), return_inverse=True)
    parts = []
    for which, code in enumerate(flat.tolist()):
        parts.extend(_column_parts(
            _with_axes(template, grid, split,
                       [int(k) for k in np.unravel_index(code, shape)]),
            members[part.reshape(-1) == which], rest, grid))
    return parts


def _grid_groups(paths, values, indices):
    """The axes of a grid on column fields and the others, the distinct
    values of the others (``keys``, a row per group) and each point's
    group."""
    count = len(indices[0]) if indices else 0
    column_axes = [a for a, path in enumerate(paths)
                   if column_targets(path) is not None]
    other_axes = [a for a in range(len(paths)) if a not in column_axes]
    if other_axes:
        shape = [len(values[a]) for a in other_axes]
        flat, group_of = np.unique(np.ravel_multi_index(
            [indices[a] for a in other_axes], shape), return_inverse=True)
        keys = np.stack(np.unravel_index(flat, shape), axis=1)
    else:
        keys, group_of = np.zeros((1, 0), dtype=int), np.zeros(count, int)
    return column_axes, other_axes, keys, group_of


#: Points per template from which a grid whose point documents would be
#: evaluated in a batch with many others (a fleet's,
#: :func:`grid_point_documents`) is evaluated on columns instead: a
#: document in such a batch costs 0.05-0.9 ms, a column evaluation of a
#: template 1.5-5 ms whatever its points (the built-in example, seeds 001
#: and 002), so columns pay from 5 to 50 points.
BATCHED_COLUMN_POINTS = 32


def _per_point(column_axes, keys, count, points=4):
    # columns do not pay for groups of a few points (``points`` each)
    return not column_axes or points * len(keys) > count


def _point_documents(base, paths, values, converters, indices):
    combos = list(zip(*([values[a][i] for i in indices[a].tolist()]
                        for a in range(len(paths)))))
    return grid_documents(base, list(paths), combos, converters)


def grid_point_documents(base, paths, values, converters, indices):
    """The documents of a grid's points when :func:`evaluate_grid`
    evaluates each point as a document of its own (arguments as there),
    else None: a caller with many small grids (a fleet) evaluates their
    documents together in one :func:`evaluate_documents` call, which
    gives each document the numbers it gets alone; grids of fewer than
    :data:`BATCHED_COLUMN_POINTS` points per template are evaluated so."""
    column_axes, _, keys, _ = _grid_groups(paths, values, indices)
    if not _per_point(column_axes, keys, len(indices[0]) if indices else 0,
                      BATCHED_COLUMN_POINTS):
        return None
    return _point_documents(base, paths, values, converters, indices)


def points_to_columns(points):
    """``{metric id: value}`` per point as ``{metric id: array}``, NaN
    where a point has none; ids in first-seen order."""
    ids = dict.fromkeys(k for point in points for k in point)
    return {k: np.array([point.get(k, np.nan) for point in points],
                        dtype=float) for k in ids}


@_floating_point_errors_refused
def evaluate_columns(template, columns, count):
    """``evaluate_documents(..., numbers_only=True)`` of ``count`` points
    that equal ``template`` but for the column fields
    (:func:`solvers.columns.column_targets`), as columns, without a
    document or a dict per point.

    Each analysis with ``analyse_columns`` runs it once on the repeated,
    column-set inputs (:class:`solvers.columns.TiledInputs`); one with
    ``inputs`` families but without it runs ``analyse`` on them and its dicts
    become columns; one that reads documents runs once per distinct
    combination of the column fields it reads (``column_reads``, see
    :mod:`solvers.analysis`), and once on the template when it reads
    none (as does one whose families have no rows): points share those
    numbers.

    Parameters
    ----------
    template : Scenario
        A resolved document.
    columns : dict
        Column field path -> numpy.ndarray of ``count`` validated values.
    count : int

    Returns
    -------
    dict
        Metric id -> numpy.ndarray of ``count`` values (NaN where a point
        has none), in the order ``evaluate_documents`` gives a point with
        every metric.

    Raises
    ------
    ValueError
        An analysis without ``inputs`` families requires one with them (its
        numbers would differ per point).
    solvers.columns.StructureChanged
        The values of column fields change the template's rows or paths.
    """
    tiled = TiledInputs(template, columns, count)
    analyses = {analysis.name: analysis for analysis in registry()}
    done, per_point, once, per_value = {}, {}, {}, {}

    def point_results(name):
        # per-point results of a column analysis, for one that reads them
        if name not in per_point:
            analysis = analyses[name]
            per_point[name] = analysis.analyse(
                tiled, {n: point_results(n) for n in analysis.requires},
                details=False)
        return per_point[name]

    def template_results(name):
        if name not in once:
            analysis = analyses[name]
            once[name] = analysis.analyse(
                tiled.template,
                {n: template_results(n) for n in analysis.requires},
                details=False)
        return once[name]

    def combination_results(name, paths):
        # results of an analysis that reads documents, once per distinct
        # combination of the column fields ``paths`` it reads (once per
        # class of them, see _combination_results): the combination's
        # index into the distinct results, and those
        if paths not in per_value:
            per_value[paths] = (*distinct_combinations(columns, list(paths)),
                                {})
        _, values, results = per_value[paths]
        if name not in results:
            analysis = analyses[name]
            required = {}
            for n in analysis.requires:
                index, distinct = combination_results(n, paths)
                required[n] = [distinct[k] for k in index]
            results[name] = _combination_results(analysis, template, values,
                                                  required)
        return results[name]

    def value_results(name, paths):
        # each point's result index, and the distinct results
        index, distinct = combination_results(name, paths)
        return index[per_value[paths][0]], distinct

    for analysis in analyses.values():
        name = analysis.name
        families = analysis.inputs
        if analysis.analyse_columns is not None:
            done[name] = analysis.analyse_columns(
                tiled, {n: done[n] for n in analysis.requires})
            continue
        if families is not None and any(
                getattr(getattr(tiled.template, family), "owners", True)
                for family in families):
            done[name] = ColumnResult(points_to_columns(
                [r.metrics for r in point_results(name)]))
            continue
        if families is None and any(
                analyses[n].inputs is not None
                for n in analysis.requires):
            raise ValueError(f"analysis {name!r} reads documents but "
                             "requires a column analysis")
        # one that finds nothing to analyse in the template finds nothing
        # at any point: column fields change no structure
        read = tuple(path for path in columns if families is None
                     and _reads(analysis, path))
        # (a field swept by classes runs no template: its classes'
        # results are empty where the template's are)
        if read and (_by_class(analysis, read)
                     or template_results(name)[0].metrics):
            combo, results = value_results(name, read)
            done[name] = ColumnResult({
                k: v[combo] for k, v in points_to_columns(
                    [r.metrics for r in results]).items()})
        else:
            # the same for every point (it reads no column field, or
            # its families have no rows), so run once on the template
            done[name] = ColumnResult({
                k: np.full(count, v, dtype=float)
                for k, v in template_results(name)[0].metrics.items()})
    numbers = {}
    for result in done.values():
        # floats (NaN marks a missing value), the same array where an
        # analysis gives one twice (a headline and its item)
        numbers.update({k: np.asarray(v, dtype=float)
                        for k, v in result.metrics.items()})
    return numbers


def _combination_results(analysis, template, values, required):
    """``analysis.analyse`` (details off) of ``template`` with each
    combination of ``values`` (path -> numpy.ndarray over the
    combinations) set: the index of each combination's result and the
    distinct results.

    A field the analysis reads only by comparing data with it
    (:data:`solvers.columns.COMPARED`, LBT's threshold) is swept by
    classes of values that compare alike, all at once
    (:func:`solvers.teaming_threshold.threshold_classes`).
    """
    if _by_class(analysis, values):
        path, = values
        return threshold_classes(template, path, values[path])
    inputs = Inputs([("", document) for document in
                     combination_documents(template, values)])
    results = analysis.analyse(inputs, required, details=False)
    return np.arange(len(results)), results


def _by_class(analysis, paths):
    """Whether ``analysis`` runs over the one column field of ``paths``
    by classes of its values (see :func:`_combination_results`)."""
    return len(paths) == 1 and not analysis.requires \
        and compared_field(next(iter(paths))) == analysis.name


def _reads(analysis, path):
    """Whether an analysis without ``inputs`` families reads the column field
    at ``path`` from its documents: under one of its ``column_reads``,
    else of its ``reads`` (every field without them)."""
    reads = analysis.column_reads if analysis.column_reads is not None \
        else analysis.reads
    return reads is None or any(
        path == field or path.startswith((f"{field}.", f"{field}["))
        for field in reads)


@_floating_point_errors_refused
def evaluate_documents(documents, *, scenario, scenario_sha256,
                       numbers_only=False, cache=None):
    """:func:`evaluate` on already resolved ``(name, document)`` pairs,
    e.g. the points of a search built without re-validating each one.

    ``numbers_only=True`` returns just one ``{metric id: value}`` dict per
    document (sweeps and searches: units come from
    :func:`solvers.metric_ids.info`), skipping chart traces, findings,
    assumptions and result objects. ``cache`` as in :func:`evaluate`.
    """
    analysed = analyse_all(documents, details=not numbers_only, cache=cache)
    if numbers_only:
        numbers = [{} for _ in documents]
        for _, results in analysed:
            for values, result in zip(numbers, results):
                values.update(result.metrics)
        return numbers
    return _results(documents, analysed, range(len(documents)),
                    scenario=scenario, scenario_sha256=scenario_sha256)


def _goal_first(by_priority, document):
    """The analyses in the order their binding limits are taken: the one
    that measures the document's goal first (the verdict names the limit
    of the goal's quantity, in every face), then by priority."""
    if document.goal is None:
        return by_priority
    kind = document.goal.kind
    return sorted(by_priority, key=lambda pair: all(
        goal.kind != kind for goal in pair[0].goals))


def _results(documents, analysed, rows, *, scenario, scenario_sha256,
             details=True):
    """The :class:`Results` of documents ``rows`` of an
    :func:`analyse_all`; without ``details`` metrics only (no
    bottleneck, findings, assumptions or traces)."""
    by_priority = sorted(analysed,
                         key=lambda pair: pair[0].bottleneck_priority)
    variants = []
    for i in rows:
        parts = [results[i] for _, results in analysed]
        metrics = tuple(Metric(id, float(v), *metric_info(id))
                        for part in parts for id, v in part.metrics.items())
        if not details:
            variants.append(VariantResult(name=documents[i][0],
                                          metrics=metrics, bottleneck=None))
            continue
        variants.append(VariantResult(
            name=documents[i][0], metrics=metrics,
            bottleneck=next(results[i].bottleneck
                            for _, results in _goal_first(
                                by_priority, documents[i][1])
                            if results[i].bottleneck is not None),
            findings=tuple(f for part in parts for f in part.findings),
            # several workloads of one kind state the same assumption once
            assumptions=tuple(dict.fromkeys(
                _calibrated(documents[i][1])
                + [a for part in parts for a in part.assumptions])),
            traces={key: trace for part in parts
                    for key, trace in part.traces.items()}))
    return Results(linkplan_version=__version__, scenario=scenario,
                   scenario_sha256=scenario_sha256,
                   variants=tuple(variants))


def _calibrated(document):
    """What a calibrated document's every answer rests on: its site
    preset, when and on which files it was fitted (empty without one)."""
    site = document.calibration
    if site is None:
        return []
    shown = ", ".join(site.sources[:3]) + (
        f" and {len(site.sources) - 3} more" if len(site.sources) > 3
        else "")
    return [f"Calibrated: site preset {site.name!r}, fitted {site.date} on "
            f"{shown} ({len(site.fitted)} parameter(s) fitted, "
            f"{len(site.undetermined)} not determined by the runs)"]


#: Documents :func:`evaluate_many` analyses together: enough to spread
#: each analysis' per-call cost over many files (a model's iteration
#: runs as long as its slowest row, whatever the rows; alike documents
#: share a teaming result) and to hold a fleet of a thousand small
#: scenarios in one batch (3,670 documents: peak RSS 246 MB, against
#: 234 MB in batches of 512), few enough to keep memory flat.
BATCH_DOCUMENTS = 4096


def evaluate_many(scenarios, *, details=True):
    """:func:`evaluate` of many scenarios, their documents analysed
    together in batches of about :data:`BATCH_DOCUMENTS`, whatever their
    structures: each scenario's results are the ones :func:`evaluate`
    gives it, at a fraction of the per-file cost.

    Every analysis treats each document on its own and every model gives
    a row the same numbers whatever the other rows of its call (e.g.
    :func:`models.migration.precopy`: a QEMU-rule row next to round-rule
    ones), so a batch can mix files of different structures and sizes.

    Parameters
    ----------
    scenarios : iterable of Scenario
    details : bool, default True
        Without details the results have metrics only (no bottleneck,
        findings, assumptions or traces): enough for CSV.

    Returns
    -------
    list of Results or ValueError
        Per scenario, in order: its results, or why it could not be
        evaluated (:class:`models.scenario.ScenarioError`, or a metric a
        model left NaN); one scenario's failure does not stop the others.
    """
    done, batch, documents = [], [], 0
    for scenario in scenarios:
        pairs = scenario.variant_documents()
        batch.append((scenario, pairs))
        documents += len(pairs)
        if documents >= BATCH_DOCUMENTS:
            done.extend(_evaluate_batch(batch, details))
            batch, documents = [], 0
    if batch:
        done.extend(_evaluate_batch(batch, details))
    return done


def _evaluate_batch(batch, details):
    documents = [pair for _, pairs in batch for pair in pairs]
    try:
        analysed = _analyse_refusing_fp_errors(documents, details)
        done, start = [], 0
        for scenario, pairs in batch:
            done.append(_results(
                documents, analysed, range(start, start + len(pairs)),
                scenario=scenario.meta.name,
                scenario_sha256=scenario.sha256(), details=details))
            start += len(pairs)
    except ValueError as err:
        if len(batch) == 1:
            yield err
            return
        # one of them cannot be evaluated: find which by halves, the
        # others still evaluated together
        half = len(batch) // 2
        yield from _evaluate_batch(batch[:half], details)
        yield from _evaluate_batch(batch[half:], details)
        return
    yield from done


@_floating_point_errors_refused
def _analyse_refusing_fp_errors(documents, details):
    return analyse_all(documents, details=details)
