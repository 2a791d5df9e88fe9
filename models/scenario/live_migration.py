"""Live migrations of the scenario document: one migration (or a batch of
identical VMs) with the guest's memory dirtying, and a host evacuation
that migrates every VM of a host to destinations."""

from typing import Literal

from pydantic import Field, field_validator, model_validator

from models.compression import ALGORITHMS as COMPRESSORS
from models.compression import DATA_CLASSES as COMPRESSION_DATA
from models.evacuation import ORDERS as EVACUATION_ORDERS
from models.evacuation import PLATFORMS as EVACUATION_PLATFORMS
from models.migration import STOP_RULES, SWITCHOVER_MODES
from models.qemu_ram import ZERO_PAGE_DETECTIONS
from models.scenario.base import StrictModel, check_unique, identifier
from models.transport import TRANSPORTS


class DirtyModel(StrictModel):
    """How the guest dirties memory during pre-copy: a uniform rate, or a
    hot working set that saturates plus a linear cold rate
    (models.migration.dirty_bytes)."""

    kind: Literal["uniform", "hot_cold"] = Field(
        default="uniform",
        description="How the guest dirties memory: uniformly, or a hot set "
                    "plus a cold rate")
    rate_mib_s: float = Field(
        default=0.0, ge=0, le=1e7,
        description="Dirtying rate (hot set's initial rate for hot_cold) "
                    "[MiB/s]")
    hot_set_gib: float = Field(
        default=0.0, ge=0,
        description="Size of the hot working set [GiB]")
    cold_rate_mib_s: float = Field(
        default=0.0, ge=0, le=1e7,
        description="Dirtying rate outside the hot set [MiB/s]")


class Migration(StrictModel):
    """A live migration (or a batch of identical VMs, ``concurrency`` at a
    time). Its network rate comes from a transfer: the one named in
    ``transfer``, or one built from ``transport``, ``streams`` and the
    compression fields over all NICs."""

    name: str = identifier("Name of the migration or batch")
    memory_gib: float = Field(
        gt=0, le=24576,
        description="Guest memory of each VM [GiB]")
    count: int = Field(
        default=1, ge=1, le=1024,
        description="VMs migrated (identical)")
    concurrency: int = Field(
        default=1, ge=1, le=64,
        description="Migrations at once")
    zero_page_pct: float = Field(
        default=0.0, ge=0, le=100,
        description="Share of zero pages, sent as a header only [%]")
    dirty: DirtyModel = Field(
        default=DirtyModel(),
        description="How the guest dirties memory during pre-copy")
    first_round_rate_cap_mib_s: float | None = Field(
        default=None, gt=0,
        description="Ceiling of the first pass (e.g. destination page "
                    "allocation); none: the path's rate [MiB/s]")
    transfer: str | None = Field(
        default=None,
        description="The workloads.transfers entry that carries it; none: "
                    "one built from the fields below over all NICs")
    transport: Literal[TRANSPORTS] = Field(
        default="tcp",
        description="Transport of the migration traffic")
    streams: int | None = Field(
        default=None, ge=1, le=64, description="Migration streams; with "
        "multifd the channels. None: the platform's default: one; QEMU "
        "multifd 2 (multifd-channels); over SMB one per Multichannel "
        "connection (as workloads.transfers[].streams)")
    compression_ratio: float = Field(
        default=1.0, ge=1, le=1000,
        description="Memory compression ratio (1: none)")
    compressor_gbps: float = Field(
        default=1.0, gt=0,
        description="Compression speed of one thread [Gbit/s]")
    compression_threads: int = Field(
        default=1, ge=1, le=256,
        description="Compression threads")
    compressor: Literal[COMPRESSORS] | None = Field(
        default=None, description="Compression algorithm and level "
        "(models.compression.ALGORITHMS: zlib-1..9, zstd-1..22, lz4, "
        "lz4hc-9, qatzip, qpl); its per-thread rate scales with host.ghz. "
        "None: compressor_gbps per thread as given")
    compression_data: Literal[("ratio",) + COMPRESSION_DATA] = Field(
        default="ratio", description="What the memory compresses like: "
        "'ratio' compression_ratio as given; 'silesia' the algorithm's "
        "ratio on the Silesia corpus; 'random' incompressible (ratio 1). "
        "Zero pages are zero_page_pct, apart from this")
    qat_devices: int = Field(
        default=1, ge=1, le=64, description="Offload devices compressing: "
        "QAT with compressor 'qatzip', IAA with 'qpl'")
    multifd: bool = Field(
        default=False, description="QEMU multifd: 'streams' channels, each "
        "its own TCP connection and its own compression thread "
        "(compression_threads is then the channel count)")
    switchover: Literal[SWITCHOVER_MODES] = Field(
        default="precopy", description="How the migration ends: 'precopy' "
        "stop-and-copy; 'postcopy_after_first_pass' (libvirt "
        "--postcopy-after-precopy) or 'postcopy_at_time_budget' (KubeVirt "
        "allowPostCopy, at completionTimeoutPerGiB: time_budget_s) resume "
        "the guest on the destination and pull the remaining pages over "
        "the network (QEMU/KVM only)")
    rdma_pin_all: bool = Field(
        default=False, description="transport 'rdma' (QEMU RDMA "
        "migration): register all guest memory up front (rdma-pin-all) "
        "instead of chunk by chunk")
    stop_rule: Literal[tuple(STOP_RULES)] = Field(
        default="vmotion",
        description="When pre-copy stops and the VM switches over, as the "
                    "hypervisor decides it (models.migration.STOP_RULES)")
    downtime_budget_ms: float | None = Field(
        default=None, gt=0,
        description="Switchover budget; none: the stop rule's (QEMU 300 ms, "
                    "vMotion 500 ms goal) [ms]")
    max_switchover_s: float | None = Field(
        default=None, gt=0,
        description="Longest switchover before the migration fails; none: "
                    "the stop rule's [s]")
    fraction_left_pct: float = Field(
        default=1.0, gt=0, lt=100,
        description="Stop when this share of memory is left (stop rule "
                    "fraction_left) [%]")
    throttling: Literal["none", "sdps", "auto_converge"] | None = Field(
        default=None,
        description="Guest throttling to converge; none: the stop rule's "
                    "(SDPS for vMotion)")
    time_budget_s: float | None = Field(
        default=None, gt=0,
        description="Abort when pre-copy runs longer [s]")
    #: stop_rule qemu: the QEMU release, "major.minor"; it decides the
    #: default max-bandwidth (32 MiB/s before 5.2, 128 MiB/s from 5.2)
    #: and the 5 s bitmap-sync timer of auto-converge (from 9.2)
    qemu_version: str = Field(
        default="9.2", pattern=r"^[0-9]{1,2}\.[0-9]{1,2}$",
        description="QEMU release (major.minor): sets the default "
                    "max-bandwidth and auto-converge timing")
    #: stop_rule qemu: who sets max-bandwidth. "qemu": QEMU's own default
    #: for qemu_version; "libvirt": libvirt lifts it (QEMU_DOMAIN_MIG_
    #: BANDWIDTH_MAX, no cap); "unlimited": raised above what the path
    #: carries by other means (by hand, a tool). max_bandwidth_mib_s
    #: overrides all (KubeVirt bandwidthPerMigration, Proxmox bwlimit,
    #: virsh --bandwidth).
    management: Literal["qemu", "libvirt", "unlimited"] = Field(
        default="qemu",
        description="Who sets QEMU's max-bandwidth: QEMU's default, libvirt "
                    "(no cap) or unlimited")
    max_bandwidth_mib_s: float | None = Field(
        default=None, gt=0,
        description="Bandwidth cap of one migration (virsh --bandwidth, "
                    "Proxmox bwlimit) [MiB/s]")
    zero_page_detection: Literal[ZERO_PAGE_DETECTIONS] = Field(
        default="auto", description="stop_rule qemu: where QEMU tests each "
        "page for zeros (migrate-set-parameters zero-page-detection): "
        "'legacy' on the migration thread, 'multifd' in the multifd "
        "channels, 'none' not at all (zero pages are sent whole); 'auto' "
        "QEMU's default for qemu_version (multifd from 9.0 with multifd, "
        "else legacy). See models.qemu_ram.page_times")

    @field_validator("transport")
    @classmethod
    def _migrates_over_tcp(cls, value):
        if value == "udp":
            raise ValueError(
                "live migration runs over TCP or RDMA (vMotion, Hyper-V "
                "over TCP or SMB, QEMU), not UDP: give one of "
                + ", ".join(repr(t) for t in TRANSPORTS if t != "udp")
                + f", got {value!r}")
        return value


class EvacuationVm(StrictModel):
    """One VM leaving the host."""

    name: str = identifier("Name of the VM")
    memory_gib: float = Field(gt=0, le=24576,
                              description="Guest memory [GiB]")
    zero_page_pct: float = Field(
        default=0.0, ge=0, le=100,
        description="Share of zero pages, sent as a header only [%]")
    dirty: DirtyModel = Field(default=DirtyModel(),
                              description="How the guest dirties memory")
    priority: int = Field(
        default=0, ge=-1000, le=1000,
        description="Higher leaves earlier in the 'priority' order")
    group: str | None = Field(
        default=None, max_length=200,
        description="Group label (from an inventory import); informative")
    downtime_budget_ms: float | None = Field(
        default=None, gt=0,
        description="This VM's switchover budget; None: the evacuation's "
                    "[ms]")
    disk_gib: float = Field(
        default=0.0, ge=0, le=1e6,
        description="Disk data copied with the VM when the evacuation's "
                    "disks are 'copied' (allocated size, not provisioned) "
                    "[GiB]")
    disk_write_mib_s: float = Field(
        default=0.0, ge=0, le=1e7,
        description="Guest disk writes during that copy, mirrored to the "
                    "destination [MiB/s]")


class Destination(StrictModel):
    """A host receiving evacuated VMs."""

    name: str = identifier("Name of the receiving host")
    free_memory_gib: float = Field(
        gt=0, le=1e6, description="Memory free for incoming VMs [GiB]")


class Evacuation(StrictModel):
    """Empty one host (maintenance mode, node drain): its VMs migrate over
    a transfer, a platform's number of them at a time, sharing its
    bandwidth."""

    name: str = identifier("Name of the evacuation")
    transfer: str = Field(
        description="The workloads.transfers entry the migrations ride "
                    "(its NICs, transport, RSS, teaming, compression)")
    platform: Literal[tuple(EVACUATION_PLATFORMS)] = Field(
        default="vsphere",
        description="Platform whose concurrency and bandwidth limits "
                    "apply (models.evacuation.PLATFORMS)")
    vms: list[EvacuationVm] = Field(min_length=1, max_length=5000,
                                    description="The VMs on the host")
    destinations: list[Destination] = Field(
        default=[], description="Hosts receiving the VMs; none: memory "
                                "is not checked")
    order: Literal[EVACUATION_ORDERS] = Field(
        default="largest_first", description="Order of the migration queue")
    disks: Literal["shared", "copied"] = Field(
        default="shared",
        description="Where the VMs' disks are: on storage both hosts share, "
                    "or copied with each migration (vMotion without shared "
                    "storage, shared-nothing live migration, Proxmox "
                    "--with-local-disks): vms[].disk_gib then crosses the "
                    "link first")
    disk_copy_mib_s: float | None = Field(
        default=None, gt=0, le=1e7,
        description="Fastest one disk copy runs by the storage at either "
                    "end (the slower of the source's read and the "
                    "destination's write, e.g. a measured Storage vMotion); "
                    "None: only the link binds [MiB/s]")
    platform_limit: int | None = Field(
        default=None, ge=1, le=64,
        description="The platform's concurrency setting when changed from "
                    "its default (Set-VMHost -MaximumVirtualMachineMigrations"
                    ", parallelOutboundMigrationsPerNode, max_workers)")
    cluster_limit: int | None = Field(
        default=None, ge=1, le=64,
        description="Migrations the whole cluster runs at once when changed "
                    "from the platform's default (KubeVirt "
                    "parallelMigrationsPerCluster, 5); a host never runs "
                    "more")
    concurrency: int | Literal["auto"] = Field(
        default="auto",
        description="Migrations at once; 'auto': the fastest within the "
                    "platform limit")
    downtime_budget_ms: float | None = Field(
        default=None, gt=0,
        description="Switchover budget of every VM without one of its "
                    "own; None: the stop rule's [ms]")
    stop_rule: Literal[tuple(STOP_RULES)] | None = Field(
        default=None, description="None: the platform's")
    throttling: Literal["none", "sdps", "auto_converge"] | None = Field(
        default=None, description="None: the stop rule's default")
    bandwidth_per_migration_mib_s: float | None = Field(
        default=None, gt=0,
        description="Ceiling of one migration; None: the platform's "
                    "[MiB/s]")
    total_bandwidth_mib_s: float | None = Field(
        default=None, gt=0,
        description="Ceiling of all migrations together, e.g. Hyper-V's "
                    "Set-SmbBandwidthLimit -Category LiveMigration [MiB/s]")
    time_budget_s: float | None = Field(
        default=None, gt=0,
        description="Abort a migration whose pre-copy runs longer [s]")
    setup_s: float | None = Field(
        default=None, ge=0, le=600,
        description="Time each migration holds its slot off the link "
                    "(set-up and switch-over work), e.g. measured on one "
                    "idle VM; None: the platform's (models.evacuation."
                    "PLATFORMS) [s]")
    serial_setup_s: float | None = Field(
        default=None, ge=0, le=600,
        description="Set-up work the host does for one migration at a "
                    "time (migrations started together wait for each "
                    "other's); None: the platform's (models.evacuation."
                    "PLATFORMS) [s]")

    @field_validator("concurrency")
    @classmethod
    def _concurrency_range(cls, value):
        if value != "auto" and not 1 <= value <= 64:
            raise ValueError(f"must be 'auto' or 1 to 64, got {value!r}")
        return value

    @model_validator(mode="after")
    def _vms_fit(self):
        check_unique("vms", [vm.name for vm in self.vms], "name")
        check_unique("destinations", [d.name for d in self.destinations],
                     "name")
        if not self.destinations:
            return self
        largest = max(self.destinations, key=lambda d: d.free_memory_gib)
        for i, vm in enumerate(self.vms):
            if vm.memory_gib > largest.free_memory_gib:
                raise ValueError(
                    f"vms[{i}].memory_gib {vm.memory_gib:g} ({vm.name!r}) "
                    "exceeds every destination's free memory (largest: "
                    f"{largest.name!r}, {largest.free_memory_gib:g} GiB)")
        total = sum(vm.memory_gib for vm in self.vms)
        free = sum(d.free_memory_gib for d in self.destinations)
        if total > free:
            raise ValueError(
                f"vms: {total:g} GiB of VMs exceed the destinations' "
                f"{free:g} GiB of free memory")
        return self
