"""vCenter performance statistics exported with PowerCLI -> per-VM demand
profiles and per-vmnic utilisation.

Format: ``Get-Stat ... | Export-Csv`` (VMware PowerCLI, Get-Stat; the
FloatSampleImpl properties): columns Value, Timestamp, MetricId, Unit,
Instance, IntervalSecs and Entity (in any order, quoted, an optional
``#TYPE`` first line). Metrics read: ``net.transmitted.average`` and
``net.received.average`` (or only ``net.usage.average``), all in KBps
(kilobytes, 1024 bytes, per second); 20 s real-time and 300 s historical
samples both work. A row with Instance "" is the entity's total; a
host's rows with Instance ``vmnicN`` are its uplinks. Get-Stat carries no
link speed: the uplinks are assumed 10 GbE (import RVTools for the real
ones).
"""

import re

import numpy as np

from app.importers.common import (DemandStats, Draft, ImportProblem,
                                  ImportResult, add_flow, add_nics_and_team,
                                  decimal_mark, gaps, identifier, number,
                                  parse_time, read_text, refuse_past)
from app.loading_gate import CsvTable
from models.scenario import MAX_ENTRIES, MAX_NICS
from models.units import KIB, bytes_per_s_to_gbps

METRICS = ("net.transmitted.average", "net.received.average",
           "net.usage.average")
REQUIRED = ("Value", "Timestamp", "MetricId", "Unit", "Instance", "Entity")
#: Link speed assumed for every uplink: Get-Stat has none [Gbit/s].
ASSUMED_SPEED_GBPS = 10.0
KBPS_TO_GBPS = bytes_per_s_to_gbps(KIB)


def import_files(paths):
    """Import Get-Stat CSV exports; one scenario for all of them."""
    result = ImportResult()
    series = {}   # (entity, instance, metric) -> [(t, value, row)]
    for path in paths:
        try:
            _read(path, series, result)
        except ImportProblem as err:
            result.problems.append(str(err))
    if series:
        _build(paths, series, result)
    return result


def _read(path, series, result):
    # Export-Csv writes a "#TYPE ..." line first unless told not to: rows
    # are numbered as in the file either way
    what = "a Get-Stat CSV export"
    reader = CsvTable(path, read_text(path, result, what), what,
                      skip=lambda line: line.startswith("#TYPE"))
    header = reader.header
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ImportProblem(
            path, "a Get-Stat export with columns " + ", ".join(REQUIRED),
            row=reader.header_row, column=", ".join(missing),
            got=",".join(header)[:80])
    at = {name: header.index(name) for name in REQUIRED}
    samples = []
    for row_number, row in reader.rows():
        metric = row[at["MetricId"]].strip()
        if metric not in METRICS:
            continue
        unit = row[at["Unit"]].strip()
        if unit != "KBps":
            raise ImportProblem(path, f"unit KBps for {metric}",
                                row=row_number, column="Unit", got=unit)
        samples.append((row_number, row))
    result.problems.extend(reader.problems)
    decimal = decimal_mark(path, "Value", ((n, row[at["Value"]])
                                           for n, row in samples))
    kept, seen = 0, {}
    for row_number, row in samples:
        try:
            value = number(path, row[at["Value"]], "a number of KBps",
                           row=row_number, column="Value", decimal=decimal,
                           minimum=0)
            moment = parse_time(path, row[at["Timestamp"]], row=row_number,
                                column="Timestamp")
        except ImportProblem as err:
            result.problems.append(f"{err}: sample skipped")
            continue
        if value is None:
            result.problems.append(f"{path}: row {row_number}, column "
                                   "'Value': empty: sample skipped")
            continue
        key = (row[at["Entity"]].strip(), row[at["Instance"]].strip(),
               row[at["MetricId"]].strip())
        if (key, moment) in seen:
            result.problems.append(
                f"{path}: row {row_number}: {key[2]} of {key[0]} "
                f"{key[1]}".rstrip() + f" at the timestamp of row "
                f"{seen[key, moment]}: sample skipped, the first kept")
            continue
        seen[key, moment] = row_number
        series.setdefault(key, []).append((moment, value, row_number, path))
        kept += 1
    if not kept:
        raise ImportProblem(path, "rows with MetricId "
                            + " or ".join(METRICS))
    result.taken.append(f"{path}: {kept} network samples")


def _build(paths, series, result):
    start = min(s[0] for samples in series.values() for s in samples)
    entities = {}
    for (entity, instance, metric), samples in series.items():
        entities.setdefault((entity, instance), {})[metric] = samples
    uplinks = sorted({(e, i) for e, i in entities
                      if re.fullmatch(r"vmnic\d+", i)})
    # a scenario's limits, checked before the work per entity
    refuse_past(paths[0], len(uplinks), MAX_NICS, "uplinks (vmnicN)")
    refuse_past(paths[0], sum(not i for _, i in entities), MAX_ENTRIES,
                "VMs as flows")
    draft = Draft(f"vCenter statistics ({', '.join(map(str, paths))})")
    draft.document["host"] = {"hypervisor": "vsphere"}
    nics = [(f"{e}-{i}" if len({u[0] for u in uplinks}) > 1 else i,
             ASSUMED_SPEED_GBPS, None) for e, i in uplinks] \
        or [("uplink0", ASSUMED_SPEED_GBPS, None)]
    add_nics_and_team(draft, nics, team="vds", policy="port_id",
                      switch_mode="independent",
                      assumption="Get-Stat records neither link speed nor "
                      "teaming: uplinks of 10 Gbit/s in one team routed by "
                      "originating port ID (the vSphere default) assumed")
    steps = []
    for (entity, instance), metrics in sorted(entities.items()):
        if (entity, instance) in uplinks:
            kind = "uplink"
        elif instance:
            result.skipped.append(f"entity {entity!r} instance "
                                  f"{instance!r}: a per-device series; the "
                                  "entity's total (Instance \"\") is used")
            continue
        else:
            kind = "VM"
        step = _flow(draft, entity, instance, metrics, start, kind, result)
        if step:
            steps.append(step)
    if steps:
        draft.document["workloads"]["time_step_s"] = min(min(steps), 3600)
    if draft.document["workloads"]["flows"]:
        result.drafts.append(draft)


def _flow(draft, entity, instance, metrics, start, kind, result):
    tx_rows = metrics.get("net.transmitted.average")
    rx_rows = metrics.get("net.received.average")
    tx_column = "net.transmitted.average"
    if tx_rows is None or rx_rows is None:
        # one direction alone: the total if there is one, else that
        # direction as the flow's transmit, said in the assumptions
        tx_column = "net.usage.average" if "net.usage.average" in metrics \
            else "net.transmitted.average" if tx_rows is not None \
            else "net.received.average"
        tx_rows, rx_rows = metrics[tx_column], None
        draft.assumptions.append(f"{entity}: only {tx_column} was "
                                 "exported: counted as transmit, receive "
                                 "as 0")
    tx = {t: (v, r, p) for t, v, r, p in tx_rows}
    # tx[t] = (value, row, file)
    rx = {t: v for t, v, _, _ in rx_rows} if rx_rows else {}
    times = sorted(t for t in tx if rx_rows is None or t in rx)
    if not times:
        return None
    file = tx[times[0]][2]
    rows = [tx[s][1] for s in times]
    result.problems.extend(gaps(np.array(times), file, rows,
                                f"{entity} {instance}".strip()))
    t = np.array(times) - start
    tx_gbps = np.array([tx[s][0] for s in times]) * KBPS_TO_GBPS
    rx_gbps = np.array([rx.get(s, 0.0) for s in times]) * KBPS_TO_GBPS
    if kind == "uplink":
        # an uplink's own traffic is its utilisation baseline: not a VM
        # port to place, so it is reported, not added as a flow
        result.taken.append(f"uplink {entity} {instance}: transmit "
                            f"{DemandStats.of(tx_gbps)}; receive "
                            f"{DemandStats.of(rx_gbps)}")
        return None
    flow = {"id": identifier(entity, {f["id"] for f in
                                      draft.document["workloads"]["flows"]}),
            "vm": entity}
    stats = add_flow(draft, flow, t, tx_gbps, rx_gbps,
                     (file, tx_column, "net.received.average"))
    result.taken.append(f"VM {entity}: transmit {stats[0]}; receive "
                        f"{stats[1]}")
    step = np.median(np.diff(times)) if len(times) > 1 else None
    return float(step) if step else None
