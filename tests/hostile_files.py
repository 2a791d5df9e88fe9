"""Hostile files for every importer and the scenario loader, generated
here (nothing hostile is committed), and the runner that takes each one
through the command line in a process limited like a user's machine.

Two kinds of input:

- :func:`corpus`: one file per known class of attack or damage (issue 38:
  workbooks claiming 300,000 x 16,384 cells, zip bombs, entities, CSV
  fields and lines past every limit, JSON nested 1,000 deep, integers of
  5,000 digits, NaN, numbers written with thousands separators,
  duplicate headers and keys, ...), each with the exit codes allowed and
  what the message must say (file, row/column or key, value);
- :func:`mutations`: the committed samples of tests/data/import mutated
  at random (bytes, lines, numbers, structure), for breadth.

Every run must end with exit 0, 1 or 2, never "internal error" or a
traceback, within :data:`SECONDS` per file and 2 GiB of address space.

``python -m tests.hostile_files [MUTATIONS] [--seed N] [--seconds S]
[--large]`` runs the corpus (with ``--large`` also :func:`large`, files of
about 10 MB) and MUTATIONS mutated files in this process, each within
S seconds (``make fuzz`` runs many; the test suite a few,
tests/app/test_hostile_files.py); it prints one JSON line per file on
standard output, each failure and the counts on standard error, and exits
1 if any file failed.
"""

import contextlib
import io
import json
import os
import random
import re
import resource
import signal
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "data" / "import"
#: Longest a file may take [s] (issue 38: any input of at most 10 MB).
SECONDS = 60
#: Address space of the process running the files [B].
MEMORY_BYTES = 2 << 30


@dataclass
class Case:
    """One hostile file and what the command line must do with it."""

    name: str
    argv: list          # the command, {file} standing for the path
    filename: str
    write: object       # write(path): creates the file
    codes: tuple = (1, 2)
    says: tuple = ()    # substrings of the output, {file} for the path
    mutation: bool = False


@dataclass
class Outcome:
    name: str
    code: object
    seconds: float
    output: str
    problems: list = field(default_factory=list)


# --------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------

def _bytes(data):
    return lambda path: path.write_bytes(data)


def _text(text, encoding="utf-8"):
    return lambda path: path.write_bytes(text.encode(encoding))


def _device(target):
    return lambda path: path.symlink_to(target)


def _fifo(path):
    os.mkfifo(path)


def _sparse_size(size, head=b""):
    def write(path):
        with open(path, "wb") as stream:
            stream.write(head)
            stream.truncate(size)
    return write


def _repeated(head, block, size):
    """``head`` then ``block`` repeated to about ``size`` bytes."""
    def write(path):
        with open(path, "wb") as stream:
            stream.write(head)
            for _ in range(size // len(block)):
                stream.write(block)
    return write


INVENTORY = ('"Name","ComputerName","State","Memory MB"\n'
             '"vm1","hv01","Running","4096"\n'
             '"vm2","hv01","Running","8192"\n')


def _inventory_xlsx(path):
    """A valid inventory workbook (openpyxl, as Excel would save it)."""
    import openpyxl
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Name", "Host", "State", "Memory MB"])
    sheet.append(["vm1", "hv01", "Running", 4096])
    sheet.append(["vm2", "hv01", "Running", 8192])
    workbook.save(path)


def _rvtools_xlsx(path):
    """A valid RVTools export of two hosts; vHost is its first sheet."""
    from tests.app.import_samples import rvtools_rows, write_rvtools
    write_rvtools(path, rvtools_rows())


def _patched_xlsx(base, patch):
    """A workbook from ``base(path)`` with members changed by ``patch``
    (a function of {name: bytes} returning the new {name: bytes}); members
    are deflated unless ``patch`` says otherwise."""
    def write(path):
        base(path)
        with zipfile.ZipFile(path) as archive:
            members = {n: archive.read(n) for n in archive.namelist()}
        members = patch(members)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members.items():
                archive.writestr(name, data)
    return write


SHEET = "xl/worksheets/sheet1.xml"


def _sheet(rows_xml, dimension="A1:D3"):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<worksheet xmlns='
            f'"http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            f'<dimension ref="{dimension}"/><sheetData>{rows_xml}'
            '</sheetData></worksheet>').encode()


def _cell(ref, value):
    if isinstance(value, str):
        return f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>'
    return f'<c r="{ref}"><v>{value}</v></c>'


def _rows(*rows):
    return "".join(f'<row r="{n}">' + "".join(
        _cell(f"{'ABCD'[i]}{n}", v) for i, v in enumerate(row)) + "</row>"
        for n, row in enumerate(rows, 1))


_HEADER = ("Name", "Host", "State", "Memory MB")


def _with_sheet(sheet_xml):
    return _patched_xlsx(_inventory_xlsx,
                         lambda m: {**m, SHEET: sheet_xml})


def _dimension_bomb(members):
    """The claimed size and one cell in the last row: a reader that pads
    every row to the claim builds 300,000 x 16,384 cells."""
    sheet = _claim(members[SHEET].decode())
    sheet = sheet.replace("</sheetData>", '<row r="300000">'
                          + _cell("A300000", "vm9") + "</row></sheetData>")
    return {**members, SHEET: sheet.encode()}


def _claim(sheet):
    """A sheet's XML claiming A1:XFD300000 (openpyxl's write-only mode
    writes no <dimension>: one is added)."""
    if "<dimension" not in sheet:
        sheet = sheet.replace("<sheetViews>", "<dimension/><sheetViews>", 1)
    sheet, found = re.subn(r'<dimension( ref="[^"]*")?\s*/>',
                           '<dimension ref="A1:XFD300000"/>', sheet)
    assert found == 1, sheet[:300]
    return sheet


def _empty_rows(members):
    """The claimed size and 50,000 empty rows."""
    sheet = _claim(members[SHEET].decode())
    sheet = sheet.replace("</sheetData>", "".join(
        f'<row r="{n}"/>' for n in range(10, 50_010)) + "</sheetData>")
    return {**members, SHEET: sheet.encode()}


def _far_cells(members):
    rows = _rows(_HEADER, ("vm1", "hv01", "Running", 4096)) + "".join(
        f'<row r="{n}">{_cell(f"XFD{n}", "x")}</row>'
        for n in range(3, 3000))
    return {**members, SHEET: _sheet(rows, "A1:XFD3000")}


def _zip_bomb(members):
    # 40 MiB of blanks inside the sheet deflate about 1000:1
    sheet = members[SHEET].replace(b"<sheetData>",
                                   b"<sheetData>" + b" " * (40 << 20))
    return {**members, SHEET: sheet}


def _doctype(declaration, use):
    def patch(members):
        sheet = members[SHEET].decode()
        sheet = sheet.replace("<worksheet", f"{declaration}<worksheet", 1)
        sheet = sheet.replace("<sheetData>",
                              f"<sheetData>{use}", 1)
        return {**members, SHEET: sheet.encode()}
    return patch


_LAUGHS = ('<!DOCTYPE lolz [<!ENTITY lol "lol">' + "".join(
    f'<!ENTITY lol{i} "' + f"&lol{i - 1 if i > 1 else ''};" * 10 + '">'
    for i in range(1, 10)) + "]>")


def _entity_row(entity):
    """A row whose cell holds a reference to ``entity``."""
    return (f'<row r="9"><c r="A9" t="inlineStr"><is><t>&{entity};</t>'
            "</is></c></row>")


def _nested(depth, leaf="1"):
    return "[" * depth + leaf + "]" * depth


def _qmp(**changes):
    reply = {"status": "completed", "total-time": 37369, "downtime": 337,
             "ram": {"transferred": 4376000000, "remaining": 0,
                     "total": 4312000000, "duplicate": 10, "normal": 100,
                     "page-size": 4096, "dirty-sync-count": 5,
                     "mbps": 930.0}}
    for key, value in changes.items():
        target = reply["ram"] if key in reply["ram"] else reply
        target[key] = value
    return reply


def _qmp_text(**changes):
    """A QMP reply as JSON text; a value given as ``raw('...')`` is
    written as is (NaN, duplicate keys)."""
    text = json.dumps({"return": _qmp(**{k: v for k, v in changes.items()
                                           if not isinstance(v, Raw)})})
    for key, value in changes.items():
        if isinstance(value, Raw):
            text = re.sub(rf'"{key}": [^,}}]+', f'"{key}": {value}', text)
    return _text(text + "\n")


class Raw(str):
    """JSON text written into a document as is."""


def _sar(mutate):
    from tests.app.import_samples import sar_sample
    data = sar_sample()
    return _text(mutate(data) if callable(mutate) else mutate)


def _sar_json(change):
    def mutate(data):
        change(data)
        return json.dumps(data)
    return mutate


def _set(path, value):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


JOBINFO = """Job type:         Completed
Operation:        Outgoing migration
Time elapsed:     {elapsed}        ms
Data processed:   4.076 GiB
Data remaining:   0.000 B
Data total:       4.016 GiB
Memory processed: 4.076 GiB
Memory remaining: 0.000 B
Memory total:     4.016 GiB
Memory bandwidth: 111.698 MiB/s
Total downtime:   {downtime}          ms
"""


def _esxtop(ports=4, samples=3, extra_cell=False, timestamps=None):
    """An esxtop batch file with ``ports`` VM ports on vSwitch0 and two
    uplinks."""
    host = "\\\\esx01"
    header = ["(PDH-CSV 4.0) (UTC)(0)"]
    clients = ["vmnic0", "vmnic1"] + [f"{i}:vm{i}.eth0"
                                      for i in range(ports)]
    for port, client in enumerate(clients, 33554433):
        base = f"{host}\\Network Port(vSwitch0:{port}:{client})"
        header += [f"{base}\\Link Speed (Mb)",
                   f"{base}\\MBits Transmitted/sec",
                   f"{base}\\MBits Received/sec"]
    lines = [",".join(f'"{h}"' for h in header)]
    for i in range(samples):
        minutes, seconds = divmod(5 * i, 60)
        stamp = timestamps[i] if timestamps else \
            f"11/20/2026 {10 + minutes // 60:02d}:{minutes % 60:02d}:" \
            f"{seconds:02d}"
        cells = [stamp] + ["10000", "100.5", "50.25"] * len(clients)
        if extra_cell and i == 1:
            cells.insert(2, "999999")
        lines.append(",".join(f'"{c}"' for c in cells))
    return "\n".join(lines) + "\n"


def _zeros(batch, samples):
    """An esxtop batch file's header and ``samples`` rows of "0" cells."""
    header = batch.split("\n", 1)[0]
    width = header.count('","') + 1
    rows = []
    for i in range(samples):
        minutes, seconds = divmod(5 * i, 60)
        rows.append(f"11/20/2026 {10 + minutes // 60:02d}:{minutes % 60:02d}:"
                    f"{seconds:02d}," + ",".join(["0"] * (width - 1)))
    return header + "\n" + "\n".join(rows) + "\n"


def _vcenter(rows, metrics=("net.transmitted.average",
                            "net.received.average")):
    header = ('#TYPE VMware.VimAutomation.ViCore.Impl.V1.Stat.'
              'FloatSampleImpl\n"Value","Timestamp","MetricId","Unit",'
              '"Description","Entity","EntityId","IntervalSecs",'
              '"Instance","Uid"\n')
    lines = []
    for value, second in rows:
        for metric in metrics:
            lines.append(f'"{value}","11/20/2026 10:00:{second:02d} AM",'
                         f'"{metric}","KBps","","web01","VirtualMachine-'
                         f'vm-101","20","",""')
    return header + "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------

def _imp(fmt):
    # an RVTools export holds several hosts: their scenarios need -o
    return ["import", fmt, "{file}"] + (["-o", "{file}.toml"]
                                        if fmt == "rvtools" else [])


VALIDATE = ["validate", "{file}"]
TEXT_FORMATS = {"inventory": "x.csv", "esxtop": "x.csv", "perfmon": "x.csv",
                "vcenter": "x.csv", "sar": "x.json", "qemu": "x.json",
                "libvirt": "x.txt"}


def corpus():
    """Every known class of hostile input (issue 38), one file each."""
    cases = []
    add = cases.append

    # -- scenario files: the loader of the CLI, the GUI and templates
    deep_doc = '{"schema_version": 1, "meta": {"name": "x", "notes": ' \
        + _nested(950, '"x"') + "}}"
    for name, filename, content, says in (
            ("scenario-json-1000-deep", "s.json", _nested(1000),
             ("{file}", "levels")),
            ("scenario-json-950-deep-under-a-key", "s.json", deep_doc,
             ("{file}", "meta.notes", "levels")),
            ("scenario-toml-1000-deep", "s.toml",
             "x = " + _nested(1000) + "\n", ("{file}", "levels")),
            ("scenario-toml-900-deep-tables", "s.toml",
             "x = " + "{a = " * 900 + "1" + "}" * 900 + "\n",
             ("{file}", "levels")),
            ("scenario-toml-5000-digits", "s.toml",
             "schema_version = " + "9" * 5000 + "\n",
             ("{file}", "line 1", "5,000 digits")),
            ("scenario-json-5000-digits", "s.json",
             '{"schema_version": ' + "9" * 5000 + "}",
             ("{file}", "5,000 digits")),
            ("scenario-toml-400-digits", "s.toml",
             "schema_version = 1\n[meta]\nname = 'x'\n[host]\ncores = "
             + "9" * 400 + "\n", ("{file}", "400 digits")),
            ("scenario-json-900000-keys", "s.json",
             '{"schema_version":1,' + ",".join(
                 f'"{i:x}":0' for i in range(900_000)) + "}",
             ("{file}", "at most 10,000 keys", "900,001")),
            ("scenario-json-nan", "s.json",
             '{"schema_version": 1, "meta": {"name": "x"}, "nics": [{"id": '
             '"a", "speed_gbps": NaN}]}',
             ("{file}", "nics[0].speed_gbps", "finite")),
            ("scenario-json-duplicate-key", "s.json",
             '{"schema_version": 1, "schema_version": 2}',
             ("{file}", "schema_version", "each key once"))):
        add(Case(name, VALIDATE, filename, _text(content), (2,), says))
    add(Case("scenario-dev-zero", VALIDATE, "s.toml", _device("/dev/zero"),
             (2,), ("{file}", "10.0 MiB")))
    add(Case("scenario-pipe", VALIDATE, "s.toml", _fifo, (2,),
             ("{file}", "a pipe")))
    add(Case("inventory-pipe", _imp("inventory"), "x.csv", _fifo, (2,),
             ("{file}", "a pipe")))
    add(Case("scenario-oversized", VALIDATE, "s.toml",
             _sparse_size(11 << 20, b"# x\n"), (2,), ("{file}", "11.0 MiB")))

    # -- every text importer: devices, binary data, size
    for fmt, filename in TEXT_FORMATS.items():
        add(Case(f"{fmt}-dev-zero", _imp(fmt), filename,
                 _device("/dev/zero"), (2,), ("{file}", "64.0 MiB")))
        add(Case(f"{fmt}-binary", _imp(fmt), filename,
                 _bytes(b"\x00\x01\x02\xff" * 64), (2,), ("{file}",)))
        add(Case(f"{fmt}-empty", _imp(fmt), filename, _bytes(b""), (2,),
                 ("{file}",)))
    add(Case("vcenter-70-mb", _imp("vcenter"), "x.csv",
             _repeated(_vcenter([(1, 0)]).encode(),
                       _vcenter([(1, 0)]).split("\n", 2)[2].encode(),
                       70 << 20), (2,), ("{file}", "64.0 MiB")))
    add(Case("inventory-17-mb-line", _imp("inventory"), "x.csv",
             _repeated(b"", b"a" * 4096, 17 << 20), (2,),
             ("{file}", "row 1", "lines of at most")))

    # -- CSV: fields, sniffing, rows, headers, numbers, encodings
    huge = "x" * 200_000
    add(Case("inventory-huge-field", _imp("inventory"), "x.csv",
             _text(INVENTORY + f'"vm3","hv01","Running","{huge}"\n'), (2,),
             ("{file}", "row 4", "column 'Memory MB'", "131,072")))
    add(Case("vcenter-huge-field", _imp("vcenter"), "x.csv",
             _text(_vcenter([(1, 0)]).replace('"web01"', f'"{huge}"', 1)),
             (2,), ("{file}", "row 3", "column 'Entity'", "131,072")))
    add(Case("esxtop-huge-field", _imp("esxtop"), "x.csv",
             _text(_esxtop().replace('"100.5"', f'"{huge}"', 1)), (2,),
             ("{file}", "row 2", "MBits Transmitted/sec", "131,072")))
    add(Case("inventory-64-kb-header", _imp("inventory"), "x.csv",
             _text(",".join(f'"c{i}"' for i in range(12_000)) + "\n"),
             (2,), ("{file}", "VM column")))
    # quotes without their closing partner: csv.Sniffer's regular
    # expressions take time growing with the square of the line
    add(Case("inventory-64-kb-sniffer-line", _imp("inventory"), "x.csv",
             _text(',"a' * 21_845 + "\n"), (2,), ("{file}", "row 1")))
    add(Case("inventory-64-kb-unquoted-line", _imp("inventory"), "x.csv",
             _text("Name;Memory MB\n" + "a" * 65_536 + ";1\n"), (0, 1, 2),
             ()))
    add(Case("inventory-duplicate-header", _imp("inventory"), "x.csv",
             _text('"Name","Memory MB","Memory MB"\n"vm1","4096","8"\n'),
             (2,), ("{file}", "row 1", "column 'Memory MB'",
                    "columns 2 and 3")))
    add(Case("inventory-thousands-ambiguous", _imp("inventory"), "x.csv",
             _text('"Name","Memory MB"\n"vm1","16,384"\n"vm2","512"\n'),
             (2,), ("{file}", "row 2", "column 'Memory MB'", "'16,384'",
                    "16384 or 16.384")))
    add(Case("inventory-thousands-decided", _imp("inventory"), "x.csv",
             _text('"Name","Memory MB"\n"vm1","16,384"\n"vm2","1,024.5"\n'),
             (0,), ("memory_gib = 16.0",)))
    add(Case("inventory-row-longer-than-header", _imp("inventory"), "x.csv",
             _text('Name,Memory MB\nvm1,4096\nvm2,8,192\n'), (1,),
             ("{file}", "row 3", "3 cells but the header has 2")))
    add(Case("inventory-negative-memory", _imp("inventory"), "x.csv",
             _text('Name,Memory MB\nvm1,-4096\n'), (2,),
             ("{file}", "row 2", "column 'Memory MB'", "'-4096'")))
    add(Case("inventory-cp1252", _imp("inventory"), "x.csv",
             _text('Name,Host,Memory MB\nM\u00fcller-vm,hv\u00e9,4096\n',
                   "cp1252"), (0,), ("Windows-1252", "M_ller-vm")))
    add(Case("inventory-utf16-bom", _imp("inventory"), "x.csv",
             _text("\ufeff" + INVENTORY, "utf-16-le"), (0,),
             ("UTF-16",)))
    add(Case("esxtop-row-longer-than-header", _imp("esxtop"), "x.csv",
             _text(_esxtop(extra_cell=True)), (1,),
             ("{file}", "row 3", "cells but the header has")))
    add(Case("esxtop-same-timestamp", _imp("esxtop"), "x.csv",
             _text(_esxtop(timestamps=["11/20/2026 10:00:00"] * 2
                           + ["11/20/2026 10:00:05"])), (1,),
             ("{file}", "repeat an earlier timestamp", "rows 3")))
    add(Case("esxtop-negative-rate", _imp("esxtop"), "x.csv",
             _text(_esxtop().replace('"100.5"', '"-100.5"', 1)), (1,),
             ("{file}", "row 2", "MBits Transmitted/sec", ">= 0",
              "'-100.5'")))
    add(Case("esxtop-duplicate-counter", _imp("esxtop"), "x.csv",
             _text(_esxtop().replace("33554434:vmnic1", "33554433:vmnic0",
                                     1)), (2,),
             ("{file}", "row 1", "Link Speed (Mb)", "each column name")))
    add(Case("esxtop-20000-ports", _imp("esxtop"), "x.csv",
             _text(_esxtop(ports=20_000, samples=2)), (2,),
             ("{file}", "1,000 ports as flows", "20,000")))
    add(Case("vcenter-transmitted-only", _imp("vcenter"), "x.csv",
             _text(_vcenter([(1000, 0), (2000, 20), (3000, 40)],
                            ("net.transmitted.average",))), (0,),
             ("only net.transmitted.average",)))
    add(Case("vcenter-same-timestamp", _imp("vcenter"), "x.csv",
             _text(_vcenter([(1000, 0), (5000, 0), (3000, 20), (9, 40)])),
             (1,), ("{file}", "row 5", "timestamp of row 3")))
    add(Case("vcenter-thousands-ambiguous", _imp("vcenter"), "x.csv",
             _text(_vcenter([("16,384", 0), ("512", 20)])), (2,),
             ("{file}", "column 'Value'", "'16,384'")))
    add(Case("vcenter-nan", _imp("vcenter"), "x.csv",
             _text(_vcenter([("NaN", 0), ("1e999", 20), (1, 40),
                             (2, 60)])), (1,),
             ("{file}", "row 3", "column 'Value'", "'NaN'")))

    # -- JSON exports: depth, integers, NaN, types, keys
    for fmt in ("sar", "qemu"):
        add(Case(f"{fmt}-1000-deep", _imp(fmt), "x.json",
                 _text(_nested(1000)), (2,), ("{file}", "levels")))
        add(Case(f"{fmt}-5000-digits", _imp(fmt), "x.json",
                 _text('{"x": ' + "9" * 5000 + "}"), (2,),
                 ("{file}", "5,000 digits")))
    add(Case("qemu-total-time-nan", _imp("qemu"), "x.json",
             _qmp_text(**{"total-time": Raw("NaN")}), (2,),
             ("{file}", "NaN")))
    add(Case("qemu-page-size-zero", _imp("qemu"), "x.json",
             _qmp_text(**{"page-size": 0}), (2,),
             ("{file}", "page-size > 0", "got 0")))
    add(Case("qemu-page-size-negative", _imp("qemu"), "x.json",
             _qmp_text(**{"page-size": -4096}), (2,),
             ("{file}", "page-size", "-4096")))
    add(Case("qemu-duplicate-key", _imp("qemu"), "x.json",
             _text('{"return": {"status": "completed", "total-time": 1, '
                   '"total-time": 2, "downtime": 1, "ram": {}}}'), (2,),
             ("{file}", "key total-time", "each key once")))
    add(Case("qemu-wrong-types", _imp("qemu"), "x.json",
             _qmp_text(ram=[1, 2], status={"a": 1}), (2,), ("{file}",)))
    add(Case("qemu-big-integer", _imp("qemu"), "x.json",
             _qmp_text(**{"total-time": 10 ** 290}), (0, 1, 2), ()))
    add(Case("sar-nan-rate", _imp("sar"), "x.json",
             _sar(lambda d: json.dumps(d).replace('"rxkB": 50.0',
                                                  '"rxkB": NaN', 1)),
             (2,), ("{file}", "NaN")))
    add(Case("sar-hosts-wrong-type", _imp("sar"), "x.json",
             _sar(_sar_json(_set(("sysstat", "hosts"), "kvm01"))), (2,),
             ("{file}", "sysstat.hosts", "a list")))
    add(Case("sar-statistics-wrong-type", _imp("sar"), "x.json",
             _sar(_sar_json(_set(("sysstat", "hosts", 0, "statistics"),
                                 {"a": 1}))), (2,),
             ("{file}", "statistics", "a list")))
    add(Case("sar-net-dev-wrong-type", _imp("sar"), "x.json",
             _sar(_sar_json(_set(("sysstat", "hosts", 0, "statistics", 0,
                                  "network", "net-dev"), 7))), (2,),
             ("{file}", "net-dev", "a list")))
    add(Case("sar-negative-rate", _imp("sar"), "x.json",
             _sar(lambda d: json.dumps(d).replace('"rxkB": 50.0',
                                                  '"rxkB": -50.0', 1)),
             (1,), ("{file}", "rxkB", ">= 0")))

    def same_time(data):
        stats = data["sysstat"]["hosts"][0]["statistics"]
        stats[1]["timestamp"] = dict(stats[0]["timestamp"])
        return json.dumps(data)
    add(Case("sar-same-timestamp", _imp("sar"), "x.json", _sar(same_time),
             (1,), ("{file}", "statistics[1]", "timestamp of "
                    "statistics[0] again")))

    # -- virsh text
    add(Case("libvirt-thousands-separator", _imp("libvirt"), "x.txt",
             _text(JOBINFO.format(elapsed="37,369", downtime="337")), (0,),
             ("total time", "37.37",)))
    add(Case("libvirt-german-locale", _imp("libvirt"), "x.txt",
             _text(JOBINFO.format(elapsed="37369", downtime="337")
                   .replace(".", ",")), (0,),
             ("bytes sent", "4.076", "total time", "37.37")))
    add(Case("libvirt-decimals-in-whole-numbers", _imp("libvirt"), "x.txt",
             _text(JOBINFO.format(elapsed="37.5", downtime="337")), (2,),
             ("{file}", "row 3", "'37.5'")))
    add(Case("libvirt-negative-downtime", _imp("libvirt"), "x.txt",
             _text(JOBINFO.format(elapsed="37369", downtime="-337")), (2,),
             ("{file}", "column 'Total downtime'", "'-337'")))
    add(Case("libvirt-no-job-type", _imp("libvirt"), "x.txt",
             _text(JOBINFO.format(elapsed="37369", downtime="337")
                   .replace("Completed", "")), (2,),
             ("{file}", "row 1", "a job type")))
    # a value that could end anywhere made the line pattern quadratic
    add(Case("libvirt-long-line", _imp("libvirt"), "x.txt",
             _text(JOBINFO.format(elapsed="37369", downtime="337").replace(
                 "Operation:", "Data total: " + "x" * 100_000 + " y z\nOp")),
             (0,), ()))
    add(Case("libvirt-page-size-zero", _imp("libvirt"), "x.txt",
             _text(JOBINFO.format(elapsed="37369", downtime="337")
                   + "Page size:        0            bytes\n"), (2,),
             ("{file}", "Page size", "> 0")))

    # -- workbooks
    for fmt, base in (("inventory", _inventory_xlsx),
                      ("rvtools", _rvtools_xlsx)):
        add(Case(f"{fmt}-not-a-zip", _imp(fmt), "x.xlsx",
                 _bytes(b"PK\x03\x04" + b"\x00" * 100), (2,), ("{file}",)))
        add(Case(f"{fmt}-dimension-bomb", _imp(fmt), "x.xlsx",
                 _patched_xlsx(base, _dimension_bomb), (1,),
                 ("{file}", "row 300000")))
        add(Case(f"{fmt}-empty-rows", _imp(fmt), "x.xlsx",
                 _patched_xlsx(base, _empty_rows), (0,), ()))
        add(Case(f"{fmt}-zip-bomb", _imp(fmt), "x.xlsx",
                 _patched_xlsx(base, _zip_bomb), (2,),
                 ("{file}", SHEET, "zip bomb")))
    add(Case("inventory-far-cells", _imp("inventory"), "x.xlsx",
             _patched_xlsx(_inventory_xlsx, _far_cells), (2,),
             ("{file}", "cells")))
    add(Case("inventory-entities", _imp("inventory"), "x.xlsx",
             _patched_xlsx(_inventory_xlsx, _doctype(_LAUGHS, _entity_row(
                 "lol9"))), (2,),
             ("{file}", SHEET, "DOCTYPE")))
    add(Case("inventory-xxe", _imp("inventory"), "x.xlsx",
             _patched_xlsx(_inventory_xlsx, _doctype(
                 '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
                 _entity_row("x"))), (2,), ("{file}", SHEET, "DOCTYPE")))
    add(Case("inventory-malformed-xml", _imp("inventory"), "x.xlsx",
             _with_sheet(b"<worksheet><sheetData><row>"), (2,),
             ("{file}", SHEET, "well-formed XML")))
    add(Case("inventory-nan-cell", _imp("inventory"), "x.xlsx",
             _with_sheet(_sheet(_rows(_HEADER, ("vm1", "h", "Running",
                                                "NaN"))).replace(
                 b't="inlineStr"><is><t>NaN</t></is>', b'><v>NaN</v>')),
             (2,), ("{file}", "row 2", "D2", "'NaN'")))
    add(Case("inventory-hex-cell", _imp("inventory"), "x.xlsx",
             _with_sheet(_sheet(_rows(_HEADER, ("vm1", "h", "Running",
                                                "0x1F"))).replace(
                 b't="inlineStr"><is><t>0x1F</t></is>', b'><v>0x1F</v>')),
             (2,), ("{file}", "row 2", "D2", "'0x1F'")))
    add(Case("inventory-shared-string-out-of-range", _imp("inventory"),
             "x.xlsx", _with_sheet(_sheet(
                 '<row r="1"><c r="A1" t="s"><v>99999</v></c></row>')),
             (2,), ("{file}", "row 1", "A1", "'99999'")))
    add(Case("inventory-thousands-text-cell", _imp("inventory"), "x.xlsx",
             _with_sheet(_sheet(_rows(_HEADER, ("vm1", "h", "Running",
                                                "16,384")))), (2,),
             ("{file}", "row 2", "'16,384'")))
    return cases


def large():
    """Files of about 10 MB that are well formed but huge in one way
    (rows, hosts, entities, ports, replies, blocks): each must finish
    within the time limit (``make fuzz`` only: writing them takes a while).
    """
    from tests.app.import_samples import rvtools_rows, write_rvtools

    def text(make):
        return lambda path: path.write_text(make())

    def sar_taps():
        from tests.app.import_samples import sar_sample
        data = sar_sample()
        for sample in data["sysstat"]["hosts"][0]["statistics"]:
            sample["network"]["net-dev"] += [
                {"iface": f"vnet{i}", "rxkB": 1.0, "txkB": 1.0,
                 "ifutil-percent": 0.0} for i in range(1, 8000)]
        return json.dumps(data)

    vcenter_rows = "\n".join(
        f'"1","11/20/2026 10:00:{20 * t:02d} AM","{m}","KBps","","vm{e}",'
        f'"x","20","",""' for e in range(20_000) for t in range(2)
        for m in ("net.transmitted.average", "net.received.average"))
    domstats = ("Domain: 'g'\n  balloon.current=8388608\n  dirtyrate."
                "calc_status=2\n  dirtyrate.calc_period={}\n  dirtyrate."
                "megabytes_per_second=351\n")
    header = _vcenter([]).rsplit("\n", 2)[0] + "\n"
    return [
        Case("large-inventory-one-host", _imp("inventory"), "x.csv",
             text(lambda: '"Name","Host","Memory MB"\n' + "".join(
                 f'"vm{i}","hv01","4096"\n' for i in range(300_000))),
             (0, 1, 2)),
        Case("large-inventory-many-hosts", _imp("inventory"), "x.csv",
             text(lambda: '"Name","Host","Memory MB"\n' + "".join(
                 f'"vm{i}","hv{i}","4096"\n' for i in range(300_000))),
             (0, 1, 2)),
        Case("large-vcenter-entities", _imp("vcenter"), "x.csv",
             text(lambda: header + vcenter_rows), (0, 1, 2)),
        Case("large-vcenter-bad-timestamps", _imp("vcenter"), "x.csv",
             text(lambda: header + "".join(
                 f'"1","{t}","net.usage.average","KBps","","vm","x","20",'
                 f'"",""\n' for t in range(120_000))), (0, 1, 2)),
        Case("large-sar-taps", _imp("sar"), "x.json", text(sar_taps),
             (0, 1, 2)),
        Case("large-qemu-replies", _imp("qemu"), "x.json",
             text(lambda: '{"a": 1}\n' * 1_000_000), (0, 1, 2)),
        Case("large-libvirt-samples", _imp("libvirt"), "x.txt",
             text(lambda: "\n".join(domstats.format(1 + i % 10)
                                    for i in range(60_000))), (0, 1, 2)),
        Case("large-esxtop-zeros", _imp("esxtop"), "x.csv",
             text(lambda: _zeros(_esxtop(ports=998, samples=1), 1600)),
             (0, 1, 2)),
        Case("large-esxtop-rows", _imp("esxtop"), "x.csv",
             text(lambda: _esxtop(ports=40, samples=8_000)), (0, 1, 2)),
        Case("large-rvtools-hosts", _imp("rvtools"), "x.xlsx",
             lambda path: write_rvtools(path, rvtools_rows(
                 hosts=400, vms_per_host=40)), (0, 1, 2)),
        Case("large-rvtools-one-host", _imp("rvtools"), "x.xlsx",
             lambda path: write_rvtools(path, rvtools_rows(
                 hosts=1, vms_per_host=12_000)), (0, 1, 2)),
        Case("large-scenario-variants", VALIDATE, "s.json",
             text(lambda: json.dumps({"schema_version": 1, "variants": [
                 {"name": f"v{i}", "set": {"network.mtu": 9000}}
                 for i in range(200_000)]})), (2,)),
    ]


# --------------------------------------------------------------------------
# Mutations of the committed samples
# --------------------------------------------------------------------------

#: Format and command of each committed sample.
SAMPLE_FORMATS = {
    "esxtop_batch.csv": "esxtop", "inventory_get_vm.csv": "inventory",
    "qmp_query_dirty_rate.json": "qemu",
    "qmp_query_migrate_rounds.jsonl": "qemu",
    "qmp_query_migrate_lm3_completed.json": "qemu",
    "rvtools_4_1.xlsx": "rvtools", "sadf_net_dev.json": "sar",
    "typeperf.csv": "perfmon", "typeperf_german.csv": "perfmon",
    "vcenter_get_stat.csv": "vcenter",
    "virsh_domjobinfo_completed_lm3.txt": "libvirt",
    "virsh_domjobinfo_polled.txt": "libvirt",
    "virsh_domstats_dirtyrate.txt": "libvirt",
}
#: What a hostile colleague types into a cell or a value.
TOKENS = ["NaN", "nan", "inf", "-inf", "1e999", "-1", "-0", "0", "16,384",
          "1.500", "1,5", "0x1F", "9" * 5000, "x" * 140_000, "\x00", "\ufeff",
          '"', '""', ",,,", ";", "\t", "\r", "[" * 2000, "{" * 500,
          '{"a": 1, "a": 2}', "null", "true", "[]", "{}", "é", "\u202e",
          "Job type:", "Domain: 'x'", "#TYPE x", "(PDH-CSV 4.0)"]


def _mutate_text(rng, text):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        i = rng.randrange(len(lines))
        if op == 0:       # a number becomes a hostile token
            numbers = list(re.finditer(r"-?\d+(\.\d+)?", lines[i]))
            if numbers:
                found = rng.choice(numbers)
                lines[i] = (lines[i][:found.start()] + rng.choice(TOKENS)
                            + lines[i][found.end():])
        elif op == 1:     # a token anywhere
            at = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:at] + rng.choice(TOKENS) + lines[i][at:]
        elif op == 2:     # a line repeated
            lines[i:i] = [lines[i]] * rng.choice((1, 2, 50))
        elif op == 3:     # a line lost
            del lines[i]
        elif op == 4:     # cut short
            text = "\n".join(lines)
            lines = text[:rng.randrange(len(text) + 1)].split("\n")
        elif op == 5:     # two lines swapped
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 6:     # a cell dropped or added
            lines[i] = lines[i].replace(",", "", 1) if rng.random() < 0.5 \
                else lines[i].replace(",", ",,", 1)
        else:             # a quote lost
            lines[i] = lines[i].replace('"', "", 1)
        if not lines:
            lines = [""]
    return "\n".join(lines)


def _mutate_json(rng, text):
    """Structure: a value replaced by another type, nested deep, or a
    number made hostile; falls back to text mutation for JSON Lines."""
    try:
        data = json.loads(text)
    except ValueError:
        return _mutate_text(rng, text)
    nodes = []

    def walk(node):
        items = node.items() if isinstance(node, dict) else \
            enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            nodes.append((node, key))
            walk(value)
    walk(data)
    for _ in range(rng.randint(1, 3)):
        if not nodes:
            break
        node, key = rng.choice(nodes)
        node[key] = rng.choice([
            None, True, "x", [], {}, -1, 0, 10 ** 40, 1e308, [[[[[1]]]]],
            {"a": {"b": {"c": []}}}, "NaN", [node[key]] * 3])
    text = json.dumps(data)
    if rng.random() < 0.3:
        text = re.sub(r"(?<=: )\d+(\.\d+)?",
                      lambda m: rng.choice(("NaN", "Infinity", "-1",
                                            "9" * 400, m.group())),
                      text, count=rng.randint(1, 5))
    return text


def _mutate_xlsx(rng, data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    sheets = [n for n in members if n.startswith("xl/worksheets/")
              or n == "xl/sharedStrings.xml"]
    name = rng.choice(sheets)
    text = members[name].decode("utf-8")
    op = rng.randrange(8)
    if op == 4:       # a part lost
        del members[rng.choice(sorted(members))]
    elif op == 5:     # relations pointing outside the archive or nowhere
        rels = "xl/_rels/workbook.xml.rels"
        if rels in members:
            members[rels] = re.sub(
                rb'Target="[^"]*"', lambda m: rng.choice(
                    (b'Target="../../../etc/passwd"', b'Target="/"',
                     b'Target=""', m.group())), members[rels])
    elif op == 6:     # cell types that do not fit their values
        text = re.sub(r"<c ([^>]*?)(/?)>", lambda m: "<c " + m.group(1)
                      + f' t="{rng.choice("sbedn")}"' * (rng.random() < 0.3)
                      + m.group(2) + ">", text)
    elif op == 7:     # rows out of order
        text = re.sub(r'<row r="(\d+)"', lambda m: f'<row r="'
                      f'{max(1, int(m.group(1)) - rng.randint(0, 2))}"', text)
    elif op == 0:
        text = re.sub(r"<v>[^<]*</v>", lambda m: f"<v>{rng.choice(TOKENS)}"
                      "</v>" if rng.random() < 0.2 else m.group(), text)
    elif op == 1:
        text = text.replace('r="', 'r="XF', rng.randint(1, 3))
    elif op == 2:
        text = text[:rng.randrange(len(text) + 1)]
    else:
        text = re.sub(r'<dimension ref="[^"]*"\s*/>',
                      '<dimension ref="A1:XFD1048576"/>', text)
    if name in members:
        members[name] = text.encode("utf-8")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, content in members.items():
            archive.writestr(member, content)
    raw = out.getvalue()
    if rng.random() < 0.1:
        raw = raw[:rng.randrange(len(raw))]
    return raw


def mutations(count, seed=0):
    """``count`` mutated samples, reproducible from ``seed``."""
    rng = random.Random(seed)
    names = sorted(SAMPLE_FORMATS)
    cases = []
    for number in range(count):
        name = names[number % len(names)]
        raw = (SAMPLES / name).read_bytes()
        if name.endswith(".xlsx"):
            data = _mutate_xlsx(rng, raw)
        else:
            text = raw.decode("utf-8-sig")
            mutated = _mutate_json(rng, text) if name.endswith(".json") \
                else _mutate_text(rng, text)
            data = mutated.encode("utf-8", "surrogatepass")
        fmt = SAMPLE_FORMATS[name]
        cases.append(Case(f"mutation-{seed}-{number}-{name}", _imp(fmt),
                          f"m{Path(name).suffix}", _bytes(data),
                          (0, 1, 2), ("",), mutation=True))
    return cases


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

class _TooLong(BaseException):
    """Raised by the alarm: not an Exception, so the CLI cannot catch it."""


def _alarm(signum, frame):
    raise _TooLong()


def run_case(case, folder, seconds=SECONDS):
    """Write the case's file and run the command on it in this process;
    the outcome lists what went wrong (nothing when all is well)."""
    from app.cli import main

    path = Path(folder) / case.name / case.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    case.write(path)
    argv = [a.replace("{file}", str(path)) for a in case.argv]
    output = io.StringIO()
    started = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stdout(output), \
                contextlib.redirect_stderr(output):
            code = main(argv)
    except _TooLong:
        code = "timeout"
    except BaseException as err:  # what escaped the CLI
        code = f"escaped: {type(err).__name__}: {str(err)[:200]}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    elapsed = time.perf_counter() - started
    text = output.getvalue()
    outcome = Outcome(case.name, code, round(elapsed, 3), text[-2000:])
    if code not in case.codes:
        outcome.problems.append(f"exit {code}, expected one of "
                                f"{case.codes}")
    for bad in ("internal error", "Traceback"):
        if bad in text:
            outcome.problems.append(f"printed {bad!r}")
    for words in case.says:
        words = words.replace("{file}", str(path))
        if words not in text:
            outcome.problems.append(f"does not say {words!r}")
    if elapsed > seconds:
        outcome.problems.append(f"took {elapsed:.1f} s")
    return outcome


def limit_memory(size=MEMORY_BYTES):
    """Limit this process's address space, as a user's 2 GiB machine."""
    resource.setrlimit(resource.RLIMIT_AS, (size, size))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    options = {"--seed": 0, "--seconds": SECONDS}
    for option in options:
        if option in argv:
            at = argv.index(option)
            options[option] = int(argv[at + 1])
            del argv[at:at + 2]
    with_large = "--large" in argv
    argv = [a for a in argv if a != "--large"]
    count = int(argv[0]) if argv else 0
    limit_memory()
    cases = corpus() + (large() if with_large else []) \
        + mutations(count, options["--seed"])
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        for case in cases:
            outcome = run_case(case, folder, options["--seconds"])
            failed += bool(outcome.problems)
            if outcome.problems:
                print(f"FAILED {case.name}: {'; '.join(outcome.problems)}"
                      f"\n{outcome.output[-800:]}", file=sys.stderr)
            if case.mutation and not outcome.problems:
                outcome.output = outcome.output[-300:]
            print(json.dumps(outcome.__dict__), flush=True)
    print(f"hostile files: {len(cases)} tried, {failed} failed",
          file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main())
