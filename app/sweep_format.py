"""Sweep chunks as text: CSV and JSON Lines, formatted column by column
with pyarrow where the chunk is evaluated (in the worker), so that no
Python loop runs per row.

Numbers are written as Python's ``repr`` writes them (the shortest text
that reads back to the same float, ``1500.0``, ``2.5e-05``): Arrow's cast
to text gives the same digits, its notation is adjusted to Python's here,
and the few numbers whose notation differs are written by ``repr``.
"""

import json
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Python's repr writes a float in scientific notation below this
#: magnitude (and at or above :data:`FIXED_BELOW`), in fixed otherwise.
FIXED_FROM = 1e-4
FIXED_BELOW = 1e16


def float_cells(column):
    """Each float of ``column`` as ``repr`` writes it; null where NaN (a
    metric the point does not have).

    Parameters
    ----------
    column : numpy.ndarray of float

    Returns
    -------
    pyarrow.StringArray or pyarrow.StringScalar
        A scalar when every value is the same (one text for the chunk).
    """
    if column.size and (column[0] == column).all():
        return pa.scalar(repr(float(column[0])), pa.string())
    magnitude = np.abs(column)
    whole = (column == np.rint(column)) & (magnitude < FIXED_BELOW)
    if whole.all() and not np.signbit(column).any():
        # whole numbers, Python's 1500.0: an integer's text and ".0"
        return pc.binary_join_element_wise(
            pc.cast(pa.array(column.astype(np.int64)), pa.string()), ".0",
            "")
    text = pc.cast(pa.array(column, from_pandas=True), pa.string())
    has_e = _mask(pc.match_substring(text, "e"))
    bare = whole & ~has_e
    if bare.any():   # Arrow writes 1500 for 1500.0
        text = _replace(text, bare, pc.binary_join_element_wise(
            text.filter(pa.array(bare)), ".0", ""))
    if has_e.any():   # and 1e-7 for 1e-07
        text = _replace(text, has_e, pc.replace_substring_regex(
            text.filter(pa.array(has_e)), pattern=r"e([+-])(\d)$",
            replacement=r"e\10\2"))
    scientific = (magnitude >= FIXED_BELOW) | \
        ((magnitude < FIXED_FROM) & (magnitude > 0))
    other = (scientific != has_e) & np.isfinite(column)
    if other.any():   # Arrow picks the other notation: Python's own text
        text = _replace(text, other, pa.array(
            [repr(x) for x in column[other].tolist()], pa.string()))
    return text


def _mask(array):
    return array.to_numpy(zero_copy_only=False).astype(bool, copy=False)


def _replace(text, mask, values):
    return pc.replace_with_mask(text, pa.array(mask), values)


def _text(rows):
    """The rows of a string array as one string, each ending in a
    newline (the rows' data buffer: no copy per row)."""
    rows = pc.binary_join_element_wise(rows, "\n", "")
    if len(rows) == 0:
        return ""
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int32,
                            count=len(rows) + 1, offset=4 * rows.offset)
    data = rows.buffers()[2]
    return data.to_pybytes()[offsets[0]:offsets[-1]].decode("utf-8")


@dataclass(frozen=True)
class SweepFormat:
    """How a sweep's chunks are written: plain data, so that worker
    processes receive it once and format their own chunks.

    Attributes
    ----------
    kind : str
        ``csv`` or ``jsonl``.
    prefix : str
        CSV: the cells every row starts with (version, scenario hash).
    paths : tuple of str
    axis_cells : tuple of list of str
        Per axis, the text of each of its values (CSV cell, or JSON
        ``"path":value`` member).
    """

    kind: str
    prefix: str
    paths: tuple
    axis_cells: tuple

    @classmethod
    def of(cls, kind, prefix, sweep_plan):
        """The format of ``sweep_plan``'s rows."""
        if kind == "csv":
            cells = tuple([axis_cell(v) for v in values]
                          for values in sweep_plan.values)
        else:
            cells = tuple([json.dumps(path, ensure_ascii=False) + ":"
                           + json.dumps(v, ensure_ascii=False,
                                        separators=(",", ":"))
                           for v in values]
                          for path, values in zip(sweep_plan.paths,
                                                  sweep_plan.values))
        return cls(kind, prefix, tuple(sweep_plan.paths), cells)

    def __call__(self, chunk):
        """The rows of a :class:`solvers.sweep.Chunk` as text, each line
        ending in a newline."""
        if len(chunk) == 0:
            return ""
        axes = [pa.array(cells, pa.string()).take(pa.array(index))
                for cells, index in zip(self.axis_cells, chunk.indices)]
        point = pc.cast(pa.array(np.arange(chunk.start,
                                           chunk.start + len(chunk))),
                        pa.string())
        metrics = _metric_cells(chunk.columns)
        if self.kind == "csv":
            return _csv_rows(pa.scalar(self.prefix[:-1]), point, axes,
                             metrics)
        members = [pc.binary_join_element_wise(
            pa.scalar(json.dumps(m, ensure_ascii=False) + ":"), cells, "")
            for m, cells in zip(chunk.metric_ids, metrics)]
        return _text(pc.binary_join_element_wise(
            '{"point":', point, ',"values":{',
            pc.binary_join_element_wise(*axes, ","), '},"metrics":{',
            pc.binary_join_element_wise(*members, ",",
                                        null_handling="skip")
            if members else "", "}}", ""))


def _metric_cells(columns):
    """:func:`float_cells` of each column; a headline metric is its first
    item's column (the same array): formatted once."""
    cells = {}
    return [cells[id(c)] if id(c) in cells
            else cells.setdefault(id(c), float_cells(c)) for c in columns]


def _csv_rows(prefix, point, axes, metrics):
    """CSV rows of the cells ``prefix`` (text or a text per row), point,
    axes and metrics (empty where null)."""
    return _text(pc.binary_join_element_wise(
        prefix, point, *axes, *metrics, ",", null_handling="replace",
        null_replacement=""))


def axis_cell(value):
    """CSV cell of an axis value: floats as ``repr``, text quoted where
    it needs it (and never read as a formula: results.csv_cell)."""
    from solvers.results import csv_cell

    return quote(csv_cell(repr(value) if isinstance(value, float)
                          else value))


def quote(cell):
    """A CSV cell, in double quotes when it holds a comma, quote or line
    break."""
    if any(ch in cell for ch in ',"\n\r'):
        return '"' + cell.replace('"', '""') + '"'
    return cell


@dataclass(frozen=True)
class ParquetFormat:
    """A sweep's chunks as Parquet tables: ``point``, one column per axis
    (its values' type; text when an axis mixes types) and one float
    column per metric (null where a point has none, its unit in the
    field's metadata); version, scenario hash and sweep name in the
    schema's metadata.

    Attributes
    ----------
    paths : tuple of str
    axis_values : tuple of list
    metadata : dict
        str -> str, written into every part.
    """

    paths: tuple
    axis_values: tuple
    metadata: dict

    def table(self, chunk):
        """The chunk as a pyarrow.Table."""
        fields = [pa.field("point", pa.int64())]
        columns = [pa.array(np.arange(chunk.start, chunk.start + len(chunk)),
                            pa.int64())]
        for path, values, index in zip(self.paths, self.axis_values,
                                       chunk.indices):
            axis = axis_array(values)
            fields.append(pa.field(path, axis.type))
            columns.append(axis.take(pa.array(index)))
        _add_metrics(fields, columns, chunk.metric_ids, chunk.columns)
        return pa.Table.from_arrays(columns, schema=pa.schema(
            fields, metadata=self.metadata))


def axis_array(values, type=None):
    """An axis's values as an Arrow array of ``type`` (by default their
    own type); as text when they do not fit one type."""
    try:
        return pa.array(values, type)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([str(v) for v in values])


def _add_metrics(fields, columns, metric_ids, values):
    """Append a float field per metric (its unit in the field's metadata;
    null where NaN) and its column."""
    from solvers.metric_ids import info as metric_info

    for metric, column in zip(metric_ids, values):
        fields.append(pa.field(metric, pa.float64(), metadata={
            "unit": metric_info(metric)[0]}))
        columns.append(pa.array(column, pa.float64(), from_pandas=True))


@dataclass(frozen=True)
class PartWriter:
    """Formats a chunk and writes it to a file of its own in ``folder``,
    where the chunk is evaluated (a worker process); returns the file's
    path, which the parent appends to the output (or moves into it) in
    point order.

    Attributes
    ----------
    format : SweepFormat or ParquetFormat
    folder : str
    """

    format: object
    folder: str

    def __call__(self, chunk):
        import os

        path = os.path.join(self.folder, f"{chunk.start:015d}.part")
        if isinstance(self.format, ParquetFormat):
            import pyarrow.parquet as pq

            pq.write_table(self.format.table(chunk), path)
            return path
        with open(path, "wb") as stream:
            stream.write(self.format(chunk).encode("utf-8"))
        return path


@dataclass(frozen=True)
class FleetFormat:
    """How the tasks of a fleet sweep (``solvers.sweep.run_fleet``) are
    written, where they are evaluated: each task's pieces (a document's
    chunk with its label ``(scenario, variant, scenario_sha256)`` and
    plan) as CSV rows that start with version, hash, scenario and variant;
    as JSON Lines with a header line before each document's first point;
    or as one Parquet table (``scenario_sha256``, ``scenario``,
    ``variant``, ``point``, the axes, the metrics).

    Attributes
    ----------
    kind : str
        ``csv``, ``jsonl`` or ``parquet``.
    version : str
    paths : tuple of str
        The axes, the same in every document.
    axis_types : tuple
        Parquet: the Arrow type of each axis over the whole fleet
        (:func:`fleet_axis_types`), so that every part has one schema.
    metadata : dict
        Parquet: str -> str, the schema's metadata in every part.
    folder : str or None
        Write each task to a file of its own here (named after its first
        row) and return its path; else return the text.
    """

    kind: str
    version: str
    paths: tuple
    axis_types: tuple = ()
    metadata: dict = None
    folder: str = None

    def __call__(self, first_row, pieces):
        import os

        if self.folder is not None:
            path = os.path.join(self.folder, f"{first_row:015d}.part")
        if self.kind == "parquet":
            import pyarrow.parquet as pq

            pq.write_table(self.table(pieces), path)
            return path
        text = self._csv(pieces) if self.kind == "csv" else \
            "".join(self._jsonl(*piece) for piece in pieces)
        if self.folder is None:
            return text
        with open(path, "wb") as stream:
            stream.write(text.encode("utf-8"))
        return path

    def _csv(self, pieces):
        # the pieces stacked into columns: one formatting pass per task,
        # however many small documents it holds
        from solvers.results import csv_cell

        which = pa.array(np.repeat(np.arange(len(pieces)),
                                   [len(c) for _, _, c in pieces]))
        prefix = pa.array([
            ",".join([self.version, sha256, quote(csv_cell(scenario)),
                      quote(csv_cell(variant))])
            for (scenario, variant, sha256), _, _ in pieces]).take(which)
        axes = [pa.array([axis_cell(v) for _, plan, _ in pieces
                          for v in plan.values[a]], pa.string()).take(
                              pa.array(_stacked_index(pieces, a)))
                for a in range(len(self.paths))]
        metrics = _metric_cells(_stacked_columns(pieces))
        return _csv_rows(prefix, pc.cast(pa.array(_stacked_points(pieces)),
                                         pa.string()), axes, metrics)

    def _jsonl(self, label, plan, chunk):
        from solvers.metric_ids import info as metric_info

        scenario, variant, sha256 = label
        head = "" if chunk.start else json.dumps(
            {"linkplan_version": self.version, "scenario": scenario,
             "variant": variant, "scenario_sha256": sha256,
             "sweep": plan.name, "mode": plan.mode,
             "axes": list(plan.paths), "points": plan.total,
             "units": {m: metric_info(m)[0] for m in chunk.metric_ids}},
            ensure_ascii=False, separators=(",", ":")) + "\n"
        return head + SweepFormat.of("jsonl", "", plan)(chunk)

    def table(self, pieces):
        """The task's pieces as one pyarrow.Table."""
        which = pa.array(np.repeat(np.arange(len(pieces)),
                                   [len(c) for _, _, c in pieces]))
        fields = [pa.field(name, pa.string()) for name in
                  ("scenario_sha256", "scenario", "variant")]
        columns = [pa.array([label[i] for label, _, _ in pieces],
                            pa.string()).take(which) for i in (2, 0, 1)]
        fields.append(pa.field("point", pa.int64()))
        columns.append(pa.array(_stacked_points(pieces), pa.int64()))
        for a, (path, kind) in enumerate(zip(self.paths, self.axis_types)):
            fields.append(pa.field(path, kind))
            columns.append(axis_array(
                [v for _, plan, _ in pieces for v in plan.values[a]],
                kind).take(pa.array(_stacked_index(pieces, a))))
        _add_metrics(fields, columns, pieces[0][2].metric_ids,
                     _stacked_columns(pieces))
        return pa.Table.from_arrays(columns, schema=pa.schema(
            fields, metadata=self.metadata))


def fleet_axis_types(plans):
    """The Arrow type of each axis over every plan of a fleet: their
    values' common type, else text."""
    axes = zip(*(plan.values for plan in plans))
    return tuple(axis_array([v for values in axis for v in values]).type
                 for axis in axes)


def _stacked_points(pieces):
    return np.concatenate([np.arange(c.start, c.start + len(c))
                           for _, _, c in pieces])


def _stacked_index(pieces, axis):
    """Per row of the stacked pieces, the index of its value of ``axis``
    in the pieces' values laid end to end."""
    offsets = np.cumsum([0] + [len(plan.values[axis])
                               for _, plan, _ in pieces[:-1]])
    return np.concatenate([c.indices[axis] + offset for offset, (_, _, c)
                           in zip(offsets, pieces)])


def _stacked_columns(pieces):
    """Per metric (the same in every piece), its column over the pieces."""
    return [np.concatenate(columns) for columns in
            zip(*(c.columns for _, _, c in pieces))]
