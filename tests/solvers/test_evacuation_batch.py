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
from solvers.evaluate import evaluate, evaluate_documents
from tests.conftest import EXAMPLES

EXAMPLE = EXAMPLES / "evacuation_maintenance.toml"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(EXAMPLE)


def test_a_plan_equals_every_candidate_simulated(scenario, monkeypatch):
    # the example's candidates coincide often (16 distinct of 56 at the
    # base's eight concurrencies): the copies must be the simulated rows
    calls = []
    original = schedule.plan

    def spy(*args, **kwargs):
        calls.append((args, kwargs, original(*args, **kwargs)))
        return calls[-1][2]

    monkeypatch.setattr(schedule, "plan", spy)
    evaluate(scenario)
    assert len(calls) == 3   # base and two variants
    (columns, _, share, _), kwargs, plan = calls[0]
    assert len({(c, *o) for c, o in zip(plan["concurrency"].tolist(),
                                        plan["schedules"].tolist())}) \
        < len(plan["concurrency"])
    for (columns, _, share, _), kwargs, plan in calls:
        every = schedule.simulate(columns, share, plan["schedules"],
                                  plan["concurrency"], **kwargs)
        for field in fields(every):
            mine, theirs = getattr(plan["result"], field.name), \
                getattr(every, field.name)
            if isinstance(theirs, np.ndarray):
                assert np.array_equal(mine, theirs, equal_nan=True), \
                    field.name
            else:
                assert mine == theirs, field.name


def test_numbers_only_equal_the_full_evaluation(scenario):
    # the lower bound without its MILP where closed forms dominate: the
    # same bound, so the same metrics in the same order
    full = evaluate(scenario)
    numbers = evaluate_documents(scenario.variant_documents(), scenario="",
                                 scenario_sha256="", numbers_only=True)
    for variant, values in zip(full.variants, numbers, strict=True):
        assert [(m.id, m.value) for m in variant.metrics] == \
            list(values.items())
