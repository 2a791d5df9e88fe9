"""The main window's analysis tabs: one per view of
:data:`app.figures.views.VIEWS` (which the PDF report draws too), made
the first time they are shown."""

from dataclasses import replace

from PySide6 import QtCore, QtWidgets

from app.figures.charts import (cluster_topology, draw_cluster_topology,
                                draw_evacuation_gantt, draw_evacuation_sweep,
                                draw_goodput_vs_mtu, draw_item_bars,
                                draw_metric_bars, draw_policy_peaks,
                                draw_uplink_bars, draw_uplink_series,
                                item_metrics, new_plot_widget,
                                placement_trace, teaming_traces,
                                uplink_trace_after)
from app.figures.views import (BarsView, ClusterView, EvacuationView,
                               GoodputView, TeamingView, evacuation_charts,
                               worst_cluster_case)

# -- tabs of the main window -------------------------------------------------

class DeferredTab:
    """A view's tab whose contents are made the first time they are
    drawn or looked into (``make()`` returns them): a tab holds up to four
    pyqtgraph plots, each tens of ms to create, and most tabs are not on
    screen when the first window is painted. ``widget`` is the page the
    tab widget shows from the start."""

    def __init__(self, make):
        self._make = make
        self._contents = None
        self.widget = QtWidgets.QWidget()
        QtWidgets.QVBoxLayout(self.widget).setContentsMargins(0, 0, 0, 0)

    @property
    def built(self):
        return self._contents is not None

    def show_results(self, results):
        self._made().show_results(results)

    def _made(self):
        if self._contents is None:
            self._contents = self._make()
            self.widget.layout().addWidget(self._contents.widget)
        return self._contents

    def __getattr__(self, name):
        # the contents' parts (plots, pickers), made when asked for
        return getattr(self._made(), name)


#: Variants a chart of the main window draws: the palette's eight colours
#: twice over. More lines or bars tell nothing apart, and cost: a
#: 1,000-variant document spent 55 s of the GUI thread on its goodput
#: chart's legend and curves. The comparison table lists every variant.
MAX_CHARTED_VARIANTS = 16


def charted(results):
    """``(results, note)``: the results with the variants a chart draws
    (the base and the first ones, in the table's order) and, when some
    are left out, a note saying so ('' otherwise)."""
    count = len(results.variants)
    if count <= MAX_CHARTED_VARIANTS:
        return results, ""
    return (replace(results, variants=results.variants[
        :MAX_CHARTED_VARIANTS]),
        f"Charts show the first {MAX_CHARTED_VARIANTS} of {count:,} "
        "variants (base included); the table lists them all.")


def _noted(note):
    """The label that says which variants a tab's charts leave out."""
    note.setWordWrap(True)
    note.setEnabled(False)   # greyed: a note, not a value
    note.hide()
    return note


def _show_note(note, text):
    note.setText(text)
    note.setVisible(bool(text))


class _GoodputTab:
    def __init__(self):
        self.widget = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        self.note = _noted(QtWidgets.QLabel())
        self.plot = new_plot_widget()
        layout.addWidget(self.note)
        layout.addWidget(self.plot, 1)

    def show_results(self, results):
        results, note = charted(results)
        _show_note(self.note, note)
        draw_goodput_vs_mtu(self.plot.getPlotItem(), results)


def _hinted_charts(hint_text, picker=None):
    """A tab of two charts side by side, with a hint shown instead when
    the scenario has nothing to chart (and a picker above them)."""
    widget = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(widget)
    hint = QtWidgets.QLabel(hint_text)
    hint.setWordWrap(True)
    layout.addWidget(hint)
    if picker is not None:
        layout.addLayout(picker)
    charts = QtWidgets.QHBoxLayout()
    plots = (new_plot_widget(), new_plot_widget())
    for plot in plots:
        charts.addWidget(plot)
    layout.addLayout(charts, 1)
    return widget, hint, plots


#: The item picker's first entry: every item, grouped.
EVERY_ITEM = "All ({count})"


class _BarsTab:
    """Bar charts of the view's metrics; with several items (storage
    workloads, transfers, migrations) a picker shows every item grouped,
    or one of them."""

    def __init__(self, view):
        self.view, self.results = view, None
        self.item = QtWidgets.QComboBox()
        self.item.setToolTip("Every item side by side, or one of them")
        self.item.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.item_label = QtWidgets.QLabel("Show")
        picker = QtWidgets.QHBoxLayout()
        picker.addWidget(self.item_label)
        picker.addWidget(self.item)
        picker.addStretch(1)
        self.note = _noted(QtWidgets.QLabel())
        picker.addWidget(self.note, 1)
        self.widget, self.hint, self.plots = _hinted_charts(view.hint,
                                                            picker)
        self.item.currentIndexChanged.connect(self._draw)

    def show_results(self, results):
        results, note = charted(results)
        _show_note(self.note, note)
        self.results = results
        shown = self.view.present(results)
        self.hint.setVisible(not shown)
        names = [name for name, _ in item_metrics(results,
                                                  self.view.bars[0][0])]
        several = shown and len(names) > 1
        self.item.setVisible(several)
        self.item_label.setVisible(several)
        if several:
            previous = self.item.currentText()
            entries = [EVERY_ITEM.format(count=len(names))] + names
            with QtCore.QSignalBlocker(self.item):
                self.item.clear()
                self.item.addItems(entries)
                self.item.setCurrentIndex(max(entries.index(previous)
                                              if previous in entries
                                              else 0, 0))
        for plot in self.plots:
            plot.setVisible(shown)
        if shown:
            self._draw()

    def _draw(self):
        several = self.item.isVisibleTo(self.widget)
        picked = self.item.currentText()
        for plot, (metric_id, label, missing) in zip(self.plots,
                                                     self.view.bars):
            items = item_metrics(self.results, metric_id)
            if several and self.item.currentIndex() == 0:
                draw_item_bars(plot.getPlotItem(), self.results, items,
                               label, missing)
            elif several and picked in dict(items):
                draw_metric_bars(plot.getPlotItem(), self.results,
                                 dict(items)[picked], f"{label}: {picked}",
                                 missing)
            else:
                draw_metric_bars(plot.getPlotItem(), self.results,
                                 metric_id, label, missing)


def _one_variant_tab(tab, view, variant_tip):
    """Start ``tab``, which shows one variant at a time: its widget with
    the view's hint on top, and the picker of the variant (``tab.variant``,
    not yet placed). Returns the widget's layout."""
    tab.view, tab.results = view, None
    tab.widget = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(tab.widget)
    tab.hint = QtWidgets.QLabel(view.hint)
    tab.hint.setWordWrap(True)
    layout.addWidget(tab.hint)
    tab.variant = QtWidgets.QComboBox()
    tab.variant.setToolTip(variant_tip)
    return layout


class _TeamingTab:
    """Per team of the picked variant: each uplink's peak under the
    configured policy with all uplinks or after the worst N-1 (N-k) loss
    (switchable), the optimal placement beside it and the flows each
    uplink carries; the peaks of every policy; and the uplink loads over
    time of a picked policy."""

    def __init__(self, view):
        layout = _one_variant_tab(self, view, "Variant whose teaming is shown")
        pickers = QtWidgets.QHBoxLayout()
        self.state = QtWidgets.QComboBox()
        self.state.setToolTip("All uplinks, or the worst loss of one "
                              "(N-1) or more (N-k) uplinks")
        self.policy = QtWidgets.QComboBox()
        self.policy.setToolTip("Policy whose uplink loads are shown over "
                               "time")
        for label, combo in (("Variant", self.variant),
                             ("Uplinks", self.state)):
            # long policy names must not widen the window beyond 1280 px:
            # the combo shrinks and elides, whole names in the list
            combo.setSizeAdjustPolicy(
                QtWidgets.QComboBox.SizeAdjustPolicy
                .AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)
            pickers.addWidget(QtWidgets.QLabel(label))
            pickers.addWidget(combo, 1)
        layout.addLayout(pickers)
        self.pages = QtWidgets.QTabWidget()
        self.pages.setDocumentMode(True)
        uplinks_page = QtWidgets.QSplitter()
        self.bars_plot = new_plot_widget()
        self.flows = QtWidgets.QTreeWidget()
        self.flows.setHeaderLabels(["Uplink / flow", "Optimum"])
        self.flows.setToolTip("Flows on each uplink at the peak under the "
                              "configured policy; Optimum: the uplink the "
                              "optimal placement gives them")
        self.flows.setMinimumWidth(160)
        self.policy_plot = new_plot_widget()
        for widget in (self.bars_plot, self.flows, self.policy_plot):
            uplinks_page.addWidget(widget)
        self.flows.header().setStretchLastSection(False)
        self.flows.header().setSectionResizeMode(
            0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.flows.header().setSectionResizeMode(
            1, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        # the flows tree wide enough for "dvUplink2 (132 %)" after a loss
        uplinks_page.setSizes([380, 270, 350])
        self.uplink_plot = new_plot_widget()
        # the policy picker on the page it drives: its long names whole
        over_time = QtWidgets.QWidget()
        over_time_layout = QtWidgets.QVBoxLayout(over_time)
        over_time_layout.setContentsMargins(0, 0, 0, 0)
        self.policy.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy
            .AdjustToMinimumContentsLengthWithIcon)
        self.policy.setMinimumContentsLength(12)
        policy_row = QtWidgets.QHBoxLayout()
        policy_row.addWidget(QtWidgets.QLabel("Policy"))
        policy_row.addWidget(self.policy, 1)
        over_time_layout.addLayout(policy_row)
        over_time_layout.addWidget(self.uplink_plot, 1)
        self.pages.addTab(uplinks_page, "Uplinks, N-1 and policies")
        self.pages.addTab(over_time, "Uplink loads over time")
        layout.addWidget(self.pages, 1)
        self.variant.currentIndexChanged.connect(self._draw_variant)
        self.state.currentIndexChanged.connect(self._draw_state)
        self.policy.currentIndexChanged.connect(self._draw_policy)

    def show_results(self, results):
        self.results = results
        shown = self.view.present(results)
        self.hint.setVisible(not shown)
        for widget in (self.pages, self.variant, self.policy, self.state):
            widget.setVisible(shown)
        if not shown:
            return
        _refill_variants(self.variant, results)
        self._draw_variant()

    def _shown_variant(self):
        return self.results.variants[max(self.variant.currentIndex(), 0)]

    def _draw_variant(self):
        variant = self._shown_variant()
        traces, _ = teaming_traces(variant)
        previous = self.policy.currentText()
        with QtCore.QSignalBlocker(self.policy):
            self.policy.clear()
            for trace in traces:
                self.policy.addItem(trace["label"], trace["policy"])
            self.policy.setCurrentIndex(max(self.policy.findText(previous),
                                            0))
        placement = placement_trace(variant)
        previous = self.state.currentIndex()
        with QtCore.QSignalBlocker(self.state):
            self.state.clear()
            for state in (placement or {"states": []})["states"]:
                self.state.addItem(state["label"])
            self.state.setCurrentIndex(
                previous if 0 <= previous < self.state.count() else 0)
        self._draw_state()

    def _lost(self):
        """Uplinks lost in the state picked: 0 (all uplinks), 1 (N-1)…"""
        return max(self.state.currentIndex(), 0)

    def _draw_state(self):
        """The picked state (all uplinks, N-1, N-2) in every view: the
        uplinks' bars, the policies' peaks and the loads over time."""
        variant = self._shown_variant()
        draw_policy_peaks(self.policy_plot.getPlotItem(), variant,
                          self._lost())
        self._draw_policy()
        placement = placement_trace(variant)
        self.flows.clear()
        if placement is None:
            return
        index = self._lost()
        draw_uplink_bars(self.bars_plot.getPlotItem(), placement, index)
        state = placement["states"][index]
        optimal = placement["optimal"]
        best = {} if optimal is None else {
            unit: placement["uplinks"][u]
            for u, units in enumerate(optimal["units"]) for unit in units}
        for uplink, flows, peak in zip(placement["uplinks"], state["flows"],
                                       state["peak_pct"]):
            lost = uplink in state["failed"]
            item = QtWidgets.QTreeWidgetItem(
                [f"{uplink} ({'lost' if lost else f'{peak:.0f} %'})", ""])
            for flow in flows:
                item.addChild(QtWidgets.QTreeWidgetItem(
                    [flow, best.get(flow, "")]))
            self.flows.addTopLevelItem(item)
            item.setExpanded(True)

    def _draw_policy(self):
        traces, _ = teaming_traces(self._shown_variant())
        policy = self.policy.currentData()
        trace = next((t for t in traces if t["policy"] == policy), None)
        shown = None if trace is None else \
            uplink_trace_after(trace, self._lost())
        if shown is not None:
            draw_uplink_series(self.uplink_plot.getPlotItem(), shown)
        else:
            self.uplink_plot.getPlotItem().clear()


class _ClusterTab:
    """One variant's cluster drawn in the case picked (normal operation
    first; the worst case is marked)."""

    def __init__(self, view):
        layout = _one_variant_tab(self, view, "Variant whose cluster is drawn")
        pickers = QtWidgets.QHBoxLayout()
        self.case = QtWidgets.QComboBox()
        self.case.setToolTip("Failure or maintenance case drawn")
        self.case.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        pickers.addWidget(self.variant)
        pickers.addWidget(QtWidgets.QLabel("Case"))
        pickers.addWidget(self.case)
        pickers.addStretch(1)
        layout.addLayout(pickers)
        self.plot = new_plot_widget()
        layout.addWidget(self.plot, 1)
        self.variant.currentIndexChanged.connect(self._refill_cases)
        self.case.currentIndexChanged.connect(self._draw)

    def show_results(self, results):
        self.results = results
        shown = self.view.present(results)
        for widget in (self.variant, self.case, self.plot):
            widget.setVisible(shown)
        self.hint.setVisible(not shown)
        if not shown:
            return
        _refill_variants(self.variant, results)
        self._refill_cases()

    def _trace(self):
        variant = self.results.variants[max(self.variant.currentIndex(), 0)]
        return cluster_topology(variant)

    def _refill_cases(self):
        trace = self._trace()
        previous = self.case.currentText().removesuffix(WORST_MARK)
        names = [] if trace is None else list(trace["cases"])
        if names:
            names[worst_cluster_case(trace)] += WORST_MARK
        with QtCore.QSignalBlocker(self.case):
            self.case.clear()
            self.case.addItems(names)
            bare = [n.removesuffix(WORST_MARK) for n in names]
            self.case.setCurrentIndex(bare.index(previous)
                                      if previous in bare else 0)
        self._draw()

    def _draw(self):
        trace = self._trace()
        if trace is None:
            self.plot.getPlotItem().clear()
            return
        draw_cluster_topology(self.plot.getPlotItem(), trace,
                              max(self.case.currentIndex(), 0))


#: Appended to the worst case's name in the case picker.
WORST_MARK = " (worst)"


class _EvacuationTab:
    """The schedule of one variant's (picked) first evacuation."""

    def __init__(self, view):
        layout = _one_variant_tab(self, view,
                                  "Variant whose schedule is shown")
        layout.addWidget(self.variant)
        charts = QtWidgets.QHBoxLayout()
        self.plot = new_plot_widget()
        self.sweep_plot = new_plot_widget()
        self.sweep_plot.setToolTip(
            "Total time of the configured order at each concurrency the "
            "platform allows; red points leave VMs unconverged")
        charts.addWidget(self.plot, 2)
        charts.addWidget(self.sweep_plot, 1)
        layout.addLayout(charts, 1)
        self.variant.currentIndexChanged.connect(self._draw_variant)

    def show_results(self, results):
        self.results = results
        shown = self.view.present(results)
        self.hint.setVisible(not shown)
        self.variant.setVisible(shown)
        self.plot.setVisible(shown)
        self.sweep_plot.setVisible(shown)
        if not shown:
            return
        _refill_variants(self.variant, results)
        self._draw_variant()

    def _draw_variant(self):
        variant = self.results.variants[max(self.variant.currentIndex(), 0)]
        evacuations = evacuation_charts(variant)
        if evacuations:
            schedule, sweep, used = evacuations[0]
            draw_evacuation_gantt(self.plot.getPlotItem(), *schedule)
            draw_evacuation_sweep(self.sweep_plot.getPlotItem(), sweep[1],
                                  used)


def _refill_variants(combo, results):
    """The variant picker lists the results' variants and keeps the one
    chosen before, if it still exists, without signalling the change."""
    previous = combo.currentIndex()
    names = [v.name for v in results.variants]
    with QtCore.QSignalBlocker(combo):
        combo.clear()
        combo.addItems(names)
        combo.setCurrentIndex(previous if 0 <= previous < len(names) else 0)


#: The tab each kind of view shows in the main window.
_TABS = {
    GoodputView: lambda view: _GoodputTab(),
    BarsView: lambda view: _BarsTab(view),
    TeamingView: lambda view: _TeamingTab(view),
    EvacuationView: lambda view: _EvacuationTab(view),
    ClusterView: lambda view: _ClusterTab(view),
}


def tab_of(view):
    """A new main-window tab of ``view`` (one of :data:`VIEWS`)."""
    return _TABS[type(view)](view)
