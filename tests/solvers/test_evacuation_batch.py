"""The evacuation analysis' shortcuts give the numbers of the long way
exactly (issue 15, fleets): a plan simulates each distinct schedule once,
and numbers-only evaluation skips a placement MILP that cannot raise the
lower bound. Exact equality: a sweep's or fleet's rows must not move by
an ulp."""

from dataclasses import fields

import numpy as np
import pytest

from app.scenario_io import load_scenario
from solvers import schedule
from solvers.analyses import evacuation, registry
from solvers.evaluate import analyse_all, evaluate, evaluate_documents
from solvers.inputs import Inputs
from models.scenario import scenario_from_dict
from tests.conftest import EXAMPLES, fleet_document

EXAMPLE = EXAMPLES / "evacuation_maintenance.toml"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(EXAMPLE)


def test_a_plan_equals_every_candidate_simulated(scenario, monkeypatch):
    # the example's candidates coincide often (16 distinct of 56 at the
    # base's eight concurrencies): the copies must be the simulated rows
    calls = []
    original = schedule.plan_many

    def spy(batch):
        plans = original(batch)
        calls.extend(zip(batch, plans))
        return plans

    monkeypatch.setattr(schedule, "plan_many", spy)
    evaluate(scenario)
    # the base and its two variants (concurrency 2; auto and optimized)
    # share VMs, link and concurrencies: one plan serves all three
    assert len(calls) == 1
    entry, plan = calls[0]
    assert len({(c, *o) for c, o in zip(plan["concurrency"].tolist(),
                                        plan["schedules"].tolist())}) \
        < len(plan["concurrency"])
    every = schedule.simulate(entry.columns, entry.share, plan["schedules"],
                              plan["concurrency"], setup=entry.setup,
                              serial_setup=entry.serial_setup)
    _assert_same(plan["result"], every)


def _assert_same(mine, theirs):
    """Every field of two ScheduleResults equal (NaN where NaN)."""
    for field in fields(theirs):
        a, b = getattr(mine, field.name), getattr(theirs, field.name)
        if isinstance(b, np.ndarray):
            assert np.array_equal(a, b, equal_nan=True), field.name
        else:
            assert a == b, field.name


def test_numbers_only_equal_the_full_evaluation(scenario):
    # the lower bound without its MILP where closed forms dominate: the
    # same bound, so the same metrics in the same order
    full = evaluate(scenario)
    numbers = evaluate_documents(scenario.variant_documents(), scenario="",
                                 scenario_sha256="", numbers_only=True)
    for variant, values in zip(full.variants, numbers, strict=True):
        assert [(m.id, m.value) for m in variant.metrics] == \
            list(values.items())


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
    _assert_same(once, every)
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


def test_variants_share_plans_and_searches_with_the_same_numbers(scenario):
    # the analysis runs each plan and local search once for the variants
    # that share them (analyse's ``searched``): each variant's answer must
    # be exactly what evaluating it alone gives
    documents = scenario.variant_documents()
    inputs = Inputs(documents)
    host = dict(analyse_all(documents))
    rows = inputs.evacuations
    searched = {}
    for (index, item), columns, limit, cap, total in zip(
            rows.owners, rows.columns, rows.limits, rows.per_migration_cap,
            rows.aggregate_cap):
        rates = host[registered("host")][index].provides["rates"]
        shared = evacuation.evaluate_one(item, columns, limit, (cap, total),
                                         rates, searched=searched)
        alone = evacuation.evaluate_one(item, columns, limit, (cap, total),
                                        rates)
        for key in ("row", "best_row", "concurrency", "bound"):
            assert shared[key] == alone[key], key
        for field in fields(alone["plan"]["result"]):
            mine = getattr(shared["plan"]["result"], field.name)
            theirs = getattr(alone["plan"]["result"], field.name)
            if isinstance(theirs, np.ndarray):
                assert np.array_equal(mine, theirs, equal_nan=True), \
                    field.name
            else:
                assert mine == theirs, field.name
    assert len(searched) < 2 * len(rows.owners)   # something was shared


def test_evacuations_of_many_files_batched_equal_each_alone(scenario):
    # a fleet's evacuations are planned and searched together (one
    # pre-copy call per fixed-point iteration for all of them): each
    # answer must be exactly the one evaluating its evacuation alone
    # gives (hosts of a fleet: other link speeds, VM sizes, dirty rates)
    data = scenario.model_dump(mode="json")
    documents = [pair for i in (0, 1, 6) for pair in scenario_from_dict(
        fleet_document(data, i)).variant_documents()]
    inputs = Inputs(documents)
    host = dict(analyse_all(documents))
    rows = inputs.evacuations
    tasks = [(item, columns, limit, (cap, total),
              host[registered("host")][index].provides["rates"])
             for (index, item), columns, limit, cap, total in zip(
                 rows.owners, rows.columns, rows.limits,
                 rows.per_migration_cap, rows.aggregate_cap)]
    together = evacuation.evaluate_all(tasks, details=False)
    for task, batched in zip(tasks, together, strict=True):
        alone = evacuation.evaluate_one(*task, details=False)
        for key in ("row", "best_row", "concurrency", "bound",
                    "by_concurrency"):
            assert batched[key] == alone[key], key
        _assert_same(batched["plan"]["result"], alone["plan"]["result"])


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


def registered(name):
    """The analysis of the registry called ``name``."""
    return next(a for a in registry() if a.name == name)
