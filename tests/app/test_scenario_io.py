"""Scenario files: atomic saves and round trips."""

import os

import pytest

from app.scenario_io import atomic_write, load_scenario, save_scenario
from models.scenario import ScenarioError


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_save_and_load_round_trip(tmp_path, example_path, suffix):
    scenario = load_scenario(example_path)
    path = tmp_path / f"copy{suffix}"
    save_scenario(scenario, path)
    assert load_scenario(path) == scenario


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "scenario.toml"
    path.write_text("old content")

    def disk_full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError):
        atomic_write(path, b"new content")
    assert path.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["scenario.toml"]


def test_save_keeps_file_permissions(tmp_path, example_path):
    path = tmp_path / "scenario.toml"
    path.write_text("")
    path.chmod(0o640)
    save_scenario(load_scenario(example_path), path)
    assert path.stat().st_mode & 0o777 == 0o640


def test_unknown_extension_is_refused_before_writing(tmp_path, example_path):
    with pytest.raises(ScenarioError, match="unknown file type"):
        save_scenario(load_scenario(example_path), tmp_path / "s.yaml")
    assert list(tmp_path.iterdir()) == []
