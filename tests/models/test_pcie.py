"""models/pcie.py: a PCIe slot's bandwidth per direction after line
encoding and TLP overhead."""

import numpy as np
import pytest

from models import pcie

#: Bytes per gigabit, to compare with tables given in GB/s.
GB_PER_GBIT = 1 / 8


def test_pcie_slot_bandwidth_follows_the_link_arithmetic():
    # Intel AN 456 section 1.1.2: 256 B payload and 5 dwords of overhead
    # move at 256 / 276 = 92 %; Gen3 8 GT/s with 128b/130b coding (AN 708).
    gen3_x16 = 8.0 * 128 / 130 * 16
    assert pcie.slot_bandwidth(3, 16) == pytest.approx(gen3_x16 * 256 / 276,
                                                       rel=1e-12)
    # Gen1/Gen2 lose 20 % to 8b/10b: Gen2 x8 = 32 Gbit/s before TLPs
    assert pcie.slot_bandwidth(2, 8, max_payload_bytes=1e12) == \
        pytest.approx(32.0, rel=1e-9)
    # each generation doubles the rate per lane from Gen3 on
    four = pcie.slot_bandwidth(np.array([3, 4, 5]), 4)
    assert four[1] / four[0] == pytest.approx(2) == four[2] / four[1]
    with pytest.raises(ValueError, match="generation"):
        pcie.slot_bandwidth(6, 16)
    with pytest.raises(ValueError, match="lanes"):
        pcie.slot_bandwidth(3, 12)



@pytest.mark.parametrize("generation, lanes, published_gbyte_s", [
    (1, 1, 0.250), (2, 1, 0.500), (3, 1, 0.985), (4, 1, 1.969),
    (5, 1, 3.938), (3, 8, 7.877), (3, 16, 15.754), (4, 16, 31.508),
    (5, 16, 63.015)])
def test_encoded_rate_matches_the_published_throughput_per_direction(
        generation, lanes, published_gbyte_s):
    # PCI-SIG's throughput per direction after line encoding (8b/10b for
    # Gen1-2, 128b/130b from Gen3; the table of the PCI-SIG FAQ, as
    # reproduced in Wikipedia's "PCI Express" article): e.g. Gen3 x8 =
    # 8 GT/s x 128/130 x 8 lanes / 8 = 7.877 GB/s. An MPS far beyond any
    # TLP leaves the encoding alone; the table is rounded to 4 digits.
    encoded = pcie.slot_bandwidth(generation, lanes,
                                  max_payload_bytes=1e15) * GB_PER_GBIT
    assert encoded == pytest.approx(published_gbyte_s, rel=5e-4)


def test_tlp_overhead_costs_more_at_a_smaller_payload():
    # Intel AN 456 section 1.1.2: 5 dwords of TLP overhead, so a 256 B
    # payload moves at 256/276 = 92 %; the same 20 B on 128 B and 512 B
    # payloads give 86 % and 96 %. A Gen3 x8 slot at MPS 256 thus moves
    # 7.31 GB/s of its 7.88 GB/s per direction.
    raw = pcie.slot_bandwidth(3, 8, max_payload_bytes=1e15)
    shares = pcie.slot_bandwidth(3, 8, max_payload_bytes=np.array(
        [128, 256, 512])) / raw
    assert shares == pytest.approx([0.865, 0.928, 0.962], abs=1e-3)
    assert pcie.slot_bandwidth(3, 8) * GB_PER_GBIT == pytest.approx(
        7.306, abs=1e-3)


def test_a_payload_that_is_not_positive_is_named():
    with pytest.raises(ValueError, match=r"max_payload_bytes must be .*> 0"):
        pcie.slot_bandwidth(3, 8, max_payload_bytes=0)
