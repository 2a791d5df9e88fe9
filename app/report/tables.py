"""The PDF report's tables: the scenario and its variants, the comparison
(metrics as rows, variants as columns, each value with its change against
the base, continued over pages with the header repeated), what is the same
in every variant (the teaming policies as a table) and the binding limit
of each variant."""

from PySide6 import QtCore, QtGui

from app.figures.charts import variant_colour
from app.presentation.content import (NOISE_GAIN_PCT, SAME, changes_text,
                                      grouped_limits, is_gain, names_text,
                                      teaming_pivot)
from app.presentation.values import row_label, shown_value
from app.report.layout import ACCENT, GREY
from solvers import metric_ids
from solvers.results import format_number

#: Variant columns of one comparison table; more variants continue in
#: further tables, each with the base again as the reference.
TABLE_COLUMNS = 6


_Qt = QtCore.Qt


def variants_section(page, scenario, changes):
    page.heading("Scenario and variants")
    host, network = scenario.host, scenario.network
    nics = ", ".join(f"{n.id} {n.speed_gbps:g} Gbit/s"
                     for n in scenario.nics)
    for line in (
            f"Host: {host.hypervisor}, {host.sockets} × "
            f"{host.cores_per_socket} cores at {host.ghz:g} GHz; "
            f"NICs: {nics}",
            f"Network: IP MTU {network.mtu} B, IPv{network.ip_version}, "
            f"{network.vlan_tags} VLAN tag(s), TCP timestamps "
            f"{'on' if network.tcp_timestamps else 'off'}, overlay "
            f"{network.encapsulation}"):
        page.text(line, size=9, gap=2)
    if not scenario.variants:
        return
    page.y += 4
    for variant in scenario.variants:
        items = changes_text(changes[variant.name])
        if variant.description:
            page.text(f"{variant.name} — {variant.description}",
                      size=9, bold=True, gap=1, keep=12)
            page.text(items, size=8.5, indent=12, gap=3)
        else:
            page.text(f"{variant.name}: {items}", size=8.5, gap=2)


def comparison_section(page, results, summary, rows):
    names = [v.name for v in results.variants]
    others = names[1:]
    groups = max(1, -(-len(others) // (TABLE_COLUMNS - 1)))
    per_group = -(-len(others) // groups) if others else 0
    heading = "Comparison" if not others else \
        "Comparison (change against the base in brackets)"
    values = {v.name: {m.id: m for m in v.metrics}
              for v in results.variants}
    for group in range(groups):
        shown = [names[0]] + others[group * per_group:
                                    (group + 1) * per_group]
        if groups > 1:
            page.heading(f"{heading}, table {group + 1} of {groups}",
                         keep=120)
        else:
            page.heading(heading, keep=120)
        table(page, results, summary, rows.compared, shown, values)
    if rows.same:
        same_section(page, results, rows.same, values)
    if rows.noise:
        page.text("Left out as noise: " + ", ".join(
            values[first_with(values, m)][m].label
            for m in rows.noise) + f" (below {NOISE_GAIN_PCT:g} % in "
            "every variant).", size=7.5, colour=GREY)


def table(page, results, summary, metric_ids, shown, values):
    """Metrics as rows, the ``shown`` variants as columns, each value
    with its change against the base; the goal first; continues on new
    pages with the header repeated."""
    columns = len(shown)
    size = 8.5 if columns <= 4 else 7.5
    labels = {m: row_label(values[first_with(values, m)][m])
              for m in metric_ids}
    goal_label = None
    if summary.goal is not None and len(shown) > 1:
        unit = "" if summary.unit in ("", "1") else f" [{summary.unit}]"
        goal_label = f"Goal: {summary.goal}{unit}"
    metrics = page.metrics(size)
    widest = max([metrics.horizontalAdvance(t) for t in labels.values()]
                 + [metrics.horizontalAdvance(goal_label or "")] + [80])
    label_width = min(widest + 12, page.width * (0.42 if columns <= 4
                                                 else 0.3))
    column_width = (page.width - label_width) / columns
    widths = [label_width] + [column_width] * columns
    one_line = column_width > metrics.horizontalAdvance(
        "1,234,567 (+100.0 %)") + 10
    row_height = (1 if one_line else 2) * metrics.lineSpacing() + 6
    index_of = {v.name: i for i, v in enumerate(results.variants)}
    colours = {i + 1: variant_colour(index_of[n])
               for i, n in enumerate(shown)}
    bold = page.metrics(size, True)
    header_height = 8 + max(bold.boundingRect(
        QtCore.QRectF(0, 0, column_width - 8, 1000),
        int(_Qt.TextFlag.TextWordWrap), n).height() for n in shown)

    def header():
        page.ensure(header_height + 3 * row_height)
        page.cells(["Metric [unit]"] + shown, widths, size, bold=True,
                   colours=colours, fill="#e8eef4",
                   height=header_height)

    goal_values = dict(summary.values)
    # a row none of these variants has is left to the other tables
    rows = ([None] if goal_label else []) + [
        m for m in metric_ids if any(m in values[n] for n in shown)]
    header()
    for row, metric_id in enumerate(rows):
        if metric_id is None:
            numbers = [goal_values.get(n) for n in shown]
            texts = [goal_label] + [
                "no value" if x is None else format_number(x)
                for x in numbers]
        else:
            found = [values[n].get(metric_id) for n in shown]
            numbers = [None if m is None or m.id.endswith(".converged")
                       else m.value for m in found]
            largest = max((abs(x) for x in numbers if x is not None),
                          default=0.0)
            texts = [labels[metric_id]] + [
                "–" if m is None else
                # float dust (1e-12 of the row's largest) reads as 0
                "0" if n is not None and abs(n) < 1e-9 * largest
                else shown_value(m) for m, n in zip(found, numbers)]
            if is_gain(metric_id):
                # a change of a gain in per cent of it says nothing
                numbers = [None] * len(numbers)
        reference = numbers[0]
        for index in range(1, len(shown)):
            number = numbers[index]
            if number is not None and reference and \
                    abs(number / reference - 1) >= SAME:
                texts[index + 1] += (" " if one_line else "\n") + \
                    f"({100 * (number / reference - 1):+.1f} %)"
        height = page.cells_height(texts, widths, size,
                                   metric_id is None, row_height)
        if page.y + height > page.bottom:
            page.new_page()
            header()
        page.cells(texts, widths, size, bold=metric_id is None,
                   fill="#f6f8fa" if row % 2 else None, height=height)
    page.painter.setPen(QtGui.QPen(QtGui.QColor(ACCENT), 1))
    page.painter.drawLine(QtCore.QPointF(0, page.y),
                          QtCore.QPointF(page.width, page.y))
    page.y += 6


def same_section(page, results, metric_ids, values):
    """Metrics equal in every variant: the teaming policies as a
    table, the rest as label and value in two columns."""
    base = results.variants[0].name
    columns, policies, rest = teaming_pivot(metric_ids)
    title = "The same in every variant" if len(results.variants) > 1 \
        else "Results"
    if policies:
        page.heading(f"Teaming policies ({title.lower()})", keep=120)
        size = 7.5
        labels = [f"{metric_ids_info(policies, key)}" for key in columns]
        first = page.width * 0.22
        widths = [first] + [(page.width - first) / len(columns)] * \
            len(columns)
        header = ["Policy"] + labels
        height = page.cells_height(header, widths, size, True)
        page.ensure(height + 40)
        page.cells(header, widths, size, bold=True, fill="#e8eef4",
                   height=height)
        for row, (policy, by_key) in enumerate(policies):
            texts = [policy] + [
                shown_value(values[base][by_key[key]])
                if key in by_key else "–" for key in columns]
            height = page.cells_height(texts, widths, size)
            page.ensure(height)
            page.cells(texts, widths, size, height=height,
                       fill="#f6f8fa" if row % 2 else None)
        page.y += 6
    if not rest:
        return
    size = 7.5
    page.heading(title if not policies else f"{title}, other results",
                 keep=50)
    half = page.width / 2
    widths = [half * 0.72, half * 0.28]
    metrics = page.metrics(size)
    height = metrics.lineSpacing() + 4
    entries = [(row_label(values[base][m]), shown_value(values[base][m]))
               for m in rest]
    while entries:
        rows = min(-(-len(entries) // 2), int(page.room() // height))
        if rows <= 0:
            page.new_page()
            continue
        top = page.y
        for column, chunk in enumerate((entries[:rows],
                                        entries[rows:2 * rows])):
            page.y = top
            page.painter.save()
            page.painter.translate(column * half, 0)
            for label, value in chunk:
                page.cells([metrics.elidedText(
                    label, _Qt.TextElideMode.ElideRight,
                    widths[0] - 8), value], widths, size, height=height)
            page.painter.restore()
        page.y = top + rows * height + 4
        entries = entries[2 * rows:]


def limits_section(page, results):
    page.heading("Binding limit")
    all_names = [v.name for v in results.variants]
    for message, names in grouped_limits(results):
        if len(all_names) == 1:
            page.text(message, gap=2)
        else:
            page.text(f"{names_text(names, all_names)}: {message}",
                      gap=2)


def metric_ids_info(policies, key):
    """Column header of a teaming measure: its label and unit."""
    metric_id = next(by_key[key] for _, by_key in policies if key in by_key)
    unit, label = metric_ids.info(metric_id)
    label = label.rpartition(": ")[2]
    label = label[:1].upper() + label[1:]
    return label if unit in ("", "1") else f"{label} [{unit}]"


def first_with(values, metric_id):
    """The first variant (name) that has the metric."""
    return next(name for name, metrics in values.items()
                if metric_id in metrics)


