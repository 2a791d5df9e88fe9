"""PCI Express slot bandwidth: what a NIC's slot can move per direction
after line encoding and transaction-layer packet overhead.

Every function broadcasts over arrays of slots.
"""

import numpy as np

from models._checks import require_choice, require_positive

#: Transfer rate per lane by PCIe generation [GT/s] (PCI-SIG base
#: specifications 1.0a, 2.0, 3.0, 4.0, 5.0).
TRANSFER_RATE_GTPS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}

#: Line-code efficiency by generation: 8b/10b for Gen1-2, 128b/130b for
#: Gen3-5 (Intel AN 708: "the encoding and decoding overhead is very small
#: at 1.56 %"; the same specifications).
ENCODING_EFFICIENCY = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130,
                       5: 128 / 130}

#: Bytes each TLP adds to its payload: framing, sequence number, a 3-dword
#: header and the LCRC, 5 dwords without ECRC (Intel AN 456 and AN 708:
#: "5-7 dwords"; a 256 B payload then moves at 256/276 = 92 %) [B].
TLP_OVERHEAD_BYTES = 20

#: Maximum payload size most server root ports negotiate [B] (the values
#: allowed are 128 to 4096; "in practice, most systems use 128 B, 256 B,
#: or 512 B").
DEFAULT_MAX_PAYLOAD_BYTES = 256

GENERATIONS = tuple(TRANSFER_RATE_GTPS)
LANES = (1, 2, 4, 8, 16)


def slot_bandwidth(generation, lanes, *,
                   max_payload_bytes=DEFAULT_MAX_PAYLOAD_BYTES,
                   tlp_overhead_bytes=TLP_OVERHEAD_BYTES):
    """Data bandwidth of a PCIe link in each direction.

    Parameters
    ----------
    generation : array-like of int
        PCIe generation, 1 to 5.
    lanes : array-like of int
        Negotiated link width (1, 2, 4, 8 or 16).
    max_payload_bytes : numeric, default 256
        Maximum TLP payload (MPS) the link negotiated. [B]
    tlp_overhead_bytes : numeric, default 20
        Bytes each TLP adds to its payload. [B]

    Returns
    -------
    numpy.ndarray
        Payload bandwidth per direction. [Gbit/s]

    Raises
    ------
    ValueError
        A generation or width PCIe does not define, or a payload that is
        not positive.

    Notes
    -----
    .. math:: B = r \\cdot e \\cdot n \\cdot \\frac{MPS}{MPS + o}

    with the transfer rate ``r`` [GT/s] and line-code efficiency ``e`` of
    the generation, ``n`` lanes, and TLPs of ``MPS`` payload bytes plus
    ``o`` bytes of overhead. DLLPs (ACKs, flow-control updates) and SKP
    ordered sets take a further few percent that depends on traffic in the
    reverse direction; they are not counted, so this is an upper bound.
    A Gen3 x16 slot moves 126.0 Gbit/s after encoding and 116.9 Gbit/s of
    payload at MPS 256: one 100 GbE port, not two.

    References
    ----------
    Intel, AN 456 "PCI Express High Performance Reference Design" (2018),
    section 1.1.2; Intel, AN 708 "PCI Express DMA Reference Design Using
    External Memory" (2017), "Understanding PCI Express Throughput".
    """
    generation = require_choice("generation", generation, GENERATIONS)
    lanes = require_choice("lanes", lanes, LANES)
    payload = require_positive("max_payload_bytes", max_payload_bytes, "B")
    rate = np.choose(generation - 1, [TRANSFER_RATE_GTPS[g]
                                      for g in GENERATIONS])
    code = np.choose(generation - 1, [ENCODING_EFFICIENCY[g]
                                      for g in GENERATIONS])
    return rate * code * lanes * payload / (payload + tlp_overhead_bytes)
