"""Metric values as the comparison table and the report show them: yes/no
for flags, whole counts without decimals, changes against the base, the
row labels, which rows are worth reading, and the validated cases behind
a metric."""

from app.presentation.content import table_rows
from solvers.analysis import FLAG
from solvers.metric_ids import declared, repeating_headlines
from solvers.metric_ids import parse as parse_metric_id
from solvers.results import format_change, format_number

#: Units of metrics that count things (shown without decimals when whole).
_COUNT_UNITS = ("1", "cores")


def is_flag(metric):
    return is_flag_id(metric.id)


def is_flag_id(metric_id):
    """Whether an analysis declares the metric a yes (1) / no (0) flag."""
    metric = declared(metric_id)
    return metric is not None and metric.kind == FLAG


def shown_value(metric):
    """A metric's value as a person reads it: yes/no for a flag, whole
    counts without decimals, else the shared number format."""
    if is_flag(metric):
        return "yes" if metric.value else "no"
    if metric.unit in _COUNT_UNITS and float(metric.value).is_integer():
        return f"{int(metric.value):,}"
    return format_number(metric.value)


#: Relative differences below this are float noise, not a change.
_SAME = 1e-9


def _change(metric, base):
    """metric - base, or None when equal (float noise included), not
    comparable or a flag."""
    if base is None or metric is base or is_flag(metric):
        return None
    if not format_change(base.value, metric.value, metric.unit):
        return None
    return metric.value - base.value


def delta_text(metric, base):
    """The change of a variant's metric against the base's, absolute and
    relative ("+0.4856, +5.158 %"; a percentage in points: "+9.3 pp");
    '' when there is none."""
    change = _change(metric, base)
    if change is None:
        return ""
    sign = "+" if change > 0 else "\u2212"
    relative = format_change(base.value, metric.value, metric.unit)
    if metric.unit == "%" or base.value == 0:
        return relative
    return f"{sign}{format_number(abs(change))}, {relative}"


def cell_text(metric, base):
    """The value, and its change against the base (one decimal: the cell
    stays narrow; the tooltip has both forms); a change that rounds to
    0.0 is not shown."""
    if metric is None:
        return "\u2013"
    shown = shown_value(metric)
    if _change(metric, base) is None:
        return shown
    change = format_change(base.value, metric.value, metric.unit,
                           digits=1)
    if change.lstrip("+\u2212").startswith("0.0 "):
        return shown
    return f"{shown} ({change})"


def row_label(metric):
    """Row header: the label and its unit (none for flags)."""
    if is_flag(metric):
        return metric.label.removesuffix(" (1 yes, 0 no)")
    return f"{metric.label} [{metric.unit}]"


def family_and_key(metric_id):
    try:
        parsed = parse_metric_id(metric_id)
    except ValueError:
        return None
    return parsed.family, parsed.key


def relevant_rows(results, pinned=()):
    """The rows worth reading and all rows, in table order (the goal's
    first): those whose
    value differs between the variants (all, with a single variant),
    without noise-level gains (:func:`app.presentation.content.table_rows`,
    as the report); always the convergence flags and the ``pinned``
    metrics (the goal's) of every item and policy: each workload's IOPS,
    each policy's peak (seed 000's variants differ only in which policy
    is configured)."""
    rows = table_rows(results)
    every = set(rows.compared + rows.same + rows.noise)
    kept = {family_and_key(i) for i in pinned}
    # the goal's rows first, as in the report: the answer, then its causes
    every = sorted((i for i in results.metric_ids(
                        headlines=repeating_headlines())
                    if i in every),
                   key=lambda i: family_and_key(i) not in kept)
    compared = set(rows.compared)
    return [i for i in every if i in compared or is_flag_id(i)
            or family_and_key(i) in kept], every


def backing_text(metric_id):
    """Which validated cases back the model a metric comes from (the
    validation set is read once, on the first tooltip, and its module
    imported then: start-up does without it)."""
    from app.validation_io import ValidationDataError, provenance_index
    try:
        return provenance_index()(metric_id).text()
    except ValidationDataError as err:
        return f"Validation set unreadable: {err}"
