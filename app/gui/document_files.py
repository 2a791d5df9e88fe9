"""The document's files, for the main window: new (blank or from a
template), open (a file, a recent one, the last one on start), save
(atomically, asking before overwriting a file changed on disk since),
autosave to a recovery file and recovery after a crash, PDF export.

:class:`DocumentFiles` is a part of :class:`app.gui.main_window.MainWindow`
(a mixin): it works on the window's ``session``, ``recovery`` files,
status bar and title.
"""

import functools
import os
import re
from pathlib import Path

from PySide6 import QtWidgets

from app.gui import persistence
from app.import_job import unreadable_reason
from app.paths import DEFAULT_EXAMPLE, resource_path
from app.scenario_io import load_scenario, save_scenario
from models.scenario import ScenarioError, new_scenario

_FILE_FILTER = "Linkplan scenarios (*.toml *.json);;All files (*)"


class DocumentFiles:
    """The main window's File menu and what keeps unsaved work: the
    document's file as it was opened or saved (``_disk_stamp``), the
    recovery file and its state in the status bar."""

    def set_document(self, scenario, path=None):
        """Show a scenario as a fresh, unmodified document."""
        # an import's measured migrations, for the PDF; set by the import
        self.measured_checks = []
        self.session.open(scenario, path)
        self._disk_stamp = _file_stamp(path)

    def open_example(self):
        self.open_path(resource_path(DEFAULT_EXAMPLE), as_template=True)

    def open_path(self, path, *, as_template=False):
        """Load a file; on failure explain why and keep the current
        document. ``as_template`` opens it without a file to save back to
        (the bundled examples stay untouched)."""
        try:
            scenario = load_scenario(path)
        except (ValueError, RecursionError) as err:
            self._warn("Cannot open scenario",
                       f"Cannot open {path}: {unreadable_reason(err)}")
            return False
        self.set_document(scenario, None if as_template else Path(path))
        if not as_template:
            persistence.remember_file(path)
        return True

    def new_document(self):
        if self._may_discard():
            self.set_document(new_scenario())
            return True
        return False

    def ask_new_document(self):
        """File > New: a new document, named and with its question."""
        if self.new_document():
            self._ask_name_and_question()

    def ask_new_from_template(self, name):
        """File > New from Template: the template, then its name and
        question (prefilled from the template)."""
        if self.new_from_template(name):
            self._ask_name_and_question()

    def _ask_name_and_question(self):
        from app.gui.new_dialog import NewDocumentDialog
        meta = self.scenario.meta
        dialog = NewDocumentDialog(self, meta.name, meta.objectives[0]
                                   if meta.objectives else "")
        if not dialog.exec():
            return
        name, question = dialog.answers()
        changes = {}
        if name:
            changes["meta.name"] = name
        if question:
            changes["meta.objectives"] = [question]
        try:   # still the document's first state: no undo step
            self.set_document(self.scenario.with_values(changes), None)
        except ScenarioError as err:   # a name over its length limit
            self._warn("Cannot use that name", str(err))

    def new_from_template(self, name):
        """File > New from Template: a new, untitled document from one of
        the question templates (resources/templates)."""
        return self._may_discard() and self.open_path(
            resource_path("templates", name), as_template=True)

    def open_dialog(self):
        if not self._may_discard():
            return
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Open scenario", str(persistence.start_folder()),
            _FILE_FILTER)
        if path:
            self.open_path(path)

    def _fill_recent_menu(self):
        self.recent_menu.clear()
        recent = persistence.recent_files()
        for number, path in enumerate(recent, start=1):
            action = self.recent_menu.addAction(
                f"&{number} {path.name}",
                functools.partial(self.open_recent, path))
            action.setToolTip(str(path))
            action.setStatusTip(str(path))
        if not recent:
            self.recent_menu.addAction("No recent files").setEnabled(False)
        self.recent_menu.addSeparator()
        clear = self.recent_menu.addAction("&Clear list",
                                           persistence.clear_recent_files)
        clear.setEnabled(bool(recent))

    def open_recent(self, path):
        """Open a file of File > Open Recent; one that is gone leaves the
        list."""
        if not self._may_discard():
            return
        if not self.open_path(path):
            persistence.forget_file(path)

    def reopen_last_file(self):
        """Open the file that was open when Linkplan last closed, when the
        user wants that (File > Reopen Last File on Start). True when it
        was opened."""
        last = persistence.last_file()
        if last is None or not persistence.reopens_last_file():
            return False
        if not last.is_file():
            return False   # moved or deleted since: start from the example
        return self.open_path(last)

    def save(self):
        if self.path is None:
            return self.save_as_dialog()
        return self.save_to(self.path)

    def save_as_dialog(self):
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Save scenario as", str(self.proposed_path(".toml")),
            _FILE_FILTER)
        if not path:
            return False
        if Path(path).suffix.lower() not in (".toml", ".json"):
            path += ".toml"
        return self.save_to(path)

    def save_to(self, path):
        """Save atomically; on failure the old file and the document stay.
        Saving over the document's own file after someone else (another
        instance, an editor) changed it asks first."""
        if self._changed_on_disk(path) and not self._overwrite_changed(path):
            return False
        try:
            save_scenario(self.scenario, path)
        except (OSError, ScenarioError) as err:
            self._warn("Cannot save scenario", str(err))
            return False
        self.session.mark_saved(Path(path))
        self._disk_stamp = _file_stamp(path)
        persistence.remember_file(path)
        self._update_title()
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def _changed_on_disk(self, path):
        """Whether ``path`` is the document's file and was replaced or
        written since this window opened or saved it (a file since
        deleted holds nothing to lose)."""
        if self.path is None or \
                Path(path).absolute() != Path(self.path).absolute():
            return False
        now = _file_stamp(path)
        return now is not None and now != self._disk_stamp

    def _overwrite_changed(self, path):
        buttons = QtWidgets.QMessageBox.StandardButton
        answer = QtWidgets.QMessageBox.question(
            self, "File changed on disk",
            f"{path} was changed on disk since you opened it (by another "
            "Linkplan window or another program).\n\nSave overwrites "
            "those changes with yours. Cancel leaves the file as it is; "
            "Save As… keeps both.",
            buttons.Save | buttons.Cancel, buttons.Cancel)
        return answer == buttons.Save

    def _may_discard(self):
        """True when the document is saved or the user agrees to lose or
        save the changes."""
        if self.session.history.is_clean:
            return True
        buttons = QtWidgets.QMessageBox.StandardButton
        answer = QtWidgets.QMessageBox.question(
            self, "Unsaved changes",
            "The scenario has unsaved changes. Save them first?",
            buttons.Save | buttons.Discard | buttons.Cancel, buttons.Save)
        if answer == buttons.Save:
            return bool(self.save())
        return answer == buttons.Discard

    def proposed_path(self, suffix):
        """Where Save As and Export propose to write: beside the document,
        else in the last folder used, named after the scenario."""
        if self.path is not None:
            return self.path.with_suffix(suffix)
        stem = re.sub(r"[^\w.-]+", "-", self.scenario.meta.name.strip()
                      ).strip("-.") or "scenario"
        return persistence.start_folder() / f"{stem}{suffix}"

    def autosave(self):
        """Write unsaved work to this window's recovery file; a failure is
        reported in the status bar and never interrupts the user."""
        if self.session.history.is_clean:
            return
        self._show_autosave_state(self.recovery.write(
            self.scenario, self.path, self._disk_stamp))

    def _show_autosave_state(self, problem):
        """A recovery file that cannot be written or removed is said once
        in a dialog and stays marked in the status bar until autosave
        works again; saving and closing go on regardless."""
        if problem is None:
            if self.recovery.problem is None:
                self.autosave_state.hide()
            return
        self.autosave_state.setToolTip(problem)
        self.autosave_state.show()
        self.statusBar().showMessage(f"Autosave failed: {problem}", 10000)
        if not self._autosave_warned:
            self._autosave_warned = True
            self._warn("Autosave failed",
                       f"Autosave failed: {problem}.\n\nUnsaved changes "
                       "cannot be kept for recovery after a crash until "
                       "this is fixed: save your work to keep it. Save, "
                       "Save As and Close work as usual.")

    def offer_recovery(self):
        """After a crash: offer the newest unsaved work left behind; report
        and set aside recovery files that cannot be read. Returns True
        when a document was recovered."""
        buttons = QtWidgets.QMessageBox.StandardButton
        for path, lock in self.recovery.orphans():
            recovered, problem = self.recovery.read(path)
            if recovered is None:
                lock.unlock()
                self._warn("Recovery file damaged", problem)
                continue
            name = recovered.source.name if recovered.source else "untitled"
            saved = recovered.saved_at.astimezone().strftime(
                "%Y-%m-%d %H:%M")
            answer = QtWidgets.QMessageBox.question(
                self, "Recover unsaved work",
                f"Linkplan did not close properly. Unsaved changes to "
                f"“{name}” ({recovered.scenario.meta.name}) were kept at "
                f"{saved}.\n\nRecover them? Discard deletes them; Cancel "
                "keeps them for the next start.",
                buttons.Yes | buttons.Discard | buttons.Cancel, buttons.Yes)
            if answer == buttons.Cancel:
                lock.unlock()
                continue
            if answer == buttons.Yes:
                self.session.open(recovered.scenario, recovered.source,
                                  modified=True)
                # the file as the crashed window knew it (else as it is
                # now): saving over someone's later changes asks
                self._disk_stamp = recovered.source_stamp or \
                    _file_stamp(recovered.source)
                self.autosave()   # now this instance's recovery file
            self._show_autosave_state(self.recovery.drop(path, lock))
            if answer == buttons.Yes:
                return True
        return False

    def _clean_changed(self, clean):
        self._update_title()
        if clean:   # saved, opened or undone back: nothing to recover
            self.autosave_timer.stop()
            self._show_autosave_state(self.recovery.discard())

    def export_pdf_dialog(self):
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export PDF report", str(self.proposed_path(".pdf")),
            "PDF (*.pdf)")
        if path:
            self.export_pdf_to(path)

    def export_pdf_to(self, path):
        """Write the report of the current document, its recommendations
        included (both computed off the GUI thread; this waits for them)."""
        from app.report.pdf import ReportTooLarge, write_report
        self.wait_for_results()
        results = self.session.results
        if results is None:
            self._warn("Cannot write the PDF", "The scenario did not "
                       f"evaluate: {self.session.error}")
            return False
        try:
            write_report(self.scenario, results, path,
                         self.session.advice().advice,
                         sweep_chart=self.sweep_panel.report_chart(),
                         checks=self.measured_checks)
        except (OSError, ReportTooLarge) as err:
            self._warn("Cannot write the PDF", str(err))
            return False
        self.statusBar().showMessage(f"Exported {path}", 5000)
        return True


def _file_stamp(path):
    """What tells a file's content changed (an atomic save gives a new
    inode; a write in place a new size or time), or None without one."""
    if path is None:
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):   # gone, or a name no file can have
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns
