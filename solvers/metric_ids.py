"""Metric ids: built and parsed by their grammar
(:mod:`solvers.metric_grammar`, re-exported here), looked up in what the
analyses declare (:class:`solvers.analysis.Analysis`): units, labels,
kinds and better directions, which headline repeats which items, the
goals. Nothing here is written by hand: a new analysis's declaration adds
its rows. It sits above the analyses (which build ids with the grammar
alone) and below what evaluates them.

The ids' grammar, public and never renamed, is described in
:mod:`solvers.metric_grammar`. Labels are public too (the report and
batch users read them): a headline reads its own label or the analysis's
prefix and the key's label ("Migration: total time"); an item "<name>:
<label>"; a teaming id "<policy short name>: <label>".
"""

import functools

from models.scenario import GOALS
from solvers.analyses import registry
from solvers.analysis import FIRST, MARKS
from solvers.metric_grammar import (POLICY_SHORT_NAMES, MetricId,
                                    cluster, configured_peaks, evacuation,
                                    headline, item, migration, nioc, parse,
                                    pcie, placement_trace, rounds_trace,
                                    schedule_trace, storage, sweep_trace,
                                    team_prefix, teaming, teams_in_ids,
                                    topology_trace, transfer, uplink,
                                    uplink_trace)

__all__ = [
    # the grammar
    "POLICY_SHORT_NAMES", "MetricId", "cluster", "configured_peaks",
    "evacuation", "headline", "item", "migration", "nioc", "parse", "pcie",
    "placement_trace", "rounds_trace", "schedule_trace", "storage",
    "sweep_trace", "team_prefix", "teaming", "teams_in_ids",
    "topology_trace", "transfer", "uplink", "uplink_trace",
    # what the declarations say
    "declared", "goals", "headline_metrics", "headline_of", "info",
    "metric_suffixes", "repeating_headlines", "sweep_axes", "sweep_marks",
]


@functools.cache
def _tables():
    metrics, suffixes, declared = {}, {}, {}
    for analysis in registry():
        for metric in analysis.metrics:
            if metric.headline is not None:
                metrics[headline(analysis.name, metric.key)] = (
                    metric.unit, metric.headline)
            if metric.label is not None:
                suffixes[metric.key] = (metric.unit, metric.label)
            declared.setdefault(metric.key, metric)
    return metrics, suffixes, declared


def headline_metrics():
    """Headlines with a label of their own: id -> (unit, label)."""
    return dict(_tables()[0])


def metric_suffixes():
    """Units and labels of per-item metrics (and of the headlines of an
    analysis with a ``headline_prefix``), by key: key -> (unit, label)."""
    return dict(_tables()[1])


@functools.lru_cache(maxsize=4096)
def info(metric_id):
    """(unit, label) of a metric id.

    Raises
    ------
    ValueError
        The id is not of the metric-id grammar.
    KeyError
        No analysis declares its key.
    """
    headlines, suffixes, _ = _tables()
    if metric_id in headlines:
        return headlines[metric_id]
    parsed = parse(metric_id)
    unit, label = suffixes[parsed.key]
    if parsed.is_headline:
        prefix = _prefixes().get(parsed.family)
        return unit, f"{prefix}{label}" if prefix else label
    entry = metric_id.split('.', 1)[1].rsplit('.', 1)[0]
    return unit, f"{POLICY_SHORT_NAMES.get(entry, entry)}: " \
        f"{label}"


@functools.cache
def _prefixes():
    return {a.name: a.headline_prefix for a in registry()
            if a.headline_prefix}


def declared(metric_id):
    """The :class:`solvers.analysis.Metric` that declares a metric id's
    key (its kind and better direction), or None."""
    try:
        key = parse(metric_id).key
    except ValueError:
        return None
    return _tables()[2].get(key)


@functools.cache
def headline_of():
    """Item family -> the analysis whose headline ``<analysis>.<key>``
    repeats (or sums) its items' ``<family>.<name>.<key>``."""
    return {item.name: analysis.name for analysis in registry()
            for item in analysis.items if item.headline is not None}


@functools.cache
def repeating_headlines():
    """Item family -> the analysis whose headline repeats its first item's
    values (a table may leave those items out when they equal it:
    :meth:`solvers.results.Results.metric_ids`)."""
    return {item.name: analysis.name for analysis in registry()
            for item in analysis.items if item.headline == FIRST}


@functools.cache
def goals():
    """Goal name -> its :class:`solvers.analysis.Goal`, in
    ``models.scenario.GOALS`` order (the registry checks they agree)."""
    from_analyses = {g.kind: g for a in registry() for g in a.goals}
    return {kind: from_analyses[kind] for kind in GOALS}


@functools.cache
def sweep_axes():
    """Analysis name -> the paths a Sweep tab starts on for its question
    (:attr:`solvers.analysis.Analysis.sweep_axes`), in the order advise
    picks a goal for a document without one (the lowest goal rank first;
    analyses without a ranked goal last)."""
    def pick_order(analysis):
        return min((g.rank for g in analysis.goals if g.rank is not None),
                   default=float("inf"))
    return {a.name: a.sweep_axes for a in sorted(registry(), key=pick_order)
            if a.sweep_axes}


@functools.cache
def sweep_marks():
    """What a one-axis sweep chart marks, ``[(mark, headline id, reached
    headline id or None)]`` (:attr:`solvers.analysis.Analysis.
    sweep_marks`): by kind (turning points, reached levels, tops), then in
    the analyses' order."""
    found = [(mark, headline(a.name, mark.key),
              None if mark.reaches is None else headline(a.name,
                                                         mark.reaches))
             for a in registry() for mark in a.sweep_marks]
    return sorted(found, key=lambda entry: MARKS.index(entry[0].kind))


def __getattr__(name):
    """``HEADLINE_OF``, the table :func:`headline_of` returns, built from
    the declarations on first use (PEP 562)."""
    if name == "HEADLINE_OF":
        return headline_of()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
