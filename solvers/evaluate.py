"""``evaluate(scenario) -> Results``: the one entry point every face calls.

The base and all variants are evaluated together: one
:class:`solvers.inputs.Inputs` gathers their model inputs, and each
analysis of the registry (:mod:`solvers.analyses`) runs once for the whole
set. A variant's result is its analyses' results merged in registry order;
its binding limit is the one of the analysis with the lowest
``BOTTLENECK_PRIORITY`` that names one.
"""

import functools

from models.scenario import Scenario, ScenarioError
from solvers import __version__
from solvers.analyses import registry
import numpy as np

from solvers.grid import convert, grid_documents
from solvers.inputs import Inputs, TiledInputs, column_targets
from solvers.metric_ids import info as metric_info
from solvers.results import Metric, Results, VariantResult


def evaluate(scenario: Scenario) -> Results:
    """Evaluate the base scenario and every variant.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario document.

    Returns
    -------
    Results
        One :class:`VariantResult` per variant, the base first.
    """
    return evaluate_documents(scenario.variant_documents(),
                              scenario=scenario.meta.name,
                              scenario_sha256=scenario.sha256())


def analyse_all(documents, *, details=True):
    """Every analysis of the registry on resolved ``(name, document)``
    pairs, in order.

    Returns
    -------
    list of (module, list of AnalysisResult)
        Each analysis with its result for every document.
    """
    inputs = Inputs(documents)
    done = {}
    for analysis in registry():
        done[analysis.NAME] = analysis.analyse(
            inputs, {name: done[name] for name in analysis.REQUIRES},
            details=details)
    return [(analysis, done[analysis.NAME]) for analysis in registry()]


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
def evaluate_points(base, paths, combos, converters):
    """Numbers of the points of a grid: ``evaluate_documents(...,
    numbers_only=True)`` of ``base`` with each combination of values.

    Points are grouped by the values of their axes that are no column
    field (:func:`solvers.inputs.column_targets`): one document per group
    (the template), its column axes evaluated at once on columns
    (:func:`evaluate_columns`). Without a column axis every point is a
    document of its own.

    Parameters
    ----------
    base : Scenario
        Without variants.
    paths : sequence of str
    combos : sequence of tuple
        The raw values of each point.
    converters : list
        :func:`solvers.grid.validate_values` of the axes.

    Returns
    -------
    documents : list of Scenario
        Per point, its document or its group's template (they differ only
        in column fields).
    numbers : list of dict
        Per point, ``{metric id: value}``.
    """
    column_axes = [a for a, path in enumerate(paths) if column_targets(path)]
    if not column_axes:
        documents = grid_documents(base, list(paths), combos, converters)
        return documents, evaluate_documents(
            [(str(i), doc) for i, doc in enumerate(documents)],
            scenario="", scenario_sha256="", numbers_only=True)
    other_axes = [a for a in range(len(paths)) if a not in column_axes]
    groups = {}
    for index, combo in enumerate(combos):
        groups.setdefault(tuple(repr(combo[a]) for a in other_axes),
                          []).append(index)
    documents, numbers = [None] * len(combos), [None] * len(combos)
    for members in groups.values():
        first = combos[members[0]]
        template = grid_documents(
            base, [paths[a] for a in other_axes],
            [tuple(first[a] for a in other_axes)],
            [converters[a] for a in other_axes])[0] if other_axes else base
        columns = {paths[a]: np.array([convert(converters[a], combos[i][a])
                                       for i in members])
                   for a in column_axes}
        for index, point in zip(members, evaluate_columns(
                template, columns, len(members))):
            documents[index], numbers[index] = template, point
    return documents, numbers


@_floating_point_errors_refused
def evaluate_columns(template, columns, count):
    """``evaluate_documents(..., numbers_only=True)`` of ``count`` points
    that equal ``template`` but for the column fields
    (:func:`solvers.inputs.column_targets`), without a document per point.

    Analyses with ``FAMILIES`` run once on the repeated, column-set
    inputs (:class:`solvers.inputs.TiledInputs`); the others do not read
    the column fields, so they run once on the template and every point
    shares their numbers.

    Parameters
    ----------
    template : Scenario
        A resolved document.
    columns : dict
        Column field path -> numpy.ndarray of ``count`` validated values.
    count : int

    Returns
    -------
    list of dict
        One ``{metric id: value}`` per point, as ``evaluate_documents``.

    Raises
    ------
    ValueError
        An analysis without ``FAMILIES`` requires one with them (its
        numbers would differ per point).
    """
    tiled = TiledInputs(template, columns, count)
    single = Inputs([("", template)])
    done, shared = {}, {}
    for analysis in registry():
        if getattr(analysis, "FAMILIES", None) is not None:
            done[analysis.NAME] = analysis.analyse(
                tiled, {name: done[name] for name in analysis.REQUIRES},
                details=False)
            continue
        if any(name in done for name in analysis.REQUIRES):
            raise ValueError(f"analysis {analysis.NAME!r} reads documents "
                             "but requires a column analysis")
        shared[analysis.NAME] = analysis.analyse(
            single, {name: shared[name] for name in analysis.REQUIRES},
            details=False)[0].metrics
    numbers = [{} for _ in range(count)]
    for analysis in registry():
        if analysis.NAME in shared:
            for values in numbers:
                values.update(shared[analysis.NAME])
        else:
            for values, result in zip(numbers, done[analysis.NAME]):
                values.update(result.metrics)
    return numbers


@_floating_point_errors_refused
def evaluate_documents(documents, *, scenario, scenario_sha256,
                       numbers_only=False):
    """:func:`evaluate` on already resolved ``(name, document)`` pairs,
    e.g. the points of a search built without re-validating each one.

    ``numbers_only=True`` returns just one ``{metric id: value}`` dict per
    document (sweeps and searches: units come from
    :func:`solvers.metric_ids.info`), skipping chart traces, findings,
    assumptions and result objects.
    """
    analysed = analyse_all(documents, details=not numbers_only)
    if numbers_only:
        numbers = [{} for _ in documents]
        for _, results in analysed:
            for values, result in zip(numbers, results):
                values.update(result.metrics)
        return numbers
    by_priority = sorted(analysed,
                         key=lambda pair: pair[0].BOTTLENECK_PRIORITY)
    variants = []
    for i, (name, _) in enumerate(documents):
        parts = [results[i] for _, results in analysed]
        variants.append(VariantResult(
            name=name,
            metrics=tuple(Metric(id, float(v), *metric_info(id))
                          for part in parts
                          for id, v in part.metrics.items()),
            bottleneck=next(results[i].bottleneck
                            for _, results in by_priority
                            if results[i].bottleneck is not None),
            findings=tuple(f for part in parts for f in part.findings),
            # several workloads of one kind state the same assumption once
            assumptions=tuple(dict.fromkeys(
                a for part in parts for a in part.assumptions)),
            traces={key: trace for part in parts
                    for key, trace in part.traces.items()}))
    return Results(linkplan_version=__version__, scenario=scenario,
                   scenario_sha256=scenario_sha256,
                   variants=tuple(variants))
