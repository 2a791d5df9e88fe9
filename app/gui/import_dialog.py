"""File > Import…: pick a format and files, preview what will be created,
open the imported scenario as a new, unsaved document."""

import functools

from PySide6 import QtCore, QtWidgets

from app.import_job import ImportJob
from app.importers import FORMATS
from app.importers.common import SERVER_ETHERNET_GBPS, run_import
from app.importers.migration import format_check, predicted_vs_measured

_FILTERS = {"rvtools": "RVTools exports (*.xlsx)",
            "esxtop": "esxtop batch files (*.csv)",
            "perfmon": "perfmon/typeperf logs (*.csv)",
            "vcenter": "Get-Stat exports (*.csv)",
            "sar": "sadf -j output (*.json)",
            "qemu": "QMP replies (*.json *.jsonl)",
            "libvirt": "virsh output (*.txt *.log)",
            "inventory": "VM inventories (*.csv *.xlsx)"}


class ImportDialog(QtWidgets.QDialog):
    """The import dialog. ``chosen`` is the scenario to open after
    ``exec()`` returns accepted. Files are read in a process of their own
    (:class:`ImportJob`; a 500 MB esxtop export takes about 20 s); the
    preview follows, or what stopped the importer."""

    # load number, ImportOutcome or None, failure message or None
    _imported = QtCore.Signal(int, object, object)

    #: What reads the files, in the import process (tests replace it).
    importer = staticmethod(run_import)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._loads = 0
        self._paths = []
        self._worker = None
        self.failure = None
        self.finished.connect(self._stop)
        self._imported.connect(self._show_outcome)
        self.setWindowTitle("Import")
        self.resize(760, 560)
        self.outcome, self.chosen = None, None
        self.format = QtWidgets.QComboBox()
        for name, (_, label) in FORMATS.items():
            self.format.addItem(f"{name}: {label}", name)
        choose = QtWidgets.QPushButton("Choose files…")
        choose.clicked.connect(self.choose_files)
        self.scenarios = QtWidgets.QComboBox()
        self.scenarios.currentIndexChanged.connect(self._select)
        self.preview = QtWidgets.QPlainTextEdit(readOnly=True)
        self.preview.setPlaceholderText("Choose a format and the exported "
                                        "files: what will be created shows "
                                        "here before anything is opened.")
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Open
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._open_button().setEnabled(False)
        # esxtop exports without the Link Speed counters: the uplinks'
        # speed (linkplan import --link-speed); shown for esxtop only
        self.link_speed = QtWidgets.QComboBox()
        self.link_speed.addItem("from the highest rate they carried", None)
        for speed in SERVER_ETHERNET_GBPS:
            self.link_speed.addItem(f"{speed:g} Gbit/s", float(speed))
        self.link_speed.setToolTip(
            "Speed of the uplinks whose 'Link Speed (Mb)' counter is not in "
            "the esxtop file; by default the smallest server Ethernet "
            "speed at or above the highest rate they carried. The preview "
            "and the scenario's assumptions say which.")
        self.link_speed.activated.connect(self._reload)
        self.link_speed_row = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(self.link_speed_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QtWidgets.QLabel("Uplinks without a link speed:"))
        row.addWidget(self.link_speed, 1)
        self.format.currentIndexChanged.connect(
            lambda _: self.link_speed_row.setVisible(
                self.format.currentData() == "esxtop"))
        self.link_speed_row.setVisible(self.format.currentData() == "esxtop")
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.format, 1)
        top.addWidget(choose)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.link_speed_row)
        layout.addWidget(QtWidgets.QLabel("Scenario to open:"))
        layout.addWidget(self.scenarios)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.buttons)

    def _open_button(self):
        return self.buttons.button(
            QtWidgets.QDialogButtonBox.StandardButton.Open)

    def choose_files(self):
        fmt = self.format.currentData()
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(
            self, "Import files", "", f"{_FILTERS[fmt]};;All files (*)")
        if paths:
            self.load(fmt, paths)

    def load(self, fmt, paths):
        """Start importing ``paths`` as ``fmt`` in a worker thread; the
        preview shows the outcome when it is ready (:meth:`wait`)."""
        self.format.setCurrentIndex(self.format.findData(fmt))
        self._loads += 1
        number = self._loads
        self.outcome, self.chosen, self.failure = None, None, None
        self.scenarios.clear()
        self._open_button().setEnabled(False)
        self.preview.setPlainText(f"Reading {len(paths)} file(s)…")
        self._stop()
        self._paths = [str(p) for p in paths]
        importer = type(self).importer
        speed = self.link_speed.currentData()
        if fmt == "esxtop" and speed is not None:
            importer = functools.partial(importer, link_speed_gbps=speed)
        self._worker = ImportJob(
            fmt, paths, lambda outcome, failure: self._imported.emit(
                number, outcome, failure), importer)

    def _reload(self, *_):
        """The link speed changed: import the files chosen again."""
        if self._paths:
            self.load(self.format.currentData(), self._paths)

    def _stop(self, *_):
        """Stop an import still running (files chosen again, the dialog
        closed)."""
        if self._worker is not None:
            self._worker.cancel()

    def wait(self, timeout=None):
        """Block until the import started last is shown (tests)."""
        if self._worker is not None:
            self._worker.join(timeout)
        QtCore.QCoreApplication.sendPostedEvents(
            self, QtCore.QEvent.Type.MetaCall)
        return self.outcome is not None or self.failure is not None

    def _show_outcome(self, number, outcome, failure=None):
        if number != self._loads:
            return   # files chosen again since
        if outcome is None:
            self.failure = failure
            self.preview.setPlainText(
                f"Cannot import {', '.join(self._paths)}: {failure}\n\n"
                "Nothing was opened; your scenario is unchanged.")
            return
        self.outcome = outcome
        self.scenarios.clear()
        for scenario in self.outcome.scenarios:
            self.scenarios.addItem(scenario.meta.name)
        self._open_button().setEnabled(bool(self.outcome.scenarios))
        self._select(0)

    def _select(self, index):
        outcome = self.outcome
        if outcome is None:
            return
        self.chosen = outcome.scenarios[index] \
            if 0 <= index < len(outcome.scenarios) else None
        lines = []
        if self.chosen is None:
            lines.append("Nothing can be imported from these files.")
        else:
            lines += _describe(self.chosen)
            for scenario, check in outcome.checks:
                if scenario is self.chosen:
                    lines += ["", format_check(
                        predicted_vs_measured(scenario, check), check)]
        for title, items in (("Problems (left out)", outcome.problems),
                             ("Taken", outcome.result.taken),
                             ("Skipped", outcome.result.skipped)):
            if items:
                lines += ["", f"{title}:"] + [f"  {i}" for i in items]
        self.preview.setPlainText("\n".join(lines))


def _describe(scenario):
    workloads = scenario.workloads
    nics = ", ".join(f"{n.id} {n.speed_gbps:g} Gbit/s"
                     for n in scenario.nics)
    teams = ", ".join(f"{t.name} ({t.policy}, {len(t.members)} uplinks)"
                      for t in scenario.teams) or "none"
    return [f"Will create: {scenario.meta.name}",
            f"  host: {scenario.host.hypervisor}",
            f"  NICs: {nics}", f"  teams: {teams}",
            f"  MTU: {scenario.network.mtu}",
            f"  flows with measured demand: {len(workloads.flows)}",
            f"  migrations: {len(workloads.migrations)}",
            "  evacuations: " + (", ".join(
                f"{e.name} ({len(e.vms)} VM{'s' * (len(e.vms) != 1)}, "
                f"{sum(v.memory_gib for v in e.vms):g} GiB)"
                for e in workloads.evacuations) or "none"),
            f"  measured values (in the notes): "
            f"{scenario.meta.notes.count('Measured: ')}"]


def run_import_dialog(window):
    """Show the dialog; open the chosen scenario as a new document, with
    its predicted-vs-measured checks for the PDF."""
    dialog = ImportDialog(window)
    if dialog.exec() and dialog.chosen is not None:
        window.set_document(dialog.chosen)
        window.measured_checks = [
            (check, predicted_vs_measured(scenario, check))
            for scenario, check in dialog.outcome.checks
            if scenario is dialog.chosen]
