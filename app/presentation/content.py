"""What the report says, decided without Qt: each variant's changes in
words, which comparison rows are worth printing, findings and binding
limits grouped across variants, and the biggest changes between two
variants."""

import json
from dataclasses import dataclass

from app.schema_fields import VALUE_LABELS, entry_name, field_label, \
    field_unit, show_value
from models.scenario import get_path
from solvers import metric_ids as ids

#: A "gain" row whose every value is below this [%] is noise (MTU 9000
#: gaining 0.015 % IOPS) and left out of the comparison table.
NOISE_GAIN_PCT = 0.5

#: Relative difference under which two values print the same (the
#: table's "(+0.0 %)" is not printed below it either).
SAME = 5e-4

#: Severities in the order the findings are listed.
SEVERITY_ORDER = ("critical", "warning", "info")

#: Names of variants listed in a line before the rest are counted.
NAMES_LISTED = 4

#: Words for an entry of a list of the scenario, by the list's key.
_ENTRY_WORDS = {"nics": "NIC", "teams": "Team", "transfers": "Transfer",
                "migrations": "Migration", "storage": "Storage workload",
                "evacuations": "Evacuation", "flows": "Flow", "vms": "VM",
                "members": "Member", "uplinks": "Uplink"}

#: Path segments that say nothing to a reader (every workload is in it).
_SILENT = {"workloads"}


def names_text(names, all_names):
    """Which variants, briefly: 'all variants', 'all but X', or the first
    :data:`NAMES_LISTED` names and how many more."""
    names, all_names = list(names), list(all_names)
    if len(all_names) > 1 and len(names) == len(all_names):
        return "all variants"
    if len(all_names) > 3 and len(names) == len(all_names) - 1:
        missing = next(n for n in all_names if n not in names)
        return f"all but {missing}"
    if len(names) <= NAMES_LISTED + 1:
        return ", ".join(names)
    return f"{', '.join(names[:NAMES_LISTED])} and " \
        f"{len(names) - NAMES_LISTED} more"


# -- what differs ------------------------------------------------------------

def value_text(name, value):
    """A value of field ``name`` as a reader knows it: the vendor's word
    for a setting, a number with its unit, a list by its entries."""
    if isinstance(value, list) and value and isinstance(value[0], dict):
        named = [entry_name(v) for v in value]
        if all(named) and len(named) <= 3:
            return ", ".join(named)
        return f"{len(value)} entries"
    if isinstance(value, str) and "_" in value and value not in \
            VALUE_LABELS.get(name, {}):
        return value.replace("_", " ")   # an enum's id, said in words
    if isinstance(value, list) and not value:
        return "none"
    labels = VALUE_LABELS.get(name, {})
    if not isinstance(value, (list, dict)) and value in labels:
        return str(labels[value])
    if value is None:
        return "default"
    text = show_value(value)
    if len(text) > 40:
        text = text[:39] + "…"
    unit = field_unit(name)
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    return f"{text} {unit}" if unit and numeric else text


def _where(data, head):
    """The thing a path's head names, in words: 'workloads.migrations[0]'
    -> 'Migration vm1'."""
    words, walked = [], ""
    for segment in head.split(".") if head else ():
        walked = f"{walked}.{segment}" if walked else segment
        key, _, index = segment.partition("[")
        if key in _SILENT:
            continue
        if index:
            try:
                name = entry_name(get_path(data, walked))
            except (KeyError, IndexError, TypeError, ValueError):
                name = ""
            word = _ENTRY_WORDS.get(key, field_label(key))
            words.append(f"{word} {name or '#' + index.rstrip(']')}")
        else:
            words.append(field_label(key))
    return " ".join(words)


def path_words(scenario, path):
    """A parameter path in words: 'nics[0].speed_gbps' -> 'NIC eth0 ›
    Speed'."""
    head, _, name = path.rpartition(".")
    where = _where(scenario.model_dump(mode="json"), head)
    return f"{where} › {field_label(name)}" if where else field_label(name)


@dataclass(frozen=True)
class Change:
    """One change of a variant, in words."""

    where: str      # 'NIC nic1', 'Network'; several merged: 'NICs a, b'
    field: str      # 'Speed'
    old: str
    new: str

    def text(self):
        where = f"{self.where} › " if self.where else ""
        return f"{where}{self.field}: {self.old} → {self.new}"


def what_differs(scenario):
    """Each variant's changes against the base in words, the same change
    of several entries of a list (both NICs) said once.

    Returns
    -------
    dict of str to list of Change
        By variant name.
    """
    data = scenario.model_dump(mode="json")
    out = {}
    for variant in scenario.variants:
        merged = {}
        for path, value in variant.set.items():
            head, _, name = path.rpartition(".")
            try:
                old = get_path(data, path)
            except (KeyError, IndexError, TypeError, ValueError):
                old = None
            # the same change to several entries of one list is one line
            in_list = head.rpartition("[")[0] if head.endswith("]") else head
            key = (in_list, name, json.dumps(old, sort_keys=True),
                   json.dumps(value, sort_keys=True))
            entry = merged.setdefault(key, [name, old, value, []])
            entry[3].append(_where(data, head))
        changes = []
        for name, old, new, places in merged.values():
            where = places[0]
            if len(places) > 1:
                word = places[0].split(" ", 1)[0]
                where = f"{word}s " + ", ".join(p.split(" ", 1)[-1]
                                               for p in places)
            old_text, new_text = value_text(name, old), \
                value_text(name, new)
            if old == new:
                new_text += " (as the base)"
            elif old_text == new_text:   # a list whose entries were edited
                new_text += " (edited)"
            changes.append(Change(where, field_label(name), old_text,
                                  new_text))
        out[variant.name] = changes
    return out


def changes_text(changes):
    """A variant's changes as one line, each place named once:
    'Migration db01 › Multifd: off → on, Streams: 1 → 8'."""
    if not changes:
        return "no change"
    parts, last = [], None
    for change in changes:
        own = f"{change.field}: {change.old} → {change.new}"
        if change.where == last:
            parts[-1] += f", {own}"
        else:
            parts.append(change.text())
        last = change.where
    return "; ".join(parts)


# -- the comparison table ----------------------------------------------------

def is_gain(metric_id):
    """Whether a metric is a gain [%] of one setting over another."""
    return "gain" in metric_id.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Rows:
    """The comparison table's rows, sorted by relevance.

    Attributes
    ----------
    compared : list of str
        Metric ids whose values differ between variants (all of them when
        the scenario has no variant).
    same : list of str
        Metric ids with the same value in every variant.
    noise : list of str
        "Gain" metrics below :data:`NOISE_GAIN_PCT` in every variant.
    """

    compared: list
    same: list
    noise: list


def _close(values):
    low, high = min(values), max(values)
    return high - low <= SAME * max(abs(low), abs(high))


def table_rows(results):
    """Split the results' metrics into :class:`Rows`."""
    by_variant = [{m.id: m.value for m in v.metrics}
                  for v in results.variants]
    rows = Rows([], [], [])
    workloads = {ids.parse(m).name for v in by_variant for m in v
                 if m.startswith("storage.") and m.count(".") > 1}
    single_storage = len(workloads) == 1
    for metric_id in results.metric_ids(headlines=ids.repeating_headlines()):
        if _repeats_headline(metric_id, by_variant, single_storage):
            continue
        values = [v[metric_id] for v in by_variant if metric_id in v]
        if is_gain(metric_id) and all(abs(v) < NOISE_GAIN_PCT
                                       for v in values):
            rows.noise.append(metric_id)
        elif len(by_variant) > 1 and len(values) == len(by_variant) and \
                _close(values):
            rows.same.append(metric_id)
        else:
            rows.compared.append(metric_id)
    return rows


def _repeats_headline(metric_id, by_variant, single_storage):
    """An item's metric equal to its headline in every variant (both
    missing counts as equal, as in a variant where the migration has no
    post-copy phase): its row would repeat the headline's. A storage
    workload's only with a single workload (with several the headline
    is their total)."""
    try:
        parsed = ids.parse(metric_id)
    except ValueError:
        return False
    if parsed.family not in ids.HEADLINE_OF or parsed.name is None or \
            (parsed.family == "storage" and not single_storage):
        return False
    headline = ids.headline(ids.HEADLINE_OF[parsed.family], parsed.key)
    return any(headline in values for values in by_variant) and all(
        values.get(headline) == values.get(metric_id)
        for values in by_variant)


def biggest_changes(results, rows, reference, other, most):
    """The ``most`` metrics that change most from variant ``reference`` to
    ``other`` (relative change, among the compared ``rows``):
    ``[(metric_id, before, after)]``."""
    before = {m.id: m.value for m in results.variant(reference).metrics}
    after = {m.id: m.value for m in results.variant(other).metrics}
    found = []
    for metric_id in rows.compared:
        if metric_id not in before or metric_id not in after or \
                is_gain(metric_id):   # a gain's change in % of itself
            continue
        old, new = before[metric_id], after[metric_id]
        if old == new or _close((old, new)):
            continue
        relative = abs(new - old) / abs(old) if old else float("inf")
        found.append((relative, metric_id, old, new))
    # the largest relative changes, shown in the table's order
    kept = sorted(found, key=lambda f: -f[0])[:most]
    order = {m: i for i, m in enumerate(rows.compared)}
    return [(m, old, new) for _, m, old, new in
            sorted(kept, key=lambda f: order[f[1]])]


# -- findings and limits across variants --------------------------------------

def grouped_findings(results):
    """Findings by severity, each message once with the variants that
    have it: ``[(severity, [(message, finding, names)])]``."""
    groups = {}
    for variant in results.variants:
        for finding in variant.findings:
            entry = groups.setdefault(finding.severity, {}).setdefault(
                finding.message, [finding, []])
            entry[1].append(variant.name)
    order = [s for s in SEVERITY_ORDER if s in groups] + \
        [s for s in groups if s not in SEVERITY_ORDER]
    return [(severity, [(message, finding, names) for message,
                        (finding, names) in groups[severity].items()])
            for severity in order]


def grouped_limits(results):
    """Each binding limit once with the variants it binds:
    ``[(message, names)]`` in first-seen order."""
    groups = {}
    for variant in results.variants:
        groups.setdefault(variant.bottleneck.message, []).append(
            variant.name)
    return list(groups.items())


def teaming_pivot(metric_ids):
    """Teaming metrics per policy as a table: the policies as rows, the
    measures (peak, above the optimum, after a failure...) as columns.

    Returns
    -------
    columns : list of str
        Metric keys, in first-seen order.
    rows : list of (str, dict)
        The policy (with its team when there are several) and its metric
        id per key.
    rest : list of str
        The ids that are not per-policy teaming metrics.
    """
    columns, rows, rest = [], {}, []
    for metric_id in metric_ids:
        try:
            parsed = ids.parse(metric_id)
        except ValueError:
            parsed = None
        if parsed is None or parsed.policy in (None, "nioc"):
            rest.append(metric_id)
            continue
        policy = ids.info(metric_id)[1].rpartition(": ")[0]
        name = f"{parsed.team}: {policy}" if parsed.team else policy
        rows.setdefault(name, {})[parsed.key] = metric_id
        if parsed.key not in columns:
            columns.append(parsed.key)
    return columns, list(rows.items()), rest


@dataclass(frozen=True)
class Accuracy:
    """What a report says of its models' accuracy: the summary of each
    validation area behind its metrics (:class:`solvers.accuracy.
    AreaSummary`), the whole set's, what backs the goal's quantity (None
    without a goal), or why the validation set could not be read."""

    areas: tuple = ()
    total: object = None
    goal_backing: str | None = None
    problem: str = ""


def accuracy(results, goal_metric=None):
    """The :class:`Accuracy` of ``results``: the bundled validation set
    solved once per process (about a second the first time)."""
    # imported here: the window imports this module, and starts without
    # the validation set and its solver
    from app.validation_io import (ValidationDataError, accuracy_report,
                                   provenance_index)
    from solvers.provenance import areas_of
    try:
        report = accuracy_report()
        backing = provenance_index()(goal_metric).text() \
            if goal_metric else None
    except ValidationDataError as err:
        return Accuracy(problem=f"The validation set cannot be read: {err}")
    used = set(areas_of(m.id for v in results.variants for m in v.metrics))
    return Accuracy(tuple(a for a in report.areas if a.area in used),
                    report.total, backing)


def change_words(recommendation, scenario):
    """A recommendation's change in words: 'Evacuation esx01 ›
    Concurrency: 8 → 4'."""
    return "; ".join(
        f"{path_words(scenario, path)}: "
        f"{value_text(path.rpartition('.')[2], c['old'])} → "
        f"{value_text(path.rpartition('.')[2], c['new'])}"
        for path, c in recommendation.change.items())
