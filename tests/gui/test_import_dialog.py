"""File > Import…: the preview shows what will be created before anything
is opened; accepting opens the imported scenario as an unsaved document."""

from PySide6 import QtWidgets

from app.gui.import_dialog import ImportDialog
from tests.app.import_samples import SAMPLES
from tests.gui.helpers import import_action


def previewed(qtbot, fmt, sample):
    """The dialog with ``sample`` loaded as ``fmt`` and its preview done."""
    dialog = ImportDialog()
    qtbot.addWidget(dialog)
    dialog.load(fmt, [str(SAMPLES / sample)])
    dialog.wait()
    return dialog


def test_preview_of_an_rvtools_export(qtbot):
    dialog = previewed(qtbot, "rvtools", "rvtools_4_1.xlsx")
    # each host and their vCenter cluster
    assert dialog.scenarios.count() == 3
    text = dialog.preview.toPlainText()
    assert "Will create: esx01.example" in text
    assert "NICs: vmnic0 10 Gbit/s, vmnic1 10 Gbit/s, vmnic2 25 Gbit/s" \
        in text
    assert "DSwitch-LACP (lacp, 2 uplinks)" in text
    assert "vm-01-002 is poweredOff" in text
    dialog.scenarios.setCurrentIndex(1)
    assert dialog.chosen.meta.name.startswith("esx02.example")
    assert "Will create: esx02.example" in dialog.preview.toPlainText()


def test_preview_of_a_vm_inventory_names_the_evacuations(qtbot):
    # Get-VM's export: each host's running VMs as its evacuation
    dialog = previewed(qtbot, "inventory", "inventory_get_vm.csv")
    assert dialog.scenarios.count() == 2
    text = dialog.preview.toPlainText()
    assert "evacuations: HV01 (2 VMs, 20 GiB)" in text
    assert "VM old01 is Off" in text
    # the RVTools hosts carry theirs too
    dialog.load("rvtools", [str(SAMPLES / "rvtools_4_1.xlsx")])
    dialog.wait()
    assert "evacuations: esx01 (2 VMs, 12 GiB)" in \
        dialog.preview.toPlainText()


def test_preview_shows_predicted_vs_measured(qtbot):
    dialog = previewed(qtbot, "qemu", "qmp_query_migrate_rounds.jsonl")
    assert "Predicted vs measured" in dialog.preview.toPlainText()


def test_nothing_to_import_disables_open(qtbot):
    dialog = previewed(qtbot, "esxtop", "rvtools_4_1.xlsx")
    open_button = dialog.buttons.button(
        QtWidgets.QDialogButtonBox.StandardButton.Open)
    assert not open_button.isEnabled() and dialog.chosen is None
    text = dialog.preview.toPlainText()
    assert "Nothing can be imported" in text
    assert "expected an esxtop batch file" in text


def test_menu_opens_the_chosen_scenario(qtbot, window, monkeypatch):
    def accept(self):
        self.load("esxtop", [str(SAMPLES / "esxtop_batch.csv")])
        self.wait()
        return True

    monkeypatch.setattr(ImportDialog, "exec", accept)
    import_action(window).trigger()
    assert window.scenario.meta.name.startswith("esx01.example")
    assert window.path is None
    assert len(window.scenario.workloads.flows) == 3


def test_pdf_lists_the_measured_values_with_file_and_column(tmp_path):
    from pypdf import PdfReader

    from app.importers.common import run_import
    from app.report.pdf import write_report_headless
    from solvers.evaluate import evaluate

    (scenario,) = run_import("esxtop", [SAMPLES / "esxtop_batch.csv"]) \
        .scenarios
    out = tmp_path / "report.pdf"
    write_report_headless(scenario, evaluate(scenario), out)
    text = " ".join(page.extract_text() for page in PdfReader(out).pages)
    text = " ".join(text.split())
    # one line per source column: each uplink's speed has its own counter
    assert "Measured (1 value: nics[0].speed_gbps) from" in text
    assert "vmnic0)\\Link Speed (Mb)" in text


def test_import_runs_off_the_gui_thread_and_its_check_reaches_the_pdf(
        qtbot, window, monkeypatch, tmp_path):
    from pypdf import PdfReader

    started = []

    def accept(self):
        self.load("qemu", [str(SAMPLES / "qmp_query_migrate_rounds.jsonl")])
        # the worker reads the file; the dialog shows that it is reading
        started.append(self.preview.toPlainText())
        self.wait()
        return True

    monkeypatch.setattr(ImportDialog, "exec", accept)
    import_action(window).trigger()
    assert started[0].startswith("Reading 1 file(s)")
    assert len(window.measured_checks) == 1
    out = tmp_path / "report.pdf"
    assert window.export_pdf_to(out)
    text = " ".join(" ".join(page.extract_text().split())
                    for page in PdfReader(out).pages)
    assert "Predicted vs measured: migration" in text
    assert "measured" in text and "error" in text


# -- importers that fail or run away (issue 38 item 5) ----------------------

def test_an_importer_that_fails_says_why_in_the_dialog(qtbot, monkeypatch,
                                                       tmp_path):
    from tests.gui import import_failures
    monkeypatch.setattr(ImportDialog, "importer",
                        staticmethod(import_failures.raise_type_error))
    export = tmp_path / "powercli.csv"
    export.write_text("Entity,MetricId,Value\n")
    dialog = previewed(qtbot, "vcenter", export)
    text = dialog.preview.toPlainText()
    assert text.startswith(f"Cannot import {export}: TypeError: "
                           "unsupported operand")
    assert dialog.chosen is None and not dialog._open_button().isEnabled()


def test_an_importer_killed_out_of_memory_says_so(qtbot, monkeypatch,
                                                  tmp_path):
    from tests.gui import import_failures
    monkeypatch.setattr(ImportDialog, "importer",
                        staticmethod(import_failures.killed))
    export = tmp_path / "huge.xlsx"
    export.write_bytes(b"PK")
    dialog = previewed(qtbot, "rvtools", export)
    assert "stopped by signal 9 (out of memory?)" in \
        dialog.preview.toPlainText()


def test_a_hostile_file_the_real_importer_chokes_on_reaches_the_dialog(
        qtbot, tmp_path):
    # sadf -j output nested past the recursion limit (6 KB)
    export = tmp_path / "sar.json"
    export.write_text("[" * 3000 + "]" * 3000)
    dialog = previewed(qtbot, "sar", export)
    text = dialog.preview.toPlainText()
    assert not text.startswith("Reading")
    assert str(export) in text and dialog.chosen is None


def test_a_slow_import_never_blocks_the_event_loop_and_close_stops_it(
        qtbot, tmp_path):
    import time
    from PySide6 import QtCore

    # a 64 KB inventory whose first line sends csv.Sniffer's regular
    # expression quadratic: minutes in C, the interpreter held throughout
    export = tmp_path / "inventory.csv"
    export.write_text(',"' * 32768 + "\n")
    # the ticks time this dialog alone: the windows earlier tests left are
    # deleted first (their deferred deletes would run inside the ticks)
    import gc
    gc.collect()
    QtCore.QCoreApplication.sendPostedEvents(
        None, QtCore.QEvent.Type.DeferredDelete)
    QtCore.QCoreApplication.processEvents()
    dialog = ImportDialog()
    qtbot.addWidget(dialog)
    ticks = [time.perf_counter()]
    timer = QtCore.QTimer(interval=20)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    dialog.load("inventory", [str(export)])
    qtbot.wait(4000)
    timer.stop()
    ticks.append(time.perf_counter())   # a block at the end counts too
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert len(ticks) > 50 and max(gaps) < 0.5, max(gaps, default=None)
    job = dialog._worker
    if dialog.outcome is None and dialog.failure is None:
        dialog.reject()   # still reading: closing stops the importer
        assert job.join(10)
        assert not job._process.is_alive()


def test_esxtop_without_link_speed_takes_the_dialog_speed(qtbot, tmp_path):
    # issue 37 item 8: the speed is a stated assumption, or the user's
    from tests.app.test_import_esxtop import _without_link_speed
    path = _without_link_speed(tmp_path / "nospeed.csv")
    dialog = ImportDialog()
    qtbot.addWidget(dialog)
    dialog.load("esxtop", [str(path)])
    dialog.wait()
    assert dialog.link_speed_row.isVisibleTo(dialog)
    text = dialog.preview.toPlainText()
    assert "NICs: vmnic0 10 Gbit/s, vmnic1 10 Gbit/s" in text
    assert "10 Gbit/s assumed, the smallest server Ethernet speed" in text
    dialog.link_speed.setCurrentIndex(dialog.link_speed.findData(25.0))
    dialog.link_speed.activated.emit(dialog.link_speed.currentIndex())
    dialog.wait()
    text = dialog.preview.toPlainText()
    assert "NICs: vmnic0 25 Gbit/s, vmnic1 25 Gbit/s" in text
    assert "25 Gbit/s assumed, as given" in text
    dialog.format.setCurrentIndex(dialog.format.findData("rvtools"))
    assert not dialog.link_speed_row.isVisibleTo(dialog)
