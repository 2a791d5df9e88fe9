"""``evaluate(scenario) -> Results``: the one entry point every face calls.

The base and all variants are evaluated together: one
:class:`solvers.inputs.Inputs` gathers their model inputs, and each
analysis of the registry (:mod:`solvers.analyses`) runs once for the whole
set. A variant's result is its analyses' results merged in registry order;
its binding limit is the one of the analysis with the lowest
``BOTTLENECK_PRIORITY`` that names one.
"""

import functools

import numpy as np

from models.scenario import Scenario, ScenarioError
from solvers import __version__
from solvers.analyses import registry
from solvers.inputs import Inputs
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
            assumptions=tuple(a for part in parts for a in part.assumptions),
            traces={key: trace for part in parts
                    for key, trace in part.traces.items()}))
    return Results(linkplan_version=__version__, scenario=scenario,
                   scenario_sha256=scenario_sha256,
                   variants=tuple(variants))
