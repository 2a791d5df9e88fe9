"""Dynamic teaming policies and the teaming analysis of evaluate(),
against shared/reference/teaming.md section 9 and seed 000
(validation-cases.md, S-LBT). The placement they are measured against is
tested in test_placement.py."""

import numpy as np
import pytest

from models.scenario import ScenarioError, scenario_from_dict
from solvers import teaming_dynamic
from solvers.evaluate import evaluate
from tests.conftest import ROOT

from app.scenario_io import load_scenario  # noqa: E402  (CLI helper, no Qt)


# -- dynamic policies --------------------------------------------------------

def test_lbt_target_rules_v7():
    # V7 (teaming.md 2.6): A carries P1 = 6 G, P2 = 2 G (80 %), B carries
    # P3 = 3 G; "stay_below" never moves (B would be 90 %), "any_better"
    # moves P1 and then ping-pongs it back every period.
    tx = np.tile([6.0, 2.0, 3.0], (90, 1))
    rx = np.zeros_like(tx)
    _, moves = teaming_dynamic.lbt(tx, rx, [10.0, 10.0], [0, 0, 1])
    assert moves == []
    _, moves = teaming_dynamic.lbt(tx, rx, [10.0, 10.0], [0, 0, 1],
                                   target_rule="any_better")
    assert moves == [(30, 0, 0, 1), (60, 0, 1, 0), (90, 0, 0, 1)]


def test_lbt_uses_receive_direction_too():
    tx = np.zeros((60, 2))
    rx = np.tile([6.0, 2.0], (60, 1))
    _, moves = teaming_dynamic.lbt(tx, rx, [10.0, 10.0], [0, 0])
    assert moves[0][1:] == (0, 0, 1)


def ovs_case(heavy, light):
    counters = np.zeros(256, dtype=np.int64)
    member = np.full(256, -1)
    counters[:len(heavy)] = heavy
    member[:len(heavy)] = 0
    counters[100:100 + len(light)] = light
    member[100:100 + len(light)] = 1
    new = teaming_dynamic.ovs_rebalance(counters, member, [True, True])
    moved = sorted(counters[new != member].tolist())
    loads = np.bincount(new[new >= 0], counters[new >= 0], 2)
    return moved, loads.tolist()


M = 1_000_000


def test_ovs_rebalance_worked_example_o4():
    # O4 (teaming.md 4.3): buckets 1.5 M and 0.5 M move; 10 M / 10 M
    moved, loads = ovs_case([5 * M, 3 * M, 1.5 * M, 1.2 * M, 0.8 * M,
                             0.5 * M], [8 * M])
    assert moved == [500_000, 1_500_000] and loads == [10 * M, 10 * M]
    # second case: nothing fits under 2 M, the lightest (3 M) moves
    moved, loads = ovs_case([9 * M, 3 * M], [8 * M])
    assert moved == [3 * M] and loads == [9 * M, 11 * M]


@pytest.mark.parametrize("heavy, light", [
    ([5 * M, 5 * M], [9_700_000]),       # O2: 300 000 < 9.7 M >> 5
    ([100_000, 50_000], [60_000]),       # O3: 90 000 < 100 000
])
def test_ovs_rebalance_thresholds(heavy, light):
    moved, _ = ovs_case(heavy, light)
    assert moved == []


def test_ovs_recovered_member_gets_half_back_o6():
    # O6: 40 similar buckets on member 0, member 1 just recovered
    moved, loads = ovs_case([M] * 40, [])
    assert len(moved) == 20 and loads == [20 * M, 20 * M]


def test_ovs_counters_halve_between_runs_o5():
    rate = np.zeros((20, 1))
    rate[:10] = 8e-3     # 1 MB/s for 10 s, then silence
    member = teaming_dynamic.ovs_bond(rate, np.array([0]), 2)
    assert member.shape == (20, 1)


@pytest.mark.parametrize("total, fast, slow", [
    # T2 (teaming.md 3.5): 10 G + 1 G, 256 equal buckets
    (5.0, 5.00, 0.0), (10.0, 9.73, 0.27), (11.0, 10.23, 0.77),
])
def test_tlb_mixed_speeds_t2(total, fast, slow):
    # tolerance: one bucket is total / 256 <= 0.043 Gbit/s; the reference
    # rounds to 0.01
    rate = np.full(256, total / 256)
    member = teaming_dynamic.tlb_assign(rate, [10.0, 1.0])
    loads = np.bincount(member, weights=rate, minlength=2)
    assert loads == pytest.approx([fast, slow], abs=0.01)


def test_tlb_first_epoch_stacks_on_first_slave_t3():
    member = teaming_dynamic.tlb_assign(np.full(256, 0.01), [10.0, 10.0],
                                        first_epoch=True)
    assert set(member.tolist()) == {0}


# -- evaluate(): seed 000 and the teaming analysis ---------------------------

def seed000():
    return load_scenario(ROOT / "resources/examples/seed000_lbt.toml")


def test_seed000_lbt_phases():
    # S-LBT (VMware VROOM! blog, 2010; validation-cases.md): exact event
    # sequence. Phase 1: one uplink while under 7.5 Gbit/s; a port moves
    # only after an uplink averaged above 75 % over a 30 s period; one port
    # per event; ports per uplink 4/0 -> 3/1 -> 2/2; steady state about
    # 13 Gbit/s with the uplinks within 10 % of each other.
    scenario = seed000()
    base = evaluate(scenario).variants[0]
    trace = base.traces["teaming.lbt.uplink_util"]
    moves = trace["events"]
    assert [(m["from"], m["to"]) for m in moves] == \
        [("dvUplink1", "dvUplink2")] * 2
    assert len({m["port"] for m in moves}) == 2
    doc = scenario.variant_documents()[0][1]
    profile = doc.workloads.profiles[0]
    per_vm = doc.workloads.flows[0].tx_gbps

    def uplink1(t, ports):       # mean over the 30 s before t [Gbit/s]
        times = np.arange(t - 30, t)
        return ports * per_vm * np.interp(times, profile.t_s,
                                          profile.scale).mean()

    for move, ports in zip(moves, (4, 3)):
        t = move["t_s"]
        assert uplink1(t, ports) > 7.5
        assert uplink1(t - 30, ports) <= 7.5
    total_peak = 4 * per_vm * max(profile.scale)
    assert 12.5 <= total_peak <= 14.0
    series = [np.array(s["values"]) for s in trace["series"]]
    assert abs(series[0][-1] - series[1][-1]) <= 0.1 * series[0][-1]
    metrics = base.metric
    assert metrics("teaming.lbt.members_used").value == 2
    assert metrics("teaming.optimal.peak_util_pct").value == \
        pytest.approx(66.0)


def test_seed000_port_id_stays_on_one_uplink():
    result = evaluate(seed000()).variants[1]
    metrics = result.metric
    assert metrics("teaming.port_id.members_used").value == 1
    assert metrics("teaming.port_id.peak_util_pct").value == \
        pytest.approx(132.0)
    assert metrics("teaming.port_id.gap_to_optimal_pct").value == \
        pytest.approx(100.0)
    assert {f.id for f in result.findings} >= {"teaming.one_member",
                                               "teaming.overloaded",
                                               "teaming.better_policy"}


def test_every_policy_is_at_or_above_the_optimum():
    for variant in evaluate(seed000()).variants:
        optimal = variant.metric("teaming.optimal.peak_util_pct").value
        bound = variant.metric("teaming.optimal.lower_bound_pct").value
        assert bound <= optimal + 1e-9
        for metric in variant.metrics:
            if metric.id.endswith(".gap_to_optimal_pct"):
                assert metric.value >= -1e-9, metric.id


def scenario(flows, team=None, nics=2, **extra):
    return scenario_from_dict({
        "schema_version": 1, "meta": {"name": "t"},
        "nics": [{"id": f"n{i}", "speed_gbps": 10.0} for i in range(nics)],
        "teams": [{"name": "t", "members": [f"n{i}" for i in range(nics)],
                   **(team or {})}],
        "workloads": {"flows": flows}, **extra})


def test_n1_failure_reports_worst_peak():
    flows = [{"id": f"f{i}", "port_id": i, "tx_gbps": 4.0}
             for i in range(4)]
    metrics = evaluate(scenario(flows, {"policy": "port_id",
                                        "compare": []})).variants[0] \
        .metric
    assert metrics("teaming.port_id.peak_util_pct").value == \
        pytest.approx(80.0)
    # either uplink lost: 16 Gbit/s on the survivor
    assert metrics("teaming.port_id.n1_peak_util_pct").value == \
        pytest.approx(160.0)


def test_standby_uplink_takes_over_in_failover_order():
    flows = [{"id": "f0", "tx_gbps": 6.0}]
    doc = scenario_from_dict({
        "schema_version": 1, "meta": {"name": "t"},
        "nics": [{"id": "a", "speed_gbps": 25.0},
                 {"id": "b", "speed_gbps": 10.0}],
        "teams": [{"name": "t", "members": ["a"], "standby": ["b"],
                   "policy": "failover", "compare": []}],
        "workloads": {"flows": flows}})
    metrics = evaluate(doc).variants[0].metric
    # the 25 G active uplink carries 6 Gbit/s; when it fails the 10 G
    # standby takes over
    assert metrics("teaming.failover.peak_util_pct").value == \
        pytest.approx(24.0)
    assert metrics("teaming.failover.n1_peak_util_pct").value == \
        pytest.approx(60.0)


def test_lacp_uses_the_fastest_aggregator_t4():
    # T4: 802.3ad over 2 x 10 G + 2 x 25 G: only the 25 G pair carries
    nics = [{"id": f"n{i}", "speed_gbps": s}
            for i, s in enumerate((10.0, 10.0, 25.0, 25.0))]
    flows = [{"id": f"f{i}", "mac": f"00:00:00:00:00:{i:02x}",
              "dst_mac": "00:00:00:00:01:00", "tx_gbps": 1.0}
             for i in range(16)]
    doc = scenario_from_dict({
        "schema_version": 1, "meta": {"name": "t"},
        "host": {"hypervisor": "kvm"}, "nics": nics,
        "teams": [{"name": "t", "members": [n["id"] for n in nics],
                   "switch_mode": "lacp", "policy": "lacp",
                   "hash": "layer2", "compare": []}],
        "workloads": {"flows": flows}})
    trace = evaluate(doc).variants[0].traces["teaming.lacp.uplink_util"]
    peaks = [max(s["values"]) for s in trace["series"]]
    assert peaks[0] == peaks[1] == 0 and peaks[2] > 0 and peaks[3] > 0


def test_nioc_shares_on_the_adapter_v3():
    # V3 through evaluate(): three saturating classes on one 10 G uplink
    flows = [{"id": c, "traffic_class": c, "tx_gbps": 10.0}
             for c in ("ft", "iscsi", "mgmt")]
    doc = scenario(flows, {"policy": "failover", "compare": [],
                           "nioc": [{"traffic_class": "ft", "shares": 100},
                                    {"traffic_class": "iscsi",
                                     "shares": 100},
                                    {"traffic_class": "mgmt",
                                     "shares": 50}]})
    metrics = evaluate(doc).variants[0].metric
    got = [metrics(f"teaming.nioc.{c}.allocated_gbps").value
           for c in ("ft", "iscsi", "mgmt")]
    assert got == pytest.approx([4.0, 4.0, 2.0])


def test_flow_above_every_link_is_a_critical_finding():
    doc = scenario([{"id": "big", "tx_gbps": 12.0}], {"compare": []})
    findings = {f.id: f for f in evaluate(doc).variants[0].findings}
    assert findings["teaming.flow_exceeds_links"].severity == "critical"


@pytest.mark.parametrize("team, flows, fragment", [
    ({"policy": "ip_hash"}, [{"id": "a"}], "switch_mode 'static' or "
     "'lacp'"),
    ({"policy": "ip_hash", "switch_mode": "static"}, [{"id": "a"}],
     "workloads.flows[0].src_ip is required"),
    ({}, [{"id": "a", "vm": "x", "port_id": 1},
          {"id": "b", "vm": "y", "port_id": 1}], "port_id 1 is also used"),
    ({}, [{"id": "a", "vm": "x", "mac": "00:00:00:00:00:01"},
          {"id": "b", "vm": "y", "mac": "00:00:00:00:00:01"}],
     "mac '00:00:00:00:00:01' is also used"),
    ({"policy": "nope"}, [{"id": "a"}], "teams[0].policy"),
    ({"policy": "balance_xor", "switch_mode": "static",
      "hash": "transport_ports"}, [{"id": "a"}], "takes a Linux"),
    ({"nioc": [{"traffic_class": "a", "reservation_gbps": 8}]},
     [{"id": "a"}], "above 75 % of the slowest uplink"),
    ({}, [{"id": "a", "pin": ["n7"]}], "pin names 'n7'"),
])
def test_bad_teaming_input_names_the_field(team, flows, fragment):
    with pytest.raises(ScenarioError) as err:
        scenario(flows, team)
    assert fragment in str(err.value)


def test_policies_lacking_fields_are_skipped_with_a_note():
    flows = [{"id": "a", "tx_gbps": 1.0}]
    result = evaluate(scenario(flows)).variants[0]
    ids = {m.id for m in result.metrics}
    assert "teaming.port_id.peak_util_pct" in ids
    assert "teaming.ip_hash.peak_util_pct" not in ids
    assert any("ip_hash not compared: flows lack src_ip, dst_ip" in a
               for a in result.assumptions)


def test_flow_pinned_to_a_standby_only_is_a_finding_not_nan():
    # bad input: a pin no active uplink satisfies
    doc = scenario_from_dict({
        "schema_version": 1, "meta": {"name": "t"},
        "nics": [{"id": "a", "speed_gbps": 10.0},
                 {"id": "b", "speed_gbps": 10.0}],
        "teams": [{"name": "t", "members": ["a"], "standby": ["b"],
                   "compare": []}],
        "workloads": {"flows": [{"id": "f", "tx_gbps": 1.0, "pin": ["b"]}]}})
    result = evaluate(doc).variants[0]
    assert "teaming.pins_infeasible" in {f.id for f in result.findings}
    assert all(np.isfinite(m.value) for m in result.metrics)
    assert "teaming.optimal.peak_util_pct" not in {m.id for m in
                                                   result.metrics}


def test_ip_hash_uses_the_ipv6_last_octet():
    # VMware KB 2006129 wording: the last octet, for IPv6 too. Flow a:
    # ::a -> ::1f in different /64s, 0x0a ^ 0x1f = 21 -> uplink 1; a fold
    # of the four words (the Linux ipv6_addr_hash) would give 0xb3 ^ 0xa5
    # = 22 -> uplink 0, on top of flow b (0x0a ^ 0x1e = 20 -> uplink 0).
    flows = [{"id": "a", "src_ip": "2001:db8:0:1::a",
              "dst_ip": "2001:db8:0:2::1f", "tx_gbps": 6.0},
             {"id": "b", "src_ip": "2001:db8:0:1::a",
              "dst_ip": "2001:db8:0:1::1e", "tx_gbps": 6.0}]
    result = evaluate(scenario(flows, {"policy": "ip_hash",
                                       "switch_mode": "static",
                                       "compare": []})).variants[0]
    assert result.metric("teaming.ip_hash.peak_util_pct").value == \
        pytest.approx(60.0)


def test_ip_hash_shows_both_readings_on_three_uplinks():
    # 10.0.1.11 -> 10.0.0.20: last octets 31 % 3 = 1, 32-bit XOR 287 % 3 =
    # 2 (see the model test); both placements are named with their peaks
    flows = [{"id": "a", "src_ip": "10.0.1.11", "dst_ip": "10.0.0.20",
              "tx_gbps": 5.0},
             {"id": "b", "src_ip": "10.0.1.11", "dst_ip": "10.0.0.22",
              "tx_gbps": 3.0}]
    team = {"policy": "ip_hash", "switch_mode": "static", "compare": []}
    result = evaluate(scenario(flows, team, nics=3)).variants[0]
    notes = [a for a in result.assumptions if "two descriptions" in a]
    assert len(notes) == 1 and "last_octet" in notes[0] \
        and "xor32" in notes[0]
    two = evaluate(scenario(flows, team, nics=2)).variants[0]
    assert not [a for a in two.assumptions if "two descriptions" in a]


def test_ovs_rebalance_reinserts_after_equal_members():
    # openvswitch/ovs d6a632a9b16e ofproto/bond.c: insert_bal puts a member
    # before the first one carrying less, i.e. after all with equal bytes,
    # and bond_rebalance calls reinsert_bal(from), reinsert_bal(to) after
    # each moved entry. Buckets (MB): 0:3 @m2, 1:1 @m1, 2:3 @m2, 3:3 @m2,
    # 4:1 @m1; tx m0 0, m1 2, m2 9; bals [m2, m1, m0].
    # 1) m2 -> m0: ideal 4.5, takes bucket 0 (3); m2 6, m0 3, m1 2 ->
    #    [m2, m0, m1].
    # 2) m2 -> m1: ideal 2, no bucket fits, the closest (bucket 3) moves;
    #    m2 3, m1 5, m0 3. Re-inserting m2 puts it after m0 (equal 3 MB):
    #    [m1, m0, m2]. (A stable re-sort would keep m2 before m0.)
    # 3) m1 -> m2 (the back): ideal 1, takes bucket 1; m1 4, m2 4, m0 3.
    # 4) m1 has one entry left, m2 one: nothing more moves.
    # Result: buckets 0..4 on m0, m2, m2, m1, m1 (the stable re-sort would
    # have sent bucket 1 to m0 in step 3).
    counters = np.zeros(256, dtype=np.int64)
    counters[:5] = np.array([3, 1, 3, 3, 1]) * 1_000_000
    member = np.full(256, -1)
    member[:5] = [2, 1, 2, 2, 1]
    moved = teaming_dynamic.ovs_rebalance(counters, member,
                                          np.ones(3, dtype=bool))
    assert moved[:5].tolist() == [0, 2, 2, 1, 1]


def test_every_policy_traces_its_worst_n1_and_n2_loss():
    # issue 37 item 6: the N-1/N-2 picker drives the policy peaks and the
    # loads over time, so each compared policy carries its worst losses.
    # Three 10 G uplinks, port ID (port modulo the active uplinks): six
    # 3 Gbit/s ports; one uplink lost: 3 ports on each survivor = 9 Gbit/s
    # = 90 %; two lost: all 18 Gbit/s on the last one = 180 %
    flows = [{"id": f"f{i}", "port_id": i, "tx_gbps": 3.0}
             for i in range(6)]
    variant = evaluate(scenario(flows, {"policy": "port_id",
                                        "compare": ["failover"]},
                                nics=3)).variants[0]
    for policy in ("port_id", "failover"):
        trace = variant.traces[f"teaming.{policy}.uplink_util"]
        losses = {loss["k"]: loss for loss in trace["losses"]}
        assert sorted(losses) == [1, 2]
        # the N-1 loss is the one the n1 metric reports (same sets)
        assert losses[1]["peak_pct"] == pytest.approx(variant.metric(
            f"teaming.{policy}.n1_peak_util_pct").value, rel=1e-12)
        assert len(losses[2]["failed"]) == 2
        peaks = [max(s["values"]) for s in losses[2]["series"]]
        assert max(peaks) == pytest.approx(losses[2]["peak_pct"])
    port_id = variant.traces["teaming.port_id.uplink_util"]["losses"]
    assert port_id[0]["peak_pct"] == pytest.approx(90.0)
    assert port_id[1]["peak_pct"] == pytest.approx(180.0)
    # a lost uplink carries nothing
    lost = port_id[1]["failed"]
    for series in port_id[1]["series"]:
        if series["id"] in lost:
            assert max(series["values"]) == 0.0


def test_lbt_never_moves_a_port_to_an_uplink_it_may_not_use():
    # three uplinks, the third failed: uplink 0 sheds a port in each of
    # three periods; every move goes to uplink 1, never to the failed one
    # (the mask once stopped applying after the first move)
    steps, ports = 90, 6
    tx = np.full((steps, ports), 2.0)
    rx = np.zeros((steps, ports))
    member, moves = teaming_dynamic.lbt(
        tx, rx, np.array([10.0, 100.0, 100.0]), np.zeros(ports, dtype=int),
        period_steps=30, threshold=0.75,
        allowed=np.array([True, True, False]))
    assert len(moves) == 3
    assert {target for _, _, _, target in moves} == {1}
    assert not (member == 2).any()
