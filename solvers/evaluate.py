"""``evaluate(scenario) -> Results``: the one entry point every face calls.

The base and all variants are evaluated together: their inputs are gathered
into arrays and each model function is called once for the whole set.
"""

import functools

import numpy as np

from models import wire
from models.scenario import Scenario, ScenarioError
from solvers import (__version__, host_network, migration, storage,
                     teaming)
from solvers.results import (Bottleneck, Finding, Metric, Results,
                             VariantResult)

#: Metric catalogue: id -> (unit, label). Ids are public and never renamed.
METRICS = {
    "wire.link_gbps": ("Gbit/s", "Nominal link rate (all NICs)"),
    "wire.efficiency_pct": ("%", "Wire efficiency (payload / wire bytes)"),
    "wire.goodput_gbps": ("Gbit/s", "Link-bound TCP goodput"),
    "wire.packets_per_s": ("1/s", "Full-size packets per second"),
    "wire.ack_packets_per_s": ("1/s", "Reverse-path ACKs per second"),
    "wire.payload_bytes": ("B", "TCP payload per packet"),
    "wire.frame_bytes": ("B", "Wire bytes per frame"),
    "host.throughput_gbps": ("Gbit/s", "Host: transfer throughput"),
    "host.cpu_pct": ("%", "Host: CPU"),
    "host.busiest_core_pct": ("%", "Host: busiest core"),
    "host.jumbo_gain_pct": ("%", "Host: gain from MTU 9000"),
    "storage.iops": ("1/s", "Storage: IOPS"),
    "storage.latency_ms": ("ms", "Storage: latency"),
    "storage.throughput_mbps": ("MB/s", "Storage: throughput"),
    "storage.oio": ("1", "Storage: outstanding IO"),
    "storage.knee_oio": ("1", "Storage: outstanding IO at the knee"),
    "storage.cpu_pct": ("%", "Storage: host CPU"),
    "storage.jumbo_gain_pct": ("%", "Storage: IOPS gain from MTU 9000"),
}

#: Units and labels of the per-transfer (``transfer.<name>.*``) and
#: per-link (``uplink.<nic>.*``) metrics, by the last part of the id.
METRIC_SUFFIXES = {
    "throughput_gbps": ("Gbit/s", "throughput"),
    "cpu_pct": ("%", "CPU"),
    "busiest_core_pct": ("%", "busiest core"),
    "jumbo_gain_pct": ("%", "gain from MTU 9000"),
    "flows": ("1", "TCP flows"),
    "busy_cores": ("cores", "busy receive cores (RSS/VMQ)"),
    "per_core_ceiling_gbps": ("Gbit/s", "per-core ceiling"),
    "rx_util_pct": ("%", "receive utilization"),
    "tx_util_pct": ("%", "transmit utilization"),
    "converged": ("1", "converged (1 yes, 0 no)"),
    "rounds": ("1", "pre-copy rounds"),
    "rate_gbps": ("Gbit/s", "migration rate"),
    "throttle_pct": ("%", "final guest throttle"),
    "guest_slowdown": ("x", "guest slowdown"),
    "rate_for_downtime_gbps": ("Gbit/s",
                               "rate needed to converge within the budget"),
    "total_s": ("s", "total time"),
    "downtime_s": ("s", "downtime"),
    "bytes_sent_gib": ("GiB", "bytes sent"),
    "all_vms_s": ("s", "all VMs, in batches"),
    "dirty_limit_gbps": ("Gbit/s", "dirtying at which it stops converging"),
    "rate_needed_gbps": ("Gbit/s", "rate needed for the time budget"),
    "nics_needed": ("1", "NICs needed for the time budget"),
    "largest_vm_gib": ("GiB", "largest VM within the time budget"),
    "peak_util_pct": ("%", "peak uplink utilization"),
    "gap_to_optimal_pct": ("%", "peak above the optimal placement"),
    "imbalance_pct": ("%", "busiest uplink above the mean, at the peak"),
    "flows_over_member": ("1", "flows above their uplink's speed"),
    "members_used": ("1", "uplinks carrying traffic at the peak"),
    "n1_peak_util_pct": ("%", "peak utilization after a failure"),
    "lower_bound_pct": ("%", "lower bound on the peak"),
    "demand_gbps": ("Gbit/s", "demand at the peak"),
    "allocated_gbps": ("Gbit/s", "bandwidth allocated at the peak"),
    "iops": ("1/s", "IOPS"),
    "latency_ms": ("ms", "latency"),
    "throughput_mbps": ("MB/s", "throughput"),
    "oio": ("1", "outstanding IO"),
    "knee_oio": ("1", "outstanding IO at the knee"),
}


@functools.lru_cache(maxsize=4096)
def metric_info(metric_id):
    """(unit, label) of a metric id."""
    if metric_id in METRICS:
        return METRICS[metric_id]
    if metric_id.startswith("migration.") and metric_id.count(".") == 1:
        unit, label = METRIC_SUFFIXES[metric_id.split(".")[1]]
        return unit, f"Migration: {label}"
    if metric_id.count(".") < 2:
        unit, label = METRIC_SUFFIXES[metric_id]
        return unit, label
    # family.name.suffix, where the name may itself hold dots
    # (teaming.<team>.<policy>, teaming.nioc.<class>)
    name, suffix = metric_id.split(".", 1)[1].rsplit(".", 1)
    unit, label = METRIC_SUFFIXES[suffix]
    return unit, f"{name}: {label}"

#: Delayed ACK: the receiver acknowledges about every second full-size
#: segment (RFC 1122 section 4.2.3.2; protocol-overheads.md section 6).
SEGMENTS_PER_ACK = 2

#: MTU grid of the goodput-versus-MTU trace [B].
TRACE_MTU_STEP = 8


def evaluate(scenario: Scenario, *, advice=False) -> Results:
    """Evaluate the base scenario and every variant.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario document.
    advice : bool, default False
        Also attach each variant's recommendations (:func:`solvers.advise.
        advise`) as findings with their change and predicted metrics.
        Each re-solves the changed scenarios, so faces ask for it when the
        user does, not on every edit.

    Returns
    -------
    Results
        One :class:`VariantResult` per variant, the base first.
    """
    return evaluate_documents(scenario.variant_documents(),
                              scenario=scenario.meta.name,
                              scenario_sha256=scenario.sha256(),
                              advice=advice)


def _floating_point_errors_refused(function):
    """Run a public entry point with numpy's floating-point errors raised,
    not printed, and report one as a refusal of the scenario: the
    document's limits (models.scenario) are meant to keep every model in
    float64's range, so this names a gap in them instead of printing a
    RuntimeWarning and going on with inf or NaN."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with np.errstate(all="raise"):
            try:
                return function(*args, **kwargs)
            except FloatingPointError as err:
                raise ScenarioError([("", "the models cannot represent this "
                                      f"scenario (numpy: {err}); please "
                                      "report it with the file")]) from err
    return wrapper


@_floating_point_errors_refused
def evaluate_documents(documents, *, scenario, scenario_sha256,
                       advice=False, traces=True, numbers_only=False):
    """:func:`evaluate` on already resolved ``(name, document)`` pairs,
    e.g. the points of a search built without re-validating each one.

    ``traces=False`` leaves out the chart series; ``numbers_only=True``
    returns just one ``{metric id: value}`` dict per document (sweeps:
    units come from :func:`metric_info`), skipping findings, assumptions
    and result objects.
    """
    networks = [doc.network for _, doc in documents]
    mtu = np.array([n.mtu for n in networks])
    ip_version = np.array([n.ip_version for n in networks])
    vlan_tags = np.array([n.vlan_tags for n in networks])
    timestamps = np.array([n.tcp_timestamps for n in networks])
    encap = wire.encapsulation_bytes(
        np.array([n.encapsulation for n in networks]),
        np.array([n.underlay_ip_version for n in networks]),
        geneve_option_bytes=np.array([n.geneve_option_bytes
                                      for n in networks]))
    link = np.array([sum(nic.speed_gbps for nic in doc.nics)
                     for _, doc in documents])
    mtu_min = np.array([n.mtu_min for n in networks])
    mtu_max = np.array([n.mtu_max for n in networks])
    limits = wire.limits_covering(mtu_min, mtu_max)

    payload = wire.payload_bytes(mtu, ip_version, timestamps=timestamps,
                                 mtu_limits=limits)
    frame = wire.wire_bytes(mtu, ip_version, vlan_tags=vlan_tags,
                            encapsulation_bytes=encap, mtu_limits=limits)
    efficiency = payload / frame
    goodput = link * efficiency
    packets = wire.packet_rate(goodput, payload)

    if traces:
        trace_mtu, trace_goodput = _goodput_versus_mtu(
            link, ip_version, timestamps, vlan_tags, encap, limits)
    hosts = host_network.analyse(documents)
    migrations = migration.analyse(documents,
                                   [host["rates"] for host in hosts])
    teams = teaming.analyse(documents)
    stores = storage.analyse(documents, details=not numbers_only)

    variants = []
    for i, (name, doc) in enumerate(documents):
        values = {
            "wire.link_gbps": link[i],
            "wire.efficiency_pct": 100.0 * efficiency[i],
            "wire.goodput_gbps": goodput[i],
            "wire.packets_per_s": packets[i],
            "wire.ack_packets_per_s": packets[i] / SEGMENTS_PER_ACK,
            "wire.payload_bytes": payload[i],
            "wire.frame_bytes": frame[i],
        }
        values.update(hosts[i]["metrics"])
        values.update(migrations[i]["metrics"])
        values.update(teams[i]["metrics"])
        values.update(stores[i]["metrics"])
        if numbers_only:
            variants.append(values)
            continue
        limit = hosts[i]["bottleneck"] or stores[i]["bottleneck"] \
            or teams[i].get("bottleneck")
        bottleneck = Bottleneck(*limit) if limit else Bottleneck(
                "wire.line_rate",
                f"line rate of {_describe_nics(doc.nics)} at "
                f"{100 * efficiency[i]:.2f} % framing efficiency")
        variants.append(VariantResult(
            name=name,
            metrics=tuple(Metric(id, float(v), *metric_info(id))
                          for id, v in values.items()),
            bottleneck=bottleneck,
            findings=_findings(doc.network, int(encap[i]))
            + tuple(hosts[i]["findings"])
            + tuple(migrations[i]["findings"])
            + tuple(teams[i]["findings"]) + tuple(stores[i]["findings"]),
            assumptions=_assumptions(doc.network, int(encap[i]),
                                     bool(hosts[i]["metrics"]))
            + tuple(hosts[i]["assumptions"])
            + tuple(migrations[i]["assumptions"])
            + tuple(teams[i]["assumptions"])
            + tuple(stores[i]["assumptions"]),
            traces={"goodput_vs_mtu": _goodput_trace(
                trace_mtu, trace_goodput[i], doc.network, goodput[i]),
                **migrations[i]["traces"],
                **teams[i]["traces"]} if traces else {},
        ))
    if numbers_only:
        return variants
    if advice:
        variants = [_with_advice(result, doc)
                    for result, (_, doc) in zip(variants, documents)]
    return Results(linkplan_version=__version__, scenario=scenario,
                   scenario_sha256=scenario_sha256,
                   variants=tuple(variants))


def _goodput_trace(trace_mtu, trace_goodput, network, goodput):
    """The trace over the MTUs this variant's network accepts."""
    valid = (trace_mtu >= _minimum_mtu(network)) \
        & (trace_mtu <= network.mtu_max)
    return {"x": {"id": "network.mtu", "unit": "B",
                  "values": trace_mtu[valid].tolist()},
            "y": {"id": "wire.goodput_gbps", "unit": "Gbit/s",
                  "values": trace_goodput[valid].tolist()},
            "marker": {"x": network.mtu, "y": float(goodput)}}


def _minimum_mtu(network):
    if network.ip_version == 6:
        return max(network.mtu_min, wire.IPV6_MIN_MTU)
    return network.mtu_min


def _goodput_versus_mtu(link, ip_version, timestamps, vlan_tags, encap,
                        limits):
    """Goodput over the MTU range ``limits`` for each variant's other
    settings, one (variants x MTU) array; points below IPv6's minimum MTU
    are clamped here, and every point outside a variant's own range is
    left out by the caller."""
    grid = np.arange(limits[0], limits[1] + 1, TRACE_MTU_STEP)
    mtu = np.maximum(grid[None, :],
                     np.where(ip_version == 6, wire.IPV6_MIN_MTU, 0)[:, None])
    goodput = wire.goodput(link[:, None], mtu, ip_version[:, None],
                           timestamps=timestamps[:, None],
                           vlan_tags=vlan_tags[:, None],
                           encapsulation_bytes=encap[:, None],
                           mtu_limits=limits)
    return grid, goodput


def _describe_nics(nics):
    speeds = {}
    for nic in nics:
        speeds[nic.speed_gbps] = speeds.get(nic.speed_gbps, 0) + 1
    return " + ".join(f"{count} × {speed:g} Gbit/s"
                      for speed, count in speeds.items())


def _assumptions(network, encap_bytes, host_modelled):
    # Worded without the variant's own numbers (those are metrics), so that
    # faces can list what all variants share once.
    notes = [
        "Full-size TCP segments: payload = IP MTU - IP header (20 B IPv4, "
        "40 B IPv6) - TCP header 20 B - 12 B timestamps option when on",
        "Ethernet framing counted per frame: preamble+SFD 8, IFG 12, MAC "
        "header 14, FCS 4, and 4 B per 802.1Q tag",
        "wire.* metrics are link-bound; host.* and transfer.* add CPU, RSS, "
        "teaming and per-stream limits" if host_modelled else
        "Link-bound: no transfer is defined, so host CPU, RSS and per-flow "
        "limits are not evaluated",
        "No packet loss (loss costs far more than framing)",
        f"Delayed ACK: one ACK per {SEGMENTS_PER_ACK} segments in the "
        "reverse direction",
    ]
    if encap_bytes:
        notes.append(
            f"{network.encapsulation.upper()} over IPv"
            f"{network.underlay_ip_version}: {encap_bytes} B per packet; the "
            f"underlay MTU must be at least {network.mtu + encap_bytes} B")
    return tuple(notes)


def _findings(network, encap_bytes):
    return _underlay_too_small(network, encap_bytes) + _loss(network)


def _underlay_too_small(network, encap_bytes):
    # An overlay packet is the inner MTU plus the tunnel headers, and the
    # underlay must carry it whole: tunnel endpoints must not fragment it
    # (RFC 7348 section 4.3), so gear limited to mtu_max drops it.
    underlay = network.mtu + encap_bytes
    if not encap_bytes or underlay <= network.mtu_max:
        return ()
    inner = network.mtu_max - encap_bytes
    return (Finding(
        id="wire.underlay_mtu_too_small",
        severity="warning",
        message=(f"{network.encapsulation.upper()} adds {encap_bytes} B: "
                 f"the underlay must carry {underlay} B packets, above "
                 f"network.mtu_max {network.mtu_max} B, so full-size "
                 "packets are dropped (tunnel endpoints do not fragment). "
                 f"Lower the inner MTU to {inner} B or raise the underlay "
                 f"MTU to {underlay} B."),
        evidence={"metric": "network.mtu", "value": underlay,
                  "threshold": network.mtu_max},
    ),)


def _loss(network):
    if network.packet_loss_pct <= 0:
        return ()
    # Validation case V16: 0.02 % loss cut ESXi 7 NFS reads by 35 %.
    return (Finding(
        id="wire.loss_unmodelled",
        severity="warning",
        message=(f"Packet loss of {network.packet_loss_pct:g} % is not "
                 "modelled: goodput assumes no loss. Measured: 0.02 % loss "
                 "cut NFS read throughput by 35 % (ESXi 7, VMware "
                 "performance blog 2020)."),
        evidence={"metric": "network.packet_loss_pct",
                  "value": network.packet_loss_pct, "threshold": 0.0},
    ),)


def _with_advice(result, document):
    # solvers.advise evaluates through this module
    from solvers.advise import advise

    try:
        recommendations = advise(document).recommendations
    except ValueError:   # nothing the scenario measures can be optimised
        return result
    findings = tuple(
        Finding(id=r.id, severity=r.severity, message=r.message,
                evidence=r.evidence, change=r.change,
                predicted=tuple(Metric(metric_id, e["after"], e["unit"],
                                       metric_info(metric_id)[1])
                                for metric_id, e in r.effect.items()))
        for r in recommendations)
    return VariantResult(name=result.name, metrics=result.metrics,
                         bottleneck=result.bottleneck,
                         findings=result.findings + findings,
                         assumptions=result.assumptions,
                         traces=result.traces)
