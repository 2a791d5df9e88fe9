"""Teaming analysis of one scenario: every compared policy's per-uplink load
over time, its peak, its distance to the optimal placement, its N-1 (N-k)
verdict, and bandwidth shares.

Static policies are whole-column hash functions; the load-aware ones are
the simulations of :mod:`solvers.teaming_dynamic`; the optimum is
:func:`solvers.placement.place`. Which rules are vendor-documented and
which are modelled is listed in each result's assumptions
(docs/reference/teaming.md section 10.4).
"""

from itertools import combinations

import numpy as np

from models import platform, teaming
from models.scenario import TEAMING_POLICIES
from solvers import metric_grammar as metric_ids
from solvers import teaming_dynamic
from solvers.analysis import (COUNT, EMPTY, HIGHER, LOWER, VERDICT, Analysis,
                              Candidate, Goal, Metric, ResultBuilder,
                              metric_value)
from solvers.inputs import FlowColumns, team_flows
from solvers.placement import EVALUATE_OPTIONS, place
from solvers.results import Bottleneck, Finding

ANALYSIS = Analysis(
    name="teaming", order=3, bottleneck_priority=2, module=__name__,
    reads=("host", "nics", "teams", "workloads.flows", "workloads.profiles",
           "workloads.time_step_s"),
    # of the host, only the hypervisor, which no column sets: a column
    # sweep runs it once per distinct value of these
    column_reads=("nics", "teams"),
    metrics=(
        Metric("peak_util_pct", "%", "peak uplink utilization",
               kind=VERDICT, better=LOWER),
        Metric("gap_to_optimal_pct", "%", "peak above the optimal "
               "placement", better=LOWER),
        Metric("imbalance_pct", "%", "busiest uplink above the mean, at "
               "the peak", better=LOWER),
        Metric("flows_over_member", "1", "flows above their uplink's speed",
               kind=COUNT, better=LOWER),
        Metric("members_used", "1", "uplinks carrying traffic at the peak",
               kind=COUNT, better=HIGHER),
        Metric("n1_peak_util_pct", "%", "peak utilization after a failure",
               kind=VERDICT, better=LOWER),
        Metric("lower_bound_pct", "%", "lower bound on the peak"),
        Metric("demand_gbps", "Gbit/s", "demand at the peak"),
        Metric("allocated_gbps", "Gbit/s", "bandwidth allocated at the "
               "peak"),
    ),
    headline="peak_util_pct",
    models=("models.teaming",), areas=("teaming",),
    goals=(Goal("min_peak_util", "teaming.configured.peak_util_pct", "min",
                lambda doc: bool(doc.workloads.flows and doc.teams),
                rank=4),),
    views=("teaming",),
    sweep_axes=("nics[0].speed_gbps",))

#: Policies compared by default, by hypervisor: the ones that platform
#: offers (teaming.md sections 2-5).
DEFAULT_COMPARE = {
    "vsphere": ("port_id", "src_mac", "ip_hash", "failover", "lbt", "lacp"),
    "hyperv": ("hyperv_port", "address_hash", "dynamic", "failover"),
    "kvm": ("failover", "balance_xor", "lacp", "balance_rr", "balance_tlb",
            "balance_alb", "ovs_balance_slb", "ovs_balance_tcp"),
    "xen": ("failover", "ovs_balance_slb", "ovs_balance_tcp", "lacp"),
}

#: The indivisible unit each policy places: a vNIC port (all its flows) or
#: a single flow. Each policy is compared with the optimum of its own unit.
PORT_POLICIES = ("port_id", "src_mac", "lbt", "hyperv_port",
                 "ovs_balance_slb")

#: What each policy's result rests on that the vendor does not publish.
MODELLED = {
    "port_id": "vSphere port-ID mapping assumed active[port_id mod n]",
    "src_mac": "vSphere source-MAC hash assumed active[last MAC byte mod "
               "n] (approximate)",
    "ip_hash": "vSphere IP hash: XOR of the {ip_variant} of source and "
               "destination (IPv6: of the last octet or last 32 bits), "
               "reduction assumed modulo n; receive side assumed to use "
               "the same hash",
    "lbt": "LBT: target = least utilized uplink after the move, {rule}, "
           "{moves} port(s) per uplink per period",
    "lacp": "LACP hash {hash}: {exactness}; the switch hashes receive "
            "traffic with the same function",
    "balance_xor": "Linux hash {hash} emulated bit-exactly ({kernel} "
                   "kernel{scope})",
    "balance_rr": "balance-rr: packets split evenly (one TCP flow spans "
                  "members, with reordering)",
    "balance_tlb": "balance-tlb: 10 s greedy epochs, buckets placed "
                   "{order}; receive on the active slave",
    "balance_alb": "balance-alb: transmit as tlb keyed by destination IP; "
                   "receive per peer, round-robin over the fastest slaves",
    "ovs_balance_slb": "OVS balance-slb buckets: hash_mac(source MAC, "
                       "VLAN, bond-hash-basis) & 0xFF as ovs-vswitchd "
                       "computes it in a generic build (SSE4.2 and ARM "
                       "CRC32 builds hash differently); first placement "
                       "round-robin [Model]",
    "ovs_balance_tcp": "OVS balance-tcp buckets: flow_hash_5tuple & 0xFF "
                       "(generic build), as without recirculation and on "
                       "the userspace datapath; with recirculation on the "
                       "kernel datapath the bucket is the kernel's packet "
                       "hash, not reproduced; first placement random "
                       "[Model]",
    "hyperv_port": "Hyper-V Port affinity assumed port_id mod n",
    "address_hash": "LBFO address hash {hash} modelled as a uniform hash "
                    "(approximate)",
    "dynamic": "Windows Dynamic approximated as LPT re-placement every "
               "{epoch:g} s, speed-unaware",
    "failover": "Explicit failover: the first healthy active uplink "
                "carries everything",
}

#: What the encap hashes' emulation takes of the packets: the inner
#: headers are the outer ones, and encap3+4 uses no socket hash.
_ENCAP_SCOPE = ("; packets taken as untunnelled, without an L4 socket hash "
                "(skb->l4_hash)")

#: Points kept per trace (each keeps the maximum of its bin).
TRACE_POINTS = 300

#: Distinct demand snapshots tried when looking for the best static
#: placement over time.
OPTIMAL_SNAPSHOTS = 4


def analyse(inputs, upstream, *, details=True):
    """Teaming metrics of every document (see :mod:`solvers.analysis`).

    Documents that agree in everything this analysis reads
    (:func:`_teaming_inputs`) share one result: variants that change
    something else, and the alike hosts of a fleet, are analysed once."""
    done = {}
    results = []
    for doc in inputs.documents:
        key = _teaming_inputs(doc)
        if key not in done:
            done[key] = _analyse_document(doc)
        results.append(done[key])
    return results


def _teaming_inputs(doc):
    """What the teaming analysis reads of a document, as a hashable key:
    the hypervisor, the teams, the NIC speeds, and the flows with their
    time profiles and step (None: nothing to analyse)."""
    if not doc.workloads.flows or not doc.teams:
        return None
    return (doc.host.hypervisor,
            tuple(team.model_dump_json() for team in doc.teams),
            tuple((nic.id, nic.speed_gbps) for nic in doc.nics),
            doc.workloads.model_dump_json(
                include={"flows", "profiles", "time_step_s"}))


def _analyse_document(doc, kept=None):
    """The teaming result of ``doc``; with ``kept`` (a dict), each team's
    inputs and policy results are kept in it by team name (for
    :mod:`solvers.teaming_threshold`)."""
    if not doc.workloads.flows or not doc.teams:
        return EMPTY
    out = ResultBuilder()
    teams = metric_ids.teams_in_ids(doc)
    for team, flows in team_flows(doc):
        _analyse_team(doc, team, flows, teams[team.name], out, kept)
    if len(teams) > 1:   # the goal's headline: the busiest team's
        out.metrics[metric_ids.teaming("configured", "peak_util_pct")] \
            = max(out.metrics[metric_ids.teaming(
                "configured", "peak_util_pct", team)] for team in teams)
    return out.result()


def _steady_horizon_s(team):
    """Constant demand is simulated for :data:`models.teaming.
    STEADY_PERIODS` of the slowest load-aware policy's period [s]."""
    return float(teaming.steady_horizon_s(
        team.lbt_period_s, team.ovs_rebalance_interval_ms / 1000,
        team.dynamic_epoch_s))


def _analyse_team(doc, team, flows, team_id, out, kept=None):
    uplinks = team.members + team.standby
    speeds = {n.id: n.speed_gbps for n in doc.nics}
    speed = np.array([speeds[u] for u in uplinks])
    columns = FlowColumns(doc, team, flows, uplinks, _steady_horizon_s(team))
    hypervisor = doc.host.hypervisor
    compare = list(dict.fromkeys(
        [team.policy] + list(team.compare if team.compare is not None
                             else DEFAULT_COMPARE[hypervisor])))
    skipped = {}
    for policy in compare[1:]:
        missing = [field for field in teaming.required_flow_fields(
            policy, team.hash, hypervisor)
            if any(getattr(f, field) is None for f in flows)]
        if missing:
            skipped[policy] = missing
    compare = [p for p in compare if p not in skipped]
    active = list(range(len(team.members)))
    results = {}
    for policy in compare:
        tx_member, rx_member, moves = _place(policy, columns, active, speed,
                                             team, hypervisor)
        results[policy] = _loads(policy, columns, tx_member, rx_member,
                                 speed, active,
                                 switch_hashed=_switch_hashes(policy, team))
        results[policy]["moves"] = [
            {"t_s": float(columns.t[min(step, columns.t.size - 1)]),
             "port": columns.owners[unit], "from": uplinks[source],
             "to": uplinks[target]} for step, unit, source, target in moves]
    optimal = {unit: _optimal(columns, speed, active, unit, results)
               for unit in ("port", "flow")}
    failures = _failure_sets(team, len(uplinks))
    metrics = out.metrics
    placed_configured = {}
    for policy in compare:
        result = results[policy]
        unit = "port" if policy in PORT_POLICIES else "flow"
        peak = result["peak"]
        best = optimal[unit]["peak"] if optimal[unit] else None
        placed = {}   # (policy, lost uplinks) -> loads, computed once
        if policy == team.policy:
            placed_configured = placed   # the N-k states reuse them
        n1_peak, n1_detail = _failure_peak(policy, columns, speed, team,
                                           hypervisor, failures, result,
                                           placed)
        values = {"peak_util_pct": 100 * peak}
        if best is not None:
            values["gap_to_optimal_pct"] = gap_pct(peak, best)
        values["imbalance_pct"] = result["imbalance"]
        values["flows_over_member"] = result["over_member"]
        values["members_used"] = result["members_used"]
        if n1_peak is not None:
            values["n1_peak_util_pct"] = 100 * n1_peak
        metrics.update({metric_ids.teaming(policy, key, team_id): value
                        for key, value in values.items()})
        result["n1"] = (n1_peak, n1_detail)
        out.traces[metric_ids.uplink_trace(policy, team_id)] = {
            **_trace(columns.t, result["util"], uplinks),
            "policy": policy, "label": TEAMING_POLICIES[policy][0],
            "configured": policy == team.policy,
            "threshold_pct": team.lbt_threshold_pct if policy == "lbt"
            else None,
            "events": result["moves"],
            # the worst N-1 .. N-k losses under this policy: the views'
            # uplinks picker drives the peaks chart and the loads with them
            "losses": _worst_losses(policy, columns, speed, team,
                                    hypervisor, uplinks, placed)}
    configured = optimal["port" if team.policy in PORT_POLICIES else "flow"]
    own = results[team.policy]
    busiest = int(np.argmax(own["util"].max(axis=0)))
    if out.bottleneck is None:   # the first team's
        out.bottleneck = Bottleneck(
            "teaming.uplink",
            f"{uplinks[busiest]} at {100 * own['peak']:.1f} % of "
            f"{speed[busiest]:g} Gbit/s under "
            f"{TEAMING_POLICIES[team.policy][0]}")
    # the answer of this variant: the peak of the policy it configures,
    # with the optimal placement (which no policy changes) beside it
    metrics[metric_ids.teaming("configured", "peak_util_pct", team_id)] = \
        100 * own["peak"]
    if configured:
        metrics[metric_ids.teaming("optimal", "peak_util_pct", team_id)] = \
            100 * configured["peak"]
        metrics[metric_ids.teaming("optimal", "lower_bound_pct",
                                   team_id)] = 100 * configured["bound"]
    out.traces[metric_ids.placement_trace(team.policy, team_id)] = \
        _placement_trace(team, columns, speed, hypervisor, uplinks,
                         results[team.policy], configured,
                         placed_configured)
    if team.nioc:
        _nioc(team, columns, results[team.policy], speed, team_id, metrics)
    if kept is not None:
        kept[team.name] = {"columns": columns, "speed": speed,
                           "compare": compare, "results": results,
                           "optimal": optimal, "failures": failures,
                           "team_id": team_id}
    out.findings.extend(_findings(team, columns, speed, results, compare,
                                     optimal, team_id, uplinks))
    out.findings.extend(_shared_hash_inputs(team, flows, columns, compare,
                                               hypervisor, results, team_id))
    out.assumptions.extend(_assumptions(team, compare, skipped, columns,
                                           hypervisor, configured))
    if "ip_hash" in results:
        out.assumptions.extend(_ip_hash_other_reading(
            team, columns, active, speed, hypervisor, results["ip_hash"]))


def _ip_hash_other_reading(team, columns, active, speed, hypervisor, own):
    """VMware describes IP hash both as a last-octet and as a 32-bit XOR;
    where the two place flows differently, state the other's peak."""
    other = next(v for v in teaming.IP_HASH_VARIANTS
                 if v != team.ip_hash_variant)
    tx, rx, _ = _place("ip_hash", columns, active, speed,
                       team.model_copy(update={"ip_hash_variant": other}),
                       hypervisor)
    mine = teaming.ip_hash_member(columns.sip_words[:, 3],
                                  columns.dip_words[:, 3], len(active),
                                  team.ip_hash_variant)
    if np.array_equal(np.asarray(active)[mine], tx):
        return []
    result = _loads("ip_hash", columns, tx, rx, speed, active)
    return [f"IP hash on {len(active)} uplinks: VMware's two descriptions "
            f"place flows differently here; {team.ip_hash_variant} peaks "
            f"at {100 * own['peak']:.1f} %, {other} at "
            f"{100 * result['peak']:.1f} %"]


def _place(policy, columns, usable, speed, team, hypervisor):
    """Member index (into the team's uplinks) of every flow, (F,) for
    static policies or (T, F) for dynamic ones, for transmit and receive,
    and the moves a load-aware policy made as (time, unit, from, to)."""
    usable = np.asarray(usable)
    n = usable.size
    c = columns
    moves = []
    if policy == "lacp":
        usable = teaming.active_aggregator(usable, speed)
        n = usable.size
    if policy in ("port_id", "hyperv_port"):
        tx = usable[teaming.port_id_member(c.port_id, n)][c.unit]
    elif policy == "src_mac":
        tx = usable[teaming.source_mac_member(c.smac, n)]
    elif policy == "ip_hash":
        tx = usable[teaming.ip_hash_member(c.sip_words[:, 3],
                                           c.dip_words[:, 3], n,
                                           team.ip_hash_variant)]
    elif policy in ("failover", "balance_rr"):
        tx = np.full(c.count, usable[0])
    elif policy in ("lacp", "balance_xor", "address_hash"):
        tx = usable[_header_hash(teaming.default_hash(
            policy, team.hash, hypervisor), c, team) % n]
    elif policy == "lbt":
        args, options = lbt_inputs(c, usable, speed, team)
        member, moves = teaming_dynamic.lbt(
            *args, threshold=team.lbt_threshold_pct / 100, **options)
        tx = member[:, c.unit]
    elif policy in ("ovs_balance_slb", "ovs_balance_tcp"):
        if policy == "ovs_balance_slb":
            h = teaming.ovs_hash_mac(c.smac, c.vlan, team.ovs_hash_basis)
        else:
            h = _ovs_5tuple_hash(c, team.ovs_hash_basis)
        bucket = (h & np.uint32(0xFF)).astype(np.int64)
        member = teaming_dynamic.ovs_bond(
            c.tx, bucket, n, step_s=c.step,
            rebalance_interval_s=team.ovs_rebalance_interval_ms / 1000,
            initial="round_robin" if policy == "ovs_balance_slb"
            else "random", seed=team.ovs_hash_basis)
        tx = usable[member]
    elif policy in ("balance_tlb", "balance_alb"):
        if policy == "balance_tlb":
            bucket = _header_hash(teaming.default_hash(
                policy, team.hash, hypervisor), c, team) & 0xFF
        else:
            bucket = teaming.byte_xor(c.dip)
        member = teaming_dynamic.tlb(c.tx, bucket, speed[usable],
                                     step_s=c.step, order=team.tlb_order,
                                     seed=team.ovs_hash_basis)
        tx = usable[member]
    elif policy == "dynamic":
        tx = usable[teaming_dynamic.windows_dynamic(
            c.tx, n, step_s=c.step, epoch_s=team.dynamic_epoch_s)]
    else:   # pragma: no cover - the schema admits only known policies
        raise ValueError(f"unknown teaming policy {policy!r}")
    if _switch_hashes(policy, team):
        # the peer switch, not this host, picks the receive member
        rx = usable[teaming.switch_hash_member(
            team.switch_hash, {"smac": c.smac, "dmac": c.dmac, "sip": c.sip,
                               "dip": c.dip, "sport": c.sport,
                               "dport": c.dport}, n)]
    else:
        rx = teaming.receive_member(policy, tx, c.dip, usable, speed,
                                    switch_mode=team.switch_mode)
    return tx, rx, moves


def lbt_inputs(columns, usable, speed, team):
    """What :func:`solvers.teaming_dynamic.lbt` simulates of the team's
    ports on the ``usable`` uplinks, but the threshold: its positional
    arguments and keywords."""
    c = columns
    usable = np.asarray(usable)
    unit_tx, unit_rx = c.unit_rates
    return ((unit_tx, unit_rx, speed,
             usable[teaming.port_id_member(c.port_id, usable.size)]),
            {"period_steps": max(1, round(team.lbt_period_s / c.step)),
             "target_rule": team.lbt_target_rule,
             "max_moves_per_uplink": team.lbt_max_moves_per_uplink,
             "allowed": _mask(usable, speed.size)})


def gap_pct(peak, best):
    """How far a peak is above the optimal one [%] (0 when that is 0)."""
    return 100 * (peak / best - 1) if best > 0 else 0.0


def peak_demand_step(columns):
    """The step of the busiest total demand, its last occurrence (where
    a load-aware policy is seen after it has reacted to it)."""
    total = (columns.tx + columns.rx).sum(axis=1)
    return columns.t.size - 1 - int(np.argmax(total[::-1]))


def _switch_hashes(policy, team):
    """The team's peer-switch hash decides where ``policy`` receives: it
    is given and the policy runs on a static or LACP port-channel."""
    return team.switch_hash is not None \
        and _switch_mode(policy, team) in ("static", "lacp")


def _ovs_5tuple_hash(c, basis):
    """flow_hash_5tuple of every flow, IPv6 ones over their full
    addresses."""
    h = teaming.ovs_flow_hash_5tuple(c.sip, c.dip, c.proto, c.sport,
                                     c.dport, basis)
    v6 = c.ethertype == teaming.ETHERTYPE_IPV6
    if v6.any():
        h[v6] = teaming.ovs_flow_hash_5tuple(
            c.sip_words[v6], c.dip_words[v6], c.proto[v6], c.sport[v6],
            c.dport[v6], basis, ipv6=True)
    return h


def _mask(usable, members):
    mask = np.zeros(members, dtype=bool)
    mask[usable] = True
    return mask


def _header_hash(name, c, team):
    if name in teaming.LINUX_HASHES:
        return teaming.linux_xmit_hash(
            name, c.smac, c.dmac, c.sip, c.dip, c.sport, c.dport,
            ethertype=c.ethertype, vlan_tci=c.vlan_tci, has_ports=c.has_ports,
            kernel=team.kernel_hash).astype(np.int64)
    fields = {"smac": c.smac, "dmac": c.dmac, "sip": c.sip, "dip": c.dip,
              "sport": c.sport, "dport": c.dport, "vlan": c.vlan,
              "port": c.port_id[c.unit]}
    h = teaming.uniform_hash([fields[f] for f in
                              teaming.UNIFORM_HASH_FIELDS[name]])
    return (h >> np.uint64(1)).astype(np.int64)


def _loads(policy, columns, tx_member, rx_member, speed, usable, *,
           switch_hashed=False):
    members = speed.size
    steps = columns.t.size

    def spread(member, rate, received=False):
        if policy == "balance_rr" and not (received and switch_hashed):
            share = np.zeros((steps, members))
            share[:, usable] = rate.sum(axis=1, keepdims=True) / len(usable)
            return share
        return teaming.member_loads(member, rate, members)

    tx_load = spread(tx_member, columns.tx)
    rx_load = spread(rx_member, columns.rx, received=True)
    util = np.maximum(tx_load, rx_load) / speed
    peak = float(util.max())
    # spread is judged at the busiest demand
    peak_step = peak_demand_step(columns)
    at_peak = util[peak_step]
    mean = at_peak[usable].mean()
    member_at_peak = tx_member if tx_member.ndim == 1 \
        else tx_member[peak_step]
    demand = np.maximum(columns.tx[peak_step], columns.rx[peak_step])
    over = 0 if policy == "balance_rr" else int(
        (demand > speed[member_at_peak] * (1 + 1e-12)).sum())
    return {"util": util, "peak": peak, "peak_step": peak_step,
            "imbalance": 100 * (at_peak.max() / mean - 1) if mean > 0
            else 0.0,
            "over_member": over,
            "members_used": int((at_peak > 0).sum()),
            "member_at_peak": member_at_peak}


def _optimal(columns, speed, usable, unit, results):
    """Best peak over time of an unsplittable placement of ``unit``s on
    the active uplinks, with a proven lower bound.

    The placement is solved at the snapshot with the highest lower bound
    and checked over all time; more snapshots are tried while the gap is
    open. A policy whose peak is lower is itself a better placement."""
    if unit == "port":
        tx, rx = columns.unit_rates
        membership = np.eye(columns.units, dtype=bool)[columns.unit]
        allowed = np.stack([columns.allowed[membership[:, u]].all(axis=0)
                            for u in range(columns.units)])
        group = np.array([columns.group[membership[:, u]].max()
                          for u in range(columns.units)])
    else:
        tx, rx, allowed, group = columns.tx, columns.rx, columns.allowed, \
            columns.group
    demand = np.maximum(tx, rx)
    allowed = allowed[:, usable]
    speeds = speed[usable]
    bounds = teaming.placement_lower_bound(demand, speeds)
    bound = float(bounds.max())
    best = np.inf
    placed = None
    shapes = []
    for step in np.argsort(-bounds, kind="stable"):
        # a snapshot proportional to one already placed has the same best
        # placement (constant demand: every step; one shared profile: all)
        top = demand[step].max()
        shape = demand[step] / top if top > 0 else demand[step]
        if any(np.allclose(shape, seen) for seen in shapes):
            continue
        if len(shapes) == OPTIMAL_SNAPSHOTS:
            break
        shapes.append(shape)
        result = place(demand[step], speeds,
                       allowed=allowed if columns.constrained else None,
                       groups=group if columns.constrained else None,
                       options=EVALUATE_OPTIONS)
        if not result.success:   # a unit pinned to no active uplink
            return None
        bound = max(bound, result.lower_bound)
        loads = teaming.member_loads(result.member, demand, speeds.size)
        peak = float((loads / speeds).max())
        if peak < best:
            # the placement itself, for the teaming view: each active
            # uplink's peak and the units (ports or flows) it carries
            placed = {"util": (loads / speeds).max(axis=0),
                      "member": np.asarray(usable)[result.member]}
        best = min(best, peak)
        if best <= bound * (1 + 1e-9):
            break
    solved = {"peak": best, "bound": bound}   # before any policy's
    if not columns.constrained:
        same_unit = {p: r for p, r in results.items()
                     if same_unit_policy(p, unit)}
        policy = min(same_unit, key=lambda p: same_unit[p]["peak"],
                     default=None)
        if policy is not None and same_unit[policy]["peak"] < best:
            best = same_unit[policy]["peak"]
            own = same_unit[policy]
            member = own["member_at_peak"]
            placed = {"util": own["util"].max(axis=0)[usable],
                      "member": member if unit == "flow" else
                      np.array([member[np.flatnonzero(columns.unit == u)[0]]
                                for u in range(columns.units)])}
    return {"peak": best, "bound": min(bound, best), "placed": placed,
            "solved": solved}


def same_unit_policy(policy, unit):
    """Whether ``policy`` places whole ``unit``s ('port' or 'flow'): its
    peak is that of a placement the optimum of that unit may take."""
    return policy != "balance_rr" and (unit == "flow"
                                       or policy in PORT_POLICIES)


def _failure_sets(team, uplinks):
    k = min(team.failures, uplinks - 1)
    if k < 1:
        return []
    return list(combinations(range(uplinks), k))


def _usable_after(team, failed):
    active = [i for i in range(len(team.members)) if i not in failed]
    standby = [len(team.members) + i for i in range(len(team.standby))
               if len(team.members) + i not in failed]
    # a standby uplink replaces each failed active one, in list order
    replaced = len(team.members) - len(active)
    return active + standby[:replaced] if active else standby


def _loads_after(policy, columns, speed, team, hypervisor, failed, placed):
    """The loads under ``policy`` once the uplinks ``failed`` (indices)
    are lost, None when none is left; ``placed`` keeps each (policy,
    failed set) computed once for the N-k metric and the N-k views."""
    key = (policy, tuple(failed))
    if key not in placed:
        usable = _usable_after(team, set(failed))
        if not usable:
            placed[key] = None
        else:
            tx, rx, _ = _place(policy, columns, usable, speed, team,
                               hypervisor)
            placed[key] = _loads(policy, columns, tx, rx, speed, usable,
                                 switch_hashed=_switch_hashes(policy, team))
    return placed[key]


def _failure_peak(policy, columns, speed, team, hypervisor, failures,
                  healthy, placed=None):
    placed = {} if placed is None else placed
    worst, detail = None, None
    for failed in failures:
        result = _loads_after(policy, columns, speed, team, hypervisor,
                              failed, placed)
        if result is None:
            continue
        if worst is None or result["peak"] > worst:
            moved = int((result["member_at_peak"]
                         != healthy["member_at_peak"]).sum())
            worst = result["peak"]
            detail = {"failed": failed, "moved": moved,
                      "overloaded": int((result["util"].max(axis=0)
                                         > 1).sum())}
    return worst, detail


#: Most uplinks lost at once in the teaming view's N-k states.
VIEW_MAX_FAILURES = 2


def _view_failures(team, uplinks):
    """Most uplinks lost at once in the N-k states the views offer."""
    return min(max(team.failures, VIEW_MAX_FAILURES), uplinks - 1)


def _worst_losses(policy, columns, speed, team, hypervisor, uplinks,
                  placed):
    """For each k = 1 .. the views' most: the loss of k uplinks that gives
    ``policy`` its highest peak, as the views show it (the uplink trace's
    ``losses``): its label, the uplinks lost, the peak [%] and each
    uplink's utilization over time then."""
    losses = []
    for k in range(1, _view_failures(team, len(uplinks)) + 1):
        worst, worst_failed = None, None
        for failed in combinations(range(len(uplinks)), k):
            result = _loads_after(policy, columns, speed, team, hypervisor,
                                  failed, placed)
            if result is not None and (worst is None or
                                       result["peak"] > worst["peak"]):
                worst, worst_failed = result, failed
        if worst is None:
            continue
        lost = ", ".join(uplinks[i] for i in worst_failed)
        losses.append({
            "k": k, "label": f"N-{k}: {lost} lost (worst case)",
            "failed": [uplinks[i] for i in worst_failed],
            "peak_pct": 100 * worst["peak"],
            "series": _trace(columns.t, worst["util"], uplinks)["series"]})
    return losses


def _placement_trace(team, columns, speed, hypervisor, uplinks, healthy,
                     optimal, placed):
    """Each uplink's peak utilization and the flows it carries at the
    peak under the configured policy: with all uplinks, and after the
    worst loss of 1..k of them (N-1, N-k); and the optimal placement."""

    def state(label, result, failed):
        member = result["member_at_peak"]
        return {"label": label, "failed": [uplinks[i] for i in failed],
                "peak_pct": (100 * result["util"].max(axis=0)).tolist(),
                "flows": [[columns.ids[f] for f in np.flatnonzero(member == u)]
                          for u in range(len(uplinks))]}

    states = [state("All uplinks", healthy, ())]
    most = _view_failures(team, len(uplinks))
    for k in range(1, most + 1):
        worst, worst_failed = None, None
        for failed in combinations(range(len(uplinks)), k):
            if not _switch_hashes(team.policy, team):
                # the same loads the N-k metric and views computed
                result = _loads_after(team.policy, columns, speed, team,
                                      hypervisor, failed, placed)
                if result is None:
                    continue
            else:   # as placed with the host's own receive rule
                usable = _usable_after(team, set(failed))
                if not usable:
                    continue
                tx, rx, _ = _place(team.policy, columns, usable, speed,
                                   team, hypervisor)
                result = _loads(team.policy, columns, tx, rx, speed, usable)
            if worst is None or result["peak"] > worst["peak"]:
                worst, worst_failed = result, failed
        if worst is not None:
            lost = ", ".join(uplinks[i] for i in worst_failed)
            states.append(state(f"N-{k}: {lost} lost (worst case)", worst,
                                worst_failed))
    trace = {"uplinks": list(uplinks), "speed_gbps": speed.tolist(),
             "policy": team.policy, "label": TEAMING_POLICIES[team.policy][0],
             "states": states, "optimal": None}
    if optimal and optimal.get("placed") is not None:
        placed = optimal["placed"]
        unit_names = columns.owners if team.policy in PORT_POLICIES \
            else columns.ids
        peak = np.zeros(len(uplinks))
        active = sorted(set(range(len(team.members))))
        peak[active] = 100 * np.asarray(placed["util"])[:len(active)]
        trace["optimal"] = {
            "peak_pct": peak.tolist(),
            "units": [[unit_names[i] for i in
                       np.flatnonzero(placed["member"] == u)]
                      for u in range(len(uplinks))]}
    return trace


def _nioc(team, columns, result, speed, team_id, metrics):
    """NIOC shares on each uplink at the configured policy's peak."""
    classes = [c.traffic_class for c in team.nioc]
    step = result["peak_step"]
    member = result["member_at_peak"]
    demand = np.zeros((speed.size, len(classes)))
    for i, name in enumerate(columns.traffic_class):
        if name in classes:
            rate = max(columns.tx[step, i], columns.rx[step, i])
            demand[member[i], classes.index(name)] += rate
    alloc = teaming.bandwidth_shares(
        demand, [c.shares for c in team.nioc], speed,
        reservation=[c.reservation_gbps for c in team.nioc],
        limit=[c.limit_gbps or np.inf for c in team.nioc],
        reservation_mode=team.nioc_reservation)
    for k, name in enumerate(classes):
        metrics[metric_ids.nioc(name, "demand_gbps", team_id)] = \
            demand[:, k].sum()
        metrics[metric_ids.nioc(name, "allocated_gbps", team_id)] = \
            alloc[:, k].sum()


def _trace(t, util, uplinks):
    bins = max(1, -(-t.size // TRACE_POINTS))
    usable = t.size // bins * bins
    if bins > 1:
        t_out = t[:usable:bins]
        u_out = util[:usable].reshape(-1, bins, util.shape[1]).max(axis=1)
    else:
        t_out, u_out = t, util
    return {"x": {"id": "time", "unit": "s", "values": t_out.tolist()},
            "series": [{"id": uplink, "unit": "%",
                        "values": (100 * u_out[:, i]).tolist()}
                       for i, uplink in enumerate(uplinks)]}


def _findings(team, columns, speed, results, compare, optimal, team_id,
              uplinks):
    def metric(policy, key):
        return metric_ids.teaming(policy, key, team_id)

    findings = []
    configured = results[team.policy]
    name = TEAMING_POLICIES[team.policy][0]
    peak_demand = np.maximum(columns.tx, columns.rx).max(axis=0)
    too_big = np.flatnonzero(peak_demand > speed.max())
    if too_big.size:
        findings.append(Finding(
            id="teaming.flow_exceeds_links", severity="critical",
            message=(f"Flow {columns.ids[too_big[0]]!r} peaks at "
                     f"{peak_demand[too_big[0]]:.3g} Gbit/s, above every "
                     f"uplink ({speed.max():g} Gbit/s): no hash policy can "
                     "carry one flow on two links"),
            evidence={"metric": metric(team.policy, "flows_over_member"),
                      "value": int(too_big.size), "threshold": 0}))
    if configured["members_used"] == 1 and len(team.members) > 1 \
            and team.policy not in ("failover",):
        findings.append(Finding(
            id="teaming.one_member", severity="warning",
            message=(f"{name}: at the peak all traffic is on one uplink "
                     f"while {len(team.members) - 1} other(s) idle"),
            evidence={"metric": metric(team.policy, "members_used"),
                      "value": 1, "threshold": 2}))
    if configured["peak"] > 1:
        findings.append(Finding(
            id="teaming.overloaded", severity="critical",
            message=(f"{name}: the busiest uplink needs "
                     f"{100 * configured['peak']:.0f} % of its capacity"),
            evidence={"metric": metric(team.policy, "peak_util_pct"),
                      "value": 100 * configured["peak"], "threshold": 100}))
    best_policy = min(compare, key=lambda p: (results[p]["peak"],
                                              compare.index(p)))
    if results[best_policy]["peak"] < \
            configured["peak"] * teaming.BETTER_POLICY_MARGIN:
        findings.append(Finding(
            id="teaming.better_policy", severity="info",
            message=(f"{TEAMING_POLICIES[best_policy][0]} peaks at "
                     f"{100 * results[best_policy]['peak']:.0f} % against "
                     f"{100 * configured['peak']:.0f} % for {name}"),
            evidence={"metric": metric(best_policy, "peak_util_pct"),
                      "value": 100 * results[best_policy]["peak"],
                      "threshold": 100 * configured["peak"]}))
    n1_peak, detail = configured["n1"]
    if n1_peak is not None and n1_peak > 1:
        lost = ", ".join(uplinks[i] for i in detail["failed"])
        findings.append(Finding(
            id="teaming.n1_overload", severity="warning",
            message=(f"If {lost} fails, {name} needs {100 * n1_peak:.0f} % "
                     f"of an uplink: {detail['overloaded']} uplink(s) "
                     f"overloaded, {detail['moved']} flow(s) move"),
            evidence={"metric": metric(team.policy, "n1_peak_util_pct"),
                      "value": 100 * n1_peak, "threshold": 100}))
    if team.policy == "balance_rr":
        findings.append(Finding(
            id="teaming.reordering", severity="warning",
            message=("balance-rr splits each TCP flow over members: "
                     "expect reordering; raise net.ipv4.tcp_reordering"),
            evidence={"metric": metric("balance_rr", "members_used"),
                      "value": configured["members_used"], "threshold": 1}))
    if np.unique(speed).size > 1 and team.policy not in (
            "lbt", "balance_tlb", "balance_alb", "failover"):
        findings.append(Finding(
            id="teaming.mixed_speeds", severity="info",
            message=(f"{name} ignores member speed: a slow uplink gets as "
                     "many units as a fast one"),
            evidence={"metric": metric(team.policy, "peak_util_pct"),
                      "value": 100 * configured["peak"],
                      "threshold": 100 * optimal["flow"]["peak"]
                      if optimal["flow"] else None}))
    if not optimal["flow"]:
        stranded = np.flatnonzero(~columns.allowed[:, :len(team.members)]
                                  .any(axis=1))
        findings.append(Finding(
            id="teaming.pins_infeasible", severity="critical",
            message=(f"Flow {columns.ids[stranded[0]]!r} is pinned to no "
                     "active uplink of team "
                     f"{team.name!r}: no placement can honour the pins, so "
                     "the optimum is not computed"),
            evidence={"metric": metric("optimal", "peak_util_pct"),
                      "value": None, "threshold": None}))
    return findings


def _assumptions(team, compare, skipped, columns, hypervisor, optimal):
    notes = []
    for policy in compare:
        text = MODELLED.get(policy)
        if text:
            hashed = teaming.default_hash(policy, team.hash, hypervisor)
            scope = _ENCAP_SCOPE if hashed in ("encap2+3", "encap3+4") \
                else ""
            notes.append(text.format(
                rule=team.lbt_target_rule.replace("_", " "),
                moves=team.lbt_max_moves_per_uplink, hash=hashed,
                kernel=team.kernel_hash, order=team.tlb_order,
                epoch=team.dynamic_epoch_s,
                ip_variant={"last_octet": "last octets",
                            "xor32": "whole 32-bit addresses"}[
                    team.ip_hash_variant],
                scope=scope, exactness=f"bit-exact Linux emulation{scope}"
                if hashed in teaming.LINUX_HASHES
                else "uniform hash of its fields (approximate)"))
    if columns.connect_order:
        notes.append("Ports without a port_id are numbered in connect "
                     "(list) order")
    if team.switch_hash is not None:
        notes.append(
            f"Receive side of static/LACP policies: the peer switch's "
            f"{team.switch_hash.replace('_', '-')} hash (uniform hash of "
            "those fields, pairs XORed; the vendors do not publish the "
            "function), not the host's")
    elif any(_switch_mode(p, team) in ("static", "lacp") for p in compare):
        notes.append("Receive side of static/LACP policies: the peer "
                     "switch assumed to hash like the host (set "
                     "switch_hash to the switch's port-channel "
                     "load-balance)")
    if team.hash is None and "lacp" in compare and hypervisor == "vsphere":
        notes.append("vDS LACP hash not set: srcDestIpTcpUdpPort assumed; "
                     "set it to match the physical switch")
    for policy, fields in skipped.items():
        notes.append(f"{policy} not compared: flows lack "
                     f"{', '.join(fields)}")
    if optimal:
        notes.append("Optimal: min-max placement of whole units on the "
                      "active uplinks (LPT + MILP), lower bound "
                      f"{100 * optimal['bound']:.1f} %")
    notes.append(f"Failures: every set of {team.failures} uplink(s) removed "
                 "for the whole horizon; standby uplinks replace failed "
                 "active ones")
    return notes


def candidates(doc, goal, base):
    """A port-aware Linux hash where a MAC/IP hash keeps flows on one
    member, and every compared policy that peaks lower than the
    configured one, for each team that carries flows."""
    teams = metric_ids.teams_in_ids(doc)
    for i, team in enumerate(doc.teams):
        if team.name not in teams:
            continue
        team_id = teams[team.name]
        peak_id = metric_ids.teaming(team.policy, "peak_util_pct", team_id)
        peak = metric_value(base, peak_id)
        if peak is None:
            continue
        severity = "warning" if peak > 100 else "info"
        hashed = teaming.default_hash(team.policy, team.hash,
                                      doc.host.hypervisor)
        if hashed in ("layer2", "layer2+3", "encap2+3"):
            # a hash on MACs or IPs alone keeps every connection to one
            # peer (or through one router) on one member; ports spread it
            used = metric_ids.teaming(team.policy, "members_used", team_id)
            yield Candidate(
                "advice.teaming.hash_layer3_4", severity,
                f"xmit_hash_policy {hashed} ignores ports",
                {"metric": used, "value": metric_value(base, used),
                 "threshold": len(team.members)},
                {f"teams[{i}].hash": "layer3+4"})
        for metric in base.metrics:
            parsed = metric_ids.parse(metric.id)
            if parsed.family == "teaming" and parsed.team == team_id \
                    and parsed.key == "peak_util_pct" \
                    and parsed.policy in platform.teaming_policies(
                        doc.host.hypervisor) \
                    and parsed.policy != team.policy and metric.value < peak:
                yield Candidate(
                    f"advice.teaming.{parsed.policy}", severity,
                    f"{team.policy} peaks at {peak:.0f} %",
                    {"metric": peak_id, "value": peak,
                     "threshold": metric.value},
                    {f"teams[{i}].policy": parsed.policy,
                     f"teams[{i}].switch_mode": _switch_mode(parsed.policy,
                                                             team)})


def _switch_mode(policy, team):
    modes = TEAMING_POLICIES[policy][1]
    return team.switch_mode if team.switch_mode in modes else modes[0]


def _hash_keys(policy, columns, team, hypervisor):
    """(the value a static hash policy reduces modulo the uplinks, per
    flow; what it is in words), or None for a policy that hashes no
    header fields (port ID, load-aware ones)."""
    c = columns
    if policy == "ip_hash":
        mixed = c.sip_words[:, 3] ^ c.dip_words[:, 3]
        if team.ip_hash_variant == "last_octet":
            return mixed & 0xFF, "source XOR destination IP (last octets)"
        return mixed, "source XOR destination IP"
    if policy == "src_mac":
        return c.smac & 0xFF, "last byte of the source MAC"
    name = teaming.default_hash(policy, team.hash, hypervisor)
    if policy in ("lacp", "balance_xor", "address_hash") and name:
        return _header_hash(name, c, team), f"{name} hash of the headers"
    return None


def _shared_hash_inputs(team, flows, columns, compare, hypervisor, results,
                        team_id):
    """A finding for each hash policy whose flows, different as they are,
    give it fewer distinct hash inputs than it has uplinks to fill: by
    construction of their addresses (10.0.0.N to 10.1.0.N: one XOR for
    all), not by their load, they cannot spread."""
    members = len(team.members)
    findings = []
    for policy in compare:
        keyed = _hash_keys(policy, columns, team, hypervisor)
        if keyed is None or members < 2:
            continue
        keys, what = keyed
        fields = teaming.required_flow_fields(policy, team.hash, hypervisor)
        distinct = np.unique(keys).size
        inputs = len({tuple(getattr(f, a) for a in fields) for f in flows})
        if distinct >= min(len(flows), members) or inputs <= distinct:
            continue
        shared = f" ({int(keys[0]):#x})" if distinct == 1 else ""
        findings.append(Finding(
            id="teaming.shared_hash_input", severity="warning",
            message=(f"{TEAMING_POLICIES[policy][0]}: the {len(flows)} "
                     f"flows' {inputs} different address sets give only "
                     f"{distinct} value(s) of its input, the {what}"
                     f"{shared}, so they can use at most {distinct} of "
                     f"the {members} uplinks whatever their load. "
                     "Addresses that repeat one pattern on both ends "
                     "(10.0.0.N to 10.1.0.N) do this; real peers rarely "
                     "do: check the flows' addresses"),
            evidence={"metric": metric_ids.teaming(policy, "members_used",
                                                   team_id),
                      "value": results[policy]["members_used"],
                      "threshold": min(len(flows), members)}))
    return findings
