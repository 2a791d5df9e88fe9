"""Page 1 of the PDF report, the executive summary: the question, the
recommended choice, its margin and the binding limit; the goal of every
variant as bars, what the choice changes, the findings, the question's
main chart and the variants, as far as the page holds them."""

import dataclasses

from PySide6 import QtCore, QtGui

from app.figures.views import KEY_VIEWS, REPORT_CHART_WIDTH, VIEWS
from app.presentation.content import (SAME, biggest_changes, changes_text,
                                      grouped_findings, names_text)
from app.presentation.values import row_label, shown_value
from app.report.layout import (GREY, INK, SEVERITY_COLOURS, SHRINK,
                               report_date)
from app.report.tables import TABLE_COLUMNS, first_with, table
from solvers.results import format_change, format_number

#: Bars of the summary's goal chart (the best ranked, and the base).
SUMMARY_BARS = 12

#: Biggest changes listed on the summary page.
SUMMARY_CHANGES = 8


_Qt = QtCore.Qt


def summary_page(page, scenario, results, summary, changes, sections,
                 rows):
    """Page 1: the question, the recommended choice, its margin and
    the binding limit; then the goal of every variant, what the
    choice changes, the findings and the variants, as far as the page
    holds them."""
    page.text("Linkplan comparison report · executive summary",
              size=10, colour=GREY, gap=2)
    page.text(scenario.meta.name, size=17, bold=True, gap=4)
    page.text(f"Linkplan {results.linkplan_version} · "
              f"{report_date().date().isoformat()} · scenario SHA-256 "
              f"{results.scenario_sha256[:16]}… · "
              f"{len(results.variants)} variant(s) compared",
              size=8, colour=GREY)
    page.rule()
    page.labelled("Question", summary.question)
    for objective in scenario.meta.objectives:
        page.labelled("Objective", objective)
    if summary.goal is not None:
        page.labelled("Goal", summary.goal)
        page.labelled("Recommended", summary.best or "none")
        page.labelled("Margin", summary.margin)
    page.labelled("Binding limit", summary.binding_limit)
    if summary.next_step:
        page.labelled("Next step", summary.next_step)
    if summary.values:
        goal_bars(page, summary)
    if summary.goal is None:
        summary_results(page, results, summary, rows)
    else:
        summary_changes(page, results, summary, rows)
    summary_findings(page, results)
    key = _key_chart(sections, summary.best, summary.metric)
    if key is not None:
        # the variants' lines below keep a few lines' room
        lines = 30 + 14 * min(len(changes), 4) if changes else 0
        view, heading, charts = key
        first = charts[0].height * page.width / REPORT_CHART_WIDTH
        printed = min(first, page.room() - lines - 30)
        natural = QtCore.QSize(REPORT_CHART_WIDTH, charts[0].height)
        if _VIEW_OF[view].shrinks and printed >= 150:
            page.subheading(heading, keep=printed)
            page.chart(charts[0].draw, QtCore.QSize(
                REPORT_CHART_WIDTH,
                int(printed * REPORT_CHART_WIDTH / page.width)))
        elif printed >= first * SHRINK:
            page.subheading(heading, keep=printed)
            page.chart(charts[0].draw, natural, printed)
            # the section's next charts (the N-1 view) where they fit
            for chart in charts[1:]:
                height = chart.height * page.width / REPORT_CHART_WIDTH
                if height > page.room() - lines:
                    break
                page.chart(chart.draw, QtCore.QSize(REPORT_CHART_WIDTH,
                                                    chart.height))
    summary_variants(page, results, changes)


def goal_bars(page, summary):
    """The goal of each variant as a bar, the recommended one marked;
    the best :data:`SUMMARY_BARS` (and the base) when there are more."""
    unit = "" if summary.unit in ("", "1") else f" [{summary.unit}]"
    shown = _goal_rows(summary, SUMMARY_BARS)
    bar = 17.0
    if page.room() < 40 + bar * len(shown):
        return
    page.subheading(f"{summary.goal}{unit}, every variant" +
                    ("" if len(shown) == len(summary.values) else
                     f" (the best {len(shown) - 1} of "
                     f"{len(summary.values)}, and the base)"))
    size = 8.5
    metrics = page.metrics(size, True)
    name_width = min(max(metrics.horizontalAdvance(n)
                         for n, _ in shown) + 12, page.width * 0.35)
    top = max((v for _, v in summary.values if v is not None),
              default=0.0)
    texts = {}
    base = summary.values[0][1]
    for name, value in shown:
        text = "no value" if value is None else format_number(value)
        if value is not None and base and name != summary.values[0][0] \
                and abs(value / base - 1) >= SAME:
            text += f" ({100 * (value / base - 1):+.1f} %)"
        if name == summary.best:
            text += "  ◀ recommended"
        texts[name] = text
    span = page.width - name_width - 8 - max(
        metrics.horizontalAdvance(t) for t in texts.values())
    for name, value in shown:
        best = name == summary.best
        colour = "#1f7a3a" if best else "#7f9bb8"
        if value is not None and top > 0 and value > 0:
            page.painter.fillRect(QtCore.QRectF(
                name_width, page.y + 2, span * value / top, bar - 4),
                QtGui.QColor(colour))
        text = texts[name]
        page.painter.setFont(page.font(size, best))
        page.painter.setPen(QtGui.QColor(INK))
        elided = metrics.elidedText(name, _Qt.TextElideMode.ElideRight,
                                    name_width - 10)
        flags = int(_Qt.AlignmentFlag.AlignLeft
                    | _Qt.AlignmentFlag.AlignVCenter)
        page.painter.drawText(QtCore.QRectF(0, page.y, name_width - 8,
                                            bar), flags, elided)
        end = name_width + (span * value / top if value and top > 0
                            and value > 0 else 0)
        page.painter.drawText(QtCore.QRectF(end + 4, page.y,
                                            page.width - end - 4, bar),
                              flags, text)
        page.y += bar
    page.y += 6


def summary_changes(page, results, summary, metric_rows):
    """What the recommended variant changes against the base (or, when
    the base is best, what the runner-up would change)."""
    names = [v.name for v in results.variants]
    if len(names) < 2 or page.room() < 120:
        return
    ranked = [n for n, v in sorted(
        ((n, v) for n, v in summary.values if v is not None),
        key=lambda nv: nv[1], reverse=summary.maximise)] \
        if summary.values else []
    best = summary.best or names[-1]
    if best == names[0]:
        other = next((n for n in ranked if n != best), names[1])
        reference, heading = best, f"What {other} would change " \
            "against the recommended base"
        other_name = other
    else:
        reference, other_name = names[0], best
        heading = f"What {best} changes against the base"
    rows = biggest_changes(results, metric_rows, reference, other_name,
                           SUMMARY_CHANGES)
    if not rows:
        return
    page.subheading(heading)
    size = 8.5
    widths = [page.width * 0.46, page.width * 0.18, page.width * 0.18,
              page.width * 0.18]
    page.cells(["Metric [unit]", reference, other_name, "Change"],
               widths, size, bold=True, fill="#e8eef4")
    for index, (metric_id, before, after) in enumerate(rows):
        metric = results.variant(other_name).metric(metric_id)
        earlier = results.variant(reference).metric(metric_id)
        if metric_id.endswith(".converged"):
            change = "converges" if after else "no longer converges"
        else:
            change = format_change(before, after, metric.unit,
                                   digits=1)
        page.cells([row_label(metric), shown_value(earlier),
                    shown_value(metric), change], widths, size,
                   fill="#f6f8fa" if index % 2 else None)
    page.y += 6


def summary_results(page, results, summary, rows):
    """Without a goal to rank by: the rows that differ most, for the
    first variants."""
    compared = rows.compared[:SUMMARY_CHANGES]
    if not compared or page.room() < 120:
        return
    names = [v.name for v in results.variants][:TABLE_COLUMNS]
    values = {v.name: {m.id: m for m in v.metrics}
              for v in results.variants}
    page.subheading("Key results" + (
        "" if len(names) == len(results.variants) else
        f" (the first {len(names)} of {len(results.variants)} "
        "variants)"))
    table(page, results, summary, compared, names, values)
    # the first of them as bars, every variant
    first = compared[0]
    metric = values[first_with(values, first)][first]
    goal_bars(page, dataclasses.replace(
        summary, goal=metric.label, unit=metric.unit, best=None,
        values=tuple((v.name, values[v.name][first].value
                      if first in values[v.name] else None)
                     for v in results.variants)))


def summary_findings(page, results):
    groups = grouped_findings(results)
    if not groups or page.room() < 60:
        return
    counts = ", ".join(f"{len(items)} {severity}"
                       for severity, items in groups)
    page.subheading(f"Findings ({counts}; evidence further on)")
    all_names = [v.name for v in results.variants]
    listed = [(severity, message, names) for severity, items in groups
              if severity in ("critical", "warning")
              for message, _, names in items]
    for severity, message, names in listed[:4]:
        if page.room() < 40:
            break
        page.text(f"{severity.capitalize()}: {message} "
                  f"({names_text(names, all_names)})", size=8.5,
                  colour=SEVERITY_COLOURS.get(severity, INK),
                  indent=8, gap=2)
    if len(listed) > 4:
        page.line(f"… and {len(listed) - 4} more", size=8.5,
                  colour=GREY, indent=8)
    page.y += 4


def summary_variants(page, results, changes):
    if not changes or page.room() < 50:
        return
    page.subheading("Variants (what each changes against the base)")
    variants = list(changes.items())
    for index, (name, items) in enumerate(variants):
        if page.room() < 30 and index < len(variants) - 1:
            page.line(f"… and {len(variants) - index} more, listed on "
                      "page 2", size=8.5, colour=GREY, indent=8)
            break
        page.line(f"{name}: {changes_text(items)}", size=8.5, indent=8)


def _goal_rows(summary, most):
    """(name, value) of the goal chart: every variant, or the best
    ``most - 1`` and the base (in variant order)."""
    values = list(summary.values)
    if len(values) <= most:
        return values
    ranked = sorted((nv for nv in values[1:] if nv[1] is not None),
                    key=lambda nv: nv[1], reverse=summary.maximise)
    keep = {values[0][0]} | {n for n, _ in ranked[:most - 1]}
    return [nv for nv in values if nv[0] in keep]


_VIEW_OF = {view.key: view for view in VIEWS}


def _key_chart(sections, best, goal_metric):
    """(view key, heading, charts) for page 1: the question's main section
    (of the recommended variant where charts are per variant) without the
    bars of the goal (page 1 has them already), or None."""
    for key in KEY_VIEWS:
        found = [(key, h, tuple(c for c, m in zip(charts, bars)
                                if m != goal_metric))
                 for k, h, charts, _, bars in sections if k == key]
        found = [entry for entry in found if entry[2]]
        if found:
            return next((entry for entry in found
                         if best and entry[1].endswith(best)), found[0])
    return None


