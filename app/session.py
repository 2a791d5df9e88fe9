"""The open document and its computations, without Qt (napari's
``ViewerModel`` role): the scenario, its path, an undo history, and a
recompute that evaluates off the calling thread.

Every change of the document starts a recompute on a one-worker thread
pool. A newer change supersedes older work: a queued evaluation is
cancelled, a running one finishes but its result is dropped, so only the
newest document's results are announced. Events are plain callback lists;
``results_ready``, ``evaluation_failed`` and ``advice_ready`` fire in the
worker thread (a GUI hands them over to its own thread), the others in the
thread that changed the document.
"""

import concurrent.futures
import threading
import time
from dataclasses import dataclass

from solvers.advise import AdviceResult, advise
from solvers.analysis_cache import AnalysisCache
from solvers.evaluate import evaluate


class Event:
    """Callbacks called with the event's arguments, in the emitting
    thread, in the order they were connected."""

    def __init__(self):
        self._callbacks = []

    def connect(self, callback):
        self._callbacks.append(callback)

    def disconnect(self, callback):
        self._callbacks.remove(callback)

    def disconnect_all(self):
        self._callbacks.clear()

    def emit(self, *args):
        for callback in list(self._callbacks):
            callback(*args)


class History:
    """Undo history of immutable document snapshots (QUndoStack's
    semantics without Qt): each step is the document after it, with a
    label; undo and redo hand back the snapshot to show.

    Parameters
    ----------
    document : models.scenario.Scenario
        The document before any step.
    clean : bool
        Whether it is as saved; False for recovered unsaved work.
    """

    def __init__(self, document, clean=True):
        self._documents = [document]
        self._labels = []
        self._index = 0
        self._clean_index = 0 if clean else None

    def push(self, document, label):
        """Record a step to ``document``; steps that were undone are
        dropped, and with them a clean state among them."""
        del self._documents[self._index + 1:]
        del self._labels[self._index:]
        if self._clean_index is not None and \
                self._clean_index > self._index:
            self._clean_index = None
        self._documents.append(document)
        self._labels.append(label)
        self._index += 1

    def undo(self):
        """Step back; the document before the undone step."""
        if not self.can_undo:
            raise IndexError("nothing to undo")
        self._index -= 1
        return self._documents[self._index]

    def redo(self):
        """Step forward again; the document after the redone step."""
        if not self.can_redo:
            raise IndexError("nothing to redo")
        self._index += 1
        return self._documents[self._index]

    @property
    def can_undo(self):
        return self._index > 0

    @property
    def can_redo(self):
        return self._index < len(self._labels)

    @property
    def undo_text(self):
        """Label of the step undo would revert, or ''."""
        return self._labels[self._index - 1] if self.can_undo else ""

    @property
    def redo_text(self):
        """Label of the step redo would repeat, or ''."""
        return self._labels[self._index] if self.can_redo else ""

    @property
    def count(self):
        """Steps recorded, undone ones included."""
        return len(self._labels)

    @property
    def is_clean(self):
        """Whether the document is as it was last saved (or opened)."""
        return self._index == self._clean_index

    def set_clean(self):
        self._clean_index = self._index


@dataclass(frozen=True)
class AdviceOutcome:
    """Recommendations for one version of the document, or why there are
    none."""

    #: The document version (``Session.generation``) they were computed for.
    generation: int
    #: None when the scenario has nothing to optimise or advise failed.
    advice: AdviceResult | None
    #: Why ``advice`` is None, for the user; None when it is not.
    message: str | None = None
    #: True when advise raised an unexpected error (a bug), False when
    #: the scenario simply measures nothing to optimise.
    failed: bool = False
    #: The goal asked for; None for the scenario's own.
    goal: str | None = None


class Session:
    """One open scenario document and its results.

    Parameters
    ----------
    scenario : models.scenario.Scenario
        The document to start with; its evaluation starts at once.
    path : pathlib.Path, optional
        The file it was read from, None for a new document or a template.
    schedule : callable, optional
        ``schedule(start)`` arranges for ``start()`` to be called later in
        the editing thread (a GUI: once it has redrawn the edit); None
        starts each evaluation at once. Until then :meth:`wait` starts it.

    Notes
    -----
    Edit the document from one thread only (a GUI's main thread); the
    workers only read the snapshot they were given.
    """

    def __init__(self, scenario, path=None, schedule=None):
        self.document_changed = Event()   # (scenario)
        self.clean_changed = Event()      # (is_clean)
        self.results_ready = Event()      # (generation, results)
        self.evaluation_failed = Event()  # (generation, message)
        self.advice_ready = Event()       # (AdviceOutcome)
        self._lock = threading.Lock()
        self._evaluator = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="linkplan-evaluate")
        # advice re-solves the model many times: its own worker, so edits
        # are never queued behind it
        self._adviser = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="linkplan-advise")
        self._generation = 0
        self._schedule = schedule
        self._unstarted = None   # (generation, scenario) still to submit
        self._closed = False
        self._pending = None
        self._results = None
        self._error = None
        self._advice_future = None
        self._advice_key = None   # (generation, goal) of _advice_future
        self._solve_seconds = None
        # each analysis re-runs only when an edit changes what it reads;
        # undo and redo find their results kept (used by the worker only)
        self._analysis_cache = AnalysisCache()
        self._clean = True
        self._set(scenario, path, History(scenario))

    # -- the document --------------------------------------------------

    @property
    def scenario(self):
        """The current document (an immutable snapshot)."""
        return self._scenario

    @property
    def generation(self):
        """Version of the document, raised by every change; results and
        advice carry the version they belong to."""
        with self._lock:
            return self._generation

    def open(self, scenario, path=None, *, modified=False):
        """Make ``scenario`` the document, fresh and unmodified (or
        ``modified``: recovered work that ``path`` does not hold yet)."""
        self._set(scenario, path, History(scenario, clean=not modified))

    def edit(self, changes, label):
        """Apply ``{path: value}`` as one undoable step.

        Returns
        -------
        bool
            False when every value is already set (no step recorded).

        Raises
        ------
        models.scenario.ScenarioError
            The changed scenario would be invalid; nothing changes.
        """
        if all(self._scenario.value_at(p) == v for p, v in changes.items()):
            return False
        changed = self._scenario.with_values(changes)
        self.history.push(changed, label)
        self._show(changed)
        return True

    def replace(self, scenario):
        """Make a validated scenario the document without an undo step
        (scripts, tests, benchmarks)."""
        self._show(scenario)

    def undo(self):
        self._show(self.history.undo())

    def redo(self):
        self._show(self.history.redo())

    def mark_saved(self, path):
        """The document is now stored at ``path``: the history is clean."""
        self.path = path
        self.history.set_clean()
        self._announce_clean()

    def _set(self, scenario, path, history):
        self.path, self.history = path, history
        self._show(scenario)

    def _show(self, scenario):
        self._scenario = scenario
        # without a schedule, the worker starts while the listeners
        # redraw the document
        self._recompute()
        self.document_changed.emit(scenario)
        self._announce_clean()

    def _announce_clean(self):
        if self.history.is_clean != self._clean:
            self._clean = self.history.is_clean
            self.clean_changed.emit(self._clean)

    # -- evaluation ----------------------------------------------------

    @property
    def results(self):
        """Results of the current document, or None while they are being
        computed or when the evaluation failed."""
        with self._lock:
            return self._results

    @property
    def solve_seconds(self):
        """How long the current document's evaluation took [s], or None
        while it runs or when it failed."""
        with self._lock:
            return self._solve_seconds

    @property
    def error(self):
        """Why the current document did not evaluate, or None."""
        with self._lock:
            return self._error

    def wait(self, timeout=None):
        """Block until the current document's evaluation is done and its
        event emitted; False when ``timeout`` [s] ran out first."""
        self._start()
        with self._lock:
            pending = self._pending
        done, _ = concurrent.futures.wait([pending], timeout)
        return bool(done)

    def _recompute(self):
        with self._lock:
            self._generation += 1
            self._results = self._error = self._solve_seconds = None
            if self._pending is not None:
                self._pending.cancel()   # only succeeds while queued
            self._unstarted = (self._generation, self._scenario)
        if self._schedule is None:
            self._start()
        else:
            # a worker running while the GUI redraws the edit takes the
            # interpreter from it: the window waits for every call back
            # into Python (measured: 30-110 ms for 5-30 ms of work)
            self._schedule(self._start)

    def _start(self):
        """Submit the evaluation of the newest document, unless it is
        submitted already (a scheduled start after :meth:`wait`)."""
        with self._lock:
            if self._unstarted is None or self._closed:
                return
            generation, scenario = self._unstarted
            self._unstarted = None
            self._pending = self._evaluator.submit(
                self._evaluate, generation, scenario)

    def _current(self, generation):
        with self._lock:
            return generation == self._generation

    def _evaluate(self, generation, scenario):
        if not self._current(generation):
            return
        started = time.perf_counter()
        try:
            results = evaluate(scenario, cache=self._analysis_cache)
        except Exception as err:  # a model bug must not lose the document
            message = f"{type(err).__name__}: {err}"
            with self._lock:
                if generation != self._generation:
                    return
                self._error = message
            self.evaluation_failed.emit(generation, message)
            return
        with self._lock:
            if generation != self._generation:
                return
            self._results = results
            self._solve_seconds = time.perf_counter() - started
        self.results_ready.emit(generation, results)

    # -- recommendations -----------------------------------------------

    def request_advice(self, goal=None):
        """Start computing recommendations for the current document and
        ``goal`` (a key of ``models.scenario.GOALS``; None for the
        scenario's own), unless they are computed or under way already;
        ``advice_ready`` announces them. Returns their future."""
        with self._lock:
            generation, scenario = self._generation, self._scenario
            if self._advice_key == (generation, goal):
                return self._advice_future
            if self._advice_future is not None:
                self._advice_future.cancel()
            self._advice_key = (generation, goal)
            self._advice_future = self._adviser.submit(
                self._advise, generation, scenario, goal)
            return self._advice_future

    def advice(self, timeout=None, goal=None):
        """Recommendations for the current document (an
        :class:`AdviceOutcome`), computed once per document version and
        goal; blocks until they are ready."""
        return self.request_advice(goal).result(timeout)

    def _advise(self, generation, scenario, goal):
        if not self._current(generation):
            return None
        try:
            # a newer document makes this advice stale: stop once the
            # base is evaluated, not after every candidate (the edits
            # after it would wait for the interpreter meanwhile)
            outcome = AdviceOutcome(generation, advise(
                scenario, goal,
                callback=lambda _: not self._current(generation)),
                goal=goal)
        except ValueError as err:   # nothing the scenario measures
            outcome = AdviceOutcome(generation, None, str(err), goal=goal)
        except Exception as err:  # a bug must not lose the document
            outcome = AdviceOutcome(generation, None,
                                    f"{type(err).__name__}: {err}",
                                    failed=True, goal=goal)
        self.advice_ready.emit(outcome)
        return outcome

    def close(self):
        """Stop announcing events and let the workers finish; queued work
        is cancelled."""
        for event in (self.document_changed, self.clean_changed,
                      self.results_ready, self.evaluation_failed,
                      self.advice_ready):
            event.disconnect_all()
        with self._lock:
            self._closed = True
        self._evaluator.shutdown(wait=False, cancel_futures=True)
        self._adviser.shutdown(wait=False, cancel_futures=True)
