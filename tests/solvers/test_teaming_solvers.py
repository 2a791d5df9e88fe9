"""Placement, dynamic teaming policies and the teaming analysis of
evaluate(), against shared/reference/teaming.md section 9 and seed 000
(validation-cases.md, S-LBT)."""

import itertools

import numpy as np
import pytest

from models.scenario import ScenarioError, scenario_from_dict
from solvers import teaming_dynamic
from solvers.evaluate import evaluate
from solvers.placement import (fit_into, local_search, lower_bound,
                                lpt, place)
from tests.conftest import ROOT

from app.scenario_io import load_scenario  # noqa: E402  (CLI helper, no Qt)


def brute_force(demand, speed, allowed=None, groups=None):
    """Optimal peak by enumerating every assignment (all at once: up to
    4 ** 9 rows); inf when none is allowed."""
    demand, speed = np.asarray(demand, float), np.asarray(speed, float)
    units, members = demand.size, speed.size
    assignment = np.array(list(itertools.product(range(members),
                                                 repeat=units)))
    legal = np.ones(len(assignment), dtype=bool)
    if allowed is not None:
        legal &= np.asarray(allowed)[np.arange(units), assignment].all(axis=1)
    if groups is not None:
        for group in set(groups) - {-1}:
            mine = assignment[:, np.asarray(groups) == group]
            legal &= (np.sort(mine, axis=1)[:, 1:]
                      != np.sort(mine, axis=1)[:, :-1]).all(axis=1)
    if not legal.any():
        return np.inf
    assignment = assignment[legal]
    load = (demand[None, :, None] * (assignment[:, :, None]
                                     == np.arange(members))).sum(axis=1)
    return float((load / speed).max(axis=1).min())


# -- placement ---------------------------------------------------------------

def test_lpt_classic_instance_s1():
    # S1 (Wikipedia, LPT): {4, 5, 6, 7, 8} on two equal members: LPT 17,
    # optimum 15
    member = lpt([4, 5, 6, 7, 8], [1, 1])
    assert np.bincount(member, weights=[4, 5, 6, 7, 8]).max() == 17
    result = place([4, 5, 6, 7, 8], [1, 1])
    assert result.peak == 15 and result.status == 0 and result.success


def test_uniform_members_s2():
    # S2 (teaming.md 7.3): LB 0.9333, LPT 1.16, optimum 1.00
    demand, speed = [9, 7, 6, 6, 8, 6], [10, 10, 25]
    member = lpt(demand, speed)
    load = np.bincount(member, weights=demand, minlength=3)
    assert (load / speed).max() == pytest.approx(1.16)
    result = place(demand, speed)
    assert result.peak == pytest.approx(1.0)
    assert result.status == 0
    # below a peak of 1 each 10 G member holds one unit (6 + 6 > 10) and
    # the 25 G member three (6 + 6 + 6 + 7 > 25): 5 < 6 units, so the
    # counting bound is 1.00 [Derived] and the local search's 1.00 is
    # proven without the MILP; the MILP alone finds the same optimum
    assert result.lower_bound == pytest.approx(1.0)
    milp = place(demand, speed, method="milp")
    assert milp.peak == pytest.approx(1.0) and milp.status == 0


@pytest.mark.parametrize("seed", range(12))
def test_milp_matches_brute_force_s3(seed):
    # S3: on instances up to 9 x 3 a status-0 MILP result equals
    # enumeration (exact up to HiGHS' mip_rel_gap 1e-4)
    rng = np.random.default_rng(seed)
    units = int(rng.integers(3, 10))
    demand = rng.uniform(0.5, 10, units).round(2)
    speed = rng.choice([10.0, 25.0, 40.0], 3)
    result = place(demand, speed, method="milp")
    exact = brute_force(demand, speed)
    assert result.status == 0
    assert result.peak == pytest.approx(exact, rel=1e-4)
    assert result.lower_bound <= exact * (1 + 1e-9)
    lpt_member = lpt(demand, speed)
    lpt_peak = (np.bincount(lpt_member, weights=demand, minlength=3)
                / speed).max()
    assert exact <= lpt_peak + 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_pins_and_anti_affinity_match_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    units = 7
    demand = rng.uniform(1, 8, units).round(2)
    speed = np.array([10.0, 10.0, 25.0])
    allowed = rng.random((units, 3)) < 0.7
    allowed[np.arange(units), rng.integers(0, 3, units)] = True
    groups = np.array([0, 0, 1, 1, -1, -1, -1])
    exact = brute_force(demand, speed, allowed, groups)
    for method, options in (("search", {"mip_rel_gap": 0.0}),
                            ("milp", None)):
        result = place(demand, speed, allowed=allowed, groups=groups,
                       method=method, options=options)
        if not np.isfinite(exact):
            assert result.status == 2
            continue
        assert result.peak == pytest.approx(exact, rel=1e-4)
        assert result.lower_bound <= exact * (1 + 1e-12)
        assert allowed[np.arange(units), result.member].all()
        for group in (0, 1):
            chosen = result.member[groups == group]
            assert len(set(chosen)) == len(chosen)


@pytest.mark.parametrize("seed", range(30))
def test_search_with_pins_and_groups_matches_brute_force(seed):
    # enumeration with allowed sets and anti-affinity groups (LPT may place
    # nothing where a placement exists: the search then starts from any
    # packing); equal members with equal allowed columns stay
    # interchangeable, others not
    rng = np.random.default_rng(400 + seed)
    demand, speed = random_small_instance(seed)
    units, members = demand.size, speed.size
    allowed = rng.random((units, members)) < 0.6
    groups = rng.integers(-1, 2, units) if seed % 2 else np.full(units, -1)
    exact = brute_force(demand, speed, allowed, groups)
    result = place(demand, speed, allowed=allowed, groups=groups,
                   method="search", options={"mip_rel_gap": 0.0})
    if not np.isfinite(exact):
        assert result.status == 2 and not result.success
        return
    assert result.status == 0
    assert result.peak == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert result.lower_bound <= exact * (1 + 1e-12)
    assert allowed[np.arange(units), result.member].all()
    for group in set(groups) - {-1}:
        chosen = result.member[groups == group]
        assert len(set(chosen)) == len(chosen)
    auto = place(demand, speed, allowed=allowed, groups=groups)
    assert auto.lower_bound <= exact * (1 + 1e-12) <= auto.peak * (1 + 1e-12)
    assert auto.status == 0 and auto.gap <= 0.005 + 1e-12


@pytest.mark.parametrize("seed", range(20))
def test_lower_bound_and_local_search_hold_on_brute_force(seed):
    # S3 (teaming.md, test table): LB <= optimum <= LPT on every instance; the
    # counting bound and the local search must keep both sides
    rng = np.random.default_rng(200 + seed)
    units = int(rng.integers(3, 9))
    demand = rng.lognormal(0.0, 1.0, units)
    speed = rng.choice([10.0, 25.0, 40.0], 3)
    exact = brute_force(demand, speed)
    assert lower_bound(demand, speed) <= exact * (1 + 1e-12)
    start = lpt(demand, speed)
    better = local_search(start, demand, speed)
    peak = (np.bincount(better, weights=demand, minlength=3) / speed).max()
    lpt_peak = (np.bincount(start, weights=demand, minlength=3)
                / speed).max()
    assert exact * (1 - 1e-12) <= peak <= lpt_peak


def random_small_instance(seed):
    """Up to 9 units on up to 4 members: lognormal demands (teaming.md 7.5),
    small integers (equal units and zeros) or a few repeated sizes, on
    mixed or equal speeds; small enough to enumerate."""
    rng = np.random.default_rng(300 + seed)
    units, members = int(rng.integers(1, 10)), int(rng.integers(1, 5))
    units = min(units, 7 if members == 4 else 9)
    demand = [rng.lognormal(0.0, 1.0, units),
              rng.integers(0, 6, units).astype(float),
              rng.choice([1.0, 2.0, 3.0], units)][seed % 3]
    speed = rng.choice([1.0, 10.0, 25.0, 40.0], members) if seed % 2 \
        else np.full(members, 10.0)
    return demand, speed


@pytest.mark.parametrize("seed", range(40))
def test_search_matches_brute_force(seed):
    # S3 (teaming.md, test table) by enumeration: the bisection asked for
    # the optimum (mip_rel_gap 0, resolution SEARCH_MIN_STEP = 1e-9) finds
    # it and proves a bound that is at most it; the decision search says no
    # just below the optimum and yes at it (1e-7 and 1e-9 relative: far
    # above the float rounding of these sums, ~1e-15)
    demand, speed = random_small_instance(seed)
    exact = brute_force(demand, speed)
    result = place(demand, speed, method="search",
                   options={"mip_rel_gap": 0.0})
    assert result.status == 0 and result.success
    assert result.peak == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert result.lower_bound <= exact * (1 + 1e-12)
    if exact > 0:
        assert fit_into(demand, exact * (1 - 1e-7) * speed) is None
        packed = fit_into(demand, exact * (1 + 1e-9) * speed)
        load = np.bincount(packed, weights=demand, minlength=speed.size)
        assert (load <= exact * (1 + 1e-9) * speed).all()


@pytest.mark.parametrize("seed", range(40))
def test_auto_gap_is_a_proven_bound(seed):
    # the reported lower bound never exceeds the enumerated optimum and
    # the reported gap is scipy's (peak - bound) / peak, within tol when
    # the status says optimal
    demand, speed = random_small_instance(seed)
    exact = brute_force(demand, speed)
    result = place(demand, speed)
    assert result.lower_bound <= exact * (1 + 1e-12) <= \
        result.peak * (1 + 1e-12)
    if result.peak > 0:
        assert result.gap == pytest.approx(
            (result.peak - result.lower_bound) / result.peak, abs=1e-15)
    assert result.status == 0 and result.gap <= 0.005 + 1e-12


def mixed_speed_instance(flows, seed):
    """A random instance of the placement benchmark's kind: lognormal
    flows (sigma 1) on 2-8 uplinks of 10-100 Gbit/s."""
    rng = np.random.default_rng(seed)
    speed = rng.choice([10.0, 25.0, 40.0, 100.0], int(rng.integers(2, 9)))
    return rng.lognormal(0.0, 1.0, flows), speed


def test_search_proves_what_the_milp_left_open():
    # 20 flows on 8 uplinks (10-100 G): LPT with local search stays 2.1 %
    # above the closed-form bound, and HiGHS (scipy 1.17.1, mip_rel_gap
    # 0.005, 2 s) stopped at status 1 with a gap of 0.78 % (measured; issue
    # 15); the bisection proves 0.5 % (time limit generous, so that the
    # test does not depend on the machine's load)
    demand, speed = mixed_speed_instance(20, 13)
    start = local_search(lpt(demand, speed), demand, speed)
    lpt_peak = (np.bincount(start, weights=demand, minlength=speed.size)
                / speed).max()
    assert lpt_peak > lower_bound(demand, speed) * 1.005
    result = place(demand, speed, options={"time_limit": 60.0})
    assert result.method == "search" and result.status == 0
    assert result.gap <= 0.005 + 1e-12
    assert result.peak <= lpt_peak


def test_lpt_within_tolerance_is_optimal_in_scipys_sense():
    # 200 flows on mixed uplinks: LPT lands within 0.5 % of the bound
    # (teaming.md 7.5: 200 units, max gap 0.15 %), which auto reports as
    # status 0 (within the tolerance it was asked for), as scipy does
    # within mip_rel_gap; method='lpt' asks for no tolerance: status 1
    demand, speed = mixed_speed_instance(200, 1)
    result = place(demand, speed)
    assert result.method == "lpt" and result.status == 0
    assert 0 < result.gap <= 0.005
    assert place(demand, speed, method="lpt").status == 1


def test_search_out_of_time_keeps_a_feasible_open_gap():
    # a time limit of 0 s stops the search at its first step: the LPT
    # placement with its closed-form bound, status 1 (scipy: limit hit)
    demand, speed = mixed_speed_instance(20, 13)
    result = place(demand, speed, options={"time_limit": 0.0})
    assert result.status == 1 and result.success
    assert result.gap > 0.005
    assert result.lower_bound == pytest.approx(lower_bound(demand, speed))


@pytest.mark.parametrize("demand, speed, message", [
    ([1.0, -2.0], [10.0, 10.0], r"demand\[1\] must be finite and >= 0, "
                                r"got -2\.0"),
    ([1.0, np.nan], [10.0, 10.0], r"demand\[1\] must be finite.*nan"),
    ([1.0, 2.0], [10.0, 0.0], r"speed\[1\] must be finite and > 0, "
                              r"got 0\.0"),
    ([1.0, 2.0], [10.0, np.inf], r"speed\[1\] must be finite.*inf"),
    ([1.0, 2.0], [], r"speed is empty: a placement needs at least one "
                     r"member"),
    ([[1.0, 2.0]], [10.0], r"demand must be one-dimensional.*\(1, 2\)"),
    (["a", 2.0], [10.0], r"demand must be numbers, got \['a', 2\.0\]"),
])
def test_bad_placement_input_is_named(demand, speed, message):
    with pytest.raises(ValueError, match=message):
        place(demand, speed)


def test_bad_placement_shapes_and_methods_are_named():
    with pytest.raises(ValueError, match=r"allowed must have shape \(2, 2\)"
                                         r".*got \(2, 3\)"):
        place([1.0, 2.0], [10.0, 10.0], allowed=np.ones((2, 3), bool))
    with pytest.raises(ValueError, match="method 'search' takes at most "
                                         "400 units, got 401"):
        place(np.ones(401), [10.0, 10.0], method="search")
    with pytest.raises(ValueError, match="method must be 'auto', 'lpt', "
                                         "'search' or 'milp', got 'fast'"):
        place([1.0, 2.0], [10.0, 10.0], method="fast")


def test_symmetric_members_keep_the_optimum():
    # S1 (Wikipedia, LPT) on four equal members, twice: {4..8} x 2 packs
    # into 15 + 15 + 15 + 15 only one way up to relabelling; the symmetry
    # rows among the four equal members must leave it feasible
    result = place([4, 5, 6, 7, 8] * 2, [1, 1, 1, 1], method="milp")
    assert result.peak == 15 and result.status == 0


def test_unit_with_no_allowed_member_is_infeasible():
    result = place([1.0, 2.0], [10.0, 10.0],
                   allowed=[[True, True], [False, False]])
    assert result.status == 2 and not result.success


def test_many_small_flows_heuristic_within_one_percent():
    # 100 000 flows on 8 mixed uplinks: the water-filled LPT tail lands
    # within 1 % of the lower bound (the target)
    rng = np.random.default_rng(3)
    demand = rng.lognormal(-2, 1, 100_000)
    speed = np.array([10, 10, 25, 25, 40, 40, 100, 100.0])
    result = place(demand, speed, method="lpt")
    assert result.gap <= 0.01
    assert result.lower_bound <= result.peak


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
