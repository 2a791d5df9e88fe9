"""The scenario editor: every field of the schema, list edits, presets,
variants edited as differences from the base, refusals on the field."""

import pytest
from PySide6 import QtCore, QtWidgets

from app.gui.editor import CHANGED_MARK
from app.paths import resource_path
from app.schema_fields import show_value
from app.scenario_io import load_scenario
from models.scenario import TEAMING_POLICIES

EXAMPLES = sorted(p.name for p in resource_path("examples").glob("*.toml"))


def leaves(data, prefix=""):
    """(path, value) of every value a field shows: scalars and lists of
    scalars, below lists of tables too."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, f"{prefix}{key}.")
    elif isinstance(data, list) and any(isinstance(v, dict) for v in data):
        for index, value in enumerate(data):
            yield from leaves(value, f"{prefix.rstrip('.')}[{index}].")
    else:
        yield prefix.rstrip("."), data


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_value_of_every_example_has_its_field(window, name):
    window.open_path(resource_path("examples", name))
    data = window.scenario.model_dump(mode="json")
    for key in ("schema_version", "variants", "sweeps", "calibration"):
        data.pop(key)
    for group in ("goal", "cluster", "lossless"):   # optional groups left out
        if data[group] is None:
            data.pop(group)
    for path, value in leaves(data):
        if value == [] and path in window.editor._items:
            continue   # an empty list of entries: a node, not a field
        field = window.editor.field(path)
        assert field.value() == value, path
        if field.spec.kind not in ("enum", "bool"):
            assert field.text() == show_value(value), path
        # what it means, or at least its bounds and default
        assert field.input.toolTip().strip(), path


def test_fields_carry_units_and_vendor_names(window):
    assert window.editor.field("nics[0].speed_gbps").unit.text() == "Gbit/s"
    assert window.editor.field("network.mtu").unit.text() == "B"
    window.open_path(resource_path("examples", "seed000_lbt.toml"))
    policy = window.editor.field("teams[0].policy")
    assert policy.text() == TEAMING_POLICIES["lbt"][0]
    assert policy.unit.text() == ""
    assert window.editor.field("teams[0].lbt_period_s").unit.text() == "s"
    assert window.editor.field("teams[0].lbt_period_s").spec.label == \
        "LBT period"


def test_list_entries_are_added_duplicated_moved_and_removed_undoably(
        window):
    editor, steps = window.editor, window.session.history.count
    editor.select("nics")
    editor.buttons["add"].click()
    assert [n.id for n in window.scenario.nics] == ["eth0", "nic1"]
    assert editor.current_path() == "nics[1]"   # the new entry is shown
    editor.buttons["duplicate"].click()
    assert [n.id for n in window.scenario.nics] == ["eth0", "nic1", "nic2"]
    editor.buttons["up"].click()
    assert [n.id for n in window.scenario.nics] == ["eth0", "nic2", "nic1"]
    editor.select("nics[0]")
    editor.buttons["remove"].click()
    assert [n.id for n in window.scenario.nics] == ["nic2", "nic1"]
    assert window.session.history.count == steps + 4   # one step each
    for _ in range(4):
        window.undo()
    assert [n.id for n in window.scenario.nics] == ["eth0"]


def test_a_preset_adds_or_fills_an_entry(window):
    editor = window.editor
    editor.select("nics")
    editor.apply_preset("100 GbE iWARP (e.g. Chelsio T62100)")
    nic = window.scenario.nics[-1]
    assert (nic.speed_gbps, nic.rdma) == (100.0, "iwarp")
    editor.select("workloads.transfers[0]")
    assert not editor.preset.isEnabled()   # no presets for transfers
    # the migration presets are the host's hypervisor's (models.platform)
    window.open_path(resource_path("examples", "seed003_vmotion.toml"))
    editor.select("workloads.migrations[0]")
    offered = [editor.preset.itemText(i)
               for i in range(editor.preset.count())]
    assert any(label.startswith("vSphere vMotion") for label in offered)
    assert not any(label.startswith(("QEMU", "Hyper-V", "Xen"))
                   for label in offered)
    window.open_path(resource_path("examples", "kvm_multifd_postcopy.toml"))
    editor.select("workloads.migrations[0]")
    editor.apply_preset("QEMU via libvirt with auto-converge")
    migration = window.scenario.workloads.migrations[0]
    assert (migration.stop_rule, migration.throttling,
            migration.management) == ("qemu", "auto_converge", "libvirt")
    assert window.session.history.undo_text.startswith("Apply preset")


def test_changed_mark_and_the_way_back_to_the_default(window):
    field = window.editor.field("nics[0].rss_queues")
    assert not field.property("changed") and field.reset.isHidden()
    field.enter("16")
    field = window.editor.field("nics[0].rss_queues")
    assert field.property("changed") and not field.reset.isHidden()
    assert field.label.text().startswith(CHANGED_MARK)
    field.reset.click()
    assert window.scenario.nics[0].rss_queues == 8
    assert not window.editor.field("nics[0].rss_queues").property("changed")


def test_a_goal_is_set_from_the_editor(window):
    assert window.scenario.goal is None
    window.editor.field("goal.kind").enter("Minimise CPU")
    assert window.scenario.goal.kind == "min_cpu"


def test_a_variant_is_edited_as_its_differences_from_the_base(window):
    names = [v.name for v in window.scenario.variants]
    window.variants.setCurrentRow(2)   # the example's "IPv6" variant
    editor = window.editor
    assert editor.variant == 1
    version = editor.field("network.ip_version")
    assert version.text() == "IPv6" and version.property("changed")
    assert not editor.field("network.mtu").property("changed")
    editor.field("network.mtu").enter("9000")
    variant = window.scenario.variants[1]
    assert variant.set == {"network.ip_version": 6, "network.mtu": 9000}
    assert window.scenario.network.mtu == 1500   # the base is untouched
    panel = window.variants_panel
    assert panel.changes.topLevelItemCount() == 2
    # the way back: the MTU returns to the base's
    editor.field("network.mtu").reset.click()
    assert window.scenario.variants[1].set == {"network.ip_version": 6}
    panel.changes.setCurrentItem(panel.changes.topLevelItem(0))
    panel.back.click()
    assert window.scenario.variants[1].set == {}
    # reorder: one step each, the table's columns follow
    window.variant_buttons["down"].click()
    assert [v.name for v in window.scenario.variants][1:3] == \
        [names[2], names[1]]
    window.wait_for_results()
    assert window.table_model.headerData(
        3, QtCore.Qt.Orientation.Horizontal) == names[1]


def test_the_last_base_edit_becomes_a_variant(window):
    count = len(window.scenario.variants)
    window.editor.field("network.vlan_tags").enter("1")
    assert window.scenario.network.vlan_tags == 1
    assert window.make_variant_action.isEnabled()
    window.make_variant_action.trigger()
    assert window.scenario.network.vlan_tags == 0   # the base as before
    assert len(window.scenario.variants) == count + 1
    assert window.scenario.variants[-1].set == {"network.vlan_tags": 1}
    window.undo()   # one step
    assert window.scenario.network.vlan_tags == 1
    assert len(window.scenario.variants) == count


def test_a_base_policy_change_offers_to_update_the_variant(window, dialogs,
                                                          monkeypatch):
    # issue 16: seed000's base to LACP was refused because its "port ID"
    # variant would inherit LACP's switch mode; now the user is asked
    window.open_path(resource_path("examples", "seed000_lbt.toml"))
    policy = TEAMING_POLICIES["lacp"][0]
    window.editor.field("teams[0].policy").enter(policy)   # Cancel
    assert window.scenario.teams[0].policy == "lbt"
    kind, title, text = dialogs[-1]
    assert kind == "question" and "Originating port ID" in text
    assert "teams[0].switch_mode = independent" in text
    box = QtWidgets.QMessageBox
    monkeypatch.setattr(box, "question",
                        lambda *a, **k: box.StandardButton.Yes)
    window.editor.field("teams[0].policy").enter(policy)
    team = window.scenario.teams[0]
    assert (team.policy, team.switch_mode) == ("lacp", "lacp")
    assert window.scenario.variants[0].set == {
        "teams[0].policy": "port_id",
        "teams[0].switch_mode": "independent"}
    assert "variants updated" in window.session.history.undo_text


def test_table_cells_update_in_place(window, qtbot):
    model = window.table_model
    resets, changes = [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.dataChanged.connect(lambda *a: changes.append(a))
    window.editor.field("network.mtu").enter("9000")
    window.wait_for_results()
    assert changes and not resets


def test_templates_open_untitled_and_evaluate(window):
    from app.paths import TEMPLATES
    for name, _ in TEMPLATES:
        window.new_from_template(name)
        assert window.path is None
        window.wait_for_results()
        assert window.results is not None, name
        assert window.session.error is None, name
        assert load_scenario(resource_path("templates", name)) == \
            window.scenario


def test_transport_choices_follow_the_hypervisor(window):
    """vMotion runs over TCP only (VMware, "vSphere vMotion Networking
    Requirements"); Hyper-V offers TCP, Compression and SMB (Set-VMHost
    -VirtualMachineMigrationPerformanceOption): the editor greys out the
    rest (models.platform)."""
    window.new_from_template("migration.toml")
    box = window.editor.field("workloads.transfers[0].transport").input
    enabled = {box.itemData(i): box.model().item(i).isEnabled()
               for i in range(box.count())}
    assert enabled["tcp"] and not enabled["smb"] \
        and not enabled["smb_direct"]
    window.new_from_template("transport.toml")   # a Hyper-V host
    box = window.editor.field("workloads.transfers[0].transport").input
    enabled = {box.itemData(i): box.model().item(i).isEnabled()
               for i in range(box.count())}
    assert enabled["smb"] and enabled["smb_direct"] \
        and not enabled["rdma"]


def test_changing_the_hypervisor_is_one_valid_edit(window):
    # SMB is Hyper-V's (Set-VMHost -VirtualMachineMigrationPerformance
    # Option SMB); on vSphere the migration goes back to TCP with it
    window.new_from_template("transport.toml")
    window.editor.field("workloads.transfers[0].transport").enter(
        "SMB Multichannel (TCP)")
    field = window.editor.field("host.hypervisor")
    field.enter("VMware vSphere (ESXi)")
    assert not field.property("refused"), field.error.text()
    assert window.scenario.host.hypervisor == "vsphere"
    assert window.scenario.workloads.transfers[0].transport == "tcp"
    window.undo()
    assert window.scenario.host.hypervisor == "hyperv"
    assert window.scenario.workloads.transfers[0].transport == "smb"
