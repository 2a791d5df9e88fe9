"""Layouts that fit (issue 37 item 2): the main window, the editor's
longest forms and lists, the comparison table and the dialogs at
1280x800 and 1920x1080 show every label, header and cell whole
(tests/gui/clipping.py measures each text against its room)."""

import os
from pathlib import Path

import pytest
from PySide6 import QtCore

from app.gui.accuracy_dialog import AccuracyDialog
from app.gui.import_dialog import ImportDialog
from app.gui.new_dialog import NewDocumentDialog
from tests.gui.clipping import clipped_texts
from tests.gui.helpers import open_example

SIZES = ((1280, 800), (1920, 1080))

#: (example, editor node) shown: a team (the policy's long names), a
#: migration (31 fields), a storage workload, the evacuation's VMs grid
SHOWN = (("seed000_lbt.toml", "teams[0]"),
         ("seed001_live_migration.toml", "workloads.migrations[0]"),
         ("seed002_hcibench.toml", "workloads.storage[0]"),
         ("evacuation_maintenance.toml", "workloads.evacuations[0].vms"))


def shown_whole(widget, qapp, name):
    qapp.processEvents()
    if SCREENSHOTS is not None:
        widget.grab().save(str(SCREENSHOTS / f"{name}.png"))
    return clipped_texts(widget)


#: LINKPLAN_SCREENSHOTS=folder keeps the screenshots the test measures
SCREENSHOTS = Path(os.environ["LINKPLAN_SCREENSHOTS"]) \
    if os.environ.get("LINKPLAN_SCREENSHOTS") else None


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("example,node", SHOWN, ids=[s[0] for s in SHOWN])
def test_main_window_shows_every_text_whole(qapp, window, size, example,
                                            node):
    open_example(window, example)
    window.resize(*size)
    window.editor.select(node)
    qapp.processEvents()
    window.table.resizeColumnsToContents()
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        window.wait_for_results()
        cut = shown_whole(window, qapp, f"main_{size[0]}_{example}_{index}")
        assert not cut, (window.tabs.tabText(index), cut)
    # the teaming views after the worst loss of one uplink (longer texts)
    teaming = window.view_tabs["teaming"]
    if teaming.built and teaming.state.count() > 1:
        window.tabs.setCurrentWidget(teaming.widget)
        teaming.state.setCurrentIndex(1)
        cut = shown_whole(window, qapp, f"main_{size[0]}_{example}_n1")
        assert not cut, ("Teaming N-1", cut)


def test_rarely_used_fields_fold_and_open_when_one_is_set(window, qapp):
    open_example(window, "seed001_live_migration.toml")
    entry = "workloads.migrations[0]"
    version = window.editor.field(f"{entry}.qemu_version")
    assert window.editor.field(f"{entry}.memory_gib").isVisibleTo(window)
    assert not version.isVisibleTo(window)   # under More…
    more = next(iter(window.editor._page.folded))
    assert more.text().startswith("More… (15 rarely used fields")
    version.enter("9.1")
    assert window.scenario.workloads.migrations[0].qemu_version == "9.1"
    assert window.editor.field(f"{entry}.qemu_version").isVisibleTo(window)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_dialogs_show_every_text_whole(qapp, qtbot, size):
    from app.validation_io import accuracy_report
    screen = QtCore.QSize(*size)
    accuracy = AccuracyDialog(accuracy_report())
    qtbot.addWidget(accuracy)
    new = NewDocumentDialog(None, "Untitled scenario",
                            "Which teaming policy keeps the uplinks "
                            "below 80 % when one fails?")
    qtbot.addWidget(new)
    imported = ImportDialog()
    qtbot.addWidget(imported)
    accuracy.fit_to(screen)   # as on a screen of that size
    for dialog in (accuracy, new, imported):
        dialog.show()
        qapp.processEvents()
        # a dialog sized to its content, within the screen
        assert dialog.width() <= screen.width() and \
            dialog.height() <= screen.height() - 60, type(dialog).__name__
        cut = shown_whole(dialog, qapp,
                          f"{type(dialog).__name__}_{size[0]}")
        assert not cut, (type(dialog).__name__, cut)
    # Help > Model accuracy: the error and verdict columns in view
    table = accuracy.checks
    for column in (7, 8):
        right = table.columnViewportPosition(column) + \
            table.columnWidth(column)
        assert 0 <= table.columnViewportPosition(column) and \
            right <= table.viewport().width(), \
            table.horizontalHeaderItem(column).text()


def _fields_in_view(editor):
    """The editor's fields shown whole in its scroll area's viewport."""
    viewport = editor.scroll.viewport()
    page = editor._page
    return [path for path, field in page.fields.items()
            if field.isVisibleTo(page)
            and 0 <= field.mapTo(viewport, QtCore.QPoint(0, 0)).y()
            and field.mapTo(viewport, QtCore.QPoint(0, field.height())).y()
            <= viewport.height()]


def test_a_migration_shows_its_common_fields_at_1280x800(window, qapp):
    # issue 37: at 1280x800 a migration showed 6 fields, its dirty rate
    # the last; the form's row spacing, a one-line heading and a variants
    # panel that shrinks to two rows leave room for 9 (of 17 unfolded)
    open_example(window, "seed003_vmotion.toml")
    window.resize(1280, 800)
    window.editor.select("workloads.migrations[0]")
    qapp.processEvents()
    shown = _fields_in_view(window.editor)
    entry = "workloads.migrations[0]"
    assert f"{entry}.dirty.rate_mib_s" in shown
    assert len(shown) >= 9, shown


def test_a_nics_offloads_sit_two_to_a_row(window, qapp):
    # the six on/off offloads of each IP version take three rows, not six:
    # at 1280x800 the NIC shows 11 fields whole (9 one to a row)
    open_example(window, "seed003_vmotion.toml")
    window.resize(1280, 800)
    window.editor.select("nics[0]")
    qapp.processEvents()
    editor = window.editor
    offloads = "nics[0].offloads.ipv4"
    row = {name: editor.field(f"{offloads}.{name}").mapTo(
        window, QtCore.QPoint(0, 0)).y() for name in ("checksum", "tso",
                                                      "lro", "gso")}
    assert row["checksum"] == row["tso"] < row["lro"] == row["gso"]
    assert len(_fields_in_view(editor)) >= 11
    assert not clipped_texts(editor.scroll.widget())
