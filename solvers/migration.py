"""Live-migration analysis: each migration's rate from the transfer model,
then the pre-copy iteration of models.migration for all of them at once."""

import math

import numpy as np

from models import migration
from models.scenario import Transfer
from solvers import goalseek, host_network
from solvers.results import Finding

GIB = 2 ** 30
MIB = 2 ** 20
#: Syncs simulated before a migration is declared non-converging: QEMU's
#: timer syncs every 5 s, so 3000 cover over four hours of pre-copy.
SYNC_LIMIT = 3000


def _transfer_of(doc, item):
    """The transfer carrying a migration: the named one, or one built from
    the migration's own transport fields over all NICs (one session per
    concurrent migration, spread over the NICs like multi-NIC vMotion)."""
    if item.transfer is not None:
        return next(t for t in doc.workloads.transfers
                    if t.name == item.transfer)
    return Transfer(name=f"{item.name}-network", purpose="live_migration",
                    transport=item.transport, sessions=item.concurrency,
                    streams=item.streams, multipath=True,
                    compression_ratio=item.compression_ratio,
                    compressor_gbps=item.compressor_gbps,
                    compression_threads=item.compression_threads)


def _parameters(doc, item):
    rule = migration.STOP_RULES[item.stop_rule]
    dirty = item.dirty
    hot = dirty.kind == "hot_cold"
    budget = rule.downtime_limit if item.downtime_budget_ms is None \
        else item.downtime_budget_ms / 1e3
    throttle = item.throttling or rule.throttle
    qemu = migration.qemu_settings(
        item.qemu_version, item.management,
        None if item.max_bandwidth_mib_s is None
        else item.max_bandwidth_mib_s * MIB, throttle) \
        if rule.sync == "qemu" else None
    return {
        "memory": item.memory_gib * GIB,
        "cold_rate": (dirty.cold_rate_mib_s if hot else dirty.rate_mib_s)
        * MIB,
        "hot_set": dirty.hot_set_gib * GIB if hot else 0.0,
        "hot_rate": dirty.rate_mib_s * MIB if hot else 0.0,
        "first_cap": (item.first_round_rate_cap_mib_s or math.inf) * MIB,
        "zero_fraction": item.zero_page_pct / 100,
        "downtime_limit": budget,
        "min_pages": rule.min_pages,
        "fraction_left": item.fraction_left_pct / 100
        if item.stop_rule == "fraction_left" else 0.0,
        "max_rounds": rule.max_rounds,
        "max_factor": rule.max_factor,
        "max_switchover": item.max_switchover_s or rule.max_switchover,
        "time_budget": item.time_budget_s or math.inf,
        "throttle": migration.THROTTLES.index(throttle),
        "fixed_downtime": rule.fixed_downtime,
        "sync": migration.SYNC_RULES.index(rule.sync),
        "max_bandwidth": qemu["max_bandwidth"] if qemu else math.inf,
        "sync_timer": qemu["sync_timer_s"] if qemu else math.inf,
        "test_sent_pass": rule.test_sent_pass,
        "final_live_pass": rule.final_live_pass,
    }


def analyse(documents, transfer_rates=None):
    """Evaluate every migration of every variant (see host_network.analyse
    for the shape of the result).

    ``transfer_rates`` (per variant, {name: (throughput, members)}, as
    host_network.analyse reports them) spares re-running the transfers that
    migrations name; the others are evaluated here.
    """
    owners = [(index, doc, item) for index, (_, doc) in enumerate(documents)
              for item in doc.workloads.migrations]
    out = [{"metrics": {}, "findings": [], "assumptions": [], "traces": {}}
           for _ in documents]
    if not owners:
        return out
    known = transfer_rates or [{} for _ in documents]
    missing = [r for r, (index, _, item) in enumerate(owners)
               if item.transfer not in known[index]]
    throughput, spread = np.zeros(len(owners)), np.ones(len(owners))
    for r, (index, _, item) in enumerate(owners):
        if r not in missing:
            throughput[r], spread[r] = known[index][item.transfer]
    if missing:
        _, network, _ = host_network.run_transfers(
            [(owners[r][1], _transfer_of(owners[r][1], owners[r][2]))
             for r in missing])
        throughput[missing] = network["throughput"]
        spread[missing] = network["spread_members"]
    concurrency = np.array([item.concurrency for _, _, item in owners])
    rate = throughput * 1e9 / 8 / concurrency  # [B/s] each
    columns = [_parameters(doc, item) for _, doc, item in owners]
    p = {k: np.array([c[k] for c in columns]) for k in columns[0]}
    # QEMU's max-bandwidth caps the rate, and the capped migration thread
    # sends in 100 ms windows instead of 50 ms iterations
    capped = rate > p["max_bandwidth"]
    rate = np.minimum(rate, p["max_bandwidth"])
    result = migration.precopy(
        p["memory"], rate, p["cold_rate"], hot_set=p["hot_set"],
        hot_rate=p["hot_rate"], first_rate=np.minimum(p["first_cap"], rate),
        zero_fraction=p["zero_fraction"],
        downtime_limit=p["downtime_limit"], min_pages=p["min_pages"],
        fraction_left=p["fraction_left"], max_rounds=p["max_rounds"],
        max_factor=p["max_factor"], max_switchover=p["max_switchover"],
        time_budget=p["time_budget"], throttle=p["throttle"],
        fixed_downtime=p["fixed_downtime"], sync=p["sync"],
        iteration_s=np.where(capped, migration.QEMU_CAPPED_ITERATION_S,
                             migration.QEMU_ITERATION_S),
        sync_timer_s=p["sync_timer"], test_sent_pass=p["test_sent_pass"],
        final_live_pass=p["final_live_pass"],
        round_limit=SYNC_LIMIT, trace=True)
    # the rate that would converge within the downtime budget: the
    # evidence when a migration does not converge
    window_rate = goalseek.rate_for_downtime(
        np.maximum(p["downtime_limit"], 1e-3),
        p["memory"] * (1 - p["zero_fraction"]), cold_rate=p["cold_rate"],
        hot_set=p["hot_set"], hot_rate=p["hot_rate"]).x
    answers = _goal_seek(p, rate, spread)

    for r, (index, _, item) in enumerate(owners):
        prefix = f"migration.{item.name}"
        converged = bool(result["converged"][r])
        values = {
            f"{prefix}.converged": float(converged),
            f"{prefix}.rounds": result["rounds"][r],
            f"{prefix}.rate_gbps": rate[r] * 8 / 1e9,
            f"{prefix}.throttle_pct": 100 * result["throttle"][r],
            f"{prefix}.guest_slowdown": result["slowdown"][r],
            f"{prefix}.rate_for_downtime_gbps": window_rate[r] * 8 / 1e9,
        }
        if converged:  # never a finite time for a migration that fails
            batches = math.ceil(item.count / item.concurrency)
            values.update({
                f"{prefix}.total_s": result["total_time"][r],
                f"{prefix}.downtime_s": result["downtime"][r],
                f"{prefix}.bytes_sent_gib": result["bytes_sent"][r] / GIB,
                f"{prefix}.all_vms_s": batches * result["total_time"][r],
            })
        values.update({f"{prefix}.{k}": v[r] for k, v in answers.items()
                       if np.isfinite(v[r])})
        target = out[index]
        if not any(k.startswith("migration.") and k.count(".") == 1
                   for k in target["metrics"]):
            for key, value in list(values.items()):
                target["metrics"][f"migration.{key.rsplit('.', 1)[1]}"] = \
                    value
        target["metrics"].update(values)
        target["findings"].extend(_findings(item, result, r, rate[r],
                                            window_rate[r]))
        target["traces"][f"{prefix}.rounds"] = _trace(result, r)
        rule = migration.STOP_RULES[item.stop_rule]
        target["assumptions"].append(
            f"Migration {item.name!r}: stop rule {item.stop_rule} "
            f"({rule.source}); {1e3 * rule.fixed_downtime:g} ms of device "
            "state and resume added to the downtime")
        if rule.sync == "qemu":
            target["assumptions"].append(
                f"Migration {item.name!r}: " + migration.qemu_settings(
                    item.qemu_version, item.management,
                    None if item.max_bandwidth_mib_s is None
                    else item.max_bandwidth_mib_s * MIB, item.throttling
                    or rule.throttle)["source"]
                + "; rounds = QEMU's dirty-sync-count")
        if (item.throttling or rule.throttle) == "sdps":
            target["assumptions"].append(
                "SDPS modelled as an interpretation of the ESXi settings "
                "(engages below transmit/dirty 1.3, aims at 5)")
    return out


def _goal_seek(p, rate, spread):
    """What would change each migration (all solved at once):
    ``dirty_limit_gbps``, the dirtying at which it stops converging
    without throttling; with a time budget, ``rate_needed_gbps`` and
    ``nics_needed`` to finish within it and ``largest_vm_gib`` that fits."""
    slope = p["hot_rate"] + p["cold_rate"]
    limit = goalseek.dirty_limit(
        rate, p["memory"] * (1 - p["zero_fraction"]),
        cold_rate=np.where(slope > 0, p["cold_rate"], 1.0),
        hot_set=p["hot_set"], hot_rate=p["hot_rate"],
        downtime_limit=np.maximum(p["downtime_limit"], 1e-3))
    answers = {"dirty_limit_gbps": limit.x * np.where(slope > 0, slope, 1.0)
               * 8 / 1e9}
    budget = p["time_budget"]
    timed = np.isfinite(budget)
    answers["rate_needed_gbps"] = np.full(rate.shape, np.nan)
    answers["nics_needed"] = np.full(rate.shape, np.nan)
    answers["largest_vm_gib"] = np.full(rate.shape, np.nan)
    if timed.any():
        model = dict(cold_rate=p["cold_rate"][timed],
                     hot_set=p["hot_set"][timed],
                     hot_rate=p["hot_rate"][timed],
                     downtime_limit=p["downtime_limit"][timed],
                     fixed_downtime=p["fixed_downtime"][timed],
                     throttle=p["throttle"][timed],
                     first_rate_cap=p["first_cap"][timed])
        needed = goalseek.rate_for_time(budget[timed], p["memory"][timed],
                                        **model).x
        # NICs of the kind in use, each giving its share of the goodput
        per_nic = rate[timed] / spread[timed]
        answers["rate_needed_gbps"][timed] = needed * 8 / 1e9
        answers["nics_needed"][timed] = np.ceil(needed / per_nic)
        answers["largest_vm_gib"][timed] = goalseek.largest_memory(
            budget[timed], rate[timed], **model).x / GIB
    return answers


def _trace(result, r):
    volumes = result["round_bytes"][r]
    seconds = result["round_seconds"][r]
    keep = ~np.isnan(volumes)
    return {"x": {"id": "round", "unit": "1",
                  "values": np.flatnonzero(keep).tolist()},
            "y": {"id": "bytes", "unit": "GiB",
                  "values": (volumes[keep] / GIB).tolist()},
            "seconds": {"id": "duration", "unit": "s",
                        "values": seconds[keep].tolist()}}


def _findings(item, result, r, rate, window_rate):
    outcome = migration.OUTCOMES[int(result["outcome"][r])]
    evidence = {"metric": f"migration.{item.name}.rate_for_downtime_gbps",
                "value": window_rate * 8 / 1e9,
                "threshold": rate * 8 / 1e9}
    if outcome in ("no_convergence", "time_budget", "switchover_too_long"):
        why = {"no_convergence": "pre-copy never reaches the switchover "
                                 "threshold",
               "time_budget": "the time budget runs out first",
               "switchover_too_long": "the switchover would exceed the "
                                      "maximum switchover time"}[outcome]
        return [Finding(
            id="migration.no_convergence", severity="critical",
            message=(f"Migration {item.name!r} does not complete: {why}. "
                     f"Converging within its downtime budget takes "
                     f"{window_rate * 8 / 1e9:.2f} Gbit/s (what the guest "
                     "dirties over one budget); it gets "
                     f"{rate * 8 / 1e9:.2f} Gbit/s; "
                     "more bandwidth, a larger downtime budget or "
                     "throttling (auto-converge, SDPS) would change that."),
            evidence=evidence)]
    if result["throttle"][r] > 0:
        return [Finding(
            id="migration.throttled", severity="warning",
            message=(f"Migration {item.name!r} converges only by throttling "
                     f"the guest to {100 * (1 - result['throttle'][r]):.0f} "
                     f"% of its vCPU time (slowdown "
                     f"{result['slowdown'][r]:.1f}x at the end)."),
            evidence=evidence)]
    if outcome != "switchover":
        return [Finding(
            id=f"migration.{outcome}", severity="info",
            message=(f"Migration {item.name!r} stopped by the {outcome} "
                     "rule of its hypervisor, not by reaching its downtime "
                     "target."), evidence=evidence)]
    return []
