"""solvers/schedule.py: the evacuation schedules (slot order, the
neighbourhood of the local search) and the simulation's shortcuts, which
must give the numbers of the long way exactly: orders equal up to equal
VMs simulated once, a fixed point started from its own rates, distinct
pre-copy rows. Exact equality: a sweep's or fleet's rows must not move by
an ulp."""

from dataclasses import fields

import numpy as np
import pytest

from models.scenario import parse_scenario
from solvers import schedule
from solvers.inputs import Inputs
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def scenario():
    path = EXAMPLES / "evacuation_maintenance.toml"
    return parse_scenario(path.read_text(encoding="utf-8"), "toml")


def test_slot_order_places_the_slots_optimally_on_a_small_instance():
    # P||Cmax, times 3, 3, 2, 2, 2 on 2 slots: the optimum is 6 (3+3 |
    # 2+2+2) where LPT alone gives 7 (3+2+2 | 3+2). The placement's bound
    # is 6, and its queue order, run on two slots that each take the next
    # VM when free, ends at 6.
    times = np.array([3.0, 3.0, 2.0, 2.0, 2.0])
    order, bound, _ = schedule.slot_order(times, 2, method="auto")
    assert bound == pytest.approx(6.0)
    free = [0.0, 0.0]
    for i in order:
        slot = int(np.argmin(free))
        free[slot] += times[i]
    assert max(free) == pytest.approx(6.0)


def test_neighbours_swap_adjacent_and_next_wave_positions():
    out = schedule.neighbours(np.array([10, 11, 12, 13]), 2)
    # adjacent swaps, then each position with the one two later
    assert out.tolist() == [[11, 10, 12, 13], [10, 12, 11, 13],
                            [10, 11, 13, 12], [12, 11, 10, 13],
                            [10, 13, 12, 11]]


def assert_same_schedules(mine, theirs):
    """Every field of two ScheduleResults equal (NaN where NaN)."""
    for field in fields(theirs):
        a, b = getattr(mine, field.name), getattr(theirs, field.name)
        if isinstance(b, np.ndarray):
            assert np.array_equal(a, b, equal_nan=True), field.name
        else:
            assert a == b, field.name


def test_schedules_equal_up_to_equal_vms_are_simulated_once(scenario):
    # the example's VMs come in groups of equal inputs (four SQL servers,
    # ten application servers...): orders that only swap VMs of a group
    # are simulated once and the results handed over by queue position;
    # every number must be the one simulating each order gives (exactly:
    # the same arithmetic on the same inputs)
    inputs = Inputs([("Base", scenario)])
    columns = inputs.evacuations.columns[0]
    share = np.array([0.0, 3.0e9, 2.8e9, 2.2e9, 1.8e9])
    largest = np.argsort(-columns["memory"], kind="stable")
    swapped = largest.copy()
    swapped[[0, 3]] = swapped[[3, 0]]   # two of the equal 128 GiB VMs
    assert columns["memory"][largest[0]] == columns["memory"][largest[3]]
    other = largest[::-1]               # not equivalent: simulated too
    orders = np.array([largest, swapped, other, swapped])
    concurrency = np.array([2, 2, 2, 4])
    # with time off the link of both kinds: a serial set-up goes by queue
    # position, so a swap of equal VMs still changes nothing
    once = schedule.simulate(columns, share, orders, concurrency, setup=2.0,
                             serial_setup=0.8)
    every = schedule._simulate(columns, share, orders, concurrency, 2.0,
                               0.8)
    assert_same_schedules(once, every)
    # the swapped VMs traded their results
    first, fourth = largest[0], largest[3]
    assert once.start[1, first] == once.start[0, fourth]
    assert once.start[0, first] != once.start[0, fourth]


def test_a_fixed_point_started_from_its_own_rates_stops_at_once(scenario):
    # the local search starts each neighbour from the incumbent's rates:
    # started from a schedule's own converged rates, the fixed point must
    # find them unmoved (one iteration) and the same schedule within the
    # fixed point's tolerance (TOLERANCE on every rate; makespans move by
    # less than that relative change)
    inputs = Inputs([("Base", scenario)])
    columns = inputs.evacuations.columns[0]
    share = np.array([0.0, 3.0e9, 2.8e9, 2.2e9, 1.8e9])
    largest = np.argsort(-columns["memory"], kind="stable")
    orders = np.array([largest, largest[::-1]])
    concurrency = np.array([2, 4])
    cold = schedule.simulate(columns, share, orders, concurrency)
    assert cold.success and cold.iterations > 1
    assert cold.settled.all()   # each schedule, not only the set
    for row in range(2):
        warm = schedule.simulate(
            columns, share, orders[row:row + 1], concurrency[row:row + 1],
            start_rates=(cold.head_rate[row], cold.rest_rate[row]))
        assert warm.success and warm.iterations == 1
        assert np.allclose(warm.end[0], cold.end[row],
                           rtol=schedule.TOLERANCE, atol=0)
        assert np.array_equal(warm.converged[0], cold.converged[row])


def test_distinct_precopy_rows_equal_the_whole_call(scenario):
    # the fixed point runs each distinct (VM, first-pass rate, rate) once:
    # the numbers must be those of the pre-copy model on every row
    columns = Inputs([("Base", scenario)]).evacuations.columns[0]
    vms = columns["memory"].size
    rng = np.random.default_rng(3)
    rest = rng.choice([0.6e9, 1.1e9, 2.9e9], size=(5, vms))
    head = rest * rng.choice([0.8, 1.0], size=(5, vms))
    got, = schedule._distinct_precopy(columns, [0], [(head, rest)])
    every = schedule.precopy(columns, rest, first_rate=head, trace=True)
    for key in schedule.FIXED_POINT_FIELDS:
        assert np.array_equal(got[key], every[key], equal_nan=True), key
    assert np.array_equal(got["first_pass"], every["round_seconds"][..., 0])

