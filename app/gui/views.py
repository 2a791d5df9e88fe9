"""One view per analysis, declared once: its tab in the main window and its
sections in the PDF report.

A view says what its analysis is called, what to show when the scenario
has none of it, how to tell that the results carry it, and which charts
draw it (the functions of :mod:`app.gui.charts`). The main window builds
one tab per entry of :data:`VIEWS`, in order; the report draws the same
entries' sections in the same order. A new analysis adds one entry here.
"""

from dataclasses import dataclass, replace
from typing import Callable

from PySide6 import QtCore, QtWidgets

from app.gui.charts import (GANTT_LABELLED_ROWS, cluster_topology,
                            draw_cluster_topology, draw_evacuation_gantt,
                            draw_evacuation_sweep, draw_goodput_vs_mtu,
                            draw_item_bars,
                            draw_metric_bars, item_metrics,
                            draw_policy_peaks, draw_uplink_bars,
                            draw_uplink_series, evacuation_schedules,
                            has_metric, new_plot_widget, placement_trace,
                            teaming_traces, uplink_trace_after)
from solvers import metric_ids

#: Width of a chart's canvas in the report [px]; heights are given for it
#: (close to the printed width, so text keeps its size).
REPORT_CHART_WIDTH = 760


def _bar_chart_height(rows):
    """Canvas height of a horizontal bar chart [px]: axis room plus one
    band per bar."""
    return 60 + 34 * rows


@dataclass(frozen=True)
class ReportChart:
    """A chart of the report: ``draw(plot_item)`` and its canvas height."""

    draw: Callable
    height: int


@dataclass(frozen=True)
class ReportSection:
    heading: str
    charts: tuple
    caption: str = ""


# -- views -------------------------------------------------------------------

@dataclass(frozen=True)
class GoodputView:
    """Goodput against MTU, for every scenario (the wire analysis always
    runs)."""

    key: str
    title: str
    heading: str
    caption: str

    def present(self, results):
        return True

    def tab(self):
        return _GoodputTab()

    def report_sections(self, results):
        # a storage, teaming or migration question is answered by its own
        # charts: the wire chart only where the wire is the question
        # (transfers, or nothing else to chart)
        others = [v for v in VIEWS if v is not self and v.present(results)]
        if others and not has_metric(results, "host.throughput_gbps"):
            return []
        return [ReportSection(self.heading, (ReportChart(
            lambda plot: draw_goodput_vs_mtu(plot, results), 420),),
            self.caption)]


@dataclass(frozen=True)
class BarsView:
    """Bar charts of metrics, one bar per variant; shown when the results
    carry ``present_metric``."""

    key: str
    title: str
    heading: str
    hint: str
    present_metric: str
    #: (metric id, axis label, text for a variant without the metric or
    #: None to leave it out), one chart each
    bars: tuple

    def present(self, results):
        return has_metric(results, self.present_metric)

    def tab(self):
        return _BarsTab(self)

    def report_sections(self, results):
        if not self.present(results):
            return []
        height = _bar_chart_height(len(results.variants))
        return [ReportSection(self.heading, tuple(
            ReportChart(lambda plot, bar=bar: draw_metric_bars(
                plot, results, *bar), height) for bar in self.bars))]


@dataclass(frozen=True)
class TeamingView:
    """Policies compared against the optimum, and uplink loads over time,
    for each variant with flows on a team."""

    key: str
    title: str
    hint: str

    def present(self, results):
        return any(teaming_traces(v)[0] for v in results.variants)

    def tab(self):
        return _TeamingTab(self)

    def report_sections(self, results):
        sections = []
        for variant in results.variants:
            traces, _ = teaming_traces(variant)
            if traces:
                charts = [ReportChart(lambda plot, v=variant:
                                      draw_policy_peaks(plot, v),
                                      _bar_chart_height(len(traces)))]
                placement = placement_trace(variant)
                if placement is not None:
                    # healthy and the worst single loss (N-1)
                    charts += [ReportChart(
                        lambda plot, p=placement, s=state:
                        draw_uplink_bars(plot, p, s),
                        _bar_chart_height(len(placement["uplinks"])) + 20)
                        for state in range(min(2, len(placement["states"])))]
                charts.append(ReportChart(lambda plot, t=traces[0]:
                                          draw_uplink_series(plot, t), 300))
                sections.append(ReportSection(f"Teaming: {variant.name}",
                                              tuple(charts)))
        return sections


@dataclass(frozen=True)
class EvacuationView:
    """Gantt chart of each evacuation's schedule, per variant."""

    key: str
    title: str
    hint: str
    caption: str

    def present(self, results):
        return any(evacuation_schedules(v) for v in results.variants)

    def tab(self):
        return _EvacuationTab(self)

    def report_sections(self, results):
        return [ReportSection(
            f"Evacuation {name}: {variant.name}", (ReportChart(
                lambda plot, n=name, t=trace: draw_evacuation_gantt(
                    plot, n, t),
                80 + 14 * min(len(trace["vm"]), GANTT_LABELLED_ROWS)),
                ReportChart(lambda plot, t=sweep, u=used:
                            draw_evacuation_sweep(plot, t, u), 200)),
            self.caption)
            for variant in results.variants
            for (name, trace), (_, sweep), used in _evacuations(variant)]


@dataclass(frozen=True)
class ClusterView:
    """The cluster's hosts, switches and links drawn coloured by
    utilisation, one failure or maintenance case at a time."""

    key: str
    title: str
    hint: str

    def present(self, results):
        return any(cluster_topology(v) for v in results.variants)

    def tab(self):
        return _ClusterTab(self)

    def report_sections(self, results):
        """The base in normal operation and in its worst case, then each
        variant's worst case where its loads differ from the base's (a
        page per variant would make a four-variant study eight pages)."""
        drawn = []
        for index, variant in enumerate(results.variants):
            trace = cluster_topology(variant)
            if trace is None:
                continue
            worst = worst_cluster_case(trace)
            cases = sorted({0, worst}) if index == 0 else [worst]
            for case in cases:
                loads = (trace["link_pct"][case], trace["uplink_pct"][case])
                if any(loads == shown for _, _, _, shown in drawn):
                    continue
                drawn.append((variant.name, trace, case, loads))
        if not drawn:
            return []
        return [ReportSection(
            "Cluster fabric: normal operation and each variant's worst "
            "case", tuple(
                ReportChart(lambda plot, t=trace, c=case:
                            draw_cluster_topology(plot, t, c),
                            TOPOLOGY_CHART_HEIGHT)
                for _, trace, case, _ in drawn),
            "In order: " + "; ".join(
                f"{name}, {trace['cases'][case]}"
                for name, trace, case, _ in drawn) + ". Host links (below) "
            "and switch uplinks (above), blue up to 70 %, amber to 100 %, "
            "red above; dotted: down.")]


#: Canvas height of a topology drawing in the report [px].
TOPOLOGY_CHART_HEIGHT = 260


def worst_cluster_case(trace):
    """Index of the case whose busiest link (host link or uplinks) is the
    most loaded."""
    worst = [max(max((max(row) for row in hosts), default=0.0),
                 max(uplinks, default=0.0))
             for hosts, uplinks in zip(trace["link_pct"],
                                       trace["uplink_pct"])]
    return int(max(range(len(worst)), key=worst.__getitem__))


def _evacuations(variant):
    """Each evacuation's schedule, concurrency sweep and the concurrency
    it runs at."""
    return [(schedule, sweep, variant.metric(
        metric_ids.evacuation(schedule[0], "concurrency")).value)
        for schedule, sweep in zip(
            evacuation_schedules(variant),
            evacuation_schedules(variant, "concurrency_sweep"))]


#: Every analysis view, in tab (and report) order.
VIEWS = (
    GoodputView(
        "wire", "Wire & MTU", "Goodput versus MTU",
        "Lines: each variant's settings over the whole MTU range; dots: the "
        "variant's own MTU."),
    BarsView(
        "transfer", "Transport & CPU", "Transfer throughput and host CPU",
        "This scenario defines no transfer (workloads.transfers): add one to "
        "compare transports, teaming and CPU.",
        "host.throughput_gbps",
        (("host.throughput_gbps", "Throughput [Gbit/s]", None),
         ("host.cpu_pct", "Host CPU [%]", None))),
    BarsView(
        "migration", "Live migration", "Live migration: time and downtime",
        "This scenario defines no live migration (workloads.migrations): add "
        "one to see its time, downtime and convergence.",
        "migration.converged",
        (("migration.total_s", "Migration time [s]", "does not converge"),
         ("migration.downtime_s", "Downtime [s]", "does not converge"))),
    TeamingView(
        "teaming", "Teaming",
        "This scenario defines no flows on a team (workloads.flows, teams): "
        "add them to compare teaming policies, the optimum and N-1."),
    BarsView(
        "storage", "Storage", "Storage: IOPS and latency",
        "This scenario defines no storage workload (workloads.storage): add "
        "one to see IOPS, latency and what limits them.",
        "storage.iops",
        (("storage.iops", "Storage IOPS [1/s]", None),
         ("storage.latency_ms", "Storage latency [ms]", None))),
    EvacuationView(
        "evacuation", "Evacuation",
        "This scenario defines no evacuation (workloads.evacuations): add "
        "one to see how long emptying the host takes.",
        "Bars: each VM's migration from start to end, in start order; red: "
        "it does not converge; lighter: its disk copy, where the disks are "
        "copied. Line: the total time at each concurrency the "
        "platform allows; red points leave VMs unconverged."),
    BarsView(
        "cluster", "Cluster", "Cluster: links by failure case",
        "This scenario defines no cluster (cluster: host groups, switches, "
        "traffic classes): add one to see every link in normal operation "
        "and after a host, switch or link fails.",
        "cluster.worst_peak_util_pct",
        (("cluster.peak_util_pct", "Busiest host link by case [%]", None),
         ("cluster.uplink_util_pct", "Busiest switch uplinks by case [%]",
          None))),
    ClusterView(
        "cluster_fabric", "Fabric",
        "This scenario defines no cluster: add a cluster section (host "
        "groups, switches, traffic classes) to see its hosts, switches and "
        "links coloured by utilisation in each failure case."),
)


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


class _TeamingTab:
    """Per team of the picked variant: each uplink's peak under the
    configured policy with all uplinks or after the worst N-1 (N-k) loss
    (switchable), the optimal placement beside it and the flows each
    uplink carries; the peaks of every policy; and the uplink loads over
    time of a picked policy."""

    def __init__(self, view):
        self.view, self.results = view, None
        self.widget = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(self.widget)
        self.hint = QtWidgets.QLabel(view.hint)
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        pickers = QtWidgets.QHBoxLayout()
        self.variant = QtWidgets.QComboBox()
        self.variant.setToolTip("Variant whose teaming is shown")
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
        self.view, self.results = view, None
        self.widget = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(self.widget)
        self.hint = QtWidgets.QLabel(view.hint)
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        pickers = QtWidgets.QHBoxLayout()
        self.variant = QtWidgets.QComboBox()
        self.variant.setToolTip("Variant whose cluster is drawn")
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
        self.view, self.results = view, None
        self.widget = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(self.widget)
        self.hint = QtWidgets.QLabel(view.hint)
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        self.variant = QtWidgets.QComboBox()
        self.variant.setToolTip("Variant whose schedule is shown")
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
        evacuations = _evacuations(variant)
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
