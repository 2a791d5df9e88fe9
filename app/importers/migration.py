"""From one measured live migration (QEMU or libvirt) to a scenario, and
the check of Linkplan's prediction against what happened.

The dirty model comes from solvers.fit; the prediction from
solvers.evaluate.evaluate. Nothing here computes physics.
"""

from dataclasses import dataclass, field

import numpy as np

from app.importers.common import (SERVER_ETHERNET_GBPS as ETHERNET_GBPS,
                                  identifier, refuse_past)
from models import wire
from models.scenario import MAX_ENTRIES
from models.units import BITS_PER_BYTE, GIB, MIB
from solvers import metric_ids
from solvers.fit import fit_dirty_model

#: Share of a link's speed left for migration payload after Ethernet,
#: IP and TCP headers at MTU 1500 (1448 of 1538 B: models.wire's framing,
#: IPv4 with TCP timestamps).
PAYLOAD_SHARE = float(wire.efficiency(1500))

#: Metrics compared, by Linkplan metric id: (label, unit).
CHECKED = {metric_ids.headline("migration", key): (label, unit)
           for key, label, unit in (("total_s", "total time", "s"),
                                    ("downtime_s", "downtime", "s"),
                                    ("rounds", "rounds", ""),
                                    ("bytes_sent_gib", "bytes sent", "GiB"))}


@dataclass
class MigrationRecord:
    """What the files say about one migration."""

    name: str
    #: polled statistics: time_s, round, remaining, transferred, total
    #: [B], and optionally dirty_rate [B/s], zero_bytes [B], mbps
    snapshots: list = field(default_factory=list)
    #: dirty-rate samples: (window [s], dirtied [B], source)
    samples: list = field(default_factory=list)
    #: the completed job: total_s, downtime_s, bytes_sent_gib, rounds
    completed: dict | None = None
    memory_bytes: float | None = None
    memory_source: str = ""
    bandwidth_mib_s: float | None = None
    bandwidth_source: str = ""
    downtime_limit_ms: float | None = None
    downtime_limit_source: str = ""

    def empty(self):
        return not self.snapshots and not self.samples \
            and self.completed is None


def build(draft, record, result, *, hypervisor, stop_rule):
    """Fill ``draft`` with a host, a NIC, a transfer and the migration;
    append the draft to ``result`` (or say why not)."""
    memory, memory_source = record.memory_bytes, record.memory_source
    last = max(record.snapshots, key=lambda s: s["time_s"]) \
        if record.snapshots else None
    if memory is None and last is not None:
        memory = last["total"]
        memory_source = f"{last['source']}, ram.total"
    windows, dirtied = rounds_from_snapshots(record.snapshots)
    what = "rounds"
    if windows.size == 0 and record.samples:
        windows = np.array([s[0] for s in record.samples])
        dirtied = np.array([s[1] for s in record.samples])
        what = "dirty-rate samples"
    dirty = None
    # a migration has tens of rounds; a fit over more samples than a
    # scenario holds entries takes minutes
    refuse_past(draft.name, windows.size, MAX_ENTRIES, what)
    if windows.size:
        fit = fit_dirty_model(windows, dirtied,
                              nonzero_memory=memory or np.inf)
        dirty = fit.dirty_model()
        result.taken.append(
            f"dirty model fitted to {windows.size} {what}: "
            + ", ".join(f"{k} {v:.4g}" for k, v in dirty.items()
                        if k != "kind")
            + f" ({fit.kind}; rms residual {100 * fit.rms_relative:.2f} %;"
            f" {fit.message})")
    if not memory:
        result.skipped.append(
            "no guest memory size in the files (query-migrate ram.total, "
            "query-memory-size-summary, domjobinfo 'Memory total' or "
            "domstats balloon.current): no migration created")
        return
    name = identifier(record.name)
    document = draft.document
    document["host"] = {"hypervisor": hypervisor}
    migration = {"name": name, "stop_rule": stop_rule,
                 # the rate comes from the measured migration, which
                 # already ran under whatever max-bandwidth was in force
                 "management": "unlimited",
                 "memory_gib": draft.measured(
                     "workloads.migrations[0].memory_gib", memory / GIB,
                     memory_source.rsplit(", ", 1)[0],
                     memory_source.rsplit(", ", 1)[-1])}
    if record.downtime_limit_ms:
        migration["downtime_budget_ms"] = draft.measured(
            "workloads.migrations[0].downtime_budget_ms",
            record.downtime_limit_ms,
            *record.downtime_limit_source.split(", ", 1))
    if dirty is not None:
        for key, value in dirty.items():
            if key != "kind":
                draft.measured(f"workloads.migrations[0].dirty.{key}",
                               value, "fit", f"{windows.size} {what} "
                               f"(rms residual {100 * fit.rms_relative:.1f}"
                               " %)")
        migration["dirty"] = dirty
    elif last is not None and "dirty_rate" in last:
        rate = last["dirty_rate"] / MIB
        migration["dirty"] = {"kind": "uniform", "rate_mib_s": rate}
        draft.measured("workloads.migrations[0].dirty.rate_mib_s", rate,
                       last["source"].rsplit(", ", 1)[0],
                       "dirty-pages-rate x page-size")
        result.taken.append(f"uniform dirty rate {rate:.4g} MiB/s from "
                            "the last snapshot (no rounds to fit)")
    else:
        result.skipped.append("no rounds and no dirty-rate samples: the "
                              "dirty model stays at 0 MiB/s")
    if last is not None and "zero_bytes" in last:
        zero_pct = min(100.0, 100 * last["zero_bytes"] / memory)
        migration["zero_page_pct"] = draft.measured(
            "workloads.migrations[0].zero_page_pct", zero_pct,
            last["source"].rsplit(", ", 1)[0], "ram.duplicate x page-size")

    bandwidth_gbps, source = _bandwidth(record, last)
    speed = next((s for s in ETHERNET_GBPS
                  if s * PAYLOAD_SHARE >= (bandwidth_gbps or 0)),
                 ETHERNET_GBPS[-1])
    document["nics"] = [{"id": "migration0", "speed_gbps": float(speed)}]
    transfer = {"name": f"{name}-network", "purpose": "live_migration",
                "nics": ["migration0"]}
    if bandwidth_gbps:
        transfer["stream_cap_gbps"] = draft.measured(
            "workloads.transfers[0].stream_cap_gbps", bandwidth_gbps,
            *source)
        draft.assumptions.append(
            f"Migration NIC: {speed} Gbit/s, the smallest Ethernet speed "
            "that carries the measured migration bandwidth; the transfer "
            "is capped at that bandwidth (what the source achieved)")
    else:
        draft.assumptions.append("Migration NIC: 10 Gbit/s assumed (the "
                                 "files give no migration bandwidth)")
        document["nics"][0]["speed_gbps"] = 10.0
    document["workloads"]["transfers"] = [transfer]
    migration["transfer"] = transfer["name"]
    document["workloads"]["migrations"] = [migration]
    result.drafts.append(draft)
    if record.completed:
        result.checks.append({"name": name,
                              "source": record.completed["source"],
                              "measured": {
                                  metric_ids.headline("migration", key): value
                                  for key, value in record.completed.items()
                                  if metric_ids.headline("migration", key)
                                  in CHECKED}})


def rounds_from_snapshots(snapshots):
    """Observed pre-copy rounds from polled snapshots.

    A round ends at a bitmap sync (``dirty-sync-count`` steps); the bytes
    left to send right after it are what the guest dirtied during the
    round plus what was still unsent when QEMU synced (it syncs once less
    than bandwidth x downtime-limit is left): the last snapshot before
    the sync, less what was transferred since, gives that unsent part.
    The round lasted from the previous sync. The sync instant is taken as
    the first snapshot that shows the new count, so the windows are as
    exact as the polling interval.

    Returns
    -------
    (ndarray, ndarray)
        Round durations [s] and bytes dirtied in them [B].
    """
    first_seen, last_seen = {}, {}
    for snap in sorted(snapshots, key=lambda s: s["time_s"]):
        if snap["round"] is None:
            continue
        first_seen.setdefault(snap["round"], snap)
        last_seen[snap["round"]] = snap
    counts = sorted(first_seen)
    windows, dirtied = [], []
    for previous, current in zip(counts, counts[1:]):
        if current != previous + 1:
            continue  # a sync was missed between polls: no clean window
        start, end = first_seen[previous], first_seen[current]
        before = last_seen[previous]
        unsent = max(before.get("remaining", 0) - (
            end.get("transferred", 0) - before.get("transferred", 0)), 0)
        found = end.get("remaining", 0) - unsent
        if end["time_s"] > start["time_s"] and found > 0:
            windows.append(end["time_s"] - start["time_s"])
            dirtied.append(found)
    return np.array(windows), np.array(dirtied)


def _bandwidth(record, last):
    if record.bandwidth_mib_s:
        return record.bandwidth_mib_s * MIB * BITS_PER_BYTE / 1e9, \
            tuple(record.bandwidth_source.rsplit(", ", 1))
    if last is not None and last.get("mbps"):
        return last["mbps"] / 1e3, (last["source"].rsplit(", ", 1)[0],
                                    "ram.mbps")
    return None, None


def predicted_vs_measured(scenario, check):
    """Linkplan's prediction next to a completed migration's measurement.

    Parameters
    ----------
    scenario : models.scenario.Scenario
        The imported scenario.
    check : dict
        One entry of ``ImportResult.checks``.

    Returns
    -------
    list of dict
        One row per compared quantity: label, unit, predicted (None when
        the prediction has no value, e.g. no convergence), measured and
        error_pct (predicted vs measured).
    """
    from solvers.evaluate import evaluate

    base = evaluate(scenario).variants[0]
    rows = []
    for metric_id, measured in check["measured"].items():
        label, unit = CHECKED[metric_id]
        try:
            predicted = base.metric(metric_id).value
        except KeyError:
            predicted = None
        error = None if predicted is None or not measured \
            else 100 * (predicted - measured) / measured
        rows.append({"metric": metric_id, "label": label, "unit": unit,
                     "predicted": predicted, "measured": measured,
                     "error_pct": error})
    return rows


def format_check(rows, check):
    """The predicted-vs-measured rows as a text table."""
    lines = [f"Predicted vs measured: migration {check['name']!r} "
             f"({check['source']})",
             f"  {'quantity':14} {'predicted':>12} {'measured':>12} "
             f"{'error':>9}"]
    for row in rows:
        unit = f" {row['unit']}" if row["unit"] else ""
        predicted = "n/a" if row["predicted"] is None \
            else f"{row['predicted']:.4g}{unit}"
        error = "" if row["error_pct"] is None \
            else f"{row['error_pct']:+.1f} %"
        lines.append(f"  {row['label']:14} {predicted:>12} "
                     f"{row['measured']:.4g}{unit:>4} {error:>9}".rstrip())
    return "\n".join(lines)
