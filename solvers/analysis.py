"""The contract every analysis follows (the registry that finds them is
:func:`solvers.analyses.registry`).

An analysis is a module of :mod:`solvers.analyses` that declares itself
once, in its header, as ``ANALYSIS = Analysis(...)`` (:class:`Analysis`:
its name, order, requirements, the fields it reads, its metric catalogue,
the validated models behind it, the goals it serves and the views that
show it); every central table (metric units and labels, headline roll-ups,
provenance, goals) is derived from these declarations
(:mod:`solvers.metric_ids`). Beside it the module defines

- ``analyse(inputs, upstream, *, details=True) -> list[AnalysisResult]``,
  one result per document of the :class:`solvers.inputs.Inputs`;
  ``upstream`` maps each required name to its results; ``details=False``
  asks for metrics only (sweeps and searches);
- optionally ``analyse_columns(inputs, upstream) -> ColumnResult``: the
  metrics of the points of a :class:`solvers.columns.TiledInputs` (one
  template, column fields set per point) as one array per metric id,
  without a dict per point; ``upstream`` maps each required name to its
  :class:`ColumnResult`. Sweeps and searches call it; an analysis with
  ``inputs`` families but without it is run per point and its dicts
  turned into columns, so a new analysis works on the column path before
  it has one;
- optionally ``candidates(doc, goal, base) -> iterable of Candidate``: the
  changes it proposes for a document whose evaluated result is ``base``
  (:mod:`solvers.advise` re-evaluates and ranks them).

A new analysis is one new module in :mod:`solvers.analyses` plus its
model and its schema fields: the registry finds it, nothing else is
registered by hand (docs/architecture.md, "Adding an analysis").
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from models.scenario import parse_path
from solvers.results import Bottleneck, Finding

#: status values of an :class:`AnalysisResult`.
EVALUATED, NOT_APPLICABLE = 0, 1

#: What a metric is (:attr:`Metric.kind`): a measured or computed amount,
#: a whole number of things, a yes (1) / no (0) answer, or a verdict
#: that decides the question (a margin against its limit).
QUANTITY, COUNT, FLAG, VERDICT = "quantity", "count", "flag", "verdict"
KINDS = (QUANTITY, COUNT, FLAG, VERDICT)
#: Which way a metric is better (:attr:`Metric.better`).
HIGHER, LOWER, NEITHER = "higher", "lower", "none"
BETTER = (HIGHER, LOWER, NEITHER)
#: Units a metric may carry (the faces convert and print these).
UNITS = frozenset({"Gbit/s", "MB/s", "%", "%/(Gbit/s)", "1/s", "B", "GiB",
                   "s", "ms", "cores", "x", "1"})
#: How a headline ``<analysis>.<key>`` relates to its items
#: (:attr:`Items.headline`): it repeats the first item's value, or
#: sums the items (the worst for a latency).
FIRST, SUMMED = "first", "summed"


#: What a sweep along one axis marks (:attr:`SweepMark.kind`): where a
#: metric turns positive or back (a flag flipping), where it first reaches
#: another metric, a line at its largest value on charts of its unit.
TURNS, REACHES, TOPS = "turns", "reaches", "tops"
MARKS = (TURNS, REACHES, TOPS)


@dataclass(frozen=True)
class Metric:
    """One entry of an analysis's metric catalogue.

    Attributes
    ----------
    key : str
        The last part of its ids (``throughput_gbps``); sets unit and label
        wherever the key appears.
    unit : str
        One of :data:`UNITS`.
    label : str or None
        What an item's metric is called (``transfer.lm.<key>`` reads
        "lm: <label>"); None for a key that only heads the analysis.
    headline : str or None
        The full label of the headline ``<analysis>.<key>`` when it has
        one of its own ("Host: CPU"); else a headline reads the label
        after the analysis's :attr:`Analysis.headline_prefix`.
    kind : str
        One of :data:`KINDS`.
    better : str
        One of :data:`BETTER`.
    """

    key: str
    unit: str
    label: str | None
    headline: str | None = None
    kind: str = QUANTITY
    better: str = NEITHER


@dataclass(frozen=True)
class Items:
    """A family of per-item metric ids, ``<name>.<item>.<key>``.

    Attributes
    ----------
    name : str
        ``transfer``, ``uplink``, ``migration`` ...
    headline : str or None
        :data:`FIRST` when the analysis's headline ``<analysis>.<key>``
        repeats the first item's value, :data:`SUMMED` when it sums the
        items, None when the items have no headline.
    areas : tuple of str or None
        Validation areas behind these items when they differ from the
        analysis's (an uplink's load is the teaming cases' quantity).
    """

    name: str
    headline: str | None = None
    areas: tuple | None = None


@dataclass(frozen=True)
class SweepMark:
    """A mark a one-axis sweep chart draws from an analysis's headline.

    Attributes
    ----------
    label : str
        The mark's words ("convergence boundary").
    key : str
        The headline ``<analysis>.<key>`` it reads.
    kind : str
        One of :data:`MARKS`.
    reaches : str or None
        :data:`REACHES`: the key of the headline it reaches.
    """

    label: str
    key: str
    kind: str
    reaches: str | None = None


@dataclass(frozen=True)
class Goal:
    """A goal an analysis measures (the keys of ``models.scenario.GOALS``).

    Attributes
    ----------
    kind : str
        The goal's name, e.g. ``max_throughput``.
    metric : str
        The metric id it ranks by.
    sense : str
        ``max`` or ``min``.
    context : tuple of str
        Metric ids advice reports beside it.
    asks : callable
        ``asks(document) -> bool``: whether the document has what the goal
        measures.
    rank : int or None
        Where it stands when advice picks a goal for a document without
        one (lowest first among those the document asks); None: never
        picked so.
    """

    kind: str
    metric: str
    sense: str
    asks: Callable
    context: tuple = ()
    rank: int | None = None


@dataclass(frozen=True)
class Analysis:
    """Everything the rest of Linkplan knows about one analysis, declared
    in the analysis's module as ``ANALYSIS``.

    Attributes
    ----------
    name : str
        Its metric family (``wire``, ``host`` ...): headlines are
        ``<name>.<key>``.
    order : int
        Where its metrics, findings, assumptions and traces stand in a
        variant's result (and when it runs: after what it ``requires``).
    bottleneck_priority : int
        Which analysis names the binding limit when several offer one
        (lowest wins).
    module : str
        The module that defines ``analyse`` (and optionally
        ``analyse_columns`` and ``candidates``): pass ``__name__``.
    requires : tuple of str
        Names of the analyses whose results it reads.
    reads : tuple of str or None
        Every document field it (and the :class:`solvers.inputs.Inputs`
        families it asks for) may read, as paths: a section (``"host"``)
        or a field of ``workloads`` (``"workloads.flows"``). An editing
        session keys its results on these (:mod:`solvers.analysis_cache`);
        None keys them on the whole document. A field read but not listed
        hands back stale results (tests/solvers/test_analysis_cache.py).
    inputs : tuple of str or None
        The :class:`solvers.inputs.Inputs` families it reads with
        ``details=False``, when those (and its upstream) are all it reads
        besides fields no column sweep varies: a column sweep then runs it
        on the column-set families of many points at once; None runs it
        once per template document.
    column_reads : tuple of str or None
        Without ``inputs``: the column fields it reads from its documents
        (a column sweep runs it once per distinct combination of their
        values); None means its ``reads``.
    metrics : tuple of Metric
        Its metric catalogue.
    headline : str
        The key of its main number (a :class:`Metric` of ``metrics``).
    headline_prefix : str or None
        How a headline without a label of its own is labelled
        ("Migration: " + the item label).
    items : tuple of Items
        Its families of per-item ids.
    models : tuple of str
        The model modules its values come from.
    areas : tuple of str
        The validation areas (a case's ``area``) whose cases test them.
    goals : tuple of Goal
    views : tuple of str
        Keys of the GUI tabs and report sections that show it
        (``app.gui.views.VIEWS``).
    sweep_axes : tuple of str
        Document paths a Sweep tab starts on when the question is its own
        (the input the question turns on), the first the document has.
    sweep_marks : tuple of SweepMark
        What a one-axis sweep chart marks from its headlines.
    """

    name: str
    order: int
    bottleneck_priority: int
    module: str
    requires: tuple = ()
    reads: tuple | None = None
    inputs: tuple | None = None
    column_reads: tuple | None = None
    metrics: tuple = ()
    headline: str = ""
    headline_prefix: str | None = None
    items: tuple = ()
    models: tuple = ()
    areas: tuple = ()
    goals: tuple = ()
    views: tuple = ()
    sweep_axes: tuple = ()
    sweep_marks: tuple = ()

    def __post_init__(self):
        where = f"analysis {self.name!r} ({self.module})"
        keys = [m.key for m in self.metrics]
        doubled = sorted({k for k in keys if keys.count(k) > 1})
        if doubled:
            raise ValueError(f"{where}: metric key(s) {doubled} declared "
                             "twice")
        for m in self.metrics:
            if m.unit not in UNITS:
                raise ValueError(f"{where}: metric {m.key!r} has unit "
                                 f"{m.unit!r}, not one of {sorted(UNITS)}")
            if m.kind not in KINDS or m.better not in BETTER:
                raise ValueError(f"{where}: metric {m.key!r}: kind "
                                 f"{m.kind!r} / better {m.better!r} not "
                                 f"in {KINDS} / {BETTER}")
            if m.label is None and m.headline is None:
                raise ValueError(f"{where}: metric {m.key!r} has no label")
        if self.headline not in keys:
            raise ValueError(f"{where}: headline {self.headline!r} is not "
                             "in its metrics")
        for mark in self.sweep_marks:
            if mark.kind not in MARKS or mark.key not in keys or \
                    (mark.kind == REACHES) != (mark.reaches in keys):
                raise ValueError(f"{where}: sweep mark {mark.label!r} must "
                                 f"be one of {MARKS} of its own metrics")
        for item in self.items:
            if item.headline not in (None, FIRST, SUMMED):
                raise ValueError(f"{where}: items {item.name!r}: headline "
                                 f"{item.headline!r} is not {FIRST!r}, "
                                 f"{SUMMED!r} or None")
        for goal in self.goals:
            if goal.sense not in ("max", "min") or \
                    goal.metric.partition(".")[0] != self.name:
                raise ValueError(f"{where}: goal {goal.kind!r} must rank "
                                 f"by max or min one of its own metrics "
                                 f"(got {goal.sense!r} {goal.metric!r})")

    @property
    def code(self):
        """The module that defines its functions (looked up on each use,
        so a test may replace one)."""
        return importlib.import_module(self.module)

    def analyse(self, inputs, upstream, *, details=True):
        """Its ``analyse`` (see the module docstring)."""
        return self.code.analyse(inputs, upstream, details=details)

    @property
    def analyse_columns(self):
        """Its ``analyse_columns``, or None when it has none."""
        return getattr(self.code, "analyse_columns", None)

    @property
    def candidates(self):
        """Its ``candidates``, or None when it proposes no changes."""
        return getattr(self.code, "candidates", None)

    def metric(self, key):
        """The :class:`Metric` with this key (KeyError if none)."""
        for m in self.metrics:
            if m.key == key:
                return m
        raise KeyError(f"analysis {self.name!r} declares no metric {key!r}")


@dataclass(frozen=True)
class CarriedRate:
    """What a connection the host analysis sets up carries, handed to the
    analyses that ride it (a migration, an evacuation's sessions) in its
    result's ``provides["rates"]``: converted to bytes once, where it is
    handed over.

    Attributes
    ----------
    bytes_per_s : float or numpy.ndarray
        Its throughput [B/s] (arrays over the points of a column sweep).
    spread_members : float or numpy.ndarray
        How many team members its streams spread over [1].
    """

    bytes_per_s: object
    spread_members: object


@dataclass(frozen=True)
class AnalysisResult:
    """What one analysis found for one document.

    Attributes
    ----------
    metrics : dict
        Metric id -> value (ids from :mod:`solvers.metric_ids`).
    findings : tuple of solvers.results.Finding
    assumptions : tuple of str
    traces : dict
        Chart series by key.
    bottleneck : solvers.results.Bottleneck or None
        The limit this analysis finds binding, if it has one.
    status : int
        :data:`EVALUATED`, or :data:`NOT_APPLICABLE` when the document has
        nothing for this analysis.
    message : str
        Why, for a status other than :data:`EVALUATED`.
    provides : dict
        Plain data for the analyses that require this one (e.g. transfer
        rates for migrations, :class:`CarriedRate`); not part of the
        results.
    """

    metrics: dict = field(default_factory=dict)
    findings: tuple = ()
    assumptions: tuple = ()
    traces: dict = field(default_factory=dict)
    bottleneck: Bottleneck | None = None
    status: int = EVALUATED
    message: str = ""
    provides: dict = field(default_factory=dict)


@dataclass
class ResultBuilder:
    """What an analysis has found so far for one document: it fills one
    per document, then hands back :meth:`result`.

    Attributes
    ----------
    metrics : dict
    findings : list of solvers.results.Finding
    assumptions : list of str
    traces : dict
    bottleneck : solvers.results.Bottleneck or None
    provides : dict
        As :attr:`AnalysisResult.provides`.
    """

    metrics: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)
    assumptions: list = field(default_factory=list)
    traces: dict = field(default_factory=dict)
    bottleneck: Bottleneck | None = None
    provides: dict = field(default_factory=dict)

    @classmethod
    def each(cls, documents, **provides):
        """One builder per document, each ``provides`` key an empty dict
        of its own (``each(docs, rates={})``)."""
        return [cls(provides={key: dict(value) for key, value
                              in provides.items()}) for _ in documents]

    def assume(self, *texts):
        """Add assumptions, each once, in the order first met."""
        self.assumptions.extend(t for t in dict.fromkeys(texts)
                                if t not in self.assumptions)

    def result(self):
        """The :class:`AnalysisResult` of what was found."""
        return AnalysisResult(
            metrics=self.metrics, findings=tuple(self.findings),
            assumptions=tuple(self.assumptions), traces=self.traces,
            bottleneck=self.bottleneck, provides=self.provides)


@dataclass(frozen=True)
class ColumnResult:
    """What one analysis found for every point of a column sweep.

    Attributes
    ----------
    metrics : dict
        Metric id -> numpy.ndarray with a value per point, in the order a
        point with every metric lists them; NaN where a point has none.
    provides : dict
        Plain data for the analyses that require this one, by point
        (arrays), e.g. transfer rates for migrations.
    """

    metrics: dict = field(default_factory=dict)
    provides: dict = field(default_factory=dict)


#: The result of an analysis for a document without its workloads; shared,
#: as results are never changed once made.
EMPTY = AnalysisResult()


def not_applicable(message):
    """The result of an analysis for a document without its workloads."""
    return AnalysisResult(status=NOT_APPLICABLE, message=message)


@dataclass(frozen=True)
class Candidate:
    """A change an analysis proposes, before it is re-evaluated.

    Attributes
    ----------
    id : str
        Rule id, e.g. ``advice.storage.threads_per_disk``.
    severity : str
    reason : str
        Why, in words with the numbers that triggered it.
    evidence : dict
        ``metric``, ``value`` and ``threshold``.
    changes : dict
        Parameter path -> new value.
    """

    id: str
    severity: str
    reason: str
    evidence: dict
    changes: dict


def metric_value(result, metric_id):
    """A metric of an evaluated variant, or None when it has none."""
    try:
        return result.metric(metric_id).value
    except KeyError:
        return None


def defaulted_binding(doc, limit, inputs, *, finding_id):
    """A finding when the binding limit rests on inputs left at their
    defaults: a default that decides the answer is named with its source,
    so the user checks it against the real host. None when every input
    that decides ``limit`` was given.

    Parameters
    ----------
    doc : Scenario
    limit : str
        The binding limit in words ("one core per flow").
    inputs : dict
        Parameter path -> where its default comes from, for the inputs
        that decide the limit.
    finding_id : str
    """
    left = []
    for path, source in inputs.items():
        keys = parse_path(path)
        parent = doc
        for key in keys[:-1]:
            parent = parent[key] if isinstance(key, int) \
                else getattr(parent, key)
        field_info = type(parent).model_fields[keys[-1]]
        value = getattr(parent, keys[-1])
        if value == field_info.default:
            shown = "not set" if value is None else f"{value!r} (default)"
            left.append((path, f"{_words(doc, keys)} {shown}: {source}"))
    if not left:
        return None
    return Finding(
        id=finding_id, severity="info",
        message=(f"The binding limit ({limit}) rests on input(s) left at "
                 f"their defaults: {'; '.join(t for _, t in left)}. Set "
                 "them to what your hosts use."),
        evidence={"metric": finding_id, "value": len(left),
                  "threshold": 0, "inputs": [p for p, _ in left]})


def _words(doc, keys):
    """A parameter path in words, entries by their names: "transfer
    'lm' streams", "host ghz" (the report shows no raw paths)."""
    parts, node = [], doc
    for key in keys:
        if isinstance(key, int):
            node = node[key]
            name = getattr(node, "name", None) or getattr(node, "id", "")
            parts[-1] = f"{parts[-1].rstrip('s')} {name!r}"
        else:
            node = getattr(node, key)
            if key != "workloads":
                parts.append(key.replace("_", " "))
    return " ".join(parts)
