"""The binding-limit and findings panel: per variant, the limit that
binds with the numbers that produced it, the findings grouped by severity
with their evidence, the recommendations with their re-evaluated effect
and an Apply button (to the base or as a new variant), and the
assumptions."""

import re
from html import escape

from PySide6 import QtCore, QtGui, QtWidgets

from solvers import metric_ids
from solvers.results import format_number

#: Severities in the order they are listed, with their colour.
SEVERITIES = (("critical", "#B00020"), ("warning", "#B35900"),
              ("info", "#1f5a8a"))

#: A dot inside a parameter path or metric id (not a decimal point).
_PATH_DOT = re.compile(r"\.(?=[A-Za-z_\[])")

#: Most intermediate values listed under the binding limit: the headline
#: numbers of its analysis, not every per-item repeat.
CALCULATION_ROWS = 12


def calculation(variant):
    """The numbers behind a variant's binding limit: ``(label, value,
    unit)`` of the headline metrics of the analysis that named it (for a
    teaming limit, the team's configured and optimal figures)."""
    family = variant.bottleneck.id.partition(".")[0]
    rows = []
    for metric in variant.metrics:
        try:
            parsed = metric_ids.parse(metric.id)
        except ValueError:
            continue
        if parsed.family != family:
            continue
        if family != "teaming" and parsed.name is not None:
            continue
        rows.append((metric.label.replace(" (1 yes, 0 no)", ""),
                     shown_value(metric), metric.unit))
    return rows[:CALCULATION_ROWS]


def shown_value(metric):
    """A metric's value as the panel shows it: yes/no for a flag."""
    if metric.label.endswith("(1 yes, 0 no)"):
        return "yes" if metric.value else "no"
    return format_number(metric.value)


def evidence_text(evidence):
    """A finding's evidence in words: its metric's value against the
    threshold, with the unit."""
    metric_id = evidence.get("metric")
    value, threshold = evidence.get("value"), evidence.get("threshold")
    if metric_id is None or value is None:
        return ""
    try:
        unit, label = metric_ids.info(metric_id)
    except (KeyError, ValueError):
        unit, label = "", metric_id
    unit = "" if unit in ("1", "") else f" {unit}"
    text = f"{label}: {_shown(value, unit)}"
    if threshold is not None:
        text += f" against {_shown(threshold, unit)}"
    return text


def _shown(value, unit):
    """A number with its unit; a setting (``'vrss'``, a flag) as it is."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{format_number(float(value))}{unit}"
    return str(value)


def effect_text(recommendation):
    """A recommendation's re-evaluated effect, one metric per line."""
    lines = []
    for metric_id, effect in recommendation.effect.items():
        try:
            label = metric_ids.info(metric_id)[1]
        except (KeyError, ValueError):
            label = metric_id
        unit = "" if effect["unit"] in ("1", "") else f" {effect['unit']}"
        change = effect.get("change_pct")
        change = "" if change is None else f" ({change:+.1f} %)"
        lines.append(f"{label}: {format_number(effect['before'])} → "
                     f"{format_number(effect['after'])}{unit}{change}")
    return lines


def change_text(recommendation):
    return "; ".join(f"{path}: {c['old']!r} → {c['new']!r}"
                     for path, c in recommendation.change.items())


class FindingsPanel(QtWidgets.QWidget):
    """Shows one variant's verdict (picked) and the base's
    recommendations; ``apply_requested(recommendation, as_variant)`` asks
    the window to apply one."""

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
        self.scroll = QtWidgets.QScrollArea()
        self.scroll.setWidgetResizable(True)
        # the text wraps to the panel's width instead
        self.scroll.setHorizontalScrollBarPolicy(
            QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        layout.addWidget(self.scroll, 1)
        self.apply_buttons = []     # (button, recommendation, as_variant)
        self._content = None

    # -- input -------------------------------------------------------------

    def show_results(self, results):
        self.results = results
        names = [v.name for v in results.variants]
        previous = self.variant.currentText()
        with QtCore.QSignalBlocker(self.variant):
            self.variant.clear()
            self.variant.addItems(names)
            self.variant.setCurrentIndex(names.index(previous)
                                         if previous in names else 0)
        self._redraw()

    def show_advice(self, advice, note=""):
        """The base's recommendations (an AdviceResult), or None with why
        there are none (``note``)."""
        self.advice, self.advice_note = advice, note
        self._redraw()

    # -- drawing -----------------------------------------------------------

    def selected_variant(self):
        if self.results is None:
            return None
        return self.results.variants[max(self.variant.currentIndex(), 0)]

    def _redraw(self):
        variant = self.selected_variant()
        if variant is None:
            return
        content = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(content)
        layout.setContentsMargins(6, 4, 6, 4)
        self.apply_buttons = []
        self._limit_section(layout, variant)
        self._findings_section(layout, variant)
        self._advice_section(layout)
        self._assumptions_section(layout)
        layout.addStretch(1)
        self.scroll.setWidget(content)   # deletes the previous content
        self._content = content

    @staticmethod
    def _label(html, layout, indent=0):
        # parameter paths and metric ids have no spaces: a zero-width
        # space after each dot lets them wrap to the panel's width
        label = QtWidgets.QLabel(_PATH_DOT.sub(".\u200b", html))
        label.setWordWrap(True)
        label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setContentsMargins(indent, 0, 0, 0)
        layout.addWidget(label)
        return label

    def _limit_section(self, layout, variant):
        self._label("<b>Binding limit</b>", layout)
        self._label(escape(variant.bottleneck.message), layout, 8)
        rows = calculation(variant)
        if rows:
            self._label("<span style='color:gray'>Calculation</span>",
                        layout, 8)
            grid = QtWidgets.QGridLayout()
            grid.setContentsMargins(16, 0, 0, 0)
            grid.setHorizontalSpacing(10)
            grid.setVerticalSpacing(1)
            for row, (label, value, unit) in enumerate(rows):
                name = QtWidgets.QLabel(label)
                name.setWordWrap(True)
                number = QtWidgets.QLabel(
                    f"{value} {'' if unit == '1' else unit}".rstrip())
                number.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                                    | QtCore.Qt.AlignmentFlag.AlignTop)
                grid.addWidget(name, row, 0)
                grid.addWidget(number, row, 1)
            grid.setColumnStretch(0, 1)
            layout.addLayout(grid)

    def _findings_section(self, layout, variant):
        if not variant.findings:
            self._label("<b>Findings</b>: none", layout)
            return
        self._label("<b>Findings</b>", layout)
        for severity, colour in SEVERITIES:
            found = [f for f in variant.findings if f.severity == severity]
            if not found:
                continue
            self._label(f"<span style='color:{colour}'><b>"
                        f"{severity.capitalize()} ({len(found)})</b></span>",
                        layout, 8)
            for finding in found:
                evidence = evidence_text(finding.evidence)
                self._label(
                    f"{escape(finding.message)}" + (
                        f"<br><span style='color:gray'>Evidence: "
                        f"{escape(evidence)}</span>" if evidence else ""),
                    layout, 16)

    def _advice_section(self, layout):
        advice = self.advice
        if advice is None:
            self._label("<b>Recommendations (base)</b>: "
                        + escape(self.advice_note or "none"), layout)
            return
        self._label(
            f"<b>Recommendations (base)</b> — goal {escape(advice.goal)}: "
            f"{escape(advice.metric)} = {format_number(advice.base_value)} "
            "now; each effect is the model re-solved with the change",
            layout)
        if not advice.recommendations:
            self._label("No change improves the goal.", layout, 8)
        for rank, recommendation in enumerate(advice.recommendations, 1):
            box = QtWidgets.QFrame()
            box.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
            row = QtWidgets.QHBoxLayout(box)
            row.setContentsMargins(6, 4, 6, 4)
            text = QtWidgets.QVBoxLayout()
            self._label(f"<b>{rank}. {recommendation.gain_pct:+.1f} %</b> "
                        f"{escape(change_text(recommendation))}", text)
            effects = effect_text(recommendation)
            if effects:
                self._label("<br>".join(escape(e) for e in effects), text, 8)
            row.addLayout(text, 1)
            buttons = QtWidgets.QVBoxLayout()
            for caption, as_variant, tip in (
                    ("Apply", False, "Change the base (undoable)"),
                    ("As variant", True, "Add a variant with this change "
                     "(undoable)")):
                button = QtWidgets.QPushButton(caption)
                button.setToolTip(tip)
                button.clicked.connect(
                    lambda _=False, r=recommendation, v=as_variant:
                    self.apply_requested.emit(r, v))
                buttons.addWidget(button)
                self.apply_buttons.append((button, recommendation,
                                           as_variant))
            buttons.addStretch(1)
            row.addLayout(buttons)
            layout.addWidget(box)

    def _assumptions_section(self, layout):
        shared, specific = self.results.assumptions_by_scope()
        items = [escape(a) for a in shared] + [
            f"<i>{escape(', '.join(names))}</i>: {escape(a)}"
            for names, a in specific]
        self._label("<b>Assumptions</b><ul style='margin-left:-20px'>"
                    + "".join(f"<li>{i}</li>" for i in items) + "</ul>",
                    layout)

    def plain_text(self):
        """Everything the panel shows, as plain text (tests, copy)."""
        if self._content is None:
            return ""
        lines = []
        for label in self._content.findChildren(QtWidgets.QLabel):
            document = QtGui.QTextDocument()
            document.setHtml(label.text())
            lines.append(document.toPlainText().replace("\u200b", ""))
        return "\n".join(lines)
