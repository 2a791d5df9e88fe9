"""models/pfc.py against the published delay components of a PFC pause
(IEEE 802.1Qbb Annex N as Gai & DeSanti, "I/O Consolidation in the Data
Center", Cisco Press 2009, ch. 7 list them), IEEE 802.3 Annex 31B's
reaction times and Mellanox's rule of thumb for cable bytes."""

import numpy as np
import pytest

from models import pfc


def test_frame_times_are_the_published_ones():
    # Gai & DeSanti ch. 7: a 9216 B frame holds the wire 9216 x 8 + 96 +
    # 64 = 73,888 bit times; a 64 B pause frame 672; a 2300 B FCoE frame
    # 18,560
    assert pfc.frame_bit_times([9216, 64, 2300]).tolist() == [
        73_888, 672, 18_560]


def test_cable_bit_times_at_five_ns_per_metre():
    # Gai & DeSanti ch. 7: 5 ns/m, 100 m at 10 GbE hold 5000 bit times
    assert pfc.cable_bit_times(100, 10) == pytest.approx(5000)
    assert pfc.cable_bit_times(1, 10) == pytest.approx(50)


def test_cable_bytes_agree_with_mellanox_rule_of_thumb():
    # Mellanox community (quoted with "Priority Flow Control: Build
    # Reliable Layer 2 Infrastructure"): 130 B of headroom per 100 m per
    # Gbit/s, i.e. 5.2 ns/m both ways; 5.0 ns/m gives 125 B: the two
    # propagation speeds differ by 4 %, the tolerance
    both_ways_bytes = 2 * pfc.cable_bit_times(100, 1) / 8
    assert both_ways_bytes == pytest.approx(130, rel=0.04)


def test_headroom_of_fcoe_on_10gbe_is_the_sum_of_annex_n_terms():
    # 10 GbE, 100 m, 9216 B port frames, 2300 B FCoE frames: 73,888 +
    # 672 + 2 x 8192 (interface) + 2 x 5000 (cable) + 67 x 512 (IEEE 802.3
    # 31B.3.7 reaction) + 18,560 = 153,808 bit times
    assert pfc.headroom_bytes(10, 100, 9216, 2300) == pytest.approx(
        153_808 / 8)
    # Cisco's white paper counts 60 quanta (30,720 bit times) at 10 GbE
    assert pfc.headroom_bytes(10, 100, 9216, 2300, response_quanta=60) \
        == pytest.approx((153_808 - 7 * 512) / 8)


def test_reaction_times_are_ieee_802_3_annex_31b():
    # IEEE 802.3 Table 31B-1 via SONiC's buffer manager (pause quanta)
    assert pfc.RESPONSE_QUANTA[25.0] * 512 == 40_960
    assert pfc.RESPONSE_QUANTA[40.0] * 512 == 60_416
    assert pfc.RESPONSE_QUANTA[100.0] * 512 == 201_728
    assert pfc.RESPONSE_QUANTA[400.0] * 512 == 463_360


def test_headroom_grows_with_speed_cable_and_frames_and_broadcasts():
    speeds = np.array([10.0, 25.0, 40.0, 100.0])
    short = pfc.headroom_bytes(speeds, 3, 1522, 1522)
    assert short.shape == (4,)
    assert np.all(np.diff(short[[0, 2, 3]]) > 0)
    longer = pfc.headroom_bytes(speeds, 100, 1522, 1522)
    # each extra metre adds 2 x 5 ns of line rate
    assert longer - short == pytest.approx(2 * 97 * 5 * speeds / 8)
    assert pfc.headroom_bytes(100, 3, 9022, 1522) - \
        pfc.headroom_bytes(100, 3, 1522, 1522) == pytest.approx(7500)


def test_stop_time_is_the_headroom_at_line_rate():
    assert pfc.stop_time_s(19_226, 10) == pytest.approx(153_808e-10)


def test_speeds_without_bounds_and_bad_lengths_are_refused():
    with pytest.raises(ValueError, match="speed_gbps must be one of"):
        pfc.headroom_bytes(1, 3, 1522, 1522)
    with pytest.raises(ValueError, match="speed_gbps must be one of"):
        pfc.headroom_bytes(50, 3, 1522, 1522)
    # both bounds given: any speed
    assert pfc.headroom_bytes(50, 3, 1522, 1522, response_quanta=147,
                              interface_bit_times=0) > 0
    with pytest.raises(ValueError, match="length_m"):
        pfc.cable_bit_times(-1, 10)
    with pytest.raises(ValueError, match="frame_bytes"):
        pfc.frame_bit_times(0)
