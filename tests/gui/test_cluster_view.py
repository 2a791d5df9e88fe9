"""The Fabric tab (issue 35 item 5): the cluster's hosts, switches and
links drawn coloured by utilisation, a case picker marking the worst case,
and the same drawing in the PDF."""

import unicodedata

import pyqtgraph as pg
from pypdf import PdfReader
from PySide6 import QtWidgets

from app.figures.charts import (LIGHT, draw_cluster_topology, new_plot_widget,
                            utilisation_colour)
from app.figures.views import worst_cluster_case
from app.gui.views import WORST_MARK
from app.report.pdf import write_report
from app.scenario_io import load_scenario
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES
from tests.gui.helpers import open_example


def _line_colours(plot_item):
    return [item.opts["pen"].color().name()
            for item in plot_item.items if isinstance(item, pg.PlotDataItem)]


def test_a_failed_switch_and_its_links_are_drawn_down(qapp):
    scenario = load_scenario(EXAMPLES / "cluster_vsan_esa.toml")
    trace = evaluate(scenario).variants[0].traces["cluster.topology"]
    # 8 hosts x 2 NICs, every case
    assert len(trace["link_pct"][0]) == 8 and len(trace["nics"]) == 2
    # the worst case is one whose busiest link is the most loaded
    worst = worst_cluster_case(trace)
    peak = max(max(map(max, trace["link_pct"][worst])),
               max(trace["uplink_pct"][worst]))
    assert all(max(max(map(max, hosts)), max(uplinks)) <= peak
               for hosts, uplinks in zip(trace["link_pct"],
                                         trace["uplink_pct"]))
    case = trace["cases"].index("switch_down.tor-a")
    widget = new_plot_widget()
    plot = widget.getPlotItem()
    draw_cluster_topology(plot, trace, case)
    colours = _line_colours(plot)
    # 16 host links and 2 uplinks: tor-a's 8 links and its uplinks faint
    assert len(colours) == 18
    assert colours.count(LIGHT.faint.lower()) == 9
    # each host's link to tor-b carries all its traffic
    survivor = trace["link_pct"][case][0][1]
    assert utilisation_colour(survivor).lower() in colours
    assert plot.titleLabel.text.startswith("switch_down.tor-a")
    assert "busiest host link" in plot.titleLabel.text


def test_the_fabric_tab_picks_a_case(qapp, window):
    open_example(window, "cluster_vsan_esa.toml")
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    window.tabs.setCurrentIndex(titles.index("Fabric"))
    qapp.processEvents()
    tab = window.tabs.currentWidget()
    case = [c for c in tab.findChildren(QtWidgets.QComboBox)
            if c.toolTip() == "Failure or maintenance case drawn"][0]
    names = [case.itemText(i) for i in range(case.count())]
    assert names[0] == "normal"
    assert sum(n.endswith(WORST_MARK) for n in names) == 1
    case.setCurrentIndex(names.index("maintenance.esa"))
    qapp.processEvents()
    plot = tab.findChildren(pg.PlotWidget)[0].getPlotItem()
    assert plot.titleLabel.text.startswith("maintenance.esa")


def test_the_report_draws_the_fabric(qapp, tmp_path):
    scenario = load_scenario(EXAMPLES / "cluster_s2d.toml")
    path = tmp_path / "cluster.pdf"
    write_report(scenario, evaluate(scenario), path)
    text = unicodedata.normalize("NFKC", " ".join(
        " ".join(page.extract_text().split())
        for page in PdfReader(path).pages))
    assert "Cluster fabric: normal operation and each variant's worst case" \
        in text
    # the base's normal operation first, then each worst case once
    assert "In order: Base, normal; Base, " in text
    assert "blue up to 70 %, amber to 100 %, red above" in text
