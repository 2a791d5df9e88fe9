"""Analysis > Reach a target… (issue 32 item 5)."""

import pytest

from app.paths import resource_path


@pytest.fixture
def seed002(window, monkeypatch):
    from app.gui.target_dialog import TargetDialog
    opened = []
    monkeypatch.setattr(TargetDialog, "exec",
                        lambda dialog: opened.append(dialog) or 0)
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    window.wait_for_results()
    window.target_dialog()
    (dialog,) = opened
    return dialog


def test_target_dialog_lists_each_levers_smallest_change(window, seed002):
    dialog = seed002
    # the goal's metric (max_iops: storage.iops) is offered first
    assert dialog.metric_choice.currentData() == "storage.iops"
    assert dialog.unit.text() == "1/s"
    dialog.set_target("storage.iops", ">=", "12 kIOPS")
    dialog.find()
    dialog.wait()
    result = dialog.result
    assert result is not None and result.target.value == 12000
    rows = {dialog.table.item(r, 0).text(): dialog.table.item(r, 1).text()
            for r in range(dialog.table.rowCount())}
    assert rows["outstanding IO per disk (threads per disk) of hcibench"] \
        == "workloads.storage[0].threads_per_disk: 1 → 2"
    assert rows["MTU"].startswith("not reachable by this lever")
    assert dialog.table.horizontalHeaderItem(2).toolTip().startswith(
        "storage.iops, re-solved")
    assert dialog.table.item(0, 2).text().endswith(" 1/s")
    # the first reachable lever is selected; unreachable ones cannot be
    # applied
    assert dialog.selected().lever == "threads_per_disk"
    assert dialog.apply_button.isEnabled()
    mtu = next(r for r in range(dialog.table.rowCount())
               if dialog.table.item(r, 0).text() == "MTU")
    dialog.table.selectRow(mtu)
    assert dialog.selected() is None and not dialog.apply_button.isEnabled()


def test_a_lever_becomes_a_variant_or_an_undoable_edit(window, seed002):
    dialog = seed002
    dialog.set_target("storage.iops", ">=", "12000")
    dialog.find()
    dialog.wait()
    dialog.variant_button.click()
    window.wait_for_results()
    variant = window.scenario.variants[-1]
    assert variant.set == {"workloads.storage[0].threads_per_disk": 2}
    assert window.scenario.value_at(
        "workloads.storage[0].threads_per_disk") == 1   # the base stays
    window.target_dialog()   # a new dialog (recorded by the fixture)


def test_apply_to_base_is_undoable(window, monkeypatch):
    from app.gui.target_dialog import TargetDialog
    monkeypatch.setattr(TargetDialog, "exec", lambda dialog: 0)
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    window.wait_for_results()
    dialog = window.target_dialog()
    dialog.set_target("storage.iops", ">=", "12000")
    dialog.find()
    dialog.wait()
    dialog.apply_button.click()
    window.wait_for_results()
    path = "workloads.storage[0].threads_per_disk"
    assert window.scenario.value_at(path) == 2
    window.undo()
    assert window.scenario.value_at(path) == 1


def test_a_value_of_another_dimension_is_refused_in_the_dialog(window,
                                                               seed002):
    dialog = seed002
    dialog.set_target("storage.iops", ">=", "12 GB")
    dialog.find()
    assert "Not searched" in dialog.summary.text()
    assert "is a data size" in dialog.summary.text()
    assert dialog.table.rowCount() == 0 and dialog.find_button.isEnabled()


def test_a_metric_without_a_value_is_typed_as_its_id(window, monkeypatch):
    # the KVM example on 25 GbE does not complete on one connection: it
    # has no total time to pick from the list, so its id is typed
    from app.gui.target_dialog import TargetDialog
    from app.scenario_io import load_scenario
    monkeypatch.setattr(TargetDialog, "exec", lambda dialog: 0)
    window.show_scenario(load_scenario(resource_path(
        "examples", "kvm_multifd_postcopy.toml")).with_values(
            {"nics[0].speed_gbps": 25.0, "variants": []}))
    window.wait_for_results()
    dialog = window.target_dialog()
    assert dialog.metric_choice.findData("migration.total_s") < 0
    dialog.set_target("migration.total_s", "<=", "2 min")
    assert dialog.unit.text() == "s"
    dialog.find()
    dialog.wait()
    assert dialog.result.target.value == 120
    assert "now —" in dialog.summary.text()
    assert dialog.selected().label == "multifd channels of db01"
