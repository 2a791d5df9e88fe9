"""What the analyses declare (:class:`solvers.analysis.Analysis`), as the
tables the rest of Linkplan looks up: metric units, labels, kinds and
better directions, which headline repeats which items, the models and
validation areas behind each metric family, and the goals. Nothing here
is written by hand: a new analysis's declaration adds its rows.

Labels are public (batch users and the report read them): a headline
``<analysis>.<key>`` reads its own label or the analysis's prefix and the
key's label ("Migration: total time"); an item ``<family>.<name>.<key>``
"<name>: <label>"; a teaming id "<policy short name>: <label>".
"""

import functools

from models.scenario import GOALS
from solvers import metric_ids
from solvers.analyses import registry
from solvers.analysis import FIRST


@functools.cache
def _tables():
    metrics, suffixes, declared = {}, {}, {}
    for analysis in registry():
        for metric in analysis.metrics:
            if metric.headline is not None:
                metrics[metric_ids.headline(analysis.name, metric.key)] = (
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
    parsed = metric_ids.parse(metric_id)
    unit, label = suffixes[parsed.key]
    if parsed.is_headline:
        prefix = _prefixes().get(parsed.family)
        return unit, f"{prefix}{label}" if prefix else label
    entry = metric_id.split('.', 1)[1].rsplit('.', 1)[0]
    return unit, f"{metric_ids.POLICY_SHORT_NAMES.get(entry, entry)}: " \
        f"{label}"


@functools.cache
def _prefixes():
    return {a.name: a.headline_prefix for a in registry()
            if a.headline_prefix}


def declared(metric_id):
    """The :class:`solvers.analysis.Metric` that declares a metric id's
    key (its kind and better direction), or None."""
    try:
        key = metric_ids.parse(metric_id).key
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
