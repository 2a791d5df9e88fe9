"""A VM inventory (one row per VM, CSV or .xlsx) -> one scenario per host
whose VMs are its evacuation.

What architects already have when they start: a VM list from Hyper-V
(``Get-VM | Select-Object Name, ComputerName, State, MemoryAssigned |
Export-Csv``), a CMDB or a spreadsheet. Columns are matched by name, in
any order and case, spaces and punctuation ignored:

- the VM: ``Name``, ``VM``, ``VMName`` (required);
- its memory, the header telling the unit (required): ``Memory GiB`` /
  ``Memory GB`` [GiB], ``Memory MiB`` / ``Memory MB`` / ``Memory``
  [MiB, as RVTools and vCenter show it], ``MemoryAssigned`` /
  ``MemoryStartup`` [bytes, Hyper-V's Get-VM];
- optional: the host (``Host``, ``ComputerName``, ``Node``: one scenario
  per host, else one for all), the state (``State``, ``Power State``,
  ``Powerstate``: only running VMs move), ``Group`` / ``Folder``,
  ``Priority``, ``Dirty MiB/s`` and ``Disk GiB`` / ``Disk GB``.

An inventory says nothing of the network: the host gets one 10 GbE
migration NIC, said in the assumptions, and the platform follows the
columns (Hyper-V's Get-VM columns: Hyper-V; else vSphere).
"""

import re

from app.importers.common import (Draft, ImportProblem, add_evacuation,
                                  decimal_mark, identifier, import_each,
                                  number, open_workbook, read_text,
                                  refuse_past)
from app.loading_gate import CsvTable
from models.scenario import MAX_ENTRIES

#: Logical column -> (spellings, unit factor to the scenario's unit):
#: memory to GiB, disk to GiB, the rest as they are.
COLUMNS = {
    "vm": (("Name", "VM", "VMName", "VM Name"), None),
    "memory_gib": (("Memory GiB", "Memory GB", "Memory (GiB)",
                    "Memory (GB)"), 1.0),
    "memory_mib": (("Memory MiB", "Memory MB", "Memory (MiB)",
                    "Memory (MB)", "Memory"), 1 / 1024),
    "memory_bytes": (("MemoryAssigned", "MemoryStartup"), 1 / 2 ** 30),
    "host": (("Host", "ComputerName", "Node", "Host Name"), None),
    "state": (("State", "Power State", "Powerstate"), None),
    "group": (("Group", "Folder"), None),
    "priority": (("Priority",), None),
    "dirty": (("Dirty MiB/s", "Dirty rate MiB/s", "Dirty MiBps"), None),
    "disk": (("Disk GiB", "Disk GB", "Disk (GiB)", "Disk (GB)"), None),
}
MEMORY = ("memory_gib", "memory_mib", "memory_bytes")
#: States of a VM that runs (vSphere, Hyper-V, libvirt, Proxmox words).
RUNNING = {"running", "poweredon", "on", "up", ""}
#: VMs one evacuation holds (models.scenario.Evacuation.vms).
MAX_EVACUATED_VMS = 5000
#: The migration link an inventory does not describe [Gbit/s].
ASSUMED_SPEED_GBPS = 10.0


def _key(text):
    return re.sub(r"[^a-z0-9]", "", str(text or "").lower())


def import_files(paths):
    """Import VM inventories; one scenario per host found."""
    return import_each(paths, _import_one)


def _import_one(path, result):
    header, rows = _table(path, result)
    keys = {_key(h): i for i, h in enumerate(header) if h is not None}
    index = {}
    for logical, (spellings, _) in COLUMNS.items():
        found = next((keys[_key(s)] for s in spellings if _key(s) in keys),
                     None)
        if found is not None:
            index[logical] = found
    memory = next((m for m in MEMORY if m in index), None)
    if "vm" not in index or memory is None:
        raise ImportProblem(
            path, "a VM column (Name, VM or VMName) and a memory column "
            "(Memory GiB, Memory MiB, Memory or MemoryAssigned)", row=1,
            got=", ".join(str(h) for h in header if h is not None)[:80])
    hyperv = "memory_bytes" in index or _key("ComputerName") in keys

    def cell(row, logical):
        i = index.get(logical)
        return None if i is None or i >= len(row) else row[i]

    def column(logical):
        return str(header[index[logical]])

    decimals = {logical: decimal_mark(path, column(logical),
                                      ((n, cell(row, logical))
                                       for n, row in rows))
                for logical in (*MEMORY, "priority", "dirty", "disk")
                if logical in index}

    def amount(row_number, row, logical, expected):
        """A cell as a number >= 0 with its column's decimal mark."""
        return number(path, cell(row, logical), expected, row=row_number,
                      column=column(logical), decimal=decimals[logical],
                      minimum=0)

    hosts = {}   # host -> [(row number, row)]
    for row_number, row in rows:
        vm = str(cell(row, "vm") or "").strip()
        if not vm:
            continue
        state = _key(cell(row, "state"))
        if state not in RUNNING:
            result.skipped.append(f"{path}: row {row_number}: VM {vm} is "
                                  f"{cell(row, 'state')}: not a live-"
                                  "migration candidate")
            continue
        host = str(cell(row, "host") or "").strip() or "inventory"
        hosts.setdefault(host, []).append((row_number, row))
    if not hosts:
        raise ImportProblem(path, "at least one running VM", row=2)
    # a scenario per host, its VMs one evacuation: their limits, checked
    # before the work per VM
    refuse_past(path, len(hosts), MAX_ENTRIES, "hosts (one scenario each)")
    for host, host_rows in hosts.items():
        refuse_past(path, len(host_rows), MAX_EVACUATED_VMS,
                    f"VMs of host {host[:60]} in its evacuation")
    for host, host_rows in hosts.items():
        draft = Draft(f"{host} (inventory {path})")
        doc = draft.document
        doc["host"] = {"hypervisor": "hyperv" if hyperv else "vsphere"}
        doc["nics"] = [{"id": "lm0", "speed_gbps": ASSUMED_SPEED_GBPS}]
        doc["workloads"]["transfers"] = [
            {"name": "lm", "purpose": "live_migration"}]
        vms, names = [], set()
        for row_number, row in host_rows:
            vm = _vm(path, draft, len(vms), names, row_number, row, cell,
                     column, amount, memory, result)
            if vm is not None:
                vms.append(vm)
                names.add(vm["name"])
        if not vms:
            continue
        # the question an inventory is imported for
        doc["goal"] = {"kind": "min_evacuation_time"}
        add_evacuation(
            draft, host, vms, "hyperv" if hyperv else "vsphere",
            f"Not in an inventory: the migration network, taken as one "
            f"{ASSUMED_SPEED_GBPS:g} GbE NIC (set the host's own), and "
            f"the platform, taken as "
            + ("Hyper-V (Get-VM columns)" if hyperv else "vSphere")
            + "; VMs without a dirty rate are taken as idle")
        result.drafts.append(draft)
        result.taken.append(f"{path}: host {host}: {len(vms)} running "
                            f"VM{'s' * (len(vms) != 1)} as its evacuation")


def _vm(path, draft, index, names, row_number, row, cell, column, amount,
        memory, result):
    """One evacuated VM from its row, or None (a problem noted)."""
    vm = str(cell(row, "vm")).strip()
    at = f"workloads.evacuations[0].vms[{index}]"
    factor = COLUMNS[memory][1]
    size = amount(row_number, row, memory, "a memory size")
    if not size or size <= 0:
        result.problems.append(f"{path}: row {row_number}, column "
                               f"'{column(memory)}': VM {vm} has no memory "
                               "size: skipped")
        return None
    entry = {"name": identifier(vm, names), "memory_gib": draft.measured(
        f"{at}.memory_gib", size * factor, path, column(memory))}
    group = cell(row, "group")
    if group not in (None, ""):
        entry["group"] = str(group)[:200]
    for logical, field, expected, whole in (
            ("priority", "priority", "a whole-number priority", True),
            ("dirty", "dirty", "a dirty rate in MiB/s", False),
            ("disk", "disk_gib", "a disk size in GiB", False)):
        value = amount(row_number, row, logical, expected) \
            if cell(row, logical) not in (None, "") else None
        if value is None:
            continue
        if whole:
            entry[field] = int(value)
        elif field == "dirty":
            entry["dirty"] = {"rate_mib_s": draft.measured(
                f"{at}.dirty.rate_mib_s", value, path, column(logical))}
        else:
            entry[field] = draft.measured(f"{at}.{field}", value, path,
                                          column(logical))
    return entry


def _table(path, result):
    """Header and numbered rows of a CSV (comma, semicolon or tab) or
    .xlsx (its first sheet), through the loading gate."""
    if str(path).lower().endswith((".xlsx", ".xlsm")):
        return _workbook(path)
    what = "a VM inventory"
    # PowerShell's Export-Csv may write a "#TYPE ..." line first
    reader = CsvTable(path, read_text(path, result, what), what,
                      skip=lambda line: line.startswith("#TYPE"))
    rows = [(number_, row) for number_, row in reader.rows() if any(row)]
    result.problems.extend(reader.problems)
    return reader.header, rows


def _workbook(path):
    workbook = open_workbook(path, "a VM inventory")
    with workbook:
        if not workbook.sheetnames:
            raise ImportProblem(path, "a worksheet")
        rows = workbook[workbook.sheetnames[0]].iter_rows(values_only=True)
        header = next(rows, None)
        if not header:
            raise ImportProblem(path, "a header row", row=1)
        _refuse_repeated_names(path, header)
        return list(header), [(number_, list(row)) for number_, row in
                              enumerate(rows, 2)
                              if any(c not in (None, "") for c in row)]


def _refuse_repeated_names(path, header):
    seen = {}
    for index, name in enumerate(header, 1):
        key = str(name).strip() if name is not None else ""
        if key and key in seen:
            raise ImportProblem(path, "each column name once (which of the "
                                "two holds the values?)", row=1, column=key,
                                found=f"columns {seen[key]} and {index}")
        seen[key] = index
