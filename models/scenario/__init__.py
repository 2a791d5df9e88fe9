"""The scenario document: a typed, validated, versioned description of a host.

A scenario is plain data: the host, its NICs and teams, network settings,
workloads, named variants that override the base, and sweeps. This module
parses it from TOML or JSON *text* and serialises it back; reading and writing
files is the caller's job (``app/scenario_io.py``), so the core does no I/O.

Every error names the field path and the value, for example
``nics[1].speed_gbps: must be > 0, got -10``, and unknown keys are errors.

Parameter paths (used by variants, sweeps and recommendations) are dotted
field names with list indices: ``network.mtu``, ``nics[1].speed_gbps``.
"""

import copy
import hashlib
import json
import math
import tomllib
import weakref
from typing import Callable, Literal

import tomli_w
from pydantic import Field, ValidationError, model_validator

from models import cluster as cluster_model
from models import platform
from models.host import QUEUE_MODE_HYPERVISORS, STACK_HYPERVISORS
from models.teaming import (STEADY_PERIODS, required_flow_fields,
                            steady_horizon_s, switch_hash_fields)
from models.wire import (IP_HEADER_BYTES, L2_OVERHEAD_BYTES, UDP_HEADER_BYTES,
                         VLAN_TAG_BYTES, encapsulation_bytes)

from models.scenario.base import StrictModel, check_unique
from models.scenario.errors import ScenarioError, problems
from models.scenario.limits import (LARGEST_MAGNITUDE, MAX_CLUSTER_CELLS,
                                    MAX_CLUSTER_HOSTS, MAX_CONNECTIONS,
                                    MAX_DEVICE_CHANNELS, MAX_ENTRIES, MAX_NICS,
                                    MAX_OIO, MAX_SOLVED_ENTRIES,
                                    MAX_STORAGE_WORKLOADS, MAX_TEAMING_CELLS,
                                    MAX_TRANSFERS, SCHEMA_VERSION,
                                    SMALLEST_MAGNITUDE)
from models.scenario.paths import get_path, parse_path, set_path
from models.scenario.calibration import (Calibration, CalibrationCheck,
                                         StackCalibration)
from models.scenario.cluster import (CLUSTER_CASES, CLUSTER_CLASS_KINDS,
                                     Cluster, ClusterSwitch, HostGroup,
                                     TrafficClass)
from models.scenario.host import (Host, Meta, Network, Nic, OffloadSet,
                                  Offloads)
from models.scenario.live_migration import (Destination, DirtyModel,
                                            Evacuation, EvacuationVm,
                                            Migration)
from models.scenario.storage import Backend, StorageWorkload
from models.scenario.studies import (GOALS, Axis, Goal, Range, Span, Sweep,
                                     Variant)
from models.scenario.teams import (HASH_POLICIES, LINUX_HASH_POLICIES,
                                   TEAMING_POLICIES, WINDOWS_HASHES,
                                   NiocClass, Team)
from models.scenario.workloads import (Flow, TimeProfile, Transfer,
                                       Workloads)

#: Name of the unmodified base scenario among the compared variants.
BASE_NAME = "Base"


# --------------------------------------------------------------------------
# Document model
# --------------------------------------------------------------------------


class Scenario(StrictModel):
    """The whole scenario document.

    Build it with :func:`scenario_from_dict`, :func:`parse_scenario` or
    :meth:`with_value`, which also check the variants; the pydantic
    constructor alone does not.
    """

    schema_version: Literal[SCHEMA_VERSION]
    meta: Meta
    goal: Goal | None = None
    host: Host = Host()
    nics: list[Nic] = Field(min_length=1, max_length=MAX_NICS)
    teams: list[Team] = []
    network: Network = Network()
    workloads: Workloads = Workloads()
    variants: list[Variant] = Field(default=[], max_length=MAX_ENTRIES)
    sweeps: list[Sweep] = Field(default=[], max_length=MAX_ENTRIES)
    calibration: Calibration | None = Field(
        default=None, description="Site preset fitted by linkplan "
        "calibrate (None: the published presets)")
    cluster: Cluster | None = None

    @model_validator(mode="after")
    def _cross_references(self):
        stack = self.host.stack
        if stack is not None and \
                self.host.hypervisor not in STACK_HYPERVISORS[stack]:
            raise ValueError(
                f"host.stack {stack!r} is a preset of "
                f"{' or '.join(STACK_HYPERVISORS[stack])} hosts, not of "
                f"host.hypervisor {self.host.hypervisor!r}")
        check_unique("nics", [n.id for n in self.nics], "id")
        check_unique("teams", [t.name for t in self.teams], "name")
        check_unique("variants", [v.name for v in self.variants], "name")
        nic_ids = {n.id for n in self.nics}
        in_team = {}
        for i, team in enumerate(self.teams):
            for member in team.members + team.standby:
                if member not in nic_ids:
                    raise ValueError(f"teams[{i}] names NIC {member!r}, "
                                     "which is not in nics")
                if member in in_team:
                    raise ValueError(f"NIC {member!r} is in two teams: "
                                     f"{in_team[member]!r} and {team.name!r}")
                in_team[member] = team.name
        teams = {t.name for t in self.teams}
        check_unique("workloads.transfers",
                     [t.name for t in self.workloads.transfers], "name")
        for i, transfer in enumerate(self.workloads.transfers):
            where = f"workloads.transfers[{i}]"
            allowed = QUEUE_MODE_HYPERVISORS[transfer.receive_queues]
            if self.host.hypervisor not in allowed:
                raise ValueError(
                    f"{where}.receive_queues {transfer.receive_queues!r} "
                    f"does not exist on host.hypervisor "
                    f"{self.host.hypervisor!r} (only on "
                    f"{', '.join(allowed)})")
            if transfer.via is not None and transfer.via not in teams:
                raise ValueError(f"{where}.via names team {transfer.via!r}, "
                                 "which is not in teams")
            if transfer.via is not None and transfer.nics:
                raise ValueError(f"{where}: give via (a team) or nics, "
                                 "not both")
            for nic in transfer.nics:
                if nic not in nic_ids:
                    raise ValueError(f"{where}.nics names NIC {nic!r}, "
                                     "which is not in nics")
        transfers = {t.name for t in self.workloads.transfers}
        check_unique("workloads.migrations",
                     [m.name for m in self.workloads.migrations], "name")
        for i, item in enumerate(self.workloads.migrations):
            if item.transfer is not None and item.transfer not in transfers:
                raise ValueError(f"workloads.migrations[{i}].transfer names "
                                 f"{item.transfer!r}, which is not in "
                                 "workloads.transfers")
            self._check_migration_modes(i, item)
        for i, transfer in enumerate(self.workloads.transfers):
            self._check_compressor(f"workloads.transfers[{i}]", transfer)
            if transfer.transport == "rdma":
                self._check_rdma_nic(f"workloads.transfers[{i}]")
        check_unique("workloads.evacuations",
                     [e.name for e in self.workloads.evacuations], "name")
        by_name = {t.name: t for t in self.workloads.transfers}
        for i, item in enumerate(self.workloads.evacuations):
            if item.transfer not in transfers:
                raise ValueError(f"workloads.evacuations[{i}].transfer names "
                                 f"{item.transfer!r}, which is not in "
                                 "workloads.transfers")
            if by_name[item.transfer].transport == "udp":
                raise ValueError(
                    f"workloads.evacuations[{i}].transfer names "
                    f"{item.transfer!r}, whose transport is 'udp': "
                    "migrations run over TCP or RDMA")
        self._check_datagrams()
        check_unique("workloads.storage",
                     [w.name for w in self.workloads.storage], "name")
        for i, item in enumerate(self.workloads.storage):
            for nic in item.nics:
                if nic not in nic_ids:
                    raise ValueError(f"workloads.storage[{i}].nics names "
                                     f"NIC {nic!r}, which is not in nics")
            self._check_storage_transport(i, item)
        self._check_platform()
        self._check_flows({t.name: t for t in self.teams})
        self._check_pcie_slots()
        for i, team in enumerate(self.teams):
            self._check_reservations(i, team)
            self._check_team_size(i, team)
        self._check_solved_entries()
        self._check_cluster()
        if any(v.name == BASE_NAME for v in self.variants):
            raise ValueError(f"a variant may not be called {BASE_NAME!r}: "
                             "that name is the base scenario")
        return self

    def _check_cluster(self):
        """A cluster's references, its storage layout against its hosts
        and platform, and its study within MAX_CLUSTER_CELLS."""
        cluster = self.cluster
        if cluster is None:
            return
        check_unique("cluster.host_groups",
                     [g.name for g in cluster.host_groups], "name")
        check_unique("cluster.switches",
                     [s.name for s in cluster.switches], "name")
        check_unique("cluster.classes", [c.name for c in cluster.classes],
                     "name")
        names = [s.name for s in cluster.switches]
        for i, group in enumerate(cluster.host_groups):
            for j, link in enumerate(group.links):
                if link not in names:
                    raise ValueError(
                        f"cluster.host_groups[{i}].links[{j}] {link!r} is "
                        f"no switch of cluster.switches ({', '.join(names)})")
        hosts = cluster.hosts()
        if not 2 <= hosts <= MAX_CLUSTER_HOSTS:
            raise ValueError(f"cluster.host_groups: a cluster has 2 to "
                             f"{MAX_CLUSTER_HOSTS} hosts, got {hosts}")
        storage = [c.name for c in cluster.classes if c.kind == "storage"]
        if len(storage) > 1:
            raise ValueError("cluster.classes: one class of kind 'storage', "
                             f"got {', '.join(storage)}")
        self._check_cluster_storage(storage)
        groups, nics = len(cluster.host_groups), len(self.nics)
        cases = 1 + groups * (3 + nics) + len(cluster.switches)
        cells = cases * hosts * nics * (len(cluster.classes) + 1)
        if cells > MAX_CLUSTER_CELLS:
            raise ValueError(
                f"cluster: {cases} cases x {hosts} hosts x {nics} NICs x "
                f"{len(cluster.classes) + 1} classes is {cells:,} cells, "
                f"above {MAX_CLUSTER_CELLS:,}: fewer host groups or hosts")

    def _check_cluster_storage(self, storage):
        cluster = self.cluster
        layout = cluster.storage_layout
        if layout is None:
            if any(c.read_gbps or c.write_gbps for c in cluster.classes):
                raise ValueError(
                    f"cluster.classes {storage[0]!r} has read_gbps or "
                    "write_gbps but cluster.storage_layout is not set")
            return
        if not storage:
            raise ValueError(f"cluster.storage_layout {layout!r} needs a "
                             "class of kind 'storage' in cluster.classes "
                             "(its replication and rebuild traffic ride it)")
        owner = {"vsan": "vsphere", "s2d": "hyperv"}.get(
            layout.partition("_")[0])
        if owner is not None and self.host.hypervisor != owner:
            raise ValueError(
                f"cluster.storage_layout {layout!r} runs on "
                f"host.hypervisor {owner!r}, not "
                f"{self.host.hypervisor!r}")
        ftt = cluster.failures_to_tolerate
        fixed = {"vsan_osa_raid5": 1, "vsan_esa_raid5": 1,
                 "vsan_osa_raid6": 2, "vsan_esa_raid6": 2, "s2d_parity": 2}
        if fixed.get(layout, ftt) != ftt:
            raise ValueError(
                f"cluster.failures_to_tolerate {ftt}: cluster.storage_layout "
                f"{layout!r} tolerates exactly {fixed[layout]} host "
                "failure(s)")
        needed = cluster_model.minimum_hosts(layout, ftt,
                                             cluster.ec_data_chunks)
        if cluster.hosts() < needed:
            raise ValueError(
                f"cluster.failures_to_tolerate {ftt} with "
                f"cluster.storage_layout {layout!r} needs at least "
                f"{needed} hosts, the cluster has {cluster.hosts()}")

    def _check_platform(self):
        """What the document asks of the host must be what its hypervisor
        offers (models.platform): transports, storage protocols and their
        RDMA variants, and the options of its release."""
        hypervisor, stack = self.host.hypervisor, self.host.stack
        release = self.host.release
        if release is not None:
            try:
                platform.parse_release(hypervisor, release)
            except ValueError as err:
                raise ValueError(f"host.release: {err}") from None

        def lacks(where, capability):
            problem = platform.release_lacks(hypervisor, release, capability)
            if problem:
                raise ValueError(f"{where}: {problem}")

        for i, team in enumerate(self.teams):
            offered = platform.teaming_policies(hypervisor)
            if team.policy not in offered:
                raise ValueError(f"teams[{i}].policy: " + platform.refusal(
                    hypervisor, "teaming", team.policy, offered))
            lacks(f"teams[{i}].policy", f"teaming:{team.policy}")
        if self.host.vmotion_auto_streams and hypervisor != "vsphere":
            raise ValueError(
                "host.vmotion_auto_streams true is vSphere's (7.0 U2 and "
                f"later); host.hypervisor is {hypervisor!r}")
        if self.host.vmotion_auto_streams:
            lacks("host.vmotion_auto_streams", "vmotion_auto_streams")
        for i, item in enumerate(self.workloads.transfers):
            offered = platform.transfer_transports(hypervisor, item.purpose,
                                                   stack)
            if offered is not None and item.transport not in offered:
                raise ValueError(
                    f"workloads.transfers[{i}].transport ({item.purpose}): "
                    + platform.refusal(hypervisor, "migration"
                                       if item.purpose == "live_migration"
                                       else "host", item.transport, offered))
            if item.purpose == "live_migration":
                lacks(f"workloads.transfers[{i}].transport",
                      f"migration:{item.transport}")
        for i, item in enumerate(self.workloads.migrations):
            where = f"workloads.migrations[{i}]"
            offered = platform.migration_transports(hypervisor)
            if item.transfer is None and item.transport not in offered:
                raise ValueError(f"{where}.transport: " + platform.refusal(
                    hypervisor, "migration", item.transport, offered))
            if item.transfer is None:
                lacks(f"{where}.transport", f"migration:{item.transport}")
            rules = platform.stop_rules(hypervisor)
            if item.stop_rule not in rules:
                owner = platform.STOP_RULE_PLATFORMS[item.stop_rule]
                raise ValueError(
                    f"{where}.stop_rule {item.stop_rule!r} is "
                    f"{platform.PLATFORM_NAMES[owner]}'s; host.hypervisor "
                    f"{hypervisor!r} migrates by "
                    + " or ".join(map(repr, rules)))
            if hypervisor == "kvm" and item.stop_rule == "qemu":
                used = [("multifd", item.multifd),
                        ("switchover:postcopy", item.switchover != "precopy"),
                        ("throttling:auto_converge",
                         item.throttling == "auto_converge"),
                        ("rdma", item.transport == "rdma")]
                for option, asked in used:
                    problem = asked and platform.qemu_release_lacks(
                        option, item.qemu_version)
                    if problem:
                        raise ValueError(f"{where}: {problem}")
        for i, item in enumerate(self.workloads.evacuations):
            offered = platform.EVACUATION_PLATFORMS[hypervisor]
            if item.platform not in offered:
                raise ValueError(
                    f"workloads.evacuations[{i}].platform {item.platform!r}"
                    f" does not run on host.hypervisor {hypervisor!r} "
                    f"({platform.PLATFORM_NAMES[hypervisor]}: "
                    f"{', '.join(map(repr, offered))})")
        guest = stack in platform.GUEST_STACKS
        for i, item in enumerate(self.workloads.storage):
            where = f"workloads.storage[{i}]"
            own = item.protocol in platform.OWN_DATA_PATHS
            offered = platform.storage_protocols(hypervisor)
            if item.protocol not in offered and (own or not guest):
                raise ValueError(f"{where}.protocol: " + platform.refusal(
                    hypervisor, "storage", item.protocol, offered))
            lacks(f"{where}.protocol", f"storage:{item.protocol}")
            if item.protocol != "local":
                lacks(f"{where}.transport",
                      f"storage:{item.protocol}+{item.transport or 'tcp'}")
            over = platform.storage_transports(hypervisor, item.protocol)
            if item.transport is not None and over is not None \
                    and over and item.transport not in over:
                raise ValueError(
                    f"{where}.transport {item.transport!r}: "
                    f"{item.protocol} on {platform.PLATFORM_NAMES[hypervisor]}"
                    f" runs over {' or '.join(over)} only")
            if own and item.sessions_per_path is not None:
                raise ValueError(
                    f"{where}.sessions_per_path "
                    f"{item.sessions_per_path}: {item.protocol} is the "
                    "platform's own data path, with no sessions to set "
                    f"({platform.OWN_DATA_PATHS[item.protocol]}); leave it "
                    "unset")

    def _check_migration_modes(self, index, item):
        """Post-copy, multifd and QEMU's RDMA transport exist on QEMU/KVM
        only; each needs what it names."""
        where = f"workloads.migrations[{index}]"
        qemu = item.stop_rule == "qemu" and self.host.hypervisor == "kvm"
        platform = (f"host.hypervisor {self.host.hypervisor!r} with "
                    f"stop_rule {item.stop_rule!r}")
        if item.switchover != "precopy" and not qemu:
            raise ValueError(
                f"{where}.switchover {item.switchover!r}: post-copy exists "
                f"in QEMU/KVM only (hypervisor 'kvm', stop_rule 'qemu'); "
                f"{platform} has none (vMotion and Hyper-V live migration "
                "are pre-copy only)")
        if item.switchover == "postcopy_at_time_budget" \
                and item.time_budget_s is None:
            raise ValueError(
                f"{where}.switchover 'postcopy_at_time_budget' needs "
                "time_budget_s (KubeVirt: completionTimeoutPerGiB x memory "
                "GiB), got none")
        if item.multifd and not qemu:
            raise ValueError(f"{where}.multifd true: multifd is QEMU's; "
                             f"{platform} is not QEMU/KVM")
        if item.transport == "rdma":
            if not qemu:
                raise ValueError(
                    f"{where}.transport 'rdma' is QEMU's RDMA migration "
                    f"transport; {platform} is not QEMU/KVM (Hyper-V: "
                    "transport 'smb_direct')")
            if item.multifd:
                raise ValueError(f"{where}: transport 'rdma' and multifd "
                                 "true do not combine in QEMU")
            if item.transfer is None:
                self._check_rdma_nic(where)
        if item.rdma_pin_all and item.transport != "rdma":
            raise ValueError(f"{where}.rdma_pin_all true needs transport "
                             f"'rdma', got {item.transport!r}")
        if item.transfer is None:
            self._check_compressor(where, item)
        if item.compressor is not None and item.stop_rule == "qemu":
            self._check_qemu_compressor(where, item)

    @staticmethod
    def _check_qemu_compressor(where, item):
        """Which compressors the QEMU release offers: the legacy compress
        threads (zlib only, removed in 9.1) or multifd compression (zlib
        and zstd from 5.0, QATzip from 9.2)."""
        release = tuple(int(x) for x in item.qemu_version.split("."))
        family = item.compressor.split("-")[0]
        name = f"{where}.compressor {item.compressor!r}"
        if not item.multifd:
            if release >= (9, 1):
                raise ValueError(
                    f"{name}: QEMU {item.qemu_version} has no legacy compress "
                    "threads (removed in 9.1); set multifd true")
            if family != "zlib":
                raise ValueError(f"{name}: QEMU's legacy compress threads "
                                 "use zlib only; set multifd true")
            return
        since = {"zlib": (5, 0), "zstd": (5, 0), "qpl": (9, 1),
                 "qatzip": (9, 2)}.get(family)
        if since is None:
            raise ValueError(f"{name}: QEMU multifd compresses with zlib, "
                             "zstd, qpl or qatzip only")
        if release < since:
            raise ValueError(
                f"{name}: QEMU multifd offers it from "
                f"{since[0]}.{since[1]}, got qemu_version "
                f"{item.qemu_version!r}")

    def _check_compressor(self, where, item):
        if item.compressor is not None and item.transport != "compression":
            raise ValueError(f"{where}.compressor {item.compressor!r} needs "
                             "transport 'compression', got "
                             f"{item.transport!r}")
        if item.compression_data != "ratio" and item.compressor is None:
            raise ValueError(f"{where}.compression_data "
                             f"{item.compression_data!r} needs a compressor "
                             "(an algorithm), got none")

    def _check_rdma_nic(self, where):
        if all(n.rdma == "none" for n in self.nics):
            raise ValueError(f"{where}.transport 'rdma' needs an "
                             "RDMA-capable NIC (nics[*].rdma 'roce_v2', "
                             "'iwarp' or 'infiniband'); every NIC has rdma "
                             "'none'")

    def _check_storage_transport(self, i, item):
        where = f"workloads.storage[{i}].transport"
        if item.transport is None:
            return
        if item.protocol == "local":
            raise ValueError(f"{where}: local IO crosses no network, so it "
                             f"has no transport, got {item.transport!r}")
        if item.transport != "rdma":
            return
        used = [n for n in self.nics if n.id in item.nics] or self.nics[:1]
        plain = [n.id for n in used if n.rdma == "none"]
        if plain:
            raise ValueError(f"{where} 'rdma' needs RDMA NICs, but NIC(s) "
                             f"{', '.join(map(repr, plain))} have rdma = "
                             "'none'")

    def _check_datagrams(self):
        """UDP transfers in frames of ``network.frame_size_bytes`` need a
        frame that holds the headers and at least one byte of data."""
        size = self.network.frame_size_bytes
        if size is None:
            return
        net = self.network
        headers = (L2_OVERHEAD_BYTES + VLAN_TAG_BYTES * net.vlan_tags
                   + IP_HEADER_BYTES[net.ip_version] + UDP_HEADER_BYTES
                   + int(encapsulation_bytes(
                       net.encapsulation, net.underlay_ip_version,
                       geneve_option_bytes=net.geneve_option_bytes)))
        for i, item in enumerate(self.workloads.transfers):
            if item.transport == "udp" and size <= headers:
                raise ValueError(
                    f"network.frame_size_bytes {size} leaves no UDP "
                    f"payload for workloads.transfers[{i}] "
                    f"({item.name!r}): MAC header, FCS, tags, IPv"
                    f"{net.ip_version}, UDP (and overlay) headers take "
                    f"{headers} B; give at least {headers + 1}")

    def _check_pcie_slots(self):
        links = {}
        for i, nic in enumerate(self.nics):
            if nic.pcie_slot is None:
                continue
            link = (nic.pcie_gen, nic.pcie_lanes, nic.pcie_max_payload_bytes)
            first = links.setdefault(nic.pcie_slot, (i, link))
            if first[1] != link:
                raise ValueError(
                    f"nics[{i}].pcie_slot {nic.pcie_slot!r} is also "
                    f"nics[{first[0]}]'s: ports of one slot need the same "
                    "pcie_gen, pcie_lanes and pcie_max_payload_bytes, got "
                    f"{link} and {first[1]}")

    def _check_flows(self, teams):
        profiles = {p.name for p in self.workloads.profiles}
        check_unique("workloads.flows", [f.id for f in self.workloads.flows],
                     "id")
        owners = {"port_id": {}, "mac": {}}
        for i, flow in enumerate(self.workloads.flows):
            where = f"workloads.flows[{i}]"
            if flow.profile is not None and flow.profile not in profiles:
                raise ValueError(f"{where}.profile names {flow.profile!r}, "
                                 "which is not in workloads.profiles")
            if flow.team is not None and flow.team not in teams:
                raise ValueError(f"{where}.team names {flow.team!r}, which "
                                 "is not in teams")
            if flow.team is None and len(teams) > 1:
                raise ValueError(f"{where}.team: required when there are "
                                 f"several teams ({', '.join(teams)})")
            team = teams.get(flow.team) if flow.team else \
                next(iter(teams.values()), None)
            uplinks = set(team.members + team.standby) if team else set()
            if team is not None:
                needed = required_flow_fields(team.policy, team.hash,
                                              self.host.hypervisor)
                for field in needed:
                    if getattr(flow, field) is None:
                        raise ValueError(
                            f"{where}.{field} is required: team "
                            f"{team.name!r} uses policy {team.policy!r}"
                            + (f" with hash {team.hash!r}" if team.hash
                               else ""))
                for field in switch_hash_fields(team.switch_hash) \
                        if team.switch_hash else ():
                    if getattr(flow, field) is None:
                        raise ValueError(
                            f"{where}.{field} is required: team "
                            f"{team.name!r}'s switch_hash "
                            f"{team.switch_hash!r} reads it")
            for nic in flow.pin:
                if nic not in uplinks:
                    raise ValueError(f"{where}.pin names {nic!r}, which is "
                                     "not an uplink of its team")
            # one vNIC port or MAC belongs to one VM: a duplicate would
            # silently merge two VMs' traffic
            owner = flow.vm or flow.id
            for key in owners:
                value = getattr(flow, key)
                if value is None:
                    continue
                value = value.lower() if key == "mac" else value
                seen = owners[key].setdefault(value, owner)
                if seen != owner:
                    raise ValueError(f"{where}.{key} {value!r} is also used "
                                     f"by VM {seen!r}")

    def _check_team_size(self, index, team):
        """The team simulation's cells (MAX_TEAMING_CELLS) within bounds:
        the same time axis and failure sets as solvers.teaming."""
        flows = [f for f in self.workloads.flows
                 if (f.team or self.teams[0].name) == team.name]
        if not flows:
            return
        profiles = {p.name: p for p in self.workloads.profiles}
        horizon = max((profiles[f.profile].t_s[-1] for f in flows
                       if f.profile), default=0.0)
        if horizon <= 0:
            horizon = float(steady_horizon_s(
                team.lbt_period_s, team.ovs_rebalance_interval_ms / 1000,
                team.dynamic_epoch_s))
        steps = math.ceil(horizon / self.workloads.time_step_s) + 1
        uplinks = len(team.members) + len(team.standby)
        failure_sets = math.comb(uplinks, min(team.failures, uplinks - 1)) \
            if uplinks > 1 else 0
        cells = steps * len(flows) * (failure_sets + 1)
        if cells > MAX_TEAMING_CELLS:
            raise ValueError(
                f"teams[{index}] ({team.name!r}): {steps:,} time steps "
                f"(workloads.time_step_s over the profile or "
                f"{STEADY_PERIODS} rebalancing periods) x {len(flows):,} "
                f"flows x {failure_sets + 1:,} uplink sets (failures = "
                f"{team.failures} of {uplinks}) = {cells:,} cells, more "
                f"than the {MAX_TEAMING_CELLS:,} the teaming model "
                "simulates")

    def _check_solved_entries(self):
        """Every variant solves the whole workload again: the product is
        what evaluation time grows with."""
        load = self.workloads
        entries = max(1, len(load.transfers) + len(load.migrations)
                      + len(load.storage) + len(load.evacuations))
        solved = entries * (1 + len(self.variants))
        if solved > MAX_SOLVED_ENTRIES:
            raise ValueError(
                f"workloads ({entries:,} transfers, migrations, storage "
                f"workloads and evacuations) x (1 + {len(self.variants):,} "
                f"variants) = {solved:,} entries to solve, more than "
                f"{MAX_SOLVED_ENTRIES:,}")

    def _check_reservations(self, index, team):
        reserved = sum(c.reservation_gbps for c in team.nioc)
        if not reserved:
            return
        speeds = {n.id: n.speed_gbps for n in self.nics}
        slowest = min(speeds[m] for m in team.members + team.standby)
        # vSphere admits system reservations up to 75 % of the slowest
        # adapter's capacity (NIOC v3; validation case V5)
        if reserved > 0.75 * slowest:
            raise ValueError(
                f"teams[{index}].nioc: reservations total {reserved:g} "
                f"Gbit/s, above 75 % of the slowest uplink ({slowest:g} "
                f"Gbit/s), which vSphere does not admit")

    # -- derived documents -------------------------------------------------

    def variant_documents(self):
        """The base and every variant, each as a scenario without variants.

        Returns
        -------
        list of (str, Scenario)
            ``(BASE_NAME, base)`` first, then one entry per variant in file
            order.
        """
        key = id(self)
        known = _RESOLVED.get(key)
        if known is not None and known[0]() is self:
            return list(known[1])
        base = self.model_copy(update={"variants": [], "sweeps": []})
        resolved = [(BASE_NAME, base)]
        for index, variant in enumerate(self.variants):
            resolved.append((variant.name,
                             _resolve_variant(base, index, variant)))
        _RESOLVED[key] = (weakref.ref(self, lambda _: _RESOLVED.pop(key,
                                                                    None)),
                          tuple(resolved))
        return resolved

    def value_at(self, path):
        """The value at a parameter path, e.g. ``'network.mtu'``."""
        return get_path(self.model_dump(mode="json"), path)

    def with_value(self, path, value):
        """A new, validated scenario with one parameter changed."""
        return self.with_values({path: value})

    def with_values(self, changes):
        """A new, validated scenario with several parameters changed at
        once (path -> value), validated only as a whole."""
        data = self.model_dump(mode="json")
        for path, value in changes.items():
            set_path(data, path, value)
        return scenario_from_dict(data)

    def sha256(self):
        """SHA-256 of the canonical JSON form (independent of file format,
        key order and whitespace, and of fields left at their defaults, so
        that a new schema field with a default leaves every hash as it
        was)."""
        return hashlib.sha256(canonical_json(self).encode()).hexdigest()


#: The resolved variants of each live scenario, by ``id``, with a weak
#: reference that tells a live one from a later object of the same id:
#: a scenario is frozen, and resolving validates every variant, which a
#: loaded file has already paid once (:func:`scenario_from_dict` resolves
#: them all to check them).
_RESOLVED = {}


def _resolve_variant(base, index, variant):
    # Only the top-level fields a change touches are dumped and validated
    # again; the others are the base's validated objects, which pydantic
    # takes as they are (it does not revalidate model instances), and the
    # document's own checks (cross-references) run on the whole.
    touched = {path.split(".", 1)[0].split("[", 1)[0] for path in variant.set}
    data = base.model_dump(mode="json", include=touched)
    prefix = f"variants[{index}] ({variant.name!r})"
    for path, value in variant.set.items():
        try:
            set_path(data, path, value)
        except KeyError as err:
            raise ScenarioError([(f'{prefix}.set."{path}"',
                                  err.args[0])]) from None
    kept = {name: getattr(base, name) for name in Scenario.model_fields
            if name not in data}
    try:
        return Scenario.model_validate({**kept, **data})
    except ValidationError as err:
        raise ScenarioError([(f"{prefix}: {path}", message)
                             for path, message in problems(err)]) from None


# --------------------------------------------------------------------------
# Parameter paths
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# Versions and migrations
# --------------------------------------------------------------------------

#: Migrators by the version they upgrade from: ``MIGRATIONS[n]`` turns a
#: plain-data document of version ``n`` into version ``n + 1``. Empty while
#: version 1 is the only one released.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {}


def migrate(data, *, target=SCHEMA_VERSION, migrations=None):
    """Upgrade a plain-data document to ``target`` through the migrators.

    Each step works on a copy: when a migrator raises, the caller's data is
    untouched and the error names the step.

    Returns
    -------
    dict
        The document at version ``target`` (``data`` itself when it is
        already there).

    Raises
    ------
    ScenarioError
        No version, a version newer than ``target``, a missing step, or a
        failing migrator.
    """
    migrations = MIGRATIONS if migrations is None else migrations
    version = data.get("schema_version")
    if version is None:
        raise ScenarioError([("schema_version", "required field is missing "
                              f"(this build writes {target})")])
    if type(version) is not int or version < 1:
        raise ScenarioError([("schema_version", "must be a whole number "
                              f">= 1, got {version!r}")])
    if version > target:
        raise ScenarioError([("schema_version", f"{version} is newer than "
                              f"this build of Linkplan reads ({target}); "
                              "update Linkplan")])
    while version < target:
        step = migrations.get(version)
        if step is None:
            raise ScenarioError([("schema_version", f"no migration from "
                                  f"version {version} to {version + 1}")])
        try:
            data = step(copy.deepcopy(data))
        except Exception as err:  # a migrator bug must not lose the file
            raise ScenarioError([("schema_version", f"migrating from "
                                  f"version {version} failed: {err}")]) \
                from err
        version += 1
        data["schema_version"] = version
    return data


# --------------------------------------------------------------------------
# Parsing and serialising
# --------------------------------------------------------------------------

def scenario_from_dict(data, *, source=None):
    """Validate a plain-data document (after migration) into a Scenario.

    Raises
    ------
    ScenarioError
        With every problem, each naming its field path and value.
    """
    if not isinstance(data, dict):
        raise ScenarioError([("", "the document must be a table/object, "
                              f"got {type(data).__name__}")], source)
    try:
        data = migrate(data)
        scenario = Scenario.model_validate(data)
        scenario.variant_documents()  # every variant must validate too
    except ValidationError as err:
        raise ScenarioError(problems(err), source) from None
    except ScenarioError as err:
        raise ScenarioError(err.problems, source) from None
    return scenario


def parse_scenario(text, fmt, *, source=None):
    """Parse scenario text.

    Parameters
    ----------
    text : str
        The document.
    fmt : {'toml', 'json'}
        Its format.
    source : str, optional
        A file name to prefix error messages with.

    Raises
    ------
    ScenarioError
        Malformed text or an invalid document.
    """
    if fmt == "toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ScenarioError([("", f"malformed TOML: {err}")],
                                source) from None
    elif fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScenarioError([("", f"malformed JSON: {err.msg} at line "
                                  f"{err.lineno} column {err.colno}")],
                                source) from None
    else:
        raise ValueError(f"fmt must be 'toml' or 'json', got {fmt!r}")
    return scenario_from_dict(data, source=source)


def dump_scenario(scenario, fmt, *, minimal=False):
    """Serialise a scenario to TOML or JSON text (fields left at None are
    omitted: TOML has no null; with ``minimal``, so are fields at their
    default)."""
    data = scenario_data(scenario, minimal=minimal)
    if fmt == "toml":
        return tomli_w.dumps(data)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"fmt must be 'toml' or 'json', got {fmt!r}")


def scenario_data(scenario, *, minimal=False):
    """The document as plain data for a file: no None (TOML has no null);
    with ``minimal``, no field at its default either."""
    return scenario.model_dump(mode="json", exclude_none=True,
                               exclude_defaults=minimal)


def canonical_json(scenario):
    """Key-sorted, compact JSON of the minimal document (no field at its
    default): the form hashed by :meth:`Scenario.sha256`."""
    return json.dumps(_without_empty_tables(scenario_data(scenario,
                                                          minimal=True)),
                      sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)


def _without_empty_tables(data):
    # A table left with no field away from its default says what its
    # absence says: both hash the same.
    if isinstance(data, dict):
        pruned = {key: _without_empty_tables(value)
                  for key, value in data.items()}
        return {key: value for key, value in pruned.items() if value != {}}
    if isinstance(data, list):
        return [_without_empty_tables(item) for item in data]
    return data


def json_schema():
    """The JSON Schema of the scenario document."""
    return Scenario.model_json_schema()


# --------------------------------------------------------------------------
# Error messages
# --------------------------------------------------------------------------


def new_scenario():
    """A minimal valid scenario: one 10 GbE NIC, every other field at its
    default. What File > New starts from."""
    return scenario_from_dict({
        "schema_version": SCHEMA_VERSION,
        "meta": {"name": "Untitled scenario"},
        "nics": [{"id": "nic0", "speed_gbps": 10.0}],
    })
