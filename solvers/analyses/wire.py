"""Wire analysis: framing efficiency, link-bound goodput and packet rates
of every document, the goodput-versus-MTU trace, and the overlay and loss
findings. Its line-rate limit binds when no other analysis names one."""

import numpy as np

from models import chain, transport, wire
from models.units import bytes_per_s_to_gbps
from solvers.analysis import (HIGHER, LOWER, TOPS, Analysis, AnalysisResult,
                              Candidate, ColumnResult, Metric, SweepMark,
                              metric_value)
from solvers.inputs import encapsulation_bytes
from solvers.results import Bottleneck, Finding

ANALYSIS = Analysis(
    name="wire", order=0, bottleneck_priority=9, module=__name__,
    reads=("calibration", "host", "nics", "network", "workloads.transfers"),
    # it reads no document field a column sweep varies
    inputs=("wire",),
    metrics=(
        Metric("link_gbps", "Gbit/s", None,
               "Nominal link rate (all NICs)"),
        Metric("efficiency_pct", "%", None,
               "Wire efficiency (payload / wire bytes)", better=HIGHER),
        Metric("goodput_gbps", "Gbit/s", None, "Link-bound TCP goodput",
               better=HIGHER),
        Metric("packets_per_s", "1/s", None, "Full-size packets per second"),
        Metric("ack_packets_per_s", "1/s", None,
               "Reverse-path ACKs per second"),
        Metric("payload_bytes", "B", None, "TCP payload per packet",
               better=HIGHER),
        Metric("frame_bytes", "B", None, "Wire bytes per frame"),
        Metric("frame_rate_pps", "1/s", None,
               "Line-rate frames per second at network.frame_size_bytes"),
        Metric("udp_payload_gbps", "Gbit/s", None,
               "UDP payload at line rate in frames of "
               "network.frame_size_bytes", better=HIGHER),
        Metric("frames_per_core_pps", "1/s", None,
               "Frames of network.frame_size_bytes one core of the host "
               "preset receives through the kernel stack", better=HIGHER),
        Metric("cores_at_frame_rate", "cores", None,
               "Cores the kernel stack needs for line rate at "
               "network.frame_size_bytes", better=LOWER),
    ),
    headline="goodput_gbps",
    models=("models.wire",), areas=("wire",), views=("wire",),
    sweep_axes=("network.mtu",),
    sweep_marks=(SweepMark("line rate", "link_gbps", TOPS),))

#: Metrics of the packet-rate question, only where it is asked.
QUESTION_METRICS = ("wire.frame_rate_pps", "wire.udp_payload_gbps",
                    "wire.frames_per_core_pps", "wire.cores_at_frame_rate")

#: MTU grid of the goodput-versus-MTU trace [B].
TRACE_MTU_STEP = 8


def analyse_columns(inputs, upstream):
    """Wire metrics of the points of a :class:`solvers.columns.TiledInputs`,
    as columns (see :mod:`solvers.analysis`)."""
    return ColumnResult(_metric_columns(inputs.wire)[0])


def _metric_columns(w):
    """Metric id -> array over the documents (the packet-rate question's
    metrics NaN where it is not asked), and the framing efficiency and
    goodput."""
    payload = wire.payload_bytes(w.mtu, w.ip_version, timestamps=w.timestamps,
                                 mtu_limits=w.limits)
    frame = wire.wire_bytes(w.mtu, w.ip_version, vlan_tags=w.vlan_tags,
                            encapsulation_bytes=w.encap, mtu_limits=w.limits)
    framing = {"ip_version": w.ip_version, "timestamps": w.timestamps,
               "vlan_tags": w.vlan_tags, "encapsulation_bytes": w.encap,
               "mtu_limits": w.limits}
    efficiency = wire.efficiency(w.mtu, **framing)
    goodput = wire.goodput(w.link_gbps, w.mtu, **framing)
    packets = wire.packet_rate(goodput, payload)
    metrics = {
        "wire.link_gbps": w.link_gbps,
        "wire.efficiency_pct": 100.0 * efficiency,
        "wire.goodput_gbps": goodput,
        "wire.packets_per_s": packets,
        "wire.ack_packets_per_s": packets / wire.SEGMENTS_PER_ACK,
        "wire.payload_bytes": payload.astype(float),
        "wire.frame_bytes": frame.astype(float),
    }
    asked = ~np.isnan(w.frame_size)
    if asked.any():   # the packet-rate question at a given frame size
        frames = np.full(w.mtu.shape, np.nan)
        frames[asked] = wire.frame_rate(w.link_gbps[asked],
                                        w.frame_size[asked])
        datagram = wire.udp_payload_bytes(np.nan_to_num(w.frame_size),
                                          w.ip_version, vlan_tags=w.vlan_tags)
        udp = bytes_per_s_to_gbps(frames * datagram)
        # what one core of a kernel receiver takes of these frames
        per_core = chain.datagram_frames_per_core(datagram, w.ghz, w.c_wire,
                                                  w.c_byte_rx)
        metrics["wire.frame_rate_pps"] = frames
        metrics["wire.udp_payload_gbps"] = np.where(asked, udp, np.nan)
        metrics["wire.frames_per_core_pps"] = np.where(asked, per_core,
                                                       np.nan)
        metrics["wire.cores_at_frame_rate"] = frames / per_core
    return metrics, efficiency, goodput


def analyse(inputs, upstream, *, details=True):
    """Wire metrics of every document (see :mod:`solvers.analysis`)."""
    w = inputs.wire
    columns, efficiency, goodput = _metric_columns(w)
    asked = ~np.isnan(w.frame_size)
    if details:
        trace_mtu, trace_goodput = _goodput_versus_mtu(w)
    results = []
    for i, doc in enumerate(inputs.documents):
        metrics = {k: v[i] for k, v in columns.items()
                   if asked[i] or k not in QUESTION_METRICS}
        if not details:
            results.append(AnalysisResult(metrics=metrics))
            continue
        encap = int(w.encap[i])
        results.append(AnalysisResult(
            metrics=metrics,
            findings=_underlay_too_small(doc.network, encap)
            + _loss(doc.network),
            assumptions=_assumptions(doc, encap),
            traces={"goodput_vs_mtu": _goodput_trace(
                trace_mtu, trace_goodput[i], doc.network, goodput[i])},
            bottleneck=Bottleneck(
                "wire.line_rate",
                f"line rate of {_describe_nics(doc.nics)} at "
                f"{100 * efficiency[i]:.2f} % framing efficiency")))
    return results


def candidates(doc, goal, base):
    """Jumbo frames: as large an MTU as the network accepts
    (``network.mtu_max``), with room for the overlay's headers on the
    underlay."""
    net = doc.network
    jumbo = min(wire.JUMBO_MTU, net.mtu_max - encapsulation_bytes(net))
    if net.mtu < jumbo:
        metric = "storage.jumbo_gain_pct" if doc.workloads.storage \
            else "host.jumbo_gain_pct"
        yield Candidate(
            "advice.network.jumbo_frames", "info", f"MTU {net.mtu}",
            {"metric": metric, "value": metric_value(base, metric) or 0.0,
             "threshold": 0.0},
            {"network.mtu": jumbo})


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


def _goodput_versus_mtu(w):
    """Goodput over the MTU range ``w.limits`` for each variant's other
    settings, one (variants x MTU) array; points below IPv6's minimum MTU
    are clamped here, and every point outside a variant's own range is
    left out by the caller."""
    grid = np.arange(w.limits[0], w.limits[1] + 1, TRACE_MTU_STEP)
    mtu = np.maximum(grid[None, :], np.where(w.ip_version == 6,
                                             wire.IPV6_MIN_MTU, 0)[:, None])
    goodput = wire.goodput(w.link_gbps[:, None], mtu, w.ip_version[:, None],
                           timestamps=w.timestamps[:, None],
                           vlan_tags=w.vlan_tags[:, None],
                           encapsulation_bytes=w.encap[:, None],
                           mtu_limits=w.limits)
    return grid, goodput


def _describe_nics(nics):
    speeds = {}
    for nic in nics:
        speeds[nic.speed_gbps] = speeds.get(nic.speed_gbps, 0) + 1
    return " + ".join(f"{count} × {speed:g} Gbit/s"
                      for speed, count in speeds.items())


def _assumptions(doc, encap_bytes):
    # Worded without the variant's own numbers (those are metrics), so that
    # faces can list what all variants share once.
    network = doc.network
    notes = [
        "Full-size TCP segments: payload = IP MTU - IP header (20 B IPv4, "
        "40 B IPv6) - TCP header 20 B - 12 B timestamps option when on",
        "Ethernet framing counted per frame: preamble+SFD 8, IFG 12, MAC "
        "header 14, FCS 4, and 4 B per 802.1Q tag",
        "wire.* metrics are link-bound; host.* and transfer.* add CPU, RSS, "
        "teaming and per-stream limits" if doc.workloads.transfers else
        "Link-bound: no transfer is defined, so host CPU, RSS and per-flow "
        "limits are not evaluated",
        "No packet loss (loss costs far more than framing)",
        f"Delayed ACK: one ACK per {wire.SEGMENTS_PER_ACK} segments in the "
        "reverse direction",
    ]
    if network.frame_size_bytes is not None:
        notes.append(
            "Frames per core at network.frame_size_bytes: each frame costs "
            "a kernel receiver one UDP system call and stack pass "
            f"({transport.UDP_DATAGRAM_CYCLES:,.0f} cycles), the host "
            "preset's per-frame driver cost and its copy; no GRO")
    if encap_bytes:
        notes.append(
            f"{network.encapsulation.upper()} over IPv"
            f"{network.underlay_ip_version}: {encap_bytes} B per packet; the "
            f"underlay MTU must be at least {network.mtu + encap_bytes} B")
    return tuple(notes)


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
