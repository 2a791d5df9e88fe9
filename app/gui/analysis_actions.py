"""The main window's analysis actions: the recommendations (computed
off the GUI thread by the session, offered in a dialog when ready, the
chosen change applied undoably), reaching a target, and the import,
calibration and accuracy dialogs.

:class:`AnalysisActions` is a part of :class:`app.gui.main_window.MainWindow`
(a mixin): it works on the window's ``session``, results, findings panel
and status bar.
"""

from app.gui.advice import AdviceDialog
from models.scenario import GOALS
from solvers.advise import resolve_goal


class AnalysisActions:
    """The Analysis menu's work and the import and accuracy dialogs;
    ``_advice_asked`` is the (document version, goal) the user asked
    advice for, ``_advice_dialog`` the recommendations dialog open."""

    # The import and accuracy dialogs are imported when first asked for:

    def calibrate_dialog(self):
        from app.gui.calibrate_dialog import run_calibrate_dialog
        run_calibrate_dialog(self)

    def calibration_dialog(self):
        from app.gui.calibrate_dialog import show_calibration
        show_calibration(self)

    def accuracy_dialog(self):
        from app.gui.accuracy_dialog import show_accuracy
        show_accuracy(self)

    def recommend_dialog(self):
        """Advise on the base scenario (computed off the GUI thread); the
        dialog opens when the advice is ready, and the chosen change is
        applied undoably."""
        self._advice_asked = (self.session.generation, None)
        self.statusBar().showMessage("Computing recommendations…")
        self._offer_if_done(self.session.request_advice())

    def target_dialog(self):
        """Analysis > Reach a target…: each lever's smallest change that
        meets a target on the base; the chosen one applied undoably."""
        from app.gui.target_dialog import TargetDialog
        if self.results is None:
            self.statusBar().showMessage(
                "Reach a target: the scenario is still being solved; ask "
                "again in a moment (Ctrl+Shift+R).", 10000)
            return None
        goal = goal_metrics(self.scenario)
        dialog = TargetDialog(self.scenario, self.results, self,
                              goal_metric=goal[0] if goal else None)
        dialog.apply_requested.connect(self._apply_from_panel)
        dialog.exec()
        return dialog

    def _offer_if_done(self, future):
        """Offer advice computed before it was asked for: its
        ``advice_ready`` went by unasked, and the session keeps it
        rather than computing it again."""
        if future.done() and not future.cancelled():
            outcome = future.result()
            if outcome is not None:   # None: made stale by an edit
                self._offer_advice(outcome)

    def _offer_advice(self, outcome):
        if outcome.goal is None and \
                outcome.generation == self.session.generation:
            self.findings.show_advice(outcome.advice, self.scenario,
                                      outcome.message or "")
        if (outcome.generation, outcome.goal) != self._advice_asked:
            return   # computed for the report, or for an older document
        self._advice_asked = None
        self.statusBar().clearMessage()
        if self._advice_dialog is not None:   # another goal, same dialog
            if outcome.advice is None:
                self._advice_dialog.show_message(outcome.goal,
                                                 outcome.message)
            else:
                self._advice_dialog.show_result(outcome.advice)
            return
        dialog = self._advice_dialog = self.advice_dialog(outcome)
        try:
            if dialog is not None and dialog.exec() and dialog.chosen:
                self.apply_recommendation(dialog.chosen)
        finally:
            self._advice_dialog = None

    def ask_advice_for(self, goal):
        """Recompute the recommendations for ``goal`` (the dialog's goal
        selector)."""
        self._advice_asked = (self.session.generation, goal)
        self._offer_if_done(self.session.request_advice(goal))

    def advice_dialog(self, outcome):
        """The dialog for a :class:`app.session.AdviceOutcome`, or None
        after telling the user why there is nothing to advise."""
        if outcome.advice is None:
            self._warn("Recommendations failed" if outcome.failed
                       else "Nothing to recommend", outcome.message)
            return None
        dialog = AdviceDialog(outcome.advice, self.scenario, self)
        dialog.goal_chosen.connect(self.ask_advice_for)
        return dialog

    def _advise_panel(self):
        if self._closed:   # results posted before the window closed
            return
        self.session.request_advice()


def goal_metrics(scenario):
    """The metric ids of the scenario's goal (none when it has nothing
    to optimise): the table shows them even when every variant agrees."""
    try:
        goal = resolve_goal(scenario)
    except ValueError:
        return ()
    if goal == "min_peak_util":   # the optimum beside the configured peak
        return (GOALS[goal][0], "teaming.optimal.peak_util_pct")
    return (GOALS[goal][0],)
