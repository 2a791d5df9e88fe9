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
from tests.solvers.test_schedule import assert_same_schedules

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
    assert_same_schedules(plan["result"], every)


def test_numbers_only_equal_the_full_evaluation(scenario):
    # the lower bound without its MILP where closed forms dominate: the
    # same bound, so the same metrics in the same order
    full = evaluate(scenario)
    numbers = evaluate_documents(scenario.variant_documents(), scenario="",
                                 scenario_sha256="", numbers_only=True)
    for variant, values in zip(full.variants, numbers, strict=True):
        assert [(m.id, m.value) for m in variant.metrics] == \
            list(values.items())


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
        assert_same_schedules(batched["plan"]["result"],
                              alone["plan"]["result"])


def registered(name):
    """The analysis of the registry called ``name``."""
    return next(a for a in registry() if a.name == name)
