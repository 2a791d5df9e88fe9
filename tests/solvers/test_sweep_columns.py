"""Column sweeps (issue 15, item 1): a point evaluated on columns, without
a document of its own, equals ``evaluate`` on the equivalent document."""

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.scenario import parse_scenario
from solvers import sweep
from solvers.evaluate import evaluate, evaluate_columns, evaluate_grid
from solvers.columns import column_targets
from tests.conftest import EXAMPLES

SCENARIOS = {path.stem: parse_scenario(path.read_text(), "toml")
             for path in sorted(EXAMPLES.glob("*.toml"))}

#: Relative agreement of a column point with its document (the issue's
#: target): both run the same vectorised models on the same numbers, so
#: only a different order of floating-point operations could part them.
AGREEMENT = 1e-12


def _with_sweep(scenario, axes):
    """The scenario as JSON with one product sweep over ``axes``."""
    data = json.loads(scenario.model_dump_json())
    data["sweeps"] = [{"name": "property", "mode": "product",
                       "axes": [{"path": p, "values": v} for p, v in axes]}]
    return json.dumps(data)


def _points(columns):
    """Columns of metrics as one {id: value} per point, without the
    metrics a point does not have (NaN)."""
    count = len(next(iter(columns.values())))
    return [{k: float(v[p]) for k, v in columns.items()
             if not math.isnan(v[p])} for p in range(count)]


def assert_point_equals_evaluate(scenario, sweep_plan, chunk, index):
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    point = dict(zip(sweep_plan.paths, sweep_plan.point(chunk.start
                                                        + index)))
    expected = evaluate(base.with_values(point)).variants[0]
    # a metric other points of the chunk have is absent here
    values = chunk.values(index)
    assert set(values) == {m.id for m in expected.metrics}
    for metric in expected.metrics:
        assert values[metric.id] == pytest.approx(
            metric.value, rel=AGREEMENT, abs=0.0), (point, metric.id)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(SCENARIOS)), data=st.data())
def test_column_points_equal_evaluate_on_every_example(name, data):
    scenario = SCENARIOS[name]
    network = scenario.network
    low = max(network.mtu_min, 1280 if network.ip_version == 6 else 576)
    mtus = data.draw(st.lists(st.integers(low, network.mtu_max),
                              min_size=1, max_size=3, unique=True))
    tags = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=2,
                              unique=True))
    stamps = data.draw(st.lists(st.booleans(), min_size=1, max_size=2,
                                unique=True))
    speeds = data.draw(st.lists(st.sampled_from([1.0, 10.0, 25.0, 100.0]),
                                min_size=1, max_size=2, unique=True))
    axes = [("nics[0].speed_gbps", speeds), ("network.mtu", mtus),
            ("network.vlan_tags", tags), ("network.tcp_timestamps", stamps)]
    if scenario.workloads.storage:
        last = len(scenario.workloads.storage) - 1
        axes.append((f"workloads.storage[{last}].threads_per_disk",
                     data.draw(st.lists(st.integers(1, 64), min_size=1,
                                        max_size=2, unique=True))))
        axes.append(("workloads.storage[0].disks_per_vm",
                     data.draw(st.lists(st.integers(1, 16), min_size=1,
                                        max_size=2, unique=True))))
    scenario = parse_scenario(_with_sweep(scenario, axes), "json")
    try:
        sweep_plan = sweep.plan(scenario)
    except ValueError:   # a value this example's network refuses
        return
    chunk = next(sweep.run(scenario, sweep_plan,
                           chunk_points=sweep_plan.total))
    index = data.draw(st.integers(0, sweep_plan.total - 1))
    assert_point_equals_evaluate(scenario, sweep_plan, chunk, index)


@pytest.mark.parametrize("name", [n for n, s in SCENARIOS.items()
                                  if s.sweeps])
def test_every_point_of_every_example_sweep_equals_evaluate(name):
    scenario = SCENARIOS[name]
    sweep_plan = sweep.plan(scenario)
    for chunk in sweep.run(scenario, sweep_plan, chunk_points=7):
        for index in range(len(chunk)):
            assert_point_equals_evaluate(scenario, sweep_plan, chunk, index)


@pytest.mark.parametrize("name", ["seed001_live_migration",
                                  "evacuation_maintenance"])
def test_columns_differ_from_the_template_only_in_their_fields(name):
    # one point per MTU on columns vs. the template evaluated at each:
    # migrations and evacuations ride the host's rates at that MTU
    scenario = SCENARIOS[name]
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    mtus = np.array([1500, 4000, 9000])
    numbers = _points(evaluate_columns(base, {"network.mtu": mtus}, 3))
    for mtu, values in zip(mtus, numbers):
        expected = evaluate(base.with_value("network.mtu", int(mtu)))
        for metric in expected.variants[0].metrics:
            assert math.isclose(values[metric.id], metric.value,
                                rel_tol=AGREEMENT, abs_tol=0.0)
    assert column_targets("network.mtu") is not None
    assert column_targets("workloads.storage[0].protocol") is None


@pytest.mark.parametrize("field, values", [("threads_per_disk", [1, 4, 32]),
                                           ("disks_per_vm", [1, 3, 9]),
                                           ("vms", [1, 2, 7])])
def test_a_storage_item_column_sets_only_its_own_rows(field, values):
    # seed004 has eight storage workloads: the middle one varies
    scenario = SCENARIOS["seed004_jumbo_ip_storage"]
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    path = f"workloads.storage[3].{field}"
    numbers = _points(evaluate_columns(base, {path: np.array(values)},
                                       len(values)))
    for value, point in zip(values, numbers):
        expected = evaluate(base.with_value(path, value)).variants[0]
        assert set(point) == {m.id for m in expected.metrics}
        for metric in expected.metrics:
            assert math.isclose(point[metric.id], metric.value,
                                rel_tol=AGREEMENT, abs_tol=0.0), metric.id


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_columns_list_metrics_in_the_order_of_evaluate(name):
    # the CSV columns of a sweep are the first chunk's metric ids: the
    # column path gives them in the order a document's result has them
    base = SCENARIOS[name].model_copy(update={"variants": [], "sweeps": []})
    columns = evaluate_columns(
        base, {"network.mtu": np.array([base.network.mtu])}, 1)
    expected = [m.id for m in evaluate(base).variants[0].metrics]
    assert [k for k, v in columns.items() if not math.isnan(v[0])] \
        == expected


#: Values tried for a column field that the example leaves unset (None,
#: or 'auto'): plausible settings of that field, by its last name.
UNSET_VALUES = {
    "stream_cap_gbps": [2.0, 9.5], "stream_cap_pps": [1e5, 1.2e6],
    "first_round_rate_cap_mib_s": [300.0, 3000.0],
    "downtime_budget_ms": [100.0, 800.0], "max_switchover_s": [0.5, 5.0],
    "time_budget_s": [60.0, 900.0], "max_bandwidth_mib_s": [100.0, 4000.0],
    "sessions_per_path": [1, 4], "iops_max": [2e4, 2e5],
    "mbps_max": [500.0, 5000.0], "devices": [4, 24],
    "service_time_ms": [0.2, 2.0], "channels": [8, 64],
    "bandwidth_per_migration_mib_s": [200.0, 2000.0],
    "total_bandwidth_mib_s": [1000.0, 8000.0], "concurrency": [1, 3],
    "streams": [1, 4],
}


def _concrete_paths(data, generic):
    """The paths of ``generic`` (``[]`` for any index) the plain-data
    document has, each list at its first and last entry, with the value
    there."""
    def walk(node, parts, prefix):
        for key in parts[0].strip(".").split("."):
            if not isinstance(node, dict) or key not in node:
                return
            node = node[key]
        head = prefix + parts[0].strip(".")
        if len(parts) == 1:
            yield head, node
            return
        for i in sorted({0, len(node) - 1}) if node else ():
            yield from walk(node[i], parts[1:], f"{head}[{i}].")
    return list(walk(data, generic.split("[]"), ""))


def _field_values(path, value):
    """Four values of a column field around the example's ``value``."""
    if value is None or value == "auto":
        values = UNSET_VALUES[path.rsplit(".", 1)[-1]]
    elif isinstance(value, bool):
        values = [value, not value]
    elif isinstance(value, int):
        values = [max(1, value // 2), value + 1, 2 * value + 1]
    else:
        values = [0.5 * value, 1.7 * value, 0.8 * value]
    values = list(dict.fromkeys(values))
    return (values * 4)[:max(4, len(values))]


def _field_cases():
    from solvers.columns import FIELDS
    cases = []
    for name, scenario in SCENARIOS.items():
        data = scenario.model_dump(mode="json")
        for generic in FIELDS:
            for path, value in _concrete_paths(data, generic):
                cases.append(pytest.param(name, path, value,
                                          id=f"{name}-{path}"))
    return cases


#: Column fields whose values in these examples change the structure of
#: the inputs, so that their points are grouped by value: a multipath
#: transfer uses a NIC per session (more sessions or streams, more
#: NICs), and more concurrent migrations than the platform's limit add
#: rows for the evacuation's rates.
STRUCTURAL = {("evacuation_maintenance", "workloads.transfers[0].sessions"),
              ("evacuation_maintenance", "workloads.transfers[0].streams"),
              ("evacuation_maintenance",
               "workloads.evacuations[0].concurrency"),
              ("seed003_vmotion", "workloads.transfers[0].sessions")}


@pytest.mark.parametrize("name, path, value", _field_cases())
def test_every_column_field_of_every_example_equals_evaluate(name, path,
                                                             value):
    # each column field at four values (an axis of four points: the
    # column path), the first and last point against evaluate of the
    # document; values the example refuses are left out
    scenario = SCENARIOS[name]
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    values = []
    for candidate in _field_values(path, value):
        try:
            base.with_value(path, candidate)
        except ValueError:
            continue
        values.append(candidate)
    if not values:
        pytest.skip(f"{name} accepts none of the values tried for {path}")
    values = (values * 4)[:max(4, len(values))]
    swept = parse_scenario(_with_sweep(scenario, [(path, values)]), "json")
    sweep_plan = sweep.plan(swept)
    chunk = next(sweep.run(swept, sweep_plan,
                           chunk_points=sweep_plan.total))
    for index in (0, sweep_plan.total - 1):
        assert_point_equals_evaluate(swept, sweep_plan, chunk, index)
    # the points share one template (the column path) unless the values
    # change the structure
    _, groups = evaluate_grid(base, sweep_plan.paths, sweep_plan.values,
                              sweep_plan.converters,
                              sweep_plan.indices(0, sweep_plan.total),
                              documents=True)
    assert (len(groups) > 1) == ((name, path) in STRUCTURAL)
