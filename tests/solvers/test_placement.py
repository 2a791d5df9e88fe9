"""solvers/placement.py: the optimal placement of flows on a team's
members (LPT, local search, the bisection search and the MILP) against
brute force and shared/reference/teaming.md section 7 (validation-cases.md,
S1-S3)."""

import itertools

import numpy as np
import pytest
from scipy.optimize import OptimizeWarning

from solvers.placement import (fit_into, local_search, lower_bound, lpt,
                               place)


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


def test_place_warns_on_an_unknown_option_like_scipy():
    with pytest.warns(OptimizeWarning, match="time_limt"):
        result = place([1.0, 2.0], [10.0, 10.0],
                       options={"time_limt": 1.0})
    assert result.success

