"""Sweep chunks formatted by column (issue 15, item 2): every number is
the text Python's ``repr`` gives it, so column-formatted output has the
bytes of the row-by-row output it replaced (the golden files)."""

import json

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from app.sweep_format import SweepFormat, float_cells
from solvers.sweep import Chunk, SweepPlan

FINITE = st.floats(allow_nan=False, allow_infinity=False)


def _texts(cells, count):
    """The texts of a column's cells (one text for a constant column)."""
    if isinstance(cells, pa.Scalar):
        return [cells.as_py()] * count
    return cells.to_pylist()


@settings(max_examples=300, deadline=None)
@given(st.lists(FINITE, min_size=1, max_size=40))
def test_float_cells_are_repr(values):
    column = np.array(values, dtype=float)
    assert _texts(float_cells(column), len(values)) == \
        [repr(v) for v in column.tolist()]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-10 ** 15, 10 ** 15), min_size=2, max_size=40))
def test_whole_floats_keep_their_point_zero(values):
    column = np.array(values, dtype=float)
    assert _texts(float_cells(column), len(values)) == \
        [repr(v) for v in column.tolist()]


def test_nan_is_a_missing_cell_and_edges_match_repr():
    edges = [np.nan, -0.0, 0.0, 1e-4, 9.999999999999999e-05, 1e16,
             9999999999999998.0, 5e-324, 1.7976931348623157e308, -1500.0,
             0.1 + 0.2, 2.5e-05, 1e-07, 1e22]
    texts = float_cells(np.array(edges)).to_pylist()
    assert texts[0] is None
    assert texts[1:] == [repr(v) for v in edges[1:]]


def test_a_chunk_as_csv_and_json_lines():
    plan = SweepPlan("s", "product", ("a", "b"), ([1.5, "x,y"], [1, 2]), 4,
                     [])
    chunk = Chunk(0, plan.indices(0, 4), ("m.one", "m.two"),
                  (np.array([1.0, 2.5, 1e-7, 3.0]),
                   np.array([np.nan, 4.0, 5.0, np.nan])))
    csv = SweepFormat.of("csv", "v,h,", plan)(chunk)
    assert csv.splitlines() == [
        'v,h,0,1.5,1,1.0,', 'v,h,1,1.5,2,2.5,4.0',
        'v,h,2,"x,y",1,1e-07,5.0', 'v,h,3,"x,y",2,3.0,']
    lines = SweepFormat.of("jsonl", "", plan)(chunk).splitlines()
    assert [json.loads(line) for line in lines] == [
        {"point": p, "values": {"a": a, "b": b},
         "metrics": {k: v for k, v in (("m.one", one), ("m.two", two))
                     if v == v}}
        for p, (a, b, one, two) in enumerate([
            (1.5, 1, 1.0, np.nan), (1.5, 2, 2.5, 4.0),
            ("x,y", 1, 1e-7, 5.0), ("x,y", 2, 3.0, np.nan)])]
