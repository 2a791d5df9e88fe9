"""Issue 38 item 5: a hostile or damaged file never stops the GUI. A
deeply nested JSON or a TOML with a 5,000-digit integer (the double-click
path, the last file reopened, File > Open) is refused with "Cannot open
<file>: <reason>"; a damaged recovery file is set aside as ``*.corrupt``;
a recovery folder that cannot be written is said once and never breaks
Save, Save As or Close; saving over a file another instance changed asks
first."""

import os
import shutil
import subprocess
import sys

import pytest
from PySide6 import QtWidgets

from app.gui import application, persistence
from app.gui.main_window import MainWindow
from app.recovery import RECOVERY_KIND, RECOVERY_VERSION
from app.scenario_io import load_scenario, save_scenario
from models.scenario import dump_scenario, new_scenario
from tests.conftest import ROOT

_BUTTONS = QtWidgets.QMessageBox.StandardButton

#: 6 KB of nested JSON arrays: past the interpreter's recursion limit.
DEEP_JSON = "[" * 3000 + "]" * 3000
#: A TOML value past Python's 4,300-digit integer conversion limit.
BIG_INT_TOML = "schema_version = 1\n[network]\nmtu = " + "9" * 5000 + "\n"


@pytest.fixture
def hostile(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_JSON)
    big = tmp_path / "big.toml"
    big.write_text(BIG_INT_TOML)
    return deep, big


@pytest.fixture
def started(monkeypatch, qtbot):
    """run_gui without its event loop: the window it built, kept."""
    windows = []
    build = application.show_example_window

    def show():
        app, window = build()
        qtbot.addWidget(window)
        windows.append(window)
        return app, window
    monkeypatch.setattr(application, "show_example_window", show)
    monkeypatch.setattr(QtWidgets.QApplication, "exec", lambda self: 0)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    return windows


def cannot_open(dialogs, path):
    return [text for kind, title, text in dialogs
            if kind == "warning" and title == "Cannot open scenario"
            and text.startswith(f"Cannot open {path}: ")]


# the reason's key word: the GUI's own wording and the loading gate's
# ("nested too deeply to read", "found deeper nesting") both carry it
@pytest.mark.parametrize("name, reason", [
    ("deep.json", "nest"), ("big.toml", "digits")])
def test_starting_on_a_hostile_file_opens_the_window_and_says_why(
        started, dialogs, hostile, name, reason):
    path = hostile[0].parent / name
    assert application.run_gui(str(path)) == 0
    (text,) = cannot_open(dialogs, path)
    assert reason in text
    (window,) = started
    assert window.path is None and window.results is not None


def test_a_hostile_last_file_does_not_stop_the_start(started, dialogs,
                                                     hostile):
    for path in hostile:
        persistence.set_last_file(path)
        assert application.run_gui() == 0
        assert cannot_open(dialogs, path)


def test_file_open_of_a_hostile_file_keeps_the_document(window, dialogs,
                                                        hostile):
    window.edit("network.mtu", 9000, "Set MTU to 9000")
    for path in hostile:
        assert not window.open_path(path)
        assert cannot_open(dialogs, path)
    assert not any("Unexpected error" in title for _, title, _ in dialogs)
    assert window.scenario.network.mtu == 9000


def recovery_record(scenario_text):
    import json
    return json.dumps({"kind": RECOVERY_KIND, "version": RECOVERY_VERSION,
                       "saved_at": "2026-01-01T00:00:00+00:00",
                       "source": None, "scenario": scenario_text})


@pytest.mark.parametrize("content", [
    DEEP_JSON,                                  # the record itself
    recovery_record(DEEP_JSON),                 # the scenario inside
    recovery_record('{"schema_version": ' + "9" * 5000 + "}"),
    recovery_record(dump_scenario(new_scenario(), "json")).replace(
        '"source": null', '"source": "a\\u0000b.toml"')],
    ids=["deep-record", "deep-scenario", "big-integer", "nul-in-name"])
def test_a_damaged_recovery_file_is_set_aside_and_the_app_starts(
        started, dialogs, content):
    folder = persistence.recovery_folder()
    folder.mkdir(parents=True, exist_ok=True)
    damaged = folder / "recovery-999995.json"
    damaged.write_text(content)
    assert application.run_gui() == 0
    assert (folder / "recovery-999995.json.corrupt").exists()
    assert not damaged.exists()
    (warning,) = [t for k, title, t in dialogs
                  if title == "Recovery file damaged"]
    assert "set aside as recovery-999995.json.corrupt" in warning


_START = """
import sys
from PySide6 import QtCore, QtWidgets
from app.gui import application
from app.figures.bootstrap import application as qt_application
qt_application()   # the quit below needs the application's event loop
QtWidgets.QMessageBox.warning = lambda parent, title, text, *a: print(
    "WARNING", title, "|", text.splitlines()[0], flush=True)
# quit once the event loop runs (a quit before exec() is lost)
quit_timer = QtCore.QTimer(interval=100)
quit_timer.timeout.connect(QtWidgets.QApplication.quit)
quit_timer.start()
sys.exit(application.run_gui(*sys.argv[1:]))
"""


def test_a_real_start_on_a_hostile_file_exits_cleanly(tmp_path, hostile):
    # as a double-click starts it: its own process, its own settings
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"))
    process = subprocess.run(
        [sys.executable, "-c", _START, str(hostile[0])], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    assert "Traceback" not in process.stderr
    (line,) = [line for line in process.stdout.splitlines()
               if line.startswith("WARNING Cannot open scenario | Cannot "
                                  f"open {hostile[0]}: ")]
    assert "nest" in line


# -- a recovery folder that cannot be written ------------------------------

def break_folder(folder):
    """Put a file where the recovery folder was: every write and removal
    in it fails, as on a read-only or vanished folder (as root, a
    read-only mode would not stop the writes)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.write_text("not a folder")


def test_a_failing_recovery_folder_never_breaks_save_or_close(
        qtbot, window, dialogs, monkeypatch, tmp_path):
    window.edit("network.mtu", 9000, "Set MTU to 9000")
    window.autosave()
    assert window.recovery.path.exists()
    break_folder(window.recovery.folder)
    window.edit("network.mtu", 4000, "Set MTU to 4000")
    window.autosave()
    assert window.save_to(tmp_path / "a.toml")          # Save As
    assert not window.autosave_state.isHidden()
    assert window.recovery.folder.name in window.autosave_state.toolTip()
    window.edit("network.mtu", 3000, "Set MTU to 3000")
    assert window.save()                                # Save
    assert load_scenario(tmp_path / "a.toml").network.mtu == 3000
    window.edit("network.mtu", 2000, "Set MTU to 2000")
    monkeypatch.setattr(QtWidgets.QMessageBox, "question",
                        lambda *a, **k: _BUTTONS.Discard)
    window.wait_for_results()
    assert window.close()
    warnings = [t for k, title, t in dialogs if title == "Autosave failed"]
    assert len(warnings) == 1   # said once, not at every attempt
    assert "recovery" in warnings[0]


def test_an_unusable_recovery_folder_does_not_stop_the_start(
        qtbot, qapp, dialogs, tmp_path):
    folder = tmp_path / "recovery"
    folder.parent.mkdir(exist_ok=True)
    folder.write_text("not a folder")
    window = MainWindow(recovery_folder=folder)
    qtbot.addWidget(window)
    window.show()
    assert not window.autosave_state.isHidden()
    assert window.offer_recovery() is False
    window.edit("network.mtu", 9000, "Set MTU to 9000")
    window.autosave()
    assert [title for _, title, _ in dialogs] == ["Autosave failed"]
    window.wait_for_results()


# -- a second instance on the same file -------------------------------------

def test_saving_over_a_file_another_instance_changed_asks_first(
        qtbot, qapp, dialogs, monkeypatch, tmp_path):
    path = tmp_path / "shared.toml"
    save_scenario(new_scenario(), path)
    first, second = MainWindow(), MainWindow()
    for window in (first, second):
        qtbot.addWidget(window)
        assert window.open_path(path)
    first.edit("network.mtu", 9000, "Set MTU to 9000")
    assert first.save()
    second.edit("network.vlan_tags", 1, "Tag")
    # the dialogs fixture answers Cancel: nothing is written
    assert not second.save()
    asked = [t for k, title, t in dialogs if title == "File changed on disk"]
    assert len(asked) == 1 and str(path) in asked[0]
    assert load_scenario(path).network.mtu == 9000
    assert second.isWindowModified()
    # closing asks to save, the save asks again: the first's work stays
    assert not second.close()
    assert load_scenario(path).network.mtu == 9000
    # Save overwrites on purpose
    monkeypatch.setattr(QtWidgets.QMessageBox, "question",
                        lambda *a, **k: _BUTTONS.Save)
    assert second.save()
    assert load_scenario(path).network.vlan_tags == 1
    # its own saves since are no change by someone else
    second.edit("network.mtu", 4000, "Set MTU to 4000")
    monkeypatch.setattr(QtWidgets.QMessageBox, "question",
                        lambda *a, **k: pytest.fail("asked again"))
    assert second.save()
    for window in (first, second):
        window.wait_for_results()


def test_recovered_work_saved_over_a_file_changed_since_asks_first(
        qtbot, qapp, dialogs, monkeypatch, tmp_path):
    path = tmp_path / "shared.toml"
    save_scenario(new_scenario(), path)
    crashed = MainWindow(recovery_folder=tmp_path / "crashed")
    qtbot.addWidget(crashed)
    assert crashed.open_path(path)
    crashed.edit("network.mtu", 9000, "Set MTU to 9000")
    crashed.autosave()   # then the crash: its recovery file stays
    orphan = persistence.recovery_folder() / "recovery-999994.json"
    orphan.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(crashed.recovery.path, orphan)
    crashed.wait_for_results()
    # another instance saves the file meanwhile
    save_scenario(new_scenario().with_value("network.vlan_tags", 1), path)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question",
                        lambda *a, **k: _BUTTONS.Yes)
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.offer_recovery() and window.path == path
    asked = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "question",
                        lambda parent, title, *a, **k: asked.append(title)
                        or _BUTTONS.Cancel)
    assert not window.save()
    assert asked == ["File changed on disk"]
    assert load_scenario(path).network.vlan_tags == 1
    window.wait_for_results()
