"""The grammar of metric ids: the one place that builds and parses them.
It sits below the analyses, which build their ids with it; their units,
labels, kinds and better directions are the analyses' declarations, looked
up through :mod:`solvers.metric_ids`.

Ids are public (batch users script against them) and never renamed:

- headlines ``<family>.<key>`` (``wire.goodput_gbps``, ``host.cpu_pct``,
  ``storage.iops``, ``migration.total_s``);
- per item ``<family>.<name>.<key>`` for transfers, migrations, storage
  workloads, uplinks, PCIe slots and evacuations
  (``transfer.lm.throughput_gbps``, ``evacuation.maint.total_s``);
- teaming ``teaming[.<team>].<policy>.<key>``, ``teaming[.<team>].optimal.
  <key>`` and ``teaming[.<team>].nioc.<class>.<key>``; the team's name
  appears only when flows ride several teams.

Item names may hold dots (identifiers allow them), so a parser reads the
family from the front and the key from the back, and for teaming finds the
policy by its known names.
"""

import functools
from dataclasses import dataclass

from models.scenario import TEAMING_POLICIES

#: Teaming policies as a label names them: the vendors' short words
#: (models.scenario.TEAMING_POLICIES has the full ones), never the ids.
POLICY_SHORT_NAMES = {
    "port_id": "Port ID", "src_mac": "Source MAC hash",
    "ip_hash": "IP hash", "failover": "Failover order",
    "lbt": "LBT (NIC load)", "lacp": "LACP", "balance_xor": "balance-xor",
    "balance_rr": "balance-rr", "balance_tlb": "balance-tlb",
    "balance_alb": "balance-alb", "ovs_balance_slb": "OVS balance-slb",
    "ovs_balance_tcp": "OVS balance-tcp", "hyperv_port": "Hyper-V Port",
    "address_hash": "Address Hash", "dynamic": "Dynamic",
    "optimal": "Optimal placement", "configured": "Configured policy"}

#: Teaming entries that sit where a policy does in an id.
_TEAMING_ENTRIES = frozenset(TEAMING_POLICIES) | {"optimal", "configured"}


def headline(family, key):
    """``<family>.<key>``, e.g. ``host.cpu_pct``."""
    return f"{family}.{key}"


def item(family, name, key):
    """``<family>.<name>.<key>``, e.g. ``transfer.lm.throughput_gbps``."""
    return f"{family}.{name}.{key}"


def transfer(name, key):
    return item("transfer", name, key)


def migration(name, key):
    return item("migration", name, key)


def storage(name, key):
    return item("storage", name, key)


def evacuation(name, key):
    return item("evacuation", name, key)


def cluster(case, key):
    """``cluster.<case>.<key>``: a failure or maintenance case
    (``host_down.<group>``, ``switch_down.<switch>`` ...) or
    ``class.<class>``."""
    return item("cluster", case, key)


def uplink(nic_id, key):
    return item("uplink", nic_id, key)


def pcie(slot, key):
    return item("pcie", slot, key)


def team_prefix(team=None):
    """``teaming`` or, when flows ride several teams, ``teaming.<team>``."""
    return "teaming" if team is None else f"teaming.{team}"


def teaming(policy, key, team=None):
    """``teaming[.<team>].<policy>.<key>``; ``policy`` may be
    ``'optimal'``."""
    return f"{team_prefix(team)}.{policy}.{key}"


def nioc(traffic_class, key, team=None):
    """``teaming[.<team>].nioc.<class>.<key>``."""
    return f"{team_prefix(team)}.nioc.{traffic_class}.{key}"


def uplink_trace(policy, team=None):
    """Trace key of a policy's per-uplink utilization over time."""
    return teaming(policy, "uplink_util", team)


def placement_trace(policy, team=None):
    """Trace key of a policy's per-uplink peaks and flows, healthy and
    after losing uplinks (N-1, N-k), beside the optimal placement."""
    return teaming(policy, "placement", team)


def rounds_trace(name):
    """Trace key of a migration's pre-copy rounds."""
    return migration(name, "rounds")


def schedule_trace(name):
    """Trace key of an evacuation's schedule (one bar per VM)."""
    return evacuation(name, "schedule")


def sweep_trace(name):
    """Trace key of an evacuation's total time by concurrency."""
    return evacuation(name, "concurrency_sweep")


def topology_trace():
    """Trace key of the cluster's links and their loads in each failure
    or maintenance case."""
    return headline("cluster", "topology")


def teams_in_ids(doc):
    """Team names as they appear in ``doc``'s teaming ids: ``{team name:
    None}`` when flows ride one team, else ``{team name: team name}``;
    teams without flows are left out."""
    if not doc.teams:
        return {}
    first = doc.teams[0].name
    used = list(dict.fromkeys(f.team or first for f in doc.workloads.flows))
    several = len(used) > 1
    return {name: name if several else None for name in used}


def configured_peaks(doc):
    """The peak-utilization id of each team's configured policy, in team
    order (the goal metrics of ``min_peak_util``)."""
    teams = teams_in_ids(doc)
    return [teaming(team.policy, "peak_util_pct", teams[team.name])
            for team in doc.teams if team.name in teams]


@dataclass(frozen=True)
class MetricId:
    """A parsed metric id.

    Attributes
    ----------
    family : str
        ``wire``, ``host``, ``transfer``, ``migration``, ``storage``,
        ``uplink``, ``teaming``, ``pcie``, ``evacuation``.
    key : str
        The last part, which sets unit and label.
    name : str or None
        The item (transfer, migration, workload, NIC, slot) or None for a
        headline.
    team : str or None
        Teaming: the team when flows ride several teams.
    policy : str or None
        Teaming: the policy, ``'optimal'`` or ``'nioc'``.
    traffic_class : str or None
        Teaming: the NIOC class.
    """

    family: str
    key: str
    name: str | None = None
    team: str | None = None
    policy: str | None = None
    traffic_class: str | None = None

    @property
    def is_headline(self):
        return self.family != "teaming" and self.name is None


@functools.lru_cache(maxsize=8192)
def parse(metric_id):
    """The parts of a metric id (see :class:`MetricId`).

    Raises
    ------
    ValueError
        Not of the grammar above.
    """
    family, _, rest = metric_id.partition(".")
    if not rest:
        raise ValueError(f"metric id {metric_id!r} has no key")
    middle, _, key = rest.rpartition(".")
    if family != "teaming":
        return MetricId(family, key, middle or None)
    parts = middle.split(".")
    if parts[-1] in _TEAMING_ENTRIES:
        return MetricId(family, key, team=".".join(parts[:-1]) or None,
                        policy=parts[-1])
    if "nioc" in parts[:-1]:
        at = parts.index("nioc")
        return MetricId(family, key, team=".".join(parts[:at]) or None,
                        policy="nioc",
                        traffic_class=".".join(parts[at + 1:]))
    raise ValueError(f"metric id {metric_id!r}: no teaming policy in it")
