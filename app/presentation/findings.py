"""The findings panel's and the report's texts: the numbers behind a
binding limit, a finding's evidence, a recommendation's change and its
re-evaluated effect."""

import math

from solvers import metric_ids
from solvers.analysis import FLAG
from solvers.results import format_number

#: Severities in the order they are listed (each its colour's name in
#: :func:`app.gui.appearance.colour`).
SEVERITIES = ("critical", "warning", "info")

#: Most intermediate values listed under the binding limit: the headline
#: numbers of its analysis, not every per-item repeat.
CALCULATION_ROWS = 12


def calculation(variant):
    """The numbers behind a variant's binding limit: ``(label, value,
    unit)`` of the headline metrics of the analysis that named it (for a
    teaming limit, the team's configured and optimal figures)."""
    family = variant.bottleneck.id.partition(".")[0]
    rows = []
    for metric in variant.metrics:
        try:
            parsed = metric_ids.parse(metric.id)
        except ValueError:
            continue
        if parsed.family != family:
            continue
        if parsed.name is not None:
            continue   # an item's repeat (teaming ids name no item)
        rows.append((metric.label.replace(" (1 yes, 0 no)", ""),
                     shown_value(metric), metric.unit))
    return rows[:CALCULATION_ROWS]


def shown_value(metric):
    """A metric's value as the panel shows it: yes/no for a flag."""
    declared = metric_ids.declared(metric.id)
    if declared is not None and declared.kind == FLAG:
        return "yes" if metric.value else "no"
    return format_number(metric.value)


def evidence_text(evidence):
    """A finding's evidence in words: its metric's value against the
    threshold, with the unit."""
    metric_id = evidence.get("metric")
    value, threshold = evidence.get("value"), evidence.get("threshold")
    if metric_id is None or value is None:
        return ""
    try:
        unit, label = metric_ids.info(metric_id)
    except (KeyError, ValueError):
        unit, label = "", metric_id
    unit = "" if unit in ("1", "") else f" {unit}"
    text = f"{label}: {_shown(value, unit)}"
    if threshold is not None:
        text += f" against {_shown(threshold, unit)}"
    return text


def _shown(value, unit):
    """A number with its unit; a setting (``'vrss'``, a flag) as it is."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{format_number(float(value))}{unit}"
    return str(value)


def effect_text(recommendation):
    """A recommendation's re-evaluated effect, one metric per line."""
    lines = []
    for metric_id, effect in recommendation.effect.items():
        try:
            label = metric_ids.info(metric_id)[1]
        except (KeyError, ValueError):
            label = metric_id
        unit = "" if effect["unit"] in ("1", "") else f" {effect['unit']}"
        change = effect.get("change_pct")
        change = "" if change is None else f" ({change:+.1f} %)"
        lines.append(f"{label}: {number_text(effect['before'])} → "
                     f"{number_text(effect['after'])}{unit}{change}")
    return lines


def number_text(value):
    """A number as the panel shows it; "none" for NaN (a goal the
    variant has no value for: a migration that does not converge)."""
    return format_number(value) if math.isfinite(value) else "none"
