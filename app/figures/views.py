"""One view per analysis, declared once: its tab in the main window
(:mod:`app.gui.views` makes the widgets) and its sections in the PDF
report.

A view says what its analysis is called, what to show when the scenario
has none of it, how to tell that the results carry it, and which charts
draw it (the functions of :mod:`app.figures.charts`). The main window
builds one tab per entry of :data:`VIEWS`, in order; the report draws the
same entries' sections in the same order. A new analysis adds one entry
here (and its tab's kind in :mod:`app.gui.views`).
"""

from dataclasses import dataclass
from typing import Callable

from app.figures.charts import (GANTT_LABELLED_ROWS, cluster_topology,
                                draw_cluster_topology, draw_evacuation_gantt,
                                draw_evacuation_sweep, draw_goodput_vs_mtu,
                                draw_metric_bars, draw_policy_peaks,
                                draw_uplink_bars, draw_uplink_series,
                                evacuation_schedules, has_metric,
                                placement_trace, teaming_traces)
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

    #: drawn for every scenario, the background of the others: the report
    #: leaves it out where another view (or several variants) has the
    #: question unless its curves differ
    background = True
    per_variant = False
    shrinks = False

    def present(self, results):
        return True


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

    background = False
    per_variant = False
    shrinks = False

    def present(self, results):
        return has_metric(results, self.present_metric)


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

    background = False
    #: its sections are per variant (the report draws fewer variants)
    per_variant = True
    shrinks = False

    def present(self, results):
        return any(teaming_traces(v)[0] for v in results.variants)


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

    background = False
    per_variant = True
    #: a Gantt keeps its rows legible on a shorter canvas
    shrinks = True

    def present(self, results):
        return any(evacuation_schedules(v) for v in results.variants)


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
            for (name, trace), (_, sweep), used in evacuation_charts(variant)]


@dataclass(frozen=True)
class ClusterView:
    """The cluster's hosts, switches and links drawn coloured by
    utilisation, one failure or maintenance case at a time."""

    key: str
    title: str
    hint: str

    background = False
    per_variant = False
    shrinks = False

    def present(self, results):
        return any(cluster_topology(v) for v in results.variants)


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


def evacuation_charts(variant):
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

#: Views whose charts page 1 of the report shows, by preference.
KEY_VIEWS = ("teaming", "evacuation", "migration", "storage", "wire",
             "transfer")
