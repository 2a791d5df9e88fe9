"""Storage workloads of each scenario: IOPS, latency and MB/s at the
benchmark's outstanding IO, the ceiling that binds (back end, network or
CPU), CPU cost, and the gain MTU 9000 would bring.

All workloads of all variants are gathered into arrays and evaluated in one
pass, at the scenario's MTU and at 9000 together (the jumbo gain).
"""

import numpy as np

from models import storage, wire
from solvers import metric_grammar as metric_ids
from solvers.analysis import (EMPTY, HIGHER, LOWER, REACHES, SUMMED, VERDICT,
                              Analysis, Candidate, ColumnResult, Goal, Items,
                              Metric, ResultBuilder, SweepMark,
                              defaulted_binding, metric_value)
from solvers.inputs import mtu_limits
from solvers.results import Bottleneck, Finding

ANALYSIS = Analysis(
    name="storage", order=4, bottleneck_priority=1, module=__name__,
    reads=("calibration", "goal", "host", "nics", "network",
           "workloads.storage"),
    # it reads no document field a column sweep varies
    inputs=("storage",),
    metrics=(
        Metric("iops", "1/s", "IOPS", "Storage: IOPS, all workloads",
               better=HIGHER),
        Metric("latency_ms", "ms", "latency",
               "Storage: latency, worst workload", better=LOWER),
        Metric("throughput_mbps", "MB/s", "throughput",
               "Storage: throughput, all workloads", better=HIGHER),
        Metric("oio", "1", "outstanding IO", "Storage: outstanding IO"),
        Metric("knee_oio", "1", "outstanding IO at the knee",
               "Storage: outstanding IO at the knee", kind=VERDICT),
        Metric("cpu_pct", "%", "CPU", "Storage: host CPU, all workloads",
               better=LOWER),
        Metric("iops_per_cpu_pct", "1/s", "IOPS per % host CPU",
               "Storage: IOPS per % host CPU", better=HIGHER),
        Metric("jumbo_gain_pct", "%", "gain from MTU 9000",
               "Storage: IOPS gain from MTU 9000"),
    ),
    headline="iops",
    # with one workload the headline is its; with several it sums them,
    # the latency their worst
    items=(Items("storage", SUMMED),),
    models=("models.storage",), areas=("storage",),
    goals=(
        Goal("max_iops", "storage.iops", "max",
             lambda doc: bool(doc.workloads.storage),
             context=("storage.iops", "storage.latency_ms",
                      "storage.cpu_pct"), rank=0),
        Goal("latency_target", "storage.latency_ms", "min",
             lambda doc: bool(doc.workloads.storage),
             context=("storage.latency_ms", "storage.iops")),
    ),
    views=("storage",),
    sweep_axes=("workloads.storage[0].threads_per_disk",
                "workloads.storage[0].vms"),
    sweep_marks=(SweepMark("OIO knee", "oio", REACHES,
                           reaches="knee_oio"),))

#: Outstanding IO below this share of the knee N* is "too low" for an IOPS
#: or throughput goal (storage-io.md section 7; the app's own rule, not
#: VMware's).
OIO_LOW_SHARE = 1.0

#: Outstanding IO above this multiple of the knee only adds latency.
OIO_HIGH_MULTIPLE = 4.0


def analyse(inputs, upstream, *, details=True):
    """Storage metrics of every document (see :mod:`solvers.analysis`)."""
    rows = inputs.storage
    if not rows.owners:
        return [EMPTY] * len(inputs.documents)
    out = ResultBuilder.each(inputs.documents)
    limits = [[] for _ in inputs.documents]   # (limit, workload, words)
    result = evaluate_rows(rows.columns)
    names = {}   # metric ids of each workload name, built once
    owned = [[] for _ in inputs.documents]
    for i, (d, item) in enumerate(rows.owners):
        if item.name not in names:
            names[item.name] = _ids(item.name)
        owned[d].append(i)
        _collect(inputs.documents[d], item, result, i, out[d], limits[d],
                 details, names[item.name])
    headline = tuple(metric_ids.headline("storage", k) for k in KEYS)
    for o, own, found in zip(out, owned, limits):
        if found:
            o.metrics = {**dict(zip(headline, _headline(result, own))),
                         **o.metrics}
            o.bottleneck = _verdict(found, details)
    return [o.result() for o in out]


#: Metrics of each workload, in output order.
KEYS = ("iops", "latency_ms", "throughput_mbps", "oio", "knee_oio",
        "cpu_pct", "iops_per_cpu_pct", "jumbo_gain_pct")


def _ids(name):
    """(headline ids, the workload's ids) in :data:`KEYS` order."""
    return (tuple(metric_ids.headline("storage", k) for k in KEYS),
            tuple(metric_ids.storage(name, k) for k in KEYS))


def analyse_columns(inputs, upstream):
    """Storage metrics of the points of a
    :class:`solvers.columns.TiledInputs`, as columns (see
    :mod:`solvers.analysis`)."""
    rows = inputs.storage
    if not rows.owners:
        return ColumnResult()
    count = inputs.count
    result = evaluate_rows(rows.columns)
    owners = inputs.template.storage.owners
    metrics = dict(zip(_ids(owners[0][1].name)[0], _headline(
        result, [slice(j * count, (j + 1) * count)
                 for j in range(len(owners))])))
    for j, (_, item) in enumerate(owners):
        values = _values(result, slice(j * count, (j + 1) * count))
        metrics.update(zip(_ids(item.name)[1], values))
    return ColumnResult(metrics)


def _headline(result, rows):
    """The storage headline over every workload of a document (``rows``:
    one row index or slice per workload), in :data:`KEYS` order: IOPS,
    MB/s, outstanding IO, knees and CPU add up (each workload evaluated
    alone, as its benchmark runs); the latency is the worst; IOPS per
    CPU and the jumbo gain are those of the sums. One workload: its own
    values."""
    if len(rows) == 1:
        return _values(result, rows[0])

    def total(key, column=0):
        return sum(result[key][r, column] for r in rows)

    iops, cpu = total("iops"), total("cpu_pct")
    return (iops, 1e3 * np.maximum.reduce([result["latency_s"][r, 0]
                                          for r in rows]),
            total("mbps"), sum(result["oio"][r] for r in rows),
            total("knee"), cpu, iops / cpu,
            100 * (total("iops", 1) / iops - 1))


def _values(result, i):
    """Metrics of row ``i`` (an index or a slice of rows) in
    :data:`KEYS` order."""
    return (result["iops"][i, 0], 1e3 * result["latency_s"][i, 0],
            result["mbps"][i, 0], result["oio"][i], result["knee"][i, 0],
            result["cpu_pct"][i, 0], result["iops_per_cpu_pct"][i, 0],
            100 * (result["iops"][i, 1] / result["iops"][i, 0] - 1))


def _collect(doc, item, result, i, out, limits, details, ids):
    values = _values(result, i)
    own = ids[1]
    goal = doc.goal.kind if doc.goal else None
    limit = storage.LIMITS[result["limit"][i, 0]]
    if goal != "latency_target" and \
            result["oio"][i] < OIO_LOW_SHARE * result["knee"][i, 0]:
        # below the knee the workload does not ask for what the ceiling
        # allows: its own concurrency binds (as its finding says)
        limit = "oio"
    limits.append((limit, item.name, _describe_limit(
        limit, item, result, i) if details else ""))
    out.metrics.update(zip(own, values))
    if details:
        out.findings.extend(_findings(item, result, i, goal))
        defaulted = defaulted_binding(
            doc, limits[-1][2], _deciding_inputs(doc, item, limit),
            finding_id="storage.defaulted_input_binds")
        if defaulted is not None:
            out.findings.append(defaulted)
        out.assumptions.extend(_assumptions(item))


def _deciding_inputs(doc, item, limit):
    """Parameter paths that decide a workload's binding ``limit``, each
    with the source of its default."""
    index = next(i for i, w in enumerate(doc.workloads.storage)
                 if w is item)
    prefix = f"workloads.storage[{index}]"
    if limit == "oio":
        return {f"{prefix}.{name}": "1 by default; outstanding IO is VMs "
                "x disks x threads (HCIBench and Vdbench set threads per "
                "disk, fio iodepth)"
                for name in ("vms", "disks_per_vm", "threads_per_disk")}
    if limit == "cpu":
        inputs = {"host.ghz": "2.6 GHz, the schema's default clock; the "
                  "per-IO CPU time scales with it"}
        if item.protocol not in storage.EVERY_CORE_PROTOCOLS:
            inputs[f"{prefix}.sessions_per_path"] = (
                "one iSCSI session or NFS connection per path by default, "
                "one core each (SMB 3: 4 per RSS NIC, Microsoft 'SMB "
                "Multichannel')")
        return inputs
    return {}


def evaluate_rows(col):
    """The storage chain over columns of :func:`solvers.inputs.
    storage_columns`, each row at its own MTU and at 9000 (column 1), as
    arrays of shape (rows, 2)."""
    oio = storage.total_oio(col["vms"], col["disks_per_vm"],
                            col["threads_per_disk"])
    mtu = np.stack([col["mtu"], np.full(oio.size, wire.JUMBO_MTU)], axis=1)
    backend = storage.backend_iops(
        col["block"], col["read"], col["random"], iops_max=col["iops_max"],
        mbps_max=col["mbps_max"], devices=col["devices"],
        device_iops=col["device_iops"], device_mbps=col["device_mbps"],
        write_penalty=col["penalty"])

    def column(key):
        return col[key][:, None]

    result = storage.storage_chain(
        column("protocol"), column("block"), column("read"), oio[:, None],
        backend[:, None], column("service_s"), column("link_bytes"),
        column("serving_cores"), mtu, column("ip_version"), column("hz"),
        column("cores"), device_servers=column("device_servers"),
        placed_fraction=column("placed"),
        timestamps=column("timestamps"),
        vlan_tags=column("vlan_tags"), encapsulation_bytes=column("encap"),
        encrypted=column("encrypted"), rdma=column("rdma"),
        c_io=column("c_io"), c_byte=column("c_byte"),
        c_pkt=column("c_pkt"), c_wire=column("c_wire"),
        mtu_limits=mtu_limits(col))
    result["oio"] = oio
    result["serving_cores"] = col["serving_cores"]
    return result


def _verdict(limits, details):
    """The binding limit of a document's storage, named per workload: the
    first workload's kind of limit, the words of every workload's."""
    limit, _, message = limits[0]
    if details and len(limits) > 1:
        kinds = {kind for kind, _, _ in limits}
        head = (f"the same kind of limit ({limit}) binds all "
                f"{len(limits)} workloads" if len(kinds) == 1 else
                f"{len(limits)} workloads, bound by "
                + ", ".join(sorted(kinds)))
        message = head + ": " + "; ".join(text for _, _, text in limits)
    return Bottleneck(f"storage.{limit}", message)


def _describe_limit(limit, item, result, i):
    ceiling = result["ceiling"][i, 0]
    if limit == "oio":
        return (f"{item.name}: the outstanding IO ({result['oio'][i]:g}) "
                f"is below the knee of {result['knee'][i, 0]:.1f}: "
                f"{result['iops'][i, 0]:,.0f} IOPS of the "
                f"{ceiling:,.0f}/s the path allows")
    every_core = item.sessions_per_path is None \
        and item.protocol in storage.EVERY_CORE_PROTOCOLS
    text = {"backend": "the storage back end",
            "network": "the network path",
            "cpu": f"{result['serving_cores'][i]:g} core(s), "
                   + ("every core serving IO" if every_core
                      else "one per session")}[limit]
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
            evidence={"metric": metric_ids.storage(item.name, "oio"),
                      "value": oio,
                      "threshold": OIO_LOW_SHARE * knee}))
    elif goal == "latency_target" and oio > OIO_HIGH_MULTIPLE * knee:
        found.append(Finding(
            id="storage.oio_past_knee", severity="info",
            message=(f"{item.name}: {oio:g} outstanding IO is far past the "
                     f"knee ({knee:.1f}); more only adds latency"),
            evidence={"metric": metric_ids.storage(item.name, "oio"),
                      "value": oio,
                      "threshold": OIO_HIGH_MULTIPLE * knee}))
    return found


def _assumptions(item):
    notes = [
        "Storage IOPS: closed-queue (machine-repairman) curve below the "
        "lowest of the back-end, network and CPU ceilings; latency by "
        "Little's law",
        "Each IO message starts a new TCP segment (low outstanding IO, "
        "conservative); each connection (iSCSI session, NFS or SMB "
        "connection) is served by one core; local IO, NVMe-oF, S2D and vSAN "
        "by every core",
        "The transport's per-IO work is on the IO's path at both ends: "
        f"TCP adds a {1e6 * storage.NETWORK_ROUND_TRIP_S:g} us round trip "
        "and its stack time to the latency, RDMA a "
        f"{1e6 * storage.RDMA_ROUND_TRIP_S:g} us round trip and two "
        f"{storage.RDMA_MESSAGE_CYCLES:,.0f}-cycle messages",
    ]
    if item.backend.kind == "nvme":
        notes.append("NVMe device: channels (dies) each serving one IO in "
                     "the service time, up to the rating; a random read "
                     "waits for the die that holds its data (random "
                     "placement: latency rises from QD1 on), writes and "
                     "sequential reads take any free die")
    elif item.backend.kind == "cloud_volume":
        notes.append("Cloud volume: every IO in flight served in the "
                     "volume's latency (Little's law) up to the documented "
                     "IOPS and throughput caps")
    if item.protocol == "local":
        notes.append(f"Local IO: the one-IO latency includes "
                     f"{1e6 * storage.HOST_WAKEUP_S:g} us of the idle host "
                     "waking for the completion (at most half of it), paid "
                     "only while one IO is in flight")
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
    elif item.backend.kind == "array" and not item.backend.service_time_ms:
        notes.append("Array service time assumed: "
                     f"{1e3 * storage.DEFAULT_SERVICE_S:g} ms per IO (a "
                     "write acknowledged from an all-flash cache; no "
                     "published figure), give backend.service_time_ms")
    return notes


#: Connections per path proposed where one core per session may bind:
#: iSCSI multiple sessions per target portal, NFS ``nconnect`` (Linux
#: 5.3+, up to 16; vSphere 8.0 U1 NFS 3 up to 4), SMB's 4 per RSS NIC.
PROPOSED_SESSIONS = 4


def candidates(doc, goal, base):
    """Outstanding IO: more threads up to the knee for an IOPS goal, fewer
    back to it for a latency target; more sessions per path where each
    session is one core's work."""
    for i, item in enumerate(doc.workloads.storage):
        prefix = f"workloads.storage[{i}]"
        if goal == "max_iops" and item.protocol not in \
                storage.EVERY_CORE_PROTOCOLS and item.protocol != "local" \
                and (item.sessions_per_path or 1) < PROPOSED_SESSIONS:
            cpu_id = metric_ids.storage(item.name, "cpu_pct")
            yield Candidate(
                "advice.storage.sessions_per_path", "info",
                f"{item.name}: {item.sessions_per_path or 1} session(s) "
                "per path, one core each",
                {"metric": cpu_id, "value": metric_value(base, cpu_id),
                 "threshold": None},
                {f"{prefix}.sessions_per_path": PROPOSED_SESSIONS})
        oio_id = metric_ids.storage(item.name, "oio")
        oio = metric_value(base, oio_id)
        knee = metric_value(base, metric_ids.storage(item.name, "knee_oio"))
        per_thread = item.vms * item.disks_per_vm
        if goal == "max_iops" and oio < OIO_LOW_SHARE * knee:
            threads = int(np.ceil(knee / per_thread))
            yield Candidate(
                "advice.storage.threads_per_disk", "warning",
                f"outstanding IO {oio:g} is below the knee {knee:.1f}",
                {"metric": oio_id, "value": oio,
                 "threshold": OIO_LOW_SHARE * knee},
                {f"{prefix}.threads_per_disk": threads})
        target = doc.goal.latency_target_ms if doc.goal else None
        latency_id = metric_ids.storage(item.name, "latency_ms")
        latency = metric_value(base, latency_id)
        over_target = target is not None and latency > target
        if goal == "latency_target" and item.threads_per_disk > 1 and (
                oio > OIO_HIGH_MULTIPLE * knee or over_target):
            # back to the knee: past it, outstanding IO only queues
            threads = max(1, int(np.ceil(knee / per_thread)))
            yield Candidate(
                "advice.storage.fewer_threads",
                "warning" if over_target else "info",
                f"latency {latency:.3g} ms "
                + (f"is above the target {target:g} ms" if over_target
                   else f"with outstanding IO {oio:g} far past the knee "
                   f"{knee:.1f}"),
                {"metric": latency_id, "value": latency,
                 "threshold": target}
                if over_target else
                {"metric": oio_id, "value": oio,
                 "threshold": OIO_HIGH_MULTIPLE * knee},
                {f"{prefix}.threads_per_disk": threads})

