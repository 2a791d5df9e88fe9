"""Chart drawing shared by the main window and the PDF report: the same
function draws into the on-screen plot and into the report's plot, in the
colours of the plot's theme (light, or dark on a dark desktop; the report
is always light)."""

from dataclasses import dataclass
from html import escape


import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from solvers import metric_ids
from solvers.results import format_number

#: One colour per variant column, in order (colour-blind safe, Okabe-Ito).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
           "#56B4E9", "#000000", "#B8A400")  # darkened yellow: legible text

#: The same hues lightened for a dark background (black becomes light
#: grey), so a variant keeps its colour's name in either scheme.
DARK_PALETTE = ("#4FA8E8", "#F07A3A", "#2FC79B", "#E08FC0", "#F0B03C",
                "#9AD4F5", "#E0E0E0", "#F0E442")


@dataclass(frozen=True)
class ChartTheme:
    """The colours of a chart: its canvas, its text and guide lines, and
    the variants' series (``palette``; the first three also mark within
    limit, over the limit and the optimum)."""

    name: str
    background: str
    text: str      # axes, tick labels, values at the bars' ends
    muted: str     # names above bars, labels of guide lines
    guide: str     # dashed reference lines (thresholds, 100 %)
    faint: str     # dotted event lines, lost uplinks
    palette: tuple


LIGHT = ChartTheme("light", "#FFFFFF", "#000000", "#333333", "#555555",
                   "#999999", PALETTE)
DARK = ChartTheme("dark", "#1E1E1E", "#E6E6E6", "#C8C8C8", "#AAAAAA",
                  "#6E6E6E", DARK_PALETTE)


def variant_colour(index, theme=LIGHT):
    """The colour of the variant at this position."""
    return theme.palette[index % len(theme.palette)]


def theme_of(plot_item):
    """The theme a plot is drawn in (set by :func:`apply_theme`)."""
    return getattr(plot_item, "linkplan_theme", LIGHT)


def apply_theme(widget, theme):
    """Give a plot widget the theme's canvas and axes; the next draw
    rebuilds its items in the theme's colours."""
    plot_item = widget.getPlotItem()
    plot_item.linkplan_theme = theme
    plot_item._linkplan_chart = None   # cached items carry the old colours
    widget.setBackground(theme.background)
    for axis in ("left", "bottom", "right", "top"):
        axis_item = plot_item.getAxis(axis)
        axis_item.setTextPen(theme.text)
        axis_item.setPen(theme.text)
    if plot_item.legend is not None:
        plot_item.legend.setLabelTextColor(theme.text)
    plot_item.titleLabel.setAttr("color", theme.text)
    plot_item.titleLabel.setText(plot_item.titleLabel.text)


def draw_goodput_vs_mtu(plot_item, results):
    """Goodput against MTU for each variant, with a marker at the variant's
    own MTU.

    Parameters
    ----------
    plot_item : pyqtgraph.PlotItem
        Where to draw (items of another chart are cleared first).
    results : solvers.results.Results
        Results whose variants carry the ``goodput_vs_mtu`` trace.
    """
    theme = theme_of(plot_item)
    key = ("goodput_vs_mtu", theme.name) + tuple(v.name
                                                 for v in results.variants)
    items = _reusable(plot_item, key)
    if items is None:
        if plot_item.legend is None:
            # bottom right: the curves rise towards the top right
            plot_item.addLegend(offset=(-10, -10),
                                labelTextColor=theme.text)
        plot_item.setLabel("bottom", "IP MTU [B]")
        plot_item.setLabel("left", "Link-bound goodput [Gbit/s]")
        plot_item.showGrid(x=True, y=True, alpha=0.25)
        items = []
        for index, variant in enumerate(results.variants):
            colour = variant_colour(index, theme)
            curve = plot_item.plot(pen=pg.mkPen(colour, width=2),
                                   name=variant.name)
            # one point at the origin, placed by its position: moving it
            # is one transform, new data would rebuild its symbol
            marker = pg.ScatterPlotItem([0.0], [0.0], symbol="o", size=10,
                                        brush=colour,
                                        pen=pg.mkPen(theme.background,
                                                     width=1))
            # the curves alone set the range: a marker's symbol reaches
            # past its point by pixels, so a moving marker would re-range
            # (and repaint) the whole view
            plot_item.addItem(marker, ignoreBounds=True)
            items.append((curve, marker))
        _remember(plot_item, key, items)
    # the curves drawn once into a pixmap: a moving marker exposes a few
    # pixels of a curve, which then are copied, not re-stroked; the axes
    # draw the grid over the whole view: cached, a moving marker does not
    # replay every tick and grid line under it
    _paint_cached(plot_item, [curve.curve for curve, _ in items] +
                  [plot_item.getAxis(side) for side in ("left", "bottom")])
    for (curve, _), variant in zip(items, results.variants):
        trace = variant.traces["goodput_vs_mtu"]
        _set_data(curve, trace["x"]["values"], trace["y"]["values"])
    _fit_to_curves(plot_item.getViewBox(), [curve for curve, _ in items])
    for (_, marker), variant in zip(items, results.variants):
        at = variant.traces["goodput_vs_mtu"]["marker"]
        marker.setPos(at["x"], at["y"])


def _fit_to_curves(viewbox, curves):
    """The view's range: the curves' data with the fixed padding. Not
    pyqtgraph's auto-range, which pads each curve by its pen width in
    pixels of the range before and so settles only after a few draws,
    repainting the whole chart at the first edits after opening a file."""
    x = np.concatenate([curve.xData for curve in curves])
    y = np.concatenate([curve.yData for curve in curves])
    finite = np.isfinite(x) & np.isfinite(y)
    if finite.any():
        viewbox.setRange(xRange=(x[finite].min(), x[finite].max()),
                         yRange=(y[finite].min(), y[finite].max()))


def _set_data(item, x, y):
    """Give a plot data item new points, unless it has them already (an
    edit that moves the markers leaves the curves as they are)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if item.xData is None or not np.array_equal(item.xData, x) or \
            not np.array_equal(item.yData, y):
        item.setData(x, y)


_DEVICE_CACHE = QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache


def _paint_cached(plot_item, items):
    """Keep ``items`` painted in pixmaps of device pixels (high-DPI
    correct: Qt renders them at the screen's pixel ratio), redrawn only
    when an item changes or the view scales; on screen only: a chart
    never shown (the PDF's) stays vector graphics. Asked at every draw:
    a chart first drawn before its window was shown (the first file's)
    is cached from its first draw on screen."""
    view = plot_item.getViewBox().getViewWidget()
    if view is None or not view.isVisible():
        return
    for item in items:
        if item.cacheMode() != _DEVICE_CACHE:
            item.setCacheMode(_DEVICE_CACHE)


def _reusable(plot_item, key):
    """The items drawn last time for the same chart and variant names, or
    None after clearing the plot. Edits keep the variants, so redraws only
    update data instead of rebuilding every item."""
    cached = getattr(plot_item, "_linkplan_chart", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    plot_item.clear()
    return None


def _remember(plot_item, key, items):
    plot_item._linkplan_chart = (key, items)


def new_plot_widget(theme=LIGHT):
    """A plot widget with Linkplan's look in ``theme``'s colours."""
    widget = pg.PlotWidget(background=theme.background)
    # small enough for two plots and the flows list side by side in the
    # teaming tab of a 1280 px window
    widget.setMinimumSize(QtCore.QSize(240, 200))
    tick_font = QtGui.QFont(QtWidgets.QApplication.font())
    tick_font.setPointSizeF(8.5)
    for axis in ("left", "bottom"):
        axis_item = widget.getPlotItem().getAxis(axis)
        axis_item.setTickFont(tick_font)
        # labels carry their unit: no SI rescaling of the ticks. Turned off
        # here, before any range is set, because turning it off later
        # freezes the scale of that moment (a 0.44 s bar under ticks read
        # 100-500 after another scenario's chart).
        axis_item.enableAutoSIPrefix(False)
    widget.getViewBox().suggestPadding = _padding_of_axis
    apply_theme(widget, theme)
    return widget


#: Auto-range padding per axis (x, y), a share of the range: what
#: pyqtgraph gives a chart of a 1280 x 800 window (about 770 x 380 px).
AUTO_RANGE_PADDING = (0.036, 0.051)


def _padding_of_axis(axis):
    """A fixed padding instead of pyqtgraph's, which follows the view's
    size in pixels: a range set before the window's layout settles would
    move again at the next draw, repainting the whole chart."""
    return AUTO_RANGE_PADDING[axis]


def has_metric(results, metric_id):
    """Whether any variant carries this metric."""
    return any(m.id == metric_id for v in results.variants
               for m in v.metrics)


def draw_metric_bars(plot_item, results, metric_id, label, missing=None):
    """One horizontal bar per variant for a metric, coloured like the
    variant's column, the value printed at the end of the bar.

    Parameters
    ----------
    plot_item : pyqtgraph.PlotItem
        Where to draw (items of another chart are cleared first).
    results : solvers.results.Results
        Results whose variants may carry ``metric_id``.
    metric_id : str
        E.g. ``'host.throughput_gbps'``.
    label : str
        Axis label with its unit.
    missing : str, optional
        Text for variants without the metric (e.g. "does not converge");
        None leaves them out.
    """
    rows = [(i, v, metric_id, v.name) for i, v in enumerate(results.variants)
            if missing is not None or metric_id in {m.id for m in v.metrics}]
    _draw_bars(plot_item, rows, label, missing, legend=False)


def item_metrics(results, metric_id):
    """``(item name, metric id)`` of each named item (workload, transfer,
    migration) carrying the headline ``metric_id``'s key, in order:
    ``storage.iops`` -> ``[('nfs3', 'storage.nfs3.iops'), ...]``."""
    family, key = metric_id.split(".", 1)
    found = {}
    for variant in results.variants:
        for metric in variant.metrics:
            parsed = _parsed(metric.id)
            if parsed is not None and parsed.family == family and \
                    parsed.key == key and parsed.name is not None:
                found.setdefault(parsed.name, metric.id)
    return list(found.items())


def draw_item_bars(plot_item, results, items, label, missing=None):
    """Bars of several items (``(name, metric id)``, e.g. every storage
    workload), one group per item with a bar per variant, coloured like
    the variant's column; a legend names the variants."""
    rows = [(i, v, metric_id, name if i == 0 else "")
            for name, metric_id in items
            for i, v in enumerate(results.variants)
            if missing is not None or metric_id in {m.id for m in v.metrics}]
    _draw_bars(plot_item, rows, label, missing,
               legend=len(results.variants) > 1)


def _draw_bars(plot_item, rows, label, missing, legend):
    """Horizontal bars ``(colour index, variant, metric id, tick text)``
    from the top, each value printed at its end."""
    theme = theme_of(plot_item)
    key = ("bars", label, theme.name) + tuple(
        (v.name, metric_id) for _, v, metric_id, _ in rows)
    items = _reusable(plot_item, key)
    if items is None:
        plot_item.setLabel("bottom", label)
        plot_item.showGrid(x=False, y=False)
        axis = plot_item.getAxis("left")
        axis.setTicks([[(-row, tick) for row, (*_, tick) in enumerate(rows)
                        if tick]])
        # wide enough for the longest name now: an offscreen render (the
        # PDF) happens before the axis would grow by itself
        metrics = QtGui.QFontMetrics(axis.style.get("tickFont") or
                                     QtWidgets.QApplication.font())
        axis.setWidth(12 + max((metrics.horizontalAdvance(tick)
                                for *_, tick in rows), default=0))
        # the variants' colours named above the chart, where no bar is
        variants = {v.name: index for index, v, _, _ in rows}
        plot_item.setTitle("&nbsp;&nbsp;".join(
            f"<span style='color:{variant_colour(index, theme)}'>■</span>"
            f"&nbsp;{escape(name)}" for name, index in variants.items())
            if legend else None, size="9pt", color=theme.text)
        items = []
        for row, (index, variant, _, _) in enumerate(rows):
            bar = pg.BarGraphItem(x0=0, y=-row, width=0.0,
                                  height=0.8 if legend else 0.6,
                                  brush=variant_colour(index, theme),
                                  pen=pg.mkPen(None))
            text = pg.TextItem("", color=theme.text, anchor=(0, 0.5))
            plot_item.addItem(bar)
            plot_item.addItem(text)
            items.append((bar, text))
        _remember(plot_item, key, items)
    widest = 0.0
    for row, ((bar, text), (_, variant, metric_id, _)) in enumerate(
            zip(items, rows)):
        try:
            value = variant.metric(metric_id).value
            shown = format_number(value)
        except KeyError:
            value, shown = 0.0, missing
        widest = max(widest, value)
        # each setter repaints its item: an edit that leaves a bar as it
        # was (most edits, for most bars) repaints nothing
        if bar.opts["width"] != value:
            bar.setOpts(width=value)
        if text.toPlainText() != shown:
            text.setText(shown)
        if text.pos() != QtCore.QPointF(value, -row):
            text.setPos(value, -row)
    # a quarter beyond the widest bar holds its printed value (a fifth
    # cut "0.2831" in a half-width chart); nothing to draw (no variant
    # converges): a plain 0-1 axis, not one zoomed onto rounding noise
    plot_item.getViewBox().setRange(
        xRange=(0, widest * 1.25 if widest > 0 else 1.0),
        yRange=(-len(rows) + 0.4, 0.6), padding=0)


def teaming_traces(variant):
    """The per-uplink utilization traces of a variant's first analysed
    team, the configured policy first, and that team as its metric ids
    name it (None when flows ride one team)."""
    optimal = next((p for p in map(_parsed, (m.id for m in variant.metrics))
                    if p is not None and p.family == "teaming"
                    and p.policy == "optimal" and p.key == "peak_util_pct"),
                   None)
    if optimal is None:
        return [], None
    traces = [t for key, t in variant.traces.items()
              if _is_uplink_trace(_parsed(key), optimal.team)]
    return sorted(traces, key=lambda t: not t["configured"]), optimal.team


def _parsed(metric_id):
    """The parts of a metric or trace id, or None for a trace key outside
    the id grammar (``goodput_vs_mtu``)."""
    try:
        return metric_ids.parse(metric_id)
    except ValueError:
        return None


def _is_uplink_trace(parsed, team):
    return parsed is not None and parsed.family == "teaming" and \
        parsed.key == "uplink_util" and parsed.team == team


def draw_uplink_series(plot_item, trace):
    """Utilization of each uplink over time under one policy, with the LBT
    threshold and the moves LBT made.

    Parameters
    ----------
    plot_item : pyqtgraph.PlotItem
    trace : dict
        A ``teaming[.<team>].<policy>.uplink_util`` trace.
    """
    theme = theme_of(plot_item)
    plot_item.clear()
    if plot_item.legend is None:
        # bottom right: the ramps climb towards the top
        plot_item.addLegend(offset=(-10, -10), labelTextColor=theme.text)
    plot_item.legend.clear()
    plot_item.setLabel("bottom", "Time [s]")
    plot_item.setLabel("left", "Uplink utilization [%]")
    plot_item.setTitle(trace["label"], size="9pt", color=theme.text)
    plot_item.showGrid(x=True, y=True, alpha=0.25)
    t = trace["x"]["values"]
    for index, series in enumerate(trace["series"]):
        plot_item.plot(t, series["values"], name=series["id"],
                       pen=pg.mkPen(variant_colour(index, theme), width=2))
    if trace["threshold_pct"] is not None:
        plot_item.addItem(pg.InfiniteLine(
            pos=trace["threshold_pct"], angle=0,
            pen=pg.mkPen(theme.guide, width=1, style=QtCore.Qt.DashLine),
            label=f"LBT threshold {trace['threshold_pct']:g} %",
            labelOpts={"position": 0.72, "color": theme.muted}))
    for event in trace["events"]:
        plot_item.addItem(pg.InfiniteLine(
            pos=event["t_s"], angle=90,
            pen=pg.mkPen(theme.faint, width=1, style=QtCore.Qt.DotLine)))
    plot_item.getViewBox().enableAutoRange()


def uplink_trace_after(trace, lost):
    """An uplink trace as it is after the worst loss of ``lost`` uplinks
    under its policy (its ``losses``); the trace itself for 0, None when
    the analysis has no such loss."""
    if lost == 0:
        return trace
    loss = next((x for x in trace.get("losses", ()) if x["k"] == lost),
                None)
    if loss is None:
        return None
    # LBT's moves and the threshold belong to the run with all uplinks;
    # the threshold still applies
    return {**trace, "series": loss["series"], "events": [],
            "label": f"{trace['label']}: {loss['label']}",
            "peak_pct": loss["peak_pct"]}


def draw_policy_peaks(plot_item, variant, lost=0):
    """Peak uplink utilization of every compared policy against the
    optimal placement (dashed line); with ``lost`` > 0, each policy's
    peak after its worst loss of that many uplinks (N-k)."""
    traces, team = teaming_traces(variant)
    theme = theme_of(plot_item)
    plot_item.clear()
    # the vendors' policy names (as in the policy boxes) are too long for
    # axis ticks: each stands above its bar instead
    plot_item.getAxis("left").setTicks([[]])
    plot_item.getAxis("left").setWidth(8)
    widest = 0.0
    names = []
    if lost:
        traces = [t for t in traces if uplink_trace_after(t, lost)]
    for row, trace in enumerate(traces):
        value = uplink_trace_after(trace, lost)["peak_pct"] if lost else \
            variant.metric(metric_ids.teaming(
                trace["policy"], "peak_util_pct", team)).value
        widest = max(widest, value)
        colour = theme.palette[1] if value > 100 else theme.palette[0]
        plot_item.addItem(pg.BarGraphItem(x0=0, y=-row - 0.12, width=value,
                                          height=0.42, brush=colour,
                                          pen=pg.mkPen(None)))
        name = pg.TextItem(trace["label"], color=theme.muted, anchor=(0, 1))
        name.setPos(0, -row + 0.1)
        plot_item.addItem(name)
        names.append((name, trace["label"]))
        text = pg.TextItem(f"{format_number(value)} %", color=theme.text,
                           anchor=(0, 0.5))
        text.setPos(value, -row - 0.12)
        plot_item.addItem(text)
    if lost:
        # the optimum is placed on all uplinks: no line to compare with
        optimal = 0.0
        # each policy's own worst set: the loss that hurts it most
        plot_item.setLabel("bottom", f"Peak utilization [%], worst N-{lost}")
    else:
        optimal = variant.metric(metric_ids.teaming(
            "optimal", "peak_util_pct", team)).value
        plot_item.setLabel("bottom", "Peak utilization [%]; dashed: "
                           f"optimum {format_number(optimal)} %")
        plot_item.addItem(pg.InfiniteLine(
            pos=optimal, angle=90,
            pen=pg.mkPen(theme.palette[2], width=2,
                         style=QtCore.Qt.DashLine)))
    plot_item.getViewBox().setRange(
        xRange=(0, max(widest, optimal, 1e-9) * 1.22),
        yRange=(-len(traces) + 0.4, 0.6), padding=0)
    _elide_to_view(plot_item, names)


def _elide_to_view(plot_item, texts):
    """Keep text items ``(item, whole text)`` inside the plot's view:
    elided to its width now and whenever it is resized (a long policy
    name in a narrow chart), whole where they fit."""
    view = plot_item.getViewBox()
    view._linkplan_texts = texts

    def fit():
        width = view.width() - 8
        if width < 40:   # not laid out yet: nothing to measure against
            return
        for item, whole in view._linkplan_texts:
            metrics = QtGui.QFontMetrics(item.textItem.font())
            item.setText(metrics.elidedText(
                whole, QtCore.Qt.TextElideMode.ElideRight, int(width)))
    if not getattr(view, "_linkplan_fits", False):
        view.sigResized.connect(fit)
        view._linkplan_fits = True
    fit()


#: Gantt rows labelled with VM names up to this many VMs (beyond, the
#: names would overlap).
GANTT_LABELLED_ROWS = 60

#: Gantt rows whose name is always shown: every this many.
GANTT_MAJOR_EVERY = 5


#: An evacuation's traces by kind: the trace-id builder of each.
_EVACUATION_TRACES = {"schedule": metric_ids.schedule_trace,
                      "concurrency_sweep": metric_ids.sweep_trace}


def evacuation_schedules(variant, kind="schedule"):
    """``(evacuation name, trace)`` of each evacuation of a variant, in
    scenario order: its schedule, or with ``kind='concurrency_sweep'`` its
    total time by concurrency."""
    trace_id = _EVACUATION_TRACES[kind]
    names = {key: _parsed(key) for key in variant.traces}
    return [(names[key].name, trace) for key, trace in variant.traces.items()
            if names[key] is not None and names[key].name is not None
            and key == trace_id(names[key].name)]


def draw_evacuation_sweep(plot_item, trace, used):
    """Total evacuation time of the configured order at each concurrency
    the platform allows, the one used marked; red points leave VMs
    unconverged.

    Parameters
    ----------
    plot_item : pyqtgraph.PlotItem
    trace : dict
        An ``evacuation.<name>.concurrency_sweep`` trace.
    used : float
        The concurrency the schedule runs at.
    """
    theme = theme_of(plot_item)
    plot_item.clear()
    plot_item.setTitle("Total time by concurrency", size="9pt",
                       color=theme.text)
    plot_item.setLabel("bottom", "Concurrent migrations")
    plot_item.setLabel("left", "Total time [s]")
    plot_item.showGrid(x=False, y=True, alpha=0.25)
    points = trace["x"]["values"]
    totals = trace["y"]["values"]
    plot_item.getAxis("bottom").setTicks([[(c, str(c)) for c in points]])
    plot_item.plot(points, totals, pen=pg.mkPen(theme.palette[0], width=2))
    for failed, colour in ((False, theme.palette[0]),
                           (True, theme.palette[1])):
        rows = [i for i, n in enumerate(trace["not_converged"]["values"])
                if (n > 0) == failed]
        if rows:
            plot_item.plot([points[i] for i in rows], [totals[i] for i in rows],
                           pen=None, symbol="o", symbolSize=7,
                           symbolBrush=colour, symbolPen=None)
    plot_item.addItem(pg.InfiniteLine(
        pos=used, angle=90,
        pen=pg.mkPen(theme.guide, width=1, style=QtCore.Qt.DashLine),
        label=f"used: {used:g}",
        labelOpts={"position": 0.92, "color": theme.muted}))
    top = max(totals, default=1.0)
    plot_item.getViewBox().setRange(
        xRange=(min(points, default=1) - 0.5, max(points, default=1) + 0.5),
        yRange=(0, top * 1.12), padding=0)


def draw_evacuation_gantt(plot_item, name, trace):
    """One bar per VM from its migration's start to its end, in start
    order; red where the VM does not converge, and lighter over the part
    that copies its disks (evacuations without shared storage).

    Parameters
    ----------
    plot_item : pyqtgraph.PlotItem
    name : str
        The evacuation's name (the title).
    trace : dict
        An ``evacuation.<name>.schedule`` trace.
    """
    theme = theme_of(plot_item)
    plot_item.clear()
    plot_item.setTitle(f"Evacuation {name}", size="9pt", color=theme.text)
    plot_item.setLabel("bottom", "Time [s]")
    plot_item.showGrid(x=True, y=False, alpha=0.25)
    names = trace["vm"]
    axis = plot_item.getAxis("left")
    labelled = len(names) <= GANTT_LABELLED_ROWS
    # every fifth name always, the others where they fit (pyqtgraph drops
    # a lower tick level whose text would crowd the axis)
    axis.setTicks([[(-row, vm) for row, vm in enumerate(names)
                    if row % GANTT_MAJOR_EVERY == 0],
                   [(-row, vm) for row, vm in enumerate(names)
                    if row % GANTT_MAJOR_EVERY]] if labelled else None)
    if labelled:
        metrics = QtGui.QFontMetrics(axis.style.get("tickFont") or
                                     QtWidgets.QApplication.font())
        axis.setWidth(12 + max((metrics.horizontalAdvance(n)
                                for n in names), default=0))
    for converged, colour in ((True, theme.palette[0]),
                              (False, theme.palette[1])):
        rows = [row for row, ok in enumerate(trace["converged"])
                if ok == converged]
        if not rows:
            continue
        plot_item.addItem(pg.BarGraphItem(
            x0=[trace["start_s"][r] for r in rows],
            width=[trace["end_s"][r] - trace["start_s"][r] for r in rows],
            y=[-r for r in rows], height=0.7, brush=colour,
            pen=pg.mkPen(None)))
    copying = [row for row, (begin, done) in enumerate(
        zip(trace["disk_start_s"], trace["disk_end_s"])) if done > begin]
    if copying:
        disk = QtGui.QColor(theme.background)
        disk.setAlpha(110)
        plot_item.addItem(pg.BarGraphItem(
            x0=[trace["disk_start_s"][r] for r in copying],
            width=[trace["disk_end_s"][r] - trace["disk_start_s"][r]
                   for r in copying],
            y=[-r for r in copying], height=0.7, brush=disk,
            pen=pg.mkPen(None), name="disk copy"))
        plot_item.setLabel("bottom", "Time [s] (lighter: disk copy)")
    end = max(trace["end_s"], default=0.0)
    plot_item.addItem(pg.InfiniteLine(
        pos=end, angle=90,
        pen=pg.mkPen(theme.guide, width=1, style=QtCore.Qt.DashLine),
        label=f"{format_number(end)} s",
        labelOpts={"position": 0.95, "color": theme.muted}))
    plot_item.getViewBox().setRange(
        xRange=(0, max(end, 1e-9) * 1.08),
        yRange=(-len(names) + 0.4, 0.6), padding=0)


def placement_trace(variant):
    """The per-uplink placement trace of a variant's first analysed team
    (healthy and N-k states beside the optimum), or None."""
    for key, trace in variant.traces.items():
        parsed = _parsed(key)
        if parsed is not None and parsed.family == "teaming" and \
                parsed.key == "placement":
            return trace
    return None


def draw_uplink_bars(plot_item, trace, state=0):
    """Peak utilization of each uplink under the configured policy in one
    state (all uplinks, or after the worst N-k loss), with the optimal
    placement's bar beside each, and the 100 % line.

    Parameters
    ----------
    plot_item : pyqtgraph.PlotItem
    trace : dict
        A ``teaming[.<team>].<policy>.placement`` trace.
    state : int
        Index into ``trace["states"]``.
    """
    theme = theme_of(plot_item)
    plot_item.clear()
    shown = trace["states"][state]
    uplinks = trace["uplinks"]
    axis = plot_item.getAxis("left")
    axis.setTicks([[(-row, name) for row, name in enumerate(uplinks)]])
    metrics = QtGui.QFontMetrics(axis.style.get("tickFont") or
                                 QtWidgets.QApplication.font())
    axis.setWidth(12 + max(metrics.horizontalAdvance(n) for n in uplinks))
    # short texts: a title wider than the chart widens its scene past
    # the view (the policy's name is in the picker and the report heading)
    plot_item.setTitle(shown["label"], size="9pt", color=theme.text)
    optimal = trace["optimal"]
    plot_item.setLabel("bottom", "Peak utilization [%]" + (
        "; green: optimum" if optimal else ""))
    widest = 100.0
    for row, (name, value) in enumerate(zip(uplinks, shown["peak_pct"])):
        lost = name in shown["failed"]
        colour = theme.faint if lost else \
            theme.palette[1] if value > 100 else theme.palette[0]
        offset = 0.14 if optimal else 0.0
        plot_item.addItem(pg.BarGraphItem(
            x0=0, y=-row + offset, width=value, height=0.36 if optimal
            else 0.6, brush=colour, pen=pg.mkPen(None)))
        text = pg.TextItem("lost" if lost else f"{format_number(value)} %",
                           color=theme.text, anchor=(0, 0.5))
        text.setPos(value, -row + offset)
        plot_item.addItem(text)
        widest = max(widest, value)
        if optimal:
            best = optimal["peak_pct"][row]
            plot_item.addItem(pg.BarGraphItem(
                x0=0, y=-row - 0.24, width=best, height=0.3,
                brush=theme.palette[2], pen=pg.mkPen(None)))
            widest = max(widest, best)
    plot_item.addItem(pg.InfiniteLine(
        pos=100, angle=90,
        pen=pg.mkPen(theme.guide, width=1, style=QtCore.Qt.DashLine)))
    # room for "132.0 %" after the longest bar in a third-width chart
    plot_item.getViewBox().setRange(
        xRange=(0, widest * 1.3), yRange=(-len(uplinks) + 0.4, 0.6),
        padding=0)


#: Most hosts the topology drawing shows one by one; the rest are summed
#: up in a note (their links are in the trace and the metrics).
TOPOLOGY_HOSTS_SHOWN = 32


def cluster_topology(variant):
    """The cluster analysis's ``cluster.topology`` trace of a variant, or
    None."""
    return variant.traces.get(metric_ids.topology_trace())


def utilisation_colour(pct, theme=LIGHT):
    """Colour of a link at ``pct`` % of its speed: the first palette hue
    up to 70 %, the fifth (amber) to 100 %, the second (red-orange)
    above."""
    return theme.palette[0] if pct < 70 else theme.palette[4] \
        if pct <= 100 else theme.palette[1]


def draw_cluster_topology(plot_item, trace, case=0):
    """Hosts below, their switches above, each host link and each
    switch's uplinks coloured by utilisation in one case (dotted and
    faint where down), with the busiest link's load per class.

    Parameters
    ----------
    plot_item : pyqtgraph.PlotItem
    trace : dict
        A ``cluster.topology`` trace.
    case : int
        Index into ``trace["cases"]``.
    """
    theme = theme_of(plot_item)
    plot_item.clear()
    for axis in ("left", "bottom"):
        plot_item.hideAxis(axis)
    hosts = trace["hosts"][:TOPOLOGY_HOSTS_SHOWN]
    switches = trace["switches"]
    width = max(len(hosts), len(switches), 2) - 1
    host_x = np.linspace(0, width, len(hosts)) if len(hosts) > 1 \
        else np.array([width / 2])
    switch_x = np.linspace(0, width, len(switches) + 2)[1:-1]
    for h, x in enumerate(host_x):
        for n, s in enumerate(trace["links"][h]):
            up = trace["nic_up"][case][h][n]
            pct = trace["link_pct"][case][h][n]
            pen = pg.mkPen(utilisation_colour(pct, theme), width=2.5) if up \
                else pg.mkPen(theme.faint, width=1,
                              style=QtCore.Qt.DotLine)
            plot_item.plot([x, switch_x[s]], [0, 1], pen=pen)
    for s, x in enumerate(switch_x):
        up = trace["switch_up"][case][s]
        pct = trace["uplink_pct"][case][s]
        colour = utilisation_colour(pct, theme) if up else theme.faint
        plot_item.plot([x, x], [1, 1.6], pen=pg.mkPen(
            colour, width=4 if up else 1,
            style=QtCore.Qt.SolidLine if up else QtCore.Qt.DotLine))
        label = pg.TextItem(
            f"{switches[s]}\nuplinks {format_number(pct)} % of "
            f"{format_number(trace['uplink_gbps'][s])} Gbit/s" if up
            else f"{switches[s]}\ndown", color=theme.text,
            anchor=(0.5, 1.0))
        label.setPos(x, 1.6)
        plot_item.addItem(label)
    plot_item.addItem(pg.ScatterPlotItem(
        x=switch_x, y=np.ones(len(switch_x)), symbol="s", size=16,
        brush=theme.muted, pen=pg.mkPen(None)))
    plot_item.addItem(pg.ScatterPlotItem(
        x=host_x, y=np.zeros(len(host_x)), symbol="s", size=12,
        brush=theme.text, pen=pg.mkPen(None)))
    if len(hosts) <= 12:
        for name, x in zip(hosts, host_x):
            label = pg.TextItem(name, color=theme.text, anchor=(0.5, 0.0))
            label.setPos(x, -0.05)
            plot_item.addItem(label)
    busiest = trace["busiest"][case]
    note = (f"busiest host link: {busiest['host']} {busiest['nic']}, "
            + ", ".join(f"{name} {format_number(gbps)}"
                        for name, gbps in zip(trace["classes"],
                                              busiest["gbps"]))
            + " Gbit/s")
    hidden = len(trace["hosts"]) - len(hosts)
    if hidden > 0:
        note += f"; {hidden} more hosts not drawn"
    plot_item.setTitle(f"{trace['cases'][case]}: {note}", size="9pt",
                       color=theme.text)
    plot_item.getViewBox().setRange(xRange=(-0.6, width + 0.6),
                                    yRange=(-0.45, 2.2), padding=0)
