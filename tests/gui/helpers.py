"""Steps the GUI tests take as a user would, written once."""

from app.paths import resource_path


def open_example(window, name):
    """Open a bundled example as a template and wait for its results."""
    window.open_path(resource_path("examples", name), as_template=True)
    window.wait_for_results()


def set_sweep_axis(axis, path, start, stop, points):
    """Fill one axis row of the Sweep tab."""
    axis.path.setCurrentText(path)
    axis.start.setValue(start)
    axis.stop.setValue(stop)
    axis.num.setValue(points)


def import_action(window):
    """File > Import…"""
    return next(a for a in window.menuBar().actions()[0].menu().actions()
                if a.text() == "&Import…")
