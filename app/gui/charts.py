"""Chart drawing shared by the main window and the PDF report: the same
function draws into the on-screen plot and into the report's plot."""

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

#: One colour per variant column, in order (colour-blind safe, Okabe-Ito).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
           "#56B4E9", "#000000", "#F0E442")


def variant_colour(index):
    """The colour of the variant at this position."""
    return PALETTE[index % len(PALETTE)]


def draw_goodput_vs_mtu(plot_item, results):
    """Goodput against MTU for each variant, with a marker at the variant's
    own MTU.

    Parameters
    ----------
    plot_item : pyqtgraph.PlotItem
        Where to draw; cleared first.
    results : solvers.results.Results
        Results whose variants carry the ``goodput_vs_mtu`` trace.
    """
    plot_item.clear()
    if plot_item.legend is None:
        # bottom right: the curves rise towards the top right
        plot_item.addLegend(offset=(-10, -10))
    plot_item.setLabel("bottom", "IP MTU [B]")
    plot_item.setLabel("left", "Link-bound goodput [Gbit/s]")
    plot_item.showGrid(x=True, y=True, alpha=0.25)
    for index, variant in enumerate(results.variants):
        trace = variant.traces["goodput_vs_mtu"]
        colour = variant_colour(index)
        plot_item.plot(trace["x"]["values"], trace["y"]["values"],
                       pen=pg.mkPen(colour, width=2), name=variant.name)
        marker = trace["marker"]
        plot_item.plot([marker["x"]], [marker["y"]], pen=None, symbol="o",
                       symbolSize=10, symbolBrush=colour,
                       symbolPen=pg.mkPen("w", width=1))
    plot_item.getViewBox().enableAutoRange()


def new_plot_widget():
    """A plot widget with Linkplan's light look."""
    widget = pg.PlotWidget(background="w")
    widget.setMinimumSize(QtCore.QSize(320, 240))
    tick_font = QtGui.QFont(QtWidgets.QApplication.font())
    tick_font.setPointSizeF(8.5)
    for axis in ("left", "bottom"):
        axis_item = widget.getPlotItem().getAxis(axis)
        axis_item.setTextPen("k")
        axis_item.setPen("k")
        axis_item.setTickFont(tick_font)
    return widget
