"""A sweep's chart: one line per series with its knees and boundaries, or
a heatmap over two axes (the Sweep tab and the PDF report)."""

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from app.figures.charts import theme_of, variant_colour
from app.schema_fields import path_label
from app.sweep_run import marks
from solvers import metric_ids
from solvers.analysis import FLAG, TURNS


def draw_sweep(plot_item, data, metric_id, heat_series=None):
    """A 1-D sweep as one line per series with its marks, or a 2-D sweep
    as a heatmap of ``heat_series`` with the convergence boundary."""
    theme = theme_of(plot_item)
    plot_item.clear()
    if plot_item.legend is not None:
        plot_item.legend.clear()
    colour_bar = getattr(plot_item, "_linkplan_colour_bar", None)
    if colour_bar is not None:
        colour_bar.setVisible(len(data.request.axes) == 2)
    unit, label = metric_ids.info(metric_id)
    unit_text = "" if unit == "1" else f" [{unit}]"
    scenario = data.request.series[0][1]
    paths = [path_label(scenario, a[0]) for a in data.request.axes]
    plot_item.setLabel("bottom", paths[0])
    plot_item.showGrid(x=True, y=True, alpha=0.25)
    if len(paths) == 1:
        plot_item.setLabel("left", f"{label}{unit_text}")
        if plot_item.legend is None:
            plot_item.addLegend(offset=(-10, -10), labelTextColor=theme.text)
        x = data.axis_values(0)
        shown = set()
        for index, (name, _) in enumerate(data.request.series):
            if name not in data.values:
                continue
            y = data.grid(name, metric_id)
            colour = variant_colour(index, theme)
            plot_item.plot(x, y, pen=pg.mkPen(colour, width=2), name=name,
                           connect="finite")
            for at_x, at_y, text in marks(data, name, metric_id):
                if (at_x, at_y, text) in shown:
                    continue
                # each kind of mark labelled once: the series' marks of
                # one kind sit close together and their labels would overlap
                labelled = text not in {t for _, _, t in shown}
                shown.add((at_x, at_y, text))
                plot_item.addItem(pg.InfiniteLine(
                    pos=at_x if at_y is None else at_y,
                    angle=90 if at_y is None else 0,
                    pen=pg.mkPen(colour, width=1,
                                 style=QtCore.Qt.PenStyle.DashLine),
                    label=text if labelled else None,
                    labelOpts={"position": 0.9, "color": theme.muted,
                               "anchors": [(0, 0), (0, 0)]}))
        plot_item.getViewBox().enableAutoRange()
        return
    name = heat_series or data.request.series[0][0]
    plot_item.setLabel("left", paths[1])
    plot_item.setTitle(f"{name}: {label}{unit_text}", size="9pt",
                       color=theme.text)
    grid = data.grid(name, metric_id)
    x, y = data.axis_values(0), data.axis_values(1)
    finite = grid[np.isfinite(grid)]
    image = pg.ImageItem(grid)
    low, high = (float(finite.min()), float(finite.max())) if finite.size \
        else (0.0, 1.0)
    high = high if high > low else low + 1
    colour_map = pg.colormap.get("viridis")
    image.setLookupTable(colour_map.getLookupTable())
    image.setLevels((low, high))
    dx = (x[-1] - x[0]) / max(len(x) - 1, 1) or 1.0
    dy = (y[-1] - y[0]) / max(len(y) - 1, 1) or 1.0
    image.setRect(QtCore.QRectF(x[0] - dx / 2, y[0] - dy / 2,
                                dx * len(x), dy * len(y)))
    plot_item.addItem(image)
    for flag in _turning_flags():   # where a migration stops converging
        turns = data.grid(name, flag)
        if np.isfinite(turns).any() and np.nanmin(turns) < 1 <= \
                np.nanmax(turns):
            boundary = pg.IsocurveItem(np.nan_to_num(turns, nan=0), 0.5,
                                       pen=pg.mkPen("w", width=2))
            boundary.setParentItem(image)
    if colour_bar is None:
        colour_bar = pg.ColorBarItem(colorMap=colour_map, interactive=False,
                                     width=14)
        colour_bar.setImageItem(image, insert_in=plot_item)
        plot_item._linkplan_colour_bar = colour_bar
    else:
        colour_bar.setImageItem(image)
    colour_bar.axis.setTextPen(theme.text)
    colour_bar.axis.setPen(theme.text)
    colour_bar.setLevels((low, high))
    plot_item.getViewBox().autoRange(padding=0)


def _turning_flags():
    """Headline flags whose turning points a sweep marks (a heat map
    draws them as a boundary)."""
    return [shown for mark, shown, _ in metric_ids.sweep_marks()
            if mark.kind == TURNS and metric_ids.declared(shown).kind == FLAG]
