"""Reading files without trusting them: an import in a process of its
own (Qt-free; the GUI's import dialog runs it), and why a file could not
be read, in words for the user."""

import multiprocessing
import sys
import threading

from models.scenario import ScenarioError


def unreadable_reason(err):
    """Why a file could not be read, for the user: a scenario's problems
    (one a line), what a parser gave up on (hostile nesting, an integer
    too long to convert), or the unforeseen error."""
    if isinstance(err, ScenarioError):
        return "\n".join(f"{path}: {message}" if path else message
                         for path, message in err.problems)
    if isinstance(err, RecursionError):
        return "nested too deeply to read"
    if "integer string conversion" in str(err):
        return (f"a number has more than {sys.get_int_max_str_digits():,} "
                "digits")
    if isinstance(err, ValueError):   # a reader's own message
        return str(err)
    return f"{type(err).__name__}: {err}"


class ImportJob:
    """``importer(fmt, paths)`` (:func:`app.importers.common.run_import`,
    or another function importable by name) in a process of its own, so
    that no importer holds the GUI's interpreter (a regular expression on
    a hostile 64 KB line runs for minutes without letting go of it), and
    one that runs away can be stopped. ``on_done(outcome, failure)`` is
    called from a helper thread with the outcome, or None and what
    stopped the importer."""

    def __init__(self, fmt, paths, on_done, importer):
        context = multiprocessing.get_context("spawn")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_import_in_child, args=(importer, fmt, paths, send),
            daemon=True, name="linkplan-import")
        self._process.start()
        send.close()
        self._on_done = on_done
        self._thread = threading.Thread(target=self._collect, daemon=True,
                                        name="linkplan-import")
        self._thread.start()

    def _collect(self):
        try:
            outcome, failure = self._receive.recv()
        except (EOFError, OSError):   # the process died, or was stopped
            self._process.join()
            outcome, failure = None, _death(self._process.exitcode)
        finally:
            self._receive.close()
        self._process.join()
        self._on_done(outcome, failure)

    def cancel(self):
        """Stop the import (its outcome is then never announced)."""
        self._on_done = lambda *_: None
        if self._process.is_alive():
            self._process.kill()

    def join(self, timeout=None):
        self._thread.join(timeout)
        return not self._thread.is_alive()


def _import_in_child(importer, fmt, paths, send):
    """The import process: (outcome, None), or (None, what went wrong)
    for an importer that fails in an unforeseen way."""
    try:
        reply = importer(fmt, paths), None
    except Exception as err:   # noqa: BLE001 - said in the dialog
        reply = None, unreadable_reason(err)
    send.send(reply)
    send.close()


def _death(exitcode):
    if exitcode is not None and exitcode < 0:
        return f"the importer was stopped by signal {-exitcode} (out of " \
               "memory?)"
    return f"the importer ended without an answer (exit code {exitcode})"
