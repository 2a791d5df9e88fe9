"""The first window imports only what it shows (issue 16: cold start to
first paint <= 2 s): the import dialog's fit (scipy.optimize, ~0.4 s of a
cold start), the accuracy dialog and the validation set behind the table's
tooltips, the PDF report and the other sweep engines are imported when
first used; the view tabs not on screen build their charts when shown."""

import os
import subprocess
import sys

from tests.conftest import ROOT

#: Packages and modules the first painted window must not have imported.
#: (``app.presentation.content``, the rows worth showing, serves the table too)
DEFERRED = ("scipy", "pyarrow", "dask", "app.report.pdf",
            "app.presentation.summary", "app.report.sweep", "app.importers",
            "app.gui.import_dialog", "app.gui.accuracy_dialog",
            "app.validation_io", "solvers.accuracy")

_FIRST_WINDOW = f"""
import sys
from app.gui.application import show_example_window
app, window = show_example_window()
assert window.table_model.rowCount() > 0, "the example did not evaluate"
built = [key for key, tab in window.view_tabs.items() if tab.built]
loaded = sorted(m for m in sys.modules if m.startswith({DEFERRED!r}))
print(built, loaded)
"""


def test_first_window_imports_only_what_it_shows(tmp_path):
    # settings and recovery files in the test's folder, never the user's
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    process = subprocess.run([sys.executable, "-c", _FIRST_WINDOW],
                             cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    # only the tab on screen has its charts built
    assert process.stdout.strip() == "['wire'] []", process.stdout


def test_hidden_tab_is_built_and_drawn_when_first_shown(qtbot, qapp,
                                                       dialogs):
    from app.gui.main_window import MainWindow
    window = MainWindow()
    qtbot.addWidget(window)
    window.open_path(ROOT / "resources" / "examples" /
                     "seed001_live_migration.toml", as_template=True)
    window.show()
    window.wait_for_results(all_views=False)
    tab = window.view_tabs["migration"]
    assert not tab.built
    window.tabs.setCurrentWidget(tab.widget)
    assert tab.built
    # seed001's migrations charted: one bar per variant
    assert len(tab.plots[0].getPlotItem().items) > 0
    assert not tab.hint.isVisible()
