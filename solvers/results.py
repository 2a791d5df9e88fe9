"""Results: plain data per variant, and its JSON, CSV and text forms.

The JSON layout is the public contract of
``docs/reference/design-architecture.md``:
``{"linkplan_version", "scenario", "scenario_sha256", "variants": [{"name",
"metrics": [{"id", "value", "unit", "label"}], "bottleneck", "findings",
"assumptions", "traces"}]}``. Metric ids are stable; new ones may be added,
none renamed.
"""

import csv
import functools
import io
import json
import math
from dataclasses import asdict, dataclass, field

from solvers import metric_grammar as metric_ids

#: Characters that make a spreadsheet treat a cell as a formula (OWASP CSV
#: injection); such text cells get a leading apostrophe.
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class Metric:
    """One number with its unit."""

    id: str
    value: float
    unit: str
    label: str

    def __post_init__(self):
        if not math.isfinite(self.value):
            raise ValueError(f"metric {self.id} is not finite "
                             f"({self.value!r}): a model produced NaN or an "
                             "infinity")


@dataclass(frozen=True)
class Progress:
    """How far a long computation (advise, search, sweep) has come, as
    its callbacks receive it."""

    done: int
    total: int


@dataclass(frozen=True)
class Bottleneck:
    """The limit that binds, by id, with a sentence that names it."""

    id: str
    message: str


@dataclass(frozen=True)
class Finding:
    """Something worth the user's attention, with evidence.

    ``evidence`` holds the metric and threshold that triggered the finding;
    ``change`` the proposed parameter change (``{"path", "old", "new"}``) or
    None; ``predicted`` the re-evaluated metrics after that change.
    """

    id: str
    severity: str
    message: str
    evidence: dict
    change: dict | None = None
    predicted: tuple[Metric, ...] = ()


@dataclass(frozen=True)
class VariantResult:
    """Everything computed for one variant."""

    name: str
    metrics: tuple[Metric, ...]
    bottleneck: Bottleneck
    findings: tuple[Finding, ...] = ()
    assumptions: tuple[str, ...] = ()
    traces: dict = field(default_factory=dict)

    def metric(self, metric_id):
        """The metric with this id (KeyError if the variant has none)."""
        for metric in self.metrics:
            if metric.id == metric_id:
                return metric
        raise KeyError(f"no metric {metric_id!r} in variant {self.name!r}")


@dataclass(frozen=True)
class Results:
    """The results of one scenario: one entry per variant, base first."""

    linkplan_version: str
    scenario: str
    scenario_sha256: str
    variants: tuple[VariantResult, ...]

    def variant(self, name):
        """The result of the variant with this name."""
        for variant in self.variants:
            if variant.name == name:
                return variant
        raise KeyError(f"no variant {name!r}")

    def metric_ids(self, *, headlines=None):
        """Metric ids in first-seen order over all variants.

        With ``headlines`` ({item family: headline family} of the items a
        headline repeats, :func:`solvers.metric_ids.repeating_headlines`),
        leave out a per-item metric (``transfer.<name>.x``,
        ``migration.<name>.x``) whose headline (``host.x``,
        ``migration.x``) has the same value in every variant, as when a
        scenario has a single transfer. For tables; the data keeps both.
        """
        ids = list(dict.fromkeys(m.id for v in self.variants
                                 for m in v.metrics))
        if not headlines:
            return ids
        by_variant = [{m.id: m.value for m in v.metrics}
                      for v in self.variants]

        def repeats_headline(metric_id):
            parsed = metric_ids.parse(metric_id)
            if parsed.name is None or parsed.family not in headlines:
                return False
            headline = metric_ids.headline(headlines[parsed.family],
                                           parsed.key)
            return all(headline in values and
                       values[headline] == values.get(metric_id)
                       for values in by_variant)

        return [i for i in ids if not repeats_headline(i)]

    def assumptions_by_scope(self):
        """Assumptions split into those every variant shares and the rest.

        Returns
        -------
        shared : list of str
        specific : list of (tuple of str, str)
            ``(variant names, assumption)`` for each assumption that only
            some variants make, in first-seen order.
        """
        shared = [a for a in self.variants[0].assumptions
                  if all(a in v.assumptions for v in self.variants)]
        specific = {}
        for variant in self.variants:
            for assumption in variant.assumptions:
                if assumption not in shared:
                    specific.setdefault(assumption, []).append(variant.name)
        return shared, [(tuple(names), assumption)
                        for assumption, names in specific.items()]

    def to_dict(self):
        """Plain data following the results contract."""
        return asdict(self)

    def to_json(self):
        """Deterministic JSON text (same input, same bytes)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False,
                          allow_nan=False) + "\n"

    def to_csv(self):
        """One row per (variant, metric), stamped with version and hash."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["scenario", "scenario_sha256", "linkplan_version",
                         "variant", "metric", "value", "unit", "label"])
        # rows joined from fields encoded as the writer would: its
        # per-field checks cost most of a fleet's output otherwise, and
        # all but the number repeat (version, hash, ids, units, labels)
        prefix = ",".join((_csv_field(csv_cell(self.scenario)),
                           _csv_field(self.scenario_sha256),
                           _csv_field(self.linkplan_version)))
        for variant in self.variants:
            stamp = f"{prefix},{_csv_field(csv_cell(variant.name))},"
            out.write("".join(
                f"{stamp}{_csv_field(m.id)},{m.value!r},"
                f"{_unit_and_label(m.unit, m.label)}"
                for m in variant.metrics))
        return out.getvalue()

    def to_table(self):
        """A text table for a terminal: metrics as rows, variants as
        columns, then each variant's bottleneck, findings and assumptions."""
        headers = ["metric", "unit"] + [v.name for v in self.variants]
        rows = []
        for metric_id in self.metric_ids():
            row = [metric_id, ""]
            for variant in self.variants:
                try:
                    m = variant.metric(metric_id)
                except KeyError:
                    row.append("-")
                    continue
                row[1] = m.unit
                row.append(format_number(m.value))
            rows.append(row)
        widths = [max(len(str(r[i])) for r in [headers] + rows)
                  for i in range(len(headers))]
        lines = [f"Scenario: {self.scenario}  (sha256 "
                 f"{self.scenario_sha256[:12]}, Linkplan "
                 f"{self.linkplan_version})", ""]
        for row in [headers] + rows:
            cells = [str(c).ljust(w) if i < 2 else str(c).rjust(w)
                     for i, (c, w) in enumerate(zip(row, widths))]
            lines.append("  ".join(cells).rstrip())
        shared, specific = self.assumptions_by_scope()
        lines.append("")
        for variant in self.variants:
            lines.append(f"[{variant.name}] bottleneck: "
                         f"{variant.bottleneck.message}")
            for finding in variant.findings:
                lines.append(f"  {finding.severity}: {finding.message}")
            lines.extend(f"  assumes: {assumption}"
                         for names, assumption in specific
                         if variant.name in names)
        lines.append("")
        lines.append("Assumptions (all variants):")
        lines.extend(f"  - {assumption}" for assumption in shared)
        return "\n".join(lines) + "\n"


#: Magnitudes below this are the rounding of sums and differences of the
#: models' doubles (about 1e-16 relative), not a quantity of any unit the
#: results use: shown as 0. The smallest real values are about 1e-7 (a
#: microsecond latency in seconds, a few bits per second in Gbit/s).
NOISE = 1e-12


def format_number(value):
    """Four significant digits, thousands separated, no exponent below
    1e15, float noise (below :data:`NOISE`) as 0: the one number format
    every face shares."""
    if abs(value) < NOISE:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, 3 - magnitude)
    return f"{value:,.{decimals}f}"


def format_change(before, after, unit, *, digits=None):
    """The change from ``before`` to ``after`` as a person reads it:
    percentage points for a quantity in per cent ("+9.3 pp": 0.6 % to
    9.9 % is not "+1465 %"), else per cent of ``before``, else (from 0)
    the absolute change; '' when there is none (float noise included).

    ``digits`` fixes the decimals of a relative or point change (one
    decimal in a narrow cell); by default :func:`format_number`.
    """
    change = after - before
    if abs(change) <= max(NOISE, 1e-9 * max(abs(before), abs(after))):
        return ""
    sign = "+" if change > 0 else "\u2212"

    def shown(number):
        return format_number(number) if digits is None \
            else f"{number:,.{digits}f}"
    if unit == "%":
        return f"{sign}{shown(abs(change))} pp"
    if before == 0:
        return f"{sign}{format_number(abs(change))}"
    return f"{sign}{shown(abs(change / before) * 100)} %"


def csv_cell(text):
    """A CSV text cell that a spreadsheet will not run as a formula (also
    behind leading spaces, which an import may trim)."""
    text = str(text)
    return "'" + text if text.lstrip().startswith(_FORMULA_PREFIXES) \
        else text


@functools.lru_cache(maxsize=4096)
def _csv_field(text):
    """``text`` exactly as :func:`csv.writer` writes it inside a row
    (quoted when it holds a comma, a quote or a line break)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([text, ""])
    return out.getvalue()[:-2]  # without the empty last field's ",\n"


@functools.lru_cache(maxsize=4096)
def _unit_and_label(unit, label):
    """The last two cells of a metric's CSV row, with the line end."""
    return f"{_csv_field(csv_cell(unit))},{_csv_field(csv_cell(label))}\n"
