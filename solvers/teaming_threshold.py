"""A column sweep over a team's LBT threshold (issue 36): the teaming
analysis of every threshold from one analysis of the template and one
simulation of all thresholds' LBT at once.

The threshold reaches only LBT's decisions (:func:`solvers.
teaming_dynamic.lbt_classes` splits the thresholds into classes that
decide alike) and, through LBT's peaks, the optimum and every policy's
gap to it. So the other policies, their N-k states and the optimal
placement are computed once, on the document of the lowest threshold,
and each class gets that result with the metrics LBT moves recomputed
from its own loads, with the analysis's own helpers: the numbers of each
point are those of :func:`solvers.analyses.teaming.analyse` of its
document.
"""

import re

import numpy as np

from models import teaming as teaming_model
from solvers import metric_ids
from solvers.analyses import teaming
from solvers.analysis import AnalysisResult
from solvers.columns import combination_documents

_TEAM = re.compile(r"^teams\[(\d+)\]\.")


def threshold_classes(template, path, value):
    """The teaming results of ``template`` with ``path`` (a team's
    ``lbt_threshold_pct``) set to each of ``value``.

    Parameters
    ----------
    template : Scenario
        A resolved document.
    path : str
        ``teams[i].lbt_threshold_pct``.
    value : numpy.ndarray of float, shape (N,)
        Thresholds [%].

    Returns
    -------
    index : numpy.ndarray of int, shape (N,)
        Each value's result in ``results``.
    results : list of solvers.analysis.AnalysisResult
        One per class of values that give the same numbers (metrics
        only, as ``analyse`` with details off gives them to a sweep).
    """
    value = np.asarray(value, dtype=float)
    lowest = int(np.argmin(value))
    document = combination_documents(
        template, {path: value[lowest:lowest + 1]})[0]
    kept = {}
    result = teaming._analyse_document(document, kept)
    team = document.teams[int(_TEAM.match(path).group(1))]
    context = kept.get(team.name)
    if context is None or "lbt" not in context["compare"]:
        # no LBT run reads this threshold: one result for every value
        return np.zeros(value.size, dtype=np.int64), [result]
    # the thresholds as the analysis reads them (fractions), ascending
    order = np.argsort(value, kind="stable")
    levels = value[order] / 100
    runs = [list(range(len(team.members)))] + [
        teaming._usable_after(team, set(failed))
        for failed in context["failures"]]
    summaries, firsts = [], []
    for usable in runs:
        if not usable:   # every uplink lost: no loads (as _loads_after)
            summaries.append(None)
            firsts.append(np.zeros(1, dtype=np.int64))
            continue
        member, _, first = teaming.lbt_classes(
            context["columns"], usable, context["speed"], team, levels)
        summaries.append(_lbt_loads(context, team, usable, member))
        firsts.append(first)
    # the runs of levels in one class of every LBT run, and the class of
    # each run in each of them
    starts = np.unique(np.concatenate(firsts))
    combos, combo_of = np.unique(
        np.stack([np.searchsorted(first, starts, side="right") - 1
                  for first in firsts], axis=1), axis=0, return_inverse=True)
    index = np.empty(value.size, dtype=np.int64)
    index[order] = np.asarray(combo_of).reshape(-1)[
        np.searchsorted(starts, np.arange(value.size), side="right") - 1]
    return index, [AnalysisResult(metrics=_class_metrics(
        document, result.metrics, team, context, summaries, combo))
        for combo in combos]


def _lbt_loads(context, team, usable, member):
    """What :func:`solvers.analyses.teaming._loads` gives of LBT's
    loads, for each class's port members ``member`` (C, T, P) on the
    ``usable`` uplinks: per class dicts of peak, imbalance, flows over
    their member, members used and the members at the peak step."""
    columns, speed = context["columns"], context["speed"]
    usable = np.asarray(usable)
    members = speed.size
    tx_member = member[:, :, columns.unit]
    rx_member = np.broadcast_to(teaming_model.receive_member(
        "lbt", tx_member, columns.dip, usable, speed,
        switch_mode=team.switch_mode), tx_member.shape)
    rows, steps, flows = tx_member.shape

    def loads(member_of, rate):
        # member_loads per class: each bin sums its flows in flow order
        index = (np.arange(rows * steps)[:, None] * members
                 + member_of.reshape(rows * steps, flows)).ravel()
        return np.bincount(
            index, weights=np.broadcast_to(rate, member_of.shape).ravel(),
            minlength=rows * steps * members).reshape(rows, steps, members)

    util = np.maximum(loads(tx_member, columns.tx),
                      loads(rx_member, columns.rx)) / speed
    peak_step = teaming.peak_demand_step(columns)
    demand = np.maximum(columns.tx[peak_step], columns.rx[peak_step])
    summaries = []
    for k in range(rows):
        at_peak = util[k, peak_step]
        mean = at_peak[usable].mean()
        member_at_peak = tx_member[k, peak_step]
        summaries.append({
            "peak": float(util[k].max()),
            "imbalance": 100 * (at_peak.max() / mean - 1) if mean > 0
            else 0.0,
            "over_member": int((demand > speed[member_at_peak]
                                * (1 + 1e-12)).sum()),
            "members_used": int((at_peak > 0).sum()),
            "peak_step": peak_step, "member_at_peak": member_at_peak})
    return summaries


def _class_metrics(document, metrics, team, context, summaries, combo):
    """The lowest threshold's ``metrics`` with those LBT moves set as the
    class ``combo`` (its class in each LBT run: healthy, then each lost
    set) gives them."""
    team_id = context["team_id"]
    own = summaries[0][combo[0]]
    lost = [s[k]["peak"] for s, k in zip(summaries[1:], combo[1:])
            if s is not None]
    peaks = {p: own["peak"] if p == "lbt" else r["peak"]
             for p, r in context["results"].items()}
    optimal = {}
    for unit, placed in context["optimal"].items():
        if placed is None:
            optimal[unit] = None
            continue
        best = placed["solved"]["peak"]
        if not context["columns"].constrained:
            best = min([best] + [peak for p, peak in peaks.items()
                                 if teaming.same_unit_policy(p, unit)])
        optimal[unit] = {"peak": best,
                         "bound": min(placed["solved"]["bound"], best)}
    metrics = dict(metrics)

    def put(policy, key, number):
        metrics[metric_ids.teaming(policy, key, team_id)] = number

    for policy in context["compare"]:
        best = optimal["port" if policy in teaming.PORT_POLICIES
                       else "flow"]
        if best is not None:
            put(policy, "gap_to_optimal_pct",
                teaming.gap_pct(peaks[policy], best["peak"]))
    put("lbt", "peak_util_pct", 100 * own["peak"])
    put("lbt", "imbalance_pct", own["imbalance"])
    put("lbt", "flows_over_member", own["over_member"])
    put("lbt", "members_used", own["members_used"])
    if lost:
        put("lbt", "n1_peak_util_pct", 100 * max(lost))
    configured = optimal["port" if team.policy in teaming.PORT_POLICIES
                         else "flow"]
    if configured:
        put("optimal", "peak_util_pct", 100 * configured["peak"])
        put("optimal", "lower_bound_pct", 100 * configured["bound"])
    if team.policy == "lbt":
        put("configured", "peak_util_pct", 100 * own["peak"])
        if team.nioc:
            teaming._nioc(team, context["columns"], own, context["speed"],
                          team_id, metrics)
        teams = metric_ids.teams_in_ids(document)
        if len(teams) > 1:   # the busiest team's, as _analyse_document
            metrics[metric_ids.teaming("configured", "peak_util_pct")] = \
                max(metrics[metric_ids.teaming("configured",
                                               "peak_util_pct", t)]
                    for t in teams)
    return metrics
