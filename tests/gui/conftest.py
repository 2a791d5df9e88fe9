"""GUI test set-up: offscreen Qt, Linkplan's application settings, and
modal dialogs replaced by recorders so no test can hang on one."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6 import QtWidgets  # noqa: E402

from app.figures.bootstrap import application  # noqa: E402


@pytest.fixture(scope="session")
def qapp_cls():
    return QtWidgets.QApplication


@pytest.fixture(scope="session")
def qapp():
    return application()


@pytest.fixture(autouse=True)
def user_folders(tmp_path, monkeypatch):
    """Settings and recovery files of each test in its own folder, never
    the user's."""
    from PySide6 import QtCore
    from app.gui import persistence
    settings_folder = tmp_path / "settings"
    QtCore.QSettings.setPath(QtCore.QSettings.Format.IniFormat,
                             QtCore.QSettings.Scope.UserScope,
                             str(settings_folder))
    monkeypatch.setattr(persistence, "recovery_folder",
                        lambda: tmp_path / "recovery")
    return tmp_path


@pytest.fixture
def dialogs(monkeypatch):
    """Every message box shown, as (kind, title, text); none blocks."""
    shown = []

    def recorder(kind, answer):
        def show(parent, title, text, *args, **kwargs):
            shown.append((kind, title, text))
            return answer
        return show

    box = QtWidgets.QMessageBox
    monkeypatch.setattr(box, "warning", recorder("warning", box.StandardButton.Ok))
    monkeypatch.setattr(box, "critical", recorder("critical", box.StandardButton.Ok))
    monkeypatch.setattr(box, "question",
                        recorder("question", box.StandardButton.Cancel))
    return shown


@pytest.fixture
def window(qtbot, qapp, dialogs):
    from app.gui.main_window import MainWindow
    main_window = MainWindow()
    qtbot.addWidget(main_window)
    main_window.open_example()
    main_window.show()
    main_window.wait_for_results()
    return main_window
