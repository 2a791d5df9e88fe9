"""Teaming hash functions, loads, bounds and bandwidth shares against the
worked cases of shared/reference/teaming.md section 9. Hash cases are
integer arithmetic: they must match exactly."""

import ipaddress

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models import teaming

INF = np.inf


def ip(text):
    return int(ipaddress.ip_address(text))


# H1/H2 (commit 49aefd131739 message; teaming.md 3.3): dmac[5] 0xa0/0xa1,
# smac[5] 0xe3, 192.168.122.30 -> 192.168.122.1. EtherType term 0x0008 is
# the pre-2021 byte-swapped form, 0x0800 the current one.
H1_ARGS = ([0xE3, 0xE3], [0xA0, 0xA1], ip("192.168.122.30"),
           ip("192.168.122.1"), 0, 0)


@pytest.mark.parametrize("kernel, expected", [
    ("pre_2017", [522133332, 522133333]),      # H1 fold, no shift
    ("2017_2021", [261066666, 261066666]),     # H1 after >> 1
    ("2021_2022", [261065642, 261065642]),     # H2 after >> 1
    ("current", [522131284, 522131285]),       # H2 fold, no shift
])
def test_layer2_3_commit_example(kernel, expected):
    h = teaming.linux_xmit_hash("layer2+3", *H1_ARGS, kernel=kernel)
    assert h.tolist() == expected


def test_layer2_3_members_by_kernel():
    # H2: with n = 3 the fixed kernel puts the two flows on members 1 / 2,
    # the 0x0008 term on 0 / 1; with >> 1 both land on one member of two.
    current = teaming.linux_xmit_hash("layer2+3", *H1_ARGS)
    assert (current % 3).tolist() == [1, 2]
    old = teaming.linux_xmit_hash("layer2+3", *H1_ARGS, kernel="pre_2017")
    assert (old % 3).tolist() == [0, 1]
    shifted = teaming.linux_xmit_hash("layer2+3", *H1_ARGS,
                                      kernel="2017_2021")
    assert (shifted % 2).tolist() == [0, 0]


# H4-H6: 10.0.0.11 (MAC ..:11) -> 10.0.0.20 (MAC ..:22), dport 445,
# source ports 50000-50003.
H4_ARGS = (0x11, 0x22, ip("10.0.0.11"), ip("10.0.0.20"),
           np.arange(50000, 50004), 445)


def test_layer2_h4():
    h = teaming.linux_xmit_hash("layer2", *H4_ARGS)
    assert int(h) == 0x0833
    assert [int(h) % n for n in (2, 3, 4)] == [1, 2, 3]


def test_layer2_3_h5():
    h = teaming.linux_xmit_hash("layer2+3", *H4_ARGS)
    assert int(h) == 522131236
    assert [int(h) % n for n in (2, 3, 4)] == [0, 1, 0]
    shifted = teaming.linux_xmit_hash("layer2+3", *H4_ARGS,
                                      kernel="2021_2022")
    assert [int(shifted) % n for n in (3, 4)] == [2, 2]


def test_layer3_4_h6_consecutive_ports_pair_up():
    h = teaming.linux_xmit_hash("layer3+4", *H4_ARGS)
    assert h.tolist() == [0x5151F998, 0x5151F918, 0x5151F899, 0x5151F819]
    assert (h % 2).tolist() == [0, 0, 1, 1]
    assert (h % 3).tolist() == [2, 0, 2, 0]
    assert (h % 4).tolist() == [0, 0, 1, 1]   # two of four members


@pytest.mark.parametrize("kernel", list(teaming.KERNEL_HASH_VARIANTS))
def test_encap3_4_equals_layer3_4_on_untunnelled_packets(kernel):
    # torvalds/linux drivers/net/bonding/bond_main.c (index 39732479640 of
    # the search tool, the XDP-era file): __bond_xmit_hash sends ENCAP34
    # through bond_flow_dissect's full dissector, which on a packet without
    # a tunnel header yields the outer addresses and ports, then the same
    # bond_ip_hash as LAYER34, ">> 1" included. So 10.0.0.11 -> 10.0.0.20
    # :445 from source ports 50000 and 50002 (H6 hashes 0x5151F998 and
    # 0x5151F899) spread over two members, not one.
    encap = teaming.linux_xmit_hash("encap3+4", *H4_ARGS, kernel=kernel)
    layer34 = teaming.linux_xmit_hash("layer3+4", *H4_ARGS, kernel=kernel)
    assert encap.tolist() == layer34.tolist()
    if kernel == "current":
        assert (encap[[0, 2]] % 2).tolist() == [0, 1]


def test_uniform_hash_with_a_seed_wraps_without_warnings():
    # the basis seed * 0x9E3779B97F4A7C15 wraps modulo 2**64 on purpose;
    # numpy scalar arithmetic used to print an overflow RuntimeWarning
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = teaming.uniform_hash([np.arange(4)], seed=12345)
        scalar = teaming.uniform_hash([7], seed=2**40)
    assert h.dtype == np.uint64 and np.unique(h).size == 4
    assert int(scalar) != int(teaming.uniform_hash([7]))


def test_vlan_srcmac_h7():
    h = teaming.linux_xmit_hash("vlan+srcmac", 0x005056ABCDEF, 0, 0, 0, 0,
                                0, vlan_tci=100)
    assert int(h) == 0xAB9DDD == 11247069
    assert [int(h) % n for n in (2, 3, 4)] == [1, 0, 1]


def test_vlan_srcmac_hashes_the_whole_tag():
    # bond_main.c bond_vlan_srcmac_hash (index 39732479640): vlan =
    # skb_vlan_tag_get(skb), the whole TCI, so the 802.1p priority bits
    # change the hash: PCP 5, VID 100 -> TCI 0xA064
    h = teaming.linux_xmit_hash("vlan+srcmac", 0x005056ABCDEF, 0, 0, 0, 0,
                                0, vlan_tci=5 << 13 | 100)
    assert int(h) == 0xA064 ^ 0x005056 ^ 0xABCDEF
    # bits 13 and 15 only: power-of-two teams up to 8192 members keep the
    # VID-only member (H7), five members do not (3 vs 4)
    assert [int(h) % n for n in (2, 4, 5)] == [1, 1, 3]
    assert 11247069 % 5 == 4


def test_pre_ethertype_kernels_hash_the_mac_bytes_alone():
    # 3.15-era bond_main.c bond_eth_hash (index 24430281536): return
    # data->h_dest[5] ^ data->h_source[5], no EtherType and no shift.
    # H4: 0x22 ^ 0x11 = 0x33 -> members 0 of 3 where the current kernel's
    # 0x0833 gives 2; IPv6 (0x86DD) flips the parity as well.
    old = teaming.linux_xmit_hash("layer2", *H4_ARGS, kernel="pre_ethertype")
    assert int(old) == 0x33 and int(old) % 3 == 0
    assert int(teaming.linux_xmit_hash("layer2", *H4_ARGS)) % 3 == 2
    v6_old = teaming.linux_xmit_hash("layer2", *H4_ARGS, ethertype=0x86DD,
                                     kernel="pre_ethertype")
    v6_now = teaming.linux_xmit_hash("layer2", *H4_ARGS, ethertype=0x86DD)
    assert int(v6_old) % 2 == 1 and int(v6_now) == 0x86EE
    # layer2+3: fold(0x33 ^ addresses) without the >> 1
    l23 = teaming.linux_xmit_hash("layer2+3", *H4_ARGS,
                                  kernel="pre_ethertype")
    addresses = teaming._bswap32(ip("10.0.0.11")) ^ teaming._bswap32(
        ip("10.0.0.20"))
    assert int(l23) == int(teaming.fold(addresses ^ np.uint32(0x33)))


def test_non_ip_frames_fall_back_to_layer2():
    h = teaming.linux_xmit_hash("layer3+4", *H4_ARGS, is_ip=False)
    assert (h == 0x0833).all()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=50))
def test_fold_low_byte_is_xor_of_bytes(words):
    # H3: the power-of-two shortcut of teaming.md 3.2
    x = np.array(words, dtype=np.uint64).astype(np.uint32)
    expected = (x ^ (x >> 8) ^ (x >> 16) ^ (x >> 24)) & 0xFF
    assert ((teaming.fold(x) & 0xFF) == expected).all()


def test_layer3_4_all_on_one_member_probability_h8():
    # H8: one IP pair, k = 4 connections with random ephemeral ports:
    # P(all on one member) = n (1/n)^k = 0.125 (n = 2), 0.0156 (n = 4).
    # 20 000 trials: binomial standard error 0.0023 and 0.0009, so a
    # tolerance of 3 standard errors.
    rng = np.random.default_rng(7)
    ports = rng.integers(32768, 61000, size=(20000, 4))
    h = teaming.linux_xmit_hash("layer3+4", 0x11, 0x22, ip("10.0.0.11"),
                                ip("10.0.0.20"), ports, 445)
    for n, expected, tol in ((2, 0.125, 0.007), (4, 0.015625, 0.0027)):
        member = h % n
        one = (member == member[:, :1]).all(axis=1).mean()
        assert one == pytest.approx(expected, abs=tol)


def test_vsphere_ip_hash_v1_parity():
    # V1: source .11, targets .20-.23 -> 1/0/1/0 on 2 uplinks, 3/2/1/0 on 4
    targets = [ip(f"10.0.0.{i}") for i in (20, 21, 22, 23)]
    assert teaming.ip_hash_member(ip("10.0.0.11"), targets,
                                  2).tolist() == [1, 0, 1, 0]
    assert teaming.ip_hash_member(ip("10.0.0.11"), targets,
                                  4).tolist() == [3, 2, 1, 0]


def test_vsphere_ip_hash_readings_differ_only_off_powers_of_two():
    # VMware describes IP hash as the XOR of the last octets and as the
    # XOR of the 32-bit addresses (teaming.md 2.4). 10.0.1.11 -> 10.0.0.20:
    # 0x0B ^ 0x14 = 31, 0x0A00010B ^ 0x0A000014 = 287: on 3 uplinks 1 vs
    # 2, on 2 and 4 uplinks the same low bits.
    src, dst = ip("10.0.1.11"), ip("10.0.0.20")
    for n, octet, word in ((3, 1, 2), (2, 1, 1), (4, 3, 3)):
        assert int(teaming.ip_hash_member(src, dst, n)) == octet
        assert int(teaming.ip_hash_member(src, dst, n, "xor32")) == word


def test_port_id_and_source_mac():
    assert teaming.port_id_member([10, 11, 12, 13], 2).tolist() == \
        [0, 1, 0, 1]
    assert teaming.source_mac_member([0x005056000010, 0x005056000011],
                                     4).tolist() == [0, 1]


def test_member_loads_over_time():
    rate = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    loads = teaming.member_loads([0, 1, 0], rate, 2)
    assert loads.tolist() == [[4.0, 2.0], [4.0, 2.0]]


def test_uniform_hash_spreads_evenly():
    # a uniform hash over 100 000 consecutive ports: each of 4 members gets
    # a quarter; the binomial standard error is 0.14 %, so 1 % is loose
    h = teaming.uniform_hash([np.arange(100000)])
    shares = np.bincount((h % np.uint64(4)).astype(int)) / 100000
    assert np.allclose(shares, 0.25, atol=0.01)


@pytest.mark.parametrize("demand, speed, expected", [
    # S2 (teaming.md 7.3): LB = 42 / 45
    ([9, 7, 6, 6, 8, 6], [10, 10, 25], 42 / 45),
    # LB2 binds: one unit larger than the smallest share
    ([15, 1], [10, 10], 1.5),
    ([4, 5, 6, 7, 8], [1, 1], 15.0),
])
def test_placement_lower_bound(demand, speed, expected):
    assert teaming.placement_lower_bound(demand, speed) == \
        pytest.approx(expected)


# NIOC (teaming.md 2.8; V3-V6): 10 G adapter, FT / iSCSI / management
# shares 100 / 100 / 50. Allocations are exact water-filling results.
SHARES = [100, 100, 50]


@pytest.mark.parametrize("demand, kwargs, expected", [
    ([INF, INF, INF], {}, [4, 4, 2]),                        # V3
    ([INF, INF, 0], {}, [5, 5, 0]),                          # V4
    ([INF, INF, INF], {"limit": [INF, 3, INF]}, [14 / 3, 3, 7 / 3]),
    ([INF, INF, INF], {"reservation": [0, 0, 3]}, [3.5, 3.5, 3.0]),  # V6
    ([INF, INF, INF], {"reservation": [0, 0, 3],
                       "reservation_mode": "additive"}, [2.8, 2.8, 4.4]),
    ([1, 2, 3], {}, [1, 2, 3]),                              # all fit
])
def test_bandwidth_shares(demand, kwargs, expected):
    alloc = teaming.bandwidth_shares(demand, SHARES, 10.0, **kwargs)
    assert alloc == pytest.approx(expected)


def test_bandwidth_shares_vectorised_over_adapters():
    alloc = teaming.bandwidth_shares([[INF, INF, INF], [INF, INF, 0]],
                                     SHARES, [10.0, 10.0])
    assert alloc == pytest.approx(np.array([[4, 4, 2], [5, 5, 0]]))


def test_unknown_hash_policy_names_the_value():
    with pytest.raises(ValueError, match="xmit_hash_policy.*'layer5'"):
        teaming.linux_xmit_hash("layer5", 0, 0, 0, 0, 0, 0)


@pytest.mark.parametrize("policy, fields", [
    ("port_id", ()), ("ip_hash", ("src_ip", "dst_ip")),
    ("src_mac", ("mac",)), ("balance_xor", ("mac", "dst_mac")),
])
def test_required_flow_fields(policy, fields):
    assert teaming.required_flow_fields(policy) == fields


# Open vSwitch hashes, generic build (openvswitch/ovs d6a632a9b16e, read with
# git: lib/hash.h mhash_add/mhash_finish/hash_uint64_basis, lib/packets.h
# hash_mac and eth_addr_vlan_to_uint64, lib/packets.c eth_addr_to_uint64,
# lib/flow.c flow_hash_5tuple, ofproto/bond.c bond_hash, lib/dpif.h
# BOND_MASK 0xff). The scalar transcription below is plain Python integers;
# its Murmur3 steps are checked against published MurmurHash3_x86_32
# vectors (SMHasher: "test"/0 -> 0xba6bd213, 00000000/0 -> 0x2362f9de,
# "aaaa"/0x9747b28c -> 0x5a97808a, "abcd"/0x9747b28c -> 0xf0478627).

def _rot(x, k):
    return ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF


def _add(h, data):
    if data:
        data = _rot(data * 0xCC9E2D51 & 0xFFFFFFFF, 15) * 0x1B873593 \
            & 0xFFFFFFFF
        h ^= data
    return (_rot(h, 13) * 5 + 0xE6546B64) & 0xFFFFFFFF


def _finish(h, final):
    h ^= final
    h = (h ^ h >> 16) * 0x85EBCA6B & 0xFFFFFFFF
    h = (h ^ h >> 13) * 0xC2B2AE35 & 0xFFFFFFFF
    return h ^ h >> 16


@pytest.mark.parametrize("key, seed, expected", [
    (b"test", 0, 0xBA6BD213), (b"\0\0\0\0", 0, 0x2362F9DE),
    (b"aaaa", 0x9747B28C, 0x5A97808A), (b"abcd", 0x9747B28C, 0xF0478627)])
def test_ovs_murmur_steps_match_published_vectors(key, seed, expected):
    word = int.from_bytes(key, "little")
    assert _finish(_add(seed, word), 4) == expected
    with np.errstate(over="ignore"):
        got = teaming._hash_finish(teaming._mhash_add(
            np.uint32(seed), np.uint32(word)), 4)
    assert int(got) == expected


def _be_word_as_le(word):
    return int.from_bytes(word.to_bytes(4, "big"), "little")


@pytest.mark.parametrize("mac, vlan, basis", [
    (0x005056ABCDEF, 0, 0), (0x005056ABCDEF, 100, 0),
    (0x525400123456, 10, 7), (0x0, 0, 0)])
def test_ovs_balance_slb_bucket_is_hash_mac(mac, vlan, basis):
    x = vlan << 48 | mac
    expected = _finish(_add(_add(basis, x & 0xFFFFFFFF), x >> 32), 8)
    got = teaming.ovs_hash_mac(mac, vlan, basis)
    assert int(got) == expected
    assert int(got) & 0xFF == expected & 0xFF   # the bucket


def test_ovs_balance_tcp_bucket_is_flow_hash_5tuple():
    # 10.0.0.11:50000 -> 10.0.0.20:445 TCP and :50002: nw_src/nw_dst are
    # network-order words read as u32, then nw_proto, then tp_src|tp_dst
    # as one u32, finished with 42
    sip, dip = ip("10.0.0.11"), ip("10.0.0.20")
    for sport, basis in ((50000, 0), (50002, 0), (50000, 99)):
        ports = int.from_bytes(sport.to_bytes(2, "big")
                               + (445).to_bytes(2, "big"), "little")
        h = basis
        for value in (_be_word_as_le(sip), _be_word_as_le(dip), 6, ports):
            h = _add(h, value)
        expected = _finish(h, 42)
        got = teaming.ovs_flow_hash_5tuple(sip, dip, 6, sport, 445, basis)
        assert int(got) == expected
    # IPv6: the 16-byte addresses as four words each, in order
    src = int(ipaddress.ip_address("2001:db8::11"))
    dst = int(ipaddress.ip_address("2001:db8::20"))
    words = [[(a >> s) & 0xFFFFFFFF for s in (96, 64, 32, 0)]
             for a in (src, dst)]
    h = 0
    for word in words[0] + words[1]:
        h = _add(h, _be_word_as_le(word))
    ports = int.from_bytes((50000).to_bytes(2, "big")
                           + (445).to_bytes(2, "big"), "little")
    expected = _finish(_add(_add(h, 6), ports), 42)
    got = teaming.ovs_flow_hash_5tuple(words[0], words[1], 6, 50000, 445,
                                       ipv6=True)
    assert int(got) == expected
    # a protocol without ports hashes the addresses and protocol only
    no_ports = teaming.ovs_flow_hash_5tuple(sip, dip, 47, 1, 2)
    h = 0
    for value in (_be_word_as_le(sip), _be_word_as_le(dip), 47):
        h = _add(h, value)
    assert int(no_ports) == _finish(h, 42)


# -- models.teaming: 802.3ad aggregator, balance-alb byte hash -------------

def test_active_aggregator_case_t4():
    # teaming.md case T4: 802.3ad over 2 x 10 G + 2 x 25 G with
    # ad_select=stable: only the 25 G pair carries traffic
    speed = np.array([10.0, 10.0, 25.0, 25.0])
    assert teaming.active_aggregator(np.arange(4), speed).tolist() == [2, 3]
    # three 10 G ports outweigh one 25 G port
    speed = np.array([10.0, 10.0, 10.0, 25.0])
    assert teaming.active_aggregator(np.arange(4), speed).tolist() \
        == [0, 1, 2]


def test_byte_xor_is_the_xor_of_the_address_bytes():
    # bond_alb.c: balance-alb's bucket is the XOR of the destination
    # address's bytes; 192.168.1.20 -> 192 ^ 168 ^ 1 ^ 20 = 125
    ips = np.array([0xC0A80114, 0x0A000001, 0xFFFFFFFF], dtype=np.uint32)
    assert teaming.byte_xor(ips).tolist() == [125, 11, 0]
    rng = np.random.default_rng(7)
    ips = rng.integers(0, 2 ** 32, 1000, dtype=np.uint64).astype(np.uint32)
    by_bytes = np.bitwise_xor.reduce(
        [(ips.astype(np.int64) >> s) & 0xFF for s in (0, 8, 16, 24)])
    assert (teaming.byte_xor(ips) == by_bytes).all()


def test_lbt_defaults_are_vmwares():
    # vSphere 7.0 Networking, "Route Based on Physical NIC Load": 75 %
    # over 30 s
    assert teaming.LBT_THRESHOLD_PCT == 75.0
    assert teaming.LBT_PERIOD_S == 30.0


def test_lbt_defaults_defined_once():
    # the schema's team defaults and the LBT procedure's are the named
    # constants of models.teaming
    import inspect

    from models.scenario import Team
    from solvers import teaming_dynamic
    fields = Team.model_fields
    assert fields["lbt_threshold_pct"].default == teaming.LBT_THRESHOLD_PCT
    assert fields["lbt_period_s"].default == teaming.LBT_PERIOD_S
    assert fields["lbt_max_moves_per_uplink"].default \
        == teaming.LBT_MAX_MOVES_PER_UPLINK
    defaults = inspect.signature(teaming_dynamic.lbt).parameters
    assert defaults["threshold"].default == teaming.LBT_THRESHOLD_PCT / 100
    assert defaults["period_steps"].default == teaming.LBT_PERIOD_S
    assert defaults["max_moves_per_uplink"].default \
        == teaming.LBT_MAX_MOVES_PER_UPLINK
