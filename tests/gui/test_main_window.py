"""The main window as a user drives it (pytest-qt, offscreen)."""

from PySide6 import QtCore

from app.gui.main_window import MainWindow
from app.scenario_io import load_scenario


def goodput_cell(window, column=0):
    model = window.table_model
    row = model._metric_ids.index("wire.goodput_gbps")
    return model.data(model.index(row, column))


def base_curve_marker(window):
    # the second item per variant is its marker at the variant's own MTU
    items = window.plot.getPlotItem().listDataItems()
    x, y = items[1].getData()
    return float(x[0]), float(y[0])


def set_mtu(qtbot, window, value):
    window.editor.mtu.setValue(value)  # keyboard tracking off: one commit


def test_opens_the_example_with_every_variant(window):
    assert window.table_model.columnCount() == 5
    # 7 wire metrics, then the iperf transfer's host, transfer and uplink
    # ones, less the 4 transfer rows that repeat their host headline
    assert window.table_model.rowCount() == \
        len(window.results.metric_ids(unique_rows=True)) == 16
    assert len(window.results.metric_ids()) == 20
    assert window.variants.count() == 5
    assert goodput_cell(window) == "9.415"
    assert "line rate" in window.notes.toPlainText()


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
    window.undo_stack.undo()
    assert window.scenario.network.mtu == 1500
    assert window.editor.mtu.value() == 1500
    assert goodput_cell(window) == "9.415"
    assert not window.isWindowModified()
    window.undo_stack.redo()
    assert goodput_cell(window) == "9.900"
    assert window.undo_stack.undoText() == "Set MTU to 9000"


def test_edit_that_breaks_a_variant_is_refused(qtbot, window):
    # MTU 1000 is fine for the IPv4 base, but the example's "IPv6" variant
    # inherits it and IPv6 needs at least 1280 B (RFC 8200).
    before = window.scenario
    set_mtu(qtbot, window, 1000)
    assert window.scenario is before
    assert window.editor.mtu.value() == 1500
    message = window.statusBar().currentMessage()
    assert "variants[1] ('IPv6'): network.mtu: must be at least 1280" in \
        message
    assert window.undo_stack.count() == 0


def test_mtu_field_follows_the_scenarios_mtu_limits(qtbot, window):
    assert window.editor.mtu.maximum() == 9216
    window.edit("network.mtu_max", 9710, "Set the largest MTU to 9710")
    assert window.editor.mtu.maximum() == 9710
    set_mtu(qtbot, window, 9600)
    assert window.scenario.network.mtu == 9600
    assert base_curve_marker(window)[0] == 9600.0


def test_invalid_combination_is_refused(qtbot, qapp, dialogs):
    window = MainWindow()
    qtbot.addWidget(window)
    window.new_document()
    set_mtu(qtbot, window, 1000)
    before = window.scenario
    index = window.editor.ip_version.findData(6)
    window.editor.ip_version.setCurrentIndex(index)
    window.editor.ip_version.activated.emit(index)
    assert window.scenario is before
    assert window.editor.ip_version.currentData() == 4
    assert "network.mtu: must be at least 1280 with IPv6" in \
        window.statusBar().currentMessage()


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
    import app.gui.main_window as module

    def broken(scenario):
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
    assert window.scenario.meta.name == "Untitled scenario"
    assert window.table_model.columnCount() == 1
    assert window.windowTitle().startswith("untitled")


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
    window.new_document()  # no transfer: the tab says how to add one
    assert not window.host_hint.isHidden()
    assert window.open_path(resource_path("examples",
                                          "seed001_live_migration.toml"))
    window.tabs.setCurrentIndex(1)
    assert window.host_hint.isHidden()
    bars = [item for item in window.throughput_plot.getPlotItem().items
            if isinstance(item, pg.BarGraphItem)]
    assert len(bars) == 8
    assert "team hash puts 4 flow(s)" in window.notes.toPlainText()


def test_many_redraws_keep_none_alive(window):
    # Regression: PySide6 6.12.0 decremented None's refcount on every
    # graphics-item removal, so a few dozen redraws aborted Python 3.11
    # ("deallocating None"). Every edit redraws every chart.
    import sys
    before = sys.getrefcount(None)
    for mtu in range(1500, 1500 + 8 * 30, 8):
        window.apply_value("network.mtu", mtu)
    assert sys.getrefcount(None) >= before


def test_migration_tab_names_migrations_that_do_not_converge(window):
    from app.paths import resource_path
    import pyqtgraph as pg
    assert not window.migration_hint.isHidden()  # example: no migration
    window.open_path(resource_path("examples", "seed001_live_migration.toml"))
    # 700 MiB/s of dirtying outruns the 4.4 Gbit/s each of the four VMs
    # get over TCP and LACP, but not one VM over SMB
    window.apply_value("workloads.migrations[0].dirty.rate_mib_s", 700.0)
    texts = [item.textItem.toPlainText()
             for item in window.migration_time_plot.getPlotItem().items
             if isinstance(item, pg.TextItem)]
    assert texts[0] == "does not converge"
    assert texts[2] != "does not converge"
    assert "does not complete" in window.notes.toPlainText()


def test_teaming_tab_compares_policies_and_follows_the_variant(window):
    from app.paths import resource_path
    import pyqtgraph as pg
    assert not window.teaming_hint.isHidden()  # example: no flows
    window.open_path(resource_path("examples", "seed000_lbt.toml"))
    assert window.teaming_hint.isHidden()
    assert window.teaming_policy.count() == 6
    assert window.teaming_policy.currentData() == "lbt"  # configured first
    curves = window.uplink_plot.getPlotItem().listDataItems()
    assert [c.name() for c in curves] == ["dvUplink1", "dvUplink2"]
    # one dotted line per LBT move, one dashed threshold
    lines = [i for i in window.uplink_plot.getPlotItem().items
             if isinstance(i, pg.InfiniteLine)]
    assert len(lines) == 3
    window.teaming_variant.setCurrentIndex(1)    # "Originating port ID"
    assert window.teaming_policy.currentData() == "lbt"   # kept by name
    window.teaming_policy.setCurrentIndex(
        window.teaming_policy.findData("port_id"))
    second = window.uplink_plot.getPlotItem().listDataItems()[1]
    assert max(second.getData()[1]) == 0          # dvUplink2 idles


def test_recommendation_is_applied_as_an_undoable_edit(window):
    from app.paths import resource_path
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    dialog = window.advice_dialog()
    assert dialog.list.count() == 1 and dialog.apply_button.isEnabled()
    dialog._apply()
    window.apply_recommendation(dialog.chosen)
    assert window.scenario.value_at(
        "workloads.storage[0].threads_per_disk") == 2
    assert window.results.variants[0].metric("storage.oio").value == 20
    window.undo_stack.undo()
    assert window.scenario.value_at(
        "workloads.storage[0].threads_per_disk") == 1


def test_nothing_to_advise_is_a_dialog_not_a_crash(window, dialogs):
    assert window.advice_dialog() is not None   # jumbo example: throughput
    window.show_scenario(window.scenario.with_values(
        {"workloads.transfers": [], "workloads.migrations": []}))
    assert window.advice_dialog() is None
    assert dialogs and "Nothing to recommend" in str(dialogs[-1])


def test_team_policy_edit_brings_its_switch_mode(window):
    from app.paths import resource_path
    assert window.editor.team_policy.isHidden()   # example: no team
    window.open_path(resource_path("examples", "seed000_lbt.toml"))
    # the example's "Originating port ID" variant would refuse LACP's
    # switch mode (a variant that an edit breaks is refused)
    window.show_scenario(window.scenario.with_values({"variants": []}))
    combo = window.editor.team_policy
    assert not combo.isHidden() and combo.currentData() == "lbt"
    combo.activated.emit(combo.findData("lacp"))
    assert window.scenario.teams[0].policy == "lacp"
    assert window.scenario.teams[0].switch_mode == "lacp"
    window.undo_stack.undo()
    assert (window.scenario.teams[0].policy,
            window.scenario.teams[0].switch_mode) == ("lbt", "independent")
    # a policy whose hash fields the flows lack is refused, with the field
    window.show_scenario(window.scenario.with_values({
        "workloads.flows[0].src_ip": None}))
    combo.activated.emit(combo.findData("ip_hash"))
    assert window.scenario.teams[0].policy == "lbt"
    assert "src_ip is required" in window.statusBar().currentMessage()


def parameter_row(window, path):
    table = window.parameters
    for row in range(table.rowCount()):
        if table.item(row, 0).text() == path:
            return table.item(row, 1)
    raise KeyError(path)


def test_any_parameter_is_editable_and_undoable(window):
    from app.paths import resource_path
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    cell = parameter_row(window, "workloads.storage[0].threads_per_disk")
    assert cell.text() == "1"
    cell.setText("2")
    assert window.results.variants[0].metric("storage.oio").value == 20
    window.undo_stack.undo()
    assert parameter_row(
        window, "workloads.storage[0].threads_per_disk").text() == "1"


def test_bad_parameter_text_is_refused_and_restored(window):
    cell = parameter_row(window, "network.mtu")
    cell.setText("jumbo")
    assert "network.mtu: expected a whole number, got 'jumbo'" in \
        window.statusBar().currentMessage()
    assert parameter_row(window, "network.mtu").text() == "1500"
    parameter_row(window, "network.mtu").setText("99999")   # out of range
    assert "Not applied" in window.statusBar().currentMessage()
    assert window.scenario.network.mtu == 1500
    assert parameter_row(window, "network.mtu").text() == "1500"


def test_parameter_text_parses_to_the_current_type():
    from app.gui.parameters import parse_like, scalar_parameters
    assert parse_like("9000", 1500) == 9000
    assert parse_like("2.5", 10.0) == 2.5
    assert parse_like("on", False) is True
    assert parse_like("none", None) is None and parse_like("3", None) == 3.0
    assert parse_like('["a", "b"]', ["a"]) == ["a", "b"]
    assert parse_like("lacp", "independent") == "lacp"
    rows = dict(scalar_parameters({"nics": [{"id": "a", "speed_gbps": 1.0}],
                                   "variants": [{"name": "x"}]}))
    assert rows == {"nics[0].id": "a", "nics[0].speed_gbps": 1.0}


def test_evacuation_tab_draws_the_schedule_of_the_chosen_variant(window):
    from app.paths import resource_path
    import pyqtgraph as pg
    assert not window.evacuation_hint.isHidden()  # example: no evacuation
    window.open_path(resource_path("examples",
                                   "evacuation_maintenance.toml"))
    assert window.evacuation_hint.isHidden()

    def bar_ends():
        bars = [item for item in window.gantt_plot.getPlotItem().items
                if isinstance(item, pg.BarGraphItem)]
        return max(x0 + w for bar in bars
                   for x0, w in zip(bar.opts["x0"], bar.opts["width"]))

    base = window.results.variants[0].metric("evacuation.total_s").value
    assert bar_ends() == base
    window.evacuation_variant.setCurrentIndex(1)   # concurrency 2
    assert bar_ends() == window.results.variants[1].metric(
        "evacuation.total_s").value != base
