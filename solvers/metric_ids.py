"""Metric ids: the one place that builds and parses them, and the catalogue
of their units and labels.

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

from models.evacuation import ORDERS as EVACUATION_ORDERS
from models.scenario import TEAMING_POLICIES

#: Headline metrics: id -> (unit, label).
METRICS = {
    "wire.link_gbps": ("Gbit/s", "Nominal link rate (all NICs)"),
    "wire.efficiency_pct": ("%", "Wire efficiency (payload / wire bytes)"),
    "wire.goodput_gbps": ("Gbit/s", "Link-bound TCP goodput"),
    "wire.packets_per_s": ("1/s", "Full-size packets per second"),
    "wire.ack_packets_per_s": ("1/s", "Reverse-path ACKs per second"),
    "wire.payload_bytes": ("B", "TCP payload per packet"),
    "wire.frame_bytes": ("B", "Wire bytes per frame"),
    "wire.frame_rate_pps": ("1/s", "Line-rate frames per second at "
                            "network.frame_size_bytes"),
    "wire.udp_payload_gbps": ("Gbit/s", "UDP payload at line rate in "
                              "frames of network.frame_size_bytes"),
    "wire.frames_per_core_pps": ("1/s", "Frames of network.frame_size_bytes "
                                 "one core of the host preset receives "
                                 "through the kernel stack"),
    "wire.cores_at_frame_rate": ("cores", "Cores the kernel stack needs "
                                 "for line rate at network.frame_size_bytes"),
    "host.throughput_gbps": ("Gbit/s", "Host: transfer throughput"),
    "host.cpu_pct": ("%", "Host: CPU"),
    "host.cpu_pct_per_gbps": ("%/(Gbit/s)", "Host: CPU per Gbit/s moved"),
    "host.busiest_core_pct": ("%", "Host: busiest core"),
    "host.jumbo_gain_pct": ("%", "Host: gain from MTU 9000"),
    "storage.iops": ("1/s", "Storage: IOPS, all workloads"),
    "storage.latency_ms": ("ms", "Storage: latency, worst workload"),
    "storage.throughput_mbps": ("MB/s", "Storage: throughput, all "
                                "workloads"),
    "storage.oio": ("1", "Storage: outstanding IO"),
    "storage.knee_oio": ("1", "Storage: outstanding IO at the knee"),
    "storage.cpu_pct": ("%", "Storage: host CPU, all workloads"),
    "storage.iops_per_cpu_pct": ("1/s", "Storage: IOPS per % host CPU"),
    "storage.jumbo_gain_pct": ("%", "Storage: IOPS gain from MTU 9000"),
    "cluster.hosts": ("1", "Cluster: hosts"),
    "cluster.peak_util_pct": ("%", "Cluster: busiest host link, normal "
                              "operation"),
    "cluster.uplink_util_pct": ("%", "Cluster: busiest switch uplinks, "
                                "normal operation"),
    "cluster.worst_peak_util_pct": ("%", "Cluster: busiest link in any "
                                    "case"),
    "cluster.worst_unmet_gbps": ("Gbit/s", "Cluster: traffic not carried "
                                 "in the worst case"),
    "cluster.rebuild_s": ("s", "Cluster: longest rebuild after a host "
                          "failure"),
}

#: Units and labels of per-item metrics (and of the ``migration.<key>``
#: headlines), by their key, the last part of the id.
METRIC_SUFFIXES = {
    "throughput_gbps": ("Gbit/s", "throughput"),
    "cpu_pct": ("%", "CPU"),
    "cpu_pct_per_gbps": ("%/(Gbit/s)", "CPU per Gbit/s moved"),
    "iops_per_cpu_pct": ("1/s", "IOPS per % host CPU"),
    "busiest_core_pct": ("%", "busiest core"),
    "jumbo_gain_pct": ("%", "gain from MTU 9000"),
    "flows": ("1", "TCP flows"),
    "busy_cores": ("cores", "busy receive cores (RSS/VMQ)"),
    "per_core_ceiling_gbps": ("Gbit/s", "per-core ceiling"),
    "compressor_gbps_per_thread": ("Gbit/s", "logical rate of one "
                                   "compression thread"),
    "compression_ratio": ("1", "logical bytes per compressed byte"),
    "compression_cores": ("cores", "host cores compressing"),
    "packets_per_s": ("1/s", "datagrams per second"),
    "rx_util_pct": ("%", "receive utilization"),
    "tx_util_pct": ("%", "transmit utilization"),
    "converged": ("1", "converged (1 yes, 0 no)"),
    "rounds": ("1", "pre-copy rounds"),
    "rate_gbps": ("Gbit/s", "migration rate"),
    "throttle_pct": ("%", "final guest throttle"),
    "guest_slowdown": ("x", "guest slowdown"),
    "rate_for_downtime_gbps": ("Gbit/s",
                               "rate needed to converge within the budget"),
    "total_s": ("s", "total time"),
    "downtime_s": ("s", "downtime"),
    "bytes_sent_gib": ("GiB", "bytes sent"),
    "postcopy_s": ("s", "post-copy phase: guest runs on the destination, "
                   "faulting missing pages over the network"),
    "postcopy_gib": ("GiB", "memory pulled in post-copy"),
    "registration_s": ("s", "RDMA memory registration before the copy "
                       "(pin-all)"),
    "all_vms_s": ("s", "all VMs, in batches"),
    "dirty_limit_gbps": ("Gbit/s", "dirtying at which it stops converging"),
    "throttle_from_gbps": ("Gbit/s", "dirtying above which it converges "
                           "only by throttling the guest"),
    "rate_needed_gbps": ("Gbit/s", "rate needed for the time budget"),
    "nics_needed": ("1", "NICs needed for the time budget"),
    "largest_vm_gib": ("GiB", "largest VM within the time budget"),
    "peak_util_pct": ("%", "peak uplink utilization"),
    "gap_to_optimal_pct": ("%", "peak above the optimal placement"),
    "imbalance_pct": ("%", "busiest uplink above the mean, at the peak"),
    "flows_over_member": ("1", "flows above their uplink's speed"),
    "members_used": ("1", "uplinks carrying traffic at the peak"),
    "n1_peak_util_pct": ("%", "peak utilization after a failure"),
    "lower_bound_pct": ("%", "lower bound on the peak"),
    "demand_gbps": ("Gbit/s", "demand at the peak"),
    "allocated_gbps": ("Gbit/s", "bandwidth allocated at the peak"),
    "iops": ("1/s", "IOPS"),
    "latency_ms": ("ms", "latency"),
    "throughput_mbps": ("MB/s", "throughput"),
    "oio": ("1", "outstanding IO"),
    "knee_oio": ("1", "outstanding IO at the knee"),
    "uplink_util_pct": ("%", "busiest switch uplinks"),
    "unmet_gbps": ("Gbit/s", "traffic not carried"),
    "worst_unmet_pct": ("%", "share not carried in the worst case"),
    "rebuild_s": ("s", "rebuild time"),
    "rebuild_gbps": ("Gbit/s", "rebuild rate over the cluster"),
    "evacuation_s": ("s", "time to move the host's VM memory"),
    "data_migration_s": ("s", "time to move the host's data (full data "
                         "migration)"),
    "slot_gbps": ("Gbit/s", "PCIe slot bandwidth per direction"),
    "ports_gbps": ("Gbit/s", "line rate of the ports in the slot"),
    "slot_headroom_pct": ("%", "PCIe slot bandwidth above the ports'"),
    "queue_s": ("s", "time until the queue is done (failures given up)"),
    "slowest_vm_s": ("s", "slowest single migration"),
    "not_converged": ("1", "VMs that do not converge"),
    "throttled": ("1", "VMs that converge only by throttling the guest"),
    "max_downtime_s": ("s", "largest downtime"),
    "concurrency": ("1", "concurrent migrations"),
    "concurrency_limit": ("1", "platform limit on concurrent migrations"),
    "best_concurrency": ("1", "fastest concurrency"),
    "best_total_s": ("s", "total time at the fastest concurrency"),
    "lower_bound_s": ("s", "lower bound on the total time"),
    "gap_pct": ("%", "total time above the lower bound"),
    "disk_gib": ("GiB", "disk data copied with the VMs"),
    "disk_rate_gbps": ("Gbit/s", "rate of one disk copy"),
    **{f"{order}_s": ("s", f"total time, {order.replace('_', ' ')} order")
       for order in EVACUATION_ORDERS},
    **{f"{order}_gap_pct": ("%", f"{order.replace('_', ' ')} order above "
                                 "the lower bound")
       for order in EVACUATION_ORDERS},
}

#: Families whose headline ``<family>.<key>`` repeats the first item's
#: ``<item family>.<name>.<key>`` (storage: with one workload; with
#: several it sums them, the latency their worst).
HEADLINE_OF = {"transfer": "host", "migration": "migration",
               "storage": "storage", "evacuation": "evacuation"}

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


@functools.lru_cache(maxsize=4096)
def info(metric_id):
    """(unit, label) of a metric id."""
    if metric_id in METRICS:
        return METRICS[metric_id]
    parsed = parse(metric_id)
    unit, label = METRIC_SUFFIXES[parsed.key]
    if parsed.family == "migration" and parsed.name is None:
        return unit, f"Migration: {label}"
    if parsed.family == "evacuation" and parsed.name is None:
        return unit, f"Evacuation: {label}"
    if parsed.family != "teaming" and parsed.name is None:
        return unit, label
    entry = metric_id.split('.', 1)[1].rsplit('.', 1)[0]
    return unit, f"{POLICY_SHORT_NAMES.get(entry, entry)}: {label}"
