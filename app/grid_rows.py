"""The rows of a list of the scenario as a table (Qt-free): its columns,
rows pasted from a spreadsheet or a CSV file, fill down and sort.

Each operation takes the list's entries (plain data, as the document
holds them) and returns the whole new list, which the grid editor hands
to the session as one undoable edit. Read from the schema
(:mod:`app.schema_fields`): a field added to a model gets its column
without a change here.
"""

import copy
import csv
import functools
import io
import re
from dataclasses import dataclass

from app.schema_fields import (NAMING_FIELDS, VALUE_LABELS, FieldSpec,
                               entry_name, fields_of, next_name,
                               parse_text, show_value)

#: Fields that name an entry of another list: (model, field) -> the list
#: whose names they take (a pick list in the grid and the form).
REFERENCES = {
    ("Team", "members"): "nics", ("Team", "standby"): "nics",
    ("Transfer", "nics"): "nics", ("Transfer", "via"): "teams",
    ("StorageWorkload", "nics"): "nics",
    ("Flow", "pin"): "nics", ("Flow", "team"): "teams",
    ("Flow", "profile"): "workloads.profiles",
    ("Migration", "transfer"): "workloads.transfers",
    ("Evacuation", "transfer"): "workloads.transfers",
}

#: Headers that name the count column ("40" in it makes 40 entries).
COUNT_HEADERS = ("count", "×", "x", "n", "number", "qty", "quantity")

#: "40 × web VM", "40x web", "40 * db": a count before the name.
_COUNTED_NAME = re.compile(r"^\s*(\d+)\s*[×xX*]\s*(.+?)\s*$")

#: Words after a counted name that say what it is, not what it is called
#: ("40 × web VM" -> web1 .. web40).
_KIND_WORDS = {"vm", "vms", "vnic", "vnics", "port", "ports", "nic", "nics",
               "workload", "workloads", "flow", "flows", "host", "hosts"}


@dataclass(frozen=True, eq=False)   # compared and hashed as itself
class Column:
    """One column of a list's grid: a field of the entries, nested
    models flattened (``backend.iops_max``)."""

    #: the field's path inside one entry
    path: str
    spec: FieldSpec
    #: what the header says: the field's label, its group before it
    label: str
    #: the list path whose entries' names the field takes, or None
    reference: str | None = None

    @property
    def header(self):
        unit = f" [{self.spec.unit}]" if self.spec.unit else ""
        return f"{self.label}{unit}"

    @property
    def names_entry(self):
        return self.path in NAMING_FIELDS


@functools.lru_cache(maxsize=None)
def columns(model):
    """The :class:`Column` of every field an entry of ``model`` has,
    nested models' fields after their group's name; lists of models
    (an evacuation's VMs) and free-form values are grids or editors of
    their own."""
    found = []
    _collect(model, model.__name__, "", "", found)
    return tuple(found)


def _collect(model, owner, prefix, words, found):
    for spec in fields_of(model):
        path = f"{prefix}{spec.name}"
        if spec.kind == "model":
            _collect(spec.detail, owner, path + ".",
                     f"{words}{spec.label} \u203a ", found)
        elif spec.kind not in ("models", "any"):
            found.append(Column(path, spec, words + spec.label,
                                REFERENCES.get((owner, path))))


def cell(entry, column):
    """The value of ``column`` in ``entry`` (its default when the entry
    leaves it out)."""
    value = entry
    for key in column.path.split("."):
        if not isinstance(value, dict) or key not in value:
            return column.spec.default
        value = value[key]
    return value


def with_cell(entry, column, value):
    """A copy of ``entry`` with ``column`` set to ``value``."""
    changed = copy.deepcopy(entry)
    target = changed
    keys = column.path.split(".")
    for key in keys[:-1]:
        if not isinstance(target.get(key), dict):
            target[key] = {}
        target = target[key]
    target[keys[-1]] = value
    return changed


def cell_text(entry, column):
    """How a cell shows its value: enumerated values by their names."""
    value = cell(entry, column)
    if column.spec.kind == "enum":
        return "" if value is None else column.spec.value_label(value)
    return show_value(value)


def parse_cell(column, text):
    """The value typed or pasted as ``text`` for ``column``; an
    enumerated value by its name or its key, a list comma- or
    semicolon-separated.

    Raises
    ------
    ValueError
        Naming what was expected.
    """
    spec = column.spec
    text = text.strip()
    if spec.kind == "enum" and text:
        names = VALUE_LABELS.get(spec.name, {})
        for value in spec.detail:
            if text.lower() in (str(value).lower(),
                                str(names.get(value, value)).lower()):
                return value
        shown = ", ".join(spec.value_label(v) for v in spec.detail)
        raise ValueError(f"expected one of {shown}, got {text!r}")
    if spec.kind == "list":
        text = text.replace(";", ",")
    return parse_text(spec, text)


def _normal(text):
    """A header as compared: lower case, no unit, letters and digits."""
    text = re.sub(r"[\[(].*?[\])]", "", text.lower())
    return re.sub(r"[^0-9a-z×]+", "", text)


def column_for_header(header, all_columns):
    """The column a pasted header names (its field name, path, label or
    header, case and unit aside); 'count' for the count column; None
    when it names none."""
    wanted = _normal(header)
    if not wanted:
        return None
    if wanted in COUNT_HEADERS:
        return "count"
    for column in all_columns:
        names = (column.path, column.spec.name, column.label,
                 column.spec.label, column.header)
        if wanted in {_normal(n) for n in names}:
            return column
    return None


def read_table(text):
    """Rows of cells of text pasted from a spreadsheet (tab-separated) or
    a CSV file (comma- or semicolon-separated, quotes allowed); empty
    lines dropped."""
    lines = [line for line in text.replace("\r\n", "\n").split("\n")
             if line.strip()]
    if not lines:
        return []
    first = lines[0]
    delimiter = "\t" if "\t" in first else \
        ";" if first.count(";") > first.count(",") else ","
    return [[c.strip() for c in row] for row in
            csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)]


def _counted(text):
    """(count, stem) of a counted name ('40 × web VM' -> 40, 'web'), or
    None."""
    match = _COUNTED_NAME.match(text)
    if match is None:
        return None
    return int(match.group(1)), _stem(match.group(2))


def _stem(text):
    """The stem of names numbered on: 'web VM' -> 'web', 'db server 7'
    -> 'db-server' (a name is one word of letters, digits and ._:-)."""
    words = text.split()
    while len(words) > 1 and words[-1].lower() in _KIND_WORDS:
        words.pop()
    stem = re.sub(r"[^A-Za-z0-9_.:-]+", "-", " ".join(words)).strip("-")
    return re.sub(r"\d+$", "", stem) or stem or "entry"


def pasted(entries, text, all_columns, new_entry, *, at=None):
    """The list after pasting ``text`` into it.

    With a header row (a row whose cells name columns), every following
    row becomes new entries appended to the list; a count column, or a
    name written as "40 × web VM", makes that many entries named web1,
    web2… (the next free numbers). Without a header the cells overwrite
    the grid from ``at`` = (row, column index) on, as in a spreadsheet,
    and rows past the end become new entries.

    Parameters
    ----------
    entries : list of dict
        The list's entries now.
    text : str
        Tab-, comma- or semicolon-separated rows.
    all_columns : sequence of Column
        The grid's columns, in order.
    new_entry : callable
        ``new_entry(siblings)``: a valid new entry among ``siblings`` (a
        free name, the required fields, distinct hash inputs).
    at : tuple of int, optional
        The current cell (row, column); (len(entries), 0) when None.

    Returns
    -------
    (list of dict, int)
        The new list and the number of rows pasted.

    Raises
    ------
    ValueError
        A cell that is not a value of its column, naming the row and the
        column; nothing is changed.
    """
    rows = read_table(text)
    if not rows:
        raise ValueError("nothing to paste: the clipboard holds no rows")
    entries = copy.deepcopy(list(entries))
    mapped = [column_for_header(h, all_columns) for h in rows[0]]
    if any(isinstance(m, Column) for m in mapped):
        return _append_rows(entries, rows[1:], mapped, new_entry), \
            len(rows) - 1
    row0, col0 = at if at is not None else (len(entries), 0)
    width = max(len(cells) for cells in rows)
    placed = list(all_columns[col0:col0 + width])
    over, beyond = rows[:max(len(entries) - row0, 0)], \
        rows[max(len(entries) - row0, 0):]
    for offset, cells in enumerate(over):
        for column, text_ in zip(placed, cells):
            if text_:
                entries[row0 + offset] = _set_text(
                    entries[row0 + offset], column, text_, offset + 1)
    # rows past the end are new entries, counted names included
    return _append_rows(entries, beyond, placed, new_entry,
                        first_number=len(over) + 1), len(rows)


def _append_rows(entries, rows, mapped, new_entry, first_number=2):
    # a header that names no column (a spreadsheet's notes) is left out
    name_column = next((m for m in mapped if isinstance(m, Column)
                        and m.names_entry), None)
    for number, cells in enumerate(rows, start=first_number):
        values = dict(zip(mapped, cells))
        count = 1
        stem = None
        if "count" in values and values["count"]:
            try:
                count = int(float(values["count"].rstrip("×xX* ")))
            except ValueError:
                raise ValueError(f"row {number}, count: expected a whole "
                                 f"number, got {values['count']!r}") \
                    from None
            if count < 1:
                raise ValueError(f"row {number}, count: expected 1 or "
                                 f"more, got {count}")
        name_text = values.get(name_column, "") if name_column else ""
        if name_text and _counted(name_text):
            count, stem = _counted(name_text)
        elif name_text and count > 1:
            stem = _stem(name_text)
        for _ in range(count):
            entry = new_entry(entries)
            for column, text_ in values.items():
                if not isinstance(column, Column) or not text_ or \
                        column is name_column and stem is not None:
                    continue
                entry = _set_text(entry, column, text_, number)
            if stem is not None:
                name = next_name(stem, {entry_name(e) for e in entries})
                entry = with_cell(entry, name_column, name)
            _follow_name(entry, values)
            entries.append(entry)
    return entries


def _follow_name(entry, values):
    """A VM port's VM is the port's own name unless the row gives one
    (a new port's VM is named after the port)."""
    if "vm" in entry and "id" in entry and not any(
            isinstance(c, Column) and c.path == "vm" and t
            for c, t in values.items()):
        entry["vm"] = entry["id"]


def _set_text(entry, column, text, row_number):
    try:
        value = parse_cell(column, text)
    except ValueError as err:
        raise ValueError(f"row {row_number}, {column.header}: {err}") \
            from None
    return with_cell(entry, column, value)


def filled_down(entries, rows, column):
    """The list with the first of ``rows``' value of ``column`` copied
    into the other rows; a name column numbers on instead (web1 -> web2,
    web3…), as names must differ."""
    rows = sorted(set(rows))
    if len(rows) < 2:
        return list(entries)
    entries = copy.deepcopy(list(entries))
    value = cell(entries[rows[0]], column)
    if column.names_entry:
        stem = re.sub(r"\d+$", "", str(value)) or str(value)
        for index in rows[1:]:
            taken = {entry_name(e) for i, e in enumerate(entries)
                     if i != index}
            entries[index] = with_cell(entries[index], column,
                                       next_name(stem, taken))
        return entries
    for index in rows[1:]:
        entries[index] = with_cell(entries[index], column,
                                   copy.deepcopy(value))
    return entries


def sorted_rows(entries, column, descending=False):
    """The list ordered by ``column`` (numbers as numbers, names with
    their numbers in order: vm2 before vm10); empty values last."""
    def key(entry):
        value = cell(entry, column)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return (0, 0, "", value)
        text = show_value(value)
        match = re.match(r"^(.*?)(\d+)$", text)
        if match:
            return (0, 1, match.group(1), int(match.group(2)))
        return (0, 1, text, -1)
    present = [e for e in entries if cell(e, column) is not None]
    missing = [e for e in entries if cell(e, column) is None]
    return sorted(present, key=key, reverse=descending) + \
        copy.deepcopy(missing)


def without_rows(entries, rows):
    """The list without the entries at ``rows``."""
    gone = set(rows)
    return [copy.deepcopy(e) for i, e in enumerate(entries) if i not in gone]


def reference_names(data, column):
    """The names a reference column picks from, in the document's plain
    ``data``: the referenced list's entries' names."""
    return names_in(data, column.reference)


def names_in(data, list_path):
    """The names of the entries of the list at ``list_path`` of the
    document's plain ``data`` ([] for None or a list not there)."""
    from models.scenario import get_path
    if list_path is None:
        return []
    try:
        listed = get_path(data, list_path) or []
    except KeyError:
        return []
    return [entry_name(e) for e in listed if entry_name(e)]
