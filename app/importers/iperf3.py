"""iperf3 ``-J`` JSON -> the scenario of the measured set-up, and the runs
``linkplan calibrate`` fits the host's stack costs to.

Structure (iperf3 ``src/iperf_api.c``, JSON output): ``start`` holds
``connected[]`` (local_host, remote_host), ``version``, ``system_info``
(the sender's ``uname -a``), ``tcp_mss`` (set by ``-M``) or
``tcp_mss_default``, ``test_start`` (protocol, num_streams, blksize,
reverse, duration); ``end`` holds ``sum_sent`` and ``sum_received`` (bytes,
bits_per_second), ``sum_sent_bidir_reverse`` and
``sum_received_bidir_reverse`` with ``--bidir``, ``sum`` (UDP: lost
packets, jitter) and ``cpu_utilization_percent`` (``host_total`` this end,
``remote_total`` the other, each in % of one core: iperf3 divides the
process's user + system time by the wall time). A failed run carries
``error``. The client's file knows both ends; the server's (``iperf3 -s
-J``) has no sender CPU (``remote_total`` 0) and no MSS.
"""

import ipaddress
import json
import re

from app.importers.common import (Draft, ETHERNET_GBPS, ImportProblem,
                                  import_each, read_text)
from models import transport, wire
from models.units import BITS_PER_BYTE
from solvers.calibrate import StackRun

#: IPv4 + TCP headers and the timestamp option between MSS and MTU [B].
TCP_IP_HEADERS = 20 + 20 + 12
#: What IPv6's header adds to that [B].
IPV6_EXTRA = 40 - 20


def read_json_objects(path, tool, hint):
    """The JSON objects of a tool's output file, in order: one output, or
    several appended to one file (``iperf3 -J >> runs.json``), or JSON
    Lines; lines before the first object (fio's notes on stdout) are
    skipped. An ImportProblem says what is wrong (truncated, not JSON)."""
    text = read_text(path)
    found = re.search(r"^\s*[{\[]", text, re.MULTILINE)
    if not text.strip() or found is None:
        raise ImportProblem(path, f"{tool} JSON output ({hint})"
                            + (", the file is empty" if not text.strip()
                               else ""), got=text.strip()[:40] or None)
    decoder, objects, position = json.JSONDecoder(), [], found.start()
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return objects
        try:
            data, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as err:
            cut = err.pos >= len(text.rstrip()) - 1
            raise ImportProblem(
                path, f"{tool} JSON output ({hint})"
                + (": the JSON ends early (truncated file?)" if cut else
                   f": {err.msg}"), row=err.lineno, column=err.colno) \
                from None
        if not isinstance(data, dict):
            raise ImportProblem(path, f"{tool} JSON output ({hint}): a "
                                "JSON object", got=type(data).__name__)
        objects.append(data)


def read_json(path, tool, hint):
    """The one JSON object of a tool's output file (see
    :func:`read_json_objects`)."""
    objects = read_json_objects(path, tool, hint)
    if len(objects) > 1:
        raise ImportProblem(path, f"one {tool} JSON output ({hint}), got "
                            f"{len(objects)} objects")
    return objects[0]


def import_files(paths):
    """Import iperf3 -J files; one scenario and its runs per file."""
    return import_each(paths, _import_one)


def _value(path, data, keys, expected):
    value = data
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            raise ImportProblem(path, f"{'.'.join(keys)}: {expected}")
        value = value[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or value < 0:
        raise ImportProblem(path, f"{expected} >= 0",
                            column=".".join(keys), got=value)
    return float(value)


def _import_one(path, result):
    objects = read_json_objects(path, "iperf3", "iperf3 -J")
    if all("event" in o for o in objects):
        # iperf3 --json-stream: start, interval..., end events
        events = {o["event"]: o.get("data") for o in objects}
        objects = [{"start": events.get("start"), "end": events.get("end"),
                    "error": events.get("error")}]
    for number, data in enumerate(objects, 1):
        # runs appended to one file are named by their place in it
        _import_run(path if len(objects) == 1 else f"{path}#{number}",
                    data, result)


def _import_run(path, data, result):
    if "start" not in data or "end" not in data:
        raise ImportProblem(path, "iperf3 -J output (keys start and end)",
                            got=", ".join(sorted(data))[:80])
    if data.get("error"):
        raise ImportProblem(path, "a completed iperf3 run; iperf3 reported "
                            f"an error: {data['error']}")
    start, end = data["start"], data["end"]
    test = start.get("test_start")
    if not isinstance(test, dict) or not end:
        raise ImportProblem(path, "start.test_start and end (the run did "
                            "not complete)")
    protocol = str(test.get("protocol", "TCP")).lower()
    streams = int(_value(path, start, ("test_start", "num_streams"),
                         "streams"))
    blksize = _value(path, start, ("test_start", "blksize"), "bytes")
    reverse = bool(test.get("reverse"))
    bidir = "sum_sent_bidir_reverse" in end
    server = "accepted_connection" in start
    connected = start.get("connected") or [{}]
    local = str(connected[0].get("local_host", ""))
    remote = str(connected[0].get("remote_host", ""))
    loopback = _loopback(local) and _loopback(remote)
    cpu = "cpu_utilization_percent"
    host_pct = _value(path, end, (cpu, "host_total"), "% of one core")
    remote_pct = _value(path, end, (cpu, "remote_total"), "% of one core")
    key = "sum" if protocol == "udp" else "sum_received"
    rate = _value(path, end, (key, "bits_per_second"), "bit/s")
    reverse_rate = _value(path, end, ("sum_received_bidir_reverse",
                                      "bits_per_second"), "bit/s") \
        if bidir else 0.0
    mss_key = "tcp_mss" if "tcp_mss" in start else "tcp_mss_default"
    mss = float(start.get(mss_key) or 0)
    system = str(start.get("system_info", ""))
    setting = ", ".join(filter(None, [
        protocol.upper(), f"-P {streams}" if streams > 1 else "",
        "-R" if reverse else "", "--bidir" if bidir else "",
        # the MSS asked for (-M) is a setting; the default one is what
        # the kernel chose for that run, which repeats need not share
        f"MSS {mss:.0f}" if mss and mss_key == "tcp_mss" else "",
        f"-l {blksize:.0f}",
        "loopback" if loopback else f"{local} -> {remote}"]))
    label = f"{path} ({setting})"
    draft = Draft(f"iperf3 measured: {path}")
    document = draft.document
    document["meta"]["description"] = (
        f"iperf3 {'server' if server else 'client'} run ({setting}); "
        f"{start.get('version', 'iperf3')}; {system}")
    document["host"] = {"hypervisor": _hypervisor(system)}
    draft.assumptions.append(
        f"host.hypervisor {document['host']['hypervisor']!r} from "
        f"start.system_info ({system[:60] or 'absent'}); host.ghz, sockets "
        "and cores are not in iperf3's output: set them (host.ghz decides "
        "the fitted cycles)")
    total_gbps = (rate + reverse_rate) / 1e9
    speed = next((s for s in ETHERNET_GBPS if s >= total_gbps),
                 ETHERNET_GBPS[-1])
    document["nics"] = [{"id": "lo" if loopback else "nic0",
                         "speed_gbps": float(speed)}]
    draft.assumptions.append(
        f"NIC {document['nics'][0]['id']}: {speed:g} Gbit/s, the smallest "
        "Ethernet speed that carries the measured rate (iperf3 does not "
        "report the link speed)" + ("; the run was on loopback: there is "
                                    "no NIC" if loopback else ""))
    if mss and not loopback:
        ipv6 = ":" in local
        mtu = int(mss) + TCP_IP_HEADERS + IPV6_EXTRA * ipv6
        document["network"] = {"ip_version": 6 if ipv6 else 4,
                               "mtu": draft.measured(
            "network.mtu", mtu, path, f"start.{mss_key} + "
            f"{mtu - int(mss)} B of IPv{6 if ipv6 else 4}, TCP and "
            "timestamp headers")}
        if mtu > wire.MTU_LIMITS[1]:
            document["network"]["mtu_max"] = mtu
    transfer = {
        "name": "iperf3", "transport": protocol,
        "streams": draft.measured("workloads.transfers[0].streams",
                                  streams, path,
                                  "start.test_start.num_streams"),
        "direction": "send" if (reverse == server) else "receive"}
    document["workloads"]["transfers"] = [transfer]
    result.drafts.append(draft)
    document["meta"]["notes"] = (
        f"Measured outcome: {rate / 1e9:.4g} Gbit/s ({path}, end.{key}."
        "bits_per_second)"
        + (f" + {reverse_rate / 1e9:.4g} Gbit/s reverse" if bidir else "")
        + f"; CPU {host_pct:.1f} % of a core at this end, {remote_pct:.1f} "
        f"% at the other (end.{cpu})")
    result.taken.append(f"{path}: {setting}: {rate / 1e9:.4g} Gbit/s, CPU "
                        f"{host_pct:.1f} % here, {remote_pct:.1f} % remote")
    if protocol != "tcp":
        result.skipped.append(_udp_refusal(path, test, end, server, reverse,
                                           host_pct, remote_pct, blksize))
        return
    if server:
        result.skipped.append(
            f"{path}: an iperf3 server's output (iperf3 -s -J): it has no "
            "sender CPU (remote_total 0) and no MSS; calibrate from the "
            "client's output (iperf3 -c HOST -J), which has both ends")
        return
    if host_pct <= 0 or remote_pct <= 0:
        result.skipped.append(f"{path}: end.{cpu}: no CPU measured at one "
                              "end: not a calibration run")
        return
    payload = rate / BITS_PER_BYTE
    back = reverse_rate / BITS_PER_BYTE
    if loopback:
        both = payload + back
        result.runs.append(StackRun(label, path, True, blksize,
                                    mss or blksize, both, both,
                                    (host_pct + remote_pct) / 100, setting))
        return
    # the client sends unless -R; --bidir sends both ways from both ends
    sent, received = (back, payload) if reverse else (payload, back)
    for end_name, tx, rx, pct in (("client", sent, received, host_pct),
                                  ("server", received, sent, remote_pct)):
        result.runs.append(StackRun(f"{label}, {end_name} end", path, False,
                                    blksize, mss, tx, rx, pct / 100,
                                    f"{setting}, {end_name} end"))


def _udp_refusal(path, test, end, server, reverse, host_pct, remote_pct,
                 datagram):
    """Why a UDP run calibrates nothing, with what it does measure: the
    receiving end's CPU time per datagram it received, and the loss at
    the offered rate."""
    total = end.get("sum_received") or end.get("sum") or {}
    packets = float(total.get("packets") or 0)
    lost = float(total.get("lost_packets") or 0)
    seconds = float(total.get("seconds") or 0)
    # the client sends unless -R; a server's own output is the other end
    receiver_pct = host_pct if reverse != server else remote_pct
    received = (packets - lost) / seconds if seconds > 0 else 0.0
    offered = float(test.get("target_bitrate") or 0)
    measured = (
        f"{100 * lost / packets:.1f} % of {packets:,.0f} datagrams of "
        f"{datagram:,.0f} B lost at "
        + (f"-b {offered / 1e9:.4g} Gbit/s offered" if offered
           else "an unpaced rate")
        + (f", the receiving end busy {receiver_pct / 100:.3g} cores for "
           f"{received:,.0f} datagrams/s received = "
           f"{1e6 * receiver_pct / 100 / received:.3g} us of CPU each"
           if received > 0 and receiver_pct > 0 else ""))
    return (f"{path}: UDP run ({measured}): not fitted. Linkplan costs a "
            f"datagram {transport.UDP_DATAGRAM_CYCLES:,.0f} cycles "
            "(models.transport.UDP_DATAGRAM_CYCLES) plus its frames and "
            "bytes at the TCP-fitted rates, a model constant no site "
            "preset holds, so the CPU per datagram measured here has no "
            "parameter to go to; and it models no loss onset (a sender "
            "above what the path carries loses the excess), so the loss, "
            "at this or any -b rate, fits nothing either; calibrate the "
            "host's costs from TCP runs (two -l sizes below 64K, two MSS)")


def _loopback(host):
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return host == "localhost"


def _hypervisor(system_info):
    """The host kind iperf3's ``uname -a`` names: Windows hosts are
    Hyper-V's, VMkernel ESXi's, the rest Linux/KVM."""
    text = system_info.lower()
    if "windows" in text or "cygwin" in text:
        return "hyperv"
    if "vmkernel" in text:
        return "vsphere"
    return "kvm"

