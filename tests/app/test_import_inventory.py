"""VM inventories (one row per VM, CSV or .xlsx) -> one scenario per host
whose running VMs are its evacuation.

Samples: tests/data/import/inventory_get_vm.csv is what Hyper-V's
``Get-VM | Select-Object Name, ComputerName, State, MemoryAssigned |
Export-Csv`` writes (a ``#TYPE`` line, quoted cells, MemoryAssigned in
bytes, ComputerName the host); the others are written here.
"""

import pytest

from app.importers.common import run_import
from solvers.evaluate import evaluate
from tests.app.import_samples import SAMPLES


def test_get_vm_export_becomes_each_hosts_evacuation():
    outcome = run_import("inventory", [SAMPLES / "inventory_get_vm.csv"])
    assert not outcome.problems
    hv01, hv02 = outcome.scenarios
    evacuation, = hv01.workloads.evacuations
    # MemoryAssigned is bytes: 17179869184 B = 16 GiB; Get-VM's columns
    # make it Hyper-V, with its limit of 2 live migrations at a time
    assert (evacuation.name, evacuation.platform) == ("HV01", "hyperv")
    assert hv01.goal.kind == "min_evacuation_time"
    assert [(v.name, v.memory_gib) for v in evacuation.vms] == [
        ("sql01", 16.0), ("web01", 4.0)]
    assert hv01.host.hypervisor == "hyperv"
    assert [v.name for v in hv02.workloads.evacuations[0].vms] == ["dc01"]
    skipped = "\n".join(outcome.result.skipped)
    assert "row 5: VM old01 is Off" in skipped
    # the network is not in an inventory: one 10 GbE NIC, said so
    assert [(n.id, n.speed_gbps) for n in hv01.nics] == [("lm0", 10.0)]
    assert any("Not in an inventory: the migration network" in a
               for a in hv01.meta.assumptions)
    assert "workloads.evacuations[0].vms[0].memory_gib = 16 from" in \
        hv01.meta.notes
    base = evaluate(hv01).variants[0]
    assert base.metric("evacuation.HV01.total_s").value > 0
    assert base.metric("evacuation.HV01.concurrency_limit").value == 2


def test_a_spreadsheet_list_with_units_in_its_headers(tmp_path):
    # semicolons and decimal commas (a European Excel's CSV), memory in
    # GB, no host column: one scenario, vSphere's limits; the optional
    # columns fill group, priority, dirty rate and disk
    path = tmp_path / "cmdb.csv"
    path.write_text("VM;Memory GB;Folder;Priority;Dirty MiB/s;Disk GB\n"
                    "db1;64;Prod/DB;10;250,5;500\n"
                    "app1;8;Prod/App;;;\n", encoding="utf-8")
    outcome = run_import("inventory", [path])
    assert not outcome.problems
    scenario, = outcome.scenarios
    evacuation, = scenario.workloads.evacuations
    assert (evacuation.name, evacuation.platform) == ("inventory", "vsphere")
    db1, app1 = evacuation.vms
    assert (db1.memory_gib, db1.group, db1.priority, db1.dirty.rate_mib_s,
            db1.disk_gib) == (64.0, "Prod/DB", 10, 250.5, 500.0)
    assert (app1.memory_gib, app1.priority, app1.dirty.rate_mib_s,
            app1.disk_gib) == (8.0, 0, 0.0, 0.0)


def test_an_xlsx_inventory_in_mib(tmp_path):
    import openpyxl
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Name", "Host", "Power State", "Memory MiB"])
    sheet.append(["vm-a", "esx01", "poweredOn", 8192])
    sheet.append(["vm-b", "esx01", "poweredOff", 4096])
    sheet.append(["vm-c", "esx01", "poweredOn", 2048])
    path = tmp_path / "list.xlsx"
    workbook.save(path)
    outcome = run_import("inventory", [path])
    assert not outcome.problems
    scenario, = outcome.scenarios
    assert [(v.name, v.memory_gib)
            for v in scenario.workloads.evacuations[0].vms] == [
        ("vm-a", 8.0), ("vm-c", 2.0)]


@pytest.mark.parametrize("text, expected", [
    ("VM,Cores\na,4\n", "expected a VM column (Name, VM or VMName) and a "
     "memory column"),
    ("Name,Memory GB\na,lots\n", "row 2, column 'Memory GB': expected a "
     "memory size, got 'lots'"),
    ("Name,State,Memory GB\na,Off,4\n", "expected at least one running VM"),
    ("", "expected a VM inventory: a header row, found an empty file"),
])
def test_bad_inventories_name_the_place(tmp_path, text, expected):
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    outcome = run_import("inventory", [path])
    assert not outcome.scenarios
    assert any(expected in p for p in outcome.problems), outcome.problems


def test_a_vm_without_memory_is_skipped_and_said(tmp_path):
    path = tmp_path / "gap.csv"
    path.write_text("Name,Memory GB\na,4\nb,\n", encoding="utf-8")
    outcome = run_import("inventory", [path])
    assert [v.name for v in outcome.scenarios[0].workloads.evacuations[0]
            .vms] == ["a"]
    assert any("row 3, column 'Memory GB': VM b has no memory size" in p
               for p in outcome.problems)


def test_the_cli_imports_an_inventory_and_refuses_a_bad_one(tmp_path):
    from tests.app.test_cli import run
    out = tmp_path / "hosts.toml"
    done = run("import", "inventory", str(SAMPLES / "inventory_get_vm.csv"),
               "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert len(list(tmp_path.glob("hosts-*.toml"))) == 2   # per host
    bad = tmp_path / "bad.csv"
    bad.write_text("VM,Cores\na,4\n", encoding="utf-8")
    refused = run("import", "inventory", str(bad), "-o",
                  str(tmp_path / "x.toml"))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "expected a VM column" in refused.stderr + refused.stdout
    assert not (tmp_path / "x.toml").exists()
