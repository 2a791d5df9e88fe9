"""sysstat ``sadf -j`` JSON (``sadf -j -- -n DEV``) -> a KVM host scenario.

Structure (sysstat sadf(1), JSON output; DTD/XSD in the sysstat sources):
``{"sysstat": {"hosts": [{"nodename", "statistics": [{"timestamp":
{"date", "time", "utc", "interval"}, "network": {"net-dev": [{"iface",
"rxkB", "txkB", "ifutil-percent", ...}]}}]}]}}``; rxkB and txkB are
kilobytes (1024 bytes) per second. Physical interfaces become NICs (their
speed from ifutil-percent: for full duplex sysstat divides the larger
direction by the speed), VM taps (vnetN, tapN) flows with the directions
swapped (what the tap receives, the VM sent); loopback, bridges and
bonds are skipped (their traffic is that of their members).
"""

import datetime
import re

import numpy as np

from app.importers.common import (DemandStats, Draft, ETHERNET_GBPS,
                                  ImportProblem, add_flow, add_nics_and_team,
                                  expect, gaps, identifier, import_each,
                                  read_json)
from models.units import KIB, bytes_per_s_to_gbps

KB_TO_GBIT = bytes_per_s_to_gbps(KIB)
_TAP = re.compile(r"^(vnet|tap|macvtap)\d+")
_SKIP = re.compile(r"^(lo|br|virbr|bond|docker|veth|ovs-system|team)")


def import_files(paths):
    """Import sadf -j files; one scenario per host."""
    return import_each(paths, _import_one)


def _import_one(path, result):
    data = read_json(path, result, "sadf -j JSON")
    try:
        hosts = data["sysstat"]["hosts"]
    except (KeyError, TypeError):
        raise ImportProblem(path, "sadf -j JSON with sysstat.hosts") \
            from None
    for index, host in enumerate(expect(path, hosts, list,
                                        "sysstat.hosts")):
        _host(path, expect(path, host, dict, f"sysstat.hosts[{index}]"),
              result)


def _host(path, host, result):
    name = str(host.get("nodename", "host"))
    series = {}   # iface -> {time: (rx, tx, util, index)}
    for index, sample in enumerate(expect(path, host.get("statistics", []),
                                          list, "statistics")):
        where = f"statistics[{index}]"
        sample = expect(path, sample, dict, where)
        stamp = sample.get("timestamp", {})
        try:
            moment = datetime.datetime.strptime(
                f"{stamp['date']} {stamp['time']}", "%Y-%m-%d %H:%M:%S"
            ).timestamp()
        except (KeyError, ValueError, TypeError):
            result.problems.append(
                f"{path}: {where}.timestamp: expected date YYYY-MM-DD and "
                f"time HH:MM:SS, got {str(stamp)[:80]!r}: sample skipped")
            continue
        network = expect(path, sample.get("network", {}), dict,
                         f"{where}.network")
        devices = network.get("net-dev")
        if devices is None:
            continue
        for number, device in enumerate(expect(path, devices, list,
                                               f"{where}.network.net-dev")):
            device = expect(path, device, dict,
                            f"{where}.network.net-dev[{number}]")
            iface = str(device.get("iface", ""))[:100]
            values = []
            for key in ("rxkB", "txkB", "ifutil-percent"):
                value = device.get(key, 0.0 if key == "ifutil-percent"
                                   else None)
                if isinstance(value, bool) or not isinstance(
                        value, (int, float)) or value < 0:
                    result.problems.append(
                        f"{path}: {where}.network.net-dev[{iface}].{key}: "
                        f"expected a number >= 0, got {str(value)[:40]!r}: "
                        "sample skipped")
                    break
                values.append(float(value))
            else:
                samples = series.setdefault(iface, {})
                if moment in samples:
                    first = samples[moment][3]
                    result.problems.append(
                        f"{path}: {where}: interface {iface}: "
                        + ("listed twice in one sample" if first == index
                           else f"the timestamp of statistics[{first}] "
                           "again") + ": sample skipped, the first kept")
                    continue
                samples[moment] = (*values, index)
    if not series:
        raise ImportProblem(path, f"host {name}: net-dev statistics (sadf "
                            "-j -- -n DEV)")
    draft = Draft(f"{name} (sar {path})")
    draft.document["host"] = {"hypervisor": "kvm"}
    nics = []
    for iface, samples in sorted(series.items()):
        if _SKIP.match(iface) or _TAP.match(iface):
            continue
        speed = _speed(samples)
        if speed is None:
            result.problems.append(f"{path}: interface {iface}: "
                                   "ifutil-percent is 0 in every sample: "
                                   "link speed unknown, not imported")
            continue
        nics.append((iface, speed, (path, "ifutil-percent with rxkB/txkB "
                                    "(speed rounded to Ethernet)")))
        times, rx, tx = _arrays(samples)
        result.taken.append(f"{path}: NIC {iface} {speed:g} Gbit/s: "
                            f"transmit {DemandStats.of(tx)}; receive "
                            f"{DemandStats.of(rx)}")
    if not nics:
        raise ImportProblem(path, f"host {name}: a physical interface with "
                            "traffic (ifutil-percent > 0)")
    add_nics_and_team(draft, nics, team="bond0", policy="failover",
                      switch_mode="independent",
                      assumption="sar records no bonding: the physical "
                      "NICs form one active-backup team (assumed)")
    start = min(min(s) for s in series.values())
    steps = []
    for iface, samples in sorted(series.items()):
        if _SKIP.match(iface):
            result.skipped.append(f"{path}: interface {iface}: loopback, "
                                  "bridge or bond (counted on its members)")
            continue
        if not _TAP.match(iface):
            continue
        times, rx, tx = _arrays(samples)
        rows = [f"statistics[{samples[t][3]}]" for t in times]
        result.problems.extend(gaps(times, path, rows, iface))
        # a tap receives what its VM sends
        stats = add_flow(draft, {"id": identifier(iface), "vm": iface},
                         times - start, rx, tx,
                         (path, f"net-dev[{iface}].rxkB",
                          f"net-dev[{iface}].txkB"))
        result.taken.append(f"{path}: VM tap {iface}: transmit {stats[0]};"
                            f" receive {stats[1]}")
        if times.size > 1:
            steps.append(float(np.median(np.diff(times))))
    if steps:
        draft.document["workloads"]["time_step_s"] = min(min(steps), 3600)
    result.drafts.append(draft)


def _arrays(samples):
    times = np.array(sorted(samples))
    rx = np.array([samples[t][0] for t in times]) * KB_TO_GBIT
    tx = np.array([samples[t][1] for t in times]) * KB_TO_GBIT
    return times, rx, tx


def _speed(samples):
    """Link speed [Gbit/s] from the samples with ifutil > 0, rounded to
    the nearest Ethernet speed (sysstat: ifutil = max(rx, tx) / speed for
    full duplex)."""
    estimates = [max(rx, tx) * KB_TO_GBIT * 100 / util
                 for rx, tx, util, _ in samples.values() if util > 0]
    if not estimates:
        return None
    speed = float(np.median(estimates))
    return min(ETHERNET_GBPS, key=lambda s: abs(np.log(s / speed)))
