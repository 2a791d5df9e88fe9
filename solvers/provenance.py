"""Which validated cases back a metric: the provenance a face shows next
to a result ("Backed by V1, V2 (+-1 %): held").

A case backs a metric directly when one of its checks compares the same
quantity: the same key in the same family, where a transfer's metrics and
the ``host.*`` headline (and likewise each item family and its headline)
name one quantity. Cases that test the metric's model through another
quantity are listed apart. Statuses are the data's (``held``,
``known_miss``, ``not_modelled``; the tests enforce them), so nothing is
solved here: :class:`ProvenanceIndex` is built once from the cases and
answers each metric by lookups.
"""

from dataclasses import dataclass

from solvers import metric_ids
from solvers.accuracy import tolerance_text
from solvers.analyses import registry


def _tables():
    """(quantity family, models, areas) by metric family, from the
    analyses' declarations: an item family names its analysis's
    quantities (a transfer's metrics are the host's), comes from its
    models and is backed by its validation areas unless it names its own
    (an uplink's load is what the teaming cases check)."""
    quantity, models, areas = {}, {}, {}
    for analysis in registry():
        models[analysis.name] = analysis.models
        areas[analysis.name] = analysis.areas
        for item in analysis.items:
            if item.name != analysis.name:
                quantity[item.name] = analysis.name
            areas[item.name] = item.areas or analysis.areas
    return quantity, models, areas


#: Metric family -> the family whose quantities it names; -> the model
#: modules its values come from; -> the validation areas (a case's
#: ``area``) whose cases test those models (an evacuation's times are
#: pre-copy migrations on a shared link: evacuation and migration).
QUANTITY_FAMILY, FAMILY_MODELS, FAMILY_AREAS = _tables()


def areas_of(metric_ids):
    """The validation areas behind a set of metrics (:data:`FAMILY_AREAS`),
    each once, in the order first met."""
    found = {}
    for metric_id in metric_ids:
        family = metric_id.partition(".")[0]
        found.update(dict.fromkeys(FAMILY_AREAS.get(family, ())))
    return tuple(found)


#: Status words as a person reads them.
_STATUS_WORDS = {"held": "held", "known_miss": "known miss",
                 "not_modelled": "not modelled yet"}


def quantity(metric_id):
    """``(family, key)`` naming what a metric measures, the same for a
    transfer's metric and its headline (``transfer.lm.throughput_gbps`` and
    ``host.throughput_gbps`` give ``('host', 'throughput_gbps')``).

    Returns
    -------
    tuple of str, or None
        None for an id that does not parse.
    """
    try:
        parsed = metric_ids.parse(metric_id)
    except ValueError:
        return None
    family = QUANTITY_FAMILY.get(parsed.family, parsed.family)
    return family, parsed.key


@dataclass(frozen=True)
class Backing:
    """One case behind a metric: its id, the tolerance of its check of
    that quantity ('' for a case listed by model) and its status."""

    case: str
    tolerance: str
    status: str


@dataclass(frozen=True)
class Provenance:
    """The validated cases behind one metric.

    Attributes
    ----------
    metric : str
        The metric id.
    direct : tuple of Backing
        Cases that check this quantity.
    models : tuple of str
        The model modules the metric comes from.
    related : tuple of Backing
        Cases that test those models through other quantities.
    """

    metric: str
    direct: tuple
    models: tuple
    related: tuple

    def text(self):
        """One line per status group, e.g. ``Backed by V1, V2 (+-1 %):
        held``; or which cases test the model when none checks this
        quantity."""
        if self.direct:
            return "\n".join(
                f"Backed by {_listed([_named(b) for b in group])}: "
                f"{_STATUS_WORDS[status]}"
                for status, group in _by_status(self.direct))
        if self.related:
            held = sum(b.status == "held" for b in self.related)
            return (f"No validated case checks this quantity; "
                    f"{' and '.join(self.models)} "
                    f"{'is' if len(self.models) == 1 else 'are'} tested by "
                    f"{_listed([b.case for b in self.related])} ({held} of "
                    f"{len(self.related)} held)")
        return "Not validated yet: no published case tests this model"


#: Cases named in one line of a tooltip; the rest are counted.
SHOWN_CASES = 6


def _listed(names):
    shown = ", ".join(names[:SHOWN_CASES])
    if len(names) > SHOWN_CASES:
        shown += f" and {len(names) - SHOWN_CASES} more"
    return shown


def _named(backing):
    return f"{backing.case} ({backing.tolerance})" if backing.tolerance \
        else backing.case


def _by_status(backings):
    order = list(_STATUS_WORDS)
    groups = {}
    for b in backings:
        groups.setdefault(b.status, []).append(b)
    return sorted(groups.items(), key=lambda item: order.index(item[0]))


class ProvenanceIndex:
    """The validation cases, indexed by the quantities their checks
    compare and by the models they name; build once, query per metric.

    Parameters
    ----------
    cases : iterable of solvers.accuracy.Case
    """

    def __init__(self, cases):
        self._by_quantity = {}
        self._cases = []
        for case in cases:
            self._cases.append(case)
            seen = set()
            for check in case.checks:
                key = quantity(check.metric) if check.metric else None
                if key is None or key in seen:
                    continue
                seen.add(key)
                self._by_quantity.setdefault(key, []).append(
                    Backing(case.id, tolerance_text(check), case.status))
        self._cache = {}

    def __call__(self, metric_id):
        """The :class:`Provenance` of ``metric_id`` (cached)."""
        found = self._cache.get(metric_id)
        if found is None:
            found = self._cache[metric_id] = self._provenance(metric_id)
        return found

    def _provenance(self, metric_id):
        key = quantity(metric_id)
        if key is None:
            return Provenance(metric_id, (), (), ())
        direct = tuple(self._by_quantity.get(key, ()))
        models = FAMILY_MODELS.get(key[0], ())
        related = tuple(
            Backing(case.id, "", case.status) for case in self._cases
            if any(model in case.model for model in models)
            and case.id not in {b.case for b in direct})
        return Provenance(metric_id, direct, models, related)
