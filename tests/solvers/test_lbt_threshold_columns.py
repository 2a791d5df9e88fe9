"""A column sweep over LBT's threshold (issue 36): the teaming analysis
runs once, LBT once for all thresholds (a row per class of thresholds
whose comparisons come out alike), and every point still equals
``evaluate`` of its document."""

import json

import numpy as np

from models.scenario import parse_scenario
from solvers import sweep, teaming_dynamic
from solvers.analyses import teaming
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES
from tests.solvers.test_sweep_columns import assert_point_equals_evaluate

PATH = "teams[0].lbt_threshold_pct"


def _lbt_with_sweep(values):
    scenario = parse_scenario((EXAMPLES / "seed000_lbt.toml").read_text(),
                              "toml")
    data = json.loads(scenario.model_dump_json())
    data["variants"] = []
    data["sweeps"] = [{"name": "threshold", "mode": "product",
                       "axes": [{"path": PATH, "values": values}]}]
    return parse_scenario(json.dumps(data), "json")


def _thresholds():
    """Thresholds from 50 to 95 %, plus the utilizations the template's
    simulations compare with (as percent) and the floats either side of
    them: the edges of the classes, where a wrong class would show."""
    scenario = _lbt_with_sweep([75.0])
    with teaming_dynamic.threshold_comparisons() as seen:
        evaluate(scenario.model_copy(update={"sweeps": []}))
    edges = sorted({100 * u for u in seen if 0.5 < u < 0.95})[:8]
    assert edges, "seed 000's LBT compares utilizations of 50-95 %"
    around = [v for edge in edges for v in (
        np.nextafter(edge, 0.0), edge, np.nextafter(edge, 100.0))]
    return sorted({*np.linspace(50.0, 95.0, 1000).tolist(),
                   *map(float, around)}), set(map(float, around))


def test_every_threshold_equals_evaluate_and_classes_share_one_run(
        monkeypatch):
    values, edges = _thresholds()
    runs = []
    analyse = teaming._analyse_document

    def counted(*args, **kwargs):
        runs.append(args[0])
        return analyse(*args, **kwargs)

    monkeypatch.setattr(teaming, "_analyse_document", counted)
    scenario = _lbt_with_sweep(values)
    sweep_plan = sweep.plan(scenario)
    chunk = next(sweep.run(scenario, sweep_plan,
                           chunk_points=sweep_plan.total))
    monkeypatch.setattr(teaming, "_analyse_document", analyse)
    # one teaming analysis for every threshold (before: one per class of
    # them, and before that one per value)
    assert len(runs) == 1, len(runs)
    # every point at and beside a class edge, and every 20th
    for index in range(sweep_plan.total):
        if values[index] in edges or index % 20 == 0:
            assert_point_equals_evaluate(scenario, sweep_plan, chunk, index)
    # the thresholds do change the answer: the classes are several
    peaks = {chunk.values(i)["teaming.lbt.peak_util_pct"]
             for i in range(sweep_plan.total)}
    assert len(peaks) > 1


def test_lbt_classes_equal_lbt_at_each_threshold():
    """Every class of :func:`teaming_dynamic.lbt_classes` (rows split and
    joined again as thresholds part ways) is, for each of its thresholds,
    that threshold's own :func:`teaming_dynamic.lbt` run: members at
    every step and moves, on random demand with repeated periods (the
    idle shortcut), failed uplinks and both target rules."""
    rng = np.random.default_rng(36)
    classes = 0
    for _ in range(60):
        period = int(rng.integers(3, 12))
        ports, uplinks = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        blocks = rng.random((int(rng.integers(2, 10)), ports)) * \
            rng.choice([1.0, 5.0, 20.0])
        tx = np.repeat(np.repeat(blocks, rng.integers(1, 4, len(blocks)),
                                 axis=0), period, axis=0)
        tx = tx[:tx.shape[0] - int(rng.integers(0, period))]
        rx = tx * rng.choice([0.1, 1.0])
        speed = rng.choice([1.0, 10.0, 25.0], uplinks)
        initial = rng.integers(0, uplinks, ports)
        options = {"period_steps": period,
                   "max_moves_per_uplink": int(rng.integers(1, 3)),
                   "allowed": None if rng.random() < 0.5
                   else rng.random(uplinks) < 0.7,
                   "target_rule": ("stay_below", "any_better")[
                       int(rng.integers(0, 2))]}
        thresholds = np.sort(rng.random(25) * 1.2)
        placement, first_step, moves, first = teaming_dynamic.lbt_classes(
            tx, rx, speed, initial, thresholds, **options)
        member = np.repeat(placement, np.diff(np.append(first_step,
                                                        tx.shape[0])),
                           axis=1)
        of = np.searchsorted(first, np.arange(thresholds.size),
                             side="right") - 1
        classes += len(first)
        for k, threshold in enumerate(thresholds):
            alone, alone_moves = teaming_dynamic.lbt(
                tx, rx, speed, initial, threshold=threshold, **options)
            assert np.array_equal(member[of[k]], alone)
            assert moves[of[k]] == alone_moves
    assert classes > 2 * 60   # the thresholds did part ways
