"""Recovery files: round trip, and every way one can be broken is a
RecoveryError naming the file (never a crash)."""

import json

import pytest

from app.recovery import (RecoveryError, read_recovery, set_aside,
                          write_recovery)
from models.scenario import new_scenario


def test_round_trip_keeps_the_document_and_its_file(tmp_path):
    scenario = new_scenario().with_value("network.mtu", 9000)
    path = tmp_path / "recovery-1.json"
    write_recovery(path, scenario, tmp_path / "design.toml")
    recovered = read_recovery(path)
    assert recovered.scenario == scenario
    assert recovered.source == tmp_path / "design.toml"
    assert recovered.saved_at.tzinfo is not None


@pytest.mark.parametrize("content, why", [
    (b"\xff\xfe", "not a recovery file"),
    (b'{"kind": "linkplan-rec', "not a recovery file"),
    (b"[1, 2]", "not a Linkplan recovery file"),
    (b'{"kind": "something-else"}', "not a Linkplan recovery file"),
    (b'{"kind": "linkplan-recovery", "version": 99}', "version 99"),
    (b'{"kind": "linkplan-recovery", "version": 1, "source": null}',
     "the scenario or its file name is missing"),
    (b'{"kind": "linkplan-recovery", "version": 1, "source": null, '
     b'"scenario": "{}", "saved_at": "yesterday"}', "bad time stamp"),
    (b'{"kind": "linkplan-recovery", "version": 1, "source": null, '
     b'"scenario": "{\\"network\\": {\\"mtu\\": 5}}", '
     b'"saved_at": "2026-11-23T11:00:00+00:00"}',
     "the saved scenario is invalid"),
])
def test_broken_recovery_file_is_a_clear_error(tmp_path, content, why):
    path = tmp_path / "recovery-1.json"
    path.write_bytes(content)
    with pytest.raises(RecoveryError) as raised:
        read_recovery(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert why in str(raised.value)


def test_set_aside_never_overwrites_an_earlier_one(tmp_path):
    for _ in range(2):
        path = tmp_path / "recovery-1.json"
        path.write_text(json.dumps({"kind": "broken"}))
        set_aside(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "recovery-1.json.corrupt", "recovery-1.json.corrupt2"]
