"""The open document and its computations, without Qt (napari's
``ViewerModel`` role): the scenario, its path, an undo history, the
commands that change the document (each one undoable step labelled in
words for the Edit menu: edits of the base or of a variant, the variant
list, the variant repair), and a recompute that evaluates off the calling
thread.

Every change of the document starts a recompute on a one-worker thread
pool. A newer change supersedes older work: a queued evaluation is
cancelled, a running one finishes but its result is dropped, so only the
newest document's results are announced. Events are plain callback lists;
``results_ready``, ``evaluation_failed`` and ``advice_ready`` fire in the
worker thread (a GUI hands them over to its own thread), the others in the
thread that changed the document.
"""

import concurrent.futures
import queue
import threading
import time
from dataclasses import dataclass

from app.schema_fields import changes_label, path_label
from app.variant_edits import (covering_overrides, dumped, free_variant_name,
                               overrides_after_edit, recommendation_stem,
                               repair_variants, variant_data)
from models import platform
from models.scenario import ScenarioError, Variant
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


class _Worker:
    """A one-thread executor (``submit`` gives a
    :class:`concurrent.futures.Future`) whose thread is a daemon: unlike
    ``ThreadPoolExecutor``'s, which the interpreter joins at exit, an
    evaluation or advice of a closed document is abandoned, not awaited
    (closing the last window during a minute of advice ended Linkplan a
    minute later). The workers read immutable snapshots and hand results
    to callbacks that a closed session has dropped."""

    def __init__(self, name):
        self._name = name
        self._calls = queue.SimpleQueue()
        self._thread = None
        self._lock = threading.Lock()
        self._shut = False

    def submit(self, function, *args):
        future = concurrent.futures.Future()
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot submit work after shutdown")
            self._calls.put((future, function, args))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name=self._name, daemon=True)
                self._thread.start()
        return future

    def _work(self):
        while (call := self._calls.get()) is not None:
            future, function, args = call
            if not future.set_running_or_notify_cancel():
                continue   # cancelled while queued
            try:
                result = function(*args)
            except BaseException as err:  # handed to the future's owner
                future.set_exception(err)
            else:
                future.set_result(result)

    def shutdown(self):
        """Cancel the queued calls and end the thread after the running
        one, without waiting for it."""
        with self._lock:
            self._shut = True
            while True:
                try:
                    call = self._calls.get_nowait()
                except queue.Empty:
                    break
                if call is not None and call[0].cancel():
                    # wakes whoever waits for it (concurrent.futures.wait)
                    call[0].set_running_or_notify_cancel()
            self._calls.put(None)


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
        self._evaluator = _Worker("linkplan-evaluate")
        # advice re-solves the model many times: its own worker, so edits
        # are never queued behind it
        self._adviser = _Worker("linkplan-advise")
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
        # (changes, the values they replaced, label) of the last edit of
        # the base, for make_last_edit_a_variant
        self._last_base_edit = None
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

    # -- commands (each one undoable step, labelled for the Edit menu) --

    def edit_in(self, variant, changes, label, *, confirm_repair=None):
        """An edit made to the base (``variant`` None) or to variant
        number ``variant`` as shown resolved against the base: in a
        variant, it changes the variant's changes only (see
        :func:`app.variant_edits.overrides_after_edit`). A new hypervisor
        takes along every choice the new platform lacks. Returns whether
        a step was recorded; raises ``ScenarioError`` when refused."""
        if "host.hypervisor" in changes:
            changes = {**platform.follow_hypervisor(
                variant_data(self._scenario, variant),
                changes["host.hypervisor"]), **changes}
        if variant is None:
            return self.edit(changes, label, confirm_repair=confirm_repair)
        chosen = self._scenario.variants[variant]
        overrides = overrides_after_edit(self._scenario, variant, changes)
        return self._set_variant(variant, {"set": overrides},
                                 f"{label} in {chosen.name}")

    def add_variant(self, stem=None, changes=None):
        """A new variant (named after ``stem``, else "Variant N") making
        ``changes`` (none yet by default); returns its index."""
        variants = list(self._scenario.variants)
        name = free_variant_name(
            self._scenario, stem or f"Variant {len(variants) + 1}")
        variants.append(Variant(name=name, set=changes or {}))
        self._set_variants(variants, f"Add variant {name}")
        return len(variants) - 1

    def add_variant_from(self, recommendation):
        """A new variant making a recommendation's change (the base stays
        as it is); returns its index."""
        return self.add_variant(recommendation_stem(recommendation), {
            path: c["new"] for path, c in recommendation.change.items()})

    def apply_recommendation(self, recommendation, *, confirm_repair=None):
        """Make a recommendation's change to the base."""
        changes = {path: c["new"]
                   for path, c in recommendation.change.items()}
        return self.edit(changes,
                         f"Apply {changes_label(self._scenario, changes)}",
                         confirm_repair=confirm_repair)

    def duplicate_variant(self, index):
        """A copy of variant ``index`` after it; returns the copy's index
        (None for no variant)."""
        if index is None:
            return None
        variants = list(self._scenario.variants)
        original = variants[index]
        variants.insert(index + 1, original.model_copy(update={
            "name": free_variant_name(self._scenario,
                                      f"{original.name} copy")}))
        self._set_variants(variants, f"Duplicate variant {original.name}")
        return index + 1

    def rename_variant(self, index, name):
        """Rename variant ``index`` (surrounding spaces dropped)."""
        if index is None:
            return None
        old, name = self._scenario.variants[index].name, name.strip()
        return self._set_variant(index, {"name": name},
                                 f"Rename variant {old} to {name}")

    def delete_variant(self, index):
        """Delete variant ``index``; returns the index of the variant
        now in its place (None when none is left)."""
        if index is None:
            return None
        variants = list(self._scenario.variants)
        removed = variants.pop(index)
        self._set_variants(variants, f"Delete variant {removed.name}")
        return min(index, len(variants) - 1) if variants else None

    def move_variant(self, index, step):
        """Move variant ``index`` ``step`` places (-1: left, 1: right in
        the comparison); returns its new index, None when it cannot."""
        if index is None or not 0 <= index + step < \
                len(self._scenario.variants):
            return None
        variants = list(self._scenario.variants)
        variants[index], variants[index + step] = \
            variants[index + step], variants[index]
        self._set_variants(variants, f"Move variant "
                           f"{variants[index + step].name} "
                           f"{'left' if step < 0 else 'right'}")
        return index + step

    def remove_override(self, index, key):
        """Take change ``key`` of variant ``index`` back to the base's
        value; returns ``index``."""
        return self._remove_overrides(index, [key])

    def reset_in_variant(self, index, path):
        """A field of variant ``index`` back to the base's value: every
        change of the variant that sets it (the field, or an entry or
        list holding it) goes, in one step. Returns ``index``, None when
        the variant does not change the field."""
        covering = covering_overrides(self._scenario.variants[index], path)
        return self._remove_overrides(index, covering) if covering else None

    def _remove_overrides(self, index, keys):
        variant = self._scenario.variants[index]
        overrides = {k: v for k, v in variant.set.items() if k not in keys}
        words = ", ".join(path_label(self._scenario, k) for k in keys)
        return self._set_variant(index, {"set": overrides},
                                 f"Back to base: {words} in {variant.name}")

    @property
    def last_edit_can_be_variant(self):
        """Whether :meth:`make_last_edit_a_variant` has an edit to turn."""
        return self._last_base_edit is not None

    def make_last_edit_a_variant(self):
        """Turn the last edit of the base into a new variant: the base
        gets its old values back, the variant holds the new ones (one
        step). Returns the variant's index, None without such an edit."""
        if self._last_base_edit is None:
            return None
        changes, old, label = self._last_base_edit
        name = free_variant_name(
            self._scenario, label.removeprefix("Set ")[:60] or "Variant")
        variants = [*self._scenario.variants, Variant(name=name,
                                                      set=changes)]
        self.edit({**old, "variants": dumped(variants)},
                  f"Make “{label}” a variant")
        return len(variants) - 1

    def _set_variant(self, index, update, label):
        variants = list(self._scenario.variants)
        variants[index] = variants[index].model_copy(update=update)
        self._set_variants(variants, label)
        return index

    def _set_variants(self, variants, label):
        self.edit({"variants": dumped(variants)}, label)

    def edit(self, changes, label, *, confirm_repair=None):
        """Apply ``{path: value}`` as one undoable step.

        When the change of the base would break variants whose own team
        policy needs another switch mode, ``confirm_repair(repair)`` (a
        :class:`app.variant_edits.VariantRepair`) may accept updating
        them too, in the same step.

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
        before = self._scenario
        try:
            changed = before.with_values(changes)
        except ScenarioError as err:
            repair = None if confirm_repair is None else \
                repair_variants(before, changes, err)
            if repair is None or not confirm_repair(repair):
                raise
            return self.edit(repair.changes, label + " (variants updated)")
        self._last_base_edit = _base_edit(before, changes, label)
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
        self._last_base_edit = None
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
        """Whether work for ``generation`` is still wanted (a closed
        session wants none: advice stops at its next callback)."""
        with self._lock:
            return generation == self._generation and not self._closed

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
        """Stop announcing events without waiting for the workers: queued
        work is cancelled, running advice stops at its next callback, and
        what still runs neither is awaited nor holds up the exit."""
        for event in (self.document_changed, self.clean_changed,
                      self.results_ready, self.evaluation_failed,
                      self.advice_ready):
            event.disconnect_all()
        with self._lock:
            self._closed = True
        self._evaluator.shutdown()
        self._adviser.shutdown()


def _base_edit(before, changes, label):
    """What make_last_edit_a_variant needs of an edit of the base:
    ``(changes, the values they replaced, label)``; None for an edit of
    the variants, or one adding what ``before`` did not have."""
    if "variants" in changes:
        return None
    try:
        old = {path: before.value_at(path) for path in changes}
    except KeyError:
        return None
    return (changes, old, label) if old else None
