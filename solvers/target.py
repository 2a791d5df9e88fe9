"""Target seeking: for each lever of a scenario (outstanding IO, VMs, NIC
count or speed, streams, concurrency, MTU, transport), the smallest change
that meets a target on one metric, such as ``storage.iops >= 200000`` or
``migration.total_s <= 60``.

Every answer is the model itself: a lever's candidate values are evaluated
in batches (one axis of :func:`solvers.evaluate.evaluate_grid`, on columns
where the field is a column field, or the changed documents together in
one :func:`solvers.evaluate.evaluate_documents` call), and each lever's
answer is evaluated again in full for its binding limit. A lever that
cannot meet the target says so, with the best it reached.

Integer levers with many values (threads per disk up to 100,000
outstanding IO) are searched as a root finder brackets: doubling (or
halving) from the current value, then every value, or a fine ladder of
them, between the last value that misses and the first that meets, until
the smallest that meets is found. This assumes the metric moves one way
between two ladder steps, as IOPS with outstanding IO and time with rate
do; a lever of at most :data:`EXHAUSTIVE_UP_TO` values is tried whole.
"""

import difflib
import math
import re
from dataclasses import asdict, dataclass

import numpy as np

from models.scenario import (MAX_CONNECTIONS, MAX_NICS, MAX_OIO, Migration,
                             ScenarioError, StorageWorkload, Transfer)
from models.storage import STORAGE_TRANSPORTS
from models.transport import TRANSPORTS
from models.units import parse_quantity
from solvers import __version__, metric_ids
from solvers.evaluate import (evaluate_documents, evaluate_grid,
                              points_to_columns)
from solvers.grid import validate_values
from solvers.results import Progress

#: Comparison operators a target may use, with their function.
OPERATORS = {">=": np.greater_equal, "<=": np.less_equal,
             ">": np.greater, "<": np.less}

#: Typed forms of the operators.
_OPERATOR_SPELLINGS = {"≥": ">=", "≤": "<=", "=>": ">=", "=<": "<="}

#: A lever with at most this many values to either side of the current one
#: is evaluated at every value in one batch; more are bracketed.
EXHAUSTIVE_UP_TO = 64

#: Ethernet speeds a NIC can be bought at [Gbit/s] (IEEE 802.3: 1, 2.5,
#: 5, 10, 25, 40, 50, 100, 200, 400 and 800 GbE).
ETHERNET_SPEEDS_GBPS = (1.0, 2.5, 5.0, 10.0, 25.0, 40.0, 50.0, 100.0,
                        200.0, 400.0, 800.0)

#: Most NICs the NIC-count lever tries: four dual-port adapters (8) twice
#: over, as many ports as a two-socket server's PCIe slots usually hold.
MAX_NIC_COUNT = 16

#: Metrics that are a cost of work, by key, with the work they cost (keys
#: of the same item, the first the item has): a bound on a cost is met
#: only by a change that does no less work (CPU saved by moving less data
#: is no saving).
WORK_OF_COST = {"cpu_pct": ("throughput_gbps", "iops"),
                "busiest_core_pct": ("throughput_gbps",),
                "compression_cores": ("throughput_gbps",)}

#: Share the work may fall before a change counts as doing less: the
#: rounding of an unchanged result, far below advise's 0.5 % threshold
#: of a gain.
WORK_TOLERANCE = 1e-6

#: MTUs offered: the standard one and jumbo frames (the de-facto 9000 of
#: every hypervisor's vSwitch and of iSCSI/vSAN guides).
STANDARD_MTUS = (1500, 9000)

#: Levers by key, in the order they are tried and listed, with their
#: words.
LEVERS = {
    "threads_per_disk": "outstanding IO per disk (threads per disk)",
    "vms": "VMs",
    "disks_per_vm": "disks per VM",
    "sessions_per_path": "sessions per path",
    "streams": "streams",
    "sessions": "sessions",
    "concurrency": "concurrent migrations",
    "nic_count": "NIC count",
    "nic_speed": "NIC speed",
    "mtu": "MTU",
    "transport": "transport",
}

#: Other names people use for a lever.
LEVER_ALIASES = {"oio": "threads_per_disk", "outstanding_io":
                 "threads_per_disk", "threads": "threads_per_disk",
                 "nics": "nic_count", "speed": "nic_speed"}


class TargetError(ValueError):
    """A target or lever that cannot be sought on this scenario: the
    message names what was given and what is possible."""


@dataclass(frozen=True)
class Target:
    """``metric op value``: ``value`` in the metric's own unit."""

    metric: str
    op: str
    value: float

    def met(self, values):
        """Whether each value meets the target (NaN never does)."""
        values = np.asarray(values, dtype=float)
        with np.errstate(invalid="ignore"):
            return np.isfinite(values) & OPERATORS[self.op](values,
                                                            self.value)

    @property
    def maximise(self):
        """True when larger values are closer to the target."""
        return self.op in (">=", ">")

    def __str__(self):
        return f"{self.metric} {self.op} {self.value:g}"


_TARGET = re.compile(
    r"\s*(?P<metric>[A-Za-z0-9_.:\-]+?)\s*(?P<op>>=|<=|=>|=<|≥|≤|>|<)\s*"
    r"(?P<number>[-+]?(?:\d[\d_,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
    r"\s*(?P<unit>\S.*?)?\s*")


def parse_target(text):
    """A :class:`Target` from ``"metric>=number [unit]"``.

    A unit after the number is converted to the metric's unit
    (``migration.total_s<=2 min``). Whether the metric exists in a
    scenario is checked by :func:`seek_target`.

    Raises
    ------
    TargetError
        Not of that form, or a unit of another dimension.
    """
    match = _TARGET.fullmatch(text or "")
    if match is None:
        raise TargetError(
            f"target {text!r} is not of the form METRIC OP NUMBER [UNIT] "
            "with OP one of >=, <=, >, < (for example "
            "'storage.iops>=200000' or 'migration.total_s<=60')")
    op = _OPERATOR_SPELLINGS.get(match["op"], match["op"])
    number = match["number"].replace("_", "").replace(",", "")
    metric = match["metric"]
    if match["unit"]:
        try:
            unit = metric_ids.info(metric)[0]
        except (KeyError, ValueError):
            raise TargetError(f"target {text!r}: {metric!r} is not a "
                              "metric id Linkplan knows") from None
        try:
            value = parse_quantity(f"{number} {match['unit']}", unit,
                                   field=f"target {metric}")
        except ValueError as err:
            raise TargetError(str(err)) from None
    else:
        value = float(number)
    if not math.isfinite(value):
        raise TargetError(f"target {text!r}: the number must be finite")
    return Target(metric, op, value)


@dataclass(frozen=True)
class LeverOutcome:
    """What one lever does for the target.

    Attributes
    ----------
    lever : str
        Its key (:data:`LEVERS`).
    label : str
        In words, naming the item it changes.
    reachable : bool
        Some value of the lever meets the target.
    change : dict
        Path -> ``{"old", "new"}``: the smallest change that meets the
        target, or (not reachable) the one that came closest; empty when
        no value could be evaluated.
    value : float
        The target's metric after that change, re-evaluated. NaN when the
        metric has no value there (a migration that does not converge).
    bottleneck : str
        The binding limit after the change.
    evaluated : int
        Values of the lever evaluated.
    message : str
    """

    lever: str
    label: str
    reachable: bool
    change: dict
    value: float
    bottleneck: str
    evaluated: int
    message: str


@dataclass(frozen=True)
class TargetResult:
    """Result of :func:`seek_target`, ``scipy.optimize`` style: ``success``
    when the target is met already or some lever meets it; ``status`` 0
    done, 1 stopped by the callback, 2 no lever meets it."""

    target: Target
    unit: str
    base_value: float
    met: bool
    levers: tuple
    success: bool
    status: int
    message: str

    def to_dict(self, scenario):
        """Plain data for JSON, with the version and scenario hash."""
        return {"linkplan_version": __version__,
                "scenario": scenario.meta.name,
                "scenario_sha256": scenario.sha256(),
                "target": {"metric": self.target.metric,
                           "op": self.target.op, "value": self.target.value,
                           "unit": self.unit},
                "base_value": _json_number(self.base_value),
                "met": self.met, "success": self.success,
                "status": self.status, "message": self.message,
                "levers": [{**asdict(o), "value": _json_number(o.value)}
                           for o in self.levers]}

    def to_table(self, scenario):
        """The levers as text, one block each."""
        unit = "" if self.unit in ("", "1") else f" {self.unit}"
        now = f"{_show(self.base_value)}{unit}" \
            if np.isfinite(self.base_value) else "no value"
        lines = [f"Scenario: {scenario.meta.name}",
                 f"Target: {self.target}{unit}; now {now} "
                 f"({'met' if self.met else 'not met'}). "
                 f"{self.message[:1].upper()}{self.message[1:]}.",
                 ""]
        for rank, o in enumerate(self.levers, 1):
            words = describe_change(o.change)
            if o.reachable:
                lines.append(f"{rank}. {o.label}: {words}")
                lines.append(f"     {self.target.metric} "
                             f"{_show(self.base_value)} → "
                             f"{_show(o.value)}{unit}")
                lines.append(f"     binding after: {o.bottleneck}")
            else:
                lines.append(f"{rank}. {o.label}: not reachable by this "
                             f"lever; {o.message}")
        return "\n".join(lines) + "\n"


def describe_change(change):
    """A lever's change (path -> ``{"old", "new"}``) in short words: a
    list of NICs by its count, a list of names by what it gains."""
    words = []
    for path, c in change.items():
        old, new = c["old"], c["new"]
        if isinstance(new, list) and isinstance(old, list) \
                and old == new[:len(old)] and len(new) > len(old):
            if new and isinstance(new[0], dict):
                words.append(f"{path}: {len(old)} → {len(new)} NICs")
            else:
                added = new[len(old):]
                words.append(f"{path}: + {_show(added[0])}"
                             + (f" … {_show(added[-1])}"
                                if len(added) > 1 else ""))
        else:
            words.append(f"{path}: {_show(old)} → {_show(new)}")
    return "; ".join(words)


def _json_number(value):
    return float(value) if np.isfinite(value) else None


def _show(value):
    if isinstance(value, float):
        if not np.isfinite(value):
            return "—"
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, list):
        if value and isinstance(value[0], dict):   # the NICs
            return f"{len(value)} NIC" + "s" * (len(value) > 1)
        return "[" + ", ".join(map(str, value)) + "]"
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class _Lever:
    """One lever on one item, tried in one of three ways: ``changes``,
    several paths set together (nearest first); ``values`` of ``path``, a
    few (nearest first, or for ``best_of`` the best of those that meet);
    else the integer ``path`` bracketed between ``low`` and ``high``."""

    key: str
    label: str
    path: str | None = None         # one integer or categorical field
    low: int = 1
    high: int = 1
    values: tuple = ()              # categorical values (nearest first)
    best_of: bool = False           # several meet: the best, not the first
    changes: tuple = ()             # prepared multi-path changes


def seek_target(scenario, target, *, levers=None, callback=None):
    """For each lever, the smallest change that meets ``target``.

    Parameters
    ----------
    scenario : Scenario
        Its base is changed (variants are ignored).
    target : Target or str
        See :func:`parse_target`.
    levers : sequence of str, optional
        Keys of :data:`LEVERS` (or :data:`LEVER_ALIASES`) to try; default
        every lever the target's item has.
    callback : callable, optional
        ``callback(progress) -> bool`` after each lever with a
        :class:`solvers.results.Progress`; returning True stops (status
        1) with the levers done so far.

    Returns
    -------
    TargetResult

    Raises
    ------
    TargetError
        A malformed target, a metric the scenario does not compute, an
        unknown lever, or one the target's item does not have.
    """
    if isinstance(target, str):
        target = parse_target(target)
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    base_numbers = evaluate_documents(
        [("Base", base)], scenario=base.meta.name, scenario_sha256="",
        numbers_only=True)[0]
    if target.metric not in base_numbers and not _item_of(base,
                                                          target.metric):
        raise TargetError(_unknown_metric(target.metric, base_numbers))
    # absent at the base where its item has no value (a migration that
    # does not converge has no total time): NaN, which no target meets
    before = float(base_numbers.get(target.metric, math.nan))
    unit = metric_ids.info(target.metric)[0]
    available = _levers(base, target.metric, base_numbers)
    chosen = _chosen(levers, available, target.metric)
    met = bool(target.met([before])[0])
    if met:   # no change is the smallest
        chosen = []
    goal = _Goal(target, base_numbers)
    stopped, found = False, []
    for done, lever in enumerate(chosen, 1):
        goal.less_work = 0
        found.append(_search(base, goal, lever))
        found[-1].less_work = goal.less_work
        if callback is not None and callback(Progress(done, len(chosen))):
            stopped = True
            break
    outcomes = _confirmed(base, goal, found, before)
    reachable = sum(o.reachable for o in outcomes)
    status = 1 if stopped else 0 if (met or reachable) else 2
    if stopped:
        message = (f"stopped by the callback after {len(outcomes)} of "
                   f"{len(chosen)} levers")
    elif met:
        message = "the base meets it already: nothing to change"
    else:
        message = f"{reachable} of {len(outcomes)} levers reach it alone"
    return TargetResult(target=target, unit=unit, base_value=before,
                        met=met, levers=tuple(outcomes),
                        success=met or reachable > 0, status=status,
                        message=message)


def _unknown_metric(metric, numbers):
    close = difflib.get_close_matches(metric, list(numbers), n=4,
                                      cutoff=0.5)
    try:
        metric_ids.info(metric)
        known = True
    except (KeyError, ValueError):
        known = False
    why = ("the scenario does not compute it (it has no such workload or "
           "item)" if known else "no such metric")
    hint = f"; did you mean {', '.join(close)}?" if close else \
        "; `linkplan solve FILE --format table` lists the metrics it has"
    return f"target metric {metric!r}: {why}{hint}"


#: Workload lists by the metric family of their items.
_ITEMS = {"storage": "storage", "migration": "migrations",
          "transfer": "transfers", "host": "transfers",
          "evacuation": "evacuations"}


def _item_of(base, metric):
    """Whether ``metric`` is a catalogued metric of a workload the
    scenario has (its value may be missing where the model has none)."""
    try:
        metric_ids.info(metric)
        parsed = metric_ids.parse(metric)
    except (KeyError, ValueError):
        return False
    items = getattr(base.workloads, _ITEMS.get(parsed.family, ""), None)
    return bool(items) and (parsed.name is None or any(
        item.name == parsed.name for item in items))


def _chosen(levers, available, metric):
    if levers is None:
        return available
    keys = []
    for name in levers:
        key = LEVER_ALIASES.get(name, name)
        if key not in LEVERS:
            raise TargetError(f"lever {name!r} is not one Linkplan knows; "
                              f"levers: {', '.join(LEVERS)}")
        keys.append(key)
    chosen = [lever for lever in available if lever.key in keys]
    lacking = [k for k in dict.fromkeys(keys)
               if not any(lever.key == k for lever in available)]
    if lacking:
        have = ", ".join(dict.fromkeys(lever.key for lever in available))
        raise TargetError(f"lever {lacking[0]!r} does not act on {metric} "
                          f"in this scenario; its levers are: "
                          f"{have or 'none'}")
    return chosen


# -- the levers of a target --------------------------------------------------

def _levers(base, metric, numbers):
    """The levers that act on ``metric``: those of its item, then the
    NICs it uses and the MTU. A headline that repeats its first item's
    metric (:func:`solvers.metric_ids.headline_of`) is that item's; one
    that does not (an aggregate) is every item's."""
    parsed = metric_ids.parse(metric)
    # host.<key> headlines are the transfers'
    items_of = {headline: items for items, headline
                in metric_ids.headline_of().items()}
    family_of_items = items_of.get(parsed.family, parsed.family)
    w = base.workloads
    levers = []

    def matching(items, family):
        found = [(i, item) for i, item in enumerate(items)
                 if family_of_items == family
                 and (parsed.name is None or item.name == parsed.name)]
        if parsed.name is None and found:
            first = metric_ids.item(family, found[0][1].name, parsed.key)
            if numbers.get(first, math.nan) == numbers.get(metric) or \
                    metric not in numbers and first not in numbers:
                return found[:1]
        return found

    nic_scopes = []
    for i, item in matching(w.storage, "storage"):
        at = f"workloads.storage[{i}]"
        of = f" of {item.name}"
        oio = item.vms * item.disks_per_vm * item.threads_per_disk
        for key, field in (("threads_per_disk", item.threads_per_disk),
                           ("vms", item.vms),
                           ("disks_per_vm", item.disks_per_vm)):
            # the other two factors fixed, within the model's MAX_OIO
            levers.append(_Lever(key, LEVERS[key] + of, f"{at}.{key}",
                                 1, MAX_OIO * field // oio))
        if item.protocol != "local":
            levers.append(_Lever("sessions_per_path",
                                 LEVERS["sessions_per_path"] + of,
                                 f"{at}.sessions_per_path", 1,
                                 _most(StorageWorkload,
                                       "sessions_per_path")))
            levers.append(_categorical(
                base, "transport", of, f"{at}.transport",
                STORAGE_TRANSPORTS))
        nic_scopes.append((of, _storage_nics(base, i)))
    transfers = {t.name: i for i, t in enumerate(w.transfers)}
    for i, item in matching(w.migrations, "migration"):
        of = f" of {item.name}"
        at = f"workloads.migrations[{i}]"
        if item.transfer is not None:
            levers.extend(_transfer_levers(base, transfers[item.transfer],
                                           of))
            nic_scopes.append((of, _transfer_nics(base,
                                                  transfers[item.transfer])))
        else:
            if item.stop_rule == "qemu" and not item.multifd and \
                    item.transport != "rdma" and \
                    base.host.hypervisor == "kvm":
                # QEMU's streams are multifd channels: without multifd
                # one connection carries it whatever streams says; one
                # channel already moves the page copies off the migration
                # thread (models.qemu_ram)
                levers.append(_Lever("streams", "multifd channels" + of,
                                     changes=tuple(_Frozen({
                                         f"{at}.multifd": True,
                                         **({f"{at}.streams": n}
                                            if n != item.streams else {})})
                                         for n in range(
                                             1, _most(Migration, "streams")
                                             + 1))))
            else:
                levers.append(_Lever("streams", LEVERS["streams"] + of,
                                     f"{at}.streams", 1,
                                     _most(Migration, "streams")))
            levers.append(_categorical(base, "transport", of,
                                       f"{at}.transport", TRANSPORTS))
            nic_scopes.append((of, (list(range(len(base.nics))), [])))
        if item.count > 1:
            levers.append(_Lever("concurrency", LEVERS["concurrency"] + of,
                                 f"{at}.concurrency", 1,
                                 min(_most(Migration, "concurrency"),
                                     item.count)))
    for i, item in matching(w.transfers, "transfer"):
        of = f" of {item.name}"
        levers.extend(_transfer_levers(base, i, of))
        nic_scopes.append((of, _transfer_nics(base, i)))
    for i, item in matching(w.evacuations, "evacuation"):
        of = f" of {item.name}"
        levers.append(_categorical(
            base, "concurrency", of, f"workloads.evacuations[{i}]"
            ".concurrency", tuple(range(1, 65))))   # its 1 to 64
        levers.extend(_transfer_levers(base, transfers[item.transfer], of))
        nic_scopes.append((of, _transfer_nics(base,
                                              transfers[item.transfer])))
    if parsed.family in ("wire", "uplink", "pcie") or \
            (parsed.family == "teaming" and base.teams):
        team = next((j for j, t in enumerate(base.teams)
                     if parsed.team in (None, t.name)), None)
        nic_scopes.append(("", _team_nics(base, team)
                           if parsed.family == "teaming" and team is not None
                           else (list(range(len(base.nics))), [])))
    for of, (nics, references) in nic_scopes:
        levers.append(_nic_count(base, of, nics, references))
        levers.append(_nic_speed(base, of, nics))
    levers.append(_categorical(base, "mtu", "", "network.mtu",
                               STANDARD_MTUS))
    unique = {}
    for lever in levers:
        if lever is not None:
            unique.setdefault((lever.key, lever.path, lever.changes),
                              lever)
    order = list(LEVERS)
    return sorted(unique.values(), key=lambda lv: order.index(lv.key))


def _transfer_levers(base, i, of):
    at = f"workloads.transfers[{i}]"
    transfer = base.workloads.transfers[i]
    # sessions x streams stays within the connections the schema allows
    return [_Lever("streams", LEVERS["streams"] + of, f"{at}.streams", 1,
                   min(_most(Transfer, "streams"),
                       MAX_CONNECTIONS // transfer.sessions)),
            _Lever("sessions", LEVERS["sessions"] + of, f"{at}.sessions", 1,
                   min(_most(Transfer, "sessions"),
                       MAX_CONNECTIONS // (transfer.streams or 1))),
            _categorical(base, "transport", of, f"{at}.transport",
                         TRANSPORTS)]


def _most(model, name):
    """The largest value the schema allows a field (its ``le`` bound)."""
    return next(rule.le for rule in model.model_fields[name].metadata
                if getattr(rule, "le", None) is not None)


def _categorical(base, key, of, path, values):
    """A lever over a few values: those the document validates with, the
    current one left out (a platform that lacks a transport refuses it)."""
    current = base.value_at(path)
    valid = []
    for value in values:
        if value == current:
            continue
        try:
            base.with_value(path, value)
        except (ScenarioError, KeyError):
            continue
        valid.append(value)
    if isinstance(current, (int, float)) and not isinstance(current, bool):
        valid.sort(key=lambda v: abs(math.log(v / current)))
    if not valid:
        return None
    return _Lever(key, LEVERS[key] + of, path, values=tuple(valid),
                  best_of=key == "transport")


# NICs a lever may add or speed up, and the lists that name them: ``(NIC
# indices, [(path of a list of NIC ids, its ids)])``.

def _storage_nics(base, i):
    item = base.workloads.storage[i]
    ids = item.nics or [base.nics[0].id]
    return ([k for k, n in enumerate(base.nics) if n.id in ids],
            [(f"workloads.storage[{i}].nics", list(ids))])


def _transfer_nics(base, i):
    transfer = base.workloads.transfers[i]
    if transfer.via is not None:
        team = next(j for j, t in enumerate(base.teams)
                    if t.name == transfer.via)
        return _team_nics(base, team)
    if transfer.nics:
        return ([k for k, n in enumerate(base.nics)
                 if n.id in transfer.nics],
                [(f"workloads.transfers[{i}].nics", list(transfer.nics))])
    return list(range(len(base.nics))), []


def _team_nics(base, j):
    team = base.teams[j]
    return ([k for k, n in enumerate(base.nics) if n.id in team.members],
            [(f"teams[{j}].members", list(team.members))])


def _nic_count(base, of, nics, references):
    """More NICs like the last one used, each named in the lists that
    name the used ones (a team's members, a workload's NICs)."""
    most = min(MAX_NICS, max(MAX_NIC_COUNT, len(base.nics)))
    if not nics or len(base.nics) >= most:
        return None
    template = base.nics[nics[-1]].model_dump(mode="json")
    template["pcie_slot"] = None   # a port of its own, not a shared slot
    stem = re.sub(r"\d+$", "", template["id"]) or "nic"
    taken = {n.id for n in base.nics}
    added, number = [], 1
    while len(base.nics) + len(added) < most:
        while f"{stem}{number}" in taken:
            number += 1
        taken.add(f"{stem}{number}")
        added.append({**template, "id": f"{stem}{number}"})
    current = [n.model_dump(mode="json") for n in base.nics]
    changes = []
    for extra in range(1, len(added) + 1):
        new = [a["id"] for a in added[:extra]]
        change = {"nics": current + added[:extra]}
        for path, ids in references:
            change[path] = ids + new
        changes.append(change)
    return _Lever("nic_count", LEVERS["nic_count"] + of, path="nics",
                  changes=tuple(_Frozen(c) for c in changes))


def _nic_speed(base, of, nics):
    if not nics:
        return None
    current = max(base.nics[k].speed_gbps for k in nics)
    speeds = sorted((s for s in ETHERNET_SPEEDS_GBPS if s != current),
                    key=lambda s: abs(math.log(s / current)))
    return _Lever("nic_speed", LEVERS["nic_speed"] + of,
                  changes=tuple(_Frozen({f"nics[{k}].speed_gbps": s
                                         for k in nics}) for s in speeds))


class _Frozen(dict):
    """A change (path -> value) that can sit in a frozen dataclass's
    key: hashed by its text."""

    def __hash__(self):
        return hash(repr(sorted(self.items())))


# -- searching one lever -----------------------------------------------------

@dataclass
class _Found:
    """A lever's answer before it is re-solved in full."""

    lever: _Lever
    change: dict           # path -> new value (meeting, or the closest)
    value: float
    evaluated: int
    less_work: int = 0     # values passed over for doing less work


class _Goal:
    """The target as the search applies it: the target's metric, NaN
    where a change does less work than the base (:data:`WORK_OF_COST`),
    so that such a change neither meets it nor comes closest."""

    def __init__(self, target, base_numbers):
        self.target = target
        self.metric, self.maximise = target.metric, target.maximise
        prefix, _, key = target.metric.rpartition(".")
        self.work = next((f"{prefix}.{k}" for k in WORK_OF_COST.get(key, ())
                          if f"{prefix}.{k}" in base_numbers), None)
        self.base_work = base_numbers.get(self.work, math.nan)
        self.less_work = 0

    def met(self, values):
        return self.target.met(values)

    def does_less(self, work):
        """Where ``work`` falls short of the base's (NaN does too)."""
        return ~(np.asarray(work, dtype=float)
                 >= self.base_work * (1 - WORK_TOLERANCE))

    def column(self, numbers, count):
        """The values to search on of ``count`` points, from
        ``numbers`` (metric id -> array)."""
        values = np.array(numbers.get(self.metric, np.full(count, np.nan)),
                          dtype=float)
        if self.work is not None:
            less = self.does_less(numbers.get(self.work,
                                              np.full(count, np.nan)))
            self.less_work += int((less & np.isfinite(values)).sum())
            values[less] = np.nan
        return values


def _search(base, target, lever):
    if lever.changes:
        if lever.key == "nic_count":
            return _search_nic_count(base, target, lever)
        values = _evaluate_changes(base, target, list(lever.changes))
        return _first_or_best(target, lever, list(lever.changes), values)
    if lever.values:
        changes = [{lever.path: v} for v in lever.values]
        values = _evaluate_path(base, target, lever.path, list(lever.values))
        return _first_or_best(target, lever, changes, values)
    return _search_integer(base, target, lever)


def _first_or_best(target, lever, changes, values, evaluated=None):
    """The first change that meets the target (nearest first), or for a
    lever whose values have no order the best of those that meet; else
    the one that came closest."""
    meets = target.met(values)
    score = np.where(np.isfinite(values),
                     values if target.maximise else -values, -np.inf)
    if meets.any():
        if lever.best_of:
            index = int(np.argmax(np.where(meets, score, -np.inf)))
        else:
            index = int(np.argmax(meets))
        return _Found(lever, changes[index], float(values[index]),
                      evaluated or len(changes))
    # the nearest of the values that come closest (equal within
    # rounding: a plateau such as line rate)
    top = score.max()
    index = int(np.argmax(score >= top - 1e-9 * abs(top)))
    return _Found(lever, changes[index] if np.isfinite(score[index])
                  else {}, float(values[index]), evaluated or len(changes))


def _search_integer(base, target, lever):
    """Bracket the smallest change of an integer field that meets the
    target, upwards and downwards at once."""
    current = base.value_at(lever.path)
    if current is None:
        # the protocol's own default: the smallest value that meets it
        values = list(range(lever.low, min(lever.high, lever.low
                                           + EXHAUSTIVE_UP_TO) + 1))
        return _first_or_best(target, lever,
                              [{lever.path: v} for v in values],
                              _evaluate_path(base, target, lever.path,
                                             values))
    tried = {}

    def run(values):
        values = sorted(set(values) - set(tried))
        if values:
            tried.update(zip(values, _evaluate_path(base, target,
                                                    lever.path, values)))

    def met(value):
        return bool(target.met([tried[value]])[0])

    ladders = {d: _ladder(current, lever.high if d > 0 else lever.low, d)
               for d in (1, -1)}
    run(ladders[1] + ladders[-1])
    hits = []
    for steps in ladders.values():
        previous = current
        for value in steps:
            if met(value):
                hits.append(_refine(previous, value, run, met))
                break
            previous = value
    if hits:
        best = min(hits, key=lambda v: (abs(math.log(v / current)), v))
        return _Found(lever, {lever.path: best}, float(tried[best]),
                      len(tried))
    if not tried:
        return _Found(lever, {}, math.nan, 0)
    # nothing meets it: the best value, the nearest to the current one
    # among equals (a lever without effect stays where it is)
    values = sorted(tried, key=lambda v: (abs(math.log(v / current)), v))
    return _first_or_best(target, lever, [{lever.path: v} for v in values],
                          np.array([tried[v] for v in values], dtype=float),
                          evaluated=len(tried))


def _ladder(start, bound, direction):
    """Values from ``start`` towards ``bound``: all of them when they are
    few, else doubling (halving) steps ending on ``bound``."""
    if abs(bound - start) <= EXHAUSTIVE_UP_TO:
        return list(range(start + direction, bound + direction, direction))
    steps, value = [], start
    while (value - bound) * direction < 0:
        value = min(value * 2, bound) if direction > 0 \
            else max(value // 2, bound)
        steps.append(value)
    return steps


def _refine(miss, hit, run, met):
    """The value nearest ``miss`` that meets the target, between ``miss``
    (which does not) and ``hit`` (which does): every value between them
    when they are few, else a ladder of :data:`EXHAUSTIVE_UP_TO` values
    whose last miss and first hit bracket it again."""
    while abs(hit - miss) > 1:
        low, high = sorted((miss, hit))
        inside = list(range(low + 1, high))
        whole = len(inside) <= EXHAUSTIVE_UP_TO
        if not whole:
            inside = sorted(set(np.linspace(low + 1, high - 1,
                                            EXHAUSTIVE_UP_TO).round()
                                .astype(int).tolist()))
        run(inside)
        toward = sorted(inside, key=lambda v: abs(v - miss))
        first = next((v for v in toward if met(v)), None)
        if first is not None:
            before = [v for v in toward
                      if abs(v - miss) < abs(first - miss)]
            hit = first
            if before:
                miss = before[-1]
        elif not whole:
            miss = toward[-1]
        if whole:
            break
    return hit


def _search_nic_count(base, target, lever):
    """NICs added one at a time: each count is a document of its own, so
    the counts are evaluated in doubling batches until one meets."""
    changes = list(lever.changes)
    tried = 0
    size = 4
    while tried < len(changes):
        batch = changes[tried:tried + size]
        values = _evaluate_changes(base, target, batch)
        meets = target.met(values)
        if meets.any():
            index = int(np.argmax(meets))
            return _Found(lever, batch[index], float(values[index]),
                          tried + index + 1)
        tried += len(batch)
        size *= 2
        last = (batch[-1], float(values[-1]))
    return _Found(lever, last[0], last[1], tried)


def _evaluate_path(base, target, path, values):
    """The target's metric at each value of one field: one axis of
    :func:`solvers.evaluate.evaluate_grid` (on columns where the field is
    a column field); a value the schema refuses gives NaN."""
    try:
        converters = validate_values(base, [path],
                                     [sorted(set(values), key=repr)])
        valid = list(values)
    except ValueError:
        valid = [v for v in values if _valid(base, {path: v})]
        if not valid:
            return np.full(len(values), np.nan)
        converters = validate_values(base, [path],
                                     [sorted(set(valid), key=repr)])
    numbers = evaluate_grid(base, [path], [valid], converters,
                            (np.arange(len(valid)),))
    by_value = dict(zip(valid, target.column(numbers, len(valid))))
    return np.array([by_value.get(v, np.nan) for v in values], dtype=float)


def _evaluate_changes(base, target, changes):
    """The target's metric after each change (path -> value), the changed
    documents evaluated together; a change the schema refuses gives
    NaN."""
    documents, where = [], []
    for i, change in enumerate(changes):
        try:
            documents.append((str(i), base.with_values(dict(change))))
        except (ScenarioError, KeyError):
            continue
        where.append(i)
    values = np.full(len(changes), np.nan)
    if documents:
        numbers = evaluate_documents(documents, scenario="",
                                     scenario_sha256="", numbers_only=True)
        values[where] = target.column(points_to_columns(numbers),
                                      len(numbers))
    return values


def _valid(base, change):
    try:
        base.with_values(change)
    except (ScenarioError, KeyError):
        return False
    return True


def _confirmed(base, target, found, before):
    """Each lever's answer evaluated again in full (its binding limit),
    all together."""
    documents, keep = [], []
    for f in found:
        if f.change:
            documents.append((f.lever.label, base.with_values(dict(f.change))))
            keep.append(f)
    results = evaluate_documents(documents, scenario=base.meta.name,
                                 scenario_sha256=base.sha256()).variants \
        if documents else ()
    by_id = {id(f): r for f, r in zip(keep, results)}
    outcomes = []
    for f in found:
        result = by_id.get(id(f))
        change = {path: {"old": _old(base, path), "new": _new(value)}
                  for path, value in f.change.items()}
        if result is None:
            outcomes.append(LeverOutcome(
                f.lever.key, f.lever.label, False, {}, math.nan, "",
                f.evaluated, _no_value(target, f.evaluated)))
            continue
        after = {m.id: m.value for m in result.metrics}
        value = after.get(target.metric, math.nan)
        reachable = bool(target.met([value])[0])
        if target.work is not None and target.does_less(
                after.get(target.work, math.nan)):
            reachable = False
        limit = result.bottleneck.message if result.bottleneck else ""
        words = describe_change(change)
        sign = 1.0 if target.maximise else -1.0
        if reachable:
            message = f"meets it at {words}"
        elif not np.isfinite(value):
            message = _no_value(target, f.evaluated)
        elif np.isfinite(value) and (not np.isfinite(before)
                                     or sign * (value - before) > 0):
            message = f"best {_show(value)} at {words}; bound by {limit}"
        else:
            message = (f"no value tried moves {target.metric} past "
                       f"{_show(before)}; bound by {limit}")
        if not reachable and f.less_work:
            message += (f"; the values that meet it do so only by doing "
                        f"less work ({target.work} below the base's "
                        f"{_show(target.base_work)}), which saves nothing")
        outcomes.append(LeverOutcome(f.lever.key, f.lever.label, reachable,
                                     change, value, limit, f.evaluated,
                                     message))
    return outcomes


def _no_value(target, evaluated):
    if not evaluated:
        return "the document takes none of its values"
    return (f"{target.metric} has no value at any of the {evaluated} "
            "value(s) tried (e.g. a migration that does not complete)")


def _old(base, path):
    return _new(base.value_at(path))


def _new(value):
    """A change's value as shown and applied: a NIC list by its ids."""
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [dict(v) for v in value]
    return value
