"""The findings panel, the sweep tab and the teaming N-1 view (issue 16
items 3, 4, 5), and the PDF of what they show (item 9), offscreen."""

import csv
import io
import threading
import time

import pytest
from pypdf import PdfReader

from app.sweep_run import SweepRequest, axis_points, run_sweep
from app.paths import resource_path
from tests.gui.helpers import open_example, set_sweep_axis



def advice_shown(qtbot, window):
    window.advice_timer.stop()
    window._advise_panel()
    window.session.advice(timeout=60)
    window.wait_for_results()
    qtbot.waitUntil(lambda: window.findings.advice is not None,
                    timeout=5000)


def test_panel_shows_the_verdict_its_calculation_and_grouped_findings(
        window):
    # seed 003: vm48 converges only throttled to ~2 % (the migration
    # analysis' finding), so that is the verdict, with the migration's
    # own numbers under it
    open_example(window, "seed003_vmotion.toml")
    text = window.findings.plain_text()
    assert "converges only by throttling the guest" in \
        text.split("Findings")[0]
    assert "Calculation (migration)" in text
    assert "final guest throttle" in text
    assert "Warning (1)" in text
    assert "Evidence:" in text


def test_apply_changes_the_base_and_undo_restores_it(qtbot, window):
    # seed 002 (HCIBench): 10 outstanding IO below the knee of 11; the
    # recommendation is 2 threads per disk
    open_example(window, "seed002_hcibench.toml")
    advice_shown(qtbot, window)
    recommendation, as_variant = window.findings.links["apply:1"]
    assert not as_variant
    path = next(iter(recommendation.change))
    before = window.scenario.value_at(path)
    window.findings.follow("apply:1")   # the link's click
    window.wait_for_results()
    assert window.scenario.value_at(path) == \
        recommendation.change[path]["new"]
    window.undo()
    window.wait_for_results()
    assert window.scenario.value_at(path) == before


def test_an_edit_withdraws_the_recommendations_made_before_it(
        qtbot, window):
    # each effect was re-evaluated against the scenario before the edit:
    # its Apply link must not outlive it
    open_example(window, "seed002_hcibench.toml")
    advice_shown(qtbot, window)
    assert "apply:1" in window.findings.links
    window.findings.follow("apply:1")
    window.wait_for_results()
    window.advice_timer.stop()   # held back: the panel between the two
    assert window.findings.advice is None
    assert "apply:1" not in window.findings.links
    assert "Recommendations (base): computing" in \
        window.findings.plain_text()


def test_recommendations_name_the_goal_and_the_field_in_words(qtbot, window):
    # issue 37 item 3: texts from field labels, never a raw path
    open_example(window, "jumbo_10gbe.toml")
    advice_shown(qtbot, window)
    text = window.findings.plain_text()
    assert "Network › MTU: 1500 B → 9000 B" in text
    assert "goal: Highest host throughput" in text
    assert "network.mtu" not in text and "max_throughput" not in text


def test_apply_as_variant_keeps_the_base_and_undoes(qtbot, window):
    open_example(window, "seed002_hcibench.toml")
    advice_shown(qtbot, window)
    variants = len(window.scenario.variants)
    base = window.scenario.model_copy(update={"variants": []})
    recommendation, as_variant = window.findings.links["variant:1"]
    assert as_variant
    window.findings.follow("variant:1")
    window.wait_for_results()
    added = window.scenario.variants[-1]
    assert len(window.scenario.variants) == variants + 1
    assert added.set == {p: c["new"]
                         for p, c in recommendation.change.items()}
    assert window.scenario.model_copy(update={"variants": []}) == base
    window.undo()
    assert len(window.scenario.variants) == variants


def test_sweep_runs_off_the_gui_thread_and_exports_csv(qtbot, window,
                                                       tmp_path):
    open_example(window, "jumbo_10gbe.toml")
    panel = window.sweep_panel
    set_sweep_axis(panel.first, "network.mtu", 1500, 9000, 16)
    panel.start()
    assert panel.running or panel.wait(0)
    qtbot.waitUntil(lambda: panel.data is not None, timeout=30_000)
    # one series per variant, 16 MTUs each
    assert [name for name, _ in panel.data.request.series] == \
        [v.name for v in window.results.variants]
    assert panel.progress.value() == panel.progress.maximum() == \
        16 * len(window.results.variants)
    assert panel.export_to(tmp_path / "sweep.csv")
    rows = list(csv.DictReader(io.StringIO(
        (tmp_path / "sweep.csv").read_text())))
    assert len(rows) == 16 * len(window.results.variants)
    # the base at MTU 1500 equals the evaluated base (9.415 Gbit/s TCP
    # goodput of the example's table)
    first = rows[0]
    assert first["network.mtu"] == "1500"
    assert abs(float(first["wire.goodput_gbps[Gbit/s]"]) -
               window.results.variants[0].metric(
                   "wire.goodput_gbps").value) < 1e-9


def test_sweep_cancel_stops_within_100_ms(qtbot, window):
    # issue 16: a 10k-point sweep is cancellable within 100 ms (the
    # timing itself is the benchmark's; here: it stops, early, and says so)
    open_example(window, "seed003_vmotion.toml")
    panel = window.sweep_panel
    set_sweep_axis(panel.first, "network.mtu", 1500, 9000, 100)
    panel.two_axes.setChecked(True)
    set_sweep_axis(panel.second, "nics[0].speed_gbps", 1, 100, 100)
    # cancel on the first progress report: the column path is fast
    # enough that waiting for progress from the test could see the end
    panel.progress.valueChanged.connect(
        lambda value: value > 0 and panel.cancel())
    panel.start()
    qtbot.waitUntil(lambda: "Cancelled" in panel.status.text(),
                    timeout=30_000)
    assert panel.wait(5)
    assert panel.data is None
    assert panel.progress.value() < panel.progress.maximum()


def test_run_sweep_stops_when_cancelled_from_the_start():
    from app.scenario_io import load_scenario
    scenario = load_scenario(resource_path("examples", "jumbo_10gbe.toml"))
    cancel = threading.Event()
    cancel.set()
    request = SweepRequest([("network.mtu", axis_points(
        scenario, "network.mtu", 1500, 9000, 1000))],
        scenario.variant_documents())
    started = time.perf_counter()
    data = run_sweep(request, cancel)
    assert data.cancelled and data.done < request.total
    assert time.perf_counter() - started < 5


def test_teaming_n1_switch_moves_the_flows_to_the_surviving_uplink(window):
    # seed 000: two uplinks under LBT; losing dvUplink1 puts all four web
    # flows on dvUplink2 at 132 % (the n1 finding of the analysis)
    open_example(window, "seed000_lbt.toml")
    tab = window.view_tabs["teaming"]
    window.tabs.setCurrentWidget(tab.widget)   # hidden tabs draw when shown
    assert tab.state.count() == 2
    assert tab.state.itemText(0) == "All uplinks"

    def flows_per_uplink():
        return {tab.flows.topLevelItem(i).text(0).split()[0]:
                tab.flows.topLevelItem(i).childCount()
                for i in range(tab.flows.topLevelItemCount())}
    assert flows_per_uplink() == {"dvUplink1": 2, "dvUplink2": 2}
    tab.state.setCurrentIndex(1)
    assert "N-1" in tab.state.currentText()
    assert flows_per_uplink() == {"dvUplink1": 0, "dvUplink2": 4}
    assert "132 %" in tab.flows.topLevelItem(1).text(0)
    # the optimum column: the uplink the optimal placement gives a flow
    optimum = {tab.flows.topLevelItem(1).child(i).text(1)
               for i in range(4)}
    assert optimum == {"dvUplink1", "dvUplink2"}


def test_pdf_from_the_window_has_the_summary_the_sweep_and_page_numbers(
        qtbot, window, tmp_path):
    open_example(window, "seed003_vmotion.toml")
    panel = window.sweep_panel
    set_sweep_axis(panel.first, "workloads.migrations[0].dirty.rate_mib_s",
                   500, 8000, 12)
    panel.start()
    qtbot.waitUntil(lambda: panel.data is not None, timeout=30_000)
    path = tmp_path / "report.pdf"
    assert window.export_pdf_to(path)
    pages = [" ".join(p.extract_text().split())
             for p in PdfReader(path).pages]
    assert "executive summary" in pages[0]
    assert "Binding limit Migration 'vm48' converges only by throttling" \
        in pages[0]
    assert any("Sweep:" in page and "dirty.rate_mib_s" in page
               for page in pages)
    assert all(f"Page {n}" in page for n, page in enumerate(pages, 1))


def test_two_axis_sweep_points_equal_one_by_one_evaluate():
    # the column axis (MTU) is evaluated fastest, then put back in the
    # request's order: a point of the grid is that point's evaluate()
    from app.scenario_io import load_scenario
    from solvers.evaluate import evaluate
    scenario = load_scenario(resource_path("examples", "jumbo_10gbe.toml"))
    name, base = scenario.variant_documents()[0]
    request = SweepRequest(
        [("network.mtu", axis_points(scenario, "network.mtu", 1500, 9000,
                                     7)),
         ("nics[0].speed_gbps", axis_points(scenario, "nics[0].speed_gbps",
                                            1, 100, 5))], [(name, base)])
    data = run_sweep(request, threading.Event())
    assert data.error is None and data.done == 35
    mtu, speed = request.axes[0][1][4], request.axes[1][1][3]
    assert data.combos[name][4 * 5 + 3] == (mtu, speed)
    expected = evaluate(base.with_values({
        "network.mtu": mtu, "nics[0].speed_gbps": speed})).variants[0]
    for metric_id in ("wire.goodput_gbps", "host.throughput_gbps"):
        assert data.grid(name, metric_id)[4, 3] == \
            expected.metric(metric_id).value


def test_evidence_of_a_setting_is_shown_as_it_is():
    # a receive-queue finding's evidence is the setting ('vrss'), not a
    # number (explain_vmq_one_core, found by the report fuzzer)
    from app.presentation.findings import evidence_text
    text = evidence_text({"metric": "host.throughput_gbps", "value": "vrss",
                          "threshold": 9.5})
    assert text.endswith(": vrss against 9.500 Gbit/s")


def test_the_table_answers_the_goal_first(window):
    # the evacuation example's goal is the evacuation time: its row leads
    # the table, above the wire and host rows it follows from
    open_example(window, "evacuation_maintenance.toml")
    model = window.table_model
    model.show_all_rows(True)
    ids = model._metric_ids
    assert ids[0] == "evacuation.total_s"
    assert ids.index("wire.goodput_gbps") > ids.index("evacuation.total_s")


def test_the_n1_picker_drives_the_policy_peaks_and_the_loads(window):
    # issue 37: "the N-1/N-2 selector changes only the left chart; the
    # policy bars and the loads over time stay at all uplinks"
    import pyqtgraph as pg
    open_example(window, "seed000_lbt.toml")
    tab = window.view_tabs["teaming"]
    window.tabs.setCurrentWidget(tab.widget)

    def peak_texts():
        return sorted(item.textItem.toPlainText() for item in
                      tab.policy_plot.getPlotItem().items
                      if isinstance(item, pg.TextItem) and
                      item.textItem.toPlainText().endswith("%"))

    def loads_peak():
        return max(max(item.yData) for item in
                   tab.uplink_plot.getPlotItem().listDataItems())
    healthy, healthy_loads = peak_texts(), loads_peak()
    # all uplinks: LBT 76.9 % (seed 000's analysis, the comparison table)
    assert "76.93 %" in healthy
    tab.state.setCurrentIndex(1)   # N-1
    lost = peak_texts()
    assert lost != healthy
    # losing one of two uplinks puts every flow on the survivor: 132 %
    # under each policy that keeps the survivor (the n1 metric)
    assert "132.0 %" in lost
    assert loads_peak() == pytest.approx(132.0, abs=0.05)
    assert loads_peak() > healthy_loads
    assert "N-1" in tab.uplink_plot.getPlotItem().titleLabel.text
    tab.state.setCurrentIndex(0)
    assert peak_texts() == healthy
