"""Lists as tables (issue 37 item 1): rows pasted from a spreadsheet or
CSV, a count column, fill down, sort and multi-select delete, each one
undoable step; pick lists for references."""

from PySide6 import QtCore, QtWidgets

from app.gui.grid import CheckList, GridPage
from tests.gui.helpers import open_example


def grid(window, list_path):
    window.editor.select(list_path)
    page = window.editor._page
    assert isinstance(page, GridPage)
    return page


def select_cells(page, rows, column):
    selection = page.table.selectionModel()
    selection.clear()
    for row in rows:
        selection.select(page.model.index(row, column),
                         QtCore.QItemSelectionModel.SelectionFlag.Select)


def test_forty_vms_pasted_in_one_step_and_undone_in_one(window):
    # issue 37: "40 VMs took 39 Duplicate clicks"
    assert window.scenario.workloads.flows == []
    steps = window.session.history.count
    rows = "\n".join(f"web{i},{0.1 * i:.1f},0.5" for i in range(1, 41))
    grid(window, "workloads.flows").paste(
        f"ID,Tx [Gbit/s],Rx [Gbit/s]\n{rows}\n")
    flows = window.scenario.workloads.flows
    assert window.session.history.count == steps + 1
    assert window.session.history.undo_text == \
        "Paste 40 rows into VM ports and flows"
    assert [f.id for f in flows] == [f"web{i}" for i in range(1, 41)]
    assert flows[39].tx_gbps == 4.0 and flows[0].rx_gbps == 0.5
    # each VM port gets its own hash inputs, so every policy sees 40 VMs
    for key in ("port_id", "mac", "src_ip", "src_port"):
        assert len({getattr(f, key) for f in flows}) == 40, key
    assert [f.vm for f in flows][:2] == ["web1", "web2"]
    window.wait_for_results()
    assert window.editor._page.model.rowCount() == 40
    window.undo()
    assert window.scenario.workloads.flows == []
    assert window.session.history.count == steps + 1   # redo-able
    window.redo()
    assert len(window.scenario.workloads.flows) == 40


def test_a_count_column_makes_named_entries_in_one_step(window):
    steps = window.session.history.count
    grid(window, "workloads.flows").paste("count\tid\ttx_gbps\n"
                                          "40\tweb VM\t0.5\n2\tdb\t1")
    assert [f.id for f in window.scenario.workloads.flows] == \
        [f"web{i}" for i in range(1, 41)] + ["db1", "db2"]
    assert window.session.history.count == steps + 1
    # a later paste numbers on after the highest name
    grid(window, "workloads.flows").paste("3 × web VM")
    assert [f.id for f in window.scenario.workloads.flows][-3:] == \
        ["web41", "web42", "web43"]


def test_fill_down_sort_and_delete_are_one_step_each(window):
    page = grid(window, "nics")
    page.paste("id,speed_gbps\nnic3,25\nnic1,100\nnic2,40")
    assert [n.id for n in window.scenario.nics] == \
        ["eth0", "nic3", "nic1", "nic2"]
    steps = window.session.history.count
    page = window.editor._page
    speed = page.column("speed_gbps")
    select_cells(page, [1, 2, 3], speed)
    page.fill_down()
    assert [n.speed_gbps for n in window.scenario.nics][1:] == [25.0] * 3
    assert window.session.history.undo_text == "Fill down Speed in NICs"
    page = window.editor._page
    page.table.horizontalHeader().sectionClicked.emit(page.column("id"))
    assert [n.id for n in window.scenario.nics] == \
        ["eth0", "nic1", "nic2", "nic3"]
    page = window.editor._page
    select_cells(page, [1, 3], page.column("id"))
    page.buttons["delete"].click()
    assert [n.id for n in window.scenario.nics] == ["eth0", "nic2"]
    assert window.session.history.count == steps + 3
    for _ in range(3):
        window.undo()
    assert [n.id for n in window.scenario.nics] == \
        ["eth0", "nic3", "nic1", "nic2"]


def test_a_cell_is_edited_in_place_and_a_bad_one_refused(window):
    page = grid(window, "nics")
    speed = page.column("speed_gbps")
    page.model.setData(page.model.index(0, speed), "25")
    assert window.scenario.nics[0].speed_gbps == 25.0
    assert window.session.history.undo_text == "Set Speed of eth0 to 25"
    steps = window.session.history.count
    window.editor._page.model.setData(page.model.index(0, speed), "fast")
    assert window.session.history.count == steps
    assert "Speed [Gbit/s]: expected a number, got 'fast'" in \
        window.editor.refusal_text()


def test_references_are_picked_from_the_lists_they_name(window, qtbot):
    open_example(window, "seed000_lbt.toml")
    page = grid(window, "teams")
    members = page.column("members")
    index = page.model.index(0, members)
    page.table.edit(index)
    box = page.table.indexWidget(index) or page.table.findChild(CheckList)
    assert isinstance(box, CheckList)
    assert box.chosen() == ["dvUplink1", "dvUplink2"]
    box.toggle("dvUplink2")
    page.table.commitData(box)
    assert window.scenario.teams[0].members == ["dvUplink1"]

    open_example(window, "seed001_live_migration.toml")
    page = grid(window, "workloads.migrations")
    transfer = page.column("transfer")
    index = page.model.index(0, transfer)
    page.table.edit(index)
    box = page.table.findChild(QtWidgets.QComboBox)
    assert [box.itemText(i) for i in range(box.count())] == \
        ["", "live-migration"]
    assert box.currentText() == "live-migration"


def test_every_growing_list_has_its_grid_and_a_window(window):
    open_example(window, "evacuation_maintenance.toml")
    vms = "workloads.evacuations[0].vms"
    page = grid(window, vms)
    count = len(window.scenario.workloads.evacuations[0].vms)
    assert page.model.rowCount() == count
    assert "Memory [GiB]" in [c.header for c in page.model.columns]
    big = window.editor.open_grid_window(vms)
    big.paste("name,memory_gib\n5 × db VM,4")
    assert len(window.scenario.workloads.evacuations[0].vms) == count + 5
    assert big.model.rowCount() == count + 5   # kept in step
    open_example(window, "seed002_hcibench.toml")
    storage = grid(window, "workloads.storage")
    assert "Backend › IOPS max. [IO/s]" in \
        [c.header for c in storage.model.columns]



def test_the_form_picks_team_members_and_a_transfer_by_name(window):
    # issue 37: "team members are typed as a comma-separated list of NIC
    # ids with no pick list"
    open_example(window, "seed000_lbt.toml")
    members = window.editor.field("teams[0].members")
    assert isinstance(members.input, CheckList)
    assert [members.input.itemText(i) for i in
            range(members.input.count())] == ["dvUplink1", "dvUplink2"]
    assert members.text() == "dvUplink1, dvUplink2"
    members.input.toggle("dvUplink1")   # a click in the pick list
    assert window.scenario.teams[0].members == ["dvUplink2"]
    open_example(window, "seed001_live_migration.toml")
    transfer = window.editor.field("workloads.migrations[0].transfer")
    assert isinstance(transfer.input, QtWidgets.QComboBox)
    assert transfer.text() == "live-migration"
    assert [transfer.input.itemText(i) for i in
            range(transfer.input.count())] == ["", "live-migration"]


def test_the_table_takes_copy_paste_and_delete_from_the_keyboard(
        window, qtbot):
    page = grid(window, "nics")
    QtWidgets.QApplication.clipboard().setText(
        "id\tspeed_gbps\trdma\nnic1\t25\tRoCE v2\nnic2\t25\tnone")
    page.table.setFocus()
    qtbot.keyClick(page.table, QtCore.Qt.Key.Key_V,
                   QtCore.Qt.KeyboardModifier.ControlModifier)
    assert [(n.id, n.rdma) for n in window.scenario.nics] == \
        [("eth0", "none"), ("nic1", "roce_v2"), ("nic2", "none")]
    page = window.editor._page
    select_cells(page, [1, 2], page.column("rdma"))
    qtbot.keyClick(page.table, QtCore.Qt.Key.Key_C,
                   QtCore.Qt.KeyboardModifier.ControlModifier)
    assert QtWidgets.QApplication.clipboard().text() == "RoCE v2\nNone"
    qtbot.keyClick(page.table, QtCore.Qt.Key.Key_Delete)
    assert [n.id for n in window.scenario.nics] == ["eth0"]


def test_the_policies_a_team_compares_are_ticked_by_name(window):
    open_example(window, "seed000_lbt.toml")
    compare = window.editor.field("teams[0].compare")
    assert isinstance(compare.input, CheckList)
    assert compare.input.shown_text() == "(default)"   # the hypervisor's
    assert "Route based on originating virtual port (vSphere)" in \
        [compare.input.itemText(i) for i in range(compare.input.count())]
    compare.input.toggle("port_id")
    assert window.scenario.teams[0].compare == ["port_id"]
    shown = window.editor.field("teams[0].compare").input.shown_text()
    assert shown == "Route based on originating virtual port (vSphere)"
    # the order is the comparison's: a newly ticked policy goes last
    window.editor.field("teams[0].compare").input.toggle("failover")
    window.editor.field("teams[0].compare").input.toggle("ip_hash")
    assert window.scenario.teams[0].compare == \
        ["port_id", "failover", "ip_hash"]


def test_a_paste_into_a_variant_changes_the_variant_only(window):
    # the variant holds the list whole: refused once as "null has no
    # TOML form" (a VM's unset downtime budget)
    open_example(window, "evacuation_maintenance.toml")
    vms = "workloads.evacuations[0].vms"
    base = len(window.scenario.workloads.evacuations[0].vms)
    window.variants.setCurrentRow(1)   # the first variant
    steps = window.session.history.count
    grid(window, vms).paste("name,memory_gib\n3 × web VM,4")
    variant = window.scenario.variants[0]
    assert len(variant.set[vms]) == base + 3
    assert len(window.scenario.workloads.evacuations[0].vms) == base
    assert window.session.history.count == steps + 1
    assert window.editor._page.model.rowCount() == base + 3
