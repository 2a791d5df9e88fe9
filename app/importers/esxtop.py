"""esxtop/resxtop batch CSV (``esxtop -b``, PDH-CSV 4.0) -> a scenario of
one ESXi host: its uplinks with their link speeds, one team per virtual
switch, and each VM or VMkernel port as a flow whose demand follows the
measured ``MBits Transmitted/sec`` and ``MBits Received/sec``.

Counters read (VMware, "Interpreting esxtop statistics", network panel):
``Network Port(vSwitch:portID:client)\\Link Speed (Mb)``, ``\\MBits
Transmitted/sec``, ``\\MBits Received/sec`` and ``Physical
Cpu(_Total)\\% Util Time``; every other column is skipped unread.

An export without the ``Link Speed (Mb)`` counters (esxtop's field
selection left them out) still imports: the uplinks take the speed given
(``linkplan import --link-speed``), or else the smallest server Ethernet
speed at or above the highest rate they carried, and the import summary
and the scenario's assumptions say which.
"""

import re

import numpy as np

from app.importers import pdh
from app.importers.common import (SERVER_ETHERNET_GBPS, DemandStats, Draft,
                                  ImportProblem, add_flow, gaps, identifier,
                                  import_each, refuse_past)
from models.scenario import MAX_ENTRIES, MAX_NICS

PATTERN = re.compile(
    r"\\\\[^\\]+\\(?:Network Port\((?P<switch>[^:()]+):(?P<port>\d+):"
    r"(?P<client>.*)\)\\(?P<counter>Link Speed \(Mb\)|MBits Transmitted/sec"
    r"|MBits Received/sec)|Physical Cpu\(_Total\)\\% Util Time)")
_UPLINK = re.compile(r"^vmnic\d+$")
_VMKERNEL = re.compile(r"^vmk\d+$")
#: Ports that are not traffic of their own: the uplinks' shadow ports and
#: the management/internal ports esxtop lists.
_INTERNAL = re.compile(r"^(shadow of vmnic\d+|Management|vdr-vdrPort|"
                       r"vxlan|pps|n/a|--)$", re.IGNORECASE)


def import_files(paths, *, link_speed_gbps=None):
    """Import esxtop batch files; one scenario per file.

    Parameters
    ----------
    paths : list of str
    link_speed_gbps : float, optional
        Speed of the uplinks whose ``Link Speed (Mb)`` counter is not in a
        file [Gbit/s]; without it, derived from their highest rate.
    """
    return import_each(paths, lambda path, result: _import_one(
        path, result, link_speed_gbps))


def _import_one(path, result, link_speed_gbps):
    table = pdh.read(path, PATTERN, result=result,
                     what="an esxtop batch file (esxtop -b)")
    result.problems.extend(table.problems)
    ports, cpu = {}, None
    for column, match in enumerate(table.match):
        if match["counter"] is None:
            cpu = column
            continue
        key = (match["switch"], int(match["port"]), match["client"])
        ports.setdefault(key, {})[match["counter"]] = column
    draft = Draft(f"{table.host or path} (esxtop {path})")
    doc = draft.document
    doc["host"] = {"hypervisor": "vsphere"}
    step = float(np.median(np.diff(table.times))) if table.times.size > 1 \
        else 1.0
    doc["workloads"]["time_step_s"] = min(max(step, 1e-3), 3600.0)
    result.problems.extend(gaps(table.times, path, table.rows,
                               "every counter"))
    # a scenario's limits, checked before the work per port
    refuse_past(path, sum(bool(_UPLINK.match(c)) for _, _, c in ports),
                MAX_NICS, "uplinks")
    refuse_past(path, sum(not _UPLINK.match(c) for _, _, c in ports),
                MAX_ENTRIES, "ports as flows")
    uplinks, unrated = {}, []
    for (switch, port_id, client), counters in sorted(ports.items()):
        if _UPLINK.match(client):
            nic = _uplink(draft, table, client, counters, result, unrated)
            if nic:
                uplinks.setdefault(switch, []).append(nic)
    _assume_link_speed(draft, path, unrated, link_speed_gbps, result)
    for switch, members in uplinks.items():
        doc["teams"].append({"name": identifier(switch), "members":
                             members})
        draft.assumptions.append(
            f"Team {switch}: esxtop does not record the teaming policy; "
            "the vSphere default (route based on originating port ID) is "
            "assumed")
    for (switch, port_id, client), counters in sorted(ports.items()):
        if _UPLINK.match(client):
            continue
        where = f"{path}: port {switch}:{port_id}:{client}"
        if _INTERNAL.match(client.strip()):
            result.skipped.append(f"{where}: internal port, not traffic of "
                                  "its own")
            continue
        if switch not in uplinks:
            result.skipped.append(f"{where}: switch {switch} has no uplink "
                                  "in the file (internal switch?)")
            continue
        _port(draft, table, (switch, port_id, client), counters, where,
              result)
    if cpu is not None:
        times, _, values, notes, problems = pdh.clean(table, [cpu], "CPU")
        result.skipped.extend(notes)
        result.problems.extend(problems)
        if values.size:
            stats = DemandStats.of(values[:, 0])
            draft.assumptions.append(
                f"Measured host CPU utilisation: mean {stats.mean:.1f} %, "
                f"p95 {stats.p95:.1f} %, peak {stats.peak:.1f} % from "
                f"{path}, {table.header[cpu]}")
    if not doc["nics"]:
        raise ImportProblem(path, "at least one uplink (Network Port of a "
                            "vmnic) that is up")
    result.drafts.append(draft)
    result.taken.append(
        f"{path}: host {table.host}: {len(doc['nics'])} uplinks, "
        f"{len(doc['teams'])} teams, {len(doc['workloads']['flows'])} "
        f"ports as flows, {table.times.size} samples every {step:g} s")


def _uplink(draft, table, client, counters, result, unrated):
    """Add an uplink; one without a Link Speed counter is listed in
    ``unrated`` as (NIC index, name, peak rate [Gbit/s] or None) and gets
    its speed from :func:`_assume_link_speed`."""
    peak, rates = None, ""
    columns = [counters.get(c) for c in ("MBits Transmitted/sec",
                                         "MBits Received/sec")]
    if None not in columns:
        _, _, values, _, _ = pdh.clean(table, columns,
                                       f"uplink {client}")
        if values.size:
            tx, rx = (DemandStats.of(values[:, i] / 1000) for i in (0, 1))
            peak = max(tx.peak, rx.peak)
            rates = f": transmit {tx}; receive {rx}"
    doc = draft.document
    column = counters.get("Link Speed (Mb)")
    if column is None:
        speed = None
        unrated.append((len(doc["nics"]), client, peak))
    else:
        speeds = table.values[:, column]
        speeds = speeds[np.isfinite(speeds) & (speeds > 0)]
        if not speeds.size:
            result.skipped.append(f"{table.path}: uplink {client}: link "
                                  "speed 0 in every sample (link down): "
                                  "not imported")
            return None
        speed = draft.measured(f"nics[{len(doc['nics'])}].speed_gbps",
                               float(speeds.max()) / 1000, table.path,
                               table.header[column])
    nic_id = identifier(client, {n["id"] for n in doc["nics"]})
    doc["nics"].append({"id": nic_id, "speed_gbps": speed})
    if rates:
        result.taken.append(f"{table.path}: uplink {client} "
                            + (f"{speed:g} Gbit/s" if speed else
                               "(speed not recorded)") + rates)
    return nic_id


def _assume_link_speed(draft, path, unrated, link_speed_gbps, result):
    """Give the uplinks without a Link Speed counter the speed asked for,
    or the smallest server Ethernet speed at or above the highest rate
    any of them carried (a link is at least as fast as what it carried),
    and say so in the summary and the scenario's assumptions."""
    if not unrated:
        return
    names = ", ".join(client for _, client, _ in unrated)
    if link_speed_gbps is not None:
        speed = float(link_speed_gbps)
        why = "as given at import (--link-speed or the import dialog)"
    else:
        peaks = [peak for _, _, peak in unrated if peak is not None]
        if not peaks:
            raise ImportProblem(path, "the uplinks' 'Link Speed (Mb)' "
                                "counters, or their MBits Transmitted/"
                                "Received/sec to derive the speed from "
                                "(or give it: linkplan import --link-speed "
                                "GBPS)", found=f"neither for {names}")
        peak = max(peaks)
        speed = float(next((s for s in SERVER_ETHERNET_GBPS if s >= peak),
                           SERVER_ETHERNET_GBPS[-1]))
        why = (f"the smallest server Ethernet speed at or above the highest "
               f"rate they carried ({peak:.3g} Gbit/s): a faster link "
               "makes every utilisation lower; give the real speed with "
               "linkplan import --link-speed GBPS")
    for index, _, _ in unrated:
        draft.document["nics"][index]["speed_gbps"] = speed
    text = (f"Link speed of {names}: not in {path} (no 'Link Speed (Mb)' "
            f"counter); {speed:g} Gbit/s assumed, {why}")
    draft.assumptions.append(text)
    result.taken.append(text)


def _port(draft, table, key, counters, where, result):
    switch, port_id, client = key
    columns = [counters.get(c) for c in ("MBits Transmitted/sec",
                                         "MBits Received/sec")]
    if None in columns:
        result.skipped.append(f"{where}: no MBits Transmitted/Received "
                              "counters")
        return
    times, _, values, notes, problems = pdh.clean(
        table, columns, f"port {switch}:{port_id}:{client}")
    result.skipped.extend(notes)
    result.problems.extend(problems)
    if not times.size:
        result.skipped.append(f"{where}: no complete sample")
        return
    doc = draft.document
    vm = re.sub(r"^\d+:", "", client).strip()
    is_vmk = bool(_VMKERNEL.match(vm))
    flow = {"id": identifier(client, {f["id"] for f in
                                      doc["workloads"]["flows"]}),
            "vm": vm if is_vmk else re.sub(r"\.eth\d+$", "", vm),
            "port_id": port_id, "team": identifier(switch),
            "traffic_class": "vmkernel" if is_vmk else "vm"}
    tx, rx = add_flow(draft, flow, times, values[:, 0] / 1000,
                      values[:, 1] / 1000,
                      (table.path, table.header[columns[0]],
                       table.header[columns[1]]))
    result.taken.append(f"{where}: transmit {tx}; receive {rx}")
