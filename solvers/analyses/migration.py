"""Live-migration analysis: each migration's rate from the transfer it
rides (the host analysis provides it), then the pre-copy iteration of
models.migration for all migrations of all documents at once, and goal
seek on what would change each outcome."""

import math

import numpy as np

from models import compression, migration, migration_costs, platform, qemu_ram
from models.units import GIB, MIB, bytes_per_s_to_gbps
from solvers import goalseek
from solvers import metric_grammar as metric_ids
from solvers.analysis import (COUNT, EMPTY, FIRST, FLAG, HIGHER, LOWER,
                              TURNS, VERDICT, Analysis, Candidate,
                              ColumnResult, Goal, Items, Metric,
                              ResultBuilder, SweepMark, defaulted_binding,
                              metric_value)
from solvers.inputs import (auto_streams, compression_note,
                            migration_carrier, migration_streams)
from solvers.results import Bottleneck, Finding
from solvers.schedule import precopy

ANALYSIS = Analysis(
    name="migration", order=2,
    # Before the host's: a migration names a limit only when it does not
    # converge or converges only by throttling the guest, and then that is
    # the verdict on the question, not the transport's line rate.
    bottleneck_priority=-1, module=__name__, requires=("host",),
    reads=("calibration", "goal", "host", "workloads.transfers",
           "workloads.migrations"),
    # it reads no document field a column sweep varies
    inputs=("migrations",),
    metrics=(
        Metric("converged", "1", "converged (1 yes, 0 no)", kind=FLAG,
               better=HIGHER),
        Metric("rounds", "1", "pre-copy rounds", kind=COUNT, better=LOWER),
        Metric("rate_gbps", "Gbit/s", "migration rate", better=HIGHER),
        Metric("throttle_pct", "%", "final guest throttle", better=LOWER),
        Metric("guest_slowdown", "x", "guest slowdown", better=LOWER),
        Metric("rate_for_downtime_gbps", "Gbit/s",
               "rate needed to converge within the budget", kind=VERDICT),
        Metric("total_s", "s", "total time", better=LOWER),
        Metric("downtime_s", "s", "downtime", better=LOWER),
        Metric("bytes_sent_gib", "GiB", "bytes sent", better=LOWER),
        Metric("postcopy_s", "s", "post-copy phase: guest runs on the "
               "destination, faulting missing pages over the network",
               better=LOWER),
        Metric("postcopy_gib", "GiB", "memory pulled in post-copy"),
        Metric("registration_s", "s", "RDMA memory registration before "
               "the copy (pin-all)", better=LOWER),
        Metric("all_vms_s", "s", "all VMs, in batches", better=LOWER),
        Metric("dirty_limit_gbps", "Gbit/s",
               "dirtying at which it stops converging", kind=VERDICT,
               better=HIGHER),
        Metric("throttle_from_gbps", "Gbit/s", "dirtying above which it "
               "converges only by throttling the guest", kind=VERDICT,
               better=HIGHER),
        Metric("rate_needed_gbps", "Gbit/s",
               "rate needed for the time budget", kind=VERDICT),
        Metric("nics_needed", "1", "NICs needed for the time budget",
               kind=COUNT, better=LOWER),
        Metric("largest_vm_gib", "GiB", "largest VM within the time "
               "budget", kind=VERDICT, better=HIGHER),
    ),
    headline="total_s", headline_prefix="Migration: ",
    items=(Items("migration", FIRST),),
    models=("models.migration",), areas=("migration",),
    goals=(Goal("min_migration_time", "migration.total_s", "min",
                lambda doc: bool(doc.workloads.migrations),
                context=("migration.total_s", "migration.downtime_s"),
                rank=2),),
    views=("migration",),
    sweep_axes=("workloads.migrations[0].dirty.rate_mib_s",
                "workloads.migrations[0].memory_gib"),
    sweep_marks=(SweepMark("convergence boundary", "converged", TURNS),
                 # beyond it the dirty rate over a round outruns the
                 # bandwidth: the guest must be throttled to converge
                 SweepMark("throttling needed", "throttle_pct", TURNS)))


def analyse(inputs, upstream, *, details=True):
    """Migration metrics of every document (see :mod:`solvers.analysis`)."""
    rows = inputs.migrations
    if not rows.owners:
        return [EMPTY] * len(inputs.documents)
    out = ResultBuilder.each(inputs.documents)
    _evaluate(rows, [r.provides["rates"] for r in upstream["host"]], out,
              details, inputs)
    if details:
        _goal_limit(inputs.documents, rows,
                    [r.provides.get("limits", {}) for r in upstream["host"]],
                    out)
    return [o.result() for o in out]


def analyse_columns(inputs, upstream):
    """Migration metrics of the points of a
    :class:`solvers.columns.TiledInputs`, as columns (see
    :mod:`solvers.analysis`): a metric a point does not have (the times
    of a migration that does not converge, a goal-seek answer that does
    not exist) is NaN there."""
    rows = inputs.migrations
    if not rows.owners:
        return ColumnResult()
    count = inputs.count
    rates = upstream["host"].provides["rates"]
    one = inputs.template.migrations.owners
    carried = [rates[_carrier(item)] for _, item in one]
    result, rate, window_rate, answers = _solve(
        rows, np.concatenate([c.bytes_per_s for c in carried]),
        np.concatenate([c.spread_members for c in carried]), False,
        inputs.reuse)
    metrics = {}
    for j, (_, item) in enumerate(one):
        r = slice(j * count, (j + 1) * count)
        converged = result["converged"][r].astype(bool)
        values = {
            "converged": converged.astype(float),
            "rounds": result["rounds"][r],
            "rate_gbps": bytes_per_s_to_gbps(rate[r]),
            "throttle_pct": 100 * result["throttle"][r],
            "guest_slowdown": result["slowdown"][r],
            "rate_for_downtime_gbps": bytes_per_s_to_gbps(window_rate[r]),
        }
        # (count and concurrency are column fields: per point)
        batches = np.ceil(rows.count[r] / rows.concurrency[r])
        for key, value in (("total_s", result["total_time"][r]),
                           ("downtime_s", result["downtime"][r]),
                           ("bytes_sent_gib", result["bytes_sent"][r] / GIB),
                           ("all_vms_s", batches * result["total_time"][r])):
            values[key] = np.where(converged, value, np.nan)
        values.update(_mode_values(item, result, rows.columns, r))
        values.update({k: np.where(np.isfinite(v[r]), v[r], np.nan)
                       for k, v in answers.items()})
        if j == 0:   # the first migration: headline
            metrics.update({metric_ids.headline("migration", k): v
                            for k, v in values.items()})
        metrics.update({metric_ids.migration(item.name, k): v
                        for k, v in values.items()})
    return ColumnResult(metrics)


def _defaulted(doc, item, found, capped):
    """The defaults a migration's answer rests on, named with their
    sources: the stop rule's downtime budget and throttling where it
    does not converge or converges only throttled, QEMU's max-bandwidth
    where it caps the rate."""
    index = next(i for i, m in enumerate(doc.workloads.migrations)
                 if m is item)
    prefix = f"workloads.migrations[{index}]"
    rule = migration.STOP_RULES[item.stop_rule]
    inputs, limit = {}, None
    verdict = [f for f in found if f.id in ("migration.no_convergence",
                                            "migration.throttled")]
    if verdict:
        limit = verdict[0].message
        inputs[f"{prefix}.downtime_budget_ms"] = (
            f"the {item.stop_rule} stop rule's "
            f"{1e3 * rule.downtime_limit:g} ms ({rule.source})")
        inputs[f"{prefix}.throttling"] = (
            f"the {item.stop_rule} stop rule's {rule.throttle!r}")
    if capped and rule.sync == "qemu":
        limit = limit or (f"QEMU's max-bandwidth caps migration "
                          f"{item.name!r}")
        inputs[f"{prefix}.max_bandwidth_mib_s"] = (
            f"QEMU {item.qemu_version}'s default max-bandwidth (32 MiB/s "
            "before 5.2, 128 MiB/s from 5.2: QEMU migration parameters)")
        inputs[f"{prefix}.management"] = (
            "'qemu': QEMU's own default, which libvirt would lift")
    if not inputs:
        return None
    return defaulted_binding(doc, limit, inputs,
                             finding_id="migration.defaulted_input_binds")


def _goal_limit(documents, rows, limits, out):
    """With the goal ``min_migration_time``, a document whose migrations
    all converge unthrottled is bound by its first migration's network:
    that carrier's limit is the verdict (not another transfer's, nor the
    wire's line rate), so the GUI, the PDF and the CLI name the limit of
    the goal's quantity."""
    first = {}
    for index, item in rows.owners:
        first.setdefault(index, item)
    for index, item in first.items():
        doc = documents[index]
        if out[index].bottleneck is not None or doc.goal is None or \
                doc.goal.kind != "min_migration_time":
            continue
        carrier = limits[index].get(_carrier(item))
        if carrier is not None:
            words = carrier.message.split(": ", 1)[-1] \
                if item.transfer is not None else carrier.message
            out[index].bottleneck = Bottleneck(
                carrier.id, f"{item.name}: {words}")


def _carrier(item):
    """Key of the rate a migration rides in the host's ``rates``."""
    return ("transfer", item.transfer) if item.transfer is not None \
        else ("migration", item.name)


def _solve(rows, throughput, spread, details, reuse):
    """Pre-copy of every row at its carrier's ``throughput`` [B/s]
    shared by its concurrency, the rate that would converge within the
    downtime budget and the goal-seek answers (``reuse``:
    :meth:`solvers.inputs.Inputs.reuse`)."""
    rate = throughput / rows.concurrency  # each [B/s]
    p = rows.columns
    result = precopy(p, rate, trace=details)
    rate = result["rate"]
    # the rate that would converge within the downtime budget: the
    # evidence when a migration does not converge
    window_rate = goalseek.rate_for_downtime(
        np.maximum(p["downtime_limit"], migration_costs.DOWNTIME_FLOOR_S),
        p["memory"] * (1 - p["zero_fraction"]), cold_rate=p["cold_rate"],
        hot_set=p["hot_set"], hot_rate=p["hot_rate"]).x
    return result, rate, window_rate, _goal_seek(
        p, rate, spread, reuse, result["converged"].astype(bool))


def _evaluate(rows, rates, out, details, inputs):
    carried = [rates[index][_carrier(item)] for index, item in rows.owners]
    result, rate, window_rate, answers = _solve(
        rows, np.array([c.bytes_per_s for c in carried]),
        np.array([c.spread_members for c in carried]), details,
        inputs.reuse)
    documents = inputs.documents

    for r, (index, item) in enumerate(rows.owners):
        converged = bool(result["converged"][r])
        values = {
            "converged": float(converged),
            "rounds": result["rounds"][r],
            "rate_gbps": bytes_per_s_to_gbps(rate[r]),
            "throttle_pct": 100 * result["throttle"][r],
            "guest_slowdown": result["slowdown"][r],
            "rate_for_downtime_gbps": bytes_per_s_to_gbps(window_rate[r]),
        }
        if converged:  # never a finite time for a migration that fails
            batches = math.ceil(item.count / item.concurrency)
            values.update({
                "total_s": result["total_time"][r],
                "downtime_s": result["downtime"][r],
                "bytes_sent_gib": result["bytes_sent"][r] / GIB,
                "all_vms_s": batches * result["total_time"][r],
            })
        values.update({k: float(v) for k, v in _mode_values(
            item, result, rows.columns, r).items() if not np.isnan(v)})
        values.update({k: v[r] for k, v in answers.items()
                       if np.isfinite(v[r])})
        target = out[index]
        if not target.metrics:   # the first migration: headline
            target.metrics.update(
                {metric_ids.headline("migration", k): v
                 for k, v in values.items()})
        target.metrics.update({metric_ids.migration(item.name, k): v
                                  for k, v in values.items()})
        if not details:
            continue
        found = _findings(item, result, r, rate[r], window_rate[r])
        cap = rows.columns["max_bandwidth"][r]
        capped = rate[r] >= (1 - 1e-9) * cap
        defaulted = _defaulted(documents[index], item, found, capped)
        if defaulted is not None:   # the verdict's own finding stays last
            target.findings.append(defaulted)
        target.findings.extend(found)
        if target.bottleneck is None:
            target.bottleneck = _bottleneck(found)
        if target.bottleneck is None and capped:
            # QEMU's own rate limit, not the path, sets the rate
            target.bottleneck = Bottleneck(
                "migration.max_bandwidth",
                f"{item.name}: QEMU's max-bandwidth of "
                f"{cap / MIB:,.0f} MiB/s ({bytes_per_s_to_gbps(cap):.3g} "
                "Gbit/s) caps the migration below what its path carries")
        target.traces[metric_ids.rounds_trace(item.name)] = \
            _trace(result, r)
        rule = migration.STOP_RULES[item.stop_rule]
        target.assumptions.append(
            f"Migration {item.name!r}: stop rule {item.stop_rule} "
            f"({rule.source}); {1e3 * rule.fixed_downtime:g} ms of device "
            "state and resume added to the downtime")
        if rule.sync == "qemu":
            target.assumptions.append(
                f"Migration {item.name!r}: " + migration.qemu_settings(
                    item.qemu_version, item.management,
                    None if item.max_bandwidth_mib_s is None
                    else item.max_bandwidth_mib_s * MIB, item.throttling
                    or rule.throttle)["source"]
                + "; rounds = QEMU's dirty-sync-count")
            target.assumptions.append(
                _qemu_page_note(item, rows.columns, r))
        target.assumptions.extend(
            _mode_assumptions(documents[index], item))
        if (item.throttling or rule.throttle) == "sdps":
            target.assumptions.append(
                "SDPS modelled as an interpretation of the ESXi settings "
                "(engages below transmit/dirty 1.3, aims at 5)")


def _qemu_page_note(item, columns, r):
    """What QEMU's RAM path per page (models.qemu_ram) assumes for row
    ``r``."""
    where = qemu_ram.zero_page_detection(
        item.zero_page_detection, item.qemu_version, item.multifd)
    tested = {"legacy": "on the migration thread",
              "multifd": f"in the {migration_streams(item)} multifd "
                         "channels",
              "none": "nowhere: zero pages cross whole"}[where]
    return (f"Migration {item.name!r}: QEMU's migration thread takes "
            f"{1e9 * columns['page_s'][r]:.0f} ns per page, a zero page "
            f"{1e9 * columns['zero_page_s'][r]:.0f} ns on its slowest "
            f"thread (zero-page-detection {where}: tested {tested}; "
            "models.qemu_ram); switch-over compares page bytes with the "
            "bytes written per second x the limit" + (
                "; each multifd channel's thread copies apart from its "
                "receive queue's core" if item.multifd else ""))


def _mode_values(item, result, columns, r):
    """Post-copy and RDMA registration metrics of row(s) ``r`` (NaN where
    a row has no registration)."""
    values = {}
    if item.switchover != "precopy":
        values["postcopy_s"] = result["postcopy_time"][r]
        values["postcopy_gib"] = result["postcopy_bytes"][r] / GIB
    setup = columns["setup_s"][r]
    if np.any(setup > 0):
        values["registration_s"] = np.where(setup > 0, setup, np.nan)
    return values


def _mode_assumptions(doc, item):
    """What a migration's compressor, RDMA transport and switchover mode
    assume."""
    notes = []
    prefix = f"Migration {item.name!r}: "
    if item.transfer is None and item.compressor is not None:
        carrier = migration_carrier(item, doc.host.ghz)
        notes.append(prefix + compression_note(doc, carrier) + (
            f"; QEMU multifd: {migration_streams(item)} channel(s), one "
            "compression "
            "thread each" if item.multifd else
            "; QEMU's legacy compress threads at "
            f"{compression.QEMU_LEGACY_COMPRESS_EFFICIENCY:g} of the "
            "library's rate (one page per call)" if item.stop_rule == "qemu"
            else ""))
    if item.transport == "rdma":
        notes.append(prefix + (
            "QEMU RDMA transport, one connection, no TCP stack; "
            + (f"rdma-pin-all registers all memory first "
               f"({1e6 * migration_costs.RDMA_PIN_S_PER_PAGE:g} us per 4 KiB "
               "page)" if item.rdma_pin_all else
               f"each 1 MiB chunk registered when first sent "
               f"({1e3 * migration_costs.RDMA_REGISTRATION_S:g} ms per "
               "registration plus pinning), in round 0")
            + " (fitted on QEMU docs/rdma.txt)"))
    if item.switchover != "precopy":
        notes.append(prefix + (
            "post-copy after the first pre-copy pass (libvirt "
            "--postcopy-after-precopy)" if item.switchover ==
            "postcopy_after_first_pass" else
            "post-copy once time_budget_s runs out (KubeVirt "
            "allowPostCopy at completionTimeoutPerGiB)")
            + "; the pages still dirty are then sent once each at the "
            "migration rate while the guest runs on the destination")
    return notes


def _goal_seek(p, rate, spread, reuse, converged):
    """What would change each migration (all solved at once):
    ``dirty_limit_gbps``, the dirtying at which it stops converging;
    with a time budget, ``rate_needed_gbps`` and ``nics_needed`` to
    finish within it and ``largest_vm_gib`` that fits.

    The dirtying limit is pre-copy's without throttling. A migration
    that throttles the guest (vMotion SDPS, QEMU auto-converge) and
    converges does not stop converging there: it starts slowing the
    guest, so the limit is reported as ``throttle_from_gbps`` and
    ``dirty_limit_gbps`` is NaN, and "converged: yes" never sits beside
    a lower "stops converging" rate (VMware KB 2141355: SDPS slows the
    vCPUs until pre-copy converges)."""
    slope = p["hot_rate"] + p["cold_rate"]
    limit = goalseek.dirty_limit(
        rate, p["memory"] * (1 - p["zero_fraction"]),
        cold_rate=np.where(slope > 0, p["cold_rate"], 1.0),
        hot_set=p["hot_set"], hot_rate=p["hot_rate"],
        downtime_limit=np.maximum(p["downtime_limit"],
                                  migration_costs.DOWNTIME_FLOOR_S))
    unthrottled = bytes_per_s_to_gbps(
        limit.x * np.where(slope > 0, slope, 1.0))
    throttles = p["throttle"] != migration.THROTTLES.index("none")
    answers = {"dirty_limit_gbps": np.where(throttles & converged, np.nan,
                                            unthrottled),
               "throttle_from_gbps": np.where(throttles, unthrottled,
                                              np.nan)}
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
        # the rate it needs reads the migrations, not the rate they get:
        # an edit that only moves the rate (an MTU) keeps it
        arguments = (budget[timed], p["memory"][timed])
        needed = reuse("migration.rate_for_time",
                       arguments + tuple(model.values()),
                       lambda: goalseek.rate_for_time(*arguments,
                                                      **model).x)
        # NICs of the kind in use, each giving its share of the goodput
        per_nic = rate[timed] / spread[timed]
        answers["rate_needed_gbps"][timed] = bytes_per_s_to_gbps(needed)
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
    rate_gbps = bytes_per_s_to_gbps(rate)
    window_gbps = bytes_per_s_to_gbps(window_rate)
    evidence = {"metric": metric_ids.migration(item.name,
                                               "rate_for_downtime_gbps"),
                "value": window_gbps, "threshold": rate_gbps}
    if outcome == "postcopy":
        seconds = result["postcopy_time"][r]
        return [Finding(
            id="migration.postcopy", severity="warning",
            message=(f"Migration {item.name!r} switches to post-copy "
                     + ("after its first pass" if item.switchover ==
                        "postcopy_after_first_pass" else
                        "when its time budget runs out")
                     + f": the guest runs on the destination for "
                     f"{seconds:.1f} s while "
                     f"{result['postcopy_bytes'][r] / GIB:.2f} GiB are "
                     "pulled over the network, each first touch of a "
                     "missing page waiting for it; a host or network "
                     "failure in that time loses the guest."),
            evidence={"metric": metric_ids.migration(item.name,
                                                     "postcopy_s"),
                      "value": seconds, "threshold": 0.0})]
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
                     f"{window_gbps:.2f} Gbit/s (what the guest "
                     "dirties over one budget); it gets "
                     f"{rate_gbps:.2f} Gbit/s; "
                     "more bandwidth, a larger downtime budget or "
                     "throttling (auto-converge, SDPS) would change that"
                     + ("; post-copy (switchover) would finish it with the "
                        "guest degraded meanwhile." if item.stop_rule ==
                        "qemu" else ".")),
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


def _bottleneck(findings):
    """The migration's verdict when it does not converge or converges
    only throttled (its finding's words), else None: the transport binds."""
    for finding in findings:
        if finding.id in ("migration.no_convergence", "migration.throttled"):
            return Bottleneck(finding.id, finding.message)
    return None


def candidates(doc, goal, base):
    """More migration streams where a migration sets its own."""
    for i, item in enumerate(doc.workloads.migrations):
        converged_id = metric_ids.migration(item.name, "converged")
        converged = metric_value(base, converged_id)
        streams = migration_streams(item) or 1
        settable = platform.migration_streams_settable(
            doc.host.hypervisor, item.transport, multifd=item.multifd,
            auto_streams=auto_streams(doc))
        if item.transfer is None and streams < 8 and settable:
            yield Candidate(
                "advice.migration.streams", "warning" if converged == 0
                else "info", f"{streams} migration stream(s)",
                {"metric": converged_id, "value": converged, "threshold": 1},
                {f"workloads.migrations[{i}].streams": streams * 2})
