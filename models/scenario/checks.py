"""Cross-field checks of the scenario document: what no table can check
alone, because it spans tables (names one table gives and another refers
to, what the host's hypervisor and release offer, sizes of the studies the
solvers run). Each raises ValueError naming the field paths and values;
the document's validator (:class:`Scenario`) runs them in this order."""

import math

from models import cluster as cluster_model
from models import platform
from models.compression import OFFLOAD_ENGINE
from models.cpu import ACCELERATORS, CPU_GENERATIONS, generations_with
from models.host import QUEUE_MODE_HYPERVISORS, STACK_HYPERVISORS
from models.scenario.base import check_unique
from models.scenario.limits import (MAX_CLUSTER_CELLS, MAX_CLUSTER_HOSTS,
                                    MAX_SOLVED_ENTRIES, MAX_TEAMING_CELLS)
from models.scenario.variants import BASE_NAME
from models.teaming import (STEADY_PERIODS, required_flow_fields,
                            steady_horizon_s, switch_hash_fields)
from models.wire import (IP_HEADER_BYTES, L2_OVERHEAD_BYTES,
                         UDP_HEADER_BYTES, VLAN_TAG_BYTES,
                         encapsulation_bytes)


def check_cross_references(scenario):
    """Check what spans the tables of a scenario (pydantic runs it after
    validating every table).

    Raises
    ------
    ValueError
        The first problem found, naming the field paths and values.
    """
    stack = scenario.host.stack
    if stack is not None and \
            scenario.host.hypervisor not in STACK_HYPERVISORS[stack]:
        raise ValueError(
            f"host.stack {stack!r} is a preset of "
            f"{' or '.join(STACK_HYPERVISORS[stack])} hosts, not of "
            f"host.hypervisor {scenario.host.hypervisor!r}")
    check_unique("nics", [n.id for n in scenario.nics], "id")
    check_unique("teams", [t.name for t in scenario.teams], "name")
    check_unique("variants", [v.name for v in scenario.variants], "name")
    nic_ids = {n.id for n in scenario.nics}
    in_team = {}
    for i, team in enumerate(scenario.teams):
        for member in team.members + team.standby:
            if member not in nic_ids:
                raise ValueError(f"teams[{i}] names NIC {member!r}, "
                                 "which is not in nics")
            if member in in_team:
                raise ValueError(f"NIC {member!r} is in two teams: "
                                 f"{in_team[member]!r} and {team.name!r}")
            in_team[member] = team.name
    teams = {t.name for t in scenario.teams}
    check_unique("workloads.transfers",
                 [t.name for t in scenario.workloads.transfers], "name")
    for i, transfer in enumerate(scenario.workloads.transfers):
        where = f"workloads.transfers[{i}]"
        allowed = QUEUE_MODE_HYPERVISORS[transfer.receive_queues]
        if scenario.host.hypervisor not in allowed:
            raise ValueError(
                f"{where}.receive_queues {transfer.receive_queues!r} "
                f"does not exist on host.hypervisor "
                f"{scenario.host.hypervisor!r} (only on "
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
    transfers = {t.name for t in scenario.workloads.transfers}
    check_unique("workloads.migrations",
                 [m.name for m in scenario.workloads.migrations], "name")
    for i, item in enumerate(scenario.workloads.migrations):
        if item.transfer is not None and item.transfer not in transfers:
            raise ValueError(f"workloads.migrations[{i}].transfer names "
                             f"{item.transfer!r}, which is not in "
                             "workloads.transfers")
        _check_migration_modes(scenario, i, item)
    for i, transfer in enumerate(scenario.workloads.transfers):
        _check_compressor(scenario, f"workloads.transfers[{i}]", transfer)
        if transfer.transport == "rdma":
            _check_rdma_nic(scenario, f"workloads.transfers[{i}]")
    check_unique("workloads.evacuations",
                 [e.name for e in scenario.workloads.evacuations], "name")
    by_name = {t.name: t for t in scenario.workloads.transfers}
    for i, item in enumerate(scenario.workloads.evacuations):
        if item.transfer not in transfers:
            raise ValueError(f"workloads.evacuations[{i}].transfer names "
                             f"{item.transfer!r}, which is not in "
                             "workloads.transfers")
        if by_name[item.transfer].transport == "udp":
            raise ValueError(
                f"workloads.evacuations[{i}].transfer names "
                f"{item.transfer!r}, whose transport is 'udp': "
                "migrations run over TCP or RDMA")
    _check_datagrams(scenario)
    check_unique("workloads.storage",
                 [w.name for w in scenario.workloads.storage], "name")
    for i, item in enumerate(scenario.workloads.storage):
        for nic in item.nics:
            if nic not in nic_ids:
                raise ValueError(f"workloads.storage[{i}].nics names "
                                 f"NIC {nic!r}, which is not in nics")
        _check_storage_transport(scenario, i, item)
    _check_platform(scenario)
    _check_flows(scenario, {t.name: t for t in scenario.teams})
    _check_pcie_slots(scenario)
    for i, team in enumerate(scenario.teams):
        _check_reservations(scenario, i, team)
        _check_team_size(scenario, i, team)
    _check_solved_entries(scenario)
    _check_cluster(scenario)
    if any(v.name == BASE_NAME for v in scenario.variants):
        raise ValueError(f"a variant may not be called {BASE_NAME!r}: "
                         "that name is the base scenario")


def _check_cluster(scenario):
    """A cluster's references, its storage layout against its hosts
    and platform, and its study within MAX_CLUSTER_CELLS."""
    cluster = scenario.cluster
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
    _check_cluster_storage(scenario, storage)
    groups, nics = len(cluster.host_groups), len(scenario.nics)
    cases = 1 + groups * (3 + nics) + len(cluster.switches)
    cells = cases * hosts * nics * (len(cluster.classes) + 1)
    if cells > MAX_CLUSTER_CELLS:
        raise ValueError(
            f"cluster: {cases} cases x {hosts} hosts x {nics} NICs x "
            f"{len(cluster.classes) + 1} classes is {cells:,} cells, "
            f"above {MAX_CLUSTER_CELLS:,}: fewer host groups or hosts")


def _check_cluster_storage(scenario, storage):
    cluster = scenario.cluster
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
    if owner is not None and scenario.host.hypervisor != owner:
        raise ValueError(
            f"cluster.storage_layout {layout!r} runs on "
            f"host.hypervisor {owner!r}, not "
            f"{scenario.host.hypervisor!r}")
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


def _check_platform(scenario):
    """What the document asks of the host must be what its hypervisor
    offers (models.platform): transports, storage protocols and their
    RDMA variants, and the options of its release."""
    hypervisor, stack = scenario.host.hypervisor, scenario.host.stack
    release = scenario.host.release
    if release is not None:
        try:
            platform.parse_release(hypervisor, release)
        except ValueError as err:
            raise ValueError(f"host.release: {err}") from None

    def lacks(where, capability):
        problem = platform.release_lacks(hypervisor, release, capability)
        if problem:
            raise ValueError(f"{where}: {problem}")

    for i, team in enumerate(scenario.teams):
        offered = platform.teaming_policies(hypervisor)
        if team.policy not in offered:
            raise ValueError(f"teams[{i}].policy: " + platform.refusal(
                hypervisor, "teaming", team.policy, offered))
        lacks(f"teams[{i}].policy", f"teaming:{team.policy}")
    if scenario.host.vmotion_auto_streams and hypervisor != "vsphere":
        raise ValueError(
            "host.vmotion_auto_streams true is vSphere's (7.0 U2 and "
            f"later); host.hypervisor is {hypervisor!r}")
    if scenario.host.vmotion_auto_streams:
        lacks("host.vmotion_auto_streams", "vmotion_auto_streams")
    for i, item in enumerate(scenario.workloads.transfers):
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
    for i, item in enumerate(scenario.workloads.migrations):
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
    for i, item in enumerate(scenario.workloads.evacuations):
        offered = platform.EVACUATION_PLATFORMS[hypervisor]
        if item.platform not in offered:
            raise ValueError(
                f"workloads.evacuations[{i}].platform {item.platform!r}"
                f" does not run on host.hypervisor {hypervisor!r} "
                f"({platform.PLATFORM_NAMES[hypervisor]}: "
                f"{', '.join(map(repr, offered))})")
    guest = stack in platform.GUEST_STACKS
    for i, item in enumerate(scenario.workloads.storage):
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


def _check_migration_modes(scenario, index, item):
    """Post-copy, multifd and QEMU's RDMA transport exist on QEMU/KVM
    only; each needs what it names."""
    where = f"workloads.migrations[{index}]"
    qemu = item.stop_rule == "qemu" and scenario.host.hypervisor == "kvm"
    platform = (f"host.hypervisor {scenario.host.hypervisor!r} with "
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
            _check_rdma_nic(scenario, where)
    if item.rdma_pin_all and item.transport != "rdma":
        raise ValueError(f"{where}.rdma_pin_all true needs transport "
                         f"'rdma', got {item.transport!r}")
    if item.transfer is None:
        _check_compressor(scenario, where, item)
    if item.compressor is not None and item.stop_rule == "qemu":
        _check_qemu_compressor(where, item)


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


def _check_compressor(scenario, where, item):
    if item.compressor is not None and item.transport != "compression":
        raise ValueError(f"{where}.compressor {item.compressor!r} needs "
                         "transport 'compression', got "
                         f"{item.transport!r}")
    if item.compression_data != "ratio" and item.compressor is None:
        raise ValueError(f"{where}.compression_data "
                         f"{item.compression_data!r} needs a compressor "
                         "(an algorithm), got none")
    engine = OFFLOAD_ENGINE.get(item.compressor)
    if engine is not None \
            and engine not in CPU_GENERATIONS[scenario.host.cpu].accelerators:
        raise ValueError(
            f"{where}.compressor {item.compressor!r} runs on the "
            f"{ACCELERATORS[engine]}, which host.cpu {scenario.host.cpu!r} "
            "lacks; host.cpu must be one of "
            f"{', '.join(generations_with(engine))}")


def _check_rdma_nic(scenario, where):
    if all(n.rdma == "none" for n in scenario.nics):
        raise ValueError(f"{where}.transport 'rdma' needs an "
                         "RDMA-capable NIC (nics[*].rdma 'roce_v2', "
                         "'iwarp' or 'infiniband'); every NIC has rdma "
                         "'none'")


def _check_storage_transport(scenario, i, item):
    where = f"workloads.storage[{i}].transport"
    if item.transport is None:
        return
    if item.protocol == "local":
        raise ValueError(f"{where}: local IO crosses no network, so it "
                         f"has no transport, got {item.transport!r}")
    if item.transport != "rdma":
        return
    used = [n for n in scenario.nics if n.id in item.nics] or scenario.nics[:1]
    plain = [n.id for n in used if n.rdma == "none"]
    if plain:
        raise ValueError(f"{where} 'rdma' needs RDMA NICs, but NIC(s) "
                         f"{', '.join(map(repr, plain))} have rdma = "
                         "'none'")


def _check_datagrams(scenario):
    """UDP transfers in frames of ``network.frame_size_bytes`` need a
    frame that holds the headers and at least one byte of data."""
    size = scenario.network.frame_size_bytes
    if size is None:
        return
    net = scenario.network
    headers = (L2_OVERHEAD_BYTES + VLAN_TAG_BYTES * net.vlan_tags
               + IP_HEADER_BYTES[net.ip_version] + UDP_HEADER_BYTES
               + int(encapsulation_bytes(
                   net.encapsulation, net.underlay_ip_version,
                   geneve_option_bytes=net.geneve_option_bytes)))
    for i, item in enumerate(scenario.workloads.transfers):
        if item.transport == "udp" and size <= headers:
            raise ValueError(
                f"network.frame_size_bytes {size} leaves no UDP "
                f"payload for workloads.transfers[{i}] "
                f"({item.name!r}): MAC header, FCS, tags, IPv"
                f"{net.ip_version}, UDP (and overlay) headers take "
                f"{headers} B; give at least {headers + 1}")


def _check_pcie_slots(scenario):
    links = {}
    for i, nic in enumerate(scenario.nics):
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


def _check_flows(scenario, teams):
    profiles = {p.name for p in scenario.workloads.profiles}
    check_unique("workloads.flows", [f.id for f in scenario.workloads.flows],
                 "id")
    owners = {"port_id": {}, "mac": {}}
    for i, flow in enumerate(scenario.workloads.flows):
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
                                          scenario.host.hypervisor)
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


def _check_team_size(scenario, index, team):
    """The team simulation's cells (MAX_TEAMING_CELLS) within bounds:
    the same time axis and failure sets as solvers.teaming."""
    flows = [f for f in scenario.workloads.flows
             if (f.team or scenario.teams[0].name) == team.name]
    if not flows:
        return
    profiles = {p.name: p for p in scenario.workloads.profiles}
    horizon = max((profiles[f.profile].t_s[-1] for f in flows
                   if f.profile), default=0.0)
    if horizon <= 0:
        horizon = float(steady_horizon_s(
            team.lbt_period_s, team.ovs_rebalance_interval_ms / 1000,
            team.dynamic_epoch_s))
    steps = math.ceil(horizon / scenario.workloads.time_step_s) + 1
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


def _check_solved_entries(scenario):
    """Every variant solves the whole workload again: the product is
    what evaluation time grows with."""
    load = scenario.workloads
    entries = max(1, len(load.transfers) + len(load.migrations)
                  + len(load.storage) + len(load.evacuations))
    solved = entries * (1 + len(scenario.variants))
    if solved > MAX_SOLVED_ENTRIES:
        raise ValueError(
            f"workloads ({entries:,} transfers, migrations, storage "
            f"workloads and evacuations) x (1 + {len(scenario.variants):,} "
            f"variants) = {solved:,} entries to solve, more than "
            f"{MAX_SOLVED_ENTRIES:,}")


def _check_reservations(scenario, index, team):
    reserved = sum(c.reservation_gbps for c in team.nioc)
    if not reserved:
        return
    speeds = {n.id: n.speed_gbps for n in scenario.nics}
    slowest = min(speeds[m] for m in team.members + team.standby)
    # vSphere admits system reservations up to 75 % of the slowest
    # adapter's capacity (NIOC v3; validation case V5)
    if reserved > 0.75 * slowest:
        raise ValueError(
            f"teams[{index}].nioc: reservations total {reserved:g} "
            f"Gbit/s, above 75 % of the slowest uplink ({slowest:g} "
            f"Gbit/s), which vSphere does not admit")
