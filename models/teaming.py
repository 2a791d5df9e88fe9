"""Teaming: which member of a team, bond or LAG each flow or port uses, the
load that results on each member, the bounds any placement must respect,
and how bandwidth shares divide one adapter.

Static policies are pure functions of a flow's header fields and the number
of usable members; every function here works on whole columns of flows at
once. The dynamic policies (LBT, OVS rebalancing, Linux tlb, Windows
Dynamic) are time simulations built on these functions in
:mod:`solvers.teaming_dynamic`; the optimal placement is in
:mod:`solvers.placement`.

Integer conventions follow docs/reference/teaming.md section 10.2: MACs
are 48-bit integers in wire order (the last byte is ``mac & 0xFF``), IPv4
addresses are 32-bit integers in host order (``a << 24 | b << 16 | c << 8 |
d``) and IPv6 addresses are pre-reduced to 32 bits by XOR of their four
words, ports are 16-bit integers.
"""

import numpy as np

from models._checks import require_choice

U32 = np.uint32
U64 = np.uint64

#: Linux ``xmit_hash_policy`` values (LNX-DOC; teaming.md section 3.2).
LINUX_HASHES = ("layer2", "layer2+3", "layer3+4", "encap2+3", "encap3+4",
                "vlan+srcmac")

#: Linux bonding hash variants by kernel period (teaming.md section 3.3):
#: (EtherType term of ``bond_eth_hash``: none, byte-swapped or numeric;
#: ``>> 1`` on layer2+3 and encap2+3; ``>> 1`` on layer3+4 and encap3+4).
KERNEL_HASH_VARIANTS = {
    # 3.15 flow-dissector rewrite: bond_eth_hash = h_dest[5] ^ h_source[5]
    "pre_ethertype": ("none", False, False),
    "pre_2017": ("swapped", False, False),  # ^ h_proto read as a u16
    "2017_2021": ("swapped", True, True),   # b5f862180d70: shift on all IP
    "2021_2022": ("numeric", True, True),   # XDP refactor: be16_to_cpu
    "current": ("numeric", False, True),    # 49aefd131739: l3+4 only
}

#: Header fields each uniform-hash mode reads: the vDS LACP algorithms
#: (API ``VMwareDvsLacpLoadBalanceAlgorithm``) and the LBFO address-hash
#: variants. The vendors do not publish the hash functions, so these are
#: modelled as a uniform hash of the named fields [Model] (teaming.md
#: sections 2.7 and 5.1).
UNIFORM_HASH_FIELDS = {
    "srcMac": ("smac",), "destMac": ("dmac",),
    "srcDestMac": ("smac", "dmac"),
    "srcIp": ("sip",), "destIp": ("dip",), "srcDestIp": ("sip", "dip"),
    "srcIpVlan": ("sip", "vlan"), "destIpVlan": ("dip", "vlan"),
    "srcDestIpVlan": ("sip", "dip", "vlan"),
    "srcTcpUdpPort": ("sport",), "destTcpUdpPort": ("dport",),
    "srcDestTcpUdpPort": ("sport", "dport"),
    "srcIpTcpUdpPort": ("sip", "sport"), "destIpTcpUdpPort": ("dip", "dport"),
    "srcDestIpTcpUdpPort": ("sip", "dip", "sport", "dport"),
    "srcIpTcpUdpPortVlan": ("sip", "sport", "vlan"),
    "destIpTcpUdpPortVlan": ("dip", "dport", "vlan"),
    "srcDestIpTcpUdpPortVlan": ("sip", "dip", "sport", "dport", "vlan"),
    "vlan": ("vlan",), "srcPortId": ("port",),
    "transport_ports": ("sip", "dip", "sport", "dport"),
    "ip_addresses": ("sip", "dip"),
    "mac_addresses": ("smac", "dmac"),
}

#: LBT target rules (teaming.md section 2.6, validation case V7):
#: ``stay_below`` moves a port only if the target stays at or under the
#: threshold; ``any_better`` whenever the target is less utilized than the
#: source before the move. (The reference's pseudo-code compares the
#: target *after* the move, which cannot move P1 in its own worked example
#: V7, 90 % > 80 %; the example's outcome and its ping-pong are kept.)
LBT_TARGET_RULES = ("stay_below", "any_better")

#: Constant demand is simulated for this many of the slowest policy
#: period, so that load-aware policies reach their steady state.
STEADY_PERIODS = 10

#: Linux balance-tlb/alb rebalancing interval [s] (include/net/bond_alb.h;
#: T1).
TLB_REBALANCE_S = 10.0


def steady_horizon_s(lbt_period_s, ovs_rebalance_interval_s,
                     dynamic_epoch_s):
    """Time constant demand is simulated for: :data:`STEADY_PERIODS` of
    the slowest load-aware policy's period (LBT, balance-tlb/alb, OVS
    rebalancing, Hyper-V Dynamic). [s]"""
    return STEADY_PERIODS * np.maximum(
        np.maximum(lbt_period_s, TLB_REBALANCE_S),
        np.maximum(ovs_rebalance_interval_s, dynamic_epoch_s))

ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD


def _bswap32(x):
    x = np.asarray(x, dtype=U32)
    return ((x & U32(0xFF)) << U32(24)) | ((x & U32(0xFF00)) << U32(8)) \
        | ((x >> U32(8)) & U32(0xFF00)) | (x >> U32(24))


def _bswap16(x):
    x = np.asarray(x, dtype=U32) & U32(0xFFFF)
    return ((x & U32(0xFF)) << U32(8)) | (x >> U32(8))


def fold(h):
    """The bonding driver's final fold: ``h ^= h >> 16; h ^= h >> 8``."""
    h = np.asarray(h, dtype=U32)
    h = h ^ (h >> U32(16))
    return h ^ (h >> U32(8))


def linux_xmit_hash(policy, src_mac, dst_mac, src_ip, dst_ip, src_port,
                    dst_port, *, ethertype=ETHERTYPE_IPV4, vlan_tci=0,
                    has_ports=True, is_ip=True, kernel="current"):
    """The Linux bonding driver's transmit hash, bit-exact.

    Parameters
    ----------
    policy : str
        ``xmit_hash_policy``: one of :data:`LINUX_HASHES`.
    src_mac, dst_mac : array-like of int
        48-bit MAC addresses in wire order.
    src_ip, dst_ip : array-like of int
        IPv4 addresses in host order, or IPv6 addresses reduced by XOR of
        their four 32-bit words.
    src_port, dst_port : array-like of int
        TCP/UDP ports.
    ethertype : array-like of int, default 0x0800
        EtherType of the frame (0x86DD for IPv6).
    vlan_tci : array-like of int, default 0
        802.1Q tag control information, priority and DEI bits included
        (``vlan+srcmac`` only: ``skb_vlan_tag_get`` returns the whole TCI).
    has_ports : array-like of bool, default True
        False for fragments and protocols without a port pair, whose port
        word is 0.
    is_ip : array-like of bool, default True
        False for non-IP frames, which fall back to the layer-2 hash.
    kernel : str, default 'current'
        Kernel period, a key of :data:`KERNEL_HASH_VARIANTS`.

    Returns
    -------
    numpy.ndarray of uint32
        The hash; the member is ``usable[hash % n]``.

    Notes
    -----
    With :math:`W` the little-endian load of four wire-order bytes,
    :math:`E = dmac_5 \\oplus smac_5 \\oplus et`, :math:`S = W(sip)`,
    :math:`D = W(dip)` and :math:`P = W(sport, dport)`:
    layer2 :math:`h = E`; layer2+3 :math:`h = fold(E \\oplus S \\oplus D)`;
    layer3+4 :math:`h = fold(P \\oplus S \\oplus D) \\gg 1`; vlan+srcmac
    :math:`h = tci \\oplus smac_{0..2} \\oplus smac_{3..5}`. The encap
    policies dissect the innermost headers; on untunnelled packets those
    are the outer ones, so ``encap2+3`` equals layer2+3 and ``encap3+4``
    equals layer3+4 (same shift). A packet that already carries an L4 hash
    (``skb->l4_hash``, e.g. a locally generated TCP segment) is hashed by
    ``encap3+4`` with that socket hash instead, which is not modelled here.

    References
    ----------
    .. [1] torvalds/linux: drivers/net/bonding/bond_main.c
       (``bond_eth_hash``, ``bond_flow_ip``, ``bond_ip_hash``,
       ``__bond_xmit_hash``, ``bond_xmit_hash``).
    .. [2] Commits b5f862180d70 (2017) and 49aefd131739 (2022).
    """
    require_choice("xmit_hash_policy", policy, LINUX_HASHES)
    require_choice("kernel", kernel, tuple(KERNEL_HASH_VARIANTS))
    ethertype_term, shift_l23, shift_l34 = KERNEL_HASH_VARIANTS[kernel]
    src_mac = np.asarray(src_mac, dtype=U64)
    dst_mac = np.asarray(dst_mac, dtype=U64)
    ethertype = np.asarray(ethertype, dtype=U32)
    if ethertype_term == "swapped":
        et_term = _bswap16(ethertype)
    elif ethertype_term == "numeric":
        et_term = ethertype
    else:
        et_term = U32(0)
    layer2 = ((dst_mac & U64(0xFF)).astype(U32)
              ^ (src_mac & U64(0xFF)).astype(U32) ^ et_term)
    if policy == "layer2":
        return layer2
    if policy == "vlan+srcmac":
        return (np.asarray(vlan_tci, dtype=U32)
                ^ (src_mac >> U64(24)).astype(U32)
                ^ (src_mac & U64(0xFFFFFF)).astype(U32))
    addresses = _bswap32(src_ip) ^ _bswap32(dst_ip)
    if policy in ("layer2+3", "encap2+3"):
        h = fold(layer2 ^ addresses)
        if shift_l23:
            h = h >> U32(1)
    else:
        ports = _bswap16(src_port) | (_bswap16(dst_port) << U32(16))
        ports = np.where(has_ports, ports, U32(0))
        h = fold(ports ^ addresses)
        if shift_l34:
            h = h >> U32(1)
    return np.where(is_ip, h, layer2).astype(U32)


def uniform_hash(columns, seed=0):
    """A well-mixed 64-bit hash of several integer columns (splitmix64
    finaliser), for the vendors' unpublished hash functions [Model].

    Parameters
    ----------
    columns : sequence of array-like of int
        The fields to hash; they broadcast against each other.
    seed : int, default 0
        Hash basis (OVS ``bond-hash-basis``, a Monte-Carlo trial).

    Returns
    -------
    numpy.ndarray of uint64
    """
    # the basis is scrambled in Python integers: numpy scalars warn on the
    # (intended) 64-bit wrap-around
    basis = (int(seed) * 0x9E3779B97F4A7C15) & 0xFFFF_FFFF_FFFF_FFFF
    h = np.full(np.broadcast_shapes(*(np.shape(c) for c in columns)),
                basis, dtype=U64)
    for column in columns:
        h = _splitmix(h ^ np.asarray(column).astype(U64))
    return h


def _splitmix(z):
    # wrap-around modulo 2**64 is the point; numpy warns on it for 0-d input
    with np.errstate(over="ignore"):
        z = z + U64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    return z ^ (z >> U64(31))


def _rotl32(x, k):
    return (x << U32(k)) | (x >> U32(32 - k))


def _mhash_add(h, data):
    """Open vSwitch lib/hash.h ``mhash_add`` (a Murmur3 block step; zero
    data leaves the hash before the rotation unchanged)."""
    k = _rotl32(data * U32(0xCC9E2D51), 15) * U32(0x1B873593)
    h = np.where(data == 0, h, h ^ k)
    return _rotl32(h, 13) * U32(5) + U32(0xE6546B64)


def _hash_finish(h, final):
    """Open vSwitch lib/hash.h ``hash_finish`` (Murmur3 fmix32)."""
    h = h ^ U32(final)
    h = (h ^ (h >> U32(16))) * U32(0x85EBCA6B)
    h = (h ^ (h >> U32(13))) * U32(0xC2B2AE35)
    return h ^ (h >> U32(16))


def ovs_hash_mac(mac, vlan=0, basis=0):
    """Open vSwitch balance-slb bucket hash ``hash_mac(dl_src, vlan,
    bond-hash-basis)``, generic (non-SSE4.2, non-ARM-CRC) build.

    Parameters
    ----------
    mac : array-like of int
        Source MAC, 48 bits in wire order.
    vlan : array-like of int, default 0
        VLAN ID.
    basis : int, default 0
        ``other_config:bond-hash-basis``.

    Returns
    -------
    numpy.ndarray of uint32
        The hash; the bucket is ``hash & 0xFF``.

    Notes
    -----
    :math:`x = vlan \\ll 48 \\,|\\, mac`; ``hash_uint64_basis``:
    :math:`h = finish(add(add(basis, x_{lo}), x_{hi}), 8)`, which is
    MurmurHash3_x86_32 of the 8 little-endian bytes of x seeded with the
    basis. Builds with SSE4.2 (or ARMv8 CRC32) hash with CRC32 instead and
    place buckets differently.

    References
    ----------
    .. [1] openvswitch/ovs d6a632a9b16e: ofproto/bond.c (``bond_hash``),
       lib/packets.h (``hash_mac``, ``eth_addr_vlan_to_uint64``),
       lib/hash.h (``hash_uint64_basis``, ``mhash_add``, ``mhash_finish``).
    """
    x = (np.asarray(vlan, dtype=U64) << U64(48)) | np.asarray(mac, dtype=U64)
    with np.errstate(over="ignore"):
        h = _mhash_add(np.full(x.shape, basis, dtype=U32),
                       (x & U64(0xFFFFFFFF)).astype(U32))
        h = _mhash_add(h, (x >> U64(32)).astype(U32))
        return _hash_finish(h, 8)


def ovs_flow_hash_5tuple(src_ip, dst_ip, proto, src_port, dst_port,
                         basis=0, *, ipv6=False):
    """Open vSwitch ``flow_hash_5tuple`` (lib/flow.c), generic build: the
    balance-tcp bucket hash without recirculation and in the userspace
    datapath's L4 hash action.

    Parameters
    ----------
    src_ip, dst_ip : array-like of int
        IPv4 addresses in host order, shape (...); with ``ipv6`` the four
        32-bit words of each address in order, shape (..., 4).
    proto : array-like of int
        IP protocol (6 TCP, 17 UDP).
    src_port, dst_port : array-like of int
        Transport ports.
    basis : int, default 0
        ``bond-hash-basis``.
    ipv6 : bool, default False

    Returns
    -------
    numpy.ndarray of uint32
        The hash; the bucket is ``hash & 0xFF``.

    Notes
    -----
    The addresses are added as the little-endian loads of their network-
    order words, then the protocol, then the port word (both ports in
    network order), finished with the constant 42. The ports are added
    for TCP, UDP, SCTP, ICMP and ICMPv6 only.
    """
    src = np.asarray(src_ip, dtype=U32)
    dst = np.asarray(dst_ip, dtype=U32)
    if not ipv6:
        src, dst = src[..., None], dst[..., None]
    proto = np.asarray(proto, dtype=U32)
    ports = _bswap16(src_port) | (_bswap16(dst_port) << U32(16))
    shape = np.broadcast_shapes(src.shape[:-1], dst.shape[:-1], proto.shape,
                                ports.shape)
    with np.errstate(over="ignore"):
        h = np.full(shape, basis, dtype=U32)
        for words in (src, dst):
            for i in range(words.shape[-1]):
                h = _mhash_add(h, _bswap32(words[..., i]))
        h = _mhash_add(h, proto)
        with_ports = np.isin(proto, (6, 17, 132, 1, 58))
        h = np.where(with_ports, _mhash_add(h, ports), h)
        return _hash_finish(h, 42)


def port_id_member(port_id, members):
    """vSphere originating virtual port, Hyper-V Port:
    ``active[port_id mod n]`` [Model] (teaming.md sections 2.2 and 5.1).

    Parameters
    ----------
    port_id : array-like of int
        Virtual switch port id.
    members : numeric
        Number of usable members *n*.

    Returns
    -------
    numpy.ndarray of int
        Index into the usable members.
    """
    return np.asarray(port_id, dtype=np.int64) % np.asarray(members)


def source_mac_member(src_mac, members):
    """vSphere source MAC hash: ``active[mac_last_byte mod n]``, labelled
    approximate [Model] (teaming.md section 2.3)."""
    return (np.asarray(src_mac, dtype=U64) & U64(0xFF)).astype(np.int64) \
        % np.asarray(members)


#: vSphere IP hash as VMware describes it in two ways: the XOR of the last
#: octets, or the XOR of the whole 32-bit addresses, each modulo the
#: number of uplinks. They agree for 1, 2, 4 and 8 uplinks and may differ
#: for the others (teaming.md section 2.4).
IP_HASH_VARIANTS = ("last_octet", "xor32")


def ip_hash_member(src_ip, dst_ip, members, variant="last_octet"):
    """vSphere IP hash: ``active[(sip & 0xFF) ^ (dip & 0xFF) mod n]``, or
    with ``variant='xor32'`` ``active[(sip ^ dip) mod n]``
    [Doc: XOR of the last octets; Model: the modulo reduction]
    (teaming.md section 2.4; validation case V1).

    Parameters
    ----------
    src_ip, dst_ip : array-like of int
        The last 32 bits of each address: an IPv4 address whole, an IPv6
        address's last word (whose low byte is its last octet).
    members : numeric
        Number of usable members *n*.
    variant : {'last_octet', 'xor32'}, default 'last_octet'
        Which of VMware's descriptions to follow.

    Returns
    -------
    numpy.ndarray of int
        Index into the usable members.
    """
    require_choice("ip_hash_variant", variant, IP_HASH_VARIANTS)
    src_ip = np.asarray(src_ip, dtype=U32)
    dst_ip = np.asarray(dst_ip, dtype=U32)
    mixed = src_ip ^ dst_ip
    if variant == "last_octet":
        mixed = mixed & U32(0xFF)
    return mixed.astype(np.int64) % np.asarray(members)


def member_loads(member, rate, members):
    """Offered load on each member: the sum of the rates placed on it.

    Parameters
    ----------
    member : array-like of int, shape (F,) or (T, F)
        Member index of each unit, fixed or at each of T time steps (a
        load-aware policy moves units).
    rate : array-like of float, shape (F,) or (T, F)
        Rate of each unit, optionally over T time steps. [Gbit/s]
    members : int
        Number of members.

    Returns
    -------
    numpy.ndarray, shape (members,) or (T, members)
        Load per member. [Gbit/s]
    """
    member = np.asarray(member, dtype=np.int64)
    rate = np.asarray(rate, dtype=float)
    if rate.ndim == 1:
        return np.bincount(member, weights=rate, minlength=members)
    steps = rate.shape[0]
    index = (np.arange(steps)[:, None] * members + member).ravel()
    return np.bincount(index, weights=rate.ravel(),
                       minlength=steps * members).reshape(steps, members)


def placement_lower_bound(demand, speed):
    """Lower bound on the peak utilization of any unsplittable placement.

    Parameters
    ----------
    demand : array-like of float, shape (..., F)
        Demand of each unit. [Gbit/s]
    speed : array-like of float, shape (U,)
        Member speeds. [Gbit/s]

    Returns
    -------
    numpy.ndarray, shape (...)
        The bound on ``max_u load_u / speed_u``. [1]

    Notes
    -----
    :math:`LB_1 = \\sum d / \\sum C` (perfect splitting) and
    :math:`LB_2 = \\max_{k<m} \\sum_{i\\le k} d_{(i)} / \\sum_{i\\le k}
    C_{(i)}` over the k largest demands and speeds (the k largest units sit
    on at most k members); the bound is their maximum, the optimum of the
    preemptive problem ``Q|pmtn|Cmax`` (teaming.md section 7.2).
    """
    demand = np.asarray(demand, dtype=float)
    speed = np.sort(np.asarray(speed, dtype=float))[::-1]
    members = speed.size
    largest = -np.sort(-demand, axis=-1)[..., :members]
    largest = np.concatenate(
        [largest, np.zeros(largest.shape[:-1]
                           + (members - largest.shape[-1],))], axis=-1)
    partial = np.cumsum(largest, axis=-1)[..., :members - 1] \
        / np.cumsum(speed)[:members - 1]
    total = demand.sum(axis=-1) / speed.sum()
    if members == 1:
        return total
    return np.maximum(total, partial.max(axis=-1))


def bandwidth_shares(demand, shares, capacity, *, reservation=0.0,
                     limit=np.inf, reservation_mode="floor"):
    """Divide an adapter between traffic classes by shares, reservations
    and limits (NIOC v3 style weighted max-min).

    Parameters
    ----------
    demand : array-like of float, shape (..., K)
        Demand of each class on the adapter. [Gbit/s]
    shares : array-like of float, shape (..., K)
        Relative shares (> 0).
    capacity : array-like of float, shape (...)
        Adapter capacity. [Gbit/s]
    reservation : array-like of float, default 0
        Guaranteed bandwidth per class. [Gbit/s]
    limit : array-like of float, default inf
        Cap per class. [Gbit/s]
    reservation_mode : {'floor', 'additive'}, default 'floor'
        ``floor``: a reservation is a minimum of the share allocation;
        ``additive``: reservations are granted first and the remainder is
        split by shares. VMware does not publish the scheduler; both are
        [Model] choices and agree unless a reservation binds.

    Returns
    -------
    numpy.ndarray, shape (..., K)
        Allocation per class. [Gbit/s]

    Notes
    -----
    With :math:`w_i = \\min(d_i, l_i)` and :math:`f_i = \\min(r_i, w_i)`,
    floor mode finds :math:`\\lambda` with
    :math:`\\sum_i \\mathrm{clip}(\\lambda s_i, f_i, w_i) = C`; additive
    mode :math:`\\sum_i f_i + \\mathrm{clip}(\\lambda s_i, 0, w_i - f_i)
    = C`. Both sums are piecewise linear in :math:`\\lambda`, solved
    exactly at their breakpoints. If every class fits, it gets its want.

    References
    ----------
    .. [1] vSphere Networking, "Bandwidth allocation for system traffic"
       (shares 100/100/50 on 10 GbE: 40/40/20 %); teaming.md section 2.8.
    """
    require_choice("reservation_mode", reservation_mode,
                   ("floor", "additive"))
    demand, shares, reservation, limit = np.broadcast_arrays(
        *(np.asarray(a, dtype=float)
          for a in (demand, shares, reservation, limit)))
    capacity = np.asarray(capacity, dtype=float)
    # no class can use more than the adapter, which also keeps the
    # breakpoints finite for unbounded demand
    want = np.minimum(np.minimum(demand, limit), capacity[..., None])
    floor = np.minimum(reservation, want)
    if reservation_mode == "floor":
        low, high = floor, want
    else:
        low, high = np.zeros_like(want), want - floor
    budget = capacity if reservation_mode == "floor" \
        else capacity - floor.sum(axis=-1)
    # The allocated total is linear between breakpoints lambda = low/s and
    # high/s; evaluate it at every breakpoint and interpolate.
    breaks = np.sort(np.concatenate([low / shares, high / shares], axis=-1),
                     axis=-1)
    totals = np.clip(breaks[..., :, None] * shares[..., None, :],
                     low[..., None, :], high[..., None, :]).sum(axis=-1)
    index = np.clip((totals < budget[..., None]).sum(axis=-1), 1,
                    breaks.shape[-1] - 1)
    lower = np.take_along_axis(breaks, index[..., None] - 1, -1)[..., 0]
    upper = np.take_along_axis(breaks, index[..., None], -1)[..., 0]
    t_low = np.take_along_axis(totals, index[..., None] - 1, -1)[..., 0]
    t_high = np.take_along_axis(totals, index[..., None], -1)[..., 0]
    slope = np.where(t_high > t_low, (budget - t_low)
                     / np.where(t_high > t_low, t_high - t_low, 1.0), 0.0)
    lam = lower + slope * (upper - lower)
    alloc = np.clip(lam[..., None] * shares, low, high)
    if reservation_mode == "additive":
        alloc = alloc + floor
    fits = want.sum(axis=-1) <= capacity
    return np.where(fits[..., None], want, alloc)


#: Flow fields (Flow attribute names) each header-hash field reads.
_HASH_FIELD_ATTRIBUTES = {"smac": "mac", "dmac": "dst_mac", "sip": "src_ip",
                          "dip": "dst_ip", "sport": "src_port",
                          "dport": "dst_port", "vlan": None, "port": None}

#: Flow fields each Linux hash reads (teaming.md section 3.2).
_LINUX_HASH_FIELDS = {
    "layer2": ("smac", "dmac"),
    "layer2+3": ("smac", "dmac", "sip", "dip"),
    "layer3+4": ("sip", "dip", "sport", "dport"),
    "encap2+3": ("smac", "dmac", "sip", "dip"),
    "encap3+4": ("sip", "dip", "sport", "dport"),
    "vlan+srcmac": ("smac",),
}


def default_hash(policy, hash_name, hypervisor):
    """The hash a policy uses: the team's own when the policy takes it,
    else the platform default (Linux ``layer2``, LBFO ``TransportPorts``;
    vSphere LACP has no default, so ``srcDestIpTcpUdpPort`` is assumed and
    labelled).

    Returns
    -------
    str or None
        None for policies that do not hash header fields.
    """
    if policy in ("balance_xor", "balance_tlb"):
        return hash_name if hash_name in LINUX_HASHES else "layer2"
    if policy == "address_hash":
        return hash_name if hash_name in ("transport_ports", "ip_addresses",
                                          "mac_addresses") \
            else "transport_ports"
    if policy == "lacp":
        return hash_name or {"vsphere": "srcDestIpTcpUdpPort",
                             "hyperv": "transport_ports"}.get(hypervisor,
                                                              "layer2")
    if policy == "ovs_balance_tcp":
        return "srcDestIpTcpUdpPort"
    return None


def required_flow_fields(policy, hash_name=None, hypervisor="vsphere"):
    """Flow fields a policy needs (``Flow`` attribute names).

    Port-based policies need none: without port ids they place ports in
    connect order. Missing fields are an input error, never a guess.
    """
    fixed = {"src_mac": ("mac",), "ip_hash": ("src_ip", "dst_ip"),
             "balance_alb": ("dst_ip",), "ovs_balance_slb": ("mac",)}
    if policy in fixed:
        return fixed[policy]
    hashed = default_hash(policy, hash_name, hypervisor)
    if hashed is None:
        return ()
    fields = _LINUX_HASH_FIELDS.get(hashed) or UNIFORM_HASH_FIELDS[hashed]
    return tuple(_HASH_FIELD_ATTRIBUTES[f] for f in fields
                 if _HASH_FIELD_ATTRIBUTES[f])


#: Peer-switch port-channel hashes (Cisco NX-OS/IOS ``port-channel
#: load-balance``, Arista ``port-channel load-balance ... fields``,
#: Juniper ``forwarding-options hash-key``), by the fields of a flow (in
#: its transmit orientation, this host's end first) they read. The switch
#: hashes the packets it sends *to* this host, whose source is the flow's
#: destination: ``src_ip`` reads the flow's ``dip``. Pairs are combined by
#: XOR, as the vendors document ("SIP XOR DIP"), so a hash of both ends
#: does not depend on the direction.
SWITCH_HASH_FIELDS = {
    "src_mac": ("dmac",), "dst_mac": ("smac",),
    "src_dst_mac": ("smac", "dmac"),
    "src_ip": ("dip",), "dst_ip": ("sip",), "src_dst_ip": ("sip", "dip"),
    "src_port": ("dport",), "dst_port": ("sport",),
    "src_dst_port": ("sport", "dport"),
    "src_dst_ip_port": ("sip", "dip", "sport", "dport"),
}

#: Basis of the switch's hash: a function other than the host's, so the
#: receive member is not the transmit member by construction [Model].
SWITCH_HASH_BASIS = 0x5A17C4


def switch_hash_fields(switch_hash):
    """Flow attributes (``Flow`` field names) a peer-switch hash reads."""
    return tuple(_HASH_FIELD_ATTRIBUTES[f]
                 for f in SWITCH_HASH_FIELDS[switch_hash])


def switch_hash_separates_connections(switch_hash):
    """True when the switch hash reads TCP/UDP ports, so connections
    between the same two hosts can land on different members; MAC and IP
    hashes put all of them on one member."""
    return any(f in ("sport", "dport")
               for f in SWITCH_HASH_FIELDS[switch_hash])


def switch_hash_member(switch_hash, fields, members, *,
                       basis=SWITCH_HASH_BASIS):
    """Member the peer switch sends each flow's receive traffic on.

    Parameters
    ----------
    switch_hash : str
        A key of :data:`SWITCH_HASH_FIELDS`.
    fields : dict of numpy.ndarray
        The flows' header columns by name (``smac``, ``dmac``, ``sip``,
        ``dip``, ``sport``, ``dport``), transmit orientation.
    members : int
        Members of the port-channel that carry traffic.
    basis : int, default :data:`SWITCH_HASH_BASIS`
        Hash basis.

    Returns
    -------
    numpy.ndarray of int
        Index into the usable members, one per flow.

    Notes
    -----
    The switch vendors do not publish their hash functions; the named
    fields are hashed uniformly [Model], pairs combined by XOR. Which
    fields the switch reads decides the receive spread: every connection
    between two hosts has the same MACs and IPs, so MAC and IP hashes put
    them all on one member whatever the host's own transmit hash does.

    References
    ----------
    Cisco Nexus 3548 NX-OS Interfaces Configuration Guide 9.2(x),
    "Load Balancing Using Port Channels"; Edgecore KB 900002148086
    ("src-dst-ip ... (SIP XOR DIP)"); Arista EOS User Manual,
    "port-channel load-balance"; Juniper "Configuring Load Balancing
    Based on MAC Addresses / hash-key".
    """
    names = SWITCH_HASH_FIELDS[switch_hash]
    keys = []
    for first, second in (("smac", "dmac"), ("sip", "dip"),
                          ("sport", "dport")):
        used = [f for f in (first, second) if f in names]
        if len(used) == 2:
            keys.append(np.asarray(fields[first]).astype(U64)
                        ^ np.asarray(fields[second]).astype(U64))
        elif used:
            keys.append(fields[used[0]])
    h = uniform_hash(keys, seed=basis)
    return ((h >> U64(1)) % U64(members)).astype(np.int64)


#: Policies whose receive traffic arrives on the transmit member: MAC
#: learning on the switch, or a switch hash assumed to be the same
#: function (teaming.md sections 2-5); balance-rr receives as the switch
#: spreads, modelled like its transmit side.
SAME_MEMBER_RX = frozenset((
    "port_id", "src_mac", "lbt", "hyperv_port", "dynamic", "ovs_balance_slb",
    "ovs_balance_tcp", "failover", "ip_hash", "lacp", "balance_xor",
    "balance_rr"))


def receive_member(policy, tx_member, dst_ip, usable, speed, *,
                   switch_mode="independent"):
    """Member each flow's receive traffic arrives on.

    Parameters
    ----------
    policy : str
        A teaming policy (models.scenario.TEAMING_POLICIES).
    tx_member : numpy.ndarray of int, shape (F,) or (T, F)
        Transmit member of each flow (index into the team's uplinks).
    dst_ip : numpy.ndarray of uint32, shape (F,)
        Each flow's peer address (IPv6 folded to 32 bits).
    usable : numpy.ndarray of int
        Uplinks that carry traffic, primary first.
    speed : numpy.ndarray of float
        Speed of every uplink of the team. [Gbit/s]
    switch_mode : str, default 'independent'
        ``independent``, ``static`` or ``lacp``.

    Returns
    -------
    numpy.ndarray of int
        Receive member of each flow, shaped like ``tx_member`` where the
        switch follows the host, else (F,).

    Notes
    -----
    Where the switch learns MACs or hashes like the host
    (:data:`SAME_MEMBER_RX`, and LBFO address hash on a static or LACP
    team) traffic returns on the transmit member. balance-alb answers
    each new peer's ARP with the next of the fastest slaves in turn, so
    peers (in order of first appearance) take them round robin.
    balance-tlb, and a switch-independent LBFO address hash, answer ARP
    from the primary: everything arrives there (teaming.md 3.5, 5.1).
    """
    if policy in SAME_MEMBER_RX or (policy == "address_hash"
                                    and switch_mode != "independent"):
        return tx_member
    dst_ip = np.asarray(dst_ip)
    if policy == "balance_alb":
        fastest = usable[speed[usable] == speed[usable].max()]
        _, first, peer = np.unique(dst_ip, return_index=True,
                                   return_inverse=True)
        order = np.argsort(np.argsort(first))[peer]
        return fastest[order % fastest.size]
    return np.full(dst_ip.shape, usable[0])



# -- 802.3ad aggregator selection, balance-alb's byte hash, LBT defaults -----

#: vSphere LBT's documented defaults: an uplink whose mean load over the
#: check period exceeds 75 % of its capacity sheds a port, checked every
#: 30 s (VMware vSphere 7.0 Networking, "Route Based on Physical NIC
#: Load"; teaming.md section 2.6) [%], [s]. Ports moved off one uplink per
#: check: one [Model] (not documented; teaming.md section 2.6).
LBT_THRESHOLD_PCT = 75.0
LBT_PERIOD_S = 30.0
LBT_MAX_MOVES_PER_UPLINK = 1

#: A policy other than the configured one is suggested when its busiest
#: uplink peaks at least 5 % (relative) below the configured policy's: a
#: smaller gain is within the spread the traffic's time profile and hash
#: inputs leave, and not worth a re-cabling or policy change. [Model]
BETTER_POLICY_MARGIN = 0.95


def active_aggregator(usable, speed):
    """Ports of a Linux 802.3ad bond that carry traffic.

    Parameters
    ----------
    usable : array-like of int
        Indices of the bond's usable ports.
    speed : array-like of float
        Speed of every port, indexed by port. [Gbit/s]

    Returns
    -------
    numpy.ndarray of int
        The usable ports of the active aggregator.

    Notes
    -----
    Ports of one speed form an aggregator; with ``ad_select=stable`` (the
    default) the one with the largest aggregate bandwidth carries all
    traffic (validation case T4: of 2 x 10 G + 2 x 25 G, only the 25 G
    pair).

    References
    ----------
    Linux kernel, Documentation/networking/bonding.rst, ``ad_select``;
    teaming.md section 3.4.
    """
    usable = np.asarray(usable)
    speeds = np.asarray(speed)[usable]
    classes = np.unique(speeds)
    totals = np.array([speeds[speeds == s].sum() for s in classes])
    return usable[speeds == classes[np.argmax(totals)]]


def byte_xor(ip):
    """balance-alb's transmit bucket: the XOR of the destination
    address's bytes.

    Parameters
    ----------
    ip : array-like of int
        IPv4 addresses in host order, or IPv6 addresses reduced by XOR of
        their four 32-bit words (the XOR of all 16 bytes is then the
        same).

    Returns
    -------
    numpy.ndarray of int64
        Hash bucket, 0 to 255.

    Notes
    -----
    The XOR of the four bytes is the low byte of the bonding driver's
    :func:`fold`.

    References
    ----------
    Linux kernel, drivers/net/bonding/bond_alb.c,
    ``bond_xmit_alb_slave_get``; teaming.md section 3.5.
    """
    return (fold(ip) & U32(0xFF)).astype(np.int64)
