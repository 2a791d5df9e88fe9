"""Host-network analysis of bulk transfers: which links and queues a
transfer uses, what it reaches, at what CPU, and what binds it.

Every transfer of every document (and the carrier of every migration that
names none) runs through the transport chain in one vectorised call, the
documents' own transfers also at 9000 B for the jumbo-frame gain. The
rates are provided to the migration analysis.
"""

import numpy as np

from models import chain, cpu, host, pcie, platform, transport, wire
from models.units import gbps_to_bytes_per_s
from solvers import metric_grammar as metric_ids
from solvers.analysis import (COUNT, EMPTY, CarriedRate, FIRST, HIGHER, LOWER, VERDICT,
                              Analysis, Candidate, ColumnResult, Goal, Items,
                              Metric, ResultBuilder, defaulted_binding,
                              metric_value)
from solvers.inputs import (RDMA_TRANSPORTS, application_streams,
                            auto_streams, compression_note, stack_ghz,
                            stack_preset)
from solvers.results import Bottleneck, Finding

ANALYSIS = Analysis(
    name="host", order=1, bottleneck_priority=0, module=__name__,
    reads=("calibration", "host", "nics", "teams", "network",
           "workloads.transfers", "workloads.migrations",
           "workloads.evacuations"),
    # it reads no document field a column sweep varies
    inputs=("transfers",),
    metrics=(
        Metric("throughput_gbps", "Gbit/s", "throughput",
               "Host: transfer throughput", better=HIGHER),
        Metric("cpu_pct", "%", "CPU", "Host: CPU", better=LOWER),
        Metric("cpu_pct_per_gbps", "%/(Gbit/s)", "CPU per Gbit/s moved",
               "Host: CPU per Gbit/s moved", better=LOWER),
        Metric("busiest_core_pct", "%", "busiest core",
               "Host: busiest core", better=LOWER),
        Metric("jumbo_gain_pct", "%", "gain from MTU 9000",
               "Host: gain from MTU 9000"),
        Metric("flows", "1", "TCP flows", kind=COUNT),
        Metric("busy_cores", "cores", "busy receive cores (RSS/VMQ)"),
        Metric("per_core_ceiling_gbps", "Gbit/s", "per-core ceiling",
               better=HIGHER),
        Metric("compressor_gbps_per_thread", "Gbit/s",
               "logical rate of one compression thread", better=HIGHER),
        Metric("compression_ratio", "1", "logical bytes per compressed "
               "byte", better=HIGHER),
        Metric("compression_cores", "cores", "host cores compressing"),
        Metric("packets_per_s", "1/s", "datagrams per second"),
        Metric("rx_util_pct", "%", "receive utilization", kind=VERDICT,
               better=LOWER),
        Metric("tx_util_pct", "%", "transmit utilization", kind=VERDICT,
               better=LOWER),
    ),
    headline="throughput_gbps",
    items=(Items("transfer", FIRST),
           # an uplink's load is what the teaming cases check
           Items("uplink", areas=("teaming",))),
    models=("models.host", "models.transport"),
    areas=("host_cpu", "transport"),
    goals=(
        Goal("max_throughput", "host.throughput_gbps", "max",
             lambda doc: bool(doc.workloads.transfers),
             context=("host.throughput_gbps", "host.cpu_pct"), rank=1),
        Goal("min_cpu", "host.cpu_pct_per_gbps", "min",
             lambda doc: bool(doc.workloads.transfers),
             context=("host.cpu_pct_per_gbps", "host.cpu_pct",
                      "host.throughput_gbps")),
    ),
    views=("transfer",),
    sweep_axes=("nics[0].speed_gbps",))


def analyse(inputs, upstream, *, details=True):
    """Transfer metrics of every document (see :mod:`solvers.analysis`).

    ``provides["rates"]`` maps ``("transfer", name)``, for migrations
    that name no transfer ``("migration", name)`` and for evacuations
    ``("evacuation", name, sessions)`` to its
    :class:`solvers.analysis.CarriedRate`.
    """
    rows = inputs.transfers
    if not rows.owners:
        return [EMPTY] * len(inputs.documents)
    out = ResultBuilder.each(inputs.documents, rates={}, limits={})
    _evaluate(inputs, rows, out, details)
    return [o.result() for o in out]


def analyse_columns(inputs, upstream):
    """Transfer metrics of the points of a
    :class:`solvers.columns.TiledInputs`, as columns (see
    :mod:`solvers.analysis`); ``provides["rates"]`` as in
    :func:`analyse`, with arrays over the points."""
    rows = inputs.transfers
    if not rows.owners:
        return ColumnResult()
    count = inputs.count
    now, jumbo = _chain_rows(rows)
    one = inputs.template.transfers
    metrics, rates = {}, {}
    for j, ((_, item, carried), path) in enumerate(zip(one.owners,
                                                       one.paths)):
        part = slice(j * count, (j + 1) * count)
        rate = _carried(now, part)
        if carried is not None:
            rates[carried] = rate
            continue
        rates[("transfer", item.name)] = rate
        values = _transfer_values(rows, now, jumbo, part, path)
        values["flows"] = rows.columns["flows"][part].astype(float)
        found = {metric_ids.transfer(item.name, k): v
                 for k, v in values.items()}
        if j == 0:   # the first transfer: headline
            found.update({metric_ids.headline("host", key): values[key]
                          for key in HEADLINE})
        found.update({k: np.broadcast_to(v, (count,)) for k, v in _uplinks(
            path, now, part, speed=inputs.nic_speed).items()})
        metrics.update(found)
    return ColumnResult(metrics, {"rates": rates})


#: Metrics of a document's first transfer that are also its headline.
HEADLINE = ("throughput_gbps", "cpu_pct", "busiest_core_pct",
            "jumbo_gain_pct", "cpu_pct_per_gbps")


def _per_gbps(value, throughput):
    """``value`` per Gbit/s moved; NaN where nothing moves."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(throughput > 0, value / throughput, np.nan)
    return ratio if np.ndim(ratio) else float(ratio)


def _chain_rows(rows):
    """The chain of every row at its MTU, and of the documents' own
    transfers at 9000 B: (results by key, jumbo throughput)."""
    count, own = len(rows.owners), rows.transfers
    columns = dict(rows.columns)
    both = {k: np.concatenate([v, v[:own]]) for k, v in columns.items()}
    both["mtu"] = np.concatenate([columns["mtu"],
                                  np.full(own, wire.JUMBO_MTU)])
    result = chain.transfer_chain(both, mtu_limits=rows.mtu_limits)
    now = {k: v[:count] for k, v in result.items()}
    now["flows_per_queue"] = columns["flows_per_queue"]
    return now, result["throughput"][count:]


def _transfer_values(rows, now, jumbo, r, path):
    """Metrics of a transfer's row ``r`` (an index, or a slice of rows
    that share one path) by key."""
    cpu_pct = 100.0 * now["cores"][r] / rows.columns["cores"][r]
    moved = now["throughput"][r]
    values = {
        "throughput_gbps": now["throughput"][r],
        "cpu_pct": cpu_pct,
        # CPU at equal work: what the min_cpu goal compares, so a change
        # that moves less data is not a saving
        "cpu_pct_per_gbps": _per_gbps(cpu_pct, moved),
        "busiest_core_pct": 100.0 * now["busiest_core"][r],
        "flows": float(path.flows),
        "jumbo_gain_pct":
            100.0 * (jumbo[r] / now["throughput"][r] - 1.0),
    }
    if path.transport not in RDMA_TRANSPORTS:  # no per-core path
        values["busy_cores"] = now["busy_queues"][r]
        values["per_core_ceiling_gbps"] = now["core_ceiling"][r]
    if path.transport == "compression":
        columns = rows.columns
        values["compressor_gbps_per_thread"] = columns["compressor"][r]
        values["compression_ratio"] = columns["ratio"][r]
        values["compression_cores"] = now["compression_cores"][r]
    if path.transport == "udp":  # datagram rates are the question
        values["packets_per_s"] = gbps_to_bytes_per_s(
            now["wire_payload"][r]) / now["payload"][r]
    return values


def _carried(now, at):
    """The :class:`solvers.analysis.CarriedRate` of the chain's rows
    ``at`` (an index or a slice)."""
    return CarriedRate(gbps_to_bytes_per_s(now["throughput"][at]),
                       now["spread_members"][at])


def _evaluate(inputs, rows, out, details):
    now, jumbo = _chain_rows(rows)
    for r, ((index, item, carried), path) in enumerate(
            zip(rows.owners, rows.paths)):
        result = out[index]
        if carried is not None:
            result.provides["rates"][carried] = _carried(now, r)
            doc = inputs.documents[index]
            if details:
                limit = int(now["limit"][r])
                result.provides["limits"][carried] = Bottleneck(
                    f"host.{transport.LIMITS[limit]}",
                    _limit_message(limit, path, item, now, r))
            if result.bottleneck is None and not doc.workloads.transfers:
                # a migration on its own carrier: its network's limit is
                # the document's (not the wire's line rate)
                _carrier_limit(doc, item, path, now, r, result, details)
            continue
        result.provides["rates"][("transfer", item.name)] = _carried(now, r)
        doc = inputs.documents[index]
        values = _transfer_values(rows, now, jumbo, r, path)
        metrics = {metric_ids.transfer(item.name, k): v
                   for k, v in values.items()}
        if result.bottleneck is None:  # the first transfer: headline
            for key in HEADLINE:
                metrics[metric_ids.headline("host", key)] = values[key]
            limit = int(now["limit"][r])
            result.bottleneck = Bottleneck(
                f"host.{transport.LIMITS[limit]}",
                f"{item.name}: {_limit_message(limit, path, item, now, r)}"
                if details else "")
        metrics.update(_uplinks(path, now, r))
        result.metrics.update(metrics)
        if not details:
            continue
        result.findings.extend(path.notes)
        limit = int(now["limit"][r])
        result.provides["limits"][("transfer", item.name)] = Bottleneck(
            f"host.{transport.LIMITS[limit]}",
            f"{item.name}: {_limit_message(limit, path, item, now, r)}")
        defaulted = defaulted_binding(
            doc, _limit_message(limit, path, item, now, r),
            _deciding_inputs(doc, _index_of(doc, item), item, path,
                             transport.LIMITS[limit]),
            finding_id="host.defaulted_input_binds")
        if defaulted is not None:
            result.findings.append(defaulted)
        if rows.vrss_fallback[r]:
            result.findings.append(_vrss_fallback_finding(item, path))
        result.assume(*_assumptions(doc, item, path))


_QUEUE_NAMES = {"rss": "RSS", "vmq": "VMQ", "vrss": "vRSS",
                "vmmq": "VMMQ", "multiqueue": "vNIC multi-queue"}


def _limit_message(limit, path, item, now, r):
    members = len(path.nics)
    speed = path.nics[0].speed_gbps
    name = transport.LIMITS[limit]
    if name == "link":
        return (f"line rate of {members} × {speed:g} Gbit/s at "
                f"{100 * now['efficiency'][r]:.1f} % framing efficiency")
    if name == "member_spread":
        if path.switch_hash is not None:
            return (f"the peer switch's {path.switch_hash.replace('_', '-')}"
                    f" hash sends every connection from one peer on one "
                    f"member ({speed:g} Gbit/s) of {members}")
        if path.spread == "one":
            verb = "receives" if item.direction == "receive" else "sends"
            return (f"a switch-independent team {verb} on one member "
                    f"({speed:g} Gbit/s) of {members}")
        return (f"the team hash puts {path.flows} flow(s) on "
                f"{now['spread_members'][r]:.2f} of {members} members "
                "(expected value)")
    if name == "flow_per_member" and path.spread == "stripe":
        return (f"{path.flows} flow(s), each striped packet by packet over "
                f"{members} × {speed:g} Gbit/s (balance-rr); TCP reaches "
                f"{100 * transport.TCP_STRIPE_EFFICIENCY:.0f} % of them "
                "through reordering")
    if name == "flow_per_member":
        return (f"{path.flows} flow(s), each limited to one {speed:g} "
                "Gbit/s link")
    if name == "cpu_core":
        if now["flows_per_queue"][r] > 1:
            vnics = path.flows / now["flows_per_queue"][r]
            return ("one core per vNIC (VMQ): "
                    f"{vnics:g} vNIC(s) with {path.flows} flow(s) on "
                    f"{now['busy_queues'][r]:.2f} busy cores × "
                    f"{now['core_ceiling'][r]:.2f} Gbit/s per core")
        return (f"one core per flow: {path.flows} flow(s) on "
                f"{now['busy_queues'][r]:.2f} busy "
                f"{_QUEUE_NAMES[item.receive_queues]} queues × "
                f"{now['core_ceiling'][r]:.2f} Gbit/s per core")
    if name == "stream_cap":
        streams = application_streams(item, path)
        cap = now["throughput"][r] / streams
        if item.stream_cap_pps is not None:
            return (f"{streams} sending thread(s) × "
                    f"{item.stream_cap_pps:,.0f} packets/s each "
                    f"({cap:.2f} Gbit/s of payload)")
        if item.sender_threads is not None:
            return (f"{streams} stream(s) sent by "
                    f"{item.sender_threads} thread(s), one core each "
                    f"({cap:.2f} Gbit/s per stream)")
        if item.data_path == "qemu_multifd":
            return (f"{streams} multifd channel "
                    f"thread(s) × {cap:.2f} Gbit/s, each copying pages "
                    "into guest memory on its own core")
        return (f"{streams} application stream(s) × "
                f"{cap:.2f} Gbit/s each (one core per stream)")
    if name == "pcie_slot":
        nic = path.nics[0]
        dma = (f"reads each frame it sends in "
               f"{pcie.READ_COMPLETION_BYTES} B read completions"
               if item.direction == "send"
               else "writes each frame it receives in TLPs")
        return (f"the NIC's PCIe {nic.pcie_gen}.0 x{nic.pcie_lanes} slot: "
                f"the NIC {dma} plus a descriptor, "
                f"{now['throughput'][r]:.2f} Gbit/s of payload")
    return (f"{item.compression_threads} compression thread(s) × "
            f"{item.compressor_gbps:g} Gbit/s")


def _carrier_limit(doc, item, path, now, r, result, details):
    """The binding limit of the network a migration builds for itself
    (a document without transfers of its own), with the defaulted inputs
    it rests on."""
    limit = int(now["limit"][r])
    words = _limit_message(limit, path, item, now, r)
    name = item.name.removesuffix("-network")
    result.bottleneck = Bottleneck(
        f"host.{transport.LIMITS[limit]}",
        f"{name}: {words}" if details else "")
    if not details:
        return
    index = next(i for i, m in enumerate(doc.workloads.migrations)
                 if f"{m.name}-network" == item.name)
    inputs = _deciding_inputs(doc, index, item, path,
                              transport.LIMITS[limit],
                              prefix=f"workloads.migrations[{index}]")
    defaulted = defaulted_binding(doc, words, inputs,
                                  finding_id="host.defaulted_input_binds")
    if defaulted is not None:
        result.findings.append(defaulted)


def _index_of(doc, item):
    """Index of a transfer in its document (a migration's own carrier:
    None)."""
    return next((i for i, t in enumerate(doc.workloads.transfers)
                 if t is item), None)


def _deciding_inputs(doc, index, item, path, limit, prefix=None):
    """Parameter paths that decide a transfer's binding ``limit`` (a name
    of models.transport.LIMITS), each with the source of its default;
    ``prefix`` the entry that holds the fields (a migration building its
    own carrier: no stream cap of its own)."""
    if index is None:
        return {}
    own = prefix is None
    prefix = prefix or f"workloads.transfers[{index}]"
    streams = {f"{prefix}.streams": "one stream per session by default "
               "(over SMB one per Multichannel connection)"}
    clock = {"host.ghz": "2.6 GHz, the schema's default clock; per-core "
             "rates scale with it",
             "host.cpu": "Intel Sapphire Rapids, the schema's default CPU "
             "generation; per-core rates scale with its per-clock speed "
             "(models.cpu)"}
    if limit == "stream_cap":
        inputs = dict(streams)
        if item.purpose == "live_migration" and \
                item.stream_cap_pps is None:
            if own:
                inputs[f"{prefix}.stream_cap_gbps"] = _stream_cap_source(
                    doc, path)
            if doc.host.hypervisor == "vsphere":
                inputs["host.vmotion_auto_streams"] = (
                    "one vMotion stream per vmknic, as up to vSphere 7.0 "
                    "U1; 7.0 U2 and later open streams to fill the NIC "
                    "(N. Hagoort, 'Auto-Tuning vMotion Streams', 2021)")
                inputs["host.release"] = (
                    "the vSphere release decides the streams; not stated, "
                    "it is taken as up to 7.0 U1")
            elif doc.host.hypervisor in transport.MIGRATION_STREAM_CAPS:
                inputs.update(clock)
        return inputs
    if limit == "cpu_core":
        return {**streams, **clock}
    if limit == "pcie_slot":  # a sending NIC reads in completions
        return {f"nics[{i}].pcie_max_payload_bytes": "256 B, the maximum "
                "TLP payload most server root ports negotiate (models.pcie)"
                for i, nic in enumerate(doc.nics)
                if nic in path.nics and item.direction == "receive"}
    if limit == "compressor":
        return {f"{prefix}.compression_threads": "the default thread "
                "count",
                f"{prefix}.compressor_gbps": "1 Gbit/s per thread by "
                "default"}
    return {}


def _stream_cap_source(doc, path):
    if doc.host.hypervisor == "vsphere":
        return (f"one vMotion stream moves about "
                f"{transport.VMOTION_STREAM_GBPS:g} Gbit/s alone (VMware "
                "'Faster vMotion', Broadcom KB 323379)")
    preset = transport.MIGRATION_STREAM_CAPS.get(doc.host.hypervisor)
    if preset is not None and path.transport in preset[2]:
        return (f"the {doc.host.hypervisor} preset, {preset[0]:g} Gbit/s "
                f"per stream at {preset[1]:g} GHz (seed 001, case S-HV-e)")
    return "no cap by default"


def _uplinks(path, now, r, speed=lambda nic: nic.speed_gbps):
    """Expected utilisation of each link carrying the transfer, receive
    (data) and transmit (ACKs) directions; ``speed(nic)`` is its speed
    [Gbit/s] (at each point of a column sweep)."""
    wire_rate = now["wire_payload"][r] / now["efficiency"][r]
    members = len(path.nics)
    shares = ([1.0] + [0.0] * (members - 1)) if path.spread == "one" \
        else [1.0 / members] * members
    acks = 0.0
    # RDMA and UDP send no ACKs
    if path.transport not in RDMA_TRANSPORTS + ("udp",):
        acks = chain.ack_rate(now["wire_payload"][r], now["payload"][r],
                              now["ack_bytes"][r])
    values = {}
    for nic, share in zip(path.nics, shares):
        values[metric_ids.uplink(nic.id, "rx_util_pct")] = \
            chain.link_utilisation(wire_rate, speed(nic), share)
        values[metric_ids.uplink(nic.id, "tx_util_pct")] = \
            chain.link_utilisation(acks, speed(nic), share)
    return values


def _vrss_fallback_finding(item, path):
    speed = min(n.speed_gbps for n in path.nics)
    return Finding(
        id="host.vrss_unavailable", severity="warning",
        message=f"Transfer {item.name!r}: vRSS needs adapters of at least "
                f"{host.VRSS_MIN_LINK_GBPS:g} Gbit/s and VMs with at least "
                f"{host.VRSS_MIN_VCPUS} vCPUs (here {speed:g} Gbit/s, "
                f"{item.vm_vcpus} vCPU(s)); each vNIC stays on its VMQ's "
                "single core, which is what is modelled.",
        evidence={"metric": "transfer.receive_queues",
                  "value": item.receive_queues, "threshold": "vmq"})


def _assumptions(doc, item, path):
    preset = stack_preset(doc)
    side = "receiver" if item.direction == "receive" else "sender"
    notes = [
        f"Transfer {item.name!r}: this host is the {side} and its peer is "
        f"identical; CPU is the {side}'s, as % of its physical cores",
        f"CPU cost preset '{preset}': "
        f"{host.STACK_PRESETS[preset].source.split(':')[0]}",
        f"CPU generation '{doc.host.cpu}' "
        f"({cpu.CPU_GENERATIONS[doc.host.cpu].core}): the stack runs "
        f"{cpu.CPU_GENERATIONS[doc.host.cpu].stack_speed:g} x as fast per "
        f"clock as on the Haswell hosts of the fit, so each core works "
        f"like one at {stack_ghz(doc):.3g} GHz (models.cpu)",
        "Flows hash uniformly onto RSS queues and team members; expected "
        "values, not one particular hash outcome",
        f"Jumbo-frame gain: the same transfer re-evaluated at MTU "
        f"{wire.JUMBO_MTU} B",
    ]
    if path.pinned:
        team = next(t for t in doc.teams if t.name == item.via)
        notes.append(
            f"Transfer {item.name!r}: each of its {item.sessions} sessions "
            f"is a VM's vNIC, pinned by team {team.name!r} ({team.policy}) "
            "to one member in both directions, consecutive ports taking the "
            f"members in turn: {len(path.nics)} of {len(team.members)} "
            "members carry it, each bounded by the vNICs it carries")
    if item.transport == "udp":
        size = doc.network.frame_size_bytes
        notes.append(
            f"Transfer {item.name!r}: UDP datagrams "
            + (f"in {size} B frames (network.frame_size_bytes)" if size
               else "filling the MTU")
            + f", 8 B UDP header, no ACKs; each datagram costs its "
            f"thread one system call and stack pass "
            f"({transport.UDP_DATAGRAM_CYCLES:,.0f} cycles) plus the "
            "preset's per-frame and per-byte costs (no GSO/GRO)")
    else:
        notes.extend(_aggregation_notes(doc, item, path, preset))
    if item.transport in ("smb", "smb_direct"):
        notes.append("SMB Multichannel with Windows client defaults: 1 "
                     "connection per plain NIC, 4 per RSS NIC, 2 per RDMA "
                     "NIC, at most 32 per session; fastest NICs of the "
                     "best kind only")
    if item.receive_queues != "rss":
        notes.append(
            f"Transfer {item.name!r} is received through a virtual switch, "
            f"one vNIC per session ({item.sessions}): "
            + {"vmq": "VMQ gives each vNIC one queue, so one core",
               "vrss": f"vRSS spreads each vNIC over up to its VM's "
                       f"{item.vm_vcpus} vCPU(s)' worth of cores (with >= "
                       f"{host.VRSS_MIN_LINK_GBPS:g} Gbit/s NICs and >= "
                       f"{host.VRSS_MIN_VCPUS} vCPUs)",
               "vmmq": f"VMMQ gives each vNIC up to "
                       f"min({item.vm_vcpus} vCPUs, "
                       f"{item.vmmq_queue_pairs} queue pairs) hardware "
                       "queues within the NIC's",
               "multiqueue": f"each multi-queue vNIC (vmxnet3 on vSphere "
                             f"6.0+, virtio-net) gets up to "
                             f"min({item.vm_vcpus} vCPUs, "
                             f"{item.vnic_queues} queues) hardware queues "
                             "within the NIC's"}[item.receive_queues])
    if item.purpose == "live_migration" and doc.host.hypervisor == "vsphere":
        notes.append(
            "vMotion streams: automatic (vSphere 7.0 U2 and later), no "
            "per-stream ceiling" if auto_streams(doc) else
            f"vMotion streams: one per vmknic (vSphere up to 7.0 U1), "
            f"{transport.VMOTION_STREAM_GBPS:g} Gbit/s alone on a NIC and "
            f"n^{transport.VMOTION_STREAMS_EXPONENT:g} times that for n on "
            "one NIC (V7, KB 323379); set host.release (or "
            "host.vmotion_auto_streams) for 7.0 U2 and later")
    if item.transport == "compression" and item.compressor is None:
        notes.append(f"Compression ratio {item.compression_ratio:g} and "
                     f"{item.compressor_gbps:g} Gbit/s per thread are "
                     "inputs, not modelled")
    elif item.transport == "compression":
        notes.append(compression_note(doc, item))
    return notes


def _aggregation_notes(doc, item, path, preset):
    """What aggregates frames when the NIC's TSO/LRO is off (one note)."""
    receive = item.direction == "receive"
    offloads = [getattr(n.offloads, f"ipv{doc.network.ip_version}")
                for n in path.nics]
    nic, software = ("LRO", "GRO") if receive else ("TSO", "GSO")
    if doc.network.encapsulation != "none" and \
            not all(o.tunnel for o in offloads):
        return [f"Transfer {item.name!r}: encapsulated in software, so "
                "neither the NIC nor the OS aggregates: every packet "
                "traverses the stack"]
    if all(o.lro if receive else o.tso for o in offloads):
        return []
    if not host.STACK_PRESETS[preset].soft_aggregation:
        return [f"Transfer {item.name!r}: {nic} off and the '{preset}' "
                "stack has no software aggregation, so every packet "
                "traverses the stack"]
    if all(o.gro if receive else o.gso for o in offloads):
        if preset != "linux_host":
            software = f"the VMkernel's software {nic}"
        size = min(o.aggregate_kib for o in offloads)
        return [f"Transfer {item.name!r}: {nic} off; {software} aggregates "
                f"in software: one stack traversal per {size:g} KiB, the "
                "per-frame cost stays"]
    return [f"Transfer {item.name!r}: {nic} and {software} off, so every "
            "packet traverses the stack"]


def candidates(doc, goal, base):
    """RSS tuning, SMB (Multichannel, Direct) instead of TCP, and vRSS or
    VMMQ behind a virtual switch."""
    if doc.workloads.transfers and not all(n.rss_tuned for n in doc.nics):
        nic = next(n for n in doc.nics if not n.rss_tuned)
        yield Candidate(
            "advice.host.tune_rss", "info",
            f"{nic.id}: RSS queues left at their defaults",
            {"metric": "host.cpu_pct",
             "value": metric_value(base, "host.cpu_pct"), "threshold": 0.0},
            {f"nics[{j}].rss_tuned": True
             for j, other in enumerate(doc.nics) if not other.rss_tuned})
    rdma = all(n.rdma != "none" for n in doc.nics)
    for i, item in enumerate(doc.workloads.transfers):
        prefix = f"workloads.transfers[{i}]"
        offered = platform.transfer_transports(
            doc.host.hypervisor, item.purpose, doc.host.stack)

        def offers(kind, offered=offered):
            # only what the hypervisor can take (models.platform)
            return offered is None or kind in offered
        throughput = metric_ids.transfer(item.name, "throughput_gbps")
        evidence = {"metric": throughput,
                    "value": metric_value(base, throughput),
                    "threshold": metric_value(base, "wire.goodput_gbps")}
        if item.transport == "tcp" and offers("smb"):
            yield Candidate("advice.transport.smb", "info",
                            "TCP: one connection per VM, one core each",
                            evidence, {f"{prefix}.transport": "smb"})
            if item.via is not None:
                # Multichannel over separate NICs, with RSS set up for it
                # as SMB needs (seed 001, S-HV-h)
                yield Candidate(
                    "advice.transport.smb_multichannel", "info",
                    f"TCP over team {item.via!r}",
                    evidence, {f"{prefix}.transport": "smb",
                               f"{prefix}.via": None,
                               **{f"nics[{j}].rss_tuned": True
                                  for j in range(len(doc.nics))}})
        if item.receive_queues in ("vmq", "vrss") and item.transport \
                not in RDMA_TRANSPORTS:
            # vRSS first (on by default where it works), else VMMQ's
            # hardware queues; each is re-evaluated like any other change
            spread = "vrss" if item.receive_queues == "vmq" else "vmmq"
            busy = metric_ids.transfer(item.name, "busy_cores")
            yield Candidate(
                f"advice.host.{spread}", "info",
                f"{item.name}: receive queue mode {item.receive_queues!r}",
                {"metric": busy, "value": metric_value(base, busy),
                 "threshold": 1.0},
                {f"{prefix}.receive_queues": spread})
        if item.transport in ("tcp", "smb") and rdma and offers("smb_direct"):
            yield Candidate("advice.transport.smb_direct", "info",
                            "RDMA NICs carry the transfer over TCP",
                            evidence, {f"{prefix}.transport": "smb_direct",
                                       f"{prefix}.via": None})
