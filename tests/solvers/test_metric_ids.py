"""solvers/metric_ids.py: the metric-id grammar, its builders and parser,
and the unit of every id the examples produce."""

import pytest

from models.scenario import parse_scenario
from solvers import metric_ids
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES


def load_scenario(path):
    return parse_scenario(path.read_text(encoding="utf-8"), "toml")


@pytest.mark.parametrize("metric_id, parts", [
    ("wire.goodput_gbps", ("wire", "goodput_gbps", None, None, None)),
    ("transfer.lm.net.throughput_gbps",
     ("transfer", "throughput_gbps", "lm.net", None, None)),
    ("teaming.lbt.peak_util_pct",
     ("teaming", "peak_util_pct", None, None, "lbt")),
    ("teaming.t2.optimal.lower_bound_pct",
     ("teaming", "lower_bound_pct", None, "t2", "optimal")),
    ("teaming.nioc.vmotion.allocated_gbps",
     ("teaming", "allocated_gbps", None, None, "nioc")),
    ("teaming.a.b.nioc.nfs.demand_gbps",
     ("teaming", "demand_gbps", None, "a.b", "nioc")),
])
def test_metric_ids_parse_what_the_builders_make(metric_id, parts):
    parsed = metric_ids.parse(metric_id)
    assert (parsed.family, parsed.key, parsed.name, parsed.team,
            parsed.policy) == parts


def test_builders_and_parser_agree_on_every_example_metric():
    for path in sorted(EXAMPLES.glob("*.toml")):
        for variant in evaluate(load_scenario(path)).variants:
            for metric in variant.metrics:
                parsed = metric_ids.parse(metric.id)
                if parsed.family == "teaming" and parsed.policy == "nioc":
                    rebuilt = metric_ids.nioc(parsed.traffic_class,
                                              parsed.key, parsed.team)
                elif parsed.family == "teaming":
                    rebuilt = metric_ids.teaming(parsed.policy, parsed.key,
                                                 parsed.team)
                elif parsed.name is None:
                    rebuilt = metric_ids.headline(parsed.family, parsed.key)
                else:
                    rebuilt = metric_ids.item(parsed.family, parsed.name,
                                              parsed.key)
                assert rebuilt == metric.id
                assert metric.unit == metric_ids.info(metric.id)[0]


def test_unparseable_teaming_id_is_refused():
    with pytest.raises(ValueError, match="no teaming policy"):
        metric_ids.parse("teaming.nothing.peak_util_pct")



def test_sweep_axes_are_declared_paths_in_advises_pick_order():
    # the Sweep tab starts on these: each must be a field some example
    # sets (a misspelt path would silently fall back to the first field)
    from models.scenario import get_path, scenario_data
    documents = [scenario_data(load_scenario(path))
                 for path in sorted(EXAMPLES.glob("*.toml"))]
    axes = metric_ids.sweep_axes()
    for name, paths in axes.items():
        for path in paths:
            found = []
            for data in documents:
                try:
                    found.append(get_path(data, path))
                except (KeyError, IndexError, ValueError, TypeError):
                    continue
            assert found, f"{name}: no example has {path}"
    # a document without a goal is asked storage, transfer, migration ...
    # first (the goals' ranks); the wire, with no goal, comes last
    assert list(axes)[:2] == ["storage", "host"] and list(axes)[-1] == "wire"


@pytest.mark.parametrize("mark", [
    ("knee", "missing", "turns", None),       # not one of its metrics
    ("knee", "load", "reaches", None),        # reaches nothing
    ("knee", "load", "sometimes", None),      # no such kind
])
def test_a_sweep_mark_must_read_the_analysis_own_metrics(mark):
    from solvers.analysis import Analysis, Metric, SweepMark
    with pytest.raises(ValueError, match="sweep mark"):
        Analysis("probe", order=99, bottleneck_priority=99, module=__name__,
                 metrics=(Metric("load", "%", "load"),), headline="load",
                 sweep_marks=(SweepMark(*mark),))


def test_sweep_marks_in_the_order_a_chart_draws_them():
    # turning points, then reached levels, then tops (app.sweep_run.marks
    # lists them so; the chart labels each kind once)
    kinds = [mark.kind for mark, _, _ in metric_ids.sweep_marks()]
    assert kinds == sorted(kinds, key=("turns", "reaches", "tops").index)
    assert ("migration.converged", None) in [
        (shown, reached) for _, shown, reached in metric_ids.sweep_marks()]
