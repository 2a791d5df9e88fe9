"""Streaming reader of PDH-CSV 4.0 files, the format of esxtop/resxtop
batch mode (``esxtop -b``) and of Windows perfmon/typeperf logs.

The first row is the header: its first cell names the format, the time
zone and its bias in minutes (``(PDH-CSV 4.0) (Pacific Standard
Time)(480)``), the others the counters, ``\\\\HOST\\Object(instance)\\Counter``,
all quoted. Each further row is a timestamp and one value per counter; a
counter whose instance did not exist yet is an empty or blank cell. Files
can hold tens of thousands of columns: only the columns that match the
caller's patterns are kept. The file comes through the loading gate
(app.loading_gate: size, line, field and column limits).
"""

import math
import re
from dataclasses import dataclass, field

import numpy as np

from app.importers.common import (ImportProblem, decimal_mark, parse_number,
                                  parse_time, plain_numbers, read_text)
from app.loading_gate import CsvTable

_FORMAT = re.compile(r"^\(PDH-CSV 4\.0\)\s*(?:\((?P<zone>[^)]*)\)"
                     r"\((?P<bias>-?\d+)\))?")
#: Non-numeric cells reported one by one before they are only counted.
MAX_CELL_MESSAGES = 5


@dataclass
class Table:
    """The selected columns of a PDH-CSV file."""

    path: str
    host: str
    zone: str
    header: list               # the selected counters' full names
    match: list                # re.Match of each selected counter
    times: np.ndarray          # [s] from the first sample
    rows: np.ndarray           # file row number of each sample
    values: np.ndarray         # samples x columns, NaN where missing
    problems: list = field(default_factory=list)


def read(path, pattern, *, what, result=None):
    """Read the columns whose counter name matches ``pattern``.

    Parameters
    ----------
    path : str or Path
    pattern : re.Pattern
        Matched (``fullmatch``) against each counter name.
    what : str
        What the file should be, for messages ("an esxtop batch file").
    result : ImportResult, optional
        Where an encoding other than UTF-8 is said.

    Returns
    -------
    Table

    Raises
    ------
    ImportProblem
        Not a PDH-CSV file, no matching counter, no complete row, or a
        limit of the loading gate (size, line, field, columns).
    """
    problems = []
    reader = CsvTable(path, read_text(path, result, what), what,
                      delimiters=",;")
    header = reader.header
    head = _FORMAT.match(header[0] if header else "")
    if head is None:
        raise ImportProblem(path, f"{what}: a header starting with "
                            "'(PDH-CSV 4.0)'", row=1, column=1,
                            got=(header[0] if header else "")[:60])
    selected, matches = [], []
    for index, name in enumerate(header[1:], 1):
        found = pattern.fullmatch(name)
        if found:
            selected.append(index)
            matches.append(found)
    if not selected:
        raise ImportProblem(path, f"{what}: counters matching "
                            f"{pattern.pattern!r}", row=1,
                            found=f"{len(header) - 1} other counters")
    host = re.match(r"\\\\([^\\]+)\\", header[selected[0]])
    table = Table(str(path), host.group(1) if host else "", head["zone"]
                  or "", [header[i] for i in selected], matches,
                  np.zeros(0), np.zeros(0, int), np.zeros((0, 0)), problems)
    times, rows, cells = [], [], []
    for number, row in reader.rows():
        try:
            moment = parse_time(path, row[0], row=number, column=header[0])
        except ImportProblem as err:
            problems.append(f"{err}: row skipped")
            continue
        times.append(moment)
        rows.append(number)
        cells.append([row[index] for index in selected])
    problems[:0] = reader.problems
    if not times:
        raise ImportProblem(path, f"{what}: at least one complete sample "
                            "row after the header"
                            + (f" ({problems[0]})" if problems else ""),
                            row=2)
    values = _numbers(table, rows, cells)
    order = np.argsort(times, kind="stable")
    times = np.asarray(times)[order]
    keep = np.concatenate([[True], np.diff(times) > 0])
    if not keep.all():
        repeated = np.asarray(rows)[order][~keep]
        problems.append(f"{path}: {repeated.size} rows repeat an earlier "
                        f"timestamp (rows {_ranges(repeated)}): the first "
                        "one is kept")
    table.times = times[keep] - times[keep][0]
    table.rows = np.asarray(rows)[order][keep]
    table.values = values[order][keep]
    return table


def _numbers(table, rows, cells):
    """samples x columns of floats, NaN where missing, each column read
    with the decimal mark its cells show (app.importers.common.decimal_mark).
    Non-numeric and negative cells (every counter read is a speed, a rate
    or a share) count as missing and are said."""
    values = np.full((len(rows), len(table.header)), math.nan)
    bad_cells = 0
    for j, name in enumerate(table.header):
        plain = plain_numbers([sample[j] for sample in cells])
        if plain is not None and (plain >= 0).all():
            values[:, j] = plain
            continue
        column = [(row, sample[j]) for row, sample in zip(rows, cells)]
        decimal = decimal_mark(table.path, name, column)
        for i, (row, cell) in enumerate(column):
            try:
                value = parse_number(cell, decimal)
                if value is not None and value < 0:
                    raise ValueError("negative")
            except ValueError:
                value = None
                bad_cells += 1
                if bad_cells <= MAX_CELL_MESSAGES:
                    table.problems.append(
                        f"{table.path}: row {row}, column '{name}': expected"
                        f" a number >= 0, got {cell!r}: treated as a "
                        "missing sample")
            if value is not None:
                values[i, j] = value
    if bad_cells > MAX_CELL_MESSAGES:
        table.problems.append(f"{table.path}: {bad_cells - MAX_CELL_MESSAGES}"
                              " more non-numeric cells treated as missing")
    return values


def clean(table, columns, what):
    """Samples of some columns where all are present.

    A counter whose instance appears mid-file is blank before: those
    leading samples count as 0 (the port did not exist, so it carried
    nothing); other missing samples are left out, and said so.

    Returns
    -------
    (ndarray, ndarray, ndarray, list of str, list of str)
        Times [s], file rows, values (samples x columns), notes (instances
        that appeared mid-file) and problems (missing samples).
    """
    values = table.values[:, columns].copy()
    notes, problems = [], []
    for j, column in enumerate(columns):
        present = np.flatnonzero(np.isfinite(values[:, j]))
        if present.size and present[0] > 0:
            values[:present[0], j] = 0.0
            notes.append(
                f"{table.path}: column '{table.header[column]}': first "
                f"sample at row {table.rows[present[0]]}: the instance "
                "appeared mid-file, earlier samples count as 0")
    ok = np.isfinite(values).all(axis=1)
    if not ok.all():
        missing = table.rows[~ok]
        problems.append(f"{table.path}: {what}: {missing.size} samples "
                        f"missing (rows {_ranges(missing)}): left out, the "
                        "profile interpolates across them")
    return table.times[ok], table.rows[ok], values[ok], notes, problems


def _ranges(rows, limit=4):
    text = ", ".join(str(r) for r in rows[:limit])
    return text + (f" and {rows.size - limit} more" if rows.size > limit
                   else "")
