"""The models against published measurements: each validation case's
scenario is solved by :func:`solvers.evaluate.evaluate` and the metrics it
names are compared with the measured values, within the case's stated
tolerance.

Cases arrive as :class:`Case` objects (``app.validation_io`` reads them
from ``resources/validation/``); this module does no file I/O. A case whose
set-up the scenario schema cannot express yet has ``status =
"not_modelled"`` and is listed, never solved.
"""

import csv
import io
import json
import math
from dataclasses import dataclass, field

import numpy as np

from models.scenario import Scenario
from solvers.evaluate import evaluate
from solvers.results import csv_cell, format_number

#: Areas of the validation set, in report order.
AREAS = ("wire", "host_cpu", "transport", "migration", "storage", "teaming",
         "evacuation", "cluster")

#: Each area as a reader names what its cases test.
AREA_LABELS = {"wire": "Wire: framing, MTU",
               "host_cpu": "Host: CPU per byte and frame, RSS, cores",
               "transport": "Transports: TCP, SMB, RDMA, UDP, compression",
               "migration": "Live migration: pre-copy",
               "storage": "Storage IO: queues, back ends",
               "teaming": "Teaming: uplink hashing and balancing",
               "evacuation": "Host evacuation: shared link, concurrency",
               "cluster": "Cluster fabric: replication, rebuild, failures"}

#: Case statuses: solved and expected to hold; solved and known to miss
#: (the reason says why; the test expects the miss); not expressible yet.
STATUSES = ("held", "known_miss", "not_modelled")


@dataclass(frozen=True)
class Check:
    """One compared quantity of a case.

    The modelled value is ``metric`` of ``variant`` or, with
    ``relative_to``, its ratio to the same metric of that other variant.
    Exactly one acceptance rule applies: ``rel`` (symmetric relative
    tolerance), ``rel_range`` (model/measured - 1 within [lo, hi]),
    ``abs`` (absolute, in the metric's unit), ``band`` (model within
    [lo, hi]), or ``bottleneck`` / ``bottleneck_not`` (the variant's
    binding limit, by id; no metric).
    """

    variant: str = "Base"
    metric: str | None = None
    measured: float | None = None
    unit: str = ""
    relative_to: str | None = None
    rel: float | None = None
    rel_range: tuple[float, float] | None = None
    abs: float | None = None
    band: tuple[float, float] | None = None
    bottleneck: str | None = None
    bottleneck_not: str | None = None
    justification: str = ""


@dataclass(frozen=True)
class Case:
    """A published measurement with the scenario that reproduces it."""

    id: str
    title: str
    area: str
    model: str
    source: str
    url: str
    status: str = "held"
    reason: str = ""
    scenario: Scenario | None = None
    checks: tuple[Check, ...] = ()
    origin: str = ""
    setup: str = ""


@dataclass(frozen=True)
class CheckResult:
    """A check solved: the modelled value, its error and the verdict.

    ``error_pct`` is the signed relative error 100 (model/measured - 1)
    of a check with a measured value and a tolerance (``rel``,
    ``rel_range``, ``abs``), else None: bands and bottleneck rules are
    verdicts only and stay out of the error statistics.
    """

    check: Check
    model: float | str | None
    error_pct: float | None
    passed: bool
    message: str = ""


@dataclass(frozen=True)
class CaseResult:
    """Every check of one case; ``passed`` when all of them hold."""

    case: Case
    checks: tuple[CheckResult, ...] = ()
    error: str = ""

    @property
    def passed(self):
        return not self.error and all(c.passed for c in self.checks)

    @property
    def verdict(self):
        """'pass', 'miss', 'known miss' or 'not modelled'."""
        if self.case.status == "not_modelled":
            return "not modelled"
        if self.passed:
            return "pass"
        return "known miss" if self.case.status == "known_miss" else "miss"


@dataclass(frozen=True)
class AreaSummary:
    """Accuracy of one area: cases solved, held, and the absolute
    relative errors of its numeric checks [%]."""

    area: str
    cases: int
    held: int
    not_modelled: int
    median_error_pct: float | None
    p90_error_pct: float | None


@dataclass(frozen=True)
class AccuracyReport:
    """All case results and the per-area summary."""

    results: tuple[CaseResult, ...]
    areas: tuple[AreaSummary, ...] = field(default=())

    @property
    def total(self):
        """The summary over every area (area ``"all"``)."""
        return _summarise("all", self.results)

    def rows(self):
        """One plain-data row per check of a solved case, and one per
        case that is not modelled (without a check)."""
        rows = []
        for result in self.results:
            case = result.case
            common = {"case": case.id, "area": case.area,
                      "verdict": result.verdict, "title": case.title,
                      "model_tested": case.model, "source": case.source,
                      "url": case.url}
            if case.status == "not_modelled" or result.error:
                # published values only: nothing was solved
                rows.extend({**common, "variant": c.variant,
                             "quantity": _quantity(c), "model": None,
                             "measured": c.measured, "unit": c.unit,
                             "error_pct": None,
                             "tolerance": tolerance_text(c), "check": "",
                             "note": case.reason or result.error}
                            for c in case.checks or (Check(),))
                continue
            for check in result.checks:
                rows.append({
                    **common, "variant": check.check.variant,
                    "quantity": _quantity(check.check),
                    "model": check.model, "measured": check.check.measured,
                    "unit": check.check.unit, "error_pct": check.error_pct,
                    "tolerance": tolerance_text(check.check),
                    "check": "pass" if check.passed else "miss",
                    "note": case.reason})
        return rows

    def summary_rows(self):
        """The per-area summary as plain data, the whole set last."""
        return [{"area": s.area, "cases": s.cases, "held": s.held,
                 "not_modelled": s.not_modelled,
                 "median_error_pct": s.median_error_pct,
                 "p90_error_pct": s.p90_error_pct}
                for s in self.areas + (self.total,)]

    def to_json(self):
        """Deterministic JSON: ``{"summary": [...], "checks": [...]}``."""
        return json.dumps({"summary": self.summary_rows(),
                           "checks": self.rows()}, indent=2,
                          ensure_ascii=False, allow_nan=False) + "\n"

    def to_csv(self):
        """One row per check (see :meth:`rows`)."""
        rows = self.rows()
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(list(rows[0]))
        for row in rows:
            writer.writerow([csv_cell("" if v is None else v)
                             if not isinstance(v, float) else repr(v)
                             for v in row.values()])
        return out.getvalue()

    def summary_table(self):
        """The per-area summary as text lines (also docs/validation.md's)."""
        head = ["area", "cases", "held", "not modelled", "median |error|",
                "p90 |error|"]
        body = [[s["area"], str(s["cases"]), str(s["held"]),
                 str(s["not_modelled"]), _percent(s["median_error_pct"]),
                 _percent(s["p90_error_pct"])]
                for s in self.summary_rows()]
        return _align(head, body, left=1)

    def to_table(self):
        """A text table: model vs measured, error and verdict per check,
        the cases not modelled yet, then the summary per area."""
        head = ["case", "area", "variant", "quantity", "model", "measured",
                "unit", "error", "tolerance", "verdict"]
        body, missing = [], []
        for row in self.rows():
            if row["verdict"] == "not modelled":
                measured = (f"measured {_cell(row['measured'])} "
                            f"{row['unit']}; " if row["measured"] else "")
                missing.append(f"  {row['case']} ({row['area']}): "
                               f"{measured}{row['note']}")
                continue
            body.append([row["case"], row["area"], row["variant"],
                         row["quantity"], _cell(row["model"]),
                         _cell(row["measured"]), row["unit"],
                         _percent(row["error_pct"], signed=True),
                         row["tolerance"],
                         row["check"] if row["verdict"] != "known miss"
                         else f"{row['check']} (known)"])
        lines = _align(head, body, left=4)
        if missing:
            lines += ["", f"Not modelled yet ({len(missing)}):"] + missing
        known = [r for r in self.results if r.verdict == "known miss"]
        if known:
            lines += ["", "Known misses:"] + [
                f"  {r.case.id}: {r.case.reason}" for r in known]
        total = self.total
        lines += ["", f"Cases held: {total.held} of {total.cases} solved "
                  f"({total.not_modelled} not modelled yet)", ""]
        lines += self.summary_table()
        return "\n".join(lines) + "\n"


def _quantity(check):
    if check.metric is None:
        return "bottleneck"
    if check.relative_to:
        return f"{check.metric} / [{check.relative_to}]"
    return check.metric


def tolerance_text(check):
    """The acceptance rule of a check, in words."""
    if check.rel is not None:
        return f"+-{100 * check.rel:g} %"
    if check.rel_range is not None:
        low, high = check.rel_range
        return f"{100 * low:+g} % .. {100 * high:+g} %"
    if check.abs is not None:
        return f"+-{check.abs:g} {check.unit}".rstrip()
    if check.band is not None:
        return f"in [{check.band[0]:g}, {check.band[1]:g}]"
    if check.bottleneck is not None:
        return f"= {check.bottleneck}"
    return f"not {check.bottleneck_not}"


def _cell(value):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return format_number(value) if math.isfinite(value) else str(value)


def _percent(value, signed=False):
    if value is None:
        return "-"
    return f"{value:+.1f} %" if signed else f"{value:.1f} %"


def _align(head, body, left):
    """Rows as aligned text: the first ``left`` columns left-aligned."""
    widths = [max(len(row[i]) for row in [head] + body)
              for i in range(len(head))]
    return ["  ".join(cell.ljust(w) if i < left else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths)))
            .rstrip() for row in [head] + body]


def _variant(results, name, case_id):
    for variant in results.variants:
        if variant.name == name:
            return variant
    names = ", ".join(v.name for v in results.variants)
    raise KeyError(f"case {case_id}: no variant {name!r} (has: {names})")


def _modelled(results, check, case_id):
    variant = _variant(results, check.variant, case_id)
    if check.metric is None:
        return variant.bottleneck.id
    value = variant.metric(check.metric).value
    if check.relative_to is not None:
        reference = _variant(results, check.relative_to, case_id)
        value = value / reference.metric(check.metric).value
    return value


def judge(check, model):
    """Compare one modelled value with its check.

    Returns
    -------
    CheckResult
    """
    if check.metric is None:
        if check.bottleneck is not None:
            passed = model == check.bottleneck
            return CheckResult(check, model, None, passed,
                               f"limit {model}, expected {check.bottleneck}")
        passed = model != check.bottleneck_not
        return CheckResult(check, model, None, passed,
                           f"limit {model}, must not be "
                           f"{check.bottleneck_not}")
    error = None
    if check.band is None and check.measured not in (None, 0):
        error = 100 * (model / check.measured - 1)
    if check.rel is not None:
        passed = abs(model / check.measured - 1) <= check.rel
    elif check.rel_range is not None:
        low, high = check.rel_range
        passed = low <= model / check.measured - 1 <= high
    elif check.abs is not None:
        passed = abs(model - check.measured) <= check.abs
    else:
        low, high = check.band
        passed = low <= model <= high
    return CheckResult(check, model, error, bool(passed))


def solve_case(case, cache=None):
    """Solve one case (``cache`` maps id(scenario) to its results, so the
    cases of one scenario solve it once)."""
    if case.status == "not_modelled":
        return CaseResult(case)
    cache = {} if cache is None else cache
    key = id(case.scenario)
    if key not in cache:
        cache[key] = evaluate(case.scenario)
    try:
        checks = tuple(judge(check, _modelled(cache[key], check, case.id))
                       for check in case.checks)
    except KeyError as err:
        return CaseResult(case, error=str(err.args[0]))
    return CaseResult(case, checks)


def _percentile(errors, q):
    return float(np.percentile(errors, q)) if errors else None


def _summarise(area, results):
    solved = [r for r in results if r.case.status != "not_modelled"]
    errors = [abs(c.error_pct) for r in solved for c in r.checks
              if c.error_pct is not None]
    return AreaSummary(area, len(solved), sum(r.passed for r in solved),
                       len(results) - len(solved), _percentile(errors, 50),
                       _percentile(errors, 90))


def assess(cases):
    """Solve every case and summarise per area.

    Parameters
    ----------
    cases : iterable of Case

    Returns
    -------
    AccuracyReport
        Results in the order given; one summary per area of ``AREAS``
        that has cases. Median and 90th percentile are over the absolute
        relative errors of every numeric check of the area's solved cases.
    """
    cache = {}
    results = tuple(solve_case(case, cache) for case in cases)
    areas = tuple(_summarise(area, [r for r in results
                                    if r.case.area == area])
                  for area in AREAS
                  if any(r.case.area == area for r in results))
    return AccuracyReport(results, areas)
