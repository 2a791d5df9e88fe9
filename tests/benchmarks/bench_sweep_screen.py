"""Sweeps on screen (issue 16 item 4): a 10,000-point sweep run by the
Sweep tab's worker with its progress shown, and how soon Cancel takes
effect: in the window (the run dropped, Run enabled again) and in the
worker (it stops after its chunk)."""

import os
import time

from app.paths import DEFAULT_EXAMPLE

#: Two axes of 100 points each: MTU and link speed are column fields
#: (the fast path); a NIC's RSS queues and the vCPUs of the VMs that
#: receive a transfer (seed 003) need a document per point.
_CASES = {
    "column": (DEFAULT_EXAMPLE, (("network.mtu", 1500, 9000),
                                 ("nics[0].speed_gbps", 1, 100))),
    "document": ("examples/seed003_vmotion.toml", (
        ("nics[0].rss_queues", 1, 100),
        ("workloads.transfers[0].vm_vcpus", 1, 100))),
}


def _window(example):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtWidgets
    from app.figures.bootstrap import application
    from app.gui.main_window import MainWindow
    from app.paths import resource_path
    app = application()
    window = MainWindow()
    window.open_path(resource_path(*example.split("/")), as_template=True)
    window.wait_for_results()
    window.show()
    QtWidgets.QApplication.processEvents()
    return app, window


def _set_up(kind):
    example, axes = _CASES[kind]
    app, window = _window(example)
    panel = window.sweep_panel
    for row, (path, start, stop) in zip((panel.first, panel.second), axes):
        row.path.setCurrentText(path)
        row.start.setValue(start)
        row.stop.setValue(stop)
        row.num.setValue(100)
    panel.two_axes.setChecked(True)
    # on the Sweep tab, where the user clicks Run and Cancel (the tab shown
    # before, Wire & MTU, would repaint its chart on the GUI thread during
    # the measured Cancel, while the worker holds the interpreter lock)
    window.tabs.setCurrentWidget(panel)
    app.processEvents()
    return app, window, panel


def _close(window):
    window.sweep_panel.cancel()
    window.sweep_panel.wait()
    window.session.history.set_clean()
    window.close()


def sweep_10k_on_screen():
    """Sweep tab: 10,000 points (MTU x speed) to the heatmap [s]"""
    app, window, panel = _set_up("column")
    updates = []
    panel._signals.progressed.connect(lambda run, done, total:
                                      updates.append(done))
    started = time.perf_counter()
    panel.start()
    while panel.running:
        app.processEvents()
        time.sleep(0.005)
    seconds = time.perf_counter() - started
    assert panel.data is not None and panel.data.done == 10_000, \
        panel.status.text()
    # progress was shown along the way, not only at the end
    assert len(updates) >= 10, updates
    _close(window)
    return seconds, "s", 30.0, False


def _cancel(kind):
    """Worst of five (window, worker) latencies of Cancel clicked
    mid-sweep [s]: until the window has dropped the run, and until the
    worker thread has stopped."""
    from PySide6 import QtCore
    app, window, panel = _set_up(kind)
    worst_window = worst_worker = 0.0
    for _ in range(5):
        panel.start()
        while panel.progress.value() == 0:
            app.processEvents()
            time.sleep(0.002)
        time.sleep(0.03)   # mid-chunk, not at a chunk's edge
        pressed = time.perf_counter()
        # a click as the event loop delivers it, while the worker runs
        QtCore.QTimer.singleShot(0, panel.cancel_button.click)
        while panel.running:
            app.processEvents()
        worst_window = max(worst_window, time.perf_counter() - pressed)
        panel.wait()
        worst_worker = max(worst_worker, time.perf_counter() - pressed)
        app.processEvents()
    _close(window)
    return worst_window, worst_worker


_MEASURED = {}


def _measured(kind):
    if kind not in _MEASURED:
        _MEASURED[kind] = _cancel(kind)
    return _MEASURED[kind]


def sweep_cancel_window():
    """Sweep tab: Cancel to run dropped, column path, worst of 5 [ms]"""
    return 1e3 * _measured("column")[0], "ms", 100.0, False


def sweep_cancel_worker():
    """Sweep tab: Cancel to worker stopped, column path, worst of 5 [ms]"""
    return 1e3 * _measured("column")[1], "ms", 100.0, False


def sweep_cancel_window_documents():
    """Sweep tab: Cancel to run dropped, document per point [ms]"""
    return 1e3 * _measured("document")[0], "ms", 100.0, False


def sweep_cancel_worker_documents():
    """Sweep tab: Cancel to worker stopped, document per point [ms]"""
    return 1e3 * _measured("document")[1], "ms", 1000.0, False


BENCHMARKS = [sweep_10k_on_screen, sweep_cancel_window, sweep_cancel_worker,
              sweep_cancel_window_documents, sweep_cancel_worker_documents]
