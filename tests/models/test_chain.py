"""models/chain.py: datagram framing, ACK rate and link utilisation
against hand arithmetic and published line rates; the chain itself is
exercised end to end by tests/solvers (host analysis) and the goldens."""

import numpy as np
import pytest

from models import chain, wire
from models.units import bytes_per_s_to_gbps


def test_datagram_frames_of_64_byte_frames():
    # RFC 2544 section 9: the 64 B frame (MAC header to FCS) carries 18 B
    # of UDP payload over IPv4 (64 - 14 - 4 - 20 - 8) and takes 84 B of
    # the wire with preamble and gap: 14.88 Mpps on 10 GbE, the
    # published line rate of 64 B frames.
    payload, frame = chain.datagram_frames(
        np.array([1472.0]), np.array([1538.0]), np.array([64.0]), 4)
    assert payload[0] == 18 and frame[0] == 84
    assert 10e9 / (8 * frame[0]) == pytest.approx(14.88e6, rel=1e-3)


def test_datagram_frames_keep_the_mtu_where_not_asked():
    payload, frame = chain.datagram_frames(
        np.array([1472.0, 1472.0]), np.array([1538.0, 1538.0]),
        np.array([np.nan, 128.0]), 4, vlan_tags=1, encapsulation_bytes=0)
    assert payload[0] == 1472 and frame[0] == 1538
    # a tagged 128 B frame: 128 - 14 - 4 - 4 - 20 - 8 = 78 B of payload
    assert payload[1] == 78 and frame[1] == 148
    # no frame size asked at all: the inputs come back unchanged
    payload, frame = chain.datagram_frames(np.array([1.0]),
                                           np.array([2.0]), None)
    assert payload.tolist() == [1.0] and frame.tolist() == [2.0]


def test_datagram_frames_subtract_the_overlay():
    payload, _ = chain.datagram_frames(
        np.array([1422.0]), np.array([1538.0]), np.array([256.0]), 4,
        encapsulation_bytes=50)
    # VXLAN over IPv4 takes 50 B of each datagram (RFC 7348)
    assert payload[0] == 256 - 14 - 4 - 20 - 8 - 50


def test_ack_rate_of_a_saturated_10gbe_link():
    # MTU 1500, TCP timestamps: 1448 B per segment, 1538 B per frame
    # (protocol-overheads.md section 6); a delayed ACK per two segments
    # (RFC 1122 4.2.3.2) of 90 B on the wire: 14 MAC + 20 IP + 20 TCP +
    # 12 timestamps + 4 FCS = 70 B (above the 64 B minimum) + 20 B of
    # preamble and gap
    goodput = 10.0 * 1448 / 1538
    ack_bytes = wire.ack_wire_bytes(4, timestamps=True)
    assert ack_bytes == 90
    segments = goodput * 1e9 / 8 / 1448
    expected = bytes_per_s_to_gbps(segments / 2 * 90)
    assert chain.ack_rate(goodput, 1448, ack_bytes) == pytest.approx(
        expected, rel=1e-12)
    # about 3 % of the link flows back as ACKs
    assert 100 * expected / 10.0 == pytest.approx(2.9, abs=0.05)


def test_link_utilisation_shares_and_broadcasts():
    util = chain.link_utilisation(np.array([10.0, 10.0]), 25.0,
                                  np.array([1.0, 0.5]))
    assert util.tolist() == [40.0, 20.0]
    assert chain.link_utilisation(0.0, 10.0) == 0.0


def test_datagram_frames_per_core_on_the_fitted_cost():
    # models.transport.UDP_DATAGRAM_CYCLES (1830 cycles, fitted on
    # ESNET-UDP-40G and UDP-IPERF3-10G-1500): a core at 2.6 GHz with no
    # driver or copy cost takes 2.6e9 / 1830 = 1.42 M datagrams/s
    rate = chain.datagram_frames_per_core(1472, 2.6, 0.0, 0.0)
    assert rate == pytest.approx(1.4208e6, rel=1e-4)
    # the driver's per-frame cycles and the copy add to each datagram
    rates = chain.datagram_frames_per_core(
        np.array([64.0, 1472.0]), 2.6, 170.0, 0.5)
    assert rates.tolist() == pytest.approx(
        [2.6e9 / (1830 + 170 + 32), 2.6e9 / (1830 + 170 + 736)])
