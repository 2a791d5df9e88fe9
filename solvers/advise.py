"""Recommendations: detect an issue with evidence, propose a precise
parameter change, and predict its effect by re-evaluating the changed
scenario; and a grid search with its Pareto front.

Every predicted number is what :func:`solvers.evaluate.evaluate` gives for
the changed scenario: the candidates are evaluated together as variants of
the base, so the prediction is the model itself, not a rule of thumb.
"""

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from models.scenario import GOALS, ScenarioError
from solvers import __version__, metric_ids
from solvers.analyses import registry
from solvers.analysis import Candidate
from solvers.evaluate import evaluate, evaluate_documents, evaluate_grid
from solvers.grid import paused_gc, product_indices, validate_values
from solvers.results import Progress

#: A change must move the goal metric by more than this to be advised [%].
MIN_GAIN_PCT = 0.5

#: Largest grid :func:`search` evaluates in one call.
MAX_GRID = 1_000_000

#: Points :func:`search` evaluates together between two callbacks.
SEARCH_CHUNK_POINTS = 16_384

@dataclass(frozen=True)
class Recommendation:
    """One finding with the change that fixes it and its predicted effect.

    Attributes
    ----------
    id : str
        Rule id, e.g. ``advice.storage.threads_per_disk``.
    severity : str
        ``critical``, ``warning`` or ``info``.
    message : str
        The change and its effect in words, with numbers and units.
    evidence : dict
        ``metric``, ``value`` and ``threshold`` that triggered the rule.
    change : dict
        Parameter path -> ``{"old": ..., "new": ...}``.
    effect : dict
        Metric id -> ``{"before", "after", "change_pct", "unit"}``.
    gain_pct : float
        Improvement of the goal metric (positive is better). [%]
    """

    id: str
    severity: str
    message: str
    evidence: dict
    change: dict
    effect: dict
    gain_pct: float


@dataclass(frozen=True)
class AdviceResult:
    """Result of :func:`advise`, ``scipy.optimize`` style."""

    goal: str
    metric: str
    base_value: float
    recommendations: tuple = ()
    success: bool = True
    status: int = 0
    message: str = ""
    rejected: tuple = field(default_factory=tuple)

    def to_dict(self, scenario):
        """Plain data for JSON, with the version and scenario hash."""
        return {"linkplan_version": __version__,
                "scenario": scenario.meta.name,
                "scenario_sha256": scenario.sha256(), "goal": self.goal,
                "metric": self.metric, "base_value": self.base_value,
                "message": self.message,
                "recommendations": [asdict(r) for r in self.recommendations]}

    def to_table(self, scenario):
        """The recommendations as text, one block per change."""
        lines = [f"Scenario: {scenario.meta.name}",
                 f"Goal: {self.goal} ({self.metric} = {self.base_value:.4g} "
                 f"now); {self.message}", ""]
        if not self.recommendations:
            lines.append("No change improves the goal: nothing to "
                         "recommend.")
        for rank, r in enumerate(self.recommendations, 1):
            lines.append(f"{rank}. [{r.severity}] {r.id}  "
                         f"({r.gain_pct:+.1f} % on the goal)")
            for path, change in r.change.items():
                lines.append(f"     change  {path}: {change['old']!r} → "
                             f"{change['new']!r}")
            for metric_id, e in r.effect.items():
                delta = "" if e["change_pct"] is None \
                    else f"  ({e['change_pct']:+.1f} %)"
                now = f" (as {e['metric_after']})" if "metric_after" in e \
                    else ""
                unit = "" if e["unit"] in ("1", "") else f" {e['unit']}"
                lines.append(f"     effect  {metric_id}: {e['before']:.4g} "
                             f"→ {e['after']:.4g}{unit}{delta}{now}")
            value = r.evidence.get("value")
            if isinstance(value, (int, float)):
                threshold = r.evidence.get("threshold")
                lines.append(f"     because {r.evidence['metric']} = "
                             f"{value:.4g}" + (
                                 "" if threshold is None
                                 else f" (threshold {threshold:.4g})"))
        return "\n".join(lines) + "\n"


def resolve_goal(scenario, goal=None):
    """The goal to rank by: the argument, the scenario's, or the one its
    workloads suggest (storage -> IOPS, transfers -> throughput, migrations
    -> time, flows -> peak utilization).

    Raises
    ------
    ValueError
        If the goal is unknown or the scenario has nothing it measures.
    """
    if goal is None and scenario.goal is not None:
        goal = scenario.goal.kind
    goals = metric_ids.goals()
    if goal is None:
        ranked = sorted((g for g in goals.values() if g.rank is not None),
                        key=lambda g: g.rank)
        goal = next((g.kind for g in ranked if g.asks(scenario)), None)
        if goal is None:
            raise ValueError("goal: the scenario has no storage, transfer, "
                             "migration or teamed flows to optimise")
    if goal not in GOALS:
        raise ValueError(f"goal must be one of {', '.join(GOALS)}, got "
                         f"{goal!r}")
    if not goals[goal].asks(scenario):
        raise ValueError(f"goal {goal!r} needs workloads the scenario does "
                         f"not define (it measures {GOALS[goal][0]})")
    return goal


def goal_value(result, document, goal):
    """The goal metric of one evaluated variant (NaN if it has none); for
    ``min_peak_util`` the busiest team's configured policy."""
    return _goal_of(_values(result), document, goal)[1]


def _values(result):
    return {m.id: m.value for m in result.metrics}


def _goal_of(values, document, goal):
    """(metric id, value) of the goal among ``values`` ({id: value}): the
    worst of :func:`_goal_metrics` present, NaN when none is."""
    ids = _goal_metrics(document, goal)
    present = [(values[i], i) for i in ids if i in values]
    if not present:
        return ids[0], np.nan
    value, metric_id = max(present)
    return metric_id, value


def _goal_metrics(document, goal):
    """Metric ids whose worst value is the goal's."""
    if goal == "min_peak_util":
        return metric_ids.configured_peaks(document)
    return [GOALS[goal][0]]


def _goal_metric(document, goal, result=None):
    """The goal's metric id; with several teams, the one that is busiest
    in ``result``."""
    if result is None:
        return _goal_metrics(document, goal)[0]
    return _goal_of(_values(result), document, goal)[0]


def _better(goal):
    return 1.0 if GOALS[goal][1] == "max" else -1.0


def advise(scenario, goal=None, *, callback=None):
    """Findings with precise changes and their predicted effect, ranked by
    the gain on the goal.

    Parameters
    ----------
    scenario : Scenario
        Its base is advised (variants are ignored).
    goal : str, optional
        A key of :data:`models.scenario.GOALS`; default from the scenario.
    callback : callable, optional
        ``callback(progress) -> bool`` with a :class:`solvers.results.
        Progress` once the base is evaluated and again when the
        candidates are; returning True stops with no recommendation
        (status 1).

    Returns
    -------
    AdviceResult
    """
    goal = resolve_goal(scenario, goal)
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    base_result = evaluate(base).variants[0]
    kept, documents, rejected = _validated(
        base, _candidates(base, goal, base_result))
    before = goal_value(base_result, base, goal)
    metric = _goal_metric(base, goal, base_result)
    if callback is not None and callback(Progress(1, 1 + len(documents))):
        return AdviceResult(goal=goal, metric=metric, base_value=before,
                            success=False, status=1,
                            message="stopped by the callback before the "
                            f"{len(documents)} candidate(s) were evaluated")
    # the changed scenarios, evaluated together: what evaluate() gives for
    # each is the prediction
    results = evaluate_documents(
        [(f"candidate {i}", doc) for i, doc in enumerate(documents)],
        scenario=base.meta.name, scenario_sha256=base.sha256()).variants \
        if documents else ()
    if callback is not None:
        callback(Progress(1 + len(documents), 1 + len(documents)))
    recommendations = []
    for candidate, doc, variant in zip(kept, documents, results):
        after = goal_value(variant, doc, goal)
        if not np.isfinite(before) and np.isfinite(after):
            gain = 100.0   # e.g. a migration that now converges
        elif not (np.isfinite(before) and np.isfinite(after)) or before == 0:
            continue
        else:
            gain = _better(goal) * 100 * (after / before - 1)
        if gain <= MIN_GAIN_PCT:
            continue
        recommendations.append(_recommend(candidate, goal, base_result,
                                          variant, base, doc, gain))
    # ties on the goal (e.g. two ways to line rate) go to the cheaper one
    recommendations.sort(key=lambda r: (-round(r.gain_pct, 1), _cpu_after(r)))
    return AdviceResult(
        goal=goal, metric=metric, base_value=before,
        recommendations=tuple(recommendations), rejected=tuple(rejected),
        message=(f"{len(recommendations)} change(s) improve {metric} out "
                 f"of {len(kept)} tried"))


#: The key of the host CPU a change costs, as the analyses headline it.
_CPU_KEY = "cpu_pct"


def _cpu_after(recommendation):
    """The host CPU after a change: the first analysis (in registry
    order) that headlines it and has it in the change's effect."""
    for analysis in registry():
        if any(m.key == _CPU_KEY for m in analysis.metrics):
            metric_id = metric_ids.headline(analysis.name, _CPU_KEY)
            if metric_id in recommendation.effect:
                return recommendation.effect[metric_id]["after"]
    return 0.0


def _candidates(doc, goal, base):
    """What every analysis proposes for the base (evaluated as
    ``base``)."""
    for analysis in registry():
        if analysis.candidates is not None:
            yield from analysis.candidates(doc, goal, base)


def _validated(base, candidates):
    """The candidates that change something, each with its validated
    document; those the schema refuses are returned with the reason."""
    kept, documents, rejected = [], [], []
    for candidate in candidates:
        changes = {path: value for path, value in candidate.changes.items()
                   if base.value_at(path) != value}
        if not changes:
            continue
        try:
            documents.append(base.with_values(changes))
        except ScenarioError as err:
            rejected.append((candidate.id, str(err)))
            continue
        kept.append(Candidate(candidate.id, candidate.severity,
                              candidate.reason, candidate.evidence,
                              changes))
    return kept, documents, rejected


def _recommend(candidate, goal, before, after, base_doc, doc, gain):
    metric = _goal_metric(base_doc, goal, before)
    ids = [metric] + [m for m in metric_ids.goals()[goal].context
                      if m != metric]
    effect = {}
    for metric_id in ids:
        try:
            old, new = before.metric(metric_id), after.metric(metric_id)
        except KeyError:
            continue
        effect[metric_id] = _effect(old.value, new.value, old.unit)
    after_id, after_value = _goal_of(_values(after), doc, goal)
    if after_id != metric and metric in effect:
        # the goal follows the change (a team's new policy): compare the
        # goal itself, and say which metric it is after the change
        effect[metric] = {**_effect(effect[metric]["before"], after_value,
                                    effect[metric]["unit"]),
                          "metric_after": after_id}
    change = {path: {"old": base_doc.value_at(path), "new": value}
              for path, value in candidate.changes.items()}
    words = "; ".join(f"{path} {_show(c['old'])} → {_show(c['new'])}"
                      for path, c in change.items())
    main = effect.get(metric, {})
    message = (f"{words}: {metric} {_show(main.get('before'))} → "
               f"{_show(main.get('after'))} {main.get('unit', '')} "
               f"({gain:+.1f} % on the goal {goal}); because "
               f"{candidate.reason}")
    return Recommendation(id=candidate.id, severity=candidate.severity,
                          message=message, evidence=candidate.evidence,
                          change=change, effect=effect, gain_pct=gain)


def _effect(before, after, unit):
    return {"before": before, "after": after, "unit": unit,
            "change_pct": 100 * (after / before - 1) if before else None}


def _show(value):
    if isinstance(value, float):
        return f"{value:.4g}" if np.isfinite(value) else "—"
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class SearchResult:
    """Result of :func:`search`, ``scipy.optimize`` style.

    Attributes
    ----------
    best : dict
        Parameter path -> value of the best configuration.
    best_value : float
        Its goal metric.
    evaluated : int
        Configurations evaluated.
    pareto : list of dict
        The non-dominated configurations over the goal metric and the
        ``tradeoffs``, in grid order: ``point`` (its index in the grid),
        ``values`` (path -> value) and ``metrics``.
    success, status, message
    """

    goal: str
    metric: str
    best: dict
    best_value: float
    evaluated: int
    pareto: list
    success: bool
    status: int
    message: str


def search(scenario, grid, goal=None, *, tradeoffs=("host.cpu_pct",),
           callback=None):
    """Evaluate every combination of the allowed changes and return the
    best configuration and the Pareto front.

    The grid streams through in chunks of :data:`SEARCH_CHUNK_POINTS` on
    the column path (:func:`solvers.evaluate.evaluate_grid`); only the
    best point and the running front are kept, so memory does not grow
    with the grid.

    Parameters
    ----------
    scenario : Scenario
    grid : dict
        Parameter path -> list of allowed values.
    goal : str, optional
    tradeoffs : sequence of str
        Metric ids to minimise alongside the goal for the Pareto front
        (``'nic_count'`` counts ``nics``).
    callback : callable, optional
        ``callback(progress) -> bool`` after every chunk of
        :data:`SEARCH_CHUNK_POINTS` points with a
        :class:`solvers.results.Progress`; returning True stops the search
        with what was evaluated so far (status 1).

    Returns
    -------
    SearchResult

    Raises
    ------
    ValueError
        An empty grid or axis, a path the scenario does not have, or more
        than :data:`MAX_GRID` combinations (refused before any work).
    """
    goal = resolve_goal(scenario, goal)
    if not grid:
        raise ValueError("grid: give at least one parameter path with "
                         "values")
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    for path, values in grid.items():
        if not values:
            raise ValueError(f"grid.{path}: no values")
        try:
            base.value_at(path)
        except KeyError as err:
            raise ValueError(f"grid.{path}: {err.args[0]}") from None
    paths = list(grid)
    values = [list(grid[p]) for p in paths]
    total = math.prod(len(v) for v in values)
    if total > MAX_GRID:
        raise ValueError(f"grid: {total:,} combinations "
                         f"({' x '.join(f'{len(v):,}' for v in values)}), "
                         f"above the limit of {MAX_GRID:,}")
    # every value is validated once, the grid's corners as documents
    converters = validate_values(base, paths, [sorted(set(v), key=repr)
                                               for v in values])
    sign = _better(goal)
    metric = _goal_metric(base, goal)
    front = _Front(paths, values, goal, tradeoffs)
    done, stopped = 0, False
    for start in range(0, total, SEARCH_CHUNK_POINTS):
        stop = min(start + SEARCH_CHUNK_POINTS, total)
        indices = product_indices([len(v) for v in values], start, stop)
        with paused_gc():
            numbers, groups = evaluate_grid(base, paths, values, converters,
                                            indices, documents=True)
        front.add(start, indices, numbers, groups, sign)
        done = stop
        if callback is not None and callback(Progress(done, total)):
            stopped = True
            break
    best = front.best
    try:
        # values were validated one by one; the winner is checked whole
        base.with_values(best["values"])
    except ScenarioError as err:
        raise ValueError(f"grid: the best point {best['values']} "
                         f"breaks a rule that links parameters: {err}") \
            from None
    best_value = best["metrics"][best["goal"]]
    return SearchResult(
        goal=goal, metric=metric, best=best["values"],
        best_value=best_value, evaluated=done,
        pareto=[{k: p[k] for k in ("point", "values", "metrics")}
                for p in front.points],
        success=bool(np.isfinite(best_value)), status=int(stopped),
        message=(f"stopped by the callback after {done} of {total} "
                 "configurations" if stopped else
                 f"{done} configurations evaluated"))


class _Front:
    """The best point and the Pareto front of the points seen so far: the
    front of a union is the front of its parts' fronts, so each chunk's
    points are merged with the front and the rest dropped."""

    def __init__(self, paths, values, goal, tradeoffs):
        self.paths, self.values = paths, values
        self.goal, self.tradeoffs = goal, tradeoffs
        self.points, self.best = [], None
        self.scores = np.zeros(0)
        self.costs = np.zeros((0, len(tradeoffs)))

    def add(self, start, indices, numbers, groups, sign):
        count = len(indices[0])
        value = np.full(count, np.nan)
        goal_id = np.empty(count, dtype=object)
        costs = np.full((count, len(self.tradeoffs)), np.nan)
        for members, doc in groups:
            # the worst goal metric the point has (the largest value; on
            # a tie the last id, as max() of (value, id) pairs)
            ids = sorted((i for i in _goal_metrics(doc, self.goal)
                          if i in numbers), reverse=True)
            if ids:
                stack = np.stack([numbers[i][members] for i in ids])
                which = np.argmax(np.where(np.isnan(stack), -np.inf, stack),
                                  axis=0)
                value[members] = np.fmax.reduce(stack, axis=0)
                goal_id[members] = np.array(ids, dtype=object)[which]
            else:
                goal_id[members] = _goal_metrics(doc, self.goal)[0]
            for k, t in enumerate(self.tradeoffs):
                if t == "nic_count":
                    costs[members, k] = float(len(doc.nics))
                elif t in numbers:
                    costs[members, k] = numbers[t][members]
        scores = np.where(np.isfinite(value), sign * value, -np.inf)
        first = int(np.argmax(scores))
        if self.best is None or scores[first] > self.best["score"]:
            self.best = self._point(start, indices, first, value, goal_id,
                                    costs, scores)
        keep = pareto_front(np.concatenate([self.scores, scores]),
                            np.concatenate([self.costs, costs]))
        old = len(self.points)
        self.points = [self.points[i] if i < old else self._point(
            start, indices, i - old, value, goal_id, costs, scores)
            for i in keep]
        self.scores = np.array([p["score"] for p in self.points])
        self.costs = np.array([p["costs"] for p in self.points]).reshape(
            -1, len(self.tradeoffs))

    def _point(self, start, indices, i, value, goal_id, costs, scores):
        return {"point": start + i,
                "values": {p: v[int(index[i])] for p, v, index in
                           zip(self.paths, self.values, indices)},
                "metrics": {goal_id[i]: float(value[i]),
                            **dict(zip(self.tradeoffs,
                                       costs[i].tolist()))},
                "goal": goal_id[i], "score": scores[i],
                "costs": costs[i]}


def pareto_front(scores, costs):
    """Indices of the points no other point dominates: a higher score and
    no higher cost (all costs are minimised).

    Parameters
    ----------
    scores : numpy.ndarray, shape (P,)
        Higher is better.
    costs : numpy.ndarray, shape (P, K)
        Lower is better; NaN counts as worst.

    Returns
    -------
    list of int
    """
    costs = np.where(np.isnan(costs), np.inf, costs).reshape(len(scores), -1)
    order = np.lexsort((*costs.T[::-1], -scores))
    if costs.shape[1] == 1:
        # one trade-off: in (score desc, cost asc) order a point is on the
        # front when its cost is below every cost before it, or ties the
        # point that set that minimum exactly
        cost, score = costs[order, 0], scores[order]
        before = np.concatenate([[np.inf],
                                 np.minimum.accumulate(cost)[:-1]])
        setter = np.concatenate([[0], np.maximum.accumulate(
            np.where(cost < before, np.arange(cost.size), 0))[:-1]])
        keep = (cost < before) | ((cost == before)
                                  & (score == score[setter]))
        return sorted(order[keep].tolist())
    front = []
    # in this order a point can only be dominated by one already kept
    for index in order:
        dominated = any(scores[j] >= scores[index]
                        and (costs[j] <= costs[index]).all()
                        and (scores[j] > scores[index]
                             or (costs[j] < costs[index]).any())
                        for j in front)
        if not dominated:
            front.append(int(index))
    return sorted(front)

