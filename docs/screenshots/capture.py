"""Screenshots of each view of the main window and two PDF pages, for the
README (``make screenshots``): offscreen, at 1280x800 and 1920x1080."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PySide6 import QtCore, QtWidgets  # noqa: E402

from app.gui.bootstrap import application  # noqa: E402
from app.paths import resource_path  # noqa: E402

OUT = Path(__file__).resolve().parent

#: (file stem, example, tab title, what to do before the shot)
SHOTS = (
    ("editor-nic", "seed003_vmotion.toml", "Live migration", "nic"),
    ("editor-team", "seed000_lbt.toml", "Teaming", "team"),
    ("editor-variant", "seed003_vmotion.toml", "Live migration", "variant"),
    ("editor-refused", "jumbo_10gbe.toml", "Wire & MTU", "refused"),
    ("wire", "jumbo_10gbe.toml", "Wire & MTU", None),
    ("transport", "seed001_live_migration.toml", "Transport & CPU", None),
    ("migration", "seed003_vmotion.toml", "Live migration", None),
    ("teaming", "seed000_lbt.toml", "Teaming", None),
    ("teaming-n1", "seed000_lbt.toml", "Teaming", "n1"),
    ("storage", "seed002_hcibench.toml", "Storage", None),
    ("evacuation", "evacuation_maintenance.toml", "Evacuation", None),
    ("sweep", "seed003_vmotion.toml", "Sweep", "sweep"),
    ("sweep-2d", "seed003_vmotion.toml", "Sweep", "sweep2"),
    ("storage-workloads", "seed004_jumbo_ip_storage.toml", "Storage", None),
    ("dark", "seed001_live_migration.toml", "Transport & CPU", "dark"),
)


def _settle(app, window):
    window.wait_for_results()
    for _ in range(5):
        app.processEvents()


def _sweep(window, two):
    panel = window.sweep_panel
    panel.first.path.setCurrentText(
        "workloads.migrations[0].dirty.rate_mib_s")
    panel.first.start.setValue(500)
    panel.first.stop.setValue(8000)
    panel.first.num.setValue(60)
    panel.two_axes.setChecked(two)
    if two:
        panel.second.path.setCurrentText("nics[0].speed_gbps")
        panel.second.start.setValue(5)
        panel.second.stop.setValue(40)
        panel.second.num.setValue(30)
    panel.start()
    panel.wait(120)
    QtWidgets.QApplication.processEvents()
    metric = panel.metric.findData("migration.total_s" if not two
                                   else "migration.downtime_s")
    panel.metric.setCurrentIndex(max(metric, 0))


def main():
    app = application()
    from app.gui.appearance import system_scheme
    from app.gui.main_window import MainWindow
    for width, height in ((1280, 800), (1920, 1080)):
        # the default layout, not the one of whoever runs this (nor the
        # one the other size left)
        QtCore.QSettings.setPath(QtCore.QSettings.Format.IniFormat,
                                 QtCore.QSettings.Scope.UserScope,
                                 tempfile.mkdtemp())
        window = MainWindow(recovery_folder=Path(tempfile.mkdtemp()))
        window.resize(width, height)
        window.show()
        for stem, example, tab, action in SHOTS:
            window.open_path(resource_path("examples", example),
                             as_template=True)
            _settle(app, window)
            titles = [window.tabs.tabText(i).replace("&&", "&")
                      for i in range(window.tabs.count())]
            window.tabs.setCurrentIndex(titles.index(tab))
            dark = action == "dark"
            system_scheme().follow(QtCore.Qt.ColorScheme.Dark if dark
                                   else QtCore.Qt.ColorScheme.Light)
            if action == "n1":
                window.view_tabs["teaming"].state.setCurrentIndex(1)
            elif action == "nic":
                window.editor.select("nics[0]")
            elif action == "team":
                window.editor.select("teams[0]")
            elif action == "variant":
                window.variants.setCurrentRow(1)
                window.editor.select("network")
            elif action == "refused":
                window.editor.select("network")
                window.editor.field("network.mtu").enter("10000")
            elif action in ("sweep", "sweep2"):
                _sweep(window, action == "sweep2")
            window.advice_timer.stop()
            window._advise_panel()
            window.session.advice(timeout=60)
            _settle(app, window)
            window.grab().save(str(OUT / f"{stem}-{width}x{height}.png"))
        if width == 1280:
            pdf = Path(tempfile.mkdtemp()) / "report.pdf"
            window.open_path(resource_path("examples",
                                           "seed003_vmotion.toml"),
                             as_template=True)
            _settle(app, window)
            _sweep(window, False)
            window.export_pdf_to(pdf)
            for page in (1, 2):
                subprocess.run(["pdftoppm", "-r", "60", "-png", "-f",
                                str(page), "-l", str(page), "-singlefile",
                                str(pdf), str(OUT / f"report-page{page}")],
                               check=True)
        system_scheme().follow(QtCore.Qt.ColorScheme.Light)
        window.session.history.set_clean()
        window.close()


if __name__ == "__main__":
    main()
