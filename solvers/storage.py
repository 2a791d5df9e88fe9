"""Storage workloads of each scenario: IOPS, latency and MB/s at the
benchmark's outstanding IO, the ceiling that binds (back end, network or
CPU), CPU cost, and the gain MTU 9000 would bring.

All workloads of all variants are gathered into arrays and evaluated in one
pass, at the scenario's MTU and at 9000 together (the jumbo gain).
"""

import numpy as np

from models import host, storage, wire
from solvers.results import Finding

#: Outstanding IO below this share of the knee N* is "too low" for an IOPS
#: or throughput goal (storage-io.md section 7; the app's own rule, not
#: VMware's).
OIO_LOW_SHARE = 1.0

#: Outstanding IO above this multiple of the knee only adds latency.
OIO_HIGH_MULTIPLE = 4.0

#: Largest TSO/LRO aggregate: one stack traversal per this many bytes of a
#: message [B] (protocol-overheads.md section 8.2, TSO_max).
AGGREGATE_BYTES = 65536

#: Unloaded service time of an array without devices or a published
#: service time [s] [Model default: a cached all-flash write].
DEFAULT_SERVICE_S = 0.5e-3


def analyse(documents, *, details=True):
    """Storage results of each scenario document; ``details=False`` gives
    the metrics only (sweeps and searches), without the bottleneck text,
    findings and assumptions.

    Returns
    -------
    list of dict
        Per document: ``metrics``, ``findings``, ``assumptions`` and
        ``bottleneck`` (or None).
    """
    rows = [(d, doc, item) for d, (_, doc) in enumerate(documents)
            for item in doc.workloads.storage]
    out = [{"metrics": {}, "findings": [], "assumptions": [],
            "bottleneck": None} for _ in documents]
    if not rows:
        return out
    result = evaluate_rows([inputs(doc, item) for _, doc, item in rows])
    first = set()
    for i, (d, doc, item) in enumerate(rows):
        metrics = {
            "iops": result["iops"][i, 0],
            "latency_ms": 1e3 * result["latency_s"][i, 0],
            "throughput_mbps": result["mbps"][i, 0],
            "oio": result["oio"][i],
            "knee_oio": result["knee"][i, 0],
            "cpu_pct": result["cpu_pct"][i, 0],
            "jumbo_gain_pct": 100 * (result["iops"][i, 1]
                                     / result["iops"][i, 0] - 1),
        }
        target = out[d]["metrics"]
        if d not in first:   # the first workload is the headline
            first.add(d)
            target.update({f"storage.{k}": v for k, v in metrics.items()})
            limit = storage.LIMITS[result["limit"][i, 0]]
            out[d]["bottleneck"] = (
                f"storage.{limit}", _describe_limit(limit, item, result, i)
                if details else "")
        target.update({f"storage.{item.name}.{k}": v
                       for k, v in metrics.items()})
        if not details:
            continue
        goal = doc.goal.kind if doc.goal else None
        out[d]["findings"].extend(_findings(item, result, i, goal))
        out[d]["assumptions"].extend(_assumptions(doc, item))
    return out


def inputs(doc, item):
    """Model inputs of one storage workload as a row (see
    :func:`evaluate_rows`); without ``nics`` it uses the first NIC."""
    used = [n for n in doc.nics if n.id in item.nics] or [doc.nics[0]]
    backend = item.backend
    service = backend.service_time_ms / 1e3 if backend.service_time_ms \
        else (1.0 / backend.device_iops if backend.devices
              else DEFAULT_SERVICE_S)
    preset = host.STACK_PRESETS[doc.host.stack or
                                host.DEFAULT_STACK[doc.host.hypervisor]]
    rdma = all(n.rdma != "none" for n in used) and item.protocol == "smb3"
    net = doc.network
    return {
        "protocol": item.protocol, "block": item.block_kib * 1024,
        "read": item.read_pct / 100, "random": item.random_pct / 100,
        "vms": item.vms, "disks_per_vm": item.disks_per_vm,
        "threads_per_disk": item.threads_per_disk,
        "link_gbps": sum(n.speed_gbps for n in used), "paths": len(used),
        "mtu": net.mtu, "mtu_min": net.mtu_min, "mtu_max": net.mtu_max,
        "ip_version": net.ip_version,
        "timestamps": net.tcp_timestamps, "vlan_tags": net.vlan_tags,
        "iops_max": backend.iops_max or np.inf,
        "mbps_max": backend.mbps_max or np.inf,
        "devices": backend.devices or 0, "device_iops": backend.device_iops,
        "device_mbps": backend.device_mbps,
        "penalty": storage.WRITE_PENALTY[backend.raid],
        "service_s": service, "encrypted": item.smb_encryption,
        "rdma": rdma,
        "c_io": preset.c_io * storage.PROTOCOL_CPU_FACTOR[item.protocol],
        "c_byte": preset.c_byte_rx, "c_pkt": preset.c_pkt,
        "c_wire": preset.c_wire,
        "hz": doc.host.ghz * 1e9,
        "cores": doc.host.sockets * doc.host.cores_per_socket,
    }


def evaluate_rows(rows):
    """The storage chain over a list of input rows, each at its own MTU and
    at 9000 (column 1), as arrays of shape (rows, 2)."""
    col = {key: np.array([r[key] for r in rows]) for key in rows[0]}
    col["oio"] = storage.total_oio(col["vms"], col["disks_per_vm"],
                                   col["threads_per_disk"])
    mtu = np.stack([col["mtu"], np.full(len(rows), wire.JUMBO_MTU)], axis=1)
    limits = wire.limits_covering(col["mtu_min"], col["mtu_max"])
    ip_version = col["ip_version"][:, None]
    payload = wire.payload_bytes(mtu, ip_version,
                                 timestamps=col["timestamps"][:, None],
                                 mtu_limits=limits)
    frame = wire.wire_bytes(mtu, ip_version,
                            vlan_tags=col["vlan_tags"][:, None],
                            mtu_limits=limits)
    overhead = frame - payload
    read = col["read"][:, None]
    directions = []
    for is_read in (True, False):
        to_bytes, from_bytes = storage.io_message_bytes(
            col["protocol"][:, None], col["block"][:, None], is_read,
            encrypted=col["encrypted"][:, None])
        to_wire, to_acks = storage.io_wire_bytes(to_bytes, payload, overhead)
        from_wire, from_acks = storage.io_wire_bytes(from_bytes, payload,
                                                     overhead)
        # every frame costs the driver path; TSO/LRO turn each message
        # into one stack traversal per 64 KiB (protocol-overheads.md 8.2)
        messages = [np.maximum(b, 1) for b in (to_bytes, from_bytes)]
        directions.append((
            to_wire + from_acks, from_wire + to_acks,
            sum(np.ceil(m / payload) for m in messages),
            sum(np.ceil(m / AGGREGATE_BYTES) for m in messages)))
    (r_to, r_from, r_frames, r_passes), (w_to, w_from, w_frames,
                                         w_passes) = directions
    to_target = read * r_to + (1 - read) * w_to
    from_target = read * r_from + (1 - read) * w_from
    frames = read * r_frames + (1 - read) * w_frames
    passes = read * r_passes + (1 - read) * w_passes
    local = col["protocol"] == "local"
    link_bytes = col["link_gbps"][:, None] * 1e9 / 8
    with np.errstate(divide="ignore"):
        network = np.where(local[:, None], np.inf,
                           link_bytes / np.maximum(to_target, from_target))
    backend = storage.backend_iops(
        col["block"], col["read"], col["random"], iops_max=col["iops_max"],
        mbps_max=col["mbps_max"], devices=col["devices"],
        device_iops=col["device_iops"], device_mbps=col["device_mbps"],
        write_penalty=col["penalty"])[:, None]
    # host CPU per IO: the per-IO cost, plus per-byte and per-frame costs
    # unless RDMA moves the data; each path is one session on one core
    cycles = col["c_io"][:, None] + np.where(
        (col["rdma"] | local)[:, None], 0.0,
        col["block"][:, None] * col["c_byte"][:, None]
        + frames * col["c_wire"][:, None] + passes * col["c_pkt"][:, None])
    cpu = col["paths"][:, None] * col["hz"][:, None] / cycles
    ceiling, limit = storage.iops_ceiling(backend, network, cpu)
    serialisation = np.where(local[:, None], 0.0,
                             (to_target + from_target) / link_bytes
                             + storage.NETWORK_ROUND_TRIP_S)
    unloaded = np.maximum(col["service_s"][:, None] + serialisation,
                          1.0 / ceiling)
    iops = storage.closed_queue_iops(col["oio"][:, None], ceiling, unloaded)
    return {"iops": iops, "latency_s": col["oio"][:, None] / iops,
            "mbps": iops * col["block"][:, None] / 1e6,
            "oio": col["oio"], "knee": unloaded * ceiling,
            "limit": limit, "ceiling": ceiling,
            "cpu_pct": 100 * iops * cycles
            / (col["cores"][:, None] * col["hz"][:, None])}


def _describe_limit(limit, item, result, i):
    ceiling = result["ceiling"][i, 0]
    text = {"backend": "the storage back end",
            "network": "the network path",
            "cpu": "one core per session"}[limit]
    return (f"{item.name}: {text} caps IOPS at {ceiling:,.0f}/s; "
            f"{result['oio'][i]:g} outstanding IO against a knee of "
            f"{result['knee'][i, 0]:.1f}")


def _findings(item, result, i, goal):
    """The outstanding-IO rules of storage-io.md section 7: too low for an
    IOPS or throughput goal (the default), far past the knee for a latency
    goal."""
    oio, knee = float(result["oio"][i]), float(result["knee"][i, 0])
    found = []
    if goal != "latency_target" and oio < OIO_LOW_SHARE * knee:
        found.append(Finding(
            id="storage.oio_too_low", severity="warning",
            message=(f"{item.name}: the outstanding IO ({oio:g} = "
                     f"{item.vms} VM × {item.disks_per_vm} disks × "
                     f"{item.threads_per_disk} threads) is too low to reach "
                     f"the back end's IOPS; the knee is at {knee:.1f}"),
            evidence={"metric": f"storage.{item.name}.oio", "value": oio,
                      "threshold": OIO_LOW_SHARE * knee}))
    elif goal == "latency_target" and oio > OIO_HIGH_MULTIPLE * knee:
        found.append(Finding(
            id="storage.oio_past_knee", severity="info",
            message=(f"{item.name}: {oio:g} outstanding IO is far past the "
                     f"knee ({knee:.1f}); more only adds latency"),
            evidence={"metric": f"storage.{item.name}.oio", "value": oio,
                      "threshold": OIO_HIGH_MULTIPLE * knee}))
    return found


def _assumptions(doc, item):
    notes = [
        "Storage IOPS: closed-queue (machine-repairman) curve below the "
        "lowest of the back-end, network and CPU ceilings; latency by "
        "Little's law",
        "Each IO message starts a new TCP segment (low outstanding IO, "
        "conservative); one session per path, on one core",
    ]
    if item.protocol == "nfs3":
        notes.append(f"NFSv3 with AUTH_SYS ({storage.NFS_AUTH_SYS_BODY} B "
                     f"credential) and {storage.NFS_FILE_HANDLE} B file "
                     "handles")
    if item.protocol == "vsan":
        notes.append("vSAN's wire protocol is not published: framed like "
                     "iSCSI")
    if item.backend.devices and not item.backend.service_time_ms:
        notes.append("Device service time: one random IO on a device, "
                     f"{1e3 / item.backend.device_iops:.1f} ms")
    return notes
