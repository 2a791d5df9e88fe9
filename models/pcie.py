"""PCI Express slot bandwidth: what a NIC's slot can move per direction
after line encoding and transaction-layer packet overhead.

Every function broadcasts over arrays of slots.
"""

import numpy as np

from models._checks import require_choice, require_positive
from models.wire import L1_OVERHEAD_BYTES

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


#: Completion size a root complex answers a device's memory read with: a
#: completer may split a read at its read completion boundary, "for a root
#: complex ... either 64 bytes or 128 bytes" (Intel AN 456 section 1.1.3,
#: after the PCIe Base Specification); the smaller, one cache line, is
#: taken (the pcie-bench model of Neugebauer et al., SIGCOMM 2018, splits
#: a NIC's reads in cache lines too). A NIC reads every frame it
#: transmits. [B]
READ_COMPLETION_BYTES = 64

#: Bytes of one NIC descriptor (Intel 82599/XL710 and Mellanox ConnectX
#: transmit and receive descriptors: 16 B); one is read (transmit) or
#: written back (receive) per frame in the frame's direction, a TLP of its
#: own when the driver does not batch them. [B]
DESCRIPTOR_BYTES = 16


def nic_frame_bandwidth(generation, lanes, frame_bytes, transmit, *,
                        max_payload_bytes=DEFAULT_MAX_PAYLOAD_BYTES,
                        read_completion_bytes=READ_COMPLETION_BYTES,
                        descriptor_bytes=DESCRIPTOR_BYTES,
                        tlp_overhead_bytes=TLP_OVERHEAD_BYTES):
    """Frame bytes a NIC moves through its PCIe slot in the data direction.

    Parameters
    ----------
    generation : array-like of int
        PCIe generation, 1 to 5.
    lanes : array-like of int
        Negotiated link width (1, 2, 4, 8 or 16).
    frame_bytes : numeric
        Frame from the MAC header to the last payload byte, as the NIC
        moves it over PCIe (no preamble, gap or FCS). [B]
    transmit : bool or array-like of bool
        The host sends: the NIC reads each frame from memory and the root
        complex answers in completions of ``read_completion_bytes``. Else
        the NIC writes each frame in TLPs of ``max_payload_bytes``.
    max_payload_bytes : numeric, default 256
        Maximum TLP payload (MPS). [B]
    read_completion_bytes : numeric, default 64
        Payload of one read completion. [B]
    descriptor_bytes : numeric, default 16
        Descriptor moved per frame in the data direction. [B]
    tlp_overhead_bytes : numeric, default 20
        Bytes each TLP adds to its payload. [B]

    Returns
    -------
    numpy.ndarray
        Frame bytes per second in the data direction. [Gbit/s]

    Notes
    -----
    .. math::

        B_f = r e n \\frac{F}{F + \\lceil F / c \\rceil o + (d + o)}

    with :math:`c` the read completion size (transmit) or MPS (receive),
    :math:`d` the descriptor and :math:`o` the TLP overhead. Read requests,
    descriptor write-backs and DLLPs travel the other direction and are not
    counted; descriptors batched by the driver (several per TLP) cost less
    than one TLP each, and TSO reads a segment's header once per
    super-segment rather than once per frame: both make this a lower
    bound by a few percent. At MTU 1500 a PCIe 2.0 x4 slot carries 14.5
    Gbit/s of received frames but 11.9 of transmitted ones.

    References
    ----------
    R. Neugebauer, G. Antichi, J. F. Zazo, Y. Audzevich, S. Lopez-Buedo,
    A. W. Moore, "Understanding PCIe performance for end host
    networking", SIGCOMM 2018 (its simple NIC model: a descriptor and the
    packet's data TLPs per packet, pcie-bench/pcie-model simple_nic.py);
    Intel AN 456 section 1.1.3 (TLP overhead, read completion boundary).
    """
    encoded = slot_bandwidth(generation, lanes, max_payload_bytes=1.0,
                             tlp_overhead_bytes=0.0)
    frame = require_positive("frame_bytes", frame_bytes, "B")
    chunk = np.where(transmit, read_completion_bytes, max_payload_bytes)
    tlps = np.ceil(frame / chunk)
    return encoded * frame / (frame + tlps * tlp_overhead_bytes
                              + descriptor_bytes + tlp_overhead_bytes)


#: Frame check sequence: the NIC computes it on transmit and strips it on
#: receive, so it never crosses PCIe (IEEE 802.3: 4 B). [B]
FCS_BYTES = 4


def nic_slot_goodput(generation, lanes, wire_frame_bytes, payload_bytes,
                     transmit, *, max_payload_bytes=DEFAULT_MAX_PAYLOAD_BYTES):
    """Payload rate a NIC's PCIe slot lets through in the data direction.

    Parameters
    ----------
    generation, lanes : array-like of int
        The slot's PCIe generation and width.
    wire_frame_bytes : numeric
        Bytes of one frame on the wire, preamble and gap included
        (:func:`models.wire.wire_bytes`). [B]
    payload_bytes : numeric
        Payload each frame carries. [B]
    transmit : bool or array-like of bool
        The host sends (see :func:`nic_frame_bandwidth`).
    max_payload_bytes : numeric, default 256
        Maximum TLP payload (MPS). [B]

    Returns
    -------
    numpy.ndarray
        Payload bandwidth. [Gbit/s]

    Notes
    -----
    The frame crosses PCIe without preamble, gap and FCS:
    :math:`F = W - 20 - 4`, and :math:`G = B_f \\cdot P / F` with
    :math:`B_f` of :func:`nic_frame_bandwidth`.
    """
    frame = np.asarray(wire_frame_bytes, dtype=float) - L1_OVERHEAD_BYTES \
        - FCS_BYTES
    return nic_frame_bandwidth(generation, lanes, frame, transmit,
                               max_payload_bytes=max_payload_bytes) \
        * np.asarray(payload_bytes, dtype=float) / frame
