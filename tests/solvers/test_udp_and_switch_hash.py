"""UDP transfers, frames of a given size, single-threaded generators and
a team's peer-switch hash, through the whole evaluation."""

import pytest

from models import host, transport, wire
from models.scenario import ScenarioError, scenario_from_dict
from solvers.evaluate import evaluate
from tests.conftest import minimal_document


def _solve(**sections):
    return evaluate(scenario_from_dict(minimal_document(**sections)))


def _udp(**transfer):
    return {"transfers": [{"name": "u", "transport": "udp",
                           "direction": "send", **transfer}]}


def test_one_udp_sender_is_bound_by_its_cost_per_datagram():
    # the mechanism of ESNET-UDP-40G and UDP-IPERF3-10G-1500: one system
    # call and stack pass per 1472 B datagram (no GSO), the linux_host
    # preset's driver cost and copy on top; 40 GbE so the core binds
    result = _solve(host={"hypervisor": "kvm", "ghz": 2.9, "cpu": "legacy"},
                    nics=[{"id": "nic0", "speed_gbps": 40.0}],
                    workloads=_udp()).variants[0]
    costs = host.STACK_PRESETS["linux_host"]
    cycles = transport.UDP_DATAGRAM_CYCLES + costs.c_wire \
        + costs.c_byte_tx * 1472
    packets = 2.9e9 / cycles
    assert result.metric("transfer.u.packets_per_s").value == \
        pytest.approx(packets, rel=1e-12)
    assert result.metric("host.throughput_gbps").value == \
        pytest.approx(packets * 1472 * 8 / 1e9, rel=1e-12)
    assert result.bottleneck.id == "host.cpu_core"


def test_udp_sends_no_acks_and_fills_the_link_with_jumbo_datagrams():
    result = _solve(network={"mtu": 9000},
                    workloads=_udp(direction="receive")).variants[0]
    # 10 GbE carries 8972 B of UDP payload per 9038 wire bytes (RFC 768)
    assert result.metric("host.throughput_gbps").value == \
        pytest.approx(10 * 8972 / 9038, rel=1e-12)
    assert result.metric("uplink.nic0.tx_util_pct").value == 0.0


def test_datagrams_fill_frames_of_the_asked_size():
    # 64 B frames carry 18 B of UDP data; 10 GbE runs them at 14.88 Mpps
    # (RFC 5180 A.1); one generator thread at 1 Mpps binds first
    result = _solve(network={"frame_size_bytes": 64},
                    workloads=_udp(stream_cap_pps=1e6)).variants[0]
    assert result.metric("transfer.u.packets_per_s").value == \
        pytest.approx(1e6, rel=1e-12)
    assert result.metric("host.throughput_gbps").value == \
        pytest.approx(18 * 8e-3, rel=1e-12)
    assert result.bottleneck.id == "host.stream_cap"
    # the same generator on frames of 1518 B is held to line rate
    big = _solve(network={"frame_size_bytes": 1518},
                 workloads=_udp(stream_cap_pps=1e6)).variants[0]
    assert big.metric("transfer.u.packets_per_s").value == pytest.approx(
        float(wire.frame_rate(10.0, 1518)), rel=1e-12)
    assert big.bottleneck.id == "host.link"


def test_per_core_frame_rate_at_a_frame_size():
    result = _solve(host={"hypervisor": "kvm", "ghz": 3.0, "cpu": "legacy"},
                    network={"frame_size_bytes": 64}).variants[0]
    costs = host.STACK_PRESETS["linux_host"]
    per_core = 3e9 / (transport.UDP_DATAGRAM_CYCLES + costs.c_wire
                      + costs.c_byte_rx * 18)
    assert result.metric("wire.frames_per_core_pps").value == \
        pytest.approx(per_core, rel=1e-12)
    assert result.metric("wire.cores_at_frame_rate").value == \
        pytest.approx(10e9 / 8 / 84 / per_core, rel=1e-12)


@pytest.mark.parametrize("sections, message", [
    ({"workloads": _udp(purpose="live_migration")},
     r"workloads.transfers.0.*'udp' cannot carry purpose 'live_migration'"),
    ({"workloads": {"transfers": [{"name": "t", "stream_cap_pps": 1e6}]}},
     r"stream_cap_pps \(1e\+06\).*needs transport 'udp', got transport "
     r"'tcp'"),
    ({"workloads": {"migrations": [{"name": "m", "memory_gib": 4,
                                    "transport": "udp"}]}},
     r"workloads.migrations\[0\].transport: .*not UDP.*got 'udp'"),
    ({"network": {"ip_version": 6, "frame_size_bytes": 64},
      "workloads": _udp()},
     r"network.frame_size_bytes 64 leaves no UDP payload for "
     r"workloads.transfers\[0\] \('u'\).*give at least 67"),
    ({"workloads": {"transfers": [{"name": "u", "transport": "udp"}],
                    "evacuations": [{"name": "e", "transfer": "u",
                                     "vms": [{"name": "v",
                                              "memory_gib": 1}]}]}},
     r"workloads.evacuations\[0\].transfer names 'u', whose transport is "
     r"'udp'"),
])
def test_udp_where_only_tcp_runs_is_a_clear_error(sections, message):
    with pytest.raises(ScenarioError, match=message):
        scenario_from_dict(minimal_document(**sections))


_FOUR = [{"id": f"e{i}", "speed_gbps": 1.0} for i in range(4)]


def _bond(switch_hash, **transfer):
    return dict(
        host={"hypervisor": "kvm"}, nics=_FOUR,
        teams=[{"name": "b", "members": [n["id"] for n in _FOUR],
                "switch_mode": "lacp", "policy": "lacp",
                "hash": "layer3+4", "switch_hash": switch_hash}],
        workloads={"transfers": [{"name": "t", "via": "b", "streams": 2,
                                  **transfer}]})


def test_the_switch_hash_decides_the_receive_spread_of_a_bond():
    # SF-LACP-SWITCH-HASH: an IP hash on the switch delivers every
    # connection from one peer on one member, whatever the host hashes
    ips = _solve(**_bond("src_dst_ip")).variants[0]
    assert ips.bottleneck.id == "host.member_spread"
    assert "src-dst-ip" in ips.bottleneck.message
    one = 1.0 * wire.efficiency(1500)
    assert ips.metric("host.throughput_gbps").value == \
        pytest.approx(one, rel=1e-12)
    # a hash of the ports spreads 2 connections over 1.75 of 4 members
    ports = _solve(**_bond("src_dst_port")).variants[0]
    assert ports.metric("host.throughput_gbps").value == \
        pytest.approx(1.75 * one, rel=1e-12)
    # sending, the host's own layer3+4 hash applies
    sent = _solve(**_bond("src_dst_ip", direction="send")).variants[0]
    assert sent.metric("host.throughput_gbps").value == \
        pytest.approx(1.75 * one, rel=1e-12)


def test_switch_hash_needs_a_port_channel_and_its_fields():
    with pytest.raises(ScenarioError, match="switch_hash 'src_dst_ip' "
                       "needs switch_mode 'static' or 'lacp'"):
        scenario_from_dict(minimal_document(teams=[{
            "name": "b", "members": ["nic0"], "switch_hash": "src_dst_ip"}]))
    with pytest.raises(ScenarioError, match=r"flows\[0\].dst_ip is "
                       "required: team 'b''s switch_hash 'src_ip' reads it"):
        scenario_from_dict(minimal_document(
            teams=[{"name": "b", "members": ["nic0"], "switch_mode": "lacp",
                    "policy": "lacp", "hash": "srcMac",
                    "switch_hash": "src_ip"}],
            workloads={"flows": [{"id": "f", "mac": "00:00:00:00:00:01",
                                  "rx_gbps": 1.0}]}))


def test_teaming_receives_where_the_switch_hash_puts_a_flow():
    # two connections between the same two addresses, 0.6 Gbit/s received
    # each: the host's layer3+4 hash is irrelevant to the receive side;
    # a switch hashing IPs delivers both on one 1 GbE member (120 %)
    flows = [{"id": f"f{i}", "src_ip": "10.0.0.1", "dst_ip": "10.0.0.2",
              "src_port": 40000 + i, "dst_port": 5201, "rx_gbps": 0.6}
             for i in range(2)]

    def peak(switch_hash):
        result = _solve(
            host={"hypervisor": "kvm"}, nics=_FOUR[:2],
            teams=[{"name": "b", "members": ["e0", "e1"],
                    "switch_mode": "lacp", "policy": "lacp",
                    "hash": "layer3+4", "switch_hash": switch_hash,
                    "compare": ["lacp"]}],
            workloads={"flows": flows}).variants[0]
        return result.metric("teaming.lacp.peak_util_pct").value

    assert peak("src_dst_ip") == pytest.approx(120.0, rel=1e-12)
    assert peak("src_ip") == pytest.approx(120.0, rel=1e-12)


def _round_robin(switch_hash=None, **transfer):
    return dict(
        host={"hypervisor": "kvm"}, nics=_FOUR[:2],
        teams=[{"name": "b", "members": ["e0", "e1"],
                "switch_mode": "static", "policy": "balance_rr",
                "switch_hash": switch_hash}],
        workloads={"transfers": [{"name": "t", "via": "b", **transfer}]})


def test_balance_rr_stripes_what_is_striped_towards_this_host():
    # bonding.txt 13.1.1: balance-rr is the only mode that stripes one
    # TCP connection; through a switch that hashes, one connection
    # arriving at the bond uses one interface (exact on both rules)
    one = 1.0 * wire.efficiency(1500)
    sent = _solve(**_round_robin(direction="send")).variants[0]
    assert sent.metric("host.throughput_gbps").value == pytest.approx(
        2 * one * transport.TCP_STRIPE_EFFICIENCY, rel=1e-12)
    assert "balance-rr" in sent.bottleneck.message
    back_to_back = _solve(**_round_robin()).variants[0]
    assert back_to_back.metric("host.throughput_gbps").value == \
        pytest.approx(2 * one * transport.TCP_STRIPE_EFFICIENCY, rel=1e-12)
    hashed = _solve(**_round_robin("src_dst_ip")).variants[0]
    assert hashed.metric("host.throughput_gbps").value == \
        pytest.approx(one, rel=1e-12)
