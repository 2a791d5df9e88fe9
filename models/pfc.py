"""Priority flow control (PFC, IEEE 802.1Qbb) headroom: the buffer a
switch port must keep free for a lossless class, to take what still
arrives after it sends a pause (RoCE v2 and FCoE ride such classes).

A port pauses a class when its buffer reaches the threshold; bits keep
coming until the pause has crossed the link, the sender has reacted and
its last frame has landed. Those bits are the headroom. Every function
broadcasts over arrays of ports.
"""

import numpy as np

from models._checks import require_choice, require_positive, require_range
from models.units import gbps_to_bytes_per_s
from models.wire import L1_OVERHEAD_BYTES, MIN_FRAME_BYTES

#: The time one pause quantum stands for: 512 bit times (IEEE 802.3
#: clause 31B.2, "pause_quanta") [bit].
QUANTUM_BITS = 512

#: Largest time a MAC may take to stop sending after a pause frame
#: arrives, by speed [Gbit/s] -> [pause quanta] (IEEE 802.3 Annex 31B.3.7,
#: as SONiC's buffer manager lists it: sonic-swss
#: ``cfgmgr/buffer_headroom_barefoot.lua``, "defined in IEEE 802.3
#: 31B.3.7"). Cisco's PFC white paper and Gai & DeSanti count 30720 bit
#: times (60 quanta) for 10 GbE; 67 is the larger bound, kept here.
RESPONSE_QUANTA = {10.0: 67, 25.0: 80, 40.0: 118, 50.0: 147, 100.0: 394,
                   200.0: 453, 400.0: 905}

#: Delay of one interface (MAC, PHY and its FEC, transmit plus receive)
#: by speed [Gbit/s] -> [bit times]: the upper bounds IEEE 802.1Qbb
#: Annex N takes from the IEEE 802.3 delay budgets, as Gai & DeSanti
#: ("I/O Consolidation in the Data Center", Cisco Press 2009, ch. 7:
#: "How to Compute Headroom for Lossless Ethernet Links") list them.
INTERFACE_BIT_TIMES = {10.0: 8192, 25.0: 6144, 40.0: 24576, 100.0: 122880}

#: Speeds with both bounds known [Gbit/s].
SPEEDS = tuple(s for s in RESPONSE_QUANTA if s in INTERFACE_BIT_TIMES)

#: Longest cable a lossless class is planned over: 10 km, the reach of
#: 10GBASE-LR (IEEE 802.3 clause 52) [m].
MAX_CABLE_M = 10_000.0

#: Signal propagation in fibre and twinax, about two thirds of the speed
#: of light: 5 ns per metre (Gai & DeSanti, ch. 7; SONiC's buffer manager
#: takes 1.98e8 m/s, 5.05 ns/m) [ns/m].
PROPAGATION_NS_PER_M = 5.0


def frame_bit_times(frame_bytes):
    """Time a frame holds the wire: the frame, its preamble and start
    delimiter, and the inter-frame gap.

    Parameters
    ----------
    frame_bytes : array-like
        Frame from MAC header to FCS. [B]

    Returns
    -------
    numpy.ndarray
        [bit times]

    Notes
    -----
    .. math:: D = 8 (F + 20)

    A 9216 B jumbo frame holds the wire 73,888 bit times; a 64 B pause
    frame 672 (Gai & DeSanti, ch. 7).
    """
    frame = require_positive("frame_bytes", frame_bytes, "B")
    return 8.0 * (frame + L1_OVERHEAD_BYTES)


def cable_bit_times(length_m, speed_gbps, *,
                    propagation_ns_per_m=PROPAGATION_NS_PER_M):
    """Bits on a cable one way.

    Parameters
    ----------
    length_m : array-like
        Cable length. [m]
    speed_gbps : array-like
        Line rate. [Gbit/s]
    propagation_ns_per_m : float, default 5.0
        Propagation delay. [ns/m]

    Returns
    -------
    numpy.ndarray
        [bit times]

    Notes
    -----
    .. math:: D = L \\cdot t_p \\cdot r

    100 m of fibre at 10 Gbit/s hold 5000 bit times.
    """
    length = require_range("length_m", length_m, 0.0, MAX_CABLE_M, "m")
    speed = require_positive("speed_gbps", speed_gbps, "Gbit/s")
    return length * propagation_ns_per_m * speed


def headroom_bytes(speed_gbps, cable_m, port_frame_bytes, class_frame_bytes,
                   *, propagation_ns_per_m=PROPAGATION_NS_PER_M,
                   response_quanta=None, interface_bit_times=None):
    """Headroom a port needs for one lossless class.

    Parameters
    ----------
    speed_gbps : array-like
        Line rate, one of :data:`SPEEDS` unless both bounds are given.
        [Gbit/s]
    cable_m : array-like
        Cable to the link partner. [m]
    port_frame_bytes : array-like
        Largest frame the pausing port may be sending when it must send
        the pause (any class), MAC header to FCS. [B]
    class_frame_bytes : array-like
        Largest frame of the lossless class, which the partner may just
        have started when it stops. [B]
    propagation_ns_per_m : float, default 5.0
        [ns/m]
    response_quanta : array-like, optional
        The partner's reaction time [pause quanta]; default
        :data:`RESPONSE_QUANTA` at the speed.
    interface_bit_times : array-like, optional
        One interface's delay [bit times]; default
        :data:`INTERFACE_BIT_TIMES` at the speed.

    Returns
    -------
    numpy.ndarray
        [B]

    Raises
    ------
    ValueError
        A speed without known bounds (and none given), or a size or length
        out of range.

    Notes
    -----
    The worst case of IEEE 802.1Qbb Annex N: the pause waits for the
    port's largest frame, crosses the port's interface, the cable and the
    partner's interface; the partner reacts; its frames cross back; and
    it finishes the frame of the class it had started:

    .. math:: H = \\tfrac{1}{8} \\left(D_F(F_p) + D_F(64) + 2 D_i + 2 D_c
              + 512 q + D_F(F_c)\\right)

    with :func:`frame_bit_times` ``D_F``, interface delay ``D_i``,
    :func:`cable_bit_times` ``D_c`` and response ``q`` quanta. At
    10 Gbit/s over 100 m with 9216 B port frames and 2300 B class frames
    (FCoE) that is 153,808 bit times, 19,226 B. Cell-based switch buffers
    store small frames in whole cells and need more (SONiC's buffer
    manager scales by the share of small packets); that factor is the
    switch's and not counted.

    References
    ----------
    IEEE 802.1Qbb-2011 Annex N; IEEE 802.3 Annex 31B; S. Gai and C.
    DeSanti, "I/O Consolidation in the Data Center", Cisco Press 2009,
    ch. 7; Cisco, "Priority Flow Control: Build Reliable Layer 2
    Infrastructure" (white paper c11-542809); SONiC, "Dynamically
    Headroom Calculation", sonic-net/SONiC on GitHub, doc/qos.
    """
    speed = np.asarray(speed_gbps, dtype=float)
    if response_quanta is None and interface_bit_times is None:
        require_choice("speed_gbps", speed, SPEEDS)
    if response_quanta is None:
        response_quanta = _by_speed(speed, RESPONSE_QUANTA)
    if interface_bit_times is None:
        interface_bit_times = _by_speed(speed, INTERFACE_BIT_TIMES)
    bits = (frame_bit_times(port_frame_bytes)
            + frame_bit_times(MIN_FRAME_BYTES)
            + 2.0 * np.asarray(interface_bit_times, dtype=float)
            + 2.0 * cable_bit_times(cable_m, speed,
                                    propagation_ns_per_m=propagation_ns_per_m)
            + QUANTUM_BITS * np.asarray(response_quanta, dtype=float)
            + frame_bit_times(class_frame_bytes))
    return bits / 8.0


def stop_time_s(headroom, speed_gbps):
    """Time from the pause threshold until the last frame has landed: the
    headroom at line rate.

    Parameters
    ----------
    headroom : array-like
        [B]
    speed_gbps : array-like
        [Gbit/s]

    Returns
    -------
    numpy.ndarray
        [s]
    """
    return np.asarray(headroom, dtype=float) / gbps_to_bytes_per_s(
        require_positive("speed_gbps", speed_gbps, "Gbit/s"))


def _by_speed(speed, table):
    """``table``'s value at each speed."""
    speed = require_choice("speed_gbps", speed, tuple(table))
    keys = np.array(list(table), dtype=float)
    values = np.array(list(table.values()), dtype=float)
    return values[np.argmax(speed[..., None] == keys, axis=-1)]
