"""Cluster analysis: the links between a cluster's hosts and its switches,
class by class, in normal operation and in each failure or maintenance
case (a host down and its data rebuilt, two hosts down, a host evacuated,
a switch down, a link down), with the rebuild and evacuation times and the
class that loses its share."""

import numpy as np

from models import cluster as fabric
from models import wire
from solvers import metric_grammar as metric_ids
from solvers.analysis import (COUNT, EMPTY, HIGHER, LOWER, VERDICT, Analysis,
                              AnalysisResult, Candidate, Goal, Items, Metric,
                              metric_value)
from solvers.results import Bottleneck, Finding

ANALYSIS = Analysis(
    name="cluster", order=7, bottleneck_priority=7, module=__name__,
    reads=("host", "nics", "network", "cluster"),
    metrics=(
        Metric("hosts", "1", None, "Cluster: hosts", kind=COUNT),
        Metric("peak_util_pct", "%", "peak uplink utilization",
               "Cluster: busiest host link, normal operation",
               kind=VERDICT, better=LOWER),
        Metric("uplink_util_pct", "%", "busiest switch uplinks",
               "Cluster: busiest switch uplinks, normal operation",
               kind=VERDICT, better=LOWER),
        Metric("worst_peak_util_pct", "%", None,
               "Cluster: busiest link in any case", kind=VERDICT,
               better=LOWER),
        Metric("worst_unmet_gbps", "Gbit/s", None,
               "Cluster: traffic not carried in the worst case",
               better=LOWER),
        Metric("rebuild_s", "s", "rebuild time",
               "Cluster: longest rebuild after a host failure",
               better=LOWER),
        Metric("unmet_gbps", "Gbit/s", "traffic not carried", better=LOWER),
        Metric("worst_unmet_pct", "%", "share not carried in the worst "
               "case", better=LOWER),
        Metric("rebuild_gbps", "Gbit/s", "rebuild rate over the cluster",
               better=HIGHER),
        Metric("evacuation_s", "s", "time to move the host's VM memory",
               better=LOWER),
        Metric("data_migration_s", "s", "time to move the host's data "
               "(full data migration)", better=LOWER),
    ),
    headline="worst_peak_util_pct",
    items=(Items("cluster"),),
    models=("models.cluster",), areas=("cluster",),
    goals=(Goal("min_cluster_util", "cluster.worst_peak_util_pct", "min",
                lambda doc: doc.cluster is not None,
                context=("cluster.worst_peak_util_pct",
                         "cluster.worst_unmet_gbps", "cluster.rebuild_s"),
                rank=5),),
    views=("cluster", "cluster_fabric"),
    sweep_axes=("nics[0].speed_gbps",))

#: Classes whose traffic follows the VMs: when hosts fail, their VMs
#: restart on the others (vSphere HA, failover clustering) and bring it.
FOLLOW_VMS = ("vm", "storage", "backup")

#: A class losing at least this share of its demand in a case is a
#: finding; below it the loss is within the models' own error (the
#: median error of the validation set is about 2.5 %).
LOSS_NOTED_PCT = 0.5

#: Delay before a platform starts rebuilding a failed host's data [s]:
#: vSAN's CLOM repair delay (60 min, "vSAN Monitoring and
#: Troubleshooting", "Network failure / host failure": "If the host does
#: not rejoin the cluster within 60 minutes ... vSAN starts the recovery
#: process"); Ceph marks a down OSD out after mon_osd_down_out_interval
#: (600 s, Ceph configuration reference). S2D repairs onto the other
#: nodes only when the node is retired by hand (Microsoft Learn,
#: "Storage Spaces Direct: understand the cache and repairs"): no delay
#: is stated.
REBUILD_DELAY_S = {"vsan": 3600.0, "ceph": 600.0}

#: Standard Ethernet speeds a NIC upgrade steps through [Gbit/s].
NIC_SPEEDS = (1.0, 10.0, 25.0, 50.0, 100.0, 200.0, 400.0)


def _tcp_efficiency(network):
    """TCP payload per wire byte of the document's network
    (:func:`models.wire.efficiency`)."""
    return float(wire.efficiency(
        network.mtu, network.ip_version, timestamps=network.tcp_timestamps,
        vlan_tags=network.vlan_tags,
        mtu_limits=(network.mtu_min, network.mtu_max)))


def _platform(layout):
    return (layout or "").partition("_")[0] or None


def _cases(doc):
    """Case names and what each takes down: (name, kind, group index,
    switch index, NIC index)."""
    cluster = doc.cluster
    cases = [("normal", "normal", None, None, None)]
    for g, group in enumerate(cluster.host_groups):
        if "host_down" in cluster.cases:
            cases.append((f"host_down.{group.name}", "host_down", g, None,
                          None))
        if "two_hosts_down" in cluster.cases and cluster.hosts() > 2:
            cases.append((f"two_hosts_down.{group.name}", "two_hosts_down",
                          g, None, None))
        if "maintenance" in cluster.cases:
            cases.append((f"maintenance.{group.name}", "maintenance", g,
                          None, None))
        if "link_down" in cluster.cases and len(doc.nics) > 1:
            cases += [(f"link_down.{group.name}.{nic.id}", "link_down", g,
                       None, n) for n, nic in enumerate(doc.nics)]
    if "switch_down" in cluster.cases:
        cases += [(f"switch_down.{switch.name}", "switch_down", None, s,
                   None) for s, switch in enumerate(cluster.switches)]
    return cases


def _topology(doc):
    """Per-host arrays: group of each host, switch of each NIC, NIC
    speeds, share of each class leaving the rack."""
    cluster = doc.cluster
    switches = {s.name: i for i, s in enumerate(cluster.switches)}
    racks = [s.rack for s in cluster.switches]
    group_of = np.repeat(np.arange(len(cluster.host_groups)),
                         [g.count for g in cluster.host_groups])
    links = np.array([[switches[g.links[n % len(g.links)]]
                       for n in range(len(doc.nics))]
                      for g in cluster.host_groups])[group_of]
    rack_of = np.array([racks[row[0]] for row in links])
    hosts = len(group_of)
    in_rack = (rack_of[:, None] == rack_of[None, :]).sum(axis=1)
    leaves_rack = (hosts - in_rack) / (hosts - 1)
    north_south = np.array([c.north_south_pct / 100 for c in cluster.classes])
    out = north_south + (1 - north_south) * leaves_rack[:, None]
    speed = np.broadcast_to(np.array([n.speed_gbps for n in doc.nics]),
                            links.shape)
    return group_of, links, speed, out


def _demand(doc):
    """Production traffic each host sends per class [Gbit/s]."""
    cluster = doc.cluster
    demand = []
    for c in cluster.classes:
        if c.kind == "storage" and cluster.storage_layout is not None:
            demand.append(float(fabric.replication_traffic(
                c.read_gbps, c.write_gbps, cluster.storage_layout,
                cluster.hosts(), cluster.failures_to_tolerate,
                data_chunks=cluster.ec_data_chunks)) + c.demand_gbps)
        else:
            demand.append(c.demand_gbps)
    return np.array(demand)


def solve(doc):
    """Every case of one cluster document as plain data (the analysis and
    the tests read it)."""
    cluster = doc.cluster
    cases = _cases(doc)
    group_of, links, speed, out = _topology(doc)
    hosts, nics = links.shape
    classes = cluster.classes
    kinds = [c.kind for c in classes]
    storage = kinds.index("storage") if "storage" in kinds else None
    vmotion = kinds.index("vmotion") if "vmotion" in kinds else None
    follow = np.array([k in FOLLOW_VMS for k in kinds])
    first_of = {g: int(np.argmax(group_of == g))
                for g in range(len(cluster.host_groups))}
    base = _demand(doc)
    n_cases = len(cases)
    alive = np.ones((n_cases, hosts), dtype=bool)
    nic_up = np.ones((n_cases, hosts, nics), dtype=bool)
    switch_up = np.ones((n_cases, len(cluster.switches)), dtype=bool)
    elastic = np.zeros((n_cases, hosts, len(classes)))
    rebuilds = cluster.storage_layout is not None \
        and cluster.data_per_host_tib > 0
    # a layout re-protects only where the survivors can hold it again
    fits = fabric.minimum_hosts(cluster.storage_layout,
                                cluster.failures_to_tolerate,
                                cluster.ec_data_chunks) \
        if rebuilds else hosts
    rebuild_want = cluster.rebuild_limit_gbps or np.inf
    for c, (_, kind, g, s, n) in enumerate(cases):
        if kind in ("host_down", "two_hosts_down"):
            members = np.flatnonzero(group_of == g)
            down = members[:2] if kind == "two_hosts_down" else members[:1]
            if kind == "two_hosts_down" and len(members) < 2:
                down = np.append(down, np.flatnonzero(group_of != g)[0])
            alive[c, down] = False
            if rebuilds and hosts - len(down) >= fits:
                elastic[c, :, storage] = rebuild_want
        elif kind == "maintenance":
            host = first_of[g]
            if vmotion is not None and cluster.memory_per_host_gib > 0:
                elastic[c, host, vmotion] = np.inf
            if rebuilds and cluster.maintenance_moves_data:
                elastic[c, host, storage] = rebuild_want
        elif kind == "link_down":
            nic_up[c, first_of[g], n] = False
        elif kind == "switch_down":
            switch_up[c, s] = False
            nic_up[c] &= links != s
    nic_up &= alive[:, :, None]
    elastic[~alive] = 0.0
    survivors = alive.sum(axis=1)
    scale = np.where(follow, (hosts / survivors)[:, None], 1.0)
    demand = np.where(alive[:, :, None], base * scale[:, None, :], 0.0)
    answer = fabric.fabric_loads(
        demand, elastic, speed, nic_up, links,
        [s.uplink_gbps for s in cluster.switches], switch_up, out,
        [c.shares for c in classes],
        reservation=[c.reservation_gbps for c in classes],
        limit=[c.limit_gbps or np.inf for c in classes],
        storage_class=storage,
        rebuild_floor=fabric.REBUILD_FLOOR.get(
            _platform(cluster.storage_layout), 0.0))
    total_demand = demand.sum(axis=1)
    rebuild_tib = np.zeros(n_cases)
    rebuild_rate = np.zeros(n_cases)
    evacuation_rate = np.zeros(n_cases)
    migration_rate = np.zeros(n_cases)
    stuck = np.zeros(n_cases, dtype=bool)
    for c, (_, kind, g, _, _) in enumerate(cases):
        if kind in ("host_down", "two_hosts_down") and rebuilds \
                and survivors[c] < fits:
            stuck[c] = True
        elif kind in ("host_down", "two_hosts_down") and rebuilds:
            lost = cluster.data_per_host_tib * (2 if kind ==
                                                "two_hosts_down" else 1)
            rebuild_tib[c] = fabric.rebuild_traffic(
                lost, cluster.storage_layout, hosts,
                cluster.failures_to_tolerate,
                data_chunks=cluster.ec_data_chunks)
            rebuild_rate[c] = answer["elastic"][c, :, storage].sum()
        elif kind == "maintenance":
            if vmotion is not None:
                evacuation_rate[c] = answer["elastic"][c, first_of[g],
                                                       vmotion]
            if rebuilds and cluster.maintenance_moves_data:
                migration_rate[c] = answer["elastic"][c, first_of[g],
                                                      storage]
    return {"cases": cases, "answer": answer, "demand": total_demand,
            "stuck": stuck, "fits": fits,
            "base": base, "rebuild_tib": rebuild_tib,
            "rebuild_rate": rebuild_rate,
            "rebuild_s": fabric.rebuild_time(
                rebuild_tib, rebuild_rate,
                efficiency=fabric.REBUILD_EFFICIENCY),
            # a full data migration copies the host's replicas and chunks
            # as they are (no reconstruction) over its own links
            "migration_s": np.where(
                migration_rate > 0, fabric.rebuild_time(
                    cluster.data_per_host_tib, migration_rate,
                    efficiency=fabric.REBUILD_EFFICIENCY), np.nan),
            # the memory crosses as TCP payload at the document's MTU
            "evacuation_s": fabric.rebuild_time(
                cluster.memory_per_host_gib / 1024, evacuation_rate,
                efficiency=_tcp_efficiency(doc.network)),
            "group_of": group_of, "links": links, "speed": speed,
            "nic_up": nic_up, "switch_up": switch_up,
            "host_demand": demand}


def analyse(inputs, upstream, *, details=True):
    """Cluster metrics of every document (see :mod:`solvers.analysis`)."""
    if not any(doc.cluster is not None for doc in inputs.documents):
        return [EMPTY] * len(inputs.documents)
    return [EMPTY if doc.cluster is None else _analyse(doc, details)
            for doc in inputs.documents]


def _analyse(doc, details):
    cluster = doc.cluster
    solved = solve(doc)
    answer, cases = solved["answer"], solved["cases"]
    link_pct = 100 * answer["link_load"].max(axis=(1, 2))
    uplink_pct = 100 * answer["uplink_load"].max(axis=1)
    unmet = answer["unmet"]
    metrics = {
        metric_ids.headline(ANALYSIS.name, "hosts"): float(cluster.hosts()),
        metric_ids.headline(ANALYSIS.name, "peak_util_pct"): link_pct[0],
        metric_ids.headline(ANALYSIS.name, "uplink_util_pct"): uplink_pct[0],
        metric_ids.headline(ANALYSIS.name, "worst_peak_util_pct"): max(
            link_pct.max(), uplink_pct.max()),
        metric_ids.headline(ANALYSIS.name, "worst_unmet_gbps"):
            unmet.sum(1).max(),
    }
    single = np.array([kind == "host_down" for _, kind, *_ in cases])
    rebuilt = single & (solved["rebuild_tib"] > 0)
    # a starved rebuild never ends: no longest time (a finding says so)
    if rebuilt.any() and np.isfinite(solved["rebuild_s"][rebuilt]).all():
        metrics[metric_ids.headline(ANALYSIS.name, "rebuild_s")] = \
            solved["rebuild_s"][rebuilt].max()
    for c, (case, kind, *_) in enumerate(cases):
        metrics[metric_ids.cluster(case, "peak_util_pct")] = link_pct[c]
        metrics[metric_ids.cluster(case, "uplink_util_pct")] = uplink_pct[c]
        metrics[metric_ids.cluster(case, "unmet_gbps")] = unmet[c].sum()
        if solved["rebuild_tib"][c] > 0:
            if np.isfinite(solved["rebuild_s"][c]):
                metrics[metric_ids.cluster(case, "rebuild_s")] = \
                    solved["rebuild_s"][c]
            metrics[metric_ids.cluster(case, "rebuild_gbps")] = \
                solved["rebuild_rate"][c]
        if kind == "maintenance" and np.isfinite(solved["migration_s"][c]):
            metrics[metric_ids.cluster(case, "data_migration_s")] = \
                solved["migration_s"][c]
        if kind == "maintenance" and np.isfinite(solved["evacuation_s"][c]):
            metrics[metric_ids.cluster(case, "evacuation_s")] = \
                solved["evacuation_s"][c]
    loss_pct = 100 * np.divide(unmet, solved["demand"],
                               out=np.zeros_like(unmet),
                               where=solved["demand"] > 0)
    for k, traffic in enumerate(cluster.classes):
        metrics[metric_ids.cluster(f"class.{traffic.name}",
                                   "worst_unmet_pct")] = loss_pct[:, k].max()
    if not details:
        return AnalysisResult(metrics=metrics)
    findings = _findings(doc, solved, loss_pct, link_pct, uplink_pct)
    return AnalysisResult(
        metrics=metrics, findings=tuple(findings),
        assumptions=tuple(_assumptions(doc)),
        traces={metric_ids.topology_trace():
                _topology_trace(doc, solved)},
        bottleneck=_bottleneck(doc, solved, link_pct, uplink_pct))


def _topology_trace(doc, solved):
    """Every link's load in every case, for the topology drawing: host
    links (case x host x NIC), switch uplinks (case x switch), and the
    classes on each case's busiest host link."""
    cluster = doc.cluster
    answer = solved["answer"]
    link_load = answer["link_load"]
    names = [g.name for g in cluster.host_groups]
    group_of = solved["group_of"]
    hosts = [f"{names[g]}-{int((group_of[:h] == g).sum()) + 1}"
             for h, g in enumerate(group_of)]
    up = solved["nic_up"]
    speed = np.where(up, solved["speed"], 0.0)
    total = speed.sum(axis=-1)
    busiest = []
    for c in range(len(solved["cases"])):
        h, n = np.unravel_index(int(link_load[c].argmax()),
                                link_load[c].shape)
        share = speed[c, h, n] / total[c, h] if total[c, h] > 0 else 0.0
        busiest.append({"host": hosts[h], "nic": doc.nics[n].id,
                        "gbps": [float(v) for v in
                                 solved["host_demand"][c, h] * share]})
    return {"cases": [case[0] for case in solved["cases"]],
            "hosts": hosts, "nics": [n.id for n in doc.nics],
            "switches": [s.name for s in cluster.switches],
            "uplink_gbps": [s.uplink_gbps for s in cluster.switches],
            "links": solved["links"].tolist(),
            "link_pct": (100 * link_load).tolist(),
            "nic_up": up.tolist(),
            "uplink_pct": (100 * answer["uplink_load"]).tolist(),
            "switch_up": solved["switch_up"].tolist(),
            "classes": [c.name for c in cluster.classes],
            "busiest": busiest}


def _where(doc, solved, c):
    """The busiest link of case ``c`` in words."""
    answer = solved["answer"]
    cluster = doc.cluster
    host_link = answer["link_load"][c]
    uplink = answer["uplink_load"][c]
    if uplink.max() > host_link.max():
        s = int(uplink.argmax())
        return (f"the uplinks of switch {cluster.switches[s].name!r} "
                f"({cluster.switches[s].uplink_gbps:g} Gbit/s)")
    h, n = np.unravel_index(int(host_link.argmax()), host_link.shape)
    group = cluster.host_groups[solved["group_of"][h]]
    return (f"NIC {doc.nics[n].id!r} ({doc.nics[n].speed_gbps:g} Gbit/s) "
            f"of a host of group {group.name!r} to switch "
            f"{cluster.switches[solved['links'][h, n]].name!r}")


def _bottleneck(doc, solved, link_pct, uplink_pct):
    worst = np.maximum(link_pct, uplink_pct)
    c = int(worst.argmax())
    case = solved["cases"][c][0]
    return Bottleneck(
        "cluster.link",
        f"cluster: {_where(doc, solved, c)} at {worst[c]:.0f} % of its "
        f"speed in case {case}")


def _findings(doc, solved, loss_pct, link_pct, uplink_pct):
    cluster = doc.cluster
    cases = solved["cases"]
    answer = solved["answer"]
    findings = []
    for k, traffic in enumerate(cluster.classes):
        c = int(loss_pct[:, k].argmax())
        if loss_pct[c, k] < LOSS_NOTED_PCT:
            continue
        case = cases[c][0]
        findings.append(Finding(
            id="cluster.class_loses_share", severity="warning",
            message=(f"Class {traffic.name!r} loses "
                     f"{loss_pct[c, k]:.0f} % of its traffic "
                     f"({answer['unmet'][c, k]:.3g} of "
                     f"{solved['demand'][c, k]:.3g} Gbit/s across the "
                     f"cluster) in case {case}: {_where(doc, solved, c)} "
                     f"is at {max(link_pct[c], uplink_pct[c]):.0f} % and "
                     "divides by shares "
                     f"({', '.join(f'{t.name} {t.shares:g}' for t in cluster.classes)})."),
            evidence={"metric": metric_ids.cluster(f"class.{traffic.name}",
                                                   "worst_unmet_pct"),
                      "value": float(loss_pct[c, k]),
                      "threshold": LOSS_NOTED_PCT}))
    for c, (case, kind, *_) in enumerate(cases):
        isolated = int(answer["isolated"][c].sum())
        dead = {"host_down": 1, "two_hosts_down": 2}.get(kind, 0)
        if isolated > dead:
            findings.append(Finding(
                id="cluster.hosts_isolated", severity="critical",
                message=(f"In case {case}, {isolated - dead} host(s) lose "
                         "every link: their NICs all reach the switch "
                         "that failed. Link each host to two switches."),
                evidence={"metric": metric_ids.cluster(case, "unmet_gbps"),
                          "value": float(answer["unmet"][c].sum()),
                          "threshold": 0.0}))
        if kind == "two_hosts_down" and cluster.storage_layout is not None \
                and cluster.failures_to_tolerate < 2:
            findings.append(Finding(
                id="cluster.data_inaccessible", severity="critical",
                message=(f"In case {case}, objects with a copy or chunk on "
                         "both failed hosts are inaccessible: "
                         f"failures_to_tolerate is "
                         f"{cluster.failures_to_tolerate}. A second failure "
                         "during a rebuild or a maintenance needs 2."),
                evidence={"metric": metric_ids.cluster(case,
                                                       "peak_util_pct"),
                          "value": float(link_pct[c]), "threshold": 0.0}))
    stuck = [cases[c][0] for c in np.flatnonzero(solved["stuck"])]
    if stuck:
        findings.append(Finding(
            id="cluster.cannot_reprotect", severity="warning",
            message=(f"After {', '.join(stuck)}, fewer than the "
                     f"{solved['fits']} hosts that storage_layout "
                     f"{cluster.storage_layout!r} with failures_to_tolerate "
                     f"{cluster.failures_to_tolerate} needs are left: the "
                     "data stays without its redundancy until the host "
                     "returns (no rebuild). Plan at least one host more "
                     "than the layout's minimum."),
            evidence={"metric": metric_ids.headline(ANALYSIS.name, "hosts"),
                      "value": float(cluster.hosts()),
                      "threshold": float(solved["fits"] + 1)}))
    starved = [c for c in np.flatnonzero(solved["rebuild_tib"] > 0)
               if not np.isfinite(solved["rebuild_s"][c])]
    if starved:
        storage = next(t for t in cluster.classes if t.kind == "storage")
        floor = fabric.REBUILD_FLOOR.get(_platform(cluster.storage_layout),
                                         0.0)
        findings.append(Finding(
            id="cluster.rebuild_starved", severity="warning",
            message=(f"After {', '.join(cases[c][0] for c in starved)}, "
                     "the rebuild gets no bandwidth: the production IO of "
                     f"class {storage.name!r} takes all of its share on "
                     f"{_where(doc, solved, starved[0])}, and storage_layout "
                     f"{cluster.storage_layout!r} keeps {100 * floor:g} % of "
                     "it for recovery. The data stays without its "
                     "redundancy while this load lasts: give the storage "
                     "class more shares or faster links, or lower its IO."),
            evidence={"metric": metric_ids.cluster(cases[starved[0]][0],
                                                   "rebuild_gbps"),
                      "value": 0.0, "threshold": 0.0}))
    finite = np.isfinite(solved["rebuild_s"]) & (solved["rebuild_tib"] > 0)
    if finite.any():
        c = int(np.where(finite, solved["rebuild_s"], -1).argmax())
        delay = REBUILD_DELAY_S.get(_platform(cluster.storage_layout))
        findings.append(Finding(
            id="cluster.rebuild_time", severity="info",
            message=(f"Rebuilding after case {cases[c][0]} moves "
                     f"{solved['rebuild_tib'][c]:.3g} TiB at "
                     f"{solved['rebuild_rate'][c]:.3g} Gbit/s over the "
                     f"cluster: {solved['rebuild_s'][c] / 3600:.2f} h"
                     + (f", starting {delay / 60:g} min after the failure"
                        if delay else "") + "."),
            evidence={"metric": metric_ids.cluster(cases[c][0],
                                                   "rebuild_s"),
                      "value": float(solved["rebuild_s"][c]),
                      "threshold": 0.0}))
    return findings


def _assumptions(doc):
    cluster = doc.cluster
    layout = cluster.storage_layout
    notes = [
        "Cluster: each host spreads every class over its links in "
        "proportion to their speed; each link and each switch's uplinks "
        "divide by the classes' shares (weighted max-min, as NIOC and "
        "DCB ETS do); traffic between two hosts of one rack stays in the "
        "rack (an MLAG/vPC peer link or one switch carries it)",
        "Cluster: east-west peers are spread evenly over the other hosts; "
        "the spine is not a bottleneck",
        "Cluster: when hosts fail their VMs restart on the others and "
        "bring their VM, storage and backup traffic",
    ]
    if layout is not None:
        notes.append(
            f"Cluster storage {layout!r}, FTT {cluster.failures_to_tolerate}:"
            " no copy is placed next to its VM (each copy is local with "
            "probability 1/N); a mirror rebuild copies each lost byte "
            "once, an erasure code reads k chunks per lost one; the "
            "rebuild keeps "
            f"{100 * fabric.REBUILD_FLOOR.get(_platform(layout), 0):g} % "
            "of the storage class under contention")
    if cluster.memory_per_host_gib > 0:
        notes.append("Cluster maintenance: the host's VM memory crosses "
                     "once as TCP payload at the vMotion class's rate (no "
                     "dirtying, no per-VM set-up; the per-VM pre-copy is "
                     "the evacuation analysis's)")
    return notes


def candidates(doc, goal, base):
    """Faster NICs where host links bind, doubled uplinks where a
    switch's uplinks bind."""
    if doc.cluster is None or goal != "min_cluster_util":
        return
    worst_id = metric_ids.headline(ANALYSIS.name, "worst_peak_util_pct")
    worst = metric_value(base, worst_id)
    if worst is None or worst < 100:
        return
    solved = solve(doc)
    link = solved["answer"]["link_load"].max(axis=(1, 2))
    uplink = solved["answer"]["uplink_load"].max(axis=1)
    if link.max() >= 1.0:
        faster = {f"nics[{n}].speed_gbps": next(
            (s for s in NIC_SPEEDS if s > nic.speed_gbps), None)
            for n, nic in enumerate(doc.nics)}
        if None not in faster.values():
            yield Candidate(
                "advice.cluster.faster_nics", "warning",
                f"host links reach {100 * link.max():.0f} % in the worst "
                "case", {"metric": worst_id, "value": worst,
                         "threshold": 100.0}, faster)
    if uplink.max() >= 1.0:
        c = int(uplink.argmax())
        s = int(solved["answer"]["uplink_load"][c].argmax())
        switch = doc.cluster.switches[s]
        yield Candidate(
            "advice.cluster.more_uplinks", "warning",
            f"the uplinks of {switch.name!r} reach "
            f"{100 * uplink.max():.0f} % in case {solved['cases'][c][0]}",
            {"metric": worst_id, "value": worst, "threshold": 100.0},
            {f"cluster.switches[{s}].uplink_gbps": 2 * switch.uplink_gbps})
