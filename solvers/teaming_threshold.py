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
from solvers import metric_ids, teaming_dynamic
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
        args, options = teaming.lbt_inputs(context["columns"], usable,
                                           context["speed"], team)
        placement, first_step, _, first = teaming_dynamic.lbt_classes(
            *args, levels, **options)
        summaries.append(_lbt_loads(context, team, usable, placement,
                                    first_step))
        firsts.append(first)
    # the runs of levels in one class of every LBT run, and the class of
    # each run in each of them
    starts = np.unique(np.concatenate(firsts))
    combos, combo_of = _distinct_rows(
        np.stack([np.searchsorted(first, starts, side="right") - 1
                  for first in firsts], axis=1))
    index = np.empty(value.size, dtype=np.int64)
    index[order] = combo_of[
        np.searchsorted(starts, np.arange(value.size), side="right") - 1]
    return index, [AnalysisResult(metrics=_class_metrics(
        document, result.metrics, team, context, summaries, combo))
        for combo in combos]


def _lbt_loads(context, team, usable, placement, first_step):
    """What :func:`solvers.analyses.teaming._loads` gives of LBT's
    loads, for each class's port members in each period ``placement``
    (C, E, P; periods from ``first_step``) on the ``usable`` uplinks: per
    class dicts of peak, imbalance, flows over their member, members used
    and the members at the peak step.

    Classes often hold their ports alike in a period (all of them before
    the first split): the loads are summed once per period and placement,
    each bin over its flows in flow order as ``member_loads`` sums them."""
    columns, speed = context["columns"], context["speed"]
    usable = np.asarray(usable)
    members = speed.size
    tx_member = placement[:, :, columns.unit]
    rx_member = np.broadcast_to(teaming_model.receive_member(
        "lbt", tx_member, columns.dip, usable, speed,
        switch_mode=team.switch_mode), tx_member.shape)
    classes, periods, flows = tx_member.shape
    steps = columns.t.size
    last_step = np.append(first_step[1:], steps)
    keys = np.concatenate([
        np.broadcast_to(np.arange(periods)[None, :, None],
                        (classes, periods, 1)),
        tx_member, rx_member], axis=2).reshape(-1, 1 + 2 * flows)
    pairs, pair_of = _distinct_rows(keys)
    pair_of = pair_of.reshape(classes, periods)
    # each distinct (period, placement)'s steps, one after another
    length = last_step[pairs[:, 0]] - first_step[pairs[:, 0]]
    offset = np.concatenate([[0], np.cumsum(length)])
    row = np.arange(offset[-1])
    pair_row = np.repeat(np.arange(len(pairs)), length)
    step = row - offset[pair_row] + first_step[pairs[pair_row, 0]]

    def loads(placed, rate):
        index = (row[:, None] * members + placed[pair_row]).ravel()
        return np.bincount(index, weights=rate[step].ravel(),
                           minlength=row.size * members).reshape(-1, members)

    util = np.maximum(loads(pairs[:, 1:1 + flows], columns.tx),
                      loads(pairs[:, 1 + flows:], columns.rx)) / speed
    pair_peak = np.maximum.reduceat(util.max(axis=1), offset[:-1])
    peak_step = teaming.peak_demand_step(columns)
    period = np.searchsorted(first_step, peak_step, side="right") - 1
    demand = np.maximum(columns.tx[peak_step], columns.rx[peak_step])
    summaries = []
    for k in range(classes):
        at = pair_of[k, period]
        at_peak = util[offset[at] + peak_step - first_step[period]]
        mean = at_peak[usable].mean()
        member_at_peak = tx_member[k, period]
        summaries.append({
            "peak": float(pair_peak[pair_of[k]].max()),
            "imbalance": 100 * (at_peak.max() / mean - 1) if mean > 0
            else 0.0,
            "over_member": int((demand > speed[member_at_peak]
                                * (1 + 1e-12)).sum()),
            "members_used": int((at_peak > 0).sum()),
            "peak_step": peak_step, "member_at_peak": member_at_peak})
    return summaries


def _distinct_rows(rows):
    """The distinct rows of a 2-D integer array (in lexical order of
    their columns, last first) and each row's index among them."""
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    new = np.concatenate([[True], (ordered[1:] != ordered[:-1]).any(axis=1)])
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


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
