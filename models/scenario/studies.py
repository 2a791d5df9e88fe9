"""What a scenario compares and studies: named variants of the base,
sweeps over parameter paths, and the goal advice is ranked by."""

import json
import math
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from models.scenario.base import StrictModel
from models.scenario.limits import (LARGEST_MAGNITUDE, SMALLEST_MAGNITUDE,
                                    plain_value_problem)


class Variant(StrictModel):
    """A named alternative: the base scenario with some parameters changed."""

    name: str = Field(
        min_length=1, max_length=80,
        description="Name of the variant (a column of the comparison)")
    description: str = Field(
        default="",
        description="What the variant changes and why")
    set: dict[str, Any] = Field(
        default={},
        description="The parameters it changes: path = value")

    @field_validator("set")
    @classmethod
    def _saveable(cls, changes):
        for path, value in changes.items():
            problem = plain_value_problem(value, f'"{path}"')
            if problem:
                raise ValueError(problem)
        return changes

    def describe(self):
        """The changes as text: ``path = value, ...`` (values as JSON)."""
        return ", ".join(f"{path} = {json.dumps(value, ensure_ascii=False)}"
                         for path, value in self.set.items()) or "no change"


class Span(StrictModel):
    """Evenly spaced values from start to stop (both included)."""

    start: float
    stop: float
    num: int = Field(ge=1, le=1_000_000)


class Range(StrictModel):
    """Values from start to stop (included when it falls on a step) in
    steps of ``step``."""

    start: float
    stop: float
    step: float

    @model_validator(mode="after")
    def _finite_count(self):
        if self.step == 0 or (self.stop - self.start) / self.step < 0:
            raise ValueError(f"step {self.step:g} never gets from "
                             f"{self.start:g} to {self.stop:g}")
        if (self.stop - self.start) / self.step >= 1_000_000:
            raise ValueError("more than 1,000,000 values")
        return self


class Axis(StrictModel):
    """One sweep axis: a parameter path and the values it takes."""

    path: str = Field(min_length=1)
    values: list[Any] | None = Field(default=None, min_length=1)
    range: Range | None = None
    linspace: Span | None = None
    logspace: Span | None = None

    @field_validator("values")
    @classmethod
    def _saveable(cls, values):
        for i, value in enumerate(values or ()):
            problem = plain_value_problem(value, f"values[{i}]")
            if problem:
                raise ValueError(problem)
        return values

    @field_validator("logspace")
    @classmethod
    def _exponents_in_range(cls, span):
        # base-10 exponents: the values must stay representable too
        if span is None:
            return span
        low, high = (math.log10(SMALLEST_MAGNITUDE),
                     math.log10(LARGEST_MAGNITUDE))
        for value in (span.start, span.stop):
            if not low <= value <= high:
                raise ValueError(f"exponents must be between {low:g} and "
                                 f"{high:g}, got {value:g}")
        return span

    @model_validator(mode="after")
    def _one_source(self):
        given = [k for k in ("values", "range", "linspace", "logspace")
                 if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of values, range, linspace, "
                             "logspace"
                             f" (got {', '.join(given) or 'none'})")
        return self


class Sweep(StrictModel):
    """A batch study: axes over parameter paths."""

    name: str = Field(min_length=1)
    mode: Literal["product", "zip"] = "product"
    axes: list[Axis] = Field(min_length=1)


#: What a scenario optimises; advice is ranked by it.
GOALS = {
    "max_throughput": ("host.throughput_gbps", "max"),
    # at equal work: CPU per Gbit/s moved, so moving less is no saving
    "min_cpu": ("host.cpu_pct_per_gbps", "min"),
    "min_migration_time": ("migration.total_s", "min"),
    "min_evacuation_time": ("evacuation.total_s", "min"),
    "max_iops": ("storage.iops", "max"),
    "latency_target": ("storage.latency_ms", "min"),
    # each variant's configured policy (its optimum shown beside it)
    "min_peak_util": ("teaming.configured.peak_util_pct", "min"),
    "min_cluster_util": ("cluster.worst_peak_util_pct", "min"),
}


class Goal(StrictModel):
    """The scenario's goal, by which recommendations are ranked."""

    kind: Literal[tuple(GOALS)] = Field(
        default="max_throughput",
        description="What recommendations optimise; default maximum "
                    "throughput")
    latency_target_ms: float | None = Field(
        default=None, gt=0,
        description="Storage latency to stay under for the latency_target "
                    "goal [ms]")
