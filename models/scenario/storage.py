"""Storage workloads of the scenario document and the back end that
serves them."""

from typing import Literal

from pydantic import Field, model_validator

from models.scenario.base import StrictModel, identifier
from models.scenario.limits import MAX_DEVICE_CHANNELS, MAX_OIO
from models.storage import (BACKEND_KINDS, PROTOCOLS as STORAGE_PROTOCOLS,
                            SPINDLE_15K_IOPS, SPINDLE_15K_MBPS,
                            STORAGE_TRANSPORTS, WRITE_PENALTY)


class Backend(StrictModel):
    """The storage system's own limits."""

    iops_max: float | None = Field(
        default=None, gt=0,
        description="IOPS the back end delivers at most [IO/s]")
    mbps_max: float | None = Field(
        default=None, gt=0,
        description="Throughput the back end delivers at most [MB/s]")
    devices: int | None = Field(
        default=None, ge=1,
        description="Disks behind the workload")
    device_iops: float = Field(
        default=SPINDLE_15K_IOPS, gt=0,
        description="IOPS of one disk; default a 15K RPM spindle [IO/s]")
    device_mbps: float = Field(
        default=SPINDLE_15K_MBPS, gt=0,
        description="Throughput of one disk; default a 15K RPM spindle "
                    "[MB/s]")
    raid: Literal[tuple(WRITE_PENALTY)] = Field(
        default="none",
        description="RAID level (its write penalty applies)")
    service_time_ms: float | None = Field(
        default=None, gt=0,
        description="Unloaded latency of one IO at the back end [ms]")
    kind: Literal[BACKEND_KINDS] = Field(
        default="array", description="array: known by its ceiling (one "
        "server at that rate); nvme: a multi-queue device serving "
        "`channels` IOs at once, each in service_time_ms, up to iops_max "
        "(its rating); cloud_volume: a block volume with a documented IOPS "
        "cap, every IO in flight served in service_time_ms up to the cap")
    channels: int | None = Field(
        default=None, ge=1, le=MAX_DEVICE_CHANNELS,
        description="kind nvme: IOs the "
        "device serves at once (channels x dies); None: iops_max x "
        "service_time_ms, what Little's law needs to reach the rating")

    @model_validator(mode="after")
    def _some_limit(self):
        if self.iops_max is None and self.mbps_max is None \
                and self.devices is None:
            raise ValueError("give at least one of iops_max, mbps_max or "
                             "devices: without a back-end limit IOPS are "
                             "unbounded")
        if self.kind != "array":
            missing = [name for name in ("iops_max", "service_time_ms")
                       if getattr(self, name) is None]
            if missing:
                raise ValueError(f"kind {self.kind!r} needs "
                                 f"{' and '.join(missing)} (the published "
                                 "rating or cap and the device's latency)")
        if self.kind == "nvme" and self.channels is None:
            implied = self.iops_max * self.service_time_ms / 1000.0
            if implied > MAX_DEVICE_CHANNELS:
                raise ValueError(
                    f"kind 'nvme': iops_max x service_time_ms means "
                    f"{implied:.4g} IOs in service at once, more than the "
                    f"{MAX_DEVICE_CHANNELS} channels allowed (iops_max "
                    f"{self.iops_max:g} 1/s, service_time_ms "
                    f"{self.service_time_ms:g}): check the units or give "
                    "channels")
        if self.channels is not None and self.kind != "nvme":
            raise ValueError(f"channels ({self.channels}) applies to kind "
                             f"'nvme' only, got kind {self.kind!r}")
        return self


class StorageWorkload(StrictModel):
    """A storage IO workload (benchmark or application)."""

    name: str = identifier("Name of the workload")
    protocol: Literal[STORAGE_PROTOCOLS] = Field(
        default="iscsi",
        description="Storage protocol")
    transport: Literal[STORAGE_TRANSPORTS] | None = Field(
        default=None, description="tcp or rdma (SMB Direct, iSER, "
        "NVMe-oF/RDMA, NFS over RDMA, vSAN over RDMA); None: the "
        "protocol's default (SMB3 and S2D use RDMA when every NIC of the "
        "workload is RDMA-capable, the others TCP)")
    block_kib: float = Field(
        default=4.0, gt=0, le=16384,
        description="IO size [KiB]")
    read_pct: float = Field(
        default=70.0, ge=0, le=100,
        description="Share of reads [%]")
    random_pct: float = Field(
        default=100.0, ge=0, le=100,
        description="Share of random IO [%]")
    vms: int = Field(
        default=1, ge=1,
        description="Benchmark VMs (HCIBench VMs)")
    disks_per_vm: int = Field(
        default=1, ge=1,
        description="Data disks per VM")
    threads_per_disk: int = Field(
        default=1, ge=1,
        description="Outstanding IO per disk (HCIBench threads, fio iodepth, "
                    "diskspd -t x -o)")
    working_set_pct: float = Field(
        default=100.0, gt=0, le=100,
        description="Share of each disk the test touches [%]")
    nics: list[str] = Field(
        default=[],
        description="NICs carrying the IO; none: all")
    smb_encryption: bool = Field(
        default=False,
        description="SMB 3 encryption on")
    sessions_per_path: int | None = Field(
        default=None, ge=1, le=64, description="Connections per path, each "
        "served by one core (iSCSI sessions, NFS nconnect, SMB "
        "Multichannel connections); None: the protocol's default (1; SMB3 "
        "and S2D 4 per RSS NIC and 2 per RDMA NIC; local IO and NVMe-oF "
        "every core)")
    backend: Backend = Field(
        description="The storage system's own limits")

    @model_validator(mode="after")
    def _oio_in_range(self):
        oio = self.vms * self.disks_per_vm * self.threads_per_disk
        if oio > MAX_OIO:
            raise ValueError(f"vms x disks_per_vm x threads_per_disk = "
                             f"{oio:,} outstanding IO, more than the "
                             f"{MAX_OIO:,} the storage model takes")
        return self
