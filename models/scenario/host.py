"""The host's tables of the scenario document: what the scenario is for
(``meta``), the host, its NIC ports with their offloads and PCIe slots, and
the IP network that carries the traffic."""

from typing import Literal

from pydantic import Field, field_validator, model_validator

from models.cpu import CPU_GENERATIONS, DEFAULT_CPU
from models.host import STACK_PRESETS
from models.pcie import DEFAULT_MAX_PAYLOAD_BYTES
from models.pcie import GENERATIONS as PCIE_GENERATIONS
from models.pcie import LANES as PCIE_LANES
from models.scenario.base import StrictModel, identifier
from models.wire import (IPV6_MIN_MTU, L2_OVERHEAD_BYTES, MIN_FRAME_BYTES,
                         MTU_CEILING, MTU_LIMITS, VLAN_TAG_BYTES)


class Meta(StrictModel):
    """What the scenario is for: shown in reports and kept with the file."""

    name: str = Field(
        min_length=1, max_length=200,
        description="Title of the scenario, shown in the window and reports")
    description: str = Field(
        default="",
        description="What the scenario describes: hosts, network, test")
    objectives: list[str] = Field(
        default=[],
        description="The questions the scenario answers")
    assumptions: list[str] = Field(
        default=[],
        description="Inputs not taken from a measurement, stated so a reader "
                    "can judge the answer")
    notes: str = Field(
        default="",
        description="Free text kept with the file")


class Host(StrictModel):
    """The hypervisor host whose network is planned."""

    hypervisor: Literal["vsphere", "hyperv", "kvm", "xen"] = Field(
        default="vsphere",
        description="Hypervisor of the host; picks the default CPU cost "
                    "preset and live-migration stop rule")
    sockets: int = Field(
        default=2, ge=1, le=16,
        description="CPU sockets of the host; default 2, the usual "
                    "two-socket virtualization server")
    cores_per_socket: int = Field(
        default=16, ge=1, le=512,
        description="Physical cores per socket; default 16")
    ghz: float = Field(
        default=2.6, gt=0, le=10,
        description="Core clock [GHz]; default 2.6, a typical server part")
    #: CPU cost preset (models.host.STACK_PRESETS), one of the hypervisor's
    #: (models.host.STACK_HYPERVISORS); None: the hypervisor's default
    stack: Literal[tuple(STACK_PRESETS)] | None = Field(
        default=None,
        description="CPU cost per packet and byte "
                    "(models.host.STACK_PRESETS); none: the hypervisor's own")
    cpu: Literal[tuple(CPU_GENERATIONS)] = Field(
        default=DEFAULT_CPU, description="Server CPU generation "
        "(models.cpu.CPU_GENERATIONS): its per-clock network-stack speed "
        "scales every per-core ceiling and CPU cost; 'legacy' is the clock "
        "alone, as the stack presets were fitted")
    vmotion_auto_streams: bool | None = Field(
        default=None, description="vSphere 7.0 U2 and later: vMotion adds "
        "streams to match the NIC's bandwidth, so one vmknic saturates "
        "25-100 GbE. False: one stream per vmknic, as up to 7.0 U1. "
        "None: as host.release has it (one stream per vmknic when the "
        "release is not given)")
    release: str | None = Field(
        default=None, max_length=16, description="The hypervisor's "
        "release: vSphere '6.7', '7.0 U2', '8.0'; Hyper-V (Windows "
        "Server) '2012 R2', '2016', '2022', '2025'. It decides what the "
        "platform offers (models.platform.RELEASE_NEEDED) and the "
        "defaults that follow it. None: not stated (the latest release's "
        "capabilities; vMotion one stream per vmknic)")


class OffloadSet(StrictModel):
    """Stateless offloads a NIC performs for one IP version."""

    checksum: bool = Field(
        default=True,
        description="The NIC computes TCP/UDP checksums")
    #: segmentation (send) and receive coalescing (LRO/RSC) in the NIC
    tso: bool = Field(
        default=True,
        description="TCP segmentation offload on send")
    lro: bool = Field(
        default=True,
        description="Large receive offload (LRO/GRO in hardware)")
    gso: bool = Field(
        default=True, description="Software segmentation when tso is off "
        "(Linux GSO, the VMkernel's software TSO); no effect on a stack "
        "without it (Windows)")
    gro: bool = Field(
        default=True, description="Software receive coalescing when lro is "
        "off (Linux GRO, the VMkernel's software LRO); no effect on a stack "
        "without it (Windows)")
    tunnel: bool = Field(
        default=False,
        description="The same offloads also for VXLAN/Geneve-encapsulated "
                    "traffic")
    aggregate_kib: float = Field(
        default=64.0, ge=1, le=512, description="Largest TSO/GSO send and "
        "LRO/GRO receive aggregate [KiB]: 64 (the IP datagram limit); "
        "Linux BIG TCP raises it (ip link set DEV gso_max_size/"
        "gro_max_size, IPv6 from 5.19, IPv4 from 6.3; Google runs 185 KB)")


class Offloads(StrictModel):
    """Offloads per IP version: they are often not symmetric."""

    ipv4: OffloadSet = Field(
        default=OffloadSet(),
        description="Offloads for IPv4 traffic")
    ipv6: OffloadSet = Field(
        default=OffloadSet(),
        description="Offloads for IPv6 traffic (often fewer than for IPv4)")


class Nic(StrictModel):
    """A physical NIC port (uplink)."""

    id: str = identifier(
        description="Name of the port (vmnic0, eth0, NIC1); teams and "
                    "workloads refer to it")
    speed_gbps: float = Field(
        gt=0, le=1600,
        description="Link speed [Gbit/s]")
    rss_queues: int = Field(
        default=8, ge=1, le=512,
        description="Receive-side scaling queues; default 8, the common "
                    "driver default")
    rss_tuned: bool = Field(
        default=False,
        description="RSS queues pinned to distinct physical cores of the "
                    "NIC's own NUMA node (off: the OS defaults)")
    rdma: Literal["none", "roce_v2", "iwarp", "infiniband"] = Field(
        default="none", description="RDMA the NIC offers: 'roce_v2', "
        "'iwarp', or 'infiniband' (a native IB port: RDMA transports use IB "
        "framing, models.wire.IB_HEADER_BYTES, and speed_gbps is the IB "
        "data rate: EDR 100, HDR 200, NDR 400, FDR 54.5, QDR 32)")
    offloads: Offloads = Field(
        default=Offloads(),
        description="Stateless offloads per IP version")
    pcie_gen: Literal[PCIE_GENERATIONS] | None = Field(
        default=None, description="PCIe generation of the adapter's slot "
        "(None: the slot is not modelled)")
    pcie_lanes: Literal[PCIE_LANES] | None = Field(
        default=None, description="Negotiated PCIe link width [lanes]")
    pcie_max_payload_bytes: Literal[128, 256, 512, 1024, 2048, 4096] = \
        Field(default=DEFAULT_MAX_PAYLOAD_BYTES,
              description="PCIe maximum payload size (MPS) [B]; 256 is the "
              "usual server default")
    pcie_slot: str | None = Field(
        default=None, pattern=r"^[A-Za-z0-9_.:-]+$", min_length=1,
        max_length=64, description="Ports of one multi-port adapter name "
        "the same slot and share its bandwidth (None: a slot of its own)")

    @model_validator(mode="after")
    def _pcie_link_whole(self):
        if (self.pcie_gen is None) != (self.pcie_lanes is None):
            raise ValueError("pcie_gen and pcie_lanes go together: give "
                             "both or neither")
        return self


class Network(StrictModel):
    """Settings of the IP network that carries the analysed traffic."""

    ip_version: Literal[4, 6] = Field(
        default=4,
        description="IP version of the analysed traffic")
    #: accepted MTU range [B]: 576 is the IPv4 datagram every host must
    #: accept (RFC 791); raise ``mtu_max`` for gear that takes more than
    #: 9216 (declared before ``mtu``, which is checked against them)
    mtu_min: int = Field(
        default=MTU_LIMITS[0], ge=MTU_LIMITS[0], le=MTU_CEILING,
        description="Smallest MTU the gear accepts; default 576 (RFC 791) "
                    "[B]")
    mtu_max: int = Field(
        default=MTU_LIMITS[1], ge=MTU_LIMITS[0], le=MTU_CEILING,
        description="Largest MTU the gear accepts; default 9216, common "
                    "switch maximum [B]")
    mtu: int = Field(
        default=1500, ge=MTU_LIMITS[0], le=MTU_CEILING,
        description="IP MTU: the largest IP packet, header included; default "
                    "1500 (Ethernet) [B]")
    vlan_tags: int = Field(
        default=0, ge=0, le=2,
        description="802.1Q tags per frame (2: QinQ)")
    tcp_timestamps: bool = Field(
        default=True,
        description="TCP timestamps option (12 B per segment); on by default "
                    "in Linux, ESXi and Windows")
    encapsulation: Literal["none", "vxlan", "geneve"] = Field(
        default="none",
        description="Overlay encapsulation of the traffic")
    underlay_ip_version: Literal[4, 6] = Field(
        default=4,
        description="IP version of the overlay's underlay")
    geneve_option_bytes: int = Field(
        default=0, ge=0, le=252, multiple_of=4,
        description="Geneve option bytes per packet [B]")
    packet_loss_pct: float = Field(
        default=0.0, ge=0, lt=100,
        description="Packet loss on the path (TCP throughput falls with it, "
                    "Mathis et al.) [%]")
    frame_size_bytes: int | None = Field(
        default=None, ge=MIN_FRAME_BYTES, description="Frame size for the "
        "packet-rate question, MAC header to FCS as RFC 2544 counts it "
        "(64 B minimum frames: 14.88 Mpps on 10 GbE) [B]; None: only "
        "full-size frames at the MTU")

    @model_validator(mode="after")
    def _frame_fits_the_mtu(self):
        largest = self.mtu + L2_OVERHEAD_BYTES + VLAN_TAG_BYTES * \
            self.vlan_tags
        if self.frame_size_bytes is not None \
                and self.frame_size_bytes > largest:
            raise ValueError(
                f"frame_size_bytes must be <= {largest} (network.mtu + "
                f"{L2_OVERHEAD_BYTES} B of MAC header and FCS + "
                f"{VLAN_TAG_BYTES} B per VLAN tag), got "
                f"{self.frame_size_bytes}")
        return self

    @field_validator("mtu_max")
    @classmethod
    def _range_not_empty(cls, mtu_max, info):
        mtu_min = info.data.get("mtu_min", MTU_LIMITS[0])
        if mtu_max < mtu_min:
            raise ValueError(f"must be >= mtu_min ({mtu_min}), got {mtu_max}")
        return mtu_max

    @field_validator("mtu")
    @classmethod
    def _mtu_in_accepted_range(cls, mtu, info):
        # the fields it depends on are declared first, so validated by now
        # (absent when they are themselves invalid: no second message)
        low, high = info.data.get("mtu_min"), info.data.get("mtu_max")
        if low is not None and mtu < low:
            raise ValueError(f"must be >= {low} (network.mtu_min), got {mtu}")
        if high is not None and mtu > high:
            raise ValueError(f"must be <= {high} (network.mtu_max), got {mtu}")
        if info.data.get("ip_version") == 6 and mtu < IPV6_MIN_MTU:
            raise ValueError(f"must be at least {IPV6_MIN_MTU} with IPv6 "
                             f"(RFC 8200), got {mtu}")
        return mtu
