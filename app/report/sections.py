"""The PDF report's sections after the tables: each view's charts, the
findings with their evidence, the recommended changes with their effect,
predicted against measured migrations, the site calibration, the models'
accuracy against published measurements, and the assumptions."""

import math

from PySide6 import QtCore

from app.calibrate_cli import error_summary
from app.figures.views import REPORT_CHART_WIDTH
from app.presentation.content import (change_words, grouped_findings,
                                      names_text)
from app.presentation.findings import effect_text, evidence_text
from app.presentation.goals import GOAL_LABELS
from app.presentation.summary import reason
from app.report.layout import GREY, SEVERITY_COLOURS, SHRINK
from solvers import metric_ids
from solvers.accuracy import AREA_LABELS
from solvers.results import format_number


def chart_section(page, heading, charts, caption=""):
    """A heading and its charts; a chart that does not fit the rest of
    the page is scaled down to it when that keeps :data:`SHRINK` of
    its size, else it starts the next page."""
    largest = (page.bottom - 60) * REPORT_CHART_WIDTH / page.width
    heights = [min(c.height, largest) * page.width / REPORT_CHART_WIDTH
               for c in charts]
    page.heading(heading, keep=heights[0] * SHRINK + 6)
    for chart, height in zip(charts, heights):
        printed = None
        if page.y + height > page.bottom:
            if page.room() - 6 >= height * SHRINK:
                printed = page.room() - 6
            else:
                page.new_page()
                page.text(f"{heading} (continued)", size=8,
                          colour=GREY)
        page.chart(chart.draw, QtCore.QSize(
            REPORT_CHART_WIDTH,
            int(height * REPORT_CHART_WIDTH / page.width)), printed)
    if caption:
        page.text(caption, size=8, colour=GREY)


def findings_section(page, results):
    groups = grouped_findings(results)
    if not groups:
        return
    page.heading("Findings")
    all_names = [v.name for v in results.variants]
    for severity, items in groups:
        page.subheading(f"{severity.capitalize()} ({len(items)})",
                        colour=SEVERITY_COLOURS.get(severity,
                                                     "#1f5a8a"))
        for message, finding, names in items:
            page.text(f"{message} ({names_text(names, all_names)})",
                      size=9, indent=12, gap=1, keep=12)
            evidence = evidence_text(finding.evidence)
            if evidence:
                page.text(f"Evidence: {evidence}", size=8,
                          colour=GREY, indent=24, gap=3)


def advice_section(page, advice, scenario):
    page.heading("Recommended changes (base scenario)")
    try:
        unit, label = metric_ids.info(advice.metric)
    except (KeyError, ValueError):
        unit, label = "", advice.metric
    unit = "" if unit in ("", "1") else f" {unit}"
    now = "no value" if not math.isfinite(advice.base_value) \
        else f"{format_number(advice.base_value)}{unit}"
    page.text(f"Goal: {GOAL_LABELS.get(advice.goal, advice.goal)}; "
              f"{label} is {now} now. Each effect below is the model "
              "re-solved with the change.", gap=4)
    if not advice.recommendations:
        page.text("No change improves the goal.")
    for rank, r in enumerate(advice.recommendations, 1):
        page.text(f"{rank}. {change_words(r, scenario)} "
                  f"({r.gain_pct:+.1f} % on the goal)", bold=True,
                  size=9, gap=1, keep=24)
        if reason(r):
            page.text(f"Why: {reason(r)}", size=8.5, indent=16, gap=1)
        for line in effect_text(r):
            page.text(line, size=8.5, indent=16, gap=1)
        page.y += 4


def check_section(page, check, rows):
    """Predicted vs measured for an imported, completed migration."""
    page.heading(f"Predicted vs measured: migration "
                 f"{check['name']}", keep=100)
    page.text(f"Measured: {check['source']}", size=8, colour=GREY)
    for row in rows:
        unit = f" {row['unit']}" if row["unit"] else ""
        predicted = "no value (does not converge)" \
            if row["predicted"] is None \
            else f"{format_number(row['predicted'])}{unit}"
        error = "" if row["error_pct"] is None \
            else f", error {row['error_pct']:+.1f} %"
        page.text(f"{row['label']}: predicted {predicted}, measured "
                  f"{format_number(row['measured'])}{unit}{error}",
                  indent=12, gap=1)


def calibration_section(page, site):
    """The site preset: what was fitted to the user's runs, what the
    runs could not determine, and each run predicted (fitted on all
    runs, and held out: fitted on the others)."""
    page.heading(f"Calibrated on measurements: site preset "
                 f"{site.name}", keep=100)
    page.text(f"Fitted {site.date} on {len(site.sources)} file(s): "
              + ", ".join(site.sources[:6])
              + (" …" if len(site.sources) > 6 else ""), size=8,
              colour=GREY)
    for line in site.fitted:
        page.text(f"Fitted: {line}", size=8.5, indent=12, gap=1)
    for line in site.undetermined:
        page.text(f"Not determined: {line}", size=8.5, indent=12,
                  gap=1)
    if not site.checks:
        return
    page.y += 4
    size = 7.5
    widths = [page.width * share
              for share in (0.46, 0.16, 0.1, 0.1, 0.08, 0.1)]
    header = ["Run", "Quantity", "Measured", "Predicted", "Error",
              "Role"]
    page.cells(header, widths, size, bold=True, fill="#e8eef4")
    for row, check in enumerate(site.checks):
        texts = [check.run, check.quantity,
                 format_number(check.measured),
                 format_number(check.predicted),
                 f"{check.error_pct:+.1f} %",
                 check.role.replace("_", " ")]
        if page.room() < page.cells_height(texts, widths, size) + 4:
            page.new_page()   # the table goes on, its header repeated
            page.cells(header, widths, size, bold=True,
                       fill="#e8eef4")
        page.cells(texts, widths, size,
                   fill="#f6f8fa" if row % 2 else None)
    page.y += 4
    for line in error_summary(site.checks):
        page.text(line[0].upper() + line[1:], size=8.5, gap=1)
    page.y += 4


def accuracy_section(page, found, summary):
    """How far the models behind these results were from published
    measurements: one row per validation area they come from, the
    whole set, and the cases behind the goal's quantity."""
    page.heading("Accuracy against published measurements", keep=90)
    if found.problem:
        page.text(found.problem, size=9)
        return
    page.text("The models behind these results solved against the "
              "published measurements bundled with Linkplan "
              "(linkplan accuracy lists every case with its source). "
              "Error is model / measured − 1, over the checks with a "
              "measured value; the median and p90 are of its size.",
              size=8, colour=GREY)
    size = 8
    widths = [page.width * share
              for share in (0.44, 0.11, 0.09, 0.12, 0.12, 0.12)]
    page.cells(["Models", "Cases solved", "Held", "Not modelled",
                "Median error", "p90 error"], widths, size, bold=True,
               fill="#e8eef4")
    for row, area in enumerate(found.areas + (found.total,)):
        label = "All areas" if area is found.total \
            else AREA_LABELS[area.area]
        page.cells([label, str(area.cases), str(area.held),
                    str(area.not_modelled),
                    _error_text(area.median_error_pct),
                    _error_text(area.p90_error_pct)], widths, size,
                   bold=area is found.total,
                   fill="#f6f8fa" if row % 2 else None)
    page.y += 6
    if found.goal_backing:
        page.text(f"The cases behind the goal ({summary.goal}):",
                  size=8.5, gap=1, keep=12)
        for line in found.goal_backing.splitlines():
            page.text(line.replace("+-", "±"), size=8, indent=12, gap=1)


def assumptions_section(page, scenario, results):
    """Each assumption once: the scenario's own, those every variant
    shares, then those of some variants with their names."""
    page.heading("Assumptions")
    all_names = [v.name for v in results.variants]
    # the scenario's own first: imported values name their file and
    # column ("Measured ... from FILE, COLUMN")
    for assumption in scenario.meta.assumptions:
        page.text(f"• {assumption}", size=8.5, gap=2)
    shared, specific = results.assumptions_by_scope()
    for assumption in shared:
        page.text(f"• {assumption}", size=8.5, gap=2)
    for names, assumption in specific:
        page.text(f"• {names_text(names, all_names)}: {assumption}",
                  size=8.5, gap=2)
    page.y += 6
    page.text("Attached to this PDF: scenario.toml (the scenario as "
              "evaluated) and results.json (every number above).",
              size=8, colour=GREY)


def _error_text(percent):
    return "–" if percent is None else f"{percent:.1f} %"
