"""The contract every analysis follows (the registry that finds them is
:func:`solvers.analyses.registry`).

An analysis is a module of :mod:`solvers.analyses` that defines

- ``NAME``: its metric family (``wire``, ``host``, ``storage`` ...);
- ``ORDER``: where its metrics, findings, assumptions and traces stand in a
  variant's result (and when it runs: after the analyses it ``REQUIRES``);
- ``BOTTLENECK_PRIORITY``: which analysis names the binding limit when
  several offer one (lowest wins);
- ``REQUIRES``: names of the analyses whose results it reads;
- ``analyse(inputs, upstream, *, details=True) -> list[AnalysisResult]``,
  one result per document of the :class:`solvers.inputs.Inputs`;
  ``upstream`` maps each required name to its results; ``details=False``
  asks for metrics only (sweeps and searches);
- optionally ``READS``: every document field it (and the
  :class:`solvers.inputs.Inputs` families it asks for) may read, as
  paths: a section (``"host"``, ``"nics"``, ``"goal"``) or a field of
  ``workloads`` (``"workloads.flows"``). An editing session keeps its
  results keyed on these fields of every document
  (:mod:`solvers.analysis_cache`), so an edit elsewhere does not re-run
  it; without ``READS`` it is keyed on the whole document. A field read
  but not listed would hand back stale results: tests/solvers/
  test_analysis_cache.py records what each analysis reads;
- optionally ``FAMILIES``: the :class:`solvers.inputs.Inputs` families it
  reads with ``details=False``, when those (and its upstream) are all it
  reads besides fields no column sweep varies. A column sweep
  (:func:`solvers.evaluate.evaluate_columns`) runs such an analysis on
  the repeated, column-set families of many points at once, and one
  without ``FAMILIES`` once per template document;
- optionally ``COLUMN_READS``: for an analysis without ``FAMILIES``, the
  column fields (:data:`solvers.columns.FIELDS`) it reads from its
  documents, as paths (a section, ``"nics"``, or a field); a column sweep
  runs it once per distinct combination of their values (default: its
  ``READS``);
- optionally ``analyse_columns(inputs, upstream) -> ColumnResult``: the
  metrics of the points of a :class:`solvers.columns.TiledInputs` (one
  template, column fields set per point) as one array per metric id,
  without a dict per point; ``upstream`` maps each required name to its
  :class:`ColumnResult`. Sweeps and searches call it; an analysis with
  ``FAMILIES`` but without it is run per point and its dicts turned into
  columns, so a new analysis works on the column path before it has one;
- optionally ``candidates(doc, goal, base) -> iterable of Candidate``: the
  changes it proposes for a document whose evaluated result is ``base``
  (:mod:`solvers.advise` re-evaluates and ranks them).

A new analysis is one new module in :mod:`solvers.analyses` plus its
model, its schema fields and its metric catalogue entries: the registry
finds it, nothing else is registered by hand.
"""

from dataclasses import dataclass, field

from models.scenario import parse_path
from solvers.results import Bottleneck, Finding

#: status values of an :class:`AnalysisResult`.
EVALUATED, NOT_APPLICABLE = 0, 1


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
        rates for migrations); not part of the results.
    """

    metrics: dict = field(default_factory=dict)
    findings: tuple = ()
    assumptions: tuple = ()
    traces: dict = field(default_factory=dict)
    bottleneck: Bottleneck | None = None
    status: int = EVALUATED
    message: str = ""
    provides: dict = field(default_factory=dict)


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
