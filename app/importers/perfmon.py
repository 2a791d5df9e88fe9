"""Windows perfmon/typeperf CSV (PDH-CSV 4.0) -> a Hyper-V host scenario.

Counters read (Microsoft, "Network Interface" / "Network Adapter" and
"Hyper-V Virtual Network Adapter" performance objects; typeperf -f CSV):
``Bytes Sent/sec``, ``Bytes Received/sec`` (or only ``Bytes Total/sec``)
and ``Current Bandwidth`` [bit/s]. Physical adapters become NICs in one
team; each VM adapter (Hyper-V Virtual Network Adapter) a flow; without
VM adapters, each NIC's own traffic is a flow pinned to it (its
utilisation baseline). Host vNICs (vEthernet), ISATAP, Teredo, loopback
and the LBFO multiplexor are skipped.
"""

import re

import numpy as np

from app.importers import pdh
from app.importers.common import (Draft, ImportProblem, add_flow,
                                  add_nics_and_team, gaps, identifier,
                                  import_each)
from models.units import bytes_per_s_to_gbps

PATTERN = re.compile(
    r"\\\\[^\\]+\\(?P<object>Network Interface|Network Adapter|Hyper-V "
    r"Virtual Network Adapter)\((?P<instance>.*)\)\\(?P<counter>Bytes "
    r"Sent/sec|Bytes Received/sec|Bytes Total/sec|Current Bandwidth)")
_NOT_A_PORT = re.compile(r"isatap|teredo|loopback|kernel debug|"
                         r"multiplexor|^vEthernet|Hyper-V Virtual Ethernet",
                         re.IGNORECASE)


def import_files(paths):
    """Import perfmon/typeperf logs; one scenario per file."""
    return import_each(paths, _import_one)


def _import_one(path, result):
    table = pdh.read(path, PATTERN, result=result,
                     what="a perfmon/typeperf CSV log (PDH-CSV 4.0)")
    result.problems.extend(table.problems)
    result.problems.extend(gaps(table.times, path, table.rows,
                                "every counter"))
    adapters, virtual = {}, {}
    for column, match in enumerate(table.match):
        target = virtual if match["object"].startswith("Hyper-V") \
            else adapters
        target.setdefault(match["instance"], {})[match["counter"]] = column
    draft = Draft(f"{table.host or path} (perfmon {path})")
    draft.document["host"] = {"hypervisor": "hyperv"}
    step = float(np.median(np.diff(table.times))) if table.times.size > 1 \
        else 1.0
    draft.document["workloads"]["time_step_s"] = min(max(step, 1e-3), 3600)
    nics = []
    for instance, counters in sorted(adapters.items()):
        if _NOT_A_PORT.search(instance):
            result.skipped.append(f"{path}: adapter {instance!r}: not a "
                                  "physical NIC")
            continue
        column = counters.get("Current Bandwidth")
        speeds = table.values[:, column] if column is not None \
            else np.zeros(0)
        speeds = speeds[np.isfinite(speeds) & (speeds > 0)]
        if not speeds.size:
            result.problems.append(f"{path}: adapter {instance!r}: no "
                                   "'Current Bandwidth' sample > 0: not "
                                   "imported")
            continue
        nics.append((instance, float(speeds.max()) / 1e9,
                     (path, table.header[column]), counters))
    if not nics:
        raise ImportProblem(path, "at least one physical adapter with a "
                            "'Current Bandwidth' counter")
    ids = add_nics_and_team(
        draft, [(n[0], n[1], n[2]) for n in nics], team="SET",
        policy="dynamic", switch_mode="independent",
        assumption="perfmon does not record teaming: the physical NICs "
        "form one switch-independent team with the Dynamic policy (the "
        "Switch Embedded Teaming default)")
    for instance, counters in sorted(virtual.items()):
        vm = re.sub(r"_Network Adapter.*$", "", instance)
        _flow(draft, table, counters, {"id": identifier(instance, {
            f["id"] for f in draft.document["workloads"]["flows"]}),
            "vm": vm}, result)
    if not virtual:
        for nic_id, (instance, _, _, counters) in zip(ids, nics):
            _flow(draft, table, counters, {"id": f"{nic_id}-baseline",
                                           "vm": instance, "pin": [nic_id],
                                           "traffic_class": "baseline"},
                  result)
        draft.assumptions.append(
            "No VM adapters in the log: each NIC's measured traffic is one "
            "flow pinned to it (its utilisation baseline)")
    result.drafts.append(draft)
    result.taken.append(f"{path}: host {table.host}: {len(ids)} NICs, "
                        f"{len(draft.document['workloads']['flows'])} flows,"
                        f" {table.times.size} samples every {step:g} s")


def _flow(draft, table, counters, flow, result):
    names = ("Bytes Sent/sec", "Bytes Received/sec")
    if all(n in counters for n in names):
        columns = [counters[n] for n in names]
    elif "Bytes Total/sec" in counters:
        columns = [counters["Bytes Total/sec"]] * 2
        draft.assumptions.append(f"{flow['vm']}: only Bytes Total/sec was "
                                 "logged: counted as transmit")
    else:
        result.problems.append(f"{table.path}: {flow['vm']!r}: no Bytes "
                               "Sent/Received/Total counters")
        return
    times, _, values, notes, problems = pdh.clean(table, columns,
                                                  repr(flow["vm"]))
    result.skipped.extend(notes)
    result.problems.extend(problems)
    if not times.size:
        return
    tx = bytes_per_s_to_gbps(values[:, 0])
    rx = bytes_per_s_to_gbps(values[:, 1]) if columns[0] != columns[1] \
        else np.zeros_like(tx)
    stats = add_flow(draft, flow, times, tx, rx,
                     (table.path, table.header[columns[0]],
                      table.header[columns[1]]))
    result.taken.append(f"{table.path}: {flow['vm']!r}: transmit "
                        f"{stats[0]}; receive {stats[1]}")
