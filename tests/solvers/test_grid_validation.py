"""Axis values checked by the grid's corners, each corner validated again
only along its changed paths (solvers.grid.validate_values: what a fleet
of small sweeps pays per variant), must accept and convert exactly what
checking each value in a whole document (``Scenario.with_values``, the
reference) accepts, and refuse with its message."""

import itertools
import random

import pytest

from app.scenario_io import load_scenario
from solvers import grid
from tests.conftest import EXAMPLES


def leaves(data, prefix=""):
    """``(path, value)`` of every scalar of a plain-data document."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, f"{prefix}.{key}" if prefix else key)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from leaves(value, f"{prefix}[{index}]")
    else:
        yield prefix, data


def candidates(value):
    """Values for an axis over a field holding ``value``: itself, others
    of its type (some out of bounds) and one of another type."""
    if isinstance(value, bool):
        return [value, not value]
    if isinstance(value, int):
        return [value, 2 * value, 0, -1, "x"]
    if isinstance(value, float):
        return [value, 1.5 * value, 0.0, -1.0, 1e-9]
    if isinstance(value, str):
        return [value, "x", "vxlan", 3]
    return [value, 1]


def outcome(function, base, paths, values):
    try:
        converters = function(base, paths, values)
    except ValueError as err:
        return "refused", str(err)
    # the validated values and their types (1500 and 1500.0 are equal)
    return "accepted", [{k: (type(v), v) for k, v in c.items()}
                        for c in converters]


def cases(document, rng, count):
    fields = [(p, v) for p, v in leaves(document.model_dump(mode="json"))
              if not p.startswith(("meta", "variants", "sweeps"))]
    for _ in range(count):
        picked = rng.sample(fields, min(len(fields), rng.choice([1, 2, 3])))
        paths = [path for path, _ in picked]
        values = []
        for _, value in picked:
            pool = candidates(value)
            chosen = rng.sample(pool, min(len(pool), rng.choice([1, 2, 3])))
            values.append(sorted({repr(v): v for v in chosen}.values(),
                                 key=repr))
        yield paths, values
    # paths the document does not have
    yield ["network.nope"], [[1, 2]]
    yield ["nics[9].speed_gbps"], [[1.0]]


@pytest.mark.parametrize("example", sorted(p.name for p in
                                           EXAMPLES.glob("*.toml")))
def test_corner_checks_accept_and_convert_what_each_value_does(example):
    scenario = load_scenario(EXAMPLES / example)
    rng = random.Random(example)   # the same cases on every run
    accepted = 0
    for _, document in scenario.variant_documents():
        base = document.model_copy(update={"variants": [], "sweeps": []})
        for paths, values in cases(base, rng, 12):
            new = outcome(grid.validate_values, base, paths, values)
            reference = outcome(grid._validate_each, base, paths, values)
            if reference[0] == "accepted" or new[0] == "refused":
                assert new == reference, (paths, values)
            else:
                # accepted by the corners alone only when every point of
                # the grid is a valid document (a value refused next to
                # the base's other values may be valid at every point)
                for point in itertools.product(*values):
                    base.with_values(dict(zip(paths, point)))
            accepted += new[0] == "accepted"
    assert accepted   # not only refusals were compared
