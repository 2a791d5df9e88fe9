"""Screenshots for the README and docs/ (``make screenshots``), offscreen:
the README's five-minute walkthrough at 1280x800 (``walkthrough-*.png``),
each view of the main window at 1280x800 and 1920x1080, and two PDF pages.
``capture.py walkthrough`` or ``capture.py views`` takes only those."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402

from app.figures.bootstrap import application  # noqa: E402
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


def _fresh_window(width, height):
    """A main window with the default layout, not the one of whoever runs
    this (nor the one another size left)."""
    from app.gui.main_window import MainWindow
    QtCore.QSettings.setPath(QtCore.QSettings.Format.IniFormat,
                             QtCore.QSettings.Scope.UserScope,
                             tempfile.mkdtemp())
    window = MainWindow(recovery_folder=Path(tempfile.mkdtemp()))
    window.resize(width, height)
    window.show()
    return window


def _with_menus(window, menus):
    """The window's picture with open menus painted where they are: a grab
    of the window leaves out its popups."""
    picture = window.grab()
    painter = QtGui.QPainter(picture)
    origin = window.mapToGlobal(QtCore.QPoint(0, 0))
    for menu in menus:
        painter.drawPixmap(menu.pos() - origin, menu.grab())
    painter.end()
    return picture


def _with_advice(app, window):
    """Results and the verdict panel's recommendations drawn."""
    _settle(app, window)
    window.advice_timer.stop()
    window._advise_panel()
    window.session.advice(timeout=60)
    window._gui_thread.deliver()
    _settle(app, window)


def walkthrough(app):
    """Five minutes with Linkplan: template, edit, variant, compare, PDF."""
    from app.paths import TEMPLATES
    window = _fresh_window(1280, 800)
    window.new_document()
    _settle(app, window)
    # File > New from Template > Live migration, menus open
    file_menu = window.menuBar().actions()[0].menu()
    file_menu.popup(window.mapToGlobal(
        window.menuBar().actionGeometry(
            window.menuBar().actions()[0]).bottomLeft()))
    app.processEvents()
    templates = next(a for a in file_menu.actions()
                     if a.text() == "New from &Template")
    file_menu.setActiveAction(templates)
    submenu = templates.menu()
    submenu.popup(file_menu.mapToGlobal(
        file_menu.actionGeometry(templates).topRight()))
    app.processEvents()
    migration = [t for t, _ in TEMPLATES].index("migration.toml")
    submenu.setActiveAction(submenu.actions()[migration])
    for _ in range(3):
        app.processEvents()
    _with_menus(window, (file_menu, submenu)).save(
        str(OUT / "walkthrough-1-template.png"))
    submenu.close()
    file_menu.close()

    window.new_from_template("migration.toml")
    _settle(app, window)
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    window.tabs.setCurrentIndex(titles.index("Live migration"))
    # the guest's dirtying rate, typed with its unit
    dirty = window.editor.field("workloads.migrations[0].dirty.rate_mib_s")
    dirty.enter("0.5 GiB/s")
    _with_advice(app, window)
    window.editor.scroll.ensureWidgetVisible(
        window.editor.field("workloads.migrations[0].dirty.rate_mib_s"))
    app.processEvents()
    window.grab().save(str(OUT / "walkthrough-2-edit.png"))

    # a variant on a 25 GbE NIC, edited in the same editor
    window.add_variant()
    window.rename_variant(0, "25 GbE")
    window.variants.setCurrentRow(1)
    window.editor.field("nics[0].speed_gbps").enter("25")
    _with_advice(app, window)
    window.grab().save(str(OUT / "walkthrough-3-variant.png"))

    # a second variant, then the comparison and the verdict
    window.add_variant()
    window.rename_variant(1, "MTU 9000")
    window.variants.setCurrentRow(2)
    window.editor.field("network.mtu").enter("9000")
    window.editor.select("workloads.migrations[0]")
    _with_advice(app, window)
    window.findings.variant.setCurrentIndex(
        window.findings.variant.findText("25 GbE"))
    # the splitters dragged to give the three columns their room
    window.splitter.setSizes([300, 980])
    window.bottom_splitter.setSizes([640, 340])
    for _ in range(3):
        app.processEvents()
    window.grab().save(str(OUT / "walkthrough-4-compare.png"))

    pdf = Path(tempfile.mkdtemp()) / "report.pdf"
    window.export_pdf_to(pdf)
    subprocess.run(["pdftoppm", "-r", "80", "-png", "-f", "1", "-l", "1",
                    "-singlefile", str(pdf),
                    str(OUT / "walkthrough-5-report")], check=True)
    window.session.history.set_clean()
    window.close()


def views(app):
    from app.gui.appearance import system_scheme
    for width, height in ((1280, 800), (1920, 1080)):
        window = _fresh_window(width, height)
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
            _with_advice(app, window)
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


def main(argv):
    parts = {"walkthrough": walkthrough, "views": views}
    unknown = set(argv) - set(parts)
    if unknown:
        print(f"capture.py: no part {sorted(unknown)[0]!r}; "
              f"parts: {', '.join(parts)}", file=sys.stderr)
        sys.exit(2)
    app = application()
    for name, take in parts.items():
        if not argv or name in argv:
            take(app)


if __name__ == "__main__":
    main(sys.argv[1:])
