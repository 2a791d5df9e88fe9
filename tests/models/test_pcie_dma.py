"""The NIC's DMA through its PCIe slot: what one direction carries once the
frames' TLPs, read completions and descriptors are counted, and the
transfer it binds."""

import numpy as np
import pytest

from models import pcie, transport
from models.scenario import scenario_from_dict
from solvers.evaluate import evaluate
from tests.conftest import minimal_document

# PCIe 2.0 x4: 5 GT/s x 4 lanes with 8b/10b coding (PCIe 2.0 base spec)
GEN2_X4 = 5.0 * 0.8 * 4


def test_transmit_reads_frames_in_read_completions():
    # A 1514-byte frame read in 64 B completions (Intel AN 456 1.1.3: a
    # root complex's read completion boundary is 64 or 128 B): 24 TLPs of
    # 20 B overhead, plus a 16 B descriptor TLP
    expected = GEN2_X4 * 1514 / (1514 + 24 * 20 + 16 + 20)
    assert pcie.nic_frame_bandwidth(2, 4, 1514, True) == \
        pytest.approx(expected, rel=1e-12)
    # received, the NIC writes it in MPS 256 TLPs: 6 of them
    assert pcie.nic_frame_bandwidth(2, 4, 1514, False) == \
        pytest.approx(GEN2_X4 * 1514 / (1514 + 6 * 20 + 36), rel=1e-12)


def test_jumbo_frames_spread_the_descriptor_but_not_the_completions():
    small, jumbo = pcie.nic_frame_bandwidth(3, 8, np.array([1514, 9014]),
                                            True)
    assert small < jumbo < pcie.slot_bandwidth(3, 8, max_payload_bytes=64)


def test_slot_goodput_counts_payload_of_the_frame_on_pcie():
    # 1538 B on the wire = 1514 on PCIe (no preamble, gap, FCS)
    goodput = pcie.nic_slot_goodput(2, 4, 1538, 1448, True)
    assert goodput == pytest.approx(
        pcie.nic_frame_bandwidth(2, 4, 1514, True) * 1448 / 1514, rel=1e-12)


def test_bulk_transfer_names_the_slot_when_it_binds():
    common = ("tcp", 40.0, 1, "one", 1, 8, 32, 2.6, 0.1, 0.94)
    free = transport.bulk_transfer(*common)
    bound = transport.bulk_transfer(*common, slot_goodput=11.0)
    assert transport.LIMITS[int(free["limit"])] != "pcie_slot"
    assert transport.LIMITS[int(bound["limit"])] == "pcie_slot"
    assert float(bound["throughput"]) == pytest.approx(11.0)


def _xl710(direction, **nic):
    return scenario_from_dict(minimal_document(
        host={"hypervisor": "kvm"},
        nics=[{"id": "xl710", "speed_gbps": 40.0, **nic}],
        workloads={"transfers": [{"name": "iperf3",
                                  "direction": direction}]}))


def test_a_slow_slot_bounds_tcp_sending_more_than_receiving():
    # the SQLPASSION-XL710-X4-GEN2 hosts: 40 GbE in a PCIe 2.0 x4 slot
    def solved(direction, **nic):
        base = evaluate(_xl710(direction, **nic)).variants[0]
        return base.metric("host.throughput_gbps").value, \
            base.bottleneck.id
    send, send_limit = solved("send", pcie_gen=2, pcie_lanes=4)
    receive, _ = solved("receive", pcie_gen=2, pcie_lanes=4)
    unbound, unbound_limit = solved("send")
    assert send_limit == "host.pcie_slot" != unbound_limit
    assert send < receive < unbound
    # a Gen3 x8 slot carries a 40 GbE port's single stream
    _, wide_limit = solved("send", pcie_gen=3, pcie_lanes=8)
    assert wide_limit == unbound_limit
