"""The loading gate (app.loading_gate) and the number reading of the
importers (app.importers.common): limits checked before the work, one
refusal type naming file, place and value."""

import io
import struct
import zipfile

import pytest

from app import loading_gate
from app.importers.common import ImportProblem, decimal_mark, parse_number
from app.loading_gate import (CsvTable, FileRefused, Workbook, decode_text,
                              detect_encoding, load_scenario_file,
                              parse_json, parse_toml)
from app.recovery import RecoveryError, read_recovery, set_aside
from app.scenario_io import load_scenario
from models.scenario import ScenarioError


# -- scenario and recovery files: the GUI's open, reopen and start-up paths

@pytest.mark.parametrize("name, text, says", [
    ("deep.json", "[" * 1000 + "]" * 1000, "levels"),
    ("deep.toml", "a = " + "[" * 1000 + "]" * 1000, "levels"),
    ("big.toml", "schema_version = " + "9" * 5000, "5,000 digits"),
    ("big.json", '{"a": ' + "9" * 5000 + "}", "5,000 digits"),
])
def test_scenario_files_past_the_limits_are_a_scenario_error(
        tmp_path, name, text, says):
    path = tmp_path / name
    path.write_text(text)
    for load in (load_scenario, load_scenario_file):
        with pytest.raises(ScenarioError) as caught:
            load(path)
        assert str(caught.value).startswith(f"{path}: ")
        assert says in str(caught.value)


def test_a_damaged_recovery_file_is_a_recovery_error_and_set_aside(
        tmp_path):
    # the GUI reads every recovery file at start: a RecursionError here
    # ended every start with exit 1
    path = tmp_path / "doc.recovery.json"
    path.write_text('{"kind": "linkplan-recovery", "version": 1, '
                    '"saved_at": "2026-11-28T10:00:00+00:00", "source": '
                    'null, "scenario": "' + "[" * 1000 + '"}')
    with pytest.raises(RecoveryError, match="levels"):
        read_recovery(path)
    deep_record = tmp_path / "deep.recovery.json"
    deep_record.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(RecoveryError, match="levels"):
        read_recovery(deep_record)
    assert set_aside(deep_record).name == "deep.recovery.json.corrupt"


# -- documents

def test_json_refuses_nan_infinity_duplicates_and_names_the_key():
    for text, says in (('{"a": NaN}', "NaN"), ('{"a": -Infinity}',
                                                "-Infinity"),
                       ('{"a": 1e999}', "1e999"),
                       ('{"a": {"b": 1, "b": 2}}', "key b")):
        with pytest.raises(FileRefused, match="f.json") as caught:
            parse_json(text, "f.json")
        assert says in str(caught.value)
    deep = '{"a": {"b": [' + "[" * 70 + "]" * 70 + "]}}"
    with pytest.raises(FileRefused, match=r"key a\.b\[0\]"):
        parse_json(deep, "f.json")


def test_an_object_with_too_many_keys_is_refused_with_its_key():
    text = '{"a": {' + ",".join(f'"k{i}": 0' for i in range(10_001)) + "}}"
    with pytest.raises(FileRefused, match="key a: expected at most 10,000 "
                       "keys in one table or object, found 10,001"):
        parse_json(text, "f.json")


def test_documents_within_the_limits_parse():
    assert parse_json('{"a": [[1.5, 2]], "b": ' + "9" * 300 + "}",
                      "f")["a"] == [[1.5, 2]]
    assert parse_toml("a = [[1]]\nb = 1_000", "f") == {"a": [[1]],
                                                       "b": 1000}


# -- bytes and text

def test_sizes_are_refused_before_reading(tmp_path):
    big = tmp_path / "big.csv"
    with open(big, "wb") as stream:
        stream.truncate(loading_gate.MAX_IMPORT_BYTES + 1)
    with pytest.raises(FileRefused, match="64.0 MiB"):
        loading_gate.read_text(big)


@pytest.mark.parametrize("raw, encoding", [
    ("a,b\n".encode("utf-8"), "utf-8"),
    ("\ufeffa,b\n".encode("utf-8"), "utf-8-sig"),
    ("\ufeffa,é\n".encode("utf-16-le"), "utf-16"),
    ("a,é\n".encode("utf-16-le"), "utf-16-le"),
    ("a,é\n".encode("utf-16-be"), "utf-16-be"),
    ("Müller,€\n".encode("cp1252"), "cp1252"),
])
def test_encodings_are_detected(raw, encoding):
    assert detect_encoding(raw) == encoding
    assert decode_text(raw, "f")[1] == encoding


def test_binary_data_is_refused():
    with pytest.raises(FileRefused, match="zip archive"):
        decode_text(b"PK\x03\x04rest", "f")
    with pytest.raises(FileRefused, match="NUL"):
        decode_text(b"a\x00b" * 3 + b"\xff", "f")


# -- CSV

def test_a_line_past_the_limit_is_refused_without_reading_it_whole(
        monkeypatch):
    monkeypatch.setattr(loading_gate, "MAX_LINE_CHARS", 100)
    with pytest.raises(FileRefused, match="row 2.*lines of at most 100"):
        list(CsvTable("f.csv", "a,b\n" + "x" * 500, "a table").rows())


def test_csv_delimiter_is_found_in_linear_time():
    import time
    line = ",".join(f'"a;{i}"' for i in range(200_000))
    started = time.perf_counter()
    assert loading_gate.csv_delimiter(line) == ","
    assert time.perf_counter() - started < 1.0
    assert loading_gate.csv_delimiter("Name;Memory MB;Host") == ";"
    assert loading_gate.csv_delimiter("Name\tMemory") == "\t"


# -- numbers as the exporter wrote them

@pytest.mark.parametrize("cells, mark, values", [
    (["16,384", "1,024.5"], ".", [16384, 1024.5]),
    (["16,384", "1,5"], ",", [16.384, 1.5]),
    (["1.234.567,5", "16.384"], ",", [1234567.5, 16384]),
    (["0,384"], ",", [0.384]),
    (["1234,567"], ",", [1234.567]),
    (["1,234,567"], ".", [1234567]),
    (["1 234,5", "2"], ",", [1234.5, 2]),
    (["1.5E+03", "2"], ".", [1500, 2]),
])
def test_a_column_decides_its_decimal_mark(cells, mark, values):
    column = list(enumerate(cells, 2))
    assert decimal_mark("f", "c", column) == mark
    assert [parse_number(c, mark) for c in cells] == values


def test_ambiguous_and_mixed_columns_are_refused_with_row_and_column():
    with pytest.raises(ImportProblem) as caught:
        decimal_mark("f.csv", "Memory MB", [(2, "512"), (3, "16,384")])
    assert str(caught.value) == (
        "f.csv: row 3, column 'Memory MB': expected a number whose decimal "
        "mark the column shows (no other cell tells whether ',' separates "
        "thousands or decimals), found '16,384': 16384 or 16.384?")
    with pytest.raises(ImportProblem, match="row 3.*decimal comma at row 2"):
        decimal_mark("f.csv", "Value", [(2, "1,5"), (3, "2.25")])
    # a dotted value is as ambiguous: German thousands, or 3 decimals?
    with pytest.raises(ImportProblem, match="'1.081': 1081 or 1.081"):
        decimal_mark("f", "c", [(2, "1.081")])


def test_plain_columns_read_in_one_step_as_cell_by_cell():
    from app.importers.common import plain_numbers
    cells = ["1.5", "2", ".25", "1e3", "-7", "0.125"]
    assert plain_numbers(cells).tolist() == [parse_number(c) for c in cells]
    # anything a column must decide or refuse goes cell by cell
    for column in (["1.500", "2"], ["1,5"], [" 1"], ["1e999"], ["nan"],
                   ["1_000"], [""]):
        assert plain_numbers(column) is None


def test_thousands_groups_must_be_groups_of_three():
    for text in ("1,5", "12,34,567", "1,2345"):
        with pytest.raises(ValueError):
            parse_number(text, ".")


# -- workbooks

def _workbook_bytes(sheet=b"<worksheet><sheetData/></worksheet>"):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/workbook.xml",
                         '<workbook xmlns:r="r"><sheets><sheet name="S" '
                         'r:id="rId1"/></sheets></workbook>')
        archive.writestr("xl/_rels/workbook.xml.rels",
                         '<Relationships><Relationship Id="rId1" '
                         'Target="worksheets/sheet1.xml"/></Relationships>')
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
    return bytearray(out.getvalue())


def test_a_member_declared_larger_than_the_cap_is_refused_unread(tmp_path):
    raw = _workbook_bytes()
    central = raw.rfind(b"PK\x01\x02")   # the sheet's directory entry
    struct.pack_into("<I", raw, central + 24,
                     loading_gate.MAX_MEMBER_BYTES + 1)
    path = tmp_path / "x.xlsx"
    path.write_bytes(bytes(raw))
    with pytest.raises(FileRefused, match="key xl/worksheets/sheet1.xml"):
        Workbook(path, "a workbook")


def test_rows_are_only_as_long_as_their_cells(tmp_path):
    sheet = (b'<worksheet><dimension ref="A1:XFD300000"/><sheetData>'
             b'<row r="1"><c r="B1"><v>2</v></c></row>'
             b'<row r="3"><c r="A3" t="inlineStr"><is><t>x</t></is></c>'
             b'<c r="C3" t="b"><v>1</v></c></row></sheetData></worksheet>')
    path = tmp_path / "x.xlsx"
    path.write_bytes(bytes(_workbook_bytes(sheet)))
    with Workbook(path, "a workbook") as workbook:
        assert list(workbook["S"].iter_rows()) == [(None, 2), (),
                                                   ("x", None, True)]
