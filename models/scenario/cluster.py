"""The cluster study of the scenario document: host groups, the
top-of-rack switches they link to and the traffic classes every host
sends."""

from typing import Literal

from pydantic import Field, model_validator

from models import cluster as cluster_model
from models.scenario.base import StrictModel, identifier
from models.scenario.limits import MAX_CLUSTER_HOSTS, MAX_NICS


class ClusterSwitch(StrictModel):
    """A top-of-rack switch the cluster's hosts link to."""

    name: str = identifier()
    rack: str = Field(default="rack1", pattern=r"^[A-Za-z0-9_.:-]+$",
                      min_length=1, description="Rack the switch "
                      "stands in; hosts linked to it are in this rack")
    uplink_gbps: float = Field(gt=0, le=102_400, description="Capacity "
                               "of the switch's uplinks to the spine or "
                               "core, each direction, all links together "
                               "[Gbit/s]")


class HostGroup(StrictModel):
    """Hosts alike: each has the document's NICs, the i-th NIC linked to
    the i-th switch of ``links`` (round robin)."""

    name: str = identifier()
    count: int = Field(default=1, ge=1, le=MAX_CLUSTER_HOSTS,
                       description="Hosts in the group")
    links: list[str] = Field(min_length=1, max_length=MAX_NICS,
                             description="Switch of each NIC, in the "
                             "order of nics (repeated when shorter)")


CLUSTER_CLASS_KINDS = ("vm", "storage", "vmotion", "backup", "management",
                       "other")


class TrafficClass(StrictModel):
    """A traffic class every host sends, with its NIOC or ETS share."""

    name: str = identifier()
    kind: Literal[CLUSTER_CLASS_KINDS] = "vm"
    demand_gbps: float = Field(default=0.0, ge=0, le=102_400,
                               description="Traffic each host sends, "
                               "each direction (storage: use read_gbps "
                               "and write_gbps) [Gbit/s]")
    read_gbps: float = Field(default=0.0, ge=0, le=102_400,
                             description="Storage class: VM reads per "
                             "host, front end [Gbit/s]")
    write_gbps: float = Field(default=0.0, ge=0, le=102_400,
                              description="Storage class: VM writes per "
                              "host, front end [Gbit/s]")
    north_south_pct: float = Field(default=0.0, ge=0, le=100,
                                   description="Share that leaves the "
                                   "cluster through the uplinks [%]")
    shares: float = Field(default=50.0, gt=0, le=100,
                          description="NIOC shares or ETS weight on every "
                          "link")
    reservation_gbps: float = Field(default=0.0, ge=0, le=102_400,
                                    description="Guaranteed bandwidth per "
                                    "link [Gbit/s]")
    limit_gbps: float | None = Field(default=None, gt=0, le=102_400,
                                     description="Cap per link [Gbit/s]")

    @model_validator(mode="after")
    def _storage_rates(self):
        if self.kind != "storage" and (self.read_gbps or self.write_gbps):
            raise ValueError(f"read_gbps and write_gbps are for kind "
                             f"'storage', not {self.kind!r}: give "
                             "demand_gbps")
        return self


CLUSTER_CASES = ("host_down", "two_hosts_down", "maintenance",
                 "switch_down", "link_down")


class Cluster(StrictModel):
    """Hosts, the switches between them and the traffic classes they
    carry; solved in normal operation and in each failure or
    maintenance case."""

    host_groups: list[HostGroup] = Field(min_length=1, max_length=64)
    switches: list[ClusterSwitch] = Field(min_length=1, max_length=256)
    classes: list[TrafficClass] = Field(min_length=1, max_length=16)
    storage_layout: Literal[tuple(cluster_model.LAYOUTS)] | None = Field(
        default=None, description="vSAN, S2D or Ceph data layout; none: "
        "no storage replication between the hosts")
    failures_to_tolerate: int = Field(default=1, ge=1, le=3,
                                      description="Host failures the data "
                                      "survives (vSAN FTT, S2D copies - 1, "
                                      "Ceph size - 1 or EC chunks m)")
    ec_data_chunks: int = Field(default=4, ge=2, le=16,
                                description="Data chunks k of a Ceph "
                                "erasure-coded pool")
    data_per_host_tib: float = Field(default=0.0, ge=0, le=10_000,
                                     description="Replicas and chunks a "
                                     "host holds: what a failed host "
                                     "leaves to rebuild [TiB]")
    rebuild_limit_gbps: float | None = Field(
        default=None, gt=0, le=102_400, description="Rebuild throttle per "
        "host (vSAN resync throttle, Ceph backfill limits); none: as much "
        "as its share gives [Gbit/s]")
    memory_per_host_gib: float = Field(default=0.0, ge=0, le=1_048_576,
                                       description="Memory of the VMs a "
                                       "host in maintenance moves away "
                                       "[GiB]")
    maintenance_moves_data: bool = Field(
        default=False, description="Maintenance moves the host's data "
        "too (vSAN 'full data migration'), not only its VMs")
    cases: list[Literal[CLUSTER_CASES]] = Field(
        default=list(CLUSTER_CASES), description="Failure and maintenance "
        "cases solved beside normal operation")

    def hosts(self):
        """Hosts in the cluster."""
        return sum(group.count for group in self.host_groups)
