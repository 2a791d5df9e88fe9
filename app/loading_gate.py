"""The one gate every incoming file passes: scenario files (opened,
reopened, from the command line), recovery files and every importer's
exports.

A file from someone else may be built to hurt: a 6 KB JSON nested a
thousand deep, a TOML integer of 5,000 digits, a 27 KB workbook that
claims 300,000 x 16,384 cells, a zip member that inflates a thousandfold,
a 1 GB line without a newline. The gate checks the cheap limits (size,
nesting depth, integer length, line and field length, row and column
counts, inflated size) *before* the expensive work, and refuses with one
exception type, :class:`FileRefused`, whose message names the file, the
place (row and column, or key) and the value. Nothing here knows Qt.

Entry points
------------
load_scenario_file(path)
    A validated scenario, or :class:`models.scenario.ScenarioError`
    (a gate refusal is turned into one, naming the key).
read_limited(path, limit), decode_text(raw, path)
    The bounded bytes of a file and its text (BOM, UTF-8, UTF-16, cp1252).
parse_json(text, path), parse_toml(text, path)
    Plain data, refused past the depth and number limits, with NaN,
    Infinity and duplicate keys refused in JSON.
CsvTable(path, text, what)
    Header and rows of a CSV text, lines and fields bounded, the delimiter
    found in linear time, no column name twice, rows of another length
    than the header left out and said.
Workbook(path, what)
    An .xlsx read cell by cell: members' inflated sizes capped, DTDs
    refused, ``<dimension>`` not trusted.
"""

import codecs
import csv
import io
import json
import math
import os
import re
import stat
import tomllib
import zipfile
import zlib
from pathlib import Path

from models.scenario import ScenarioError, scenario_from_dict

MIB = 1 << 20

#: Largest scenario or recovery file [B]. Real scenarios are kilobytes.
MAX_SCENARIO_BYTES = 10 * MIB
#: Largest export an importer reads [B]: a day of 20 s vCenter samples for
#: a thousand VMs is about 30 MiB; a larger file asks for a filtered export.
MAX_IMPORT_BYTES = 64 * MIB
#: Containers inside one another in a JSON or TOML document: scenario
#: documents nest 6 deep, QMP and sadf replies 8.
MAX_DEPTH = 64
#: Keys of one JSON object or TOML table: a scenario's tables have tens,
#: a variant's changes hundreds; a million unknown keys cost 1.6 GB of
#: validation messages.
MAX_KEYS = 10_000
#: Digits of an integer: larger ones do not fit a float (1.8e308), and
#: Python refuses to read past 4,300 at all.
MAX_INTEGER_DIGITS = 300
#: Characters of one line of text: an esxtop header of 20,000 counters
#: is about 2 MB.
MAX_LINE_CHARS = 16 * MIB
#: Characters of one CSV field (the csv module's own default limit).
MAX_FIELD_CHARS = 131_072
#: Columns of a CSV table (esxtop batch files with every entity reach
#: tens of thousands) and of a worksheet (Excel's own limit is 16,384).
MAX_CSV_COLUMNS = 200_000
MAX_SHEET_COLUMNS = 16_384
#: Cells a worksheet may hold (rows x columns up to each row's last cell):
#: an RVTools vInfo tab of 20,000 VMs has 2 million.
MAX_SHEET_CELLS = 10_000_000
#: Inflated size of one member of an .xlsx archive [B], and the ratio of
#: inflated to compressed size a member may have (worksheet XML deflates
#: about 10:1; zip bombs 1000:1 and more).
MAX_MEMBER_BYTES = 256 * MIB
MAX_INFLATION_RATIO = 200


class FileRefused(ValueError):
    """A file (or a part of one) that cannot be read, with where and what
    was expected: ``file: row 12, column 'Speed': expected a number of
    Mbit/s, got 'fast'``, ``file: key meta.name: expected ...``.

    Attributes
    ----------
    file : str
    expected : str
        What the file should have held there.
    row, column, key : optional
        The place: a row (1-based, as a spreadsheet counts) and column
        of a table, or the key path in a document.
    got : optional
        The value found (shown quoted and shortened).
    found : str, optional
        What was found instead, described ("an integer of 5,000 digits").
    kind : str, optional
        For callers that word some refusals their own way: "unreadable"
        (``found`` is the system's reason), "too large", "malformed" (a
        syntax error: ``found`` is the parser's message).
    """

    def __init__(self, file, expected, *, row=None, column=None, key=None,
                 got=None, found=None, kind=None):
        self.file, self.row, self.column = str(file), row, column
        self.key, self.expected, self.got = key, expected, got
        self.found, self.kind = found, kind
        super().__init__(f"{self.file}: {self.detail}")

    @property
    def place(self):
        """Row, column or key as text ('' when the whole file)."""
        where = [f"row {self.row}" if self.row is not None else None,
                 None if self.column is None else f"column {self.column}"
                 if isinstance(self.column, int) else
                 f"column '{self.column}'",
                 f"key {_shortened(self.key)}" if self.key is not None
                 else None]
        return ", ".join(w for w in where if w)

    @property
    def detail(self):
        """The message without the file name."""
        got = f", got {_shown(self.got)}" if self.got is not None else \
            f", found {self.found}" if self.found else ""
        place = self.place
        return (f"{place + ': ' if place else ''}expected {self.expected}"
                f"{got}")


def _shown(value, limit=80):
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else \
        f"{text[:limit]}... ({len(text):,} characters)"


class MalformedText(FileRefused):
    """A JSON or TOML text that does not parse (a syntax error at a row
    and column), as opposed to one that parses but breaks a limit."""


def _shortened(text, limit=80):
    return text if len(text) <= limit else \
        f"{text[:limit // 2]}...{text[-limit // 2:]}"


def _size(count):
    return f"{count / MIB:.1f} MiB" if count >= MIB else f"{count:,} B"


# --------------------------------------------------------------------------
# Bytes and text
# --------------------------------------------------------------------------

def read_limited(path, limit, what="a file"):
    """The bytes of ``path``, refused (before reading, when the size is
    known) past ``limit`` bytes. Devices and pipes (/dev/zero) are read
    only up to the limit; a pipe or socket, which would block the open
    until someone writes, is refused."""
    try:
        if stat.S_ISFIFO(os.stat(path).st_mode) or \
                stat.S_ISSOCK(os.stat(path).st_mode):
            raise FileRefused(path, what, found="a pipe or socket")
        with open(path, "rb") as stream:
            info = os.fstat(stream.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise FileRefused(path, f"{what}, not a folder")
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise FileRefused(path, f"{what} of at most {_size(limit)}",
                                  found=f"{_size(info.st_size)} "
                                  f"({info.st_size:,} B)", kind="too large")
            raw = stream.read(limit + 1)
    except IsADirectoryError:
        raise FileRefused(path, f"{what}, not a folder") from None
    except OSError as err:
        raise FileRefused(path, f"{what} that can be read",
                          found=str(err.strerror or err),
                          kind="unreadable") from None
    if len(raw) > limit:
        raise FileRefused(path, f"{what} of at most {_size(limit)}",
                          found="more (a device or a pipe without end)",
                          kind="too large")
    return raw


#: Byte-order marks, longest first (UTF-32's starts like UTF-16's).
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))


def detect_encoding(head):
    """The encoding of a text from its first bytes: a byte-order mark
    (UTF-8, UTF-16, UTF-32), UTF-16 without one (every other byte zero, as
    PowerShell's ``Out-File`` writes), else UTF-8 if the bytes are UTF-8,
    else Windows-1252 (what Excel and PowerShell 5 write on Western
    Windows)."""
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding
    sample = head[:4096]
    if len(sample) >= 4:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) > 0.4 * len(odd) and not even.count(0):
            return "utf-16-le"
        if even.count(0) > 0.4 * len(even) and not odd.count(0):
            return "utf-16-be"
    try:
        # a multi-byte character cut at the end of the sample is fine
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        return "utf-8"
    except UnicodeDecodeError:
        return "cp1252"


def encoding_name(encoding):
    """How an encoding is said to the user."""
    return {"utf-8-sig": "UTF-8 (with BOM)", "utf-8": "UTF-8",
            "utf-16": "UTF-16 (with BOM)", "utf-16-le": "UTF-16 LE",
            "utf-16-be": "UTF-16 BE", "utf-32": "UTF-32 (with BOM)",
            "cp1252": "Windows-1252"}.get(encoding, encoding)


#: Signatures of binary files someone may pick by mistake.
_BINARY = ((b"PK\x03\x04", "a zip archive (an .xlsx workbook?)"),
           (b"%PDF", "a PDF document"), (b"\x7fELF", "a program"),
           (b"\xd0\xcf\x11\xe0", "an old Office document (.xls)"))


def decode_text(raw, path, what="a text file"):
    """(text, encoding) of a file's bytes (:func:`detect_encoding`); binary
    data (a known signature, a NUL character, an undecodable byte)
    refused."""
    for signature, kind in _BINARY:
        if raw.startswith(signature):
            raise FileRefused(path, f"{what} as text", found=kind)
    encoding = detect_encoding(raw)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as err:
        raise FileRefused(path, f"{what} as text in "
                          f"{encoding_name(encoding)}",
                          found=f"byte 0x{raw[err.start]:02x} at offset "
                          f"{err.start}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    zero = text.find("\x00")
    if zero >= 0:
        raise FileRefused(path, f"{what} as text, not binary data",
                          found=f"a NUL character at offset {zero}")
    return text, encoding


def read_text(path, limit=MAX_IMPORT_BYTES, what="a text file"):
    """(text, encoding) of a whole text file, bounded by ``limit``."""
    return decode_text(read_limited(path, limit, what), path, what)


# --------------------------------------------------------------------------
# Documents: JSON and TOML
# --------------------------------------------------------------------------

def _long_integer_line(text):
    """The line of the first run of more than MAX_INTEGER_DIGITS digits
    (underscores allowed, as TOML writes them), with its digit count."""
    found = re.search(r"[0-9][0-9_]{%d,}" % MAX_INTEGER_DIGITS, text)
    if found is None:
        return None, None
    digits = sum(c.isdigit() for c in found.group())
    return text.count("\n", 0, found.start()) + 1, digits


def _too_long_integer(path, text):
    row, digits = _long_integer_line(text)
    return FileRefused(path, f"integers of at most {MAX_INTEGER_DIGITS} "
                       "digits", row=row,
                       found=f"an integer of {digits:,} digits"
                       if digits else None)


def _too_deep(path, key=None):
    return FileRefused(path, f"at most {MAX_DEPTH} levels of lists and "
                       "tables inside one another", key=key,
                       found="deeper nesting")


def parse_json(text, path, what="JSON", *, finite=True):
    """Plain data from JSON text.

    Refused: malformed text (with its line and column), nesting deeper than
    :data:`MAX_DEPTH`, integers longer than :data:`MAX_INTEGER_DIGITS`,
    NaN, Infinity and numbers that overflow a float, and a key that
    appears twice in one object (JSON parsers differ on which one wins;
    an exporter writes each key once). With ``finite=False``, NaN and
    Infinity are read as floats (a scenario's schema refuses them itself,
    naming the field).
    """
    def integer(digits):
        if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS:
            raise _too_long_integer(path, text)
        return int(digits)

    def real(digits):
        value = float(digits)
        if not math.isfinite(value):
            raise FileRefused(path, "finite numbers",
                              row=text.count("\n", 0, text.find(digits)) + 1,
                              got=digits)
        return value

    def constant(name):
        raise FileRefused(path, "numbers (JSON has no NaN or Infinity)",
                          row=_line_of(text, name), got=name)

    def unique(pairs):
        document = dict(pairs)
        if len(document) < len(pairs):
            seen = {}
            for key, value in pairs:
                if key in seen:
                    raise FileRefused(
                        path, "each key once in an object", key=key,
                        found=f"{_shown(seen[key], 30)} and then "
                        f"{_shown(value, 30)}")
                seen[key] = value
        return document

    try:
        data = json.loads(text, parse_int=integer,
                          parse_float=real if finite else float,
                          parse_constant=constant if finite else float,
                          object_pairs_hook=unique)
    except json.JSONDecodeError as err:
        raise MalformedText(path, f"{what} ({err.msg})", row=err.lineno,
                            column=err.colno, found=err.msg,
                            kind="malformed") from None
    except RecursionError:
        raise _too_deep(path) from None
    check_document(data, path)
    return data


def _line_of(text, word):
    at = re.search(r"(?<![\"\w])%s(?![\"\w])" % re.escape(word), text)
    return None if at is None else text.count("\n", 0, at.start()) + 1


def parse_toml(text, path):
    """Plain data from TOML text, refused past the depth and integer
    limits (as :func:`parse_json`; TOML refuses duplicate keys itself)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise MalformedText(path, f"TOML ({err})", found=str(err),
                            kind="malformed") from None
    except RecursionError:
        raise _too_deep(path) from None
    except ValueError:  # Python's own limit on integer length
        raise _too_long_integer(path, text) from None
    check_document(data, path)
    return data


_INTEGER_LIMIT = 10 ** MAX_INTEGER_DIGITS


def check_document(data, path):
    """Refuse plain data nested deeper than :data:`MAX_DEPTH`, with an
    object of more than :data:`MAX_KEYS` keys or an integer of more than
    :data:`MAX_INTEGER_DIGITS` digits, naming the key; a walk without
    recursion, linear in the document's size."""
    stack = [(data, 1, None)]
    while stack:
        node, depth, trail = stack.pop()
        if isinstance(node, dict) and len(node) > MAX_KEYS:
            raise FileRefused(path, f"at most {MAX_KEYS:,} keys in one "
                              "table or object",
                              key=_key_path(trail) or None,
                              found=f"{len(node):,}")
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, (dict, list)):
                if depth >= MAX_DEPTH:
                    raise _too_deep(path, _key_path((trail, key)))
                stack.append((value, depth + 1, (trail, key)))
            elif isinstance(value, int) and not isinstance(value, bool) \
                    and not -_INTEGER_LIMIT < value < _INTEGER_LIMIT:
                raise FileRefused(path, f"integers of at most "
                                  f"{MAX_INTEGER_DIGITS} digits",
                                  key=_key_path((trail, key)),
                                  found=f"an integer of "
                                  f"{len(str(abs(value))):,} digits")


def _key_path(trail):
    parts = []
    while trail is not None:
        trail, key = trail
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return "".join(reversed(parts)).lstrip(".")


# --------------------------------------------------------------------------
# Scenario files
# --------------------------------------------------------------------------

#: Scenario file formats by extension.
SCENARIO_FORMATS = {".toml": "toml", ".json": "json"}


def scenario_format(path):
    """'toml' or 'json' from the file extension (ScenarioError otherwise)."""
    fmt = SCENARIO_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ScenarioError([("", f"unknown file type {Path(path).suffix!r}:"
                              " scenario files end in .toml or .json")],
                            str(path))
    return fmt


def scenario_from_text(text, fmt, source):
    """A validated scenario from TOML or JSON text; every refusal (the
    gate's or the schema's) a ScenarioError naming ``source`` and the
    key."""
    try:
        data = parse_toml(text, source) if fmt == "toml" \
            else parse_json(text, source, finite=False)
    except FileRefused as err:
        raise _as_scenario_error(err, fmt) from None
    return scenario_from_dict(data, source=str(source))


def load_scenario_file(path, parsed=None):
    """Read a scenario file through the gate and validate it.

    The one entry point for every scenario that comes in: a file named on
    the command line, opened or reopened in the GUI, or a template. With
    ``parsed`` (a dict kept over a batch of files: a fleet), a file whose
    format and text were parsed before is that same scenario, not parsed
    again.

    Raises
    ------
    models.scenario.ScenarioError
        Whatever is wrong (missing, unreadable, oversized, not UTF-8,
        malformed, too deep, an integer too long, invalid); the message
        names the file and the key or line, and is fit to show as is.
    """
    fmt = scenario_format(path)
    try:
        raw = read_limited(path, MAX_SCENARIO_BYTES, "a scenario file")
    except FileRefused as err:
        raise _as_scenario_error(err, fmt) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ScenarioError([("", f"not UTF-8 text (byte "
                              f"0x{raw[err.start]:02x} at offset "
                              f"{err.start})")], str(path)) from None
    if parsed is None:
        return scenario_from_text(text, fmt, str(path))
    if (fmt, text) not in parsed:
        parsed[fmt, text] = scenario_from_text(text, fmt, str(path))
    return parsed[fmt, text]


def _as_scenario_error(err, fmt):
    """A gate refusal in the words scenario files have always had, where
    there are such words."""
    if err.kind == "unreadable":
        return ScenarioError([("", f"cannot read file: {err.found}")],
                             err.file)
    if err.kind == "too large" and os.path.isfile(err.file):
        return ScenarioError([("", f"file is "
                               f"{os.path.getsize(err.file) / MIB:.1f} MiB;"
                               " scenario files are limited to "
                               f"{MAX_SCENARIO_BYTES / MIB:g} MiB")],
                             err.file)
    if err.kind == "malformed":
        where = f" at line {err.row} column {err.column}" \
            if err.row is not None else ""
        return ScenarioError([("", f"malformed {fmt.upper()}: {err.found}"
                               f"{where}")], err.file)
    place = _shortened(err.key) if err.key is not None else \
        f"line {err.row}" if err.row is not None else ""
    got = f", got {_shown(err.got)}" if err.got is not None else \
        f", found {err.found}" if err.found else ""
    column = f" column {err.column}" if err.column is not None and \
        err.key is None else ""
    return ScenarioError([(place + column, f"expected {err.expected}{got}")],
                         err.file)


# --------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------

def csv_delimiter(line, candidates=",;\t"):
    """The delimiter of a CSV header line: the candidate found most often
    outside quotes (one pass; :class:`csv.Sniffer` is quadratic in the
    line's length). A comma when none is found."""
    unquoted = re.sub(r'"[^"]*"?', "", line)
    counts = {d: unquoted.count(d) for d in candidates}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


class CsvTable:
    """The header and rows of a CSV text, read with every length bounded.

    Each line is read with a bound (:data:`MAX_LINE_CHARS`), so a 1 GB
    line or ``/dev/zero`` costs no more than the bound; a field longer
    than :data:`MAX_FIELD_CHARS` is refused with its row and column; a
    header with more than ``max_columns`` cells or a name twice is
    refused. A row with more or fewer cells than the header (a delimiter
    inside an unquoted cell, a truncated line) is not read: it is listed
    in ``problems``, with its row and cell counts.

    Parameters
    ----------
    path : str or Path
        For messages.
    text : str
        The file's text (:func:`read_text`).
    what : str
        What the file should be ("a VM inventory"), for messages.
    skip : callable, optional
        ``skip(line)`` is true for lines before the header to pass over
        (PowerShell's ``#TYPE`` line).
    delimiters : str
        Candidates for the delimiter (:func:`csv_delimiter`).
    max_columns : int
    """

    def __init__(self, path, text, what, *, skip=None, delimiters=",;\t",
                 max_columns=MAX_CSV_COLUMNS):
        self.path, self.what, self.problems = str(path), what, []
        self._stream = io.StringIO(text)
        self._line = 0          # physical lines read so far
        self._record = []       # the lines of the record being read
        first = self._next_line()
        while first is not None and skip is not None and skip(first):
            first = self._next_line()
        if first is None or not first.strip():
            raise FileRefused(path, f"{what}: a header row",
                              row=self._line or 1,
                              found="an empty line" if first is not None
                              else "an empty file")
        self.header_row = self._line
        self.delimiter = csv_delimiter(first, delimiters)
        if first.count(self.delimiter) >= max_columns:
            raise FileRefused(path, f"{what}: at most {max_columns:,} "
                              "columns", row=self.header_row,
                              found=f"{first.count(self.delimiter) + 1:,}")
        self._reader = csv.reader(self._lines(first), delimiter=self.delimiter)
        self.header = [cell.strip() for cell in self._read()]
        seen = {}
        for index, name in enumerate(self.header, 1):
            if name and name in seen:
                raise FileRefused(path, f"{what}: each column name once "
                                  "(which of the two holds the values?)",
                                  row=self.header_row, column=name,
                                  found=f"columns {seen[name]} and {index}")
            seen[name] = index

    def _next_line(self):
        line = self._stream.readline(MAX_LINE_CHARS + 1)
        if not line:
            return None
        self._line += 1
        if len(line) > MAX_LINE_CHARS:
            raise FileRefused(self.path, f"{self.what}: lines of at most "
                              f"{MAX_LINE_CHARS:,} characters",
                              row=self._line, found="a longer line")
        return line

    def _lines(self, first):
        line = first
        while line is not None:
            self._record.append(line)
            yield line
            line = self._next_line()

    def _read(self):
        """The next record's cells, or None at the end."""
        csv.field_size_limit(MAX_FIELD_CHARS)
        self._record = []
        try:
            return next(self._reader, None)
        except csv.Error as err:
            start = self._line - len(self._record) + 1
            if "field larger" in str(err):
                column = self._long_field_column()
                raise FileRefused(
                    self.path, f"{self.what}: fields of at most "
                    f"{MAX_FIELD_CHARS:,} characters", row=start,
                    column=column, found="a longer one") from None
            raise FileRefused(self.path, f"{self.what} as CSV ({err})",
                              row=start) from None

    def _long_field_column(self):
        """The column (header name or number) of the record's field that
        exceeds the limit, found by a quote-aware scan of its lines."""
        text = "".join(self._record)[:MAX_FIELD_CHARS * 4]
        index, length, quoted = 0, 0, False
        for char in text:
            if char == '"':
                quoted = not quoted
            elif char == self.delimiter and not quoted:
                index, length = index + 1, 0
                continue
            length += 1
            if length > MAX_FIELD_CHARS:
                break
        header = getattr(self, "header", None)
        if header and index < len(header) and header[index]:
            return header[index]
        return index + 1

    def rows(self):
        """(row number, cells) of each record after the header; blank
        lines are passed over, rows of the wrong length listed in
        ``problems``."""
        width = len(self.header)
        while True:
            before = self._line
            row = self._read()
            if row is None:
                return
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            number = before + 1
            if len(row) != width:
                self.problems.append(
                    f"{self.path}: row {number}: {len(row)} cells but the "
                    f"header has {width}: row not read (a delimiter inside "
                    "an unquoted cell, or a truncated line?)")
                continue
            yield number, row


# --------------------------------------------------------------------------
# Excel workbooks (.xlsx)
# --------------------------------------------------------------------------

#: Inflated size of all the members of an .xlsx archive [B]: an RVTools
#: export of 20,000 VMs inflates to about 150 MiB; reading 256 MiB of
#: worksheet XML takes about a minute on a busy machine.
MAX_INFLATED_BYTES = 256 * MIB
#: Rows of a worksheet (Excel's own limit).
MAX_SHEET_ROWS = 1_048_576
_XML_CHUNK = 1 << 16


def _column_number(letters):
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


class Workbook:
    """An .xlsx workbook read through the gate, cell by cell.

    Before anything is parsed, the archive's members are checked: each at
    most :data:`MAX_MEMBER_BYTES` inflated and :data:`MAX_INFLATION_RATIO`
    times its compressed size, all together at most
    :data:`MAX_INFLATED_BYTES` (zip bombs). The XML is read with a
    streaming parser that refuses any DTD (entities, external entities:
    no Office part has one), and the rows are the cells each ``<row>``
    holds: ``<dimension ref=...>`` is not read (a 27 KB file may claim
    300,000 x 16,384 cells), each row is only as long as its last cell,
    and a cell past column :data:`MAX_SHEET_COLUMNS` or row
    :data:`MAX_SHEET_ROWS`, or more than :data:`MAX_SHEET_CELLS` cells,
    is refused. Values are the cached ones (not formulas): numbers as int
    or float, text, booleans; dates stay numbers (serial days).

    Parameters
    ----------
    path : str or Path
    what : str
        What the workbook should be ("an RVTools export"), for messages.
    """

    def __init__(self, path, what):
        self.path, self.what = str(path), what
        expected = f"{what} in .xlsx format (Excel 2007+ workbook)"
        try:
            info = os.stat(path)
        except OSError as err:
            raise FileRefused(path, f"{expected} that can be read "
                              f"({err.strerror or err})") from None
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(path, expected, found="not a regular file")
        if info.st_size > MAX_IMPORT_BYTES:
            raise FileRefused(path, f"{expected} of at most "
                              f"{_size(MAX_IMPORT_BYTES)}",
                              found=_size(info.st_size))
        try:
            self._zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError) as err:
            raise FileRefused(path, expected, found=f"no zip archive "
                              f"({err})") from None
        self._check_members()
        try:
            self._sheets = self._sheet_parts()
        except KeyError as err:
            self.close()
            raise FileRefused(path, expected, found=f"no part {err}") \
                from None
        self._shared = None
        self.sheetnames = list(self._sheets)

    def _check_members(self):
        members = self._zip.infolist()
        total = 0
        for member in members:
            total += member.file_size
            ratio = member.file_size / max(member.compress_size, 1)
            if member.file_size > MAX_MEMBER_BYTES or (
                    member.file_size > MIB and ratio > MAX_INFLATION_RATIO):
                self.close()
                raise FileRefused(
                    self.path, f"{self.what}: archive members of at most "
                    f"{_size(MAX_MEMBER_BYTES)} that inflate at most "
                    f"{MAX_INFLATION_RATIO}-fold", key=member.filename,
                    found=f"{_size(member.file_size)} from "
                    f"{_size(member.compress_size)} (a zip bomb?)")
        if total > MAX_INFLATED_BYTES:
            self.close()
            raise FileRefused(self.path, f"{self.what}: at most "
                              f"{_size(MAX_INFLATED_BYTES)} inflated",
                              found=_size(total))

    def close(self):
        self._zip.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _parse(self, part, start, end=None, text=None):
        """Stream one XML part through expat, calling ``start(name,
        attrs)``, ``end(name)`` and ``text(data)`` (names without
        namespace prefix); yields after each chunk so that callers can
        hand on what is complete."""
        from xml.parsers import expat

        def no_dtd(*_):
            raise FileRefused(self.path, f"{self.what}: XML without a DTD "
                              "(no entities)", key=part,
                              found="a <!DOCTYPE> declaration")

        parser = expat.ParserCreate()
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartDoctypeDeclHandler = no_dtd
        parser.EntityDeclHandler = no_dtd
        parser.StartElementHandler = \
            lambda name, attrs: start(name.rpartition(":")[2], attrs)
        if end is not None:
            parser.EndElementHandler = \
                lambda name: end(name.rpartition(":")[2])
        if text is not None:
            parser.CharacterDataHandler = text
        parser.buffer_text = True
        try:
            with self._zip.open(part) as stream:
                while True:
                    chunk = stream.read(_XML_CHUNK)
                    parser.Parse(chunk, not chunk)
                    yield
                    if not chunk:
                        return
        except expat.ExpatError as err:
            raise FileRefused(self.path, f"{self.what}: well-formed XML "
                              f"({expat.ErrorString(err.code)})", key=part,
                              row=err.lineno) from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as err:
            raise FileRefused(self.path, f"{self.what}: an intact archive",
                              key=part, found=str(err)) from None
        except KeyError:
            raise FileRefused(self.path, f"{self.what}: a part {part}") \
                from None

    def _read_all(self, part, start, end=None, text=None):
        for _ in self._parse(part, start, end, text):
            pass

    def _sheet_parts(self):
        """Sheet name -> part name, from the workbook and its relations."""
        sheets, targets = [], {}

        def sheet(name, attrs):
            if name == "sheet":
                rid = next((v for k, v in attrs.items()
                            if k.endswith(":id")), None)
                sheets.append((attrs.get("name", ""), rid))

        def relation(name, attrs):
            if name == "Relationship":
                targets[attrs.get("Id")] = attrs.get("Target", "")

        self._read_all("xl/workbook.xml", sheet)
        self._read_all("xl/_rels/workbook.xml.rels", relation)
        parts = {}
        for name, rid in sheets:
            target = targets.get(rid, "")
            target = target[1:] if target.startswith("/") \
                else f"xl/{target}"
            parts[name] = target
        return parts

    def _strings(self):
        """The shared strings table, read once."""
        if self._shared is not None:
            return self._shared
        self._shared, pieces, state = [], [], {"in_t": False, "skip": 0}
        if "xl/sharedStrings.xml" not in self._zip.NameToInfo:
            return self._shared

        def start(name, attrs):
            if name == "si":
                pieces.clear()
            elif name == "rPh":   # phonetic guide, not the text
                state["skip"] += 1
            elif name == "t" and not state["skip"]:
                state["in_t"] = True

        def end(name):
            if name == "si":
                self._shared.append("".join(pieces))
            elif name == "rPh":
                state["skip"] -= 1
            elif name == "t":
                state["in_t"] = False

        def text(data):
            if state["in_t"]:
                pieces.append(data)

        self._read_all("xl/sharedStrings.xml", start, end, text)
        return self._shared

    def __getitem__(self, name):
        return Sheet(self, name, self._sheets[name])



class Sheet:
    """One worksheet of a :class:`Workbook`."""

    def __init__(self, workbook, name, part):
        self.workbook, self.title, self._part = workbook, name, part

    def _refuse(self, expected, row=None, column=None, got=None,
                found=None):
        return FileRefused(self.workbook.path,
                           f"{self.workbook.what}: {expected}", row=row,
                           column=f"{self.title}!{column}" if column
                           else None, got=got, found=found)

    def iter_rows(self, values_only=True):
        """Each row from row 1 as a tuple of cell values (None for an
        empty cell), only as long as its last cell; rows the sheet skips
        come as empty tuples, so that rows keep their numbers."""
        strings = self.workbook._strings()
        done, state = [], {"row": 0, "cells": 0, "cell": None}
        cells, text = {}, []

        def start(name, attrs):
            if name == "row":
                number = attrs.get("r")
                number = int(number) if number and number.isdigit() \
                    else state["row"] + 1
                if number <= state["row"] or number > MAX_SHEET_ROWS:
                    raise self._refuse(f"rows in order, at most "
                                       f"{MAX_SHEET_ROWS:,}", row=number,
                                       found=f"row {number} after row "
                                       f"{state['row']}")
                while state["row"] < number - 1:
                    state["row"] += 1
                    done.append(())
                state["row"] = number
                cells.clear()
            elif name == "c":
                ref = attrs.get("r", "")
                letters = ref.rstrip("0123456789")
                column = _column_number(letters) \
                    if letters.isalpha() and letters.isupper() \
                    and len(letters) <= 3 else max(cells, default=0) + 1
                if column > MAX_SHEET_COLUMNS:
                    raise self._refuse(f"at most {MAX_SHEET_COLUMNS:,} "
                                       "columns", row=state["row"],
                                       column=ref)
                state["cell"] = (column, ref, attrs.get("t", "n"))
                text.clear()
            elif name in ("v", "t") and state["cell"] is not None:
                state["in_value"] = True

        def end(name):
            if name in ("v", "t"):
                state["in_value"] = False
            elif name == "c" and state["cell"] is not None:
                column, ref, kind = state["cell"]
                cells[column] = self._value(kind, "".join(text),
                                            state["row"], ref, strings)
                state["cell"] = None
            elif name == "row":
                width = max(cells, default=0)
                state["cells"] += width
                if state["cells"] > MAX_SHEET_CELLS:
                    raise self._refuse(f"at most {MAX_SHEET_CELLS:,} cells",
                                       row=state["row"])
                row = [None] * width
                for column, value in cells.items():
                    row[column - 1] = value
                done.append(tuple(row))

        def characters(data):
            if state.get("in_value"):
                text.append(data)

        for _ in self.workbook._parse(self._part, start, end, characters):
            yield from done
            done.clear()

    def _value(self, kind, text, row, ref, strings):
        if kind == "s":
            if not text.strip().isdigit() or int(text) >= len(strings):
                raise self._refuse("a shared string's index", row=row,
                                   column=ref, got=text)
            return strings[int(text)]
        if kind in ("inlineStr", "str", "e", "d"):
            return text
        if kind == "b":
            return text.strip() == "1"
        if text == "":
            return None
        try:
            value = float(text)
        except ValueError:
            raise self._refuse("a number", row=row, column=ref,
                               got=text) from None
        if not math.isfinite(value):
            raise self._refuse("a finite number", row=row, column=ref,
                               got=text)
        return int(value) if value.is_integer() and abs(value) < 2 ** 53 \
            and re.fullmatch(r"-?\d+", text.strip()) else value
