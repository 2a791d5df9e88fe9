"""Edit-to-screen latency of the desktop app: one parameter edit, the
re-solve of every variant (on the session's worker thread), the hand-over
of the results to the GUI thread, and the repaint of charts, table and
notes."""

import os

from tests.benchmarks.timing import best_time


def edit_latency():
    """GUI edit -> evaluate -> repaint, built-in example [ms]"""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.gui.application import show_example_window

    app, window = show_example_window()
    mtus = iter(range(1500, 9000))

    def edit():
        window.apply_value("network.mtu", next(mtus))
        window.wait_for_results()
        app.processEvents()

    seconds = best_time(edit, 20)
    window.close()
    return 1e3 * seconds, "ms", 100, False


BENCHMARKS = [edit_latency]
