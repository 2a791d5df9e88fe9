"""The analyses evaluate() runs, one module each (the contract is in
:mod:`solvers.analysis`), found here by name so that adding one registers
it."""

import functools
import importlib
import pkgutil

from models.scenario import GOALS


@functools.cache
def registry():
    """The :class:`solvers.analysis.Analysis` declared by every module of
    :mod:`solvers.analyses` (its ``ANALYSIS``), in ``order``, checked
    together.

    Raises
    ------
    ValueError
        Two analyses share a name, an order, an item family or a goal; an
        analysis requires one that does not run before it; a metric key
        declared by two analyses differs in unit, label, kind or better
        direction; the goals
        declared differ from ``models.scenario.GOALS``.
    RuntimeError
        No analysis module is found (a frozen build must collect them as
        files: build.spec), or a module declares no ``ANALYSIS``.
    """
    modules = [importlib.import_module(f"{__name__}.{info.name}")
               for info in pkgutil.iter_modules(__path__)]
    if not modules:   # e.g. a frozen build that did not collect them
        raise RuntimeError(f"no analysis module found in {__path__}")
    undeclared = [m.__name__ for m in modules
                  if not hasattr(m, "ANALYSIS") or not hasattr(m, "analyse")]
    if undeclared:
        raise RuntimeError(f"analysis module(s) {undeclared} define no "
                           "ANALYSIS or no analyse()")
    analyses = sorted((m.ANALYSIS for m in modules),
                      key=lambda analysis: analysis.order)
    validate(analyses)
    return tuple(analyses)


def validate(analyses):
    """Check declarations together (:func:`registry`), in order.

    Raises
    ------
    ValueError
    """
    _unique(analyses, "name", lambda a: [a.name])
    _unique(analyses, "order", lambda a: [a.order])
    _unique(analyses, "item family", lambda a: [i.name for i in a.items])
    names = {a.name for a in analyses}
    for analysis in analyses:
        taken = {i.name for i in analysis.items} & names - {analysis.name}
        if taken:
            raise ValueError(f"analysis {analysis.name!r} declares items "
                             f"{sorted(taken)}, the name of another "
                             "analysis")
    _unique(analyses, "goal", lambda a: [g.kind for g in a.goals])
    seen = set()
    for analysis in analyses:
        missing = set(analysis.requires) - seen
        if missing:
            raise ValueError(f"analysis {analysis.name!r} requires "
                             f"{sorted(missing)}, which do not run before "
                             "it (order)")
        seen.add(analysis.name)
    metrics = {}
    for analysis in analyses:
        for metric in analysis.metrics:
            other, by = metrics.setdefault(metric.key, (metric, analysis))
            if (other.unit, other.kind, other.better) != (
                    metric.unit, metric.kind, metric.better) or None not in (
                    other.label, metric.label) and \
                    other.label != metric.label:
                raise ValueError(
                    f"metric key {metric.key!r}: analysis {by.name!r} "
                    f"declares {other.unit!r} {other.label!r} "
                    f"({other.kind}, {other.better}), {analysis.name!r} "
                    f"{metric.unit!r} {metric.label!r} ({metric.kind}, "
                    f"{metric.better}) (a key names one quantity)")
    declared = {g.kind: (g.metric, g.sense)
                for analysis in analyses for g in analysis.goals}
    if declared != GOALS:
        differ = sorted(set(declared.items()) ^ set(GOALS.items()))
        raise ValueError("the analyses' goals differ from "
                         f"models.scenario.GOALS: {differ}")


def _unique(analyses, what, values):
    owners = {}
    for analysis in analyses:
        for value in values(analysis):
            if value in owners:
                raise ValueError(f"analyses {owners[value]!r} and "
                                 f"{analysis.name!r} both declare {what} "
                                 f"{value!r}")
            owners[value] = analysis.name
