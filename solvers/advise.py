"""Recommendations: detect an issue with evidence, propose a precise
parameter change, and predict its effect by re-evaluating the changed
scenario; and a grid search with its Pareto front.

Every predicted number is what :func:`solvers.evaluate.evaluate` gives for
the changed scenario: the candidates are evaluated together as variants of
the base, so the prediction is the model itself, not a rule of thumb.
"""

import itertools
from dataclasses import asdict, dataclass, field

import numpy as np

from models import wire
from models.scenario import GOALS, TEAMING_POLICIES, ScenarioError
from models.teaming import default_hash
from solvers import __version__, storage
from solvers.grid import grid_documents, paused_gc
from solvers.evaluate import evaluate, evaluate_documents

#: A change must move the goal metric by more than this to be advised [%].
MIN_GAIN_PCT = 0.5

#: Largest grid :func:`search` evaluates in one call.
MAX_GRID = 1_000_000

#: Secondary metrics reported with each goal.
GOAL_CONTEXT = {
    "max_throughput": ("host.throughput_gbps", "host.cpu_pct"),
    "min_cpu": ("host.cpu_pct", "host.throughput_gbps"),
    "min_migration_time": ("migration.total_s", "migration.downtime_s"),
    "max_iops": ("storage.iops", "storage.latency_ms", "storage.cpu_pct"),
    "latency_target": ("storage.latency_ms", "storage.iops"),
    "min_peak_util": (),
}


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
                lines.append(f"     effect  {metric_id}: {e['before']:.4g} "
                             f"→ {e['after']:.4g} {e['unit']}{delta}")
            value = r.evidence.get("value")
            if isinstance(value, (int, float)):
                lines.append(f"     because {r.evidence['metric']} = "
                             f"{value:.4g} (threshold "
                             f"{r.evidence['threshold']:.4g})")
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
    w = scenario.workloads
    present = {"max_iops": bool(w.storage), "latency_target": bool(w.storage),
               "max_throughput": bool(w.transfers),
               "min_cpu": bool(w.transfers),
               "min_migration_time": bool(w.migrations),
               "min_peak_util": bool(w.flows and scenario.teams)}
    if goal is None:
        goal = next((g for g in ("max_iops", "max_throughput",
                                 "min_migration_time", "min_peak_util")
                     if present[g]), None)
        if goal is None:
            raise ValueError("goal: the scenario has no storage, transfer, "
                             "migration or teamed flows to optimise")
    if goal not in GOALS:
        raise ValueError(f"goal must be one of {', '.join(GOALS)}, got "
                         f"{goal!r}")
    if not present[goal]:
        raise ValueError(f"goal {goal!r} needs workloads the scenario does "
                         f"not define (it measures {GOALS[goal][0]})")
    return goal


def goal_value(result, document, goal):
    """The goal metric of one evaluated variant (NaN if it has none)."""
    metric = _goal_metric(document, goal)
    try:
        return result.metric(metric).value
    except KeyError:
        return np.nan


def _goal_metric(document, goal):
    if goal == "min_peak_util":
        return f"teaming.{document.teams[0].policy}.peak_util_pct"
    return GOALS[goal][0]


def _better(goal):
    return 1.0 if GOALS[goal][1] == "max" else -1.0


def advise(scenario, goal=None):
    """Findings with precise changes and their predicted effect, ranked by
    the gain on the goal.

    Parameters
    ----------
    scenario : Scenario
        Its base is advised (variants are ignored).
    goal : str, optional
        A key of :data:`models.scenario.GOALS`; default from the scenario.

    Returns
    -------
    AdviceResult
    """
    goal = resolve_goal(scenario, goal)
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    base_result = evaluate(base).variants[0]
    kept, documents, rejected = _validated(
        base, _candidates(base, goal, base_result))
    # the changed scenarios, evaluated together: what evaluate() gives for
    # each is the prediction
    results = evaluate_documents(
        [(f"candidate {i}", doc) for i, doc in enumerate(documents)],
        scenario=base.meta.name, scenario_sha256=base.sha256()).variants \
        if documents else ()
    before = goal_value(base_result, base, goal)
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
        goal=goal, metric=_goal_metric(base, goal), base_value=before,
        recommendations=tuple(recommendations), rejected=tuple(rejected),
        message=(f"{len(recommendations)} change(s) improve "
                 f"{_goal_metric(base, goal)} out of {len(kept)} tried"))


def _cpu_after(recommendation):
    for metric_id in ("host.cpu_pct", "storage.cpu_pct"):
        if metric_id in recommendation.effect:
            return recommendation.effect[metric_id]["after"]
    return 0.0


@dataclass(frozen=True)
class _Candidate:
    id: str
    severity: str
    reason: str
    evidence: dict
    changes: dict


def _candidates(doc, goal, base):
    """Rules that fire on the base (evaluated as ``base``), each with the
    precise change to try."""

    def value(metric_id):
        try:
            return base.metric(metric_id).value
        except KeyError:
            return None

    for i, item in enumerate(doc.workloads.storage):
        prefix = f"workloads.storage[{i}]"
        oio = value(f"storage.{item.name}.oio")
        knee = value(f"storage.{item.name}.knee_oio")
        per_thread = item.vms * item.disks_per_vm
        if goal in ("max_iops",) and oio < storage.OIO_LOW_SHARE * knee:
            threads = int(np.ceil(knee / per_thread))
            yield _Candidate(
                "advice.storage.threads_per_disk", "warning",
                f"outstanding IO {oio:g} is below the knee {knee:.1f}",
                {"metric": f"storage.{item.name}.oio", "value": oio,
                 "threshold": storage.OIO_LOW_SHARE * knee},
                {f"{prefix}.threads_per_disk": threads})
        target = doc.goal.latency_target_ms if doc.goal else None
        latency = value(f"storage.{item.name}.latency_ms")
        over_target = target is not None and latency > target
        if goal == "latency_target" and item.threads_per_disk > 1 and (
                oio > 4 * knee or over_target):
            # back to the knee: past it, outstanding IO only queues
            threads = max(1, int(np.ceil(knee / per_thread)))
            yield _Candidate(
                "advice.storage.fewer_threads",
                "warning" if over_target else "info",
                f"latency {latency:.3g} ms "
                + (f"is above the target {target:g} ms" if over_target
                   else f"with outstanding IO {oio:g} far past the knee "
                   f"{knee:.1f}"),
                {"metric": f"storage.{item.name}.latency_ms",
                 "value": latency, "threshold": target}
                if over_target else
                {"metric": f"storage.{item.name}.oio", "value": oio,
                 "threshold": 4 * knee},
                {f"{prefix}.threads_per_disk": threads})
    # as large a jumbo MTU as the network accepts (network.mtu_max), with
    # room for the overlay's headers on the underlay
    net = doc.network
    jumbo = min(wire.JUMBO_MTU, net.mtu_max - int(wire.encapsulation_bytes(
        net.encapsulation, net.underlay_ip_version,
        geneve_option_bytes=net.geneve_option_bytes)))
    if net.mtu < jumbo:
        metric = "storage.jumbo_gain_pct" if doc.workloads.storage \
            else "host.jumbo_gain_pct"
        yield _Candidate(
            "advice.network.jumbo_frames", "info",
            f"MTU {net.mtu}",
            {"metric": metric, "value": value(metric) or 0.0,
             "threshold": 0.0},
            {"network.mtu": jumbo})
    for i, nic in enumerate(doc.nics):
        if not nic.rss_tuned and doc.workloads.transfers:
            yield _Candidate(
                "advice.host.tune_rss", "info",
                f"{nic.id}: RSS queues left at their defaults",
                {"metric": "host.cpu_pct", "value": value("host.cpu_pct"),
                 "threshold": 0.0},
                {f"nics[{j}].rss_tuned": True
                 for j, other in enumerate(doc.nics)
                 if not other.rss_tuned})
            break
    rdma = all(n.rdma != "none" for n in doc.nics)
    for i, transfer in enumerate(doc.workloads.transfers):
        prefix = f"workloads.transfers[{i}]"
        evidence = {"metric": f"transfer.{transfer.name}.throughput_gbps",
                    "value": value(f"transfer.{transfer.name}"
                                   ".throughput_gbps"),
                    "threshold": value("wire.goodput_gbps")}
        if transfer.transport == "tcp":
            yield _Candidate("advice.transport.smb", "info",
                             "TCP: one connection per VM, one core each",
                             evidence, {f"{prefix}.transport": "smb"})
            if transfer.via is not None:
                # Multichannel over separate NICs, with RSS set up for it
                # as SMB needs (seed 001, S-HV-h)
                yield _Candidate(
                    "advice.transport.smb_multichannel", "info",
                    f"TCP over team {transfer.via!r}",
                    evidence, {f"{prefix}.transport": "smb",
                               f"{prefix}.via": None,
                               **{f"nics[{j}].rss_tuned": True
                                  for j in range(len(doc.nics))}})
        if transfer.receive_queues in ("vmq", "vrss") and transfer.transport \
                != "smb_direct":
            # vRSS first (on by default where it works), else VMMQ's
            # hardware queues; each is re-evaluated like any other change
            spread = "vrss" if transfer.receive_queues == "vmq" else "vmmq"
            yield _Candidate(
                f"advice.host.{spread}", "info",
                f"{transfer.name}: receive queue mode "
                f"{transfer.receive_queues!r}",
                {"metric": f"transfer.{transfer.name}.busy_cores",
                 "value": value(f"transfer.{transfer.name}.busy_cores"),
                 "threshold": 1.0},
                {f"{prefix}.receive_queues": spread})
        if transfer.transport in ("tcp", "smb") and rdma:
            yield _Candidate("advice.transport.smb_direct", "info",
                             "RDMA NICs carry the transfer over TCP",
                             evidence, {f"{prefix}.transport": "smb_direct",
                                        f"{prefix}.via": None})
    for i, item in enumerate(doc.workloads.migrations):
        prefix = f"workloads.migrations[{i}]"
        converged = value(f"migration.{item.name}.converged")
        if item.transfer is None and item.streams < 8:
            yield _Candidate(
                "advice.migration.streams", "warning" if converged == 0
                else "info", f"{item.streams} migration stream(s)",
                {"metric": f"migration.{item.name}.converged",
                 "value": converged, "threshold": 1},
                {f"{prefix}.streams": item.streams * 2})
    for i, team in enumerate(doc.teams):
        peak = value(f"teaming.{team.policy}.peak_util_pct")
        if peak is None:
            continue
        hashed = default_hash(team.policy, team.hash, doc.host.hypervisor)
        if hashed in ("layer2", "layer2+3", "encap2+3"):
            # a hash on MACs or IPs alone keeps every connection to one
            # peer (or through one router) on one member; ports spread it
            yield _Candidate(
                "advice.teaming.hash_layer3_4", "warning" if peak > 100
                else "info", f"xmit_hash_policy {hashed} ignores ports",
                {"metric": f"teaming.{team.policy}.members_used",
                 "value": value(f"teaming.{team.policy}.members_used"),
                 "threshold": len(team.members)},
                {f"teams[{i}].hash": "layer3+4"})
        for metric in base.metrics:
            parts = metric.id.split(".")
            if len(parts) == 3 and parts[0] == "teaming" \
                    and parts[2] == "peak_util_pct" \
                    and parts[1] not in (team.policy, "optimal") \
                    and metric.value < peak:
                yield _Candidate(
                    f"advice.teaming.{parts[1]}", "warning" if peak > 100
                    else "info", f"{team.policy} peaks at {peak:.0f} %",
                    {"metric": f"teaming.{team.policy}.peak_util_pct",
                     "value": peak, "threshold": metric.value},
                    {f"teams[{i}].policy": parts[1],
                     f"teams[{i}].switch_mode": _switch_mode(parts[1],
                                                             team)})


def _switch_mode(policy, team):
    modes = TEAMING_POLICIES[policy][1]
    return team.switch_mode if team.switch_mode in modes else modes[0]


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
        kept.append(_Candidate(candidate.id, candidate.severity,
                               candidate.reason, candidate.evidence,
                               changes))
    return kept, documents, rejected


def _recommend(candidate, goal, before, after, base_doc, doc, gain):
    metric = _goal_metric(base_doc, goal)
    ids = [metric] + [m for m in GOAL_CONTEXT[goal] if m != metric]
    effect = {}
    for metric_id in ids:
        try:
            old, new = before.metric(metric_id), after.metric(metric_id)
        except KeyError:
            continue
        effect[metric_id] = {
            "before": old.value, "after": new.value, "unit": old.unit,
            "change_pct": 100 * (new.value / old.value - 1)
            if old.value else None}
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
    points : list of dict
        Every configuration: ``values`` (path -> value) and ``metrics``.
    pareto : list of int
        Indices into ``points`` of the non-dominated configurations over
        the goal metric and the ``tradeoffs``.
    success, status, message
    """

    goal: str
    metric: str
    best: dict
    best_value: float
    points: list
    pareto: list
    success: bool
    status: int
    message: str


def search(scenario, grid, goal=None, *, tradeoffs=("host.cpu_pct",)):
    """Evaluate every combination of the allowed changes at once and return
    the best configuration and the Pareto front.

    Parameters
    ----------
    scenario : Scenario
    grid : dict
        Parameter path -> list of allowed values.
    goal : str, optional
    tradeoffs : sequence of str
        Metric ids to minimise alongside the goal for the Pareto front
        (``'nic_count'`` counts ``nics``).

    Returns
    -------
    SearchResult

    Raises
    ------
    ValueError
        An empty grid or axis, or a path the scenario does not have.
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
    combos = list(itertools.product(*(grid[p] for p in paths)))
    if len(combos) > MAX_GRID:
        raise ValueError(f"grid: {len(combos)} combinations, above the "
                         f"limit of {MAX_GRID}")
    with paused_gc():
        documents = grid_documents(base, paths, combos)
        numbers = evaluate_documents(
            [(f"point {i}", doc) for i, doc in enumerate(documents)],
            scenario=base.meta.name, scenario_sha256=base.sha256(),
            traces=False, numbers_only=True)
    sign = _better(goal)
    metric = _goal_metric(base, goal)
    points, scores, costs = [], [], []
    for doc, combo, point in zip(documents, combos, numbers):
        goal_id = _goal_metric(doc, goal)
        value = float(point.get(goal_id, np.nan))
        row = [float(len(doc.nics)) if t == "nic_count"
               else float(point.get(t, np.nan)) for t in tradeoffs]
        points.append({"values": dict(zip(paths, combo)),
                       "metrics": {goal_id: value,
                                   **dict(zip(tradeoffs, row))}})
        scores.append(sign * value if np.isfinite(value) else -np.inf)
        costs.append(row)
    scores = np.array(scores)
    best = int(np.argmax(scores))
    try:
        # values were validated one by one; the winner is checked whole
        base.with_values(points[best]["values"])
    except ScenarioError as err:
        raise ValueError(f"grid: the best point {points[best]['values']} "
                         f"breaks a rule that links parameters: {err}") \
            from None
    return SearchResult(
        goal=goal, metric=metric, best=points[best]["values"],
        best_value=points[best]["metrics"][_goal_metric(documents[best],
                                                        goal)],
        points=points, pareto=pareto_front(scores, np.array(costs)),
        success=bool(np.isfinite(scores[best])), status=0,
        message=f"{len(points)} configurations evaluated")


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

