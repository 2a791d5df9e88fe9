"""Host-network analysis of bulk transfers: which links and queues a
transfer uses, what it reaches, at what CPU, and what binds it.

Inputs of every (variant, transfer) pair are gathered into arrays and the
transport chain (models.transport.bulk_transfer) runs once for all of them,
at the scenario's MTU and at 9000 B for the jumbo-frame gain.
"""

from dataclasses import dataclass

import numpy as np

from models import host, transport, wire
from solvers.results import Finding

@dataclass(frozen=True)
class _Path:
    """Where one transfer runs, decided from the scenario (plain data)."""

    nics: tuple            # Nic documents carrying the traffic
    transport: str         # after fallbacks
    spread: str
    flows: int
    team_mode: str         # 'none', 'independent', 'static', 'lacp'
    notes: tuple           # findings about the path


def _smb_interfaces(nics, rdma):
    """SMB Multichannel picks the best kind, then the fastest of it."""
    if rdma:
        candidates = [n for n in nics if n.rdma != "none"]
        kind = "rdma"
    else:
        rss = [n for n in nics if n.rss_queues > 1]
        candidates, kind = (rss, "rss") if rss else (list(nics), "plain")
    fastest = max(n.speed_gbps for n in candidates)
    return [n for n in candidates if n.speed_gbps == fastest], kind


def _path(doc, item):
    """Decide links, spread and flow count of one transfer."""
    notes = []
    kind = item.transport
    if item.via is not None:
        team = next(t for t in doc.teams if t.name == item.via)
        nics = [n for n in doc.nics if n.id in team.members]
        mode = team.switch_mode
    else:
        wanted = set(item.nics) or {n.id for n in doc.nics}
        nics = [n for n in doc.nics if n.id in wanted]
        mode = "none"
    if kind == "smb_direct" and (mode != "none" or
                                 all(n.rdma == "none" for n in nics)):
        reason = ("a team hides RDMA from SMB" if mode != "none"
                  else "no NIC on the path is RDMA-capable")
        notes.append(Finding(
            id="host.smb_direct_unavailable", severity="warning",
            message=f"Transfer {item.name!r}: SMB Direct needs RDMA NICs "
                    f"used without a team ({reason}); SMB falls back to "
                    "Multichannel over TCP, which is what is modelled.",
            evidence={"metric": "transfer.transport", "value": kind,
                      "threshold": "rdma"}))
        kind = "smb"
    if kind in ("smb", "smb_direct"):
        if mode == "none":
            nics, nic_kind = _smb_interfaces(nics, kind == "smb_direct")
            flows = int(transport.smb_connections(len(nics), nic_kind))
            spread = "all"
        else:  # the team is one interface to SMB
            rss = all(n.rss_queues > 1 for n in nics)
            flows = int(transport.smb_connections(1, "rss" if rss
                                                  else "plain"))
            spread = "one" if mode == "independent" else "hash"
    else:
        flows = item.sessions * item.streams
        spread = {"none": "one", "independent": "one"}.get(mode, "hash")
        if mode == "none" and item.multipath:
            spread = "all"
            nics = nics[:flows]  # a session per NIC, round robin
        elif mode == "none":
            nics = nics[:1]  # one route: TCP uses a single interface
    return _Path(tuple(nics), kind, spread, flows, mode, tuple(notes))


def _stream_cap(doc, item):
    if item.stream_cap_gbps is not None:
        return item.stream_cap_gbps
    if item.purpose != "live_migration":
        return np.inf
    preset = transport.MIGRATION_STREAM_CAPS.get(doc.host.hypervisor)
    if preset is None or item.transport not in preset[2]:
        return np.inf
    cap, reference_ghz, _ = preset
    return cap if reference_ghz is None else cap * doc.host.ghz / \
        reference_ghz


def run_transfers(pairs):
    """Throughput of (scenario, transfer) pairs, all in one chain call.

    Returns
    -------
    paths : list of _Path
    now : dict of arrays
        The chain's results at each scenario's MTU.
    jumbo : array
        Throughput of each pair at MTU 9000.
    """
    rows = [(0, doc, item, _path(doc, item)) for doc, item in pairs]
    inputs = _gather(rows)
    vrss_fallback = inputs.pop("vrss_fallback")
    both = {k: np.concatenate([v, v]) for k, v in inputs.items()}
    both["mtu"] = np.concatenate([inputs["mtu"],
                                  np.full(len(rows), wire.JUMBO_MTU)])
    chain = transfer_chain(both, mtu_limits=wire.limits_covering(
        [doc.network.mtu_min for doc, _ in pairs],
        [doc.network.mtu_max for doc, _ in pairs]))
    n = len(rows)
    now = {k: v[:n] for k, v in chain.items()}
    now["vrss_fallback"] = vrss_fallback
    now["flows_per_queue"] = inputs["flows_per_queue"]
    return [row[3] for row in rows], now, chain["throughput"][n:]


def analyse(documents):
    """Evaluate every transfer of every variant.

    Parameters
    ----------
    documents : list of (str, Scenario)
        Resolved variants, base first.

    Returns
    -------
    list of dict
        Per variant: ``metrics`` {id: value}, ``bottleneck`` (id, message)
        or None, ``findings``, ``assumptions``, and ``rates``
        {transfer name: (throughput [Gbit/s], members carrying it)}.
    """
    owners = [(index, doc, item) for index, (_, doc) in enumerate(documents)
              for item in doc.workloads.transfers]
    out = [{"metrics": {}, "bottleneck": None, "findings": [],
            "assumptions": [], "rates": {}} for _ in documents]
    if not owners:
        return out
    paths, now, jumbo = run_transfers(
        [(doc, item) for _, doc, item in owners])

    for r, ((index, doc, item), path) in enumerate(zip(owners, paths)):
        result = out[index]
        total_cores = doc.host.sockets * doc.host.cores_per_socket
        prefix = f"transfer.{item.name}"
        values = {
            f"{prefix}.throughput_gbps": now["throughput"][r],
            f"{prefix}.cpu_pct": 100.0 * now["cores"][r] / total_cores,
            f"{prefix}.busiest_core_pct": 100.0 * now["busiest_core"][r],
            f"{prefix}.flows": float(path.flows),
            f"{prefix}.jumbo_gain_pct":
                100.0 * (jumbo[r] / now["throughput"][r] - 1.0),
        }
        if path.transport != "smb_direct":  # RDMA has no per-core path
            values[f"{prefix}.busy_cores"] = now["busy_queues"][r]
            values[f"{prefix}.per_core_ceiling_gbps"] = \
                now["core_ceiling"][r]
        message = _limit_message(int(now["limit"][r]), path, item, now, r)
        first = not any(k.startswith("host.") for k in result["metrics"])
        if first:  # the first transfer is the host's headline
            for key in ("throughput_gbps", "cpu_pct", "busiest_core_pct",
                        "jumbo_gain_pct"):
                values[f"host.{key}"] = values[f"{prefix}.{key}"]
            result["bottleneck"] = (
                f"host.{transport.LIMITS[int(now['limit'][r])]}",
                f"{item.name}: {message}")
        values.update(_uplinks(path, now, r))
        result["metrics"].update(values)
        # for migrations riding this transfer (solvers.migration)
        result["rates"][item.name] = (now["throughput"][r],
                                      now["spread_members"][r])
        result["findings"].extend(path.notes)
        if now["vrss_fallback"][r]:
            result["findings"].append(_vrss_fallback_finding(doc, item,
                                                             path))
        result["assumptions"].extend(_assumptions(doc, item, path))
    for result in out:
        result["assumptions"] = list(dict.fromkeys(result["assumptions"]))
    return out


def _gather(rows):
    """Model inputs of every row, as arrays."""
    columns = {k: [] for k in (
        "transport", "member_speed", "members", "spread", "flows",
        "rss_queues", "cores", "ghz", "mtu", "ip_version", "timestamps",
        "vlan_tags",
        "encapsulation", "underlay_ip_version", "geneve_option_bytes",
        "protocol", "lro", "checksum", "c_byte", "c_pkt", "c_wire",
        "c_checksum", "c_encap", "c_team", "c_io", "rss_factor",
        "stream_cap", "streams", "ratio", "compressor", "threads",
        "queue_mode", "vnics", "vcpus", "vmmq_queue_pairs")}
    for _, doc, item, path in rows:
        network = doc.network
        costs = host.STACK_PRESETS[doc.host.stack or
                                   host.DEFAULT_STACK[doc.host.hypervisor]]
        offloads = [getattr(n.offloads, f"ipv{network.ip_version}")
                    for n in path.nics]
        # encapsulated traffic keeps TSO/LRO/checksum offloads only where
        # the NIC also offers them for tunnels
        software_tunnel = network.encapsulation != "none" and \
            not all(o.tunnel for o in offloads)
        rdma_kinds = {n.rdma for n in path.nics} - {"none"}
        add = {
            "transport": transport.TRANSPORTS.index(path.transport),
            "member_speed": min(n.speed_gbps for n in path.nics),
            "members": len(path.nics),
            "spread": transport.SPREADS.index(path.spread),
            "flows": path.flows,
            "rss_queues": min(n.rss_queues for n in path.nics),
            "cores": doc.host.sockets * doc.host.cores_per_socket,
            "ghz": doc.host.ghz,
            "mtu": network.mtu,
            "ip_version": network.ip_version,
            "timestamps": network.tcp_timestamps,
            "vlan_tags": network.vlan_tags,
            "encapsulation": network.encapsulation,
            "underlay_ip_version": network.underlay_ip_version,
            "geneve_option_bytes": network.geneve_option_bytes,
            "protocol": wire.PROTOCOLS.index(
                sorted(rdma_kinds)[0] if path.transport == "smb_direct"
                else "tcp"),
            # TSO aggregates on the sending side, LRO on the receiving side
            "lro": not software_tunnel and all(
                o.lro if item.direction == "receive" else o.tso
                for o in offloads),
            "checksum": not software_tunnel and
            all(o.checksum for o in offloads),
            "c_byte": costs.c_byte_rx if item.direction == "receive"
            else costs.c_byte_tx,
            "c_pkt": costs.c_pkt,
            "c_wire": costs.c_wire,
            "c_checksum": costs.c_checksum,
            "c_encap": costs.c_encap if software_tunnel else 0.0,
            "c_team": costs.c_team if path.team_mode in ("static", "lacp")
            else 0.0,
            "c_io": costs.c_io,
            "rss_factor": 1.0 if all(n.rss_tuned for n in path.nics)
            else costs.untuned_rss_factor,
            "stream_cap": _stream_cap(doc, item),
            "streams": item.sessions * item.streams,
            "ratio": item.compression_ratio,
            "compressor": item.compressor_gbps,
            "threads": item.compression_threads,
            "queue_mode": item.receive_queues,
            # a session is one receiving vNIC (SMB's connections may be
            # fewer than its sessions)
            "vnics": min(item.sessions, path.flows),
            "vcpus": item.vm_vcpus,
            "vmmq_queue_pairs": item.vmmq_queue_pairs,
        }
        for key, value in add.items():
            columns[key].append(value)
    inputs = {k: np.array(v) for k, v in columns.items()}
    inputs["rss_queues"], inputs["flows_per_queue"], \
        inputs["vrss_fallback"] = host.receive_queues(
            inputs.pop("queue_mode"), inputs["rss_queues"],
            inputs.pop("vnics"), inputs["flows"], inputs["member_speed"],
            inputs.pop("vcpus"),
            vmmq_queue_pairs=inputs.pop("vmmq_queue_pairs"))
    # one vectorised call for all rows, not one per row
    inputs["encap"] = wire.encapsulation_bytes(
        inputs.pop("encapsulation"), inputs.pop("underlay_ip_version"),
        geneve_option_bytes=inputs.pop("geneve_option_bytes"))
    return inputs


#: Rows per chunk of the chain: small enough for every intermediate array
#: to stay in the CPU cache, large enough to amortise numpy's call cost.
CHUNK_ROWS = 16_384


def transfer_chain(inputs, *, mtu_limits=wire.MTU_LIMITS):
    """Wire + CPU + transport for all rows at once (arrays in, arrays out;
    the benchmark drives it directly). Categorical inputs are the models'
    codes; rows are processed in cache-sized chunks, never one by one.
    ``mtu_limits`` is the accepted MTU range [B]."""
    rows = len(inputs["mtu"])
    results = {}
    for start in range(0, rows, CHUNK_ROWS):
        part = _chain_chunk({k: v[start:start + CHUNK_ROWS]
                             for k, v in inputs.items()}, mtu_limits)
        for key, values in part.items():
            if key not in results:
                results[key] = np.empty(rows, dtype=values.dtype)
            results[key][start:start + CHUNK_ROWS] = values
    return results


def _chain_chunk(inputs, mtu_limits):
    # RDMA framing only where the transport is SMB Direct
    protocol = np.where(inputs["transport"] == transport.SMB_DIRECT,
                        inputs["protocol"], wire.TCP)
    payload = wire.payload_bytes(inputs["mtu"], inputs["ip_version"],
                                 protocol=protocol,
                                 timestamps=inputs["timestamps"],
                                 mtu_limits=mtu_limits)
    efficiency = payload / wire.wire_bytes(
        inputs["mtu"], inputs["ip_version"], protocol=protocol,
        vlan_tags=inputs["vlan_tags"], encapsulation_bytes=inputs["encap"],
        mtu_limits=mtu_limits)
    cycles = host.cycles_per_byte(
        payload, host.stack_traversal_bytes(payload, inputs["lro"]),
        inputs["c_byte"], inputs["c_pkt"], inputs["c_wire"],
        checksum_offload=inputs["checksum"], c_checksum=inputs["c_checksum"],
        c_encap=inputs["c_encap"], c_team=inputs["c_team"],
        rss_factor=inputs["rss_factor"])
    result = transport.bulk_transfer(
        inputs["transport"], inputs["member_speed"], inputs["members"],
        inputs["spread"], inputs["flows"], inputs["rss_queues"],
        inputs["cores"], inputs["ghz"], cycles, efficiency,
        stream_cap=inputs["stream_cap"], streams=inputs["streams"],
        compression_ratio=inputs["ratio"],
        compressor_speed=inputs["compressor"],
        compression_threads=inputs["threads"],
        flows_per_queue=inputs["flows_per_queue"], c_io=inputs["c_io"])
    result["ack_bytes"] = wire.ack_wire_bytes(
        inputs["ip_version"], timestamps=inputs["timestamps"],
        vlan_tags=inputs["vlan_tags"])
    result["efficiency"] = efficiency
    result["payload"] = payload
    return result


_QUEUE_NAMES = {"rss": "RSS", "vmq": "VMQ", "vrss": "vRSS",
                "vmmq": "VMMQ"}


def _limit_message(limit, path, item, now, r):
    members = len(path.nics)
    speed = path.nics[0].speed_gbps
    name = transport.LIMITS[limit]
    if name == "link":
        return (f"line rate of {members} × {speed:g} Gbit/s at "
                f"{100 * now['efficiency'][r]:.1f} % framing efficiency")
    if name == "member_spread":
        if path.spread == "one":
            return (f"a switch-independent team receives on one member "
                    f"({speed:g} Gbit/s) of {members}")
        return (f"the team hash puts {path.flows} flow(s) on "
                f"{now['spread_members'][r]:.2f} of {members} members "
                "(expected value)")
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
        cap = now["throughput"][r] / (item.sessions * item.streams)
        return (f"{item.sessions * item.streams} application stream(s) × "
                f"{cap:.2f} Gbit/s each (one core per stream)")
    return (f"{item.compression_threads} compression thread(s) × "
            f"{item.compressor_gbps:g} Gbit/s")


def _uplinks(path, now, r):
    """Expected utilisation of each link carrying the transfer, receive
    (data) and transmit (ACKs) directions."""
    wire_rate = now["wire_payload"][r] / now["efficiency"][r]
    members = len(path.nics)
    shares = ([1.0] + [0.0] * (members - 1)) if path.spread == "one" \
        else [1.0 / members] * members
    ack_rate = 0.0
    if path.transport != "smb_direct":
        packets = now["wire_payload"][r] * 1e9 / 8 / now["payload"][r]
        ack_rate = packets / 2 * now["ack_bytes"][r] * 8 / 1e9  # delayed ACK
    values = {}
    for nic, share in zip(path.nics, shares):
        values[f"uplink.{nic.id}.rx_util_pct"] = \
            100.0 * share * wire_rate / nic.speed_gbps
        values[f"uplink.{nic.id}.tx_util_pct"] = \
            100.0 * share * ack_rate / nic.speed_gbps
    return values


def _vrss_fallback_finding(doc, item, path):
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
    preset = doc.host.stack or host.DEFAULT_STACK[doc.host.hypervisor]
    side = "receiver" if item.direction == "receive" else "sender"
    notes = [
        f"Transfer {item.name!r}: this host is the {side} and its peer is "
        f"identical; CPU is the {side}'s, as % of its physical cores",
        f"CPU cost preset '{preset}': "
        f"{host.STACK_PRESETS[preset].source.split(':')[0]}",
        "Flows hash uniformly onto RSS queues and team members; expected "
        "values, not one particular hash outcome",
        f"Jumbo-frame gain: the same transfer re-evaluated at MTU "
        f"{wire.JUMBO_MTU} B",
    ]
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
                       "queues within the NIC's"}[item.receive_queues])
    if item.transport == "compression":
        notes.append(f"Compression ratio {item.compression_ratio:g} and "
                     f"{item.compressor_gbps:g} Gbit/s per thread are "
                     "inputs, not modelled")
    return notes
