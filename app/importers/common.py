"""What every importer shares: the error that names file, row and column,
the result (scenarios, what was taken, what was skipped and why), the
provenance of each measured value, and the reading of numbers, times and
series that several formats need.

No physics here: importers turn files into scenario documents, which
``models.scenario.scenario_from_dict`` validates.
"""

import datetime
import importlib
import json
import math
import re
from dataclasses import dataclass, field

import numpy as np

from app.importers import FORMATS
from app.loading_gate import (MAX_IMPORT_BYTES, MAX_SCENARIO_BYTES,
                              FileRefused, Workbook, encoding_name,
                              parse_json)
from app.loading_gate import read_text as read_gated_text
from models.scenario import (MAX_ENTRIES, MAX_NICS, SCHEMA_VERSION,
                             ScenarioError, scenario_from_dict)

#: A file (or part of one) that cannot be imported: the loading gate's
#: refusal, naming file, row and column (app.loading_gate.FileRefused).
ImportProblem = FileRefused


@dataclass(frozen=True)
class Provenance:
    """Where one imported value came from."""

    path: str      # the scenario parameter path, e.g. nics[0].speed_gbps
    value: object
    file: str
    column: str    # column, counter or key it was read from


@dataclass
class Draft:
    """A scenario document being built, with the provenance of its
    measured values."""

    name: str
    document: dict = field(default_factory=dict)
    #: Provenance by parameter path, in the order last recorded (a dict:
    #: an evacuation of 5,000 VMs records 10,000 values).
    sources: dict = field(default_factory=dict)
    assumptions: list = field(default_factory=list)

    def __post_init__(self):
        self.document = {"schema_version": SCHEMA_VERSION,
                         "meta": {"name": self.name[:200]},
                         "host": {}, "nics": [], "teams": [],
                         "network": {},
                         "workloads": {"profiles": [], "flows": [],
                                       "migrations": [], "transfers": []},
                         **self.document}

    def measured(self, path, value, file, column):
        """Record that ``path`` holds a value read from ``file``/``column``
        and return the value; a later reading of the same path (a port
        group overriding its switch) replaces the earlier one."""
        self.sources.pop(path, None)
        self.sources[path] = Provenance(path, value, str(file), column)
        return value

    @property
    def provenance(self):
        """The provenance of each measured value, as a list."""
        return list(self.sources.values())

    def finish(self):
        """The plain-data document with its provenance in meta: one line per
        value in the notes, one per source column in the assumptions
        (which the PDF report lists)."""
        document = dict(self.document)
        meta = dict(document["meta"])
        lines = [f"Measured: {p.path} = {_show(p.value)} from {p.file}, "
                 f"{p.column}" for p in self.provenance]
        meta["notes"] = "\n".join(filter(None, [meta.get("notes", "")]
                                         + lines))
        by_source = {}
        for p in self.provenance:
            by_source.setdefault((p.file, p.column), []).append(p.path)
        meta["assumptions"] = list(meta.get("assumptions", [])) + [
            f"Measured ({len(paths)} value{'s' * (len(paths) > 1)}: "
            f"{_summarise(paths)}) from {file}, {column}"
            for (file, column), paths in by_source.items()] \
            + self.assumptions
        document["meta"] = meta
        return {key: value for key, value in document.items()
                if value not in ({}, [])}

    def scenario(self):
        """The validated scenario (ScenarioError names this draft)."""
        return scenario_from_dict(self.finish(), source=self.name)


def _show(value):
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _summarise(paths):
    shown = ", ".join(paths[:3])
    return shown + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


@dataclass
class ImportResult:
    """What an importer produced.

    Attributes
    ----------
    drafts : list of Draft
        One per scenario (RVTools: one per host).
    taken : list of str
        What was imported, one line per item.
    skipped : list of str
        What was left out on purpose and why (a powered-off VM, a shadow
        port), each naming file, row/column.
    problems : list of str
        Bad input that was left out (a missing column, a non-numeric
        cell, a truncated row, a gap in a series): the import is partial.
    checks : list of dict
        Measured outcomes to compare with a prediction (completed
        migrations): ``{"name": migration name, "source": ..., "measured":
        {metric id: value}}``.
    runs : list
        Benchmark runs for ``linkplan calibrate``
        (solvers.calibrate.StackRun, StorageRun), one per measured
        setting.
    """

    drafts: list = field(default_factory=list)
    taken: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    runs: list = field(default_factory=list)

    def scenarios(self):
        """The validated scenarios (models.scenario.Scenario), one per
        draft; ScenarioError names the draft and the field."""
        return [d.scenario() for d in self.drafts]


# --------------------------------------------------------------------------
def storage_workloads(document):
    """A scenario document's storage workloads (``workloads.storage``),
    the list made when it has none: where importers and calibration add
    the workloads they measured."""
    return document["workloads"].setdefault("storage", [])


# Names
# --------------------------------------------------------------------------

def identifier(text, taken=()):
    """A scenario identifier from free text (``[A-Za-z0-9_.:-]``, at most
    64 characters), made unique against ``taken``."""
    base = re.sub(r"[^A-Za-z0-9_.:-]+", "_", str(text)).strip("_")[:60] \
        or "item"
    name, suffix = base, 2
    while name in taken:
        name, suffix = f"{base[:60]}-{suffix}", suffix + 1
    return name


# --------------------------------------------------------------------------
# Numbers and times
# --------------------------------------------------------------------------

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_SPACES = str.maketrans("", "", " \u00a0\u202f\u2009'")
_OTHER = {",": ".", ".": ","}


def _mark_evidence(text):
    """What one cell says about its column's decimal mark: ',' or '.' when
    it decides, ('ambiguous', mark) for one separator followed by exactly
    three digits ("16,384": 16384 or 16.384?), None when it has no
    separator (or is not a number at all)."""
    if not isinstance(text, str):
        return None
    cell = text.strip().translate(_SPACES).lstrip("+-")
    if cell.isdigit():
        return None
    mantissa, exponent = re.split(r"[eE]", cell, maxsplit=1) \
        if re.search(r"[eE]", cell) else (cell, None)
    if not re.fullmatch(r"[\d.,]+", mantissa or "x"):
        return None
    commas, points = mantissa.count(","), mantissa.count(".")
    if commas and points:
        return "," if mantissa.rfind(",") > mantissa.rfind(".") else "."
    if commas + points == 0:
        return None
    mark = "," if commas else "."
    if commas + points > 1:
        return _OTHER[mark]  # 1,234,567: a thousands separator
    whole, fraction = mantissa.split(mark)
    if len(fraction) != 3 or whole in ("", "0") or len(whole) > 3 \
            or exponent is not None:
        return mark
    return ("ambiguous", mark)


def decimal_mark(file, column, cells):
    """The decimal mark of a column, decided from all its cells.

    Exporters write numbers in their locale: ``16,384`` is 16384 in an
    English export and 16.384 in a German one. A cell decides when it has
    both marks (the last one is the decimal one), a mark twice (a
    thousands separator), or one mark not followed by exactly three digits
    (``1,5``, ``0,384``). When no cell decides, the first ambiguous cell
    is refused; a column without any mark reads as decimal point.

    Parameters
    ----------
    file, column : str
        For messages.
    cells : iterable of (row, text)
        Non-text cells (numbers already) are passed over.

    Returns
    -------
    str
        ',' or '.'.

    Raises
    ------
    ImportProblem
        Cells that disagree, or an ambiguous cell and no other that
        decides; the message names row, column and value.
    """
    decided, ambiguous = {}, None
    for row, text in cells:
        evidence = _mark_evidence(text)
        if evidence is None:
            continue
        if isinstance(evidence, tuple):
            ambiguous = ambiguous or (row, text)
            continue
        decided.setdefault(evidence, (row, text))
        if len(decided) > 1:
            (row_a, a), (row_b, b) = decided[","], decided["."]
            raise ImportProblem(
                file, "one decimal mark in a column", row=row, column=column,
                found=f"a decimal comma at row {row_a} ({a!r}) and a "
                f"decimal point at row {row_b} ({b!r})")
    if decided:
        return next(iter(decided))
    if ambiguous is None:
        return "."
    row, text = ambiguous
    mark = "," if "," in text else "."
    whole = float(text.translate(_SPACES).replace(mark, ""))
    raise ImportProblem(
        file, "a number whose decimal mark the column shows (no other cell "
        f"tells whether '{mark}' separates thousands or decimals)", row=row,
        column=column, found=f"{text.strip()!r}: {whole:g} or "
        f"{whole / 1000:g}?")


def parse_number(text, decimal="."):
    """A float from a cell whose column has the decimal mark ``decimal``
    (:func:`decimal_mark`); the other mark and spaces may separate
    thousands, in groups of three. None for an empty cell; ValueError for
    text that is not such a number, NaN or infinite."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        if not math.isfinite(text):
            raise ValueError("not a finite number")
        return float(text)
    cell = str(text).strip().translate(_SPACES)
    if cell == "":
        return None
    thousands = _OTHER[decimal]
    if thousands in cell:
        whole = re.split(r"[%seE]" % re.escape(decimal), cell.lstrip("+-"),
                         maxsplit=1)[0]
        if not re.fullmatch(r"\d{1,3}(%s\d{3})+" % re.escape(thousands),
                            whole):
            raise ValueError(f"not a number: {text!r}")
        cell = cell.replace(thousands, "")
    cell = cell.replace(decimal, ".")
    if not _NUMBER.match(cell):
        raise ValueError(f"not a number: {text!r}")
    value = float(cell)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text!r}")
    return value


_PLAIN_COLUMN = re.compile(
    r"(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\n)*")
_AMBIGUOUS_POINT = re.compile(r"^[+-]?[1-9]\d{0,2}\.\d{3}$", re.MULTILINE)


def plain_numbers(cells):
    """The cells of a column as a float array in one step, when every cell
    is a plain number (digits and a decimal point, no thousands separator,
    no three-decimal value that could be one) and finite; else None, and
    the column is read cell by cell (:func:`decimal_mark`,
    :func:`parse_number`). A batch file of a million cells reads in a
    fraction of the time."""
    joined = "\n".join(cells) + "\n"
    if not _PLAIN_COLUMN.fullmatch(joined) or \
            _AMBIGUOUS_POINT.search(joined):
        return None
    values = np.array(cells, dtype=float)
    return values if np.isfinite(values).all() else None


def number(file, text, expected, *, row=None, column=None, decimal=".",
           minimum=None, maximum=None):
    """parse_number, with an ImportProblem naming the place; a value below
    ``minimum`` (a negative size or time) or above ``maximum`` (past the
    exporter's own type) refused too."""
    try:
        value = parse_number(text, decimal)
    except ValueError:
        raise ImportProblem(file, expected, row=row, column=column,
                            got=text) from None
    if value is not None and minimum is not None and value < minimum:
        raise ImportProblem(file, f"{expected} >= {minimum:g}", row=row,
                            column=column, got=text)
    if value is not None and maximum is not None and value > maximum:
        raise ImportProblem(file, f"{expected} <= {maximum:g}", row=row,
                            column=column, got=text)
    return value


_TIME_FORMATS = ("%m/%d/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S",
                 "%Y-%m-%d %H:%M:%S%z", "%Y-%m-%dT%H:%M:%S%z",
                 "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
                 "%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S.%f",
                 "%d.%m.%Y %H:%M:%S.%f", "%d.%m.%Y %H:%M:%S",
                 "%m/%d/%Y %I:%M:%S %p",
                 "%d/%m/%Y %H:%M:%S")


_last_format = [_TIME_FORMATS[0]]
_TIME_SHAPE = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}[ T]\d")


def parse_time(file, text, *, row=None, column=None):
    """Seconds since the epoch from the timestamp formats the exports use
    (PDH-CSV ``MM/DD/YYYY HH:MM:SS.mmm``, ISO 8601)."""
    cell = str(text).strip()[:64]
    if cell.endswith("Z"):
        cell = cell[:-1] + "+0000"
    # every format is a date, then a time: anything else is refused
    # without trying them all; an export writes one format, so the one
    # that fitted last is tried first
    shape = _TIME_SHAPE.match(cell)
    formats = sorted(_TIME_FORMATS, key=lambda f: f != _last_format[0]) \
        if shape else ()
    for fmt in formats:
        try:
            moment = datetime.datetime.strptime(cell, fmt)
        except ValueError:
            continue
        _last_format[0] = fmt
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=datetime.timezone.utc)
        return moment.timestamp()
    raise ImportProblem(file, "a timestamp (MM/DD/YYYY HH:MM:SS or ISO "
                        "8601)", row=row, column=column, got=text)


# --------------------------------------------------------------------------
# Series -> demand profiles
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class DemandStats:
    """Mean, 95th percentile and peak of a measured series [Gbit/s]."""

    mean: float
    p95: float
    peak: float

    @classmethod
    def of(cls, values):
        values = np.asarray(values, dtype=float)
        return cls(float(values.mean()), float(np.percentile(values, 95)),
                   float(values.max()))

    def __str__(self):
        return (f"mean {self.mean:.3g}, p95 {self.p95:.3g}, peak "
                f"{self.peak:.3g} Gbit/s")


#: An interval this many times the median one is a gap in a series.
GAP_FACTOR = 1.5


def gaps(times, file, rows, what):
    """Messages for sampling gaps: intervals over 1.5 times the median
    (one missing sample doubles an interval; clock jitter stays far below).

    ``rows`` gives the file row of each sample."""
    times = np.asarray(times, dtype=float)
    if times.size < 3:
        return []
    step = np.diff(times)
    median = float(np.median(step))
    return [f"{file}: rows {rows[i]}-{rows[i + 1]}: {step[i]:g} s between "
            f"samples of {what}, expected about {median:g} s; the profile "
            "interpolates across the gap"
            for i in np.flatnonzero(step > GAP_FACTOR * median)]


def add_flow(draft, flow, times, tx_gbps, rx_gbps, sources):
    """Add a flow whose demand follows measured series.

    The profile follows the direction with the larger peak; the flow's
    ``tx_gbps``/``rx_gbps`` are the peaks, so the profile reproduces that
    direction exactly and the other one at its peak with the same shape.

    Parameters
    ----------
    draft : Draft
    flow : dict
        The flow's other fields (id, vm, port_id, ...).
    times : array_like
        Sample times from the start. [s]
    tx_gbps, rx_gbps : array_like
        Measured transmit and receive rates per sample. [Gbit/s]
    sources : tuple of (str, str, str)
        File, transmit column and receive column.

    Returns
    -------
    (DemandStats, DemandStats)
        Transmit and receive statistics.
    """
    tx, rx = np.asarray(tx_gbps, float), np.asarray(rx_gbps, float)
    file, tx_column, rx_column = sources
    workloads = draft.document["workloads"]
    refuse_past(file, len(workloads["flows"]) + 1, MAX_ENTRIES, "flows")
    index = len(workloads["flows"])
    flow = dict(flow)
    flow["tx_gbps"] = draft.measured(f"workloads.flows[{index}].tx_gbps",
                                     float(tx.max()), file,
                                     f"{tx_column} (peak)")
    flow["rx_gbps"] = draft.measured(f"workloads.flows[{index}].rx_gbps",
                                     float(rx.max()), file,
                                     f"{rx_column} (peak)")
    shape = tx if tx.max() >= rx.max() else rx
    if shape.max() > 0 and len(times) > 1:
        names = {p["name"] for p in workloads["profiles"]}
        profile = identifier(f"{flow['id']}-measured", names)
        workloads["profiles"].append({
            "name": profile, "t_s": [float(t) for t in times],
            "scale": [float(v) for v in shape / shape.max()]})
        flow["profile"] = profile
    workloads["flows"].append(flow)
    return DemandStats.of(tx), DemandStats.of(rx)


def refuse_past(file, count, limit, what):
    """An ImportProblem when a scenario would hold more than ``limit``
    ``what`` (a scenario's own limits, models.scenario), raised before
    the work of building them."""
    if count > limit:
        raise ImportProblem(file, f"at most {limit:,} {what} in one "
                            "scenario (import a filtered export)",
                            found=f"{count:,}")


#: Ethernet speeds a derived link speed is rounded to [Gbit/s].
ETHERNET_GBPS = (0.1, 1, 2.5, 5, 10, 25, 40, 50, 100, 200, 400, 800)
#: The speeds of a server's uplinks, which a measured rate is rounded up
#: to when the link speed itself was not recorded [Gbit/s].
SERVER_ETHERNET_GBPS = (1, 10, 25, 40, 50, 100, 200, 400, 800)


def add_nics_and_team(draft, nics, *, team, policy, switch_mode,
                      assumption):
    """NICs (id, speed [Gbit/s], (file, column) or None when assumed) and
    one team of all of them; returns the NIC ids."""
    doc, ids = draft.document, []
    refuse_past(nics[0][2][0] if nics and nics[0][2] else draft.name,
                len(nics), MAX_NICS, "NICs")
    for nic_id, speed, source in nics:
        nic_id = identifier(nic_id, set(ids))
        index = len(doc["nics"])
        if source is not None:
            speed = draft.measured(f"nics[{index}].speed_gbps", speed,
                                   *source)
        doc["nics"].append({"id": nic_id, "speed_gbps": speed})
        ids.append(nic_id)
    doc["teams"].append({"name": team, "members": ids, "policy": policy,
                         "switch_mode": switch_mode})
    draft.assumptions.append(assumption)
    return ids


def read_text(path, result=None, what="an export"):
    """A whole text export (JSON, CSV, virsh output) through the loading
    gate: at most MAX_IMPORT_BYTES, BOM removed, the encoding detected
    (UTF-8, UTF-16, Windows-1252) and, when not UTF-8, said in
    ``result.taken``; an ImportProblem for a missing, binary or oversized
    file."""
    text, encoding = read_gated_text(path, MAX_IMPORT_BYTES, what)
    if result is not None and not encoding.startswith("utf-8"):
        result.taken.append(f"{path}: read as {encoding_name(encoding)} "
                            "text")
    return text


def expect(path, value, kind, key):
    """``value`` if it is a ``kind`` (dict or list), else an ImportProblem
    naming the key: an export's structure, checked before it is walked."""
    if not isinstance(value, kind):
        raise ImportProblem(path, "an object" if kind is dict else "a list",
                            key=key, found=type(value).__name__
                            .replace("NoneType", "null")
                            .replace("dict", "an object")
                            .replace("list", "a list"))
    return value


def read_json(path, result=None, what="JSON"):
    """A JSON export through the loading gate (:func:`read_text`,
    :func:`app.loading_gate.parse_json`: depth, integer length, NaN and
    duplicate keys refused)."""
    return parse_json(read_text(path, result, what), path, what)


def add_evacuation(draft, host, vms, platform, assumption):
    """A host's VMs as its evacuation over the draft's first transfer,
    named after the host's short name, with what it assumes."""
    draft.document["workloads"]["evacuations"] = [{
        "name": identifier(host.split(".")[0]),
        "transfer": draft.document["workloads"]["transfers"][0]["name"],
        "platform": platform, "vms": vms}]
    draft.assumptions.append(assumption)


def open_workbook(path, expected):
    """An .xlsx workbook read through the loading gate (cached values, not
    formulas; app.loading_gate.Workbook); an ImportProblem saying
    ``expected`` for a file that is not one or breaks a limit."""
    return Workbook(path, expected)


def import_each(paths, import_one):
    """An :class:`ImportResult` of ``import_one(path, result)`` run on each
    file: a file that cannot be read is a problem of its own, and the
    others are still imported."""
    result = ImportResult()
    for path in paths:
        try:
            import_one(path, result)
        except ImportProblem as err:
            result.problems.append(str(err))
    return result


@dataclass
class Outcome:
    """An import with its scenarios validated: ``scenarios`` the valid
    ones, ``checks`` (scenario, check) pairs for completed migrations,
    ``problems`` every bad input (the importer's and invalid drafts)."""

    result: object
    scenarios: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    problems: list = field(default_factory=list)


#: Problems listed one by one before the rest are only counted: a file
#: with a bad cell in every row must not print a million lines.
MAX_PROBLEMS = 100


def _first(problems):
    if len(problems) <= MAX_PROBLEMS:
        return list(problems)
    more = len(problems) - MAX_PROBLEMS
    return problems[:MAX_PROBLEMS] + [f"... and {more:,} more problems"]


def run_import(fmt, paths, **options):
    """Import ``paths`` as format ``fmt`` and validate the scenarios;
    ``options`` go to the format's importer (esxtop: ``link_speed_gbps``)."""
    module = importlib.import_module(f"app.importers.{FORMATS[fmt][0]}")
    try:
        result = module.import_files([str(p) for p in paths], **options)
    except ImportProblem as err:  # from building the scenario of all files
        result = ImportResult(problems=[str(err)])
    outcome = Outcome(result, problems=_first(result.problems))
    by_name = {}
    for draft in result.drafts:
        try:
            size = len(json.dumps(draft.finish()))
            if size > MAX_SCENARIO_BYTES:
                raise ScenarioError([("", f"the imported scenario would be "
                                      f"{size / 2**20:.1f} MiB; scenario "
                                      "files are limited to "
                                      f"{MAX_SCENARIO_BYTES / 2**20:g} MiB "
                                      "(import fewer or shorter series)")])
            scenario = draft.scenario()
        except ScenarioError as err:
            outcome.problems.append(f"{draft.name}: the imported scenario "
                                    f"is not valid:\n{err}")
            continue
        outcome.scenarios.append(scenario)
        for migration in scenario.workloads.migrations:
            by_name[migration.name] = scenario
    for check in result.checks:
        if check["name"] in by_name:
            outcome.checks.append((by_name[check["name"]], check))
    return outcome
