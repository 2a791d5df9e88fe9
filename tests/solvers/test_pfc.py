"""The PFC headroom analysis (solvers/analyses/pfc.py): the example's
numbers, the finding and binding limit of a class short of headroom, and
its schema fields. The analysis is one module with its declaration; no
other file of the core or the faces names it."""

import pytest

from app.scenario_io import load_scenario
from models import pfc
from models.scenario import ScenarioError, scenario_from_dict
from solvers import metric_ids
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES


def example():
    return load_scenario(EXAMPLES / "explain_pfc_headroom.toml")


def test_example_needs_the_annex_n_headroom():
    # 100 GbE, MTU 9000 (9022 B tagged frames), 4162 B RoCE frames:
    # 72,336 + 672 + 2 x 122,880 + 2 x 1500 (3 m) + 394 x 512 + 33,456 =
    # 556,952 bit times = 69,619 B (the example's header)
    base, far = evaluate(example()).variants
    assert base.metric("pfc.roce.needed_bytes").value == pytest.approx(
        556_952 / 8)
    assert base.metric("pfc.needed_bytes").value == pytest.approx(
        556_952 / 8)
    # 100 m instead of 3: 2 x 97 m x 5 ns/m x 100 Gbit/s more
    assert far.metric("pfc.roce.needed_bytes").value == pytest.approx(
        (556_952 + 97_000) / 8)
    assert base.metric("pfc.roce.headroom_margin_pct").value == \
        pytest.approx(100 * (76_800 / (556_952 / 8) - 1))
    assert base.metric("pfc.roce.stop_s").value == pytest.approx(
        556_952 / 100e9)
    assert "pfc.headroom_short" not in {f.id for f in base.findings}
    short = next(f for f in far.findings if f.id == "pfc.headroom_short")
    assert "81,744 B" in short.message and "80 KiB" in short.message
    assert far.bottleneck.id == "pfc.headroom"
    assert base.bottleneck.id != "pfc.headroom"


def test_labels_and_units_come_from_the_declaration():
    assert metric_ids.info("pfc.needed_bytes") == (
        "B", "PFC: headroom needed per port, all lossless classes")
    assert metric_ids.info("pfc.roce.stop_s") == (
        "s", "roce: time from pause to the last frame in")
    metrics = evaluate(example()).variants[0].metrics
    assert {m.unit for m in metrics if m.id.startswith("pfc.")} == \
        {"B", "%", "s"}


def with_lossless(lossless, **nic):
    data = example().model_dump(mode="json", exclude_defaults=True)
    data["lossless"] = lossless
    data["variants"] = []
    data["nics"] = [dict(n, **nic) for n in data["nics"]]
    return scenario_from_dict(data)


def test_the_headline_sums_the_classes_and_keeps_the_smallest_margin():
    scenario = with_lossless({"cable_m": 3.0, "classes": [
        {"name": "roce", "priority": 3, "headroom_bytes": 80_000},
        {"name": "cnp", "priority": 6, "frame_bytes": 128,
         "headroom_bytes": 40_000}]})
    variant = evaluate(scenario).variants[0]
    roce = variant.metric("pfc.roce.needed_bytes").value
    cnp = variant.metric("pfc.cnp.needed_bytes").value
    assert roce - cnp == pytest.approx(9022 - 128)
    assert variant.metric("pfc.needed_bytes").value == pytest.approx(
        roce + cnp)
    assert variant.metric("pfc.headroom_margin_pct").value == \
        pytest.approx(100 * (40_000 / cnp - 1))
    assert variant.bottleneck.id == "pfc.headroom"
    assert "'cnp'" in variant.bottleneck.message


def test_a_speed_without_published_bounds_is_said_not_computed():
    scenario = with_lossless({"classes": [{"name": "roce", "priority": 3}]},
                             speed_gbps=200.0)
    variant = evaluate(scenario).variants[0]
    assert not [m for m in variant.metrics if m.id.startswith("pfc.")]
    found = next(f for f in variant.findings
                 if f.id == "pfc.speed_not_modelled")
    assert "200 Gbit/s" in found.message
    assert 200.0 not in pfc.SPEEDS


def test_without_lossless_classes_nothing_is_computed():
    data = example().model_dump(mode="json", exclude_defaults=True)
    del data["lossless"]
    data["variants"] = []
    variant = evaluate(scenario_from_dict(data)).variants[0]
    assert not [m for m in variant.metrics if m.id.startswith("pfc.")]


@pytest.mark.parametrize("lossless, message", [
    ({"classes": [{"name": "a", "priority": 3},
                  {"name": "b", "priority": 3}]},
     r"lossless.classes\[1\].priority 3 is used twice"),
    ({"classes": [{"name": "a", "priority": 8}]}, r"priority"),
    ({"cable_m": 20_000, "classes": [{"name": "a", "priority": 3}]},
     r"cable_m"),
    ({"classes": []}, r"classes"),
])
def test_lossless_fields_are_checked_with_their_path(lossless, message):
    with pytest.raises(ScenarioError, match=message):
        with_lossless(lossless)
