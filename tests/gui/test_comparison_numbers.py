"""The comparison table's cells and tooltips read as a person expects
(issue 37 item 4): percentages change in points, noise is no change."""

from app.presentation.values import cell_text, delta_text
from solvers.results import Metric


def metric(value, unit="%"):
    return Metric("host.cpu_pct", value, unit, "Host: CPU")


def test_a_percentage_cell_changes_in_points():
    # 0.6 % -> 9.9 % read "+1465.3 %" before
    assert cell_text(metric(9.9), metric(0.6)) == "9.900 (+9.3 pp)"
    assert delta_text(metric(9.9), metric(0.6)) == "+9.300 pp"
    # down to zero: "0 (-100 %)" before
    assert cell_text(metric(0.0), metric(40.0)) == "0 (\u221240.0 pp)"


def test_other_units_keep_their_relative_change():
    assert cell_text(metric(12.5, "Gbit/s"), metric(10.0, "Gbit/s")) == \
        "12.50 (+25.0 %)"
    assert delta_text(metric(12.5, "Gbit/s"), metric(10.0, "Gbit/s")) == \
        "+2.500, +25.00 %"


def test_noise_shows_as_no_change():
    assert cell_text(metric(2.22e-14), metric(0.0)) == "0"
    assert delta_text(metric(2.22e-14), metric(0.0)) == ""
