"""Host evacuation analysis: how long emptying a host takes, at which
concurrency and in which order, when its migrations share one transfer.

The transfer's rate with 1..K sessions comes from the host analysis (the
whole transport chain); the platform's limits from
:data:`models.evacuation.PLATFORMS`; every order at every concurrency up
to the limit is simulated together by :func:`solvers.schedule.plan`.
"""

import math

import numpy as np

from models import evacuation, migration
from models.units import MIB, bytes_per_s_to_gbps
from solvers import metric_grammar as metric_ids
from solvers import schedule
from solvers.analysis import (COUNT, EMPTY, FIRST, HIGHER, LOWER, Analysis,
                              Candidate, Goal, Items, Metric, ResultBuilder,
                              metric_value)
from solvers.inputs import sessions_to_rate
from solvers.results import Finding

ANALYSIS = Analysis(
    name="evacuation", order=6, bottleneck_priority=6, module=__name__,
    requires=("host",),
    reads=("calibration", "host", "nics", "teams", "workloads.transfers",
           "workloads.evacuations"),
    # it reads no document field a column sweep varies
    inputs=("evacuations",),
    metrics=(
        Metric("total_s", "s", "total time", better=LOWER),
        Metric("queue_s", "s", "time until the queue is done (failures "
               "given up)", better=LOWER),
        Metric("slowest_vm_s", "s", "slowest single migration",
               better=LOWER),
        Metric("not_converged", "1", "VMs that do not converge", kind=COUNT,
               better=LOWER),
        Metric("throttled", "1", "VMs that converge only by throttling the "
               "guest", kind=COUNT, better=LOWER),
        Metric("max_downtime_s", "s", "largest downtime", better=LOWER),
        Metric("concurrency", "1", "concurrent migrations", kind=COUNT),
        Metric("concurrency_limit", "1", "platform limit on concurrent "
               "migrations", kind=COUNT),
        Metric("best_concurrency", "1", "fastest concurrency", kind=COUNT),
        Metric("best_total_s", "s", "total time at the fastest concurrency",
               better=LOWER),
        Metric("lower_bound_s", "s", "lower bound on the total time"),
        Metric("gap_pct", "%", "total time above the lower bound",
               better=LOWER),
        Metric("disk_gib", "GiB", "disk data copied with the VMs"),
        Metric("disk_rate_gbps", "Gbit/s", "rate of one disk copy",
               better=HIGHER),
        *(Metric(f"{order}_s", "s",
                 f"total time, {order.replace('_', ' ')} order",
                 better=LOWER) for order in evacuation.ORDERS),
        *(Metric(f"{order}_gap_pct", "%",
                 f"{order.replace('_', ' ')} order above the lower bound",
                 better=LOWER) for order in evacuation.ORDERS),
    ),
    headline="total_s", headline_prefix="Evacuation: ",
    items=(Items("evacuation", FIRST),),
    # its times are pre-copy migrations on a shared link
    models=("models.evacuation",), areas=("evacuation", "migration"),
    goals=(Goal("min_evacuation_time", "evacuation.total_s", "min",
                lambda doc: bool(doc.workloads.evacuations),
                context=("evacuation.total_s", "evacuation.not_converged",
                         "evacuation.throttled",
                         "evacuation.max_downtime_s"), rank=3),),
    views=("evacuation",),
    sweep_axes=("workloads.evacuations[0].concurrency",))

#: VMs named in a finding before "and N more".
NAMED_VMS = 5

#: How the slot placement bound was proved, by the placement's method
#: (:class:`solvers.placement.PlacementResult`); 'lpt': closed forms.
BOUND_METHODS = {"milp": "a MILP", "search": "a bin-completion search"}


def analyse(inputs, upstream, *, details=True):
    """Evacuation metrics of every document (see :mod:`solvers.analysis`)."""
    rows = inputs.evacuations
    if not rows.owners:
        return [EMPTY] * len(inputs.documents)
    out = ResultBuilder.each(inputs.documents)
    tasks = [(item, columns, limit, (cap, total),
              upstream["host"][index].provides["rates"])
             for (index, item), columns, limit, cap, total in zip(
                 rows.owners, rows.columns, rows.limits,
                 rows.per_migration_cap, rows.aggregate_cap)]
    # all evacuations of all documents planned and searched together; a
    # document's variants mostly share its evacuation's VMs and link, so
    # each plan and local search runs once for them all
    for (index, item), answer in zip(rows.owners,
                                     evaluate_all(tasks, details=details)):
        _evaluate(item, answer, out[index], details)
    return [o.result() for o in out]


def evaluate_one(item, columns, limit, caps, rates, *, details=True,
                 searched=None):
    """Every schedule of one evacuation and what it answers (plain data:
    the analysis and the tests read it). ``caps`` is (per migration, all
    together) [B/s]. ``searched``, a dict kept across calls, holds the
    plans and local searches already run, by their inputs (evacuations
    that differ only in order or concurrency plan the same schedules).

    Returns
    -------
    dict
        ``plan`` (:func:`solvers.schedule.plan`), ``share`` [B/s] by
        number running, ``concurrency`` used, ``requested``, ``limit``,
        ``row`` (the configured schedule), ``order_rows`` (order name ->
        row at that concurrency), ``best_row`` (the configured order at
        its fastest concurrency within the limit), ``by_concurrency``
        (concurrency -> row of the configured order), ``bound`` [s].
        Without ``details`` the bound's ``bound_method`` may name LPT
        where the MILP would have run but could not raise the bound
        (:func:`solvers.schedule.lower_bound` with ``prove=False``).
    """
    return evaluate_all([(item, columns, limit, caps, rates)],
                        details=details, searched=searched)[0]


def evaluate_all(tasks, *, details=True, searched=None):
    """:func:`evaluate_one` of every ``(item, columns, limit, caps,
    rates)`` task, in three passes over them all: the plans (each
    distinct one once, :func:`solvers.schedule.plan_many`), the local
    searches (:func:`solvers.schedule.improve_many`), and the answers.
    Batched, the pre-copy model runs once per fixed-point iteration for
    all evacuations instead of once per evacuation; every answer is the
    one evaluating its task alone gives."""
    searched = {} if searched is None else searched
    setups = [_setup(*task) for task in tasks]
    missing = {s["key"]: s for s in setups if s["key"] not in searched}
    searched.update(zip(missing, schedule.plan_many([
        schedule.PlanInputs(s["columns"], s["priority"], s["share"],
                            s["concurrencies"], s["setup"],
                            s["serial_setup"])
        for s in missing.values()])))
    for s in setups:
        _choose_concurrency(s, searched[s["key"]])
    # the optimized order at the concurrency used: polished by local
    # search on the simulated schedule
    missing = {(s["key"], s["start_row"]): s for s in setups
               if (s["key"], s["start_row"]) not in searched}
    searched.update(zip(missing, schedule.improve_many([
        schedule.SearchInputs(s["columns"], s["share"], searched[s["key"]],
                              s["start_row"], s["setup"], s["serial_setup"])
        for s in missing.values()])))
    return [_answer(s, *searched[s["key"], s["start_row"]], details)
            for s in setups]


def _setup(item, columns, limit, caps, rates):
    """What an evacuation plans with: its share by number running, the
    concurrencies to try and the key of its plan."""
    sessions = sessions_to_rate(item, limit)
    aggregate = np.array([rates[("evacuation", item.name, k)].bytes_per_s
                          for k in range(1, sessions + 1)])
    per_migration, total = caps
    share = evacuation.share_per_migration(
        aggregate, per_migration_cap=per_migration, aggregate_cap=total)
    vms = columns["memory"].size
    allowed = sessions if math.isinf(limit) else min(int(limit), sessions)
    requested = item.concurrency
    used = None if requested == "auto" else \
        int(min(requested, limit, vms))
    concurrencies = sorted(set(range(1, allowed + 1)) | (
        {used} if used is not None else set()))
    priority = np.array([vm.priority for vm in item.vms])
    preset = evacuation.PLATFORMS[item.platform]
    setup = item.setup_s if item.setup_s is not None else preset.setup_s
    serial_setup = item.serial_setup_s if item.serial_setup_s is not None \
        else preset.serial_setup_s
    key = (_fingerprint(columns, priority, share), tuple(concurrencies),
           setup, serial_setup)
    return {"item": item, "columns": columns, "limit": limit,
            "share": share, "allowed": allowed, "requested": requested,
            "used": used, "concurrencies": concurrencies,
            "priority": priority, "setup": setup,
            "serial_setup": serial_setup, "key": key}


def _rows_at(plan, c):
    """Order name -> schedule row at concurrency c."""
    at = np.flatnonzero(plan["concurrency"] == c)
    rows = {name: int(at[i]) for i, name in enumerate(plan["named"])}
    rows["optimized"] = schedule.best(plan, at)
    return rows


def _choose_concurrency(s, plan):
    """The configured order's row at each concurrency, the best of them
    within the limit, the concurrency used and the local search's start
    row, into ``s``."""
    item = s["item"]
    s["configured"] = {c: _rows_at(plan, c)[item.order]
                       for c in s["concurrencies"]}
    s["best_row"] = schedule.best(plan, [s["configured"][c]
                                         for c in s["concurrencies"]
                                         if c <= s["allowed"]])
    if s["used"] is None:
        s["used"] = int(plan["concurrency"][s["best_row"]])
    s["start_row"] = _rows_at(plan, s["used"])["optimized"]


def _answer(s, plan, polished, details):
    """:func:`evaluate_one`'s answer from the searched plan."""
    item, used = s["item"], s["used"]
    configured, best_row = dict(s["configured"]), s["best_row"]
    order_rows = _rows_at(plan, used)
    if item.order == "optimized":
        configured[used] = polished
        if plan["concurrency"][best_row] == used:
            best_row = polished
    bound, bound_method = schedule.lower_bound(
        s["columns"], s["share"], used, setup=s["setup"],
        serial_setup=s["serial_setup"], prove=details)
    return {"plan": plan, "share": s["share"], "concurrency": used,
            "requested": s["requested"], "limit": s["limit"],
            "setup": s["setup"], "serial_setup": s["serial_setup"],
            "row": order_rows[item.order], "order_rows": order_rows,
            "best_row": best_row, "by_concurrency": configured,
            "bound": bound, "bound_method": bound_method}


def _fingerprint(columns, priority, share):
    """Bytes that tell an evacuation's planning inputs apart."""
    arrays = [np.asarray(columns[k]) for k in sorted(columns)] + [
        np.asarray(priority), np.asarray(share)]
    return b"".join(str(a.dtype).encode() + str(a.shape).encode() +
                    np.ascontiguousarray(a).tobytes() for a in arrays)


def _evaluate(item, answer, target, details):
    plan, row = answer["plan"], answer["row"]
    result = plan["result"]
    span = result.end[row] - result.start[row]
    converged = result.converged[row]
    bound = answer["bound"]
    values = {
        "queue_s": result.makespan[row],
        "slowest_vm_s": span.max(),
        "not_converged": float(result.not_converged[row]),
        "throttled": float(np.count_nonzero(result.throttle[row] > 0)),
        "concurrency": float(answer["concurrency"]),
        "best_concurrency": float(plan["concurrency"][answer["best_row"]]),
        "lower_bound_s": bound,
    }
    if converged.all():  # never a finite time for an evacuation that fails
        values["total_s"] = result.makespan[row]
        values["max_downtime_s"] = np.max(result.downtime[row])
        values["gap_pct"] = 100 * (result.makespan[row] / bound - 1)
    if result.not_converged[answer["best_row"]] == 0:
        values["best_total_s"] = result.makespan[answer["best_row"]]
    if math.isfinite(answer["limit"]):
        values["concurrency_limit"] = float(answer["limit"])
    if item.disks == "copied":
        values["disk_gib"] = _disk_gib(item)
        values["disk_rate_gbps"] = bytes_per_s_to_gbps(
            _disk_rate(item, answer)[0])
    for name, order_row in answer["order_rows"].items():
        if result.not_converged[order_row] == 0:
            values[f"{name}_s"] = result.makespan[order_row]
            values[f"{name}_gap_pct"] = 100 * (
                result.makespan[order_row] / bound - 1)
    if not target.metrics:   # the first evacuation: headline
        target.metrics.update({
            metric_ids.headline(ANALYSIS.name, k): float(v)
            for k, v in values.items()})
    target.metrics.update({metric_ids.evacuation(item.name, k): float(v)
                           for k, v in values.items()})
    if not details:
        return
    target.findings.extend(_findings(item, answer, span))
    names = [vm.name for vm in item.vms]
    target.traces[metric_ids.schedule_trace(item.name)] = \
        schedule_trace(item, answer, names)
    target.traces[metric_ids.sweep_trace(item.name)] = _sweep(answer)
    preset = evacuation.PLATFORMS[item.platform]
    target.assumptions.extend([
        f"Evacuation {item.name!r}: concurrent migrations share the "
        f"transfer {item.transfer!r} fairly (its rate with as many "
        "sessions as migrations on the link, no migration above one "
        "session's); every start or end changes the others' rates; each "
        "VM's first pass runs at the share it got while it ran and its "
        "later rounds and switch-over at the share of their moment "
        f"(fixed point of rates and schedule: {result.message}, "
        f"{result.iterations} iterations)",
        f"Evacuation {item.name!r}: platform {preset.label}: "
        f"{preset.source}",
        *_disk_assumptions(item, preset),
        f"Evacuation {item.name!r}: each migration also holds its slot "
        f"{answer['setup']:g} s off the link (set-up and switch-over "
        f"work) and {answer['serial_setup']:g} s of set-up the host does "
        "for one migration at a time (migrations started together wait "
        "for each other's; " + (
            "the scenario's setup_s/serial_setup_s)"
            if item.setup_s is not None or item.serial_setup_s is not None
            else "the platform's, models.evacuation)")
        if answer["setup"] or answer["serial_setup"] else
        f"Evacuation {item.name!r}: no set-up time off the link is "
        f"modelled for {preset.label} (the published drains do not "
        "separate it from the copy; setup_s and serial_setup_s set "
        "measured ones)",
        f"Evacuation {item.name!r}: lower bound {bound:.1f} s: every VM "
        "idle, alone at the fastest share; the largest of the volume over "
        "the fastest aggregate rate, the longest VM and the slot "
        "placement bound (proved by "
        f"{BOUND_METHODS.get(answer['bound_method'], 'closed forms')}"
        "); each order's gap is its distance to it",
        f"Evacuation {item.name!r}: a VM that never converges holds its "
        "slot for one pass of its memory (after any disk copy) and is then "
        "given up"])


def _disk_gib(item):
    """Disk data an evacuation's VMs copy (0 on shared storage). [GiB]"""
    return sum(vm.disk_gib for vm in item.vms) if item.disks == "copied" \
        else 0.0


def _disk_rate(item, answer):
    """Rate of one disk copy at the concurrency used, and the link share
    it is below of where the storage binds (else None). [B/s]"""
    share = answer["share"][min(answer["concurrency"],
                                answer["share"].size - 1)]
    if item.disk_copy_mib_s is None or item.disk_copy_mib_s * MIB >= share:
        return share, None
    return item.disk_copy_mib_s * MIB, share


def _disk_assumptions(item, preset):
    """What copying the disks adds to an evacuation's assumptions."""
    if item.disks != "copied":
        return []
    total = _disk_gib(item)
    storage = ("the storage at either end is taken to keep up"
               if item.disk_copy_mib_s is None else
               f"the storage copies one disk at {item.disk_copy_mib_s:g} "
               "MiB/s at most (disk_copy_mib_s); a copy held to it keeps its "
               "share of the link, which the other migrations do not get "
               "(a longer, safe estimate)")
    limit = (f"; at most {preset.disk_copy_limit:g} such migrations at "
             f"once: {preset.disk_copy_source}"
             if math.isfinite(preset.disk_copy_limit) else "")
    return [f"Evacuation {item.name!r}: each VM's disks ({total:g} GiB in "
            "all) cross the link ahead of its memory at the migration's "
            "share, the guest's writes to the part already copied mirrored "
            "over the same link (models.evacuation.disk_copy_time); "
            + storage + limit]


def schedule_trace(item, answer, names):
    """The configured schedule, one row per VM in start order: what a
    Gantt chart and the schedule CSV show."""
    result, row = answer["plan"]["result"], answer["row"]
    order = np.lexsort((result.end[row], result.start[row]))
    destinations = _place(item, result.start[row], order)

    def column(values):
        return [None if not np.isfinite(v) else float(v)
                for v in np.asarray(values, dtype=float)[order]]

    return {
        "vm": [names[i] for i in order],
        "group": [item.vms[i].group for i in order],
        "destination": [destinations.get(i) for i in order],
        "start_s": column(result.start[row]),
        # the disk copy ahead of the memory (equal ends: none)
        "disk_start_s": column(result.disk_start[row]),
        "disk_end_s": column(result.disk_end[row]),
        "end_s": column(result.end[row]),
        "rate_gbps": column(bytes_per_s_to_gbps(result.rate[row])),
        "rounds": column(result.rounds[row]),
        "downtime_s": column(result.downtime[row]),
        "memory_gib": column([vm.memory_gib for vm in item.vms]),
        "disk_gib": column([vm.disk_gib if item.disks == "copied" else 0.0
                            for vm in item.vms]),
        "converged": [bool(result.converged[row][i]) for i in order],
        "outcome": [migration.OUTCOMES[int(result.outcome[row][i])]
                    for i in order],
    }


def _place(item, start, order):
    """Destination of each VM, in start order: the one with the most free
    memory left (None when none is given or none has room)."""
    if not item.destinations:
        return {}
    free = {d.name: d.free_memory_gib for d in item.destinations}
    placed = {}
    for i in order:
        name = max(free, key=free.get)
        if free[name] >= item.vms[i].memory_gib:
            free[name] -= item.vms[i].memory_gib
            placed[int(i)] = name
    return placed


def _sweep(answer):
    """Total time of the configured order by concurrency."""
    result = answer["plan"]["result"]
    points = sorted(answer["by_concurrency"])
    best = [answer["by_concurrency"][c] for c in points]
    return {"x": {"id": "concurrency", "unit": "1", "values": points},
            "y": {"id": "total", "unit": "s",
                  "values": [float(result.makespan[r]) for r in best]},
            "not_converged": {"id": "not_converged", "unit": "1",
                              "values": [int(result.not_converged[r])
                                         for r in best]}}


def _findings(item, answer, span):
    plan, row = answer["plan"], answer["row"]
    result = plan["result"]
    findings = []
    preset = evacuation.PLATFORMS[item.platform]
    requested, limit = answer["requested"], answer["limit"]
    concurrency_id = metric_ids.evacuation(item.name, "concurrency")
    cluster = preset.cluster_limit if item.cluster_limit is None \
        else item.cluster_limit
    cluster_binds = limit == cluster and (
        item.platform_limit is None or item.platform_limit > cluster)
    if cluster_binds and item.platform_limit is not None:
        findings.append(Finding(
            id="evacuation.cluster_limit_binds", severity="info",
            message=(f"Evacuation {item.name!r}: platform_limit "
                     f"{item.platform_limit} is above the cluster's limit of "
                     f"{cluster:g} migrations at once "
                     + ("(cluster_limit)" if item.cluster_limit is not None
                        else "(KubeVirt parallelMigrationsPerCluster, default "
                        "5)")
                     + f", so at most {cluster:g} leave this host together; "
                     "raise cluster_limit with it."),
            evidence={"metric": metric_ids.evacuation(item.name,
                                                      "concurrency_limit"),
                      "value": item.platform_limit, "threshold": cluster}))
    if requested != "auto" and requested > limit:
        if cluster_binds:
            source = ("the cluster's setting (cluster_limit "
                      f"{item.cluster_limit})" if item.cluster_limit
                      is not None else preset.source)
        elif item.disks == "copied" and limit == preset.disk_copy_limit:
            source = preset.disk_copy_source
        elif item.platform_limit is not None:
            source = ("the platform's setting (platform_limit "
                      f"{item.platform_limit})")
        else:
            source = preset.source
        findings.append(Finding(
            id="evacuation.concurrency_above_limit", severity="warning",
            message=(f"Evacuation {item.name!r}: concurrency {requested} "
                     f"exceeds the {preset.label} limit of {limit:g} "
                     "concurrent migrations per host on this link; the "
                     "platform queues the rest, so it is simulated at "
                     f"{answer['concurrency']}. Source: {source}."),
            evidence={"metric": concurrency_id, "value": requested,
                      "threshold": limit}))
    if item.disks == "copied":
        rate, link = _disk_rate(item, answer)
        if link is not None:
            findings.append(Finding(
                id="evacuation.disk_copy_storage_bound", severity="info",
                message=(f"Evacuation {item.name!r}: the storage binds the "
                         f"disk copies: {item.disk_copy_mib_s:g} MiB/s each "
                         f"(disk_copy_mib_s), below the {link / MIB:.0f} "
                         "MiB/s each gets of the link at concurrency "
                         f"{answer['concurrency']}; a faster link does not "
                         "shorten them, faster storage or shared storage "
                         "does."),
                evidence={"metric": metric_ids.evacuation(item.name,
                                                          "disk_rate_gbps"),
                          "value": bytes_per_s_to_gbps(rate),
                          "threshold": bytes_per_s_to_gbps(link)}))
    failed = np.flatnonzero(~result.converged[row])
    if failed.size:
        named = ", ".join(f"{item.vms[i].name!r} "
                          f"({bytes_per_s_to_gbps(result.rate[row][i]):.2f}"
                          " Gbit/s)" for i in failed[:NAMED_VMS])
        more = f" and {failed.size - NAMED_VMS} more" \
            if failed.size > NAMED_VMS else ""
        best_row = answer["best_row"]
        fix = (f"concurrency {int(plan['concurrency'][best_row])} with the "
               "optimized order converges every VM"
               if result.not_converged[best_row] == 0 else
               "no concurrency within the platform limit converges them: "
               "more bandwidth, a larger downtime budget or throttling")
        findings.append(Finding(
            id="evacuation.no_convergence", severity="critical",
            message=(f"Evacuation {item.name!r}: {failed.size} VM(s) do not "
                     f"converge at their share of the link: {named}{more}; "
                     f"sharing it {answer['concurrency']} ways leaves each "
                     "less than its guest dirties over one downtime "
                     f"budget; {fix}."),
            evidence={"metric": metric_ids.evacuation(item.name,
                                                      "not_converged"),
                      "value": int(failed.size), "threshold": 0}))
    slowest = int(np.argmax(span))
    vm = item.vms[slowest]
    size = f"{vm.memory_gib:g} GiB" + (
        f" and {vm.disk_gib:g} GiB of disk" if item.disks == "copied" else "")
    findings.append(Finding(
        id="evacuation.slowest_vm", severity="info",
        message=(f"Evacuation {item.name!r}: the slowest migration is "
                 f"{vm.name!r} ({size}, {span[slowest]:.1f} s at "
                 f"{bytes_per_s_to_gbps(result.rate[row][slowest]):.2f} "
                 "Gbit/s)."),
        evidence={"metric": metric_ids.evacuation(item.name, "slowest_vm_s"),
                  "value": float(span[slowest]),
                  "threshold": float(answer["bound"])}))
    if not result.settled[row] and \
            result.change[row] >= schedule.UNSETTLED_WARNING:
        # the orders and concurrencies only compared may not settle
        # either; the assumptions say how many
        findings.append(Finding(
            id="evacuation.fixed_point", severity="warning",
            message=(f"Evacuation {item.name!r}: after "
                     f"{schedule.MAX_ITERATIONS} iterations of rates and "
                     "schedule, " + (
                         "which VMs converge still changes"
                         if result.change[row] >= 1 else
                         "the total time still moves by "
                         f"{100 * result.change[row]:.2g} %") +
                     ": a VM near its convergence limit converges at one "
                     "share of the link and not at the next; the numbers "
                     "are those of the last iteration."),
            evidence={"metric": metric_ids.evacuation(item.name, "queue_s"),
                      "value": float(result.makespan[row]),
                      "threshold": None}))
    return findings


#: Platforms whose concurrency limit is the administrator's setting
#: (Set-VMHost, the cluster's MaximumParallelMigrations, KubeVirt's
#: migration configuration, datacenter.cfg max_workers); vCenter's costs
#: are fixed resource limits of its documentation, not a setting.
SETTABLE_LIMITS = ("hyperv", "hyperv_cluster", "kubevirt", "kubevirt_legacy",
                   "proxmox")


def candidates(doc, goal, base):
    """The fastest concurrency within the platform limit, the optimized
    order, a raised limit where the fastest concurrency is the limit
    itself, and shared storage where the disks are copied."""
    for i, item in enumerate(doc.workloads.evacuations):
        yield from _raised_limit(i, item, base)
        best_id = metric_ids.evacuation(item.name, "best_concurrency")
        best = metric_value(base, best_id)
        failed = metric_value(base, metric_ids.evacuation(item.name,
                                                          "not_converged"))
        severity = "warning" if failed else "info"
        if best is not None and item.concurrency != "auto" \
                and int(best) != item.concurrency:
            yield Candidate(
                "advice.evacuation.concurrency", severity,
                f"concurrency {item.concurrency}; the sweep finds "
                f"{int(best)} fastest within the platform limit "
                f"(evacuation {_minutes(base, item, 'total_s')} → "
                f"{_minutes(base, item, 'best_total_s')} min)",
                {"metric": best_id, "value": best,
                 "threshold": item.concurrency},
                {f"workloads.evacuations[{i}].concurrency": int(best)})
        if _disk_gib(item):
            total_id = metric_ids.evacuation(item.name, "total_s")
            yield Candidate(
                "advice.evacuation.shared_storage", severity,
                f"{_disk_gib(item):g} GiB of disks "
                "copied with the migrations; on storage both hosts share "
                "only the memory crosses (and the platform's full "
                "concurrency applies)",
                {"metric": total_id, "value": metric_value(base, total_id),
                 "threshold": None},
                {f"workloads.evacuations[{i}].disks": "shared"})
        order_id = metric_ids.evacuation(item.name, f"{item.order}_s")
        optimized = metric_value(base, metric_ids.evacuation(
            item.name, "optimized_s"))
        if item.order != "optimized" and optimized is not None:
            yield Candidate(
                "advice.evacuation.order", severity,
                f"the {item.order.replace('_', ' ')} order",
                {"metric": order_id, "value": metric_value(base, order_id),
                 "threshold": optimized},
                {f"workloads.evacuations[{i}].order": "optimized"})


def _raised_limit(index, item, base):
    """Twice the platform's limit (at most one per VM) when the sweep's
    fastest concurrency is the limit: the time may fall further past it,
    which only re-solving at the raised limit tells."""
    best_id = metric_ids.evacuation(item.name, "best_concurrency")
    best = metric_value(base, best_id)
    limit = metric_value(base, metric_ids.evacuation(item.name,
                                                     "concurrency_limit"))
    if best is None or limit is None or not math.isfinite(limit) or \
            item.platform not in SETTABLE_LIMITS or int(best) != int(limit) \
            or limit >= len(item.vms):
        return
    raised = int(min(2 * limit, len(item.vms), 64))
    path = f"workloads.evacuations[{index}]"
    changes = {f"{path}.platform_limit": raised}
    cluster = evacuation.PLATFORMS[item.platform].cluster_limit \
        if item.cluster_limit is None else item.cluster_limit
    if cluster < raised:
        changes[f"{path}.cluster_limit"] = raised
    if item.concurrency != "auto":
        changes[f"{path}.concurrency"] = raised
    yield Candidate(
        "advice.evacuation.platform_limit", "info",
        f"the fastest concurrency is the platform's limit of {int(limit)} "
        f"({evacuation.PLATFORMS[item.platform].label}), a setting of the "
        "platform",
        {"metric": best_id, "value": best, "threshold": limit}, changes)


def _minutes(base, item, key):
    """An evacuation's time in minutes as text (or why it has none)."""
    seconds = metric_value(base, metric_ids.evacuation(item.name, key))
    return "a VM not converging" if seconds is None \
        else f"{seconds / 60:.1f}"
