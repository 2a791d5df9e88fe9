"""The load on the host network: flows on the teams with their time
profiles, bulk transfers, and the ``workloads`` table that holds them with
the live migrations, storage workloads and evacuations."""

import ipaddress
from typing import Literal

from pydantic import Field, field_validator, model_validator

from models.compression import ALGORITHMS as COMPRESSORS
from models.compression import DATA_CLASSES as COMPRESSION_DATA
from models.host import QUEUE_MODES, VMMQ_QUEUE_PAIRS, VNIC_QUEUES
from models.qemu_ram import DATA_PATHS
from models.scenario.base import StrictModel, identifier, mac_address
from models.scenario.limits import (MAX_CONNECTIONS, MAX_ENTRIES,
                                    MAX_STORAGE_WORKLOADS, MAX_TRANSFERS)
from models.scenario.live_migration import Evacuation, Migration
from models.scenario.storage import StorageWorkload
from models.transport import TRANSPORTS


class TimeProfile(StrictModel):
    """A demand multiplier over time, linear between points."""

    name: str = identifier("Name flows refer to")
    t_s: list[float] = Field(
        min_length=1,
        description="Times of the points, increasing [s]")
    scale: list[float] = Field(
        min_length=1,
        description="Demand multiplier at each time (1: the flow's rate)")

    @model_validator(mode="after")
    def _aligned_and_increasing(self):
        if len(self.t_s) != len(self.scale):
            raise ValueError(f"t_s has {len(self.t_s)} points but scale has "
                             f"{len(self.scale)}")
        if any(b <= a for a, b in zip(self.t_s, self.t_s[1:])):
            raise ValueError("t_s must increase strictly")
        if any(s < 0 for s in self.scale):
            raise ValueError("scale values must be >= 0")
        return self


class Flow(StrictModel):
    """One VM port or flow with its demand in each direction."""

    id: str = identifier("Name of the port or flow")
    vm: str = Field(
        default="",
        description="VM the port belongs to (flows of one VM may share its "
                    "port and MAC)")
    port_id: int | None = Field(
        default=None, ge=0,
        description="Virtual switch port ID (hashed by 'originating port')")
    mac: str | None = mac_address(
        description="Source MAC address (hashed by MAC-based policies)")
    dst_mac: str | None = mac_address("Destination MAC address")
    src_ip: str | None = Field(
        default=None,
        description="Source IP address (hashed by IP-based policies)")
    dst_ip: str | None = Field(
        default=None,
        description="Destination IP address")
    protocol: Literal["tcp", "udp"] = Field(
        default="tcp",
        description="Transport protocol of the flow")
    src_port: int | None = Field(
        default=None, ge=0, le=65535,
        description="Source TCP/UDP port (hashed by layer 4 policies)")
    dst_port: int | None = Field(
        default=None, ge=0, le=65535,
        description="Destination TCP/UDP port")
    vlan: int | None = Field(
        default=None, ge=0, le=4094,
        description="VLAN ID of the flow")
    #: 802.1p priority in the VLAN tag (Linux vlan+srcmac hashes the whole
    #: tag control field, priority included)
    vlan_pcp: int = Field(
        default=0, ge=0, le=7,
        description="802.1p priority in the VLAN tag")
    traffic_class: str = Field(
        default="vm",
        description="NIOC traffic class of the flow")
    tx_gbps: float = Field(
        default=0.0, ge=0,
        description="Demand sent by the VM [Gbit/s]")
    rx_gbps: float = Field(
        default=0.0, ge=0,
        description="Demand received by the VM [Gbit/s]")
    profile: str | None = Field(
        default=None,
        description="Load profile scaling the demand over time; none: steady")
    team: str | None = Field(
        default=None,
        description="Team carrying the flow; needed with several teams")
    pin: list[str] = Field(
        default=[],
        description="Uplinks the flow is pinned to (explicit failover order)")
    anti_affinity: str | None = Field(
        default=None,
        description="Group whose flows should use different uplinks")

    @field_validator("src_ip", "dst_ip")
    @classmethod
    def _ip_address(cls, value):
        if value is not None:
            try:
                ipaddress.ip_address(value)
            except ValueError:
                raise ValueError(f"not an IP address: {value!r}") from None
        return value


class Transfer(StrictModel):
    """A bulk transfer received by this host from an identical peer (live
    migration traffic, file copy, netperf): as fast as the path allows."""

    name: str = identifier("Name of the transfer; migrations refer to it")
    transport: Literal[TRANSPORTS] = Field(
        default="tcp",
        description="TCP, TCP with compression, SMB Multichannel or SMB "
                    "Direct (RDMA)")
    purpose: Literal["bulk", "live_migration"] = Field(
        default="bulk",
        description="Bulk copy, or live-migration traffic (uses the "
                    "hypervisor's migration preset)")
    via: str | None = Field(
        default=None,
        description="Team carrying it; none: the NICs listed below (all if "
                    "empty)")
    nics: list[str] = Field(
        default=[],
        description="NICs carrying it without a team")
    direction: Literal["receive", "send"] = Field(
        default="receive",
        description="This host receives the data (the usual binding side) or "
                    "sends it")
    #: without a team, spread sessions over all NICs (multi-NIC vMotion,
    #: iSCSI port binding, one vNIC per uplink) instead of one route
    multipath: bool = Field(
        default=False,
        description="Without a team, spread sessions over all NICs "
                    "(multi-NIC vMotion, iSCSI port binding)")
    sessions: int = Field(
        default=1, ge=1, le=1024,
        description="Independent senders at once (VMs migrating, netperf "
                    "pairs)")
    streams: int | None = Field(
        default=None, ge=1, le=256, description="Application streams "
        "(sending threads) per session, each one TCP connection for tcp "
        "and compression. None: the platform's default: one per session; "
        "over SMB one per Multichannel connection, which SMB opens by "
        "itself (4 per RSS-capable NIC, 2 per RDMA NIC, 1 otherwise: "
        "Microsoft, 'SMB Multichannel', ConnectionCountPerRssNetwork"
        "Interface; models.transport.SMB_CONNECTIONS)")
    stream_cap_gbps: float | None = Field(
        default=None, gt=0,
        description="Ceiling of one stream; none: the hypervisor's "
                    "live-migration preset, else none [Gbit/s]")
    stream_cap_pps: float | None = Field(
        default=None, gt=0, le=1e9, description="Packets per second one "
        "stream's thread sends: a single-threaded traffic generator's "
        "published rate (Ostinato over libpcap: about 750,000) [1/s]; "
        "transport 'udp' only; None: no such cap")
    compression_ratio: float = Field(
        default=2.0, ge=1, le=1000,
        description="Compression ratio with transport compression; default 2")
    compressor_gbps: float = Field(
        default=1.0, gt=0,
        description="Compression speed of one thread [Gbit/s]")
    compression_threads: int = Field(
        default=4, ge=1, le=1024,
        description="Compression threads; default 4")
    #: as Migration.compressor, compression_data and qat_devices
    compressor: Literal[COMPRESSORS] | None = None
    compression_data: Literal[("ratio",) + COMPRESSION_DATA] = "ratio"
    qat_devices: int = Field(default=1, ge=1, le=64)
    #: how the receiver spreads connections over cores: "rss" (host NIC
    #: queues), or behind a virtual switch, one vNIC per session: "vmq"
    #: (one core per vNIC), "vrss" (VMQ + virtual RSS over the VM's vCPUs,
    #: 10 GbE and 2 vCPUs at least) or "vmmq" (hardware queues per vNIC)
    receive_queues: Literal[QUEUE_MODES] = Field(
        default="rss",
        description="How the receiver spreads connections over cores")
    vm_vcpus: int = Field(
        default=4, ge=1, le=1024,
        description="Logical processors of each receiving VM (vRSS, VMMQ)")
    vmmq_queue_pairs: int = Field(
        default=VMMQ_QUEUE_PAIRS, ge=1, le=64,
        description="Hardware queue pairs per vNIC with VMMQ; default 16 "
                    "(Hyper-V)")
    vnic_queues: int = Field(
        default=VNIC_QUEUES, ge=1, le=64, description="Receive queues of "
        "one vNIC with receive_queues 'multiqueue' (vSphere 6.0+ vmxnet3, "
        "one per vCPU up to 8 by default; KVM virtio-net multiqueue)")
    sender_threads: int | None = Field(
        default=None, ge=1, le=1024, description="Threads sending all the "
        "transfer's streams (iperf3 before 3.16 runs every stream of one "
        "client in one thread): together they move at most this many "
        "cores' worth (models.transport.sender_thread_cap); None: a "
        "thread per stream")
    zero_copy_send: bool = Field(
        default=False, description="The sender passes MSG_ZEROCOPY "
        "(iperf3 -Z, QEMU zero-copy-send): no copy into the socket, page "
        "pinning instead (models.host.zero_copy_send_cost); direction "
        "'send' only, where this host's cost is the sender's")
    data_path: Literal[DATA_PATHS] = Field(
        default="socket", description="How the receiving application "
        "takes the data: 'socket' its stream's thread copies it on the "
        "core that runs the flow's stack (iperf, netperf, vMotion, "
        "Hyper-V); 'qemu_multifd' QEMU's multifd channels, whose threads "
        "copy pages into guest memory on cores of their own "
        "(models.qemu_ram.multifd_channel_cap)")

    @model_validator(mode="after")
    def _connections_in_range(self):
        if self.transport == "udp" and self.purpose == "live_migration":
            raise ValueError("transport 'udp' cannot carry purpose "
                             "'live_migration': vMotion, Hyper-V and QEMU "
                             "migrate over TCP (or RDMA)")
        if self.zero_copy_send and self.direction != "send":
            raise ValueError(
                "zero_copy_send saves the sender's copy and needs direction "
                "'send' (this host sends); got direction "
                f"{self.direction!r}, where this host's cost is the "
                "receiver's")
        if self.stream_cap_pps is not None and self.transport != "udp":
            raise ValueError(
                f"stream_cap_pps ({self.stream_cap_pps:g}) is the packet "
                "rate of a datagram sender and needs transport 'udp', got "
                f"transport {self.transport!r}")
        if self.sessions * (self.streams or 1) > MAX_CONNECTIONS:
            raise ValueError(f"sessions x streams = "
                             f"{self.sessions * (self.streams or 1):,} "
                             f"connections, more than {MAX_CONNECTIONS:,}")
        return self


class Workloads(StrictModel):
    """Everything that puts load on the host network."""

    profiles: list[TimeProfile] = Field(
        default=[], max_length=MAX_ENTRIES,
        description="Load profiles: demand over time")
    time_step_s: float = Field(
        default=1.0, gt=0, le=3600,
        description="Time step of the teaming simulation [s]")
    flows: list[Flow] = Field(
        default=[], max_length=MAX_ENTRIES,
        description="VM ports and flows on the teams")
    transfers: list[Transfer] = Field(
        default=[], max_length=MAX_TRANSFERS,
        description="Bulk transfers (live-migration networks, copies)")
    migrations: list[Migration] = Field(
        default=[], max_length=MAX_ENTRIES,
        description="Live migrations")
    storage: list[StorageWorkload] = Field(
        default=[], max_length=MAX_STORAGE_WORKLOADS,
        description="Storage IO workloads")
    evacuations: list[Evacuation] = Field(
        default=[], max_length=MAX_ENTRIES,
        description="Host evacuations (maintenance mode)")
