"""The report's executive summary: the question, the variant
the goal recommends, its margin over the base and the runner-up, and the
limit that binds it."""

import math
from dataclasses import dataclass

from app.presentation.goals import GOAL_LABELS
from app.presentation.content import change_words
from models.scenario import GOALS
from solvers import metric_ids
from solvers.advise import goal_value, resolve_goal
from solvers.results import format_number


#: Relative difference below which two variants tie on the goal.
TIE = 1e-3


@dataclass(frozen=True)
class Summary:
    """What page 1 of the report says.

    Attributes
    ----------
    question : str
        The scenario's description (or name).
    goal : str or None
        The goal's label; None when the scenario measures nothing to rank.
    unit : str
    values : tuple of (str, float or None)
        Each variant's goal value (None: it has none, e.g. no convergence).
    best : str or None
        The recommended variant.
    margin : str
        The best variant against the base and the runner-up, in words.
    binding_limit : str
        The recommended variant's binding limit.
    next_step : str or None
        The top recommendation for the base, with its effect.
    maximise : bool
        Whether the goal is the larger the better.
    metric : str or None
        The goal's metric id.
    """

    question: str
    goal: str | None
    unit: str
    values: tuple
    best: str | None
    margin: str
    binding_limit: str
    next_step: str | None
    maximise: bool = True
    metric: str | None = None


def _relative(value, reference):
    if reference is None or reference == 0:
        return ""
    return f" ({100 * (value / reference - 1):+.1f} %)"


def executive_summary(scenario, results, advice=None):
    """The :class:`Summary` of evaluated ``results`` (``advice``: the
    base's recommendations, optional)."""
    question = scenario.meta.description.strip() or scenario.meta.name
    base = results.variants[0]
    try:
        goal = advice.goal if advice is not None else resolve_goal(scenario)
    except ValueError:   # nothing measured to rank (wire-only scenario)
        return Summary(question, None, "", (), None, "",
                       base.bottleneck.message, None)
    documents = dict(scenario.variant_documents())
    values = []
    for variant in results.variants:
        value = goal_value(variant, documents[variant.name], goal)
        values.append((variant.name, None if math.isnan(value) else value))
    metric_id = GOALS[goal][0]
    unit = metric_ids.info(metric_id)[0]
    sign = 1.0 if GOALS[goal][1] == "max" else -1.0
    ranked = sorted((v for v in values if v[1] is not None),
                    key=lambda v: -sign * v[1])
    if not ranked:
        return Summary(question, GOAL_LABELS[goal], unit, tuple(values),
                       None, "no variant reaches a value for this goal",
                       base.bottleneck.message,
                       _next_step(advice, scenario), sign > 0, metric_id)
    best_name, best_value = ranked[0]
    base_value = values[0][1]
    unit_text = {"": "", "1": "", "1/s": "/s"}.get(unit, f" {unit}")
    parts = [f"{format_number(best_value)}{unit_text}"]
    if best_name != base.name:
        parts.append("base " + ("has none" if base_value is None else
                                f"{format_number(base_value)}{unit_text}"
                                + _relative(best_value, base_value)))
    if len(ranked) > 1:
        runner, runner_value = ranked[1]
        if math.isclose(best_value, runner_value, rel_tol=TIE):
            parts.append(f"tied with {runner}: the choice does not change "
                         "the goal")
        elif runner != base.name:
            parts.append(f"next best {runner} "
                         f"{format_number(runner_value)}{unit_text}"
                         + _relative(best_value, runner_value))
    missing = [name for name, value in values if value is None]
    if missing:
        parts.append(f"no value for {', '.join(missing)}")
    binding = results.variant(best_name).bottleneck.message
    return Summary(question, GOAL_LABELS[goal], unit, tuple(values),
                   best_name, "; ".join(parts), binding,
                   _next_step(advice, scenario), sign > 0, metric_id)


def reason(recommendation):
    """Why the rule proposes the change (the message's 'because' part),
    or ''."""
    return recommendation.message.partition("; because ")[2]


def _next_step(advice, scenario):
    """The top recommendation: its change in words and its effect on
    the goal, re-evaluated."""
    if advice is None or not advice.recommendations:
        return None
    top = advice.recommendations[0]
    return f"{change_words(top, scenario)} ({top.gain_pct:+.1f} % on the " \
        "goal, re-evaluated)"
