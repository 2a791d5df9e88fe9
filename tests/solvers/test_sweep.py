"""solvers/sweep.py: a sweep's plan (its points, in order, and the sweeps
it refuses before any work) and its chunks (the same numbers however the
points are cut, a model's infinity named with its point). The CLI's
writing of the rows is tested in tests/app/test_sweep.py."""

import numpy as np
import pytest

from models.scenario import parse_scenario, scenario_from_dict
from solvers import sweep
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def jumbo():
    """The example whose sweep is 5 link speeds x 16 MTUs."""
    path = EXAMPLES / "jumbo_10gbe.toml"
    return parse_scenario(path.read_text(encoding="utf-8"), "toml")


def with_sweep(scenario, axes, mode="product"):
    data = scenario.model_dump(mode="json")
    data["sweeps"] = [{"name": "s", "mode": mode, "axes": axes}]
    return scenario_from_dict(data)


def test_zip_mode_pairs_values(jumbo):
    plan = sweep.plan(with_sweep(jumbo, [
        {"path": "network.mtu", "values": [1500, 9000]},
        {"path": "nics[0].speed_gbps", "values": [1.0, 100.0]}], "zip"))
    assert plan.total == 2 and plan.point(1) == (9000, 100.0)


def test_product_points_vary_the_last_axis_fastest(jumbo):
    plan = sweep.plan(jumbo)
    assert plan.name == "mtu_by_link_speed" and plan.total == 5 * 16
    assert plan.point(0) == (1.0, 1500)
    assert plan.point(1) == (1.0, 2000)
    assert plan.point(16) == (10.0, 1500)
    assert plan.point(79) == (100.0, 9000)


@pytest.mark.parametrize("axes, mode, message", [
    ([{"path": "network.mtu", "values": [1500]},
      {"path": "network.mtu", "values": [9000]}], "product",
     r"sweeps\[0\]\.axes: a path appears twice"),
    ([{"path": "network.mtu", "values": [1500, 9000]},
      {"path": "nics[0].speed_gbps", "values": [1.0]}], "zip",
     r"zipped axes need equal lengths, got \[2, 1\]"),
    ([{"path": "network.mtu", "range": {"start": 576, "stop": 9000,
                                        "step": 1}},
      {"path": "nics[0].speed_gbps",
       "linspace": {"start": 1, "stop": 100, "num": 100_000}}], "product",
     r"842,500,000 points \(8,425 x 100,000\) is more than the "
     r"100,000,000 a sweep may have"),
    ([{"path": "network.mtu", "values": [1500, 100_000]}], "product",
     r"sweeps\[0\] \('s'\): .*network\.mtu"),
])
def test_a_sweep_it_cannot_run_is_refused_before_any_work(jumbo, axes, mode,
                                                          message):
    with pytest.raises(ValueError, match=message):
        sweep.plan(with_sweep(jumbo, axes, mode))


def test_no_sweep_and_an_unknown_name_are_named(jumbo):
    with pytest.raises(ValueError, match="defines no sweep"):
        sweep.plan(jumbo.model_copy(update={"sweeps": []}))
    with pytest.raises(ValueError, match="no sweep named 'nope' \\(the "
                                         "scenario has 'mtu_by_link_speed'"):
        sweep.plan(jumbo, "nope")


def test_chunks_of_any_size_give_the_same_numbers_in_point_order(jumbo):
    # the points are cut into chunks only to bound memory: 7 points at a
    # time must give exactly the numbers of one chunk of all 80
    plan = sweep.plan(jumbo)
    whole, = sweep.run(jumbo, plan)
    pieces = list(sweep.run(jumbo, plan, chunk_points=7))
    assert [c.start for c in pieces] == list(range(0, 80, 7))
    assert sum(len(c) for c in pieces) == len(whole) == 80
    for piece in pieces:
        for i in range(len(piece)):
            assert piece.values(i) == whole.values(piece.start + i)


def test_an_infinite_metric_names_its_point(jumbo):
    # NaN marks a metric a point lacks; an infinity is a model's failure,
    # refused with the point's values rather than written as a number
    plan = sweep.plan(jumbo)
    indices = plan.indices(16, 18)
    with pytest.raises(ValueError, match=r"point 17 \{'nics\[0\]\."
                                         r"speed_gbps': 10\.0, 'network\."
                                         r"mtu': 2000\}: metric x is not "
                                         "finite"):
        sweep._chunk(plan, 16, indices, {"x": np.array([1.0, np.inf])})
    chunk = sweep._chunk(plan, 16, indices, {"x": np.array([1.0, np.nan])})
    assert chunk.values(0) == {"x": 1.0} and chunk.values(1) == {}


def test_processes_only_above_the_measured_threshold():
    assert sweep.default_processes(sweep.PARALLEL_FROM_POINTS - 1, 8) == 1
    assert sweep.default_processes(sweep.PARALLEL_FROM_POINTS, 4) == 4
    assert sweep.default_processes(10 ** 6, None) == 1
