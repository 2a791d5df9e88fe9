"""Streaming reader of PDH-CSV 4.0 files, the format of esxtop/resxtop
batch mode (``esxtop -b``) and of Windows perfmon/typeperf logs.

The first row is the header: its first cell names the format, the time
zone and its bias in minutes (``(PDH-CSV 4.0) (Pacific Standard
Time)(480)``), the others the counters, ``\\\\HOST\\Object(instance)\\Counter``,
all quoted. Each further row is a timestamp and one value per counter; a
counter whose instance did not exist yet is an empty or blank cell. Files
can hold tens of thousands of columns: only the columns that match the
caller's patterns are kept, one row in memory at a time.
"""

import csv
import io
import math
import re
from dataclasses import dataclass, field

import numpy as np

from app.importers.common import ImportProblem, parse_number, parse_time

_FORMAT = re.compile(r"^\(PDH-CSV 4\.0\)\s*(?:\((?P<zone>[^)]*)\)"
                     r"\((?P<bias>-?\d+)\))?")
#: Non-numeric cells reported one by one before they are only counted.
MAX_CELL_MESSAGES = 5
#: Field size limit [characters]: esxtop headers are long, cells short.
_FIELD_LIMIT = 1 << 20


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


def read(path, pattern, *, what):
    """Read the columns whose counter name matches ``pattern``.

    Parameters
    ----------
    path : str or Path
    pattern : re.Pattern
        Matched (``fullmatch``) against each counter name.
    what : str
        What the file should be, for messages ("an esxtop batch file").

    Returns
    -------
    Table

    Raises
    ------
    ImportProblem
        Not a PDH-CSV file, no matching counter, or no complete row.
    """
    csv.field_size_limit(_FIELD_LIMIT)
    try:
        stream = open(path, "r", encoding="utf-8-sig", newline="",
                      errors="strict")
    except OSError as err:
        raise ImportProblem(path, f"a readable file ({err.strerror})") \
            from None
    with stream:
        try:
            return _read(path, stream, pattern, what)
        except UnicodeDecodeError as err:
            raise ImportProblem(path, f"{what} as UTF-8 text: byte "
                                f"0x{err.object[err.start]:02x} at offset "
                                f"{err.start} is not text") from None
        except csv.Error as err:
            raise ImportProblem(path, f"{what} as CSV: {err}") from None


def _delimiter(first_line):
    # German or French perfmon logs separate with ';' (decimal commas)
    return ";" if first_line.count(";") > first_line.count(",") else ","


def _read(path, stream, pattern, what):
    first = stream.readline()
    if not first.strip():
        raise ImportProblem(path, f"{what}: a PDH-CSV 4.0 header row, the "
                            "file is empty", row=1)
    header = next(csv.reader(io.StringIO(first),
                             delimiter=_delimiter(first)), [])
    head = _FORMAT.match(header[0].strip() if header else "")
    if head is None:
        raise ImportProblem(path, f"{what}: a header starting with "
                            "'(PDH-CSV 4.0)'", row=1, column=1,
                            got=(header[0] if header else first)[:60])
    selected, matches = [], []
    for index, name in enumerate(header[1:], 1):
        found = pattern.fullmatch(name.strip())
        if found:
            selected.append(index)
            matches.append(found)
    if not selected:
        raise ImportProblem(path, f"{what}: counters matching "
                            f"{pattern.pattern!r}", row=1,
                            got=f"{len(header) - 1} other counters")
    host = re.match(r"\\\\([^\\]+)\\", header[selected[0]].strip())
    table = Table(str(path), host.group(1) if host else "", head["zone"]
                  or "", [header[i].strip() for i in selected], matches,
                  np.zeros(0), np.zeros(0, int), np.zeros((0, 0)))
    times, rows, values, bad_cells = [], [], [], 0
    width = len(header)
    reader = csv.reader(stream, delimiter=_delimiter(first))
    for number, row in enumerate(reader, 2):
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if len(row) < width:
            table.problems.append(
                f"{path}: row {number}: {len(row)} of {width} columns "
                "(truncated file?): row skipped")
            continue
        try:
            moment = parse_time(path, row[0], row=number, column=header[0])
        except ImportProblem as err:
            table.problems.append(f"{err}: row skipped")
            continue
        sample = []
        for index in selected:
            cell = row[index]
            try:
                value = parse_number(cell)
            except ValueError:
                value = None
                bad_cells += 1
                if bad_cells <= MAX_CELL_MESSAGES:
                    table.problems.append(
                        f"{path}: row {number}, column "
                        f"'{header[index].strip()}': expected a number, "
                        f"got {cell!r}: treated as a missing sample")
            sample.append(math.nan if value is None else value)
        times.append(moment)
        rows.append(number)
        values.append(sample)
    if bad_cells > MAX_CELL_MESSAGES:
        table.problems.append(f"{path}: {bad_cells - MAX_CELL_MESSAGES} "
                              "more non-numeric cells treated as missing")
    if not times:
        raise ImportProblem(path, f"{what}: at least one complete sample "
                            "row after the header"
                            + (f" ({table.problems[0]})" if table.problems
                               else ""), row=2)
    order = np.argsort(times, kind="stable")
    times = np.asarray(times)[order]
    keep = np.concatenate([[True], np.diff(times) > 0])
    if not keep.all():
        table.problems.append(f"{path}: {int((~keep).sum())} rows repeat "
                              "an earlier timestamp: the first one is kept")
    table.times = times[keep] - times[keep][0]
    table.rows = np.asarray(rows)[order][keep]
    table.values = np.asarray(values, dtype=float).reshape(
        len(rows), len(selected))[order][keep]
    return table


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
