"""Golden numbers: every example's and template's solve, advise and sweep
numbers, and nothing else.

Issue 31: a refactoring must leave every number of every shipped scenario
as it was, and the golden must say which number changed, not bury it in
churn. So the golden (tests/data/golden/numbers.json) holds metrics only:
no scenario hash, no version, no timestamp, no label or message text.

Per scenario file of resources/examples and resources/templates:

- ``solve``: every metric of every variant (:func:`solvers.evaluate`);
- ``advise``: the goal's value and, per recommendation, its change, the
  re-evaluated effect, the evidence and the gain (or the refusal, for a
  scenario with nothing to optimise);
- ``sweep``: the scenario's own first [[sweeps]], else ``network.mtu`` at
  1500, 4000 and 9000 bytes (a column field every host has), each metric
  as a column over the points (null where a point has no such metric).

Everything runs in this process (no CLI subprocess per file). The numbers
are stored with ``repr`` (exact, and the same from run to run on one
machine) and compared to 1e-12 relative, as tests/app/test_golden.py
does: numpy's SIMD paths for exp and pow may differ in the last bit
between CPUs. After an intended change, regenerate with
``LINKPLAN_REGENERATE_GOLDEN=1`` and review the diff: it names the example,
the part and the metric that moved.
"""

import json
import math
import os

from pydantic import create_model

from models.scenario import Axis, Network, Scenario, Sweep, parse_scenario
from solvers import sweep
from solvers.advise import advise
from solvers.evaluate import evaluate
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "data" / "golden" / "numbers.json"
SCENARIO_DIRS = ("examples", "templates")

#: The sweep of a scenario without one of its own.
MTU_SWEEP = Sweep(name="mtu", axes=[Axis(path="network.mtu",
                                         values=[1500, 4000, 9000])])

#: Relative tolerance: last-bit differences of numpy's SIMD exp and pow
#: between CPUs (see the module docstring); any real change is far larger.
REL_TOL = 1e-12


def scenario_files():
    """Every shipped scenario file, as ``(key, path)``: ``examples/x``."""
    return [(f"{folder}/{path.stem}", path) for folder in SCENARIO_DIRS
            for path in sorted((ROOT / "resources" / folder).glob("*.toml"))]


def numbers_of(scenario):
    """The solve, advise and sweep numbers of one scenario."""
    return {"solve": solve_numbers(scenario),
            "advise": advise_numbers(scenario),
            "sweep": sweep_numbers(scenario)}


def solve_numbers(scenario):
    return {variant.name: {m.id: m.value for m in variant.metrics}
            for variant in evaluate(scenario).variants}


def advise_numbers(scenario):
    try:
        result = advise(scenario)
    except ValueError as err:   # no goal it could serve: the refusal
        return {"refused": str(err)}
    return {"goal": result.goal, "metric": result.metric,
            "base_value": result.base_value,
            "recommendations": [
                {"id": r.id, "change": r.change, "effect": r.effect,
                 "evidence": r.evidence, "gain_pct": r.gain_pct}
                for r in result.recommendations]}


def sweep_numbers(scenario):
    if not scenario.sweeps:
        scenario = scenario.model_copy(update={"sweeps": [MTU_SWEEP]})
    plan = sweep.plan(scenario)
    chunks = list(sweep.run(scenario, plan))
    ids = list(dict.fromkeys(i for c in chunks for i in c.metric_ids))
    columns = {metric_id: [] for metric_id in ids}
    for chunk in chunks:
        by_id = dict(zip(chunk.metric_ids, chunk.columns))
        for metric_id in ids:
            column = by_id.get(metric_id)
            columns[metric_id].extend(
                None if column is None or math.isnan(v) else float(v)
                for v in (column if column is not None
                          else [math.nan] * len(chunk)))
    return {"name": plan.name, "paths": list(plan.paths),
            "points": [list(plan.point(i)) for i in range(plan.total)],
            "metrics": columns}


def all_numbers():
    return {key: numbers_of(parse_scenario(path.read_text(encoding="utf-8"),
                                           "toml", source=str(path)))
            for key, path in scenario_files()}


def differences(actual, expected, where=""):
    """Where ``actual`` differs from ``expected``, one line each."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        def at(key):
            return f"{where}.{key}" if where else key
        lines = [f"{at(k)}: not in the golden" for k in actual
                 if k not in expected]
        lines += [f"{at(k)}: missing (golden {expected[k]!r})"
                  for k in expected if k not in actual]
        for key in expected:
            if key in actual:
                lines += differences(actual[key], expected[key], at(key))
        return lines
    if isinstance(expected, list) and isinstance(actual, list) \
            and len(actual) == len(expected):
        return [line for i, (a, e) in enumerate(zip(actual, expected))
                for line in differences(a, e, f"{where}[{i}]")]
    if isinstance(expected, float) and isinstance(actual, (int, float)) \
            and not isinstance(actual, bool):
        same = (math.isnan(expected) and math.isnan(actual)) or \
            math.isclose(actual, expected, rel_tol=REL_TOL, abs_tol=0.0)
    else:
        same = type(actual) is type(expected) and actual == expected
    return [] if same else [f"{where}: golden {expected!r}, now {actual!r}"]


def dump(numbers):
    """JSON with one line per metric (and per sweep metric's column), so
    that a diff of the golden names what moved."""
    def lines(value, indent):
        if isinstance(value, dict) and value:
            inner = " " * (indent + 1)
            items = [f"{inner}{json.dumps(k)}: {lines(v, indent + 1)}"
                     for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
        if isinstance(value, list) and any(isinstance(v, dict)
                                           for v in value):
            inner = " " * (indent + 1)
            items = [inner + lines(v, indent + 1) for v in value]
            return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
        return json.dumps(value)
    return lines(numbers, 0) + "\n"


def test_every_example_solves_advises_and_sweeps_to_its_golden_numbers():
    numbers = all_numbers()
    if os.environ.get("LINKPLAN_REGENERATE_GOLDEN"):
        GOLDEN.write_text(dump(numbers), encoding="utf-8")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    changed = differences(numbers, golden)
    assert not changed, (f"{len(changed)} number(s) differ from "
                         f"{GOLDEN.name}:\n" + "\n".join(changed[:40]))


def test_golden_holds_numbers_only():
    # issue 31: no hash, version or timestamp that churns without a
    # numeric change
    text = GOLDEN.read_text(encoding="utf-8")
    for word in ("sha256", "version", "timestamp", "date"):
        assert word not in text
    golden = json.loads(text)
    assert sorted(golden) == sorted(key for key, _ in scenario_files())
    assert all(golden[key]["solve"] and golden[key]["sweep"]["metrics"]
               for key in golden)


def test_a_new_defaulted_field_changes_no_golden_number():
    # issue 31: a schema field added with a default (a network table with
    # one more field) leaves the numbers of the golden as they were
    wider_network = create_model("WiderNetwork", __base__=Network,
                                 future_knob=(int, 7))
    wider_scenario = create_model(
        "WiderScenario", __base__=Scenario,
        network=(wider_network, wider_network()))
    path = ROOT / "resources" / "examples" / "jumbo_10gbe.toml"
    scenario = parse_scenario(path.read_text(encoding="utf-8"), "toml")
    widened = wider_scenario(**scenario.model_dump())
    assert widened.network.future_knob == 7
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert differences(solve_numbers(widened),
                       golden["examples/jumbo_10gbe"]["solve"]) == []
