"""The main window as a user drives it (pytest-qt, offscreen)."""

from PySide6 import QtCore

from app.gui.main_window import MainWindow
from app.scenario_io import load_scenario
from solvers import metric_ids


def goodput_cell(window, column=0):
    model = window.table_model
    row = model._metric_ids.index("wire.goodput_gbps")
    return model.data(model.index(row, column))


def base_curve_marker(window):
    # the second item per variant is its marker, placed at the variant's
    # own MTU (an edit moves it)
    items = window.view_tabs["wire"].plot.getPlotItem().listDataItems()
    return items[1].pos().x(), items[1].pos().y()


def mtu_field(window):
    return window.editor.field("network.mtu")


def set_mtu(qtbot, window, value):
    mtu_field(window).enter(str(value))  # typed and committed, as Enter
    window.wait_for_results()            # evaluated off the GUI thread


def test_opens_the_example_with_every_variant(window):
    assert window.table_model.columnCount() == 5
    # 7 wire metrics, then the iperf transfer's host, transfer and uplink
    # ones, less the 5 transfer rows that repeat their host headline
    # (the 3 equal in every variant, the link rate among them, are
    # hidden until Show all rows); CPU per Gbit/s is the min_cpu goal's
    model = window.table_model
    assert model.rowCount() + model.hidden_rows == \
        len(window.results.metric_ids(
            headlines=metric_ids.repeating_headlines())) == 17
    assert "wire.link_gbps" not in model._metric_ids
    window.all_rows.setChecked(True)
    assert model.rowCount() == 17
    assert len(window.results.metric_ids()) == 22
    assert window.variants.count() == 5
    assert goodput_cell(window) == "9.415"
    assert "line rate" in window.findings.plain_text()


def test_editing_mtu_updates_table_chart_and_title(qtbot, window):
    assert base_curve_marker(window) == (1500.0, window.results.variants[0]
                                         .metric("wire.goodput_gbps").value)
    set_mtu(qtbot, window, 9000)
    assert window.scenario.network.mtu == 9000
    assert goodput_cell(window) == "9.900"
    assert base_curve_marker(window)[0] == 9000.0
    assert window.isWindowModified()


def test_undo_and_redo_restore_values(qtbot, window):
    set_mtu(qtbot, window, 9000)
    assert window.undo_action.text() == "&Undo Set MTU to 9000"
    window.undo_action.trigger()
    window.wait_for_results()
    assert window.scenario.network.mtu == 1500
    assert mtu_field(window).value() == 1500
    assert goodput_cell(window) == "9.415"
    assert not window.isWindowModified()
    window.redo_action.trigger()
    window.wait_for_results()
    assert goodput_cell(window) == "9.900"
    assert window.session.history.undo_text == "Set MTU to 9000"


def test_results_of_an_older_document_are_not_drawn(qtbot, window):
    # a worker's late result for a superseded edit arrives after the newest
    stale = window.results
    set_mtu(qtbot, window, 9000)
    window.session.results_ready.emit(window.session.generation - 1, stale)
    window.wait_for_results()
    assert goodput_cell(window) == "9.900"
    assert window.results is not stale


def test_edit_that_breaks_a_variant_is_refused(qtbot, window):
    # MTU 1000 is fine for the IPv4 base, but the example's "IPv6" variant
    # inherits it and IPv6 needs at least 1280 B (RFC 8200).
    before = window.scenario
    set_mtu(qtbot, window, 1000)
    assert window.scenario is before
    assert mtu_field(window).value() == 1500
    message = mtu_field(window).error.text()   # on the field itself
    assert "variants[1] ('IPv6'): network.mtu: must be at least 1280" in \
        message
    assert window.session.history.count == 0


def type_mtu(qtbot, window, text):
    field = mtu_field(window).input
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, QtCore.Qt.Key.Key_Return)
    window.wait_for_results()


def test_typed_mtu_beyond_the_limit_is_refused_on_the_field(qtbot, window):
    # issue 16: typing 10000 applied 1000 silently (the field's maximum cut
    # the last keystroke); the scenario's limit (mtu_max 9216) refuses it
    type_mtu(qtbot, window, "10000")
    assert window.scenario.network.mtu == 1500
    assert mtu_field(window).value() == 1500
    refusal = mtu_field(window).error
    assert refusal.isVisibleTo(window)
    assert "network.mtu" in refusal.text() and "9216" in refusal.text()
    assert "Not applied" in mtu_field(window).input.toolTip()
    assert mtu_field(window).property("refused")
    # raising the limit lets the value through, and the refusal goes
    window.edit("network.mtu_max", 9710, "Set the largest MTU to 9710")
    type_mtu(qtbot, window, "9600")
    assert window.scenario.network.mtu == 9600
    assert base_curve_marker(window)[0] == 9600.0
    assert not refusal.isVisibleTo(window) and refusal.text() == ""
    assert not mtu_field(window).property("refused")
    assert "Not applied" not in mtu_field(window).input.toolTip()


def test_invalid_combination_is_refused(qtbot, qapp, dialogs):
    window = MainWindow()
    qtbot.addWidget(window)
    window.new_document()
    set_mtu(qtbot, window, 1000)
    before = window.scenario
    field = window.editor.field("network.ip_version")
    field.enter("IPv6")
    assert window.scenario is before
    assert field.input.currentData() == 4
    assert "network.mtu: must be at least 1280 with IPv6" in \
        window.editor.refusal_text()


def test_save_writes_the_edited_document(qtbot, window, tmp_path):
    set_mtu(qtbot, window, 9000)
    path = tmp_path / "mine.toml"
    assert window.save_to(path)
    assert load_scenario(path).network.mtu == 9000
    assert not window.isWindowModified()
    assert window.windowTitle().startswith("mine.toml")


def test_opening_a_bad_file_keeps_the_document(window, dialogs, tmp_path):
    set_mtu(None, window, 9000)
    bad = tmp_path / "bad.toml"
    bad.write_text("schema_version = 1\n[meta]\nname = 3\n")
    assert not window.open_path(bad)
    assert dialogs[-1][0] == "warning"
    assert "meta.name: must be a string, got 3" in dialogs[-1][2]
    assert window.scenario.network.mtu == 9000


def test_failing_save_keeps_the_document_modified(window, dialogs, tmp_path):
    set_mtu(None, window, 9000)
    assert not window.save_to(tmp_path / "missing-dir" / "x.toml")
    assert dialogs[-1][1] == "Cannot save scenario"
    assert window.isWindowModified()


def test_an_evaluation_error_becomes_a_dialog(window, dialogs, monkeypatch):
    import app.session as module

    def broken(scenario, *, cache):
        raise RuntimeError("model bug")

    monkeypatch.setattr(module, "evaluate", broken)
    set_mtu(None, window, 4000)
    assert dialogs[-1] == ("warning", "Evaluation failed",
                           "RuntimeError: model bug")
    assert window.scenario.network.mtu == 4000  # the edit is kept


def test_close_with_unsaved_changes_asks(qtbot, window, dialogs):
    set_mtu(qtbot, window, 9000)
    window.close()  # the recorder answers Cancel
    assert dialogs[-1][1] == "Unsaved changes"
    assert window.isVisible()


def test_new_document_is_valid_and_clean(qtbot, qapp, dialogs):
    window = MainWindow()
    qtbot.addWidget(window)
    window.new_document()
    window.wait_for_results()
    assert window.scenario.meta.name == "Untitled scenario"
    assert window.table_model.columnCount() == 1
    assert window.windowTitle().startswith("untitled")


def test_a_document_that_asks_nothing_says_where_to_start(qtbot, qapp,
                                                          dialogs):
    # an architect starting from nothing: each question's template one
    # click away; a document with a workload shows its own description
    window = MainWindow()
    qtbot.addWidget(window)
    window.new_document()
    window.wait_for_results()
    hint = window.description.text()
    assert "Only the wire is answered yet" in hint
    assert "href='template:evacuation.toml'>Host evacuation</a>" in hint
    assert "href='import'" in hint
    window.description.linkActivated.emit("template:evacuation.toml")
    window.wait_for_results()
    assert window.scenario.workloads.evacuations
    assert window.description.text() == window.scenario.meta.description
    assert window.description.textFormat() == \
        QtCore.Qt.TextFormat.PlainText


def test_self_test_entry_point(qapp, capsys):
    from app.gui.application import self_test
    assert self_test() == 0
    assert capsys.readouterr().out.startswith("self-test passed")


def test_tab_title(window):
    assert window.tabs.tabText(0) == "Wire && MTU"
    assert window.table.model().headerData(
        0, QtCore.Qt.Orientation.Horizontal) == "Base"


def test_transport_tab_shows_one_bar_per_variant(window):
    from app.paths import resource_path
    import pyqtgraph as pg
    tab = window.view_tabs["transfer"]
    window.new_document()  # no transfer: the tab says how to add one
    window.wait_for_results()
    assert not tab.hint.isHidden()
    assert window.open_path(resource_path("examples",
                                          "seed001_live_migration.toml"))
    window.wait_for_results()
    window.tabs.setCurrentIndex(1)
    assert tab.hint.isHidden()
    bars = [item for item in tab.plots[0].getPlotItem().items
            if isinstance(item, pg.BarGraphItem)]
    assert len(bars) == 8
    assert "team hash puts 4 flow(s)" in window.findings.plain_text()


def test_many_redraws_keep_none_alive(window):
    # Regression: PySide6 6.12.0 decremented None's refcount on every
    # graphics-item removal, so a few dozen redraws aborted Python 3.11
    # ("deallocating None"). Every edit redraws every chart.
    import sys
    before = sys.getrefcount(None)
    for mtu in range(1500, 1500 + 8 * 30, 8):
        window.apply_value("network.mtu", mtu)
        window.wait_for_results()
    assert sys.getrefcount(None) >= before


def test_migration_tab_names_migrations_that_do_not_converge(window):
    from app.paths import resource_path
    import pyqtgraph as pg
    tab = window.view_tabs["migration"]
    assert not tab.hint.isHidden()  # example: no migration
    window.open_path(resource_path("examples", "seed001_live_migration.toml"))
    # 700 MiB/s of dirtying outruns the 4.4 Gbit/s each of the four VMs
    # get over TCP and LACP, but not one VM over SMB
    window.apply_value("workloads.migrations[0].dirty.rate_mib_s", 700.0)
    window.wait_for_results()
    texts = [item.textItem.toPlainText()
             for item in tab.plots[0].getPlotItem().items
             if isinstance(item, pg.TextItem)]
    assert texts[0] == "does not converge"
    assert texts[2] != "does not converge"
    assert "does not complete" in window.findings.plain_text()


def test_teaming_tab_compares_policies_and_follows_the_variant(window):
    from app.paths import resource_path
    import pyqtgraph as pg
    tab = window.view_tabs["teaming"]
    assert not tab.hint.isHidden()  # example: no flows
    window.open_path(resource_path("examples", "seed000_lbt.toml"))
    window.wait_for_results()
    assert tab.hint.isHidden()
    assert tab.policy.count() == 6
    assert tab.policy.currentData() == "lbt"  # configured first
    curves = tab.uplink_plot.getPlotItem().listDataItems()
    assert [c.name() for c in curves] == ["dvUplink1", "dvUplink2"]
    # one dotted line per LBT move, one dashed threshold
    lines = [i for i in tab.uplink_plot.getPlotItem().items
             if isinstance(i, pg.InfiniteLine)]
    assert len(lines) == 3
    tab.variant.setCurrentIndex(1)    # "Originating port ID"
    assert tab.policy.currentData() == "lbt"   # kept by name
    tab.policy.setCurrentIndex(tab.policy.findData("port_id"))
    second = tab.uplink_plot.getPlotItem().listDataItems()[1]
    assert max(second.getData()[1]) == 0          # dvUplink2 idles


def test_teaming_tab_shows_the_first_of_two_teams(window):
    # with flows on two teams every teaming id names its team
    # (solvers.metric_ids); the tab charts bond0, whose members are
    # eno1/eno2, and its policies' peaks against bond0's optimum
    import pyqtgraph as pg
    from tests.solvers.test_contract import two_team_layer2_bonds
    tab = window.view_tabs["teaming"]
    window.show_scenario(two_team_layer2_bonds())
    window.wait_for_results()
    assert tab.hint.isHidden()
    assert tab.policy.currentData() == "balance_xor"   # configured first
    assert tab.policy.count() == 4
    curves = tab.uplink_plot.getPlotItem().listDataItems()
    assert [c.name() for c in curves] == ["eno1", "eno2"]
    bars = [i for i in tab.policy_plot.getPlotItem().items
            if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 4


def test_recommendation_is_applied_as_an_undoable_edit(window):
    from app.paths import resource_path
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    dialog = window.advice_dialog(window.session.advice())
    assert dialog.list.count() == 1 and dialog.apply_button.isEnabled()
    dialog._apply()
    window.apply_recommendation(dialog.chosen)
    window.wait_for_results()
    assert window.scenario.value_at(
        "workloads.storage[0].threads_per_disk") == 2
    assert window.results.variants[0].metric("storage.oio").value == 20
    window.undo()
    assert window.scenario.value_at(
        "workloads.storage[0].threads_per_disk") == 1


def test_recommend_opens_the_dialog_when_the_advice_is_ready(
        window, monkeypatch):
    # advice is computed off the GUI thread; the dialog opens for the
    # document it was asked about, and not after the document changed
    from app.gui.advice import AdviceDialog
    from app.paths import resource_path
    shown = []
    monkeypatch.setattr(AdviceDialog, "exec",
                        lambda dialog: shown.append(dialog.result) or 0)
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    window.recommend_dialog()
    assert "Computing recommendations" in window.statusBar().currentMessage()
    outcome = window.session.advice()
    window.wait_for_results()
    assert [result.recommendations for result in shown] == \
        [outcome.advice.recommendations]
    window.apply_value("workloads.storage[0].threads_per_disk", 2)
    window.recommend_dialog()   # asked of a version an edit replaces
    window.apply_value("workloads.storage[0].threads_per_disk", 3)
    window.session.request_advice().result()
    window.wait_for_results()
    assert len(shown) == 1
    assert "Recommendations dropped" in window.statusBar().currentMessage()


def test_recommend_opens_the_dialog_when_the_advice_was_ready_before(
        window, monkeypatch, qtbot):
    # issue 32 item 8: the findings panel computes the advice soon after
    # the results; asked afterwards, the dialog must open at once (it
    # used to wait for an announcement that had already gone by)
    from app.gui.advice import AdviceDialog
    from app.paths import resource_path
    shown = []
    monkeypatch.setattr(AdviceDialog, "exec",
                        lambda dialog: shown.append(dialog.result) or 0)
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    window.wait_for_results()
    outcome = window.session.advice(timeout=60)   # the panel's, unasked
    qtbot.waitUntil(lambda: window.findings.advice is not None,
                    timeout=10000)
    for _ in range(2):   # every time it is asked
        window.recommend_dialog()
        qtbot.waitUntil(lambda: len(shown) == _ + 1, timeout=2000)
    assert [r.recommendations for r in shown] == \
        [outcome.advice.recommendations] * 2
    assert "Computing" not in window.statusBar().currentMessage()
    # and for another goal picked in the dialog, computed once before
    window.session.advice(timeout=60, goal="latency_target")
    dialog = window.advice_dialog(outcome)
    window._advice_dialog = dialog
    window.ask_advice_for("latency_target")
    assert dialog.result.goal == "latency_target"


def test_nothing_to_advise_is_a_dialog_not_a_crash(window, dialogs):
    # jumbo example: throughput
    assert window.advice_dialog(window.session.advice()) is not None
    window.show_scenario(window.scenario.with_values(
        {"workloads.transfers": [], "workloads.migrations": []}))
    assert window.advice_dialog(window.session.advice()) is None
    assert dialogs and "Nothing to recommend" in str(dialogs[-1])


def test_team_policy_edit_brings_its_switch_mode(window):
    from app.paths import resource_path
    assert "teams[0]" not in window.editor._items   # example: no team
    window.open_path(resource_path("examples", "seed000_lbt.toml"))
    # the example's "Originating port ID" variant would refuse LACP's
    # switch mode (a variant that an edit breaks is refused)
    window.show_scenario(window.scenario.with_values({"variants": []}))
    combo = window.editor.field("teams[0].policy").input
    assert combo.currentData() == "lbt"
    combo.activated.emit(combo.findData("lacp"))
    assert window.scenario.teams[0].policy == "lacp"
    assert window.scenario.teams[0].switch_mode == "lacp"
    window.undo()
    assert (window.scenario.teams[0].policy,
            window.scenario.teams[0].switch_mode) == ("lbt", "independent")
    # a policy whose hash fields the flows lack is refused, with the field
    window.show_scenario(window.scenario.with_values({
        "workloads.flows[0].src_ip": None}))
    combo.activated.emit(combo.findData("ip_hash"))
    assert window.scenario.teams[0].policy == "lbt"
    assert "src_ip is required" in window.editor.refusal_text()


def test_any_parameter_is_editable_and_undoable(window):
    from app.paths import resource_path
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    path = "workloads.storage[0].threads_per_disk"
    field = window.editor.field(path)
    assert field.text() == "1"
    field.enter("2")
    window.wait_for_results()
    assert window.results.variants[0].metric("storage.oio").value == 20
    window.undo()
    assert window.editor.field(path).text() == "1"


def test_bad_parameter_text_is_refused_on_the_field(window):
    field = window.editor.field("network.mtu")
    field.enter("jumbo")
    assert "expected a whole number, got 'jumbo'" in field.error.text()
    assert window.session.history.count == 0
    field.enter("99999")   # out of range
    assert "Not applied" in field.error.text()
    assert window.scenario.network.mtu == 1500
    assert field.text() == "1500"


def test_evacuation_tab_draws_the_schedule_of_the_chosen_variant(window):
    from app.paths import resource_path
    import pyqtgraph as pg
    tab = window.view_tabs["evacuation"]
    assert not tab.hint.isHidden()  # example: no evacuation
    window.open_path(resource_path("examples",
                                   "evacuation_maintenance.toml"))
    window.wait_for_results()
    assert tab.hint.isHidden()

    def bar_ends():
        bars = [item for item in tab.plot.getPlotItem().items
                if isinstance(item, pg.BarGraphItem)]
        return max(x0 + w for bar in bars
                   for x0, w in zip(bar.opts["x0"], bar.opts["width"]))

    base = window.results.variants[0].metric("evacuation.total_s").value
    assert bar_ends() == base
    tab.variant.setCurrentIndex(1)   # concurrency 2
    assert bar_ends() == window.results.variants[1].metric(
        "evacuation.total_s").value != base


def test_evacuation_gantt_shows_the_disk_copy_lighter(window, tmp_path):
    # without shared storage each bar starts with its disk copy: a second,
    # lighter bar over that part, from the schedule's disk_start/disk_end
    from app.paths import resource_path
    import pyqtgraph as pg
    text = resource_path("examples", "evacuation_maintenance.toml"
                         ).read_text()
    text = text.replace('platform = "vsphere"',
                        'platform = "vsphere"\ndisks = "copied"', 1)
    text = text.replace("memory_gib = 128.0",
                        "memory_gib = 128.0\ndisk_gib = 200.0", 1)
    path = tmp_path / "local_disks.toml"
    path.write_text(text)
    window.open_path(path)
    window.wait_for_results()
    tab = window.view_tabs["evacuation"]
    plot = tab.plot.getPlotItem()
    bars = [item for item in plot.items if isinstance(item, pg.BarGraphItem)]
    trace = window.results.variants[0].traces["evacuation.esx01.schedule"]
    copying = [r for r, (a, b) in enumerate(zip(trace["disk_start_s"],
                                                 trace["disk_end_s"]))
               if b > a]
    assert len(copying) == 1 and len(bars) == 2
    assert list(bars[-1].opts["x0"]) == [trace["disk_start_s"][copying[0]]]
    assert "disk copy" in plot.getAxis("bottom").labelText


def test_evacuation_tab_plots_the_total_time_by_concurrency(window):
    # beside the Gantt: the configured order's total time at each
    # concurrency the platform allows (vSphere on 25 GbE: 1 to 8), the
    # one used marked; the minimum is the best concurrency the results name
    from app.paths import resource_path
    import pyqtgraph as pg
    window.open_path(resource_path("examples",
                                   "evacuation_maintenance.toml"))
    window.wait_for_results()
    tab = window.view_tabs["evacuation"]
    variant = window.results.variants[0]
    line = next(item for item in tab.sweep_plot.getPlotItem().items
                if isinstance(item, pg.PlotDataItem) and item.opts["pen"]
                is not None and item.xData is not None and len(item.xData) > 1)
    assert list(line.xData) == list(range(1, 9))
    assert line.yData[7] == variant.metric("evacuation.total_s").value
    best = variant.metric("evacuation.best_concurrency").value
    assert line.xData[int(line.yData.argmin())] == best
    marker = next(item for item in tab.sweep_plot.getPlotItem().items
                  if isinstance(item, pg.InfiniteLine))
    assert marker.value() == variant.metric("evacuation.concurrency").value


def test_results_say_which_validated_cases_back_them(window):
    # the goodput row: V1 and V2 (fasterdata, MTU 9000 and 1500 on
    # 10 GbE) check wire.goodput_gbps and are held
    model = window.table_model
    row = model._metric_ids.index("wire.goodput_gbps")
    cell = model.data(model.index(row, 0), QtCore.Qt.ItemDataRole.ToolTipRole)
    header = model.headerData(row, QtCore.Qt.Orientation.Vertical,
                              QtCore.Qt.ItemDataRole.ToolTipRole)
    for text in (cell, header):
        assert "Backed by V1 (+-1 %), V2" in text
        assert text.rstrip().endswith(": held")


_CLOSE_DURING_ADVICE = """
import threading, time
import app.session as session_module
started = threading.Event()
def minute_long_advice(scenario, goal=None, callback=None):
    started.set()
    time.sleep(60)   # evaluating candidates: no callback meanwhile
session_module.advise = minute_long_advice
from PySide6 import QtWidgets
from app.gui.main_window import MainWindow
app = QtWidgets.QApplication([])
window = MainWindow(recovery_folder={recovery!r})
window.open_example()
window.show()
window.wait_for_results()
window.recommend_dialog()
assert started.wait(30)
begun = time.perf_counter()
window.close()
print(f"{{time.perf_counter() - begun:.3f}}")
"""


def test_closing_during_a_long_advice_ends_linkplan_at_once(tmp_path):
    # the window closed at once, but the process ended only when the
    # session's advice did (its worker was joined at exit)
    import os
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    begun = time.perf_counter()
    process = subprocess.run(
        [sys.executable, "-c", _CLOSE_DURING_ADVICE.format(
            recovery=str(tmp_path / "recovery"))],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=50)
    assert process.returncode == 0, process.stderr
    assert float(process.stdout) < 1.0
    assert time.perf_counter() - begun < 40   # never the minute of advice
