"""The binding-limit and findings panel: per variant, the limit that
binds with the numbers that produced it, the findings grouped by severity
with their evidence, the recommendations with their re-evaluated effect
and an Apply button (to the base or as a new variant), and the
assumptions."""

import re
from html import escape

from PySide6 import QtCore, QtWidgets

from app.gui.appearance import colour
from app.presentation.findings import (SEVERITIES, calculation,
                                       effect_text, evidence_text,
                                       number_text)
from app.presentation.goals import GOAL_LABELS
from app.presentation.content import change_words
from solvers import metric_ids

#: A dot inside a parameter path or metric id (not a decimal point).
_PATH_DOT = re.compile(r"\.(?=[A-Za-z_\[])")

#: The link that shows all assumptions or only those that differ.
ASSUMPTIONS_LINK = "assumptions:toggle"


class FindingsPanel(QtWidgets.QWidget):
    """Shows one variant's verdict (picked) and the base's
    recommendations as one rich text (redrawn in a few milliseconds on
    every edit); each recommendation's Apply and As variant links emit
    ``apply_requested(recommendation, as_variant)``."""

    apply_requested = QtCore.Signal(object, bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.results = None
        self.advice = None          # AdviceResult of the base, or None
        self.advice_note = ""       # why there is none, or "computing"
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        picker = QtWidgets.QHBoxLayout()
        picker.addWidget(QtWidgets.QLabel("Verdict for"))
        self.variant = QtWidgets.QComboBox()
        self.variant.setToolTip("Variant whose binding limit and findings "
                                "are shown")
        self.variant.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.variant.currentIndexChanged.connect(self._redraw)
        picker.addWidget(self.variant)
        picker.addStretch(1)
        layout.addLayout(picker)
        self.browser = QtWidgets.QTextBrowser()
        self.browser.setOpenLinks(False)
        # a new text clears the view first: with the scroll bar coming and
        # going, every edit laid the text out twice, at two widths
        self.browser.setVerticalScrollBarPolicy(
            QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.browser.anchorClicked.connect(lambda url: self.follow(
            url.toString()))
        layout.addWidget(self.browser, 1)
        #: link -> (recommendation, as_variant) of the text shown
        self.links = {}
        self.advised = None   # the scenario the advice is for
        self._html = None   # the text shown
        self.all_assumptions = False   # or only those that differ

    # -- input -------------------------------------------------------------

    def show_results(self, results, advice_note=None):
        """Show ``results``; with ``advice_note`` the base's recommendations
        are dropped (they were computed for earlier results) and the note
        says why there are none."""
        self.results = results
        if advice_note is not None:
            self.advice, self.advice_note = None, advice_note
        names = [v.name for v in results.variants]
        if names != [self.variant.itemText(i)
                     for i in range(self.variant.count())]:
            # refilled only when the variants changed: a refill resizes
            # the picker and lays the panel out again
            previous = self.variant.currentText()
            with QtCore.QSignalBlocker(self.variant):
                self.variant.clear()
                self.variant.addItems(names)
                self.variant.setCurrentIndex(names.index(previous)
                                             if previous in names else 0)
        self._redraw()

    def show_advice(self, advice, scenario, note=""):
        """The base's recommendations (an AdviceResult) for ``scenario``,
        whose entries name the changed fields, or None with why there are
        none (``note``)."""
        self.advice, self.advice_note = advice, note
        self.advised = scenario
        self._redraw()

    def follow(self, link):
        """Apply the recommendation behind an Apply / As variant link, or
        show all assumptions or only those that differ."""
        if link == ASSUMPTIONS_LINK:
            self.all_assumptions = not self.all_assumptions
            self._redraw()
        elif link in self.links:
            self.apply_requested.emit(*self.links[link])

    # -- drawing -----------------------------------------------------------

    def selected_variant(self):
        if self.results is None:
            return None
        return self.results.variants[max(self.variant.currentIndex(), 0)]

    def _redraw(self):
        variant = self.selected_variant()
        if variant is None:
            return
        self.links = {}
        html = (self._limit_section(variant)
                + self._findings_section(variant)
                + self._advice_section() + self._assumptions_section())
        # parameter paths and metric ids have no spaces: a zero-width
        # space after each dot lets them wrap to the panel's width
        html = _PATH_DOT.sub(".\u200b", html)
        if html == self._html:
            return   # laying the same text out again takes milliseconds
        self._html = html
        scroll = self.browser.verticalScrollBar().value()
        self.browser.setHtml(html)
        self.browser.verticalScrollBar().setValue(scroll)

    @staticmethod
    def _limit_section(variant):
        html = (f"<b>Binding limit</b><p style='margin-left:8px'>"
                f"{escape(variant.bottleneck.message)}</p>")
        rows = calculation(variant)
        # "Migration: total time", "Migration: downtime": the analysis
        # named once, above its rows
        prefix = rows[0][0].partition(": ")[0] + ": " if rows else ""
        if len(rows) > 1 and all(r[0].startswith(prefix) for r in rows):
            rows = [(label.removeprefix(prefix), value, unit)
                    for label, value, unit in rows]
            heading = f"Calculation ({prefix[:-2].lower()})"
        else:
            heading = "Calculation"
        if rows:
            html += ("<p style='margin-left:8px; color:gray'>"
                     f"{escape(heading)}</p><table style='margin-left:16px'"
                     " cellspacing='0' cellpadding='1'>" + "".join(
                         f"<tr><td>{escape(label)}</td><td align='right'>"
                         f"&nbsp;&nbsp;{escape(value)}&nbsp;"
                         f"{escape('' if unit == '1' else unit)}</td></tr>"
                         for label, value, unit in rows) + "</table>")
        return html

    @staticmethod
    def _findings_section(variant):
        if not variant.findings:
            return "<p><b>Findings</b>: none</p>"
        html = "<p><b>Findings</b></p>"
        for severity in SEVERITIES:
            found = [f for f in variant.findings if f.severity == severity]
            if not found:
                continue
            html += (f"<p style='margin-left:8px; "
                     f"color:{colour(severity)}'><b>"
                     f"{severity.capitalize()} ({len(found)})</b></p>")
            for finding in found:
                evidence = evidence_text(finding.evidence)
                html += (f"<p style='margin-left:16px'>"
                         f"{escape(finding.message)}" + (
                             "<br><span style='color:gray'>Evidence: "
                             f"{escape(evidence)}</span>" if evidence
                             else "") + "</p>")
        return html

    def _advice_section(self):
        advice = self.advice
        if advice is None:
            return ("<p><b>Recommendations (base)</b>: "
                    f"{escape(self.advice_note or 'none')}</p>")
        unit, label = metric_ids.info(advice.metric)
        unit = "" if unit in ("1", "") else f" {unit}"
        html = (f"<p><b>Recommendations (base)</b> — goal: "
                f"{escape(GOAL_LABELS[advice.goal])}; "
                f"{escape(label)} {number_text(advice.base_value)}{unit} "
                "now; each effect is the model re-solved with the change</p>")
        if not advice.recommendations:
            return html + "<p style='margin-left:8px'>No change improves " \
                "the goal.</p>"
        for rank, recommendation in enumerate(advice.recommendations, 1):
            for kind, as_variant in (("apply", False), ("variant", True)):
                self.links[f"{kind}:{rank}"] = (recommendation, as_variant)
            effects = "".join(f"<br>&nbsp;&nbsp;{escape(e)}"
                              for e in effect_text(recommendation))
            html += (f"<p style='margin-left:8px'><b>{rank}. "
                     f"{recommendation.gain_pct:+.1f} %</b> "
                     f"{escape(change_words(recommendation, self.advised))}"
                     f"{effects}<br>"
                     f"<a href='apply:{rank}'>Apply</a> (to the base) · "
                     f"<a href='variant:{rank}'>As variant</a> "
                     "<span style='color:gray'>(both undoable)</span></p>")
        return html

    def _assumptions_section(self):
        """The assumptions that differ between the variants; those every
        variant shares behind a link (all of them with one variant)."""
        shared, specific = self.results.assumptions_by_scope()
        items = [f"<i>{escape(', '.join(names))}</i>: {escape(a)}"
                 for names, a in specific]
        every = self.all_assumptions or len(self.results.variants) == 1
        if every:
            items = [escape(a) for a in shared] + items
        html = "<p><b>Assumptions</b>"
        if len(self.results.variants) > 1 and shared:
            html += (f" — <a href='{ASSUMPTIONS_LINK}'>" + (
                "only those that differ" if every else
                f"show the {len(shared)} every variant shares") + "</a>")
        html += "</p>"
        if not items:
            return html + ("<p style='margin-left:8px'>The variants make "
                           "the same assumptions.</p>")
        return (html + "<ul style='margin-left:-20px'>"
                + "".join(f"<li>{i}</li>" for i in items) + "</ul>")

    def changeEvent(self, event):
        # the severities' colours follow a light or dark palette
        if event.type() == QtCore.QEvent.Type.PaletteChange:
            self._redraw()
        super().changeEvent(event)

    def plain_text(self):
        """Everything the panel shows, as plain text (tests, copy)."""
        return self.browser.toPlainText().replace("\u200b", "")
