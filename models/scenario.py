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
import functools
import hashlib
import ipaddress
import json
import math
import re
import tomllib
import weakref
from typing import Any, Callable, Literal

import tomli_w
from pydantic import (BaseModel, ConfigDict, Field, ValidationError,
                      field_validator, model_validator)

from models import cluster as cluster_model
from models import platform
from models.compression import ALGORITHMS as COMPRESSORS
from models.compression import DATA_CLASSES as COMPRESSION_DATA
from models.cpu import CPU_GENERATIONS, DEFAULT_CPU
from models.evacuation import ORDERS as EVACUATION_ORDERS
from models.evacuation import PLATFORMS as EVACUATION_PLATFORMS
from models.host import (QUEUE_MODE_HYPERVISORS, QUEUE_MODES,
                         STACK_HYPERVISORS, STACK_PRESETS, VMMQ_QUEUE_PAIRS,
                         VNIC_QUEUES)
from models.migration import STOP_RULES, SWITCHOVER_MODES
from models.qemu_ram import DATA_PATHS, ZERO_PAGE_DETECTIONS
from models.pcie import DEFAULT_MAX_PAYLOAD_BYTES
from models.pcie import GENERATIONS as PCIE_GENERATIONS
from models.pcie import LANES as PCIE_LANES
from models.pfc import MAX_CABLE_M as PFC_MAX_CABLE_M
from models.storage import (BACKEND_KINDS, PROTOCOLS as STORAGE_PROTOCOLS,
                            SPINDLE_15K_IOPS, SPINDLE_15K_MBPS,
                            STORAGE_TRANSPORTS, WRITE_PENALTY)
from models.teaming import (IP_HASH_VARIANTS, KERNEL_HASH_VARIANTS,
                            LBT_TARGET_RULES, LINUX_HASHES, STEADY_PERIODS,
                            SWITCH_HASH_FIELDS, UNIFORM_HASH_FIELDS,
                            required_flow_fields, steady_horizon_s,
                            switch_hash_fields)
from models.transport import TRANSPORTS
from models.units import field_unit, parse_quantity
from models.wire import (IP_HEADER_BYTES, IPV6_MIN_MTU, L2_OVERHEAD_BYTES,
                         MIN_FRAME_BYTES, MTU_CEILING, MTU_LIMITS,
                         UDP_HEADER_BYTES, VLAN_TAG_BYTES,
                         encapsulation_bytes)

#: The schema version this build writes and reads natively.
SCHEMA_VERSION = 1

#: Name of the unmodified base scenario among the compared variants.
BASE_NAME = "Base"


class ScenarioError(ValueError):
    """A scenario document that cannot be used, with every problem found.

    ``problems`` is a list of ``(path, message)`` pairs; ``str()`` gives one
    line per problem, ``path: message``.
    """

    def __init__(self, problems, source=None):
        self.problems = list(problems)
        self.source = source
        super().__init__(self._text())

    def _text(self):
        prefix = f"{self.source}: " if self.source else ""
        return "\n".join(f"{prefix}{path}: {message}" if path
                         else f"{prefix}{message}"
                         for path, message in self.problems)


# --------------------------------------------------------------------------
# Document model
# --------------------------------------------------------------------------

#: Magnitudes a number in a document may have, besides zero. The models
#: turn Gbit/s, GiB, MiB/s and ms into bit/s, B and s (factors up to
#: 2**40), multiply by counts (at most the product limits below) and
#: divide by rates and times: with every input 0 or within [1e-9, 1e12],
#: every intermediate stays far inside float64's normal range (about
#: 1e-308 to 1e308), so nothing overflows, divides by a denormal or
#: rounds to zero. Both ends are far outside real hardware (1e-9 Gbit/s is
#: 1 bit/s; 1e12 IOPS or Gbit/s is a million times today's largest).
SMALLEST_MAGNITUDE = 1e-9
LARGEST_MAGNITUDE = 1e12

#: Entries in one list of a document (unless limited below). Measured:
#: evaluation takes about 3 ms per live migration or transfer and advise
#: re-solves the scenario per candidate, so 10,000 migrations took 31 s
#: and 1 GB (issue 19); 1,000 stay within seconds.
MAX_ENTRIES = 1_000

#: Transfers and storage workloads in one document: advise re-validates
#: and re-solves the document once per candidate change, and there is a
#: candidate per entry, so its time grows with the square of their number
#: (measured, 2 cores: 100 transfers 7-9 s, 200 transfers 26 s; 100
#: storage workloads 2.5 s, 1,000 over 300 s). Real hosts run a few
#: bulk transfers (each up to 1,024 sessions) and a few storage tests.
MAX_TRANSFERS = 64
MAX_STORAGE_WORKLOADS = 100

#: Transfers, migrations, storage workloads and evacuations solved over
#: the base and all variants together: every variant solves them again
#: (same measurement). Flows are not counted: a team's flows are bounded
#: by MAX_TEAMING_CELLS per variant (measured: 400 flows on an LBT team
#: over 8 variants evaluate in 1.2 s).
MAX_SOLVED_ENTRIES = 2_000

#: NIC ports on one host: PCIe slots times ports per card stay below this.
MAX_NICS = 64

#: Largest total outstanding IO (VMs x disks x threads) of a storage
#: workload: the closed-queue model (models.storage.closed_queue_iops)
#: steps once per outstanding IO, about 1 s per 100,000 (measured); real
#: benchmarks stay far below (HCIBench: storage-io.md section 5.1).
MAX_OIO = 100_000

#: Largest number of TCP connections of one transfer (sessions x
#: streams): the receive-side model hashes every connection onto queues;
#: 65,536 is the ephemeral-port space of one peer address (RFC 6335).
MAX_CONNECTIONS = 65_536

#: Largest team simulation: time steps x flows x (failure sets + 1), the
#: cells the teaming solver computes per compared policy. 2e6 cells keep
#: one policy within about a second (measured on the seed examples).
MAX_TEAMING_CELLS = 2_000_000


#: Largest cluster study: cases x hosts x NICs x traffic classes, the
#: cells of one evaluation of models.cluster (8 bytes each; 20 million
#: cells solve in about a second and take 160 MB per array). 64 hosts x
#: 4 NICs x 8 classes with every single failure is about 40,000.
MAX_CLUSTER_CELLS = 20_000_000

#: Hosts of one cluster: vSphere 8 and Windows Server 2025 allow 96 and
#: 64 per cluster; Ceph clusters grow larger, but one study of a rack
#: fabric stays below this.
MAX_CLUSTER_HOSTS = 1_024


def _representable(value, where=""):
    """Problem text when a plain value is outside what the document
    accepts (see SMALLEST_MAGNITUDE), else None. Lists are checked by
    element; tables (variant changes) by value."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return f"{_at(where)}must be a finite number, got {value}"
        if value and not SMALLEST_MAGNITUDE <= abs(value) \
                <= LARGEST_MAGNITUDE:
            limit, side = (SMALLEST_MAGNITUDE, "below the smallest") \
                if abs(value) < SMALLEST_MAGNITUDE \
                else (LARGEST_MAGNITUDE, "above the largest")
            return (f"{_at(where)}is {side} magnitude the models represent "
                    f"({limit:g}; 0 where allowed), got {value!r}")
        return None
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{_at(where)}is not valid Unicode text, got {value!r}"
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            problem = _representable(item, f"{where}[{i}]")
            if problem:
                return problem
    return None


def _at(where):
    return f"{where}: " if where else ""


def _plain(value, where):
    """Problem text when a free-form value (variant change, sweep value)
    has no TOML form or is not representable, else None."""
    if value is None:
        return (f"{where}: null has no TOML form and cannot be saved; "
                "give the value itself")
    if isinstance(value, dict):
        for key, item in value.items():
            problem = _plain(item, f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(value, list):
        for i, item in enumerate(value):
            problem = _plain(item, f"{where}[{i}]")
            if problem:
                return problem
        return None
    return _representable(value, where)


class _Strict(BaseModel):
    """Common rules: no unknown keys, no type coercion, no NaN or infinity,
    numbers within what the models represent, valid Unicode text."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              allow_inf_nan=False, frozen=True)

    @field_validator("*")
    @classmethod
    def _within_model_range(cls, value):
        # runs for every field of every document: numbers and lists of
        # numbers only (pydantic itself refuses text UTF-8 cannot encode)
        kind = type(value)
        if kind is float or kind is int:
            if value and not SMALLEST_MAGNITUDE <= abs(value) \
                    <= LARGEST_MAGNITUDE:
                raise ValueError(_representable(value))
        elif kind is list and value and type(value[0]) in (float, int):
            problem = _representable(value)
            if problem:
                raise ValueError(problem)
        return value

    @model_validator(mode="before")
    @classmethod
    def _typed_quantities(cls, data):
        # "1.5 GB/s" for a field in MiB/s: the number in the field's unit
        # (checked only where a value is text at all: C-speed tests)
        if type(data) is dict and str in map(type, data.values()):
            quantities = _quantity_fields(cls)
            typed = [k for k in quantities.keys() & data.keys()
                     if type(data[k]) is str]
            if typed:
                data = dict(data)
                for key in typed:
                    data[key] = _quantity(data[key], key, *quantities[key])
        return data


class _Refused(str):
    """A quantity refused for its unit: strict validation reports the
    field as not a number, and the message says why."""

    reason = ""


@functools.cache
def _quantity_fields(model):
    """``{field: (unit, whole)}`` of a model's numeric fields that have a
    unit (:func:`models.units.field_unit`)."""
    fields = {}
    for name, info in model.model_fields.items():
        kinds = [a for a in getattr(info.annotation, "__args__",
                                    (info.annotation,))
                 if a is not type(None)]
        if len(kinds) == 1 and kinds[0] in (int, float):
            unit = field_unit(name, info.description or "")
            if unit:
                fields[name] = (unit, kinds[0] is int)
    return fields


def _quantity(text, name, unit, whole):
    if not re.search(r"[^\d\s.,_eE+-]", text):
        return text   # a quoted bare number: refused as a string still
    try:
        value = parse_quantity(text, unit, field=name)
    except ValueError as err:
        refused = _Refused(text)
        refused.reason = str(err).removeprefix(f"{name}: ")
        return refused
    if whole:
        if abs(value - round(value)) > 1e-9 * max(1.0, abs(value)):
            refused = _Refused(text)
            refused.reason = (f"{text!r} is {value:g} {unit}; give a whole "
                              f"number of {unit}")
            return refused
        return int(round(value))
    return value


Identifier = Field(pattern=r"^[A-Za-z0-9_.:-]+$", min_length=1,
                   max_length=64)


class Meta(_Strict):
    """What the scenario is for: shown in reports and kept with the file."""

    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    objectives: list[str] = []
    assumptions: list[str] = []
    notes: str = ""


class Host(_Strict):
    """The hypervisor host whose network is planned."""

    hypervisor: Literal["vsphere", "hyperv", "kvm", "xen"] = "vsphere"
    sockets: int = Field(default=2, ge=1, le=16)
    cores_per_socket: int = Field(default=16, ge=1, le=512)
    ghz: float = Field(default=2.6, gt=0, le=10)
    #: CPU cost preset (models.host.STACK_PRESETS), one of the hypervisor's
    #: (models.host.STACK_HYPERVISORS); None: the hypervisor's default
    stack: Literal[tuple(STACK_PRESETS)] | None = None
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


class OffloadSet(_Strict):
    """Stateless offloads a NIC performs for one IP version."""

    checksum: bool = True
    #: segmentation (send) and receive coalescing (LRO/RSC) in the NIC
    tso: bool = True
    lro: bool = True
    gso: bool = Field(
        default=True, description="Software segmentation when tso is off "
        "(Linux GSO, the VMkernel's software TSO); no effect on a stack "
        "without it (Windows)")
    gro: bool = Field(
        default=True, description="Software receive coalescing when lro is "
        "off (Linux GRO, the VMkernel's software LRO); no effect on a stack "
        "without it (Windows)")
    #: the same offloads also for VXLAN/Geneve-encapsulated traffic
    tunnel: bool = False
    aggregate_kib: float = Field(
        default=64.0, ge=1, le=512, description="Largest TSO/GSO send and "
        "LRO/GRO receive aggregate [KiB]: 64 (the IP datagram limit); "
        "Linux BIG TCP raises it (ip link set DEV gso_max_size/"
        "gro_max_size, IPv6 from 5.19, IPv4 from 6.3; Google runs 185 KB)")


class Offloads(_Strict):
    """Offloads per IP version: they are often not symmetric."""

    ipv4: OffloadSet = OffloadSet()
    ipv6: OffloadSet = OffloadSet()


class Nic(_Strict):
    """A physical NIC port (uplink)."""

    id: str = Identifier
    speed_gbps: float = Field(gt=0, le=1600)
    rss_queues: int = Field(default=8, ge=1, le=512)
    #: RSS queues pinned to distinct physical cores of the NIC's own NUMA
    #: node (False: the OS defaults)
    rss_tuned: bool = False
    rdma: Literal["none", "roce_v2", "iwarp", "infiniband"] = Field(
        default="none", description="RDMA the NIC offers: 'roce_v2', "
        "'iwarp', or 'infiniband' (a native IB port: RDMA transports use IB "
        "framing, models.wire.IB_HEADER_BYTES, and speed_gbps is the IB "
        "data rate: EDR 100, HDR 200, NDR 400, FDR 54.5, QDR 32)")
    offloads: Offloads = Offloads()
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


#: Load-balancing policies by id, with the switch modes each one allows.
#: Names follow the vendors' own (docs/reference/teaming.md sections 2-5).
TEAMING_POLICIES = {
    "port_id": ("Route based on originating virtual port (vSphere)",
                ("independent",)),
    "src_mac": ("Route based on source MAC hash (vSphere)",
                ("independent",)),
    "ip_hash": ("Route based on IP hash (vSphere, static EtherChannel)",
                ("static", "lacp")),
    "failover": ("Explicit failover order / active-backup",
                 ("independent",)),
    "lbt": ("Route based on physical NIC load (vSphere LBT)",
            ("independent",)),
    "lacp": ("LACP with a hash (vDS LACP, Linux 802.3ad, LBFO LACP)",
             ("lacp",)),
    "balance_xor": ("Static hash (Linux balance-xor)", ("static",)),
    "balance_rr": ("Round-robin per packet (Linux balance-rr)",
                   ("static",)),
    "balance_tlb": ("Adaptive transmit load balancing (Linux balance-tlb)",
                    ("independent",)),
    "balance_alb": ("Adaptive load balancing (Linux balance-alb)",
                    ("independent",)),
    "ovs_balance_slb": ("Open vSwitch balance-slb", ("independent",)),
    "ovs_balance_tcp": ("Open vSwitch balance-tcp", ("lacp",)),
    "hyperv_port": ("Hyper-V Port (LBFO/SET)", ("independent", "static",
                                                "lacp")),
    "address_hash": ("Address Hash (LBFO)", ("independent", "static",
                                             "lacp")),
    "dynamic": ("Dynamic (LBFO/SET)", ("independent", "static", "lacp")),
}

#: Hash inputs for hash-based policies: Linux ``xmit_hash_policy`` names
#: (exact), the vDS LACP algorithms and the LBFO address-hash variants
#: (uniform hashes of the named fields, approximate).
HASH_POLICIES = LINUX_HASHES + tuple(UNIFORM_HASH_FIELDS)

#: Policies that hash with a Linux ``xmit_hash_policy`` only, and those that
#: take an LBFO address-hash variant only.
LINUX_HASH_POLICIES = ("balance_xor", "balance_tlb")
WINDOWS_HASHES = ("transport_ports", "ip_addresses", "mac_addresses")


class NiocClass(_Strict):
    """Network I/O Control allocation of one traffic class on every
    adapter of a team (shares, reservation, limit)."""

    traffic_class: str = Identifier
    shares: float = Field(default=50.0, gt=0, le=100)
    reservation_gbps: float = Field(default=0.0, ge=0)
    limit_gbps: float | None = Field(default=None, gt=0)


class Team(_Strict):
    """A NIC team (bond, LAG) and its load-balancing policy."""

    name: str = Identifier
    members: list[str] = Field(min_length=1)
    standby: list[str] = []
    switch_mode: Literal["independent", "static", "lacp"] = "independent"
    policy: Literal[tuple(TEAMING_POLICIES)] = "port_id"
    hash: Literal[HASH_POLICIES] | None = None
    switch_hash: Literal[tuple(SWITCH_HASH_FIELDS)] | None = Field(
        default=None, description="The peer switch's port-channel hash "
        "for traffic it sends to this host (Cisco/Arista 'port-channel "
        "load-balance', Juniper 'hash-key'): it, not the host's policy, "
        "decides the receive member of a static or LACP team. None: the "
        "switch assumed to hash like the host")
    kernel_hash: Literal[tuple(KERNEL_HASH_VARIANTS)] = "current"
    #: vSphere IP hash: XOR of the last octets (VMware's KB wording) or of
    #: the whole 32-bit addresses; they differ only for 3, 5, 6, 7 uplinks
    ip_hash_variant: Literal[IP_HASH_VARIANTS] = "last_octet"
    lbt_threshold_pct: float = Field(default=75.0, gt=0, le=100)
    lbt_period_s: float = Field(default=30.0, gt=0, le=3600)
    lbt_target_rule: Literal[LBT_TARGET_RULES] = "stay_below"
    lbt_max_moves_per_uplink: int = Field(default=1, ge=1, le=64)
    ovs_rebalance_interval_ms: int = Field(default=10_000, ge=0,
                                           le=86_400_000)
    ovs_hash_basis: int = Field(default=0, ge=0, le=2**32 - 1)
    tlb_order: Literal["descending", "random"] = "descending"
    dynamic_epoch_s: float = Field(default=10.0, gt=0, le=3600)
    compare: list[Literal[tuple(TEAMING_POLICIES)]] | None = None
    failures: int = Field(default=1, ge=1, le=7)
    nioc: list[NiocClass] = []
    nioc_reservation: Literal["floor", "additive"] = "floor"

    @model_validator(mode="after")
    def _policy_fits_switch_mode(self):
        label, modes = TEAMING_POLICIES[self.policy]
        if self.switch_mode not in modes:
            raise ValueError(
                f"policy {self.policy!r} ({label}) needs switch_mode "
                f"{' or '.join(map(repr, modes))}, got {self.switch_mode!r}")
        if self.switch_hash is not None and self.switch_mode \
                == "independent":
            raise ValueError(
                f"switch_hash {self.switch_hash!r} needs switch_mode "
                "'static' or 'lacp': a switch-independent team has no "
                "port-channel on the switch (it learns MACs), got "
                "switch_mode 'independent'")
        if self.hash is not None:
            if self.policy in LINUX_HASH_POLICIES \
                    and self.hash not in LINUX_HASHES:
                raise ValueError(f"policy {self.policy!r} takes a Linux "
                                 "xmit_hash_policy (" + ", ".join(
                                     LINUX_HASHES) + f"), got {self.hash!r}")
            if self.policy == "address_hash" \
                    and self.hash not in WINDOWS_HASHES:
                raise ValueError(f"policy 'address_hash' takes one of "
                                 f"{', '.join(WINDOWS_HASHES)}, got "
                                 f"{self.hash!r}")
        if self.failures > 1 \
                and self.failures >= len(self.members) + len(self.standby):
            raise ValueError(f"failures must leave at least one uplink: "
                             f"{self.failures} of "
                             f"{len(self.members) + len(self.standby)}")
        _check_unique("nioc", [c.traffic_class for c in self.nioc],
                      "traffic_class")
        return self


class Network(_Strict):
    """Settings of the IP network that carries the analysed traffic."""

    ip_version: Literal[4, 6] = 4
    #: accepted MTU range [B]: 576 is the IPv4 datagram every host must
    #: accept (RFC 791); raise ``mtu_max`` for gear that takes more than
    #: 9216 (declared before ``mtu``, which is checked against them)
    mtu_min: int = Field(default=MTU_LIMITS[0], ge=MTU_LIMITS[0],
                         le=MTU_CEILING)
    mtu_max: int = Field(default=MTU_LIMITS[1], ge=MTU_LIMITS[0],
                         le=MTU_CEILING)
    mtu: int = Field(default=1500, ge=MTU_LIMITS[0], le=MTU_CEILING)
    vlan_tags: int = Field(default=0, ge=0, le=2)
    tcp_timestamps: bool = True
    encapsulation: Literal["none", "vxlan", "geneve"] = "none"
    underlay_ip_version: Literal[4, 6] = 4
    geneve_option_bytes: int = Field(default=0, ge=0, le=252,
                                     multiple_of=4)
    packet_loss_pct: float = Field(default=0.0, ge=0, lt=100)
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


class TimeProfile(_Strict):
    """A demand multiplier over time, linear between points."""

    name: str = Identifier
    t_s: list[float] = Field(min_length=1)
    scale: list[float] = Field(min_length=1)

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


MacAddress = Field(default=None,
                   pattern=r"^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$")


class Flow(_Strict):
    """One VM port or flow with its demand in each direction."""

    id: str = Identifier
    vm: str = ""
    port_id: int | None = Field(default=None, ge=0)
    mac: str | None = MacAddress
    dst_mac: str | None = MacAddress
    src_ip: str | None = None
    dst_ip: str | None = None
    protocol: Literal["tcp", "udp"] = "tcp"
    src_port: int | None = Field(default=None, ge=0, le=65535)
    dst_port: int | None = Field(default=None, ge=0, le=65535)
    vlan: int | None = Field(default=None, ge=0, le=4094)
    #: 802.1p priority in the VLAN tag (Linux vlan+srcmac hashes the whole
    #: tag control field, priority included)
    vlan_pcp: int = Field(default=0, ge=0, le=7)
    traffic_class: str = "vm"
    tx_gbps: float = Field(default=0.0, ge=0)
    rx_gbps: float = Field(default=0.0, ge=0)
    profile: str | None = None
    team: str | None = None
    pin: list[str] = []
    anti_affinity: str | None = None

    @field_validator("src_ip", "dst_ip")
    @classmethod
    def _ip_address(cls, value):
        if value is not None:
            try:
                ipaddress.ip_address(value)
            except ValueError:
                raise ValueError(f"not an IP address: {value!r}") from None
        return value


class DirtyModel(_Strict):
    """How the guest dirties memory during pre-copy: a uniform rate, or a
    hot working set that saturates plus a linear cold rate
    (models.migration.dirty_bytes)."""

    kind: Literal["uniform", "hot_cold"] = "uniform"
    #: uniform: the dirtying rate; hot_cold: the hot set's initial rate
    rate_mib_s: float = Field(default=0.0, ge=0, le=1e7)
    hot_set_gib: float = Field(default=0.0, ge=0)
    cold_rate_mib_s: float = Field(default=0.0, ge=0, le=1e7)


class Migration(_Strict):
    """A live migration (or a batch of identical VMs, ``concurrency`` at a
    time). Its network rate comes from a transfer: the one named in
    ``transfer``, or one built from ``transport``, ``streams`` and the
    compression fields over all NICs."""

    name: str = Identifier
    memory_gib: float = Field(gt=0, le=24576)
    count: int = Field(default=1, ge=1, le=1024)
    concurrency: int = Field(default=1, ge=1, le=64)
    zero_page_pct: float = Field(default=0.0, ge=0, le=100)
    dirty: DirtyModel = DirtyModel()
    first_round_rate_cap_mib_s: float | None = Field(default=None, gt=0)
    transfer: str | None = None
    transport: Literal[TRANSPORTS] = "tcp"
    streams: int | None = Field(
        default=None, ge=1, le=64, description="Migration streams; with "
        "multifd the channels. None: the platform's default: one; QEMU "
        "multifd 2 (multifd-channels); over SMB one per Multichannel "
        "connection (as workloads.transfers[].streams)")
    compression_ratio: float = Field(default=1.0, ge=1, le=1000)
    compressor_gbps: float = Field(default=1.0, gt=0)
    compression_threads: int = Field(default=1, ge=1, le=256)
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
    stop_rule: Literal[tuple(STOP_RULES)] = "vmotion"
    #: None: the stop rule's own default (QEMU 300 ms, vMotion 500 ms goal)
    downtime_budget_ms: float | None = Field(default=None, gt=0)
    max_switchover_s: float | None = Field(default=None, gt=0)
    #: stop when this share of memory is left (stop_rule fraction_left)
    fraction_left_pct: float = Field(default=1.0, gt=0, lt=100)
    #: None: the stop rule's default (SDPS for vMotion, none otherwise)
    throttling: Literal["none", "sdps", "auto_converge"] | None = None
    time_budget_s: float | None = Field(default=None, gt=0)
    #: stop_rule qemu: the QEMU release, "major.minor"; it decides the
    #: default max-bandwidth (32 MiB/s before 5.2, 128 MiB/s from 5.2)
    #: and the 5 s bitmap-sync timer of auto-converge (from 9.2)
    qemu_version: str = Field(default="9.2", pattern=r"^[0-9]{1,2}\.[0-9]{1,2}$")
    #: stop_rule qemu: who sets max-bandwidth. "qemu": QEMU's own default
    #: for qemu_version; "libvirt": libvirt lifts it (QEMU_DOMAIN_MIG_
    #: BANDWIDTH_MAX, no cap); "unlimited": raised above what the path
    #: carries by other means (by hand, a tool). max_bandwidth_mib_s
    #: overrides all (KubeVirt bandwidthPerMigration, Proxmox bwlimit,
    #: virsh --bandwidth).
    management: Literal["qemu", "libvirt", "unlimited"] = "qemu"
    max_bandwidth_mib_s: float | None = Field(default=None, gt=0)
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


#: Most IOs a device serves at once: NVMe allows 65,535 queues, but no
#: drive has more than a few thousand dies x planes working in parallel.
MAX_DEVICE_CHANNELS = 4096


class Backend(_Strict):
    """The storage system's own limits."""

    iops_max: float | None = Field(default=None, gt=0)
    mbps_max: float | None = Field(default=None, gt=0)
    devices: int | None = Field(default=None, ge=1)
    device_iops: float = Field(default=SPINDLE_15K_IOPS, gt=0)
    device_mbps: float = Field(default=SPINDLE_15K_MBPS, gt=0)
    raid: Literal[tuple(WRITE_PENALTY)] = "none"
    service_time_ms: float | None = Field(default=None, gt=0)
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


class StorageWorkload(_Strict):
    """A storage IO workload (benchmark or application)."""

    name: str = Identifier
    protocol: Literal[STORAGE_PROTOCOLS] = "iscsi"
    transport: Literal[STORAGE_TRANSPORTS] | None = Field(
        default=None, description="tcp or rdma (SMB Direct, iSER, "
        "NVMe-oF/RDMA, NFS over RDMA, vSAN over RDMA); None: the "
        "protocol's default (SMB3 and S2D use RDMA when every NIC of the "
        "workload is RDMA-capable, the others TCP)")
    block_kib: float = Field(default=4.0, gt=0, le=16384)
    read_pct: float = Field(default=70.0, ge=0, le=100)
    random_pct: float = Field(default=100.0, ge=0, le=100)
    vms: int = Field(default=1, ge=1)
    disks_per_vm: int = Field(default=1, ge=1)
    threads_per_disk: int = Field(default=1, ge=1)
    working_set_pct: float = Field(default=100.0, gt=0, le=100)
    nics: list[str] = []
    smb_encryption: bool = False
    sessions_per_path: int | None = Field(
        default=None, ge=1, le=64, description="Connections per path, each "
        "served by one core (iSCSI sessions, NFS nconnect, SMB "
        "Multichannel connections); None: the protocol's default (1; SMB3 "
        "and S2D 4 per RSS NIC and 2 per RDMA NIC; local IO and NVMe-oF "
        "every core)")
    backend: Backend

    @model_validator(mode="after")
    def _oio_in_range(self):
        oio = self.vms * self.disks_per_vm * self.threads_per_disk
        if oio > MAX_OIO:
            raise ValueError(f"vms x disks_per_vm x threads_per_disk = "
                             f"{oio:,} outstanding IO, more than the "
                             f"{MAX_OIO:,} the storage model takes")
        return self


class Transfer(_Strict):
    """A bulk transfer received by this host from an identical peer (live
    migration traffic, file copy, netperf): as fast as the path allows."""

    name: str = Identifier
    transport: Literal[TRANSPORTS] = "tcp"
    purpose: Literal["bulk", "live_migration"] = "bulk"
    #: team carrying it; None: the NICs listed in ``nics`` (all if empty)
    via: str | None = None
    nics: list[str] = []
    #: this host receives the data (the usual binding side) or sends it
    direction: Literal["receive", "send"] = "receive"
    #: without a team, spread sessions over all NICs (multi-NIC vMotion,
    #: iSCSI port binding, one vNIC per uplink) instead of one route
    multipath: bool = False
    #: independent senders at once (VMs migrating, netperf pairs)
    sessions: int = Field(default=1, ge=1, le=1024)
    streams: int | None = Field(
        default=None, ge=1, le=256, description="Application streams "
        "(sending threads) per session, each one TCP connection for tcp "
        "and compression. None: the platform's default: one per session; "
        "over SMB one per Multichannel connection, which SMB opens by "
        "itself (4 per RSS-capable NIC, 2 per RDMA NIC, 1 otherwise: "
        "Microsoft, 'SMB Multichannel', ConnectionCountPerRssNetwork"
        "Interface; models.transport.SMB_CONNECTIONS)")
    #: ceiling of one stream; None: the hypervisor's live-migration
    #: preset for purpose "live_migration", else none
    stream_cap_gbps: float | None = Field(default=None, gt=0)
    stream_cap_pps: float | None = Field(
        default=None, gt=0, le=1e9, description="Packets per second one "
        "stream's thread sends: a single-threaded traffic generator's "
        "published rate (Ostinato over libpcap: about 750,000) [1/s]; "
        "transport 'udp' only; None: no such cap")
    compression_ratio: float = Field(default=2.0, ge=1, le=1000)
    compressor_gbps: float = Field(default=1.0, gt=0)
    compression_threads: int = Field(default=4, ge=1, le=1024)
    #: as Migration.compressor, compression_data and qat_devices
    compressor: Literal[COMPRESSORS] | None = None
    compression_data: Literal[("ratio",) + COMPRESSION_DATA] = "ratio"
    qat_devices: int = Field(default=1, ge=1, le=64)
    #: how the receiver spreads connections over cores: "rss" (host NIC
    #: queues), or behind a virtual switch, one vNIC per session: "vmq"
    #: (one core per vNIC), "vrss" (VMQ + virtual RSS over the VM's vCPUs,
    #: 10 GbE and 2 vCPUs at least) or "vmmq" (hardware queues per vNIC)
    receive_queues: Literal[QUEUE_MODES] = "rss"
    #: logical processors of each receiving VM (vrss, vmmq)
    vm_vcpus: int = Field(default=4, ge=1, le=1024)
    #: hardware queue pairs per vNIC with vmmq (Hyper-V default 16)
    vmmq_queue_pairs: int = Field(default=VMMQ_QUEUE_PAIRS, ge=1, le=64)
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


class EvacuationVm(_Strict):
    """One VM leaving the host."""

    name: str = Identifier
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


class Destination(_Strict):
    """A host receiving evacuated VMs."""

    name: str = Identifier
    free_memory_gib: float = Field(
        gt=0, le=1e6, description="Memory free for incoming VMs [GiB]")


class Evacuation(_Strict):
    """Empty one host (maintenance mode, node drain): its VMs migrate over
    a transfer, a platform's number of them at a time, sharing its
    bandwidth."""

    name: str = Identifier
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
        _check_unique("vms", [vm.name for vm in self.vms], "name")
        _check_unique("destinations", [d.name for d in self.destinations],
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


class Workloads(_Strict):
    """Everything that puts load on the host network."""

    profiles: list[TimeProfile] = Field(default=[], max_length=MAX_ENTRIES)
    time_step_s: float = Field(default=1.0, gt=0, le=3600)
    flows: list[Flow] = Field(default=[], max_length=MAX_ENTRIES)
    transfers: list[Transfer] = Field(default=[], max_length=MAX_TRANSFERS)
    migrations: list[Migration] = Field(default=[], max_length=MAX_ENTRIES)
    storage: list[StorageWorkload] = Field(
        default=[], max_length=MAX_STORAGE_WORKLOADS)
    evacuations: list[Evacuation] = Field(default=[], max_length=MAX_ENTRIES)


class ClusterSwitch(_Strict):
    """A top-of-rack switch the cluster's hosts link to."""

    name: str = Identifier
    rack: str = Field(default="rack1", pattern=r"^[A-Za-z0-9_.:-]+$",
                      min_length=1, description="Rack the switch "
                      "stands in; hosts linked to it are in this rack")
    uplink_gbps: float = Field(gt=0, le=102_400, description="Capacity "
                               "of the switch's uplinks to the spine or "
                               "core, each direction, all links together "
                               "[Gbit/s]")


class HostGroup(_Strict):
    """Hosts alike: each has the document's NICs, the i-th NIC linked to
    the i-th switch of ``links`` (round robin)."""

    name: str = Identifier
    count: int = Field(default=1, ge=1, le=MAX_CLUSTER_HOSTS,
                       description="Hosts in the group")
    links: list[str] = Field(min_length=1, max_length=MAX_NICS,
                             description="Switch of each NIC, in the "
                             "order of nics (repeated when shorter)")


CLUSTER_CLASS_KINDS = ("vm", "storage", "vmotion", "backup", "management",
                       "other")


class TrafficClass(_Strict):
    """A traffic class every host sends, with its NIOC or ETS share."""

    name: str = Identifier
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


class Cluster(_Strict):
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


class Variant(_Strict):
    """A named alternative: the base scenario with some parameters changed."""

    name: str = Field(min_length=1, max_length=80)
    description: str = ""
    set: dict[str, Any] = {}

    @field_validator("set")
    @classmethod
    def _saveable(cls, changes):
        for path, value in changes.items():
            problem = _plain(value, f'"{path}"')
            if problem:
                raise ValueError(problem)
        return changes

    def describe(self):
        """The changes as text: ``path = value, ...`` (values as JSON)."""
        return ", ".join(f"{path} = {json.dumps(value, ensure_ascii=False)}"
                         for path, value in self.set.items()) or "no change"


class Span(_Strict):
    """Evenly spaced values from start to stop (both included)."""

    start: float
    stop: float
    num: int = Field(ge=1, le=1_000_000)


class Range(_Strict):
    """Values from start to stop (included when it falls on a step) in
    steps of ``step``."""

    start: float
    stop: float
    step: float

    @model_validator(mode="after")
    def _finite_count(self):
        if self.step == 0 or (self.stop - self.start) / self.step < 0:
            raise ValueError(f"step {self.step:g} never gets from "
                             f"{self.start:g} to {self.stop:g}")
        if (self.stop - self.start) / self.step >= 1_000_000:
            raise ValueError("more than 1,000,000 values")
        return self


class Axis(_Strict):
    """One sweep axis: a parameter path and the values it takes."""

    path: str = Field(min_length=1)
    values: list[Any] | None = Field(default=None, min_length=1)
    range: Range | None = None
    linspace: Span | None = None
    logspace: Span | None = None

    @field_validator("values")
    @classmethod
    def _saveable(cls, values):
        for i, value in enumerate(values or ()):
            problem = _plain(value, f"values[{i}]")
            if problem:
                raise ValueError(problem)
        return values

    @field_validator("logspace")
    @classmethod
    def _exponents_in_range(cls, span):
        # base-10 exponents: the values must stay representable too
        if span is None:
            return span
        low, high = (math.log10(SMALLEST_MAGNITUDE),
                     math.log10(LARGEST_MAGNITUDE))
        for value in (span.start, span.stop):
            if not low <= value <= high:
                raise ValueError(f"exponents must be between {low:g} and "
                                 f"{high:g}, got {value:g}")
        return span

    @model_validator(mode="after")
    def _one_source(self):
        given = [k for k in ("values", "range", "linspace", "logspace")
                 if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of values, range, linspace, "
                             "logspace"
                             f" (got {', '.join(given) or 'none'})")
        return self


class Sweep(_Strict):
    """A batch study: axes over parameter paths."""

    name: str = Field(min_length=1)
    mode: Literal["product", "zip"] = "product"
    axes: list[Axis] = Field(min_length=1)


#: What a scenario optimises; advice is ranked by it.
GOALS = {
    "max_throughput": ("host.throughput_gbps", "max"),
    # at equal work: CPU per Gbit/s moved, so moving less is no saving
    "min_cpu": ("host.cpu_pct_per_gbps", "min"),
    "min_migration_time": ("migration.total_s", "min"),
    "min_evacuation_time": ("evacuation.total_s", "min"),
    "max_iops": ("storage.iops", "max"),
    "latency_target": ("storage.latency_ms", "min"),
    # each variant's configured policy (its optimum shown beside it)
    "min_peak_util": ("teaming.configured.peak_util_pct", "min"),
    "min_cluster_util": ("cluster.worst_peak_util_pct", "min"),
}


class Goal(_Strict):
    """The scenario's goal, by which recommendations are ranked."""

    kind: Literal[tuple(GOALS)] = "max_throughput"
    latency_target_ms: float | None = Field(default=None, gt=0)


class StackCalibration(_Strict):
    """Host CPU costs fitted to the user's own runs: each given coefficient
    replaces the base preset's (models.host.StackCosts), the others stay."""

    base: Literal[tuple(STACK_PRESETS)] = Field(
        description="Preset the fitted coefficients replace values of")
    c_byte_tx: float | None = Field(default=None, ge=0, description=(
        "Cycles per payload byte sent [1/B]; None: the base preset's"))
    c_byte_rx: float | None = Field(default=None, ge=0, description=(
        "Cycles per payload byte received [1/B]; None: the base preset's"))
    c_pkt: float | None = Field(default=None, ge=0, description=(
        "Cycles per stack traversal [cycles]; None: the base preset's"))
    c_wire: float | None = Field(default=None, ge=0, description=(
        "Cycles per wire frame [cycles]; None: the base preset's"))


class CalibrationCheck(_Strict):
    """One measured run next to what the calibrated models predict."""

    run: str = Field(min_length=1, max_length=400,
                     description="The run: file and setting")
    quantity: str = Field(min_length=1, max_length=80,
                          description="What is compared, with its unit")
    measured: float = Field(description="The tool's value")
    predicted: float = Field(description="The calibrated models' value")
    error_pct: float = Field(description="(predicted - measured) / "
                             "measured [%]")
    role: Literal["fitted", "held_out"] = Field(description=(
        "fitted: the run was among those fitted; held_out: fitted on the "
        "other runs and predicted (leave-one-out)"))


class Calibration(_Strict):
    """A named site preset: what ``linkplan calibrate`` fitted to measured
    runs, on which files and when, with the residuals."""

    name: str = Identifier
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}", max_length=40,
                      description="When it was fitted (ISO 8601)")
    sources: list[str] = Field(min_length=1, max_length=MAX_ENTRIES,
                               description="The measured files fitted on")
    stack: StackCalibration | None = Field(
        default=None, description="Fitted host CPU costs; None: the "
        "preset's")
    fitted: list[str] = Field(default=[], max_length=MAX_ENTRIES,
                              description="Each fitted parameter: path = "
                              "value, and what determined it")
    undetermined: list[str] = Field(
        default=[], max_length=MAX_ENTRIES, description="Parameters the "
        "runs cannot determine, and why (kept at their given or preset "
        "values, not guessed)")
    checks: list[CalibrationCheck] = Field(default=[],
                                           max_length=MAX_SOLVED_ENTRIES)


class LosslessClass(_Strict):
    """A lossless traffic class (IEEE 802.1Qbb PFC) on the links between
    the host's NICs and their switch ports: RoCE v2, FCoE."""

    name: str = Identifier
    priority: int = Field(ge=0, le=7, description="IEEE 802.1p priority "
                          "PFC pauses")
    frame_bytes: int | None = Field(
        default=None, ge=MIN_FRAME_BYTES,
        le=MTU_CEILING + L2_OVERHEAD_BYTES + 2 * VLAN_TAG_BYTES,
        description="Largest frame of the class, MAC header to FCS [B] "
        "(None: frames at network.mtu)")
    headroom_bytes: int | None = Field(
        default=None, ge=0, description="Headroom the switch reserves per "
        "port for the class [B] (None: not checked)")


class Lossless(_Strict):
    """PFC on the links between the host's NICs and their switch ports."""

    cable_m: float = Field(
        default=3.0, ge=0, le=PFC_MAX_CABLE_M, description="Cable between "
        "a NIC and its switch port [m]; 3 m: a direct-attach cable in the "
        "rack")
    classes: list[LosslessClass] = Field(min_length=1, max_length=8)

    @model_validator(mode="after")
    def _classes_unique(self):
        _check_unique("lossless.classes", [c.name for c in self.classes],
                      "name")
        _check_unique("lossless.classes", [c.priority for c in self.classes],
                      "priority")
        return self


class Scenario(_Strict):
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
    lossless: Lossless | None = None

    @model_validator(mode="after")
    def _cross_references(self):
        stack = self.host.stack
        if stack is not None and \
                self.host.hypervisor not in STACK_HYPERVISORS[stack]:
            raise ValueError(
                f"host.stack {stack!r} is a preset of "
                f"{' or '.join(STACK_HYPERVISORS[stack])} hosts, not of "
                f"host.hypervisor {self.host.hypervisor!r}")
        _check_unique("nics", [n.id for n in self.nics], "id")
        _check_unique("teams", [t.name for t in self.teams], "name")
        _check_unique("variants", [v.name for v in self.variants], "name")
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
        _check_unique("workloads.transfers",
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
        _check_unique("workloads.migrations",
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
        _check_unique("workloads.evacuations",
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
        _check_unique("workloads.storage",
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
        _check_unique("cluster.host_groups",
                      [g.name for g in cluster.host_groups], "name")
        _check_unique("cluster.switches",
                      [s.name for s in cluster.switches], "name")
        _check_unique("cluster.classes", [c.name for c in cluster.classes],
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
        _check_unique("workloads.flows", [f.id for f in self.workloads.flows],
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


def _check_unique(where, names, key):
    seen = set()
    for i, name in enumerate(names):
        if name in seen:
            raise ValueError(f"{where}[{i}].{key} {name!r} is used twice")
        seen.add(name)


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
                             for path, message in _problems(err)]) from None


# --------------------------------------------------------------------------
# Parameter paths
# --------------------------------------------------------------------------

_PATH_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")


def parse_path(path):
    """Split ``'nics[1].speed_gbps'`` into ``['nics', 1, 'speed_gbps']``.

    Raises
    ------
    KeyError
        If the path is not of that form.
    """
    if not isinstance(path, str) or not path:
        raise KeyError(f"parameter path must be a non-empty string, "
                       f"got {path!r}")
    keys = []
    for part in path.split("."):
        match = _PATH_TOKEN.fullmatch(part)
        if match is None:
            raise KeyError(f"malformed parameter path {path!r}: expected "
                           "names and [index] separated by dots, e.g. "
                           "'nics[1].speed_gbps'")
        keys.append(match.group(1))
        keys.extend(int(i) for i in re.findall(r"\[(\d+)\]", match.group(2)))
    return keys


def _walk(data, keys, path):
    node = data
    for depth, key in enumerate(keys):
        where = _format_keys(keys[:depth]) or "the scenario"
        if isinstance(key, int):
            if not isinstance(node, list):
                raise KeyError(f"unknown parameter path {path!r}: {where} "
                               "is not a list")
            if key >= len(node):
                raise KeyError(f"unknown parameter path {path!r}: {where} "
                               f"has {len(node)} entries, no index {key}")
        elif not isinstance(node, dict) or key not in node:
            raise KeyError(f"unknown parameter path {path!r}: {where} has "
                           f"no field {key!r}")
        if depth < len(keys) - 1:
            node = node[key]
    return node


def get_path(data, path):
    """Read the value at a parameter path in a plain-data document."""
    keys = parse_path(path)
    return _walk(data, keys, path)[keys[-1]]


def set_path(data, path, value):
    """Set the value at a parameter path in a plain-data document, in place.

    Raises
    ------
    KeyError
        If the path does not name an existing field.
    """
    keys = parse_path(path)
    _walk(data, keys, path)[keys[-1]] = value


def _format_keys(keys):
    text = ""
    for key in keys:
        if isinstance(key, int):
            text += f"[{key}]"
        elif isinstance(key, str) and _PATH_TOKEN.fullmatch(key):
            text += f".{key}" if text else key
        else:
            text += f'."{key}"' if text else f'"{key}"'
    return text


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
        raise ScenarioError(_problems(err), source) from None
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
    _rebuild_with_descriptions()
    return Scenario.model_json_schema()


# --------------------------------------------------------------------------
# Error messages
# --------------------------------------------------------------------------

_TYPE_NAMES = {"float_type": "a number", "int_type": "a whole number",
               "bool_type": "true or false", "string_type": "a string",
               "list_type": "a list", "dict_type": "a table",
               "model_type": "a table", "tuple_type": "a list",
               "int_from_float": "a whole number"}


def _problems(err):
    return [(_format_keys(e["loc"]), _message(e)) for e in err.errors()]


def _message(error):
    kind, ctx, value = error["type"], error.get("ctx", {}), error.get("input")
    if isinstance(value, _Refused):
        return value.reason
    got = f"got {_show(value)}"
    if kind == "greater_than":
        return f"must be > {ctx['gt']:g}, {got}"
    if kind == "greater_than_equal":
        return f"must be >= {ctx['ge']:g}, {got}"
    if kind == "less_than":
        return f"must be < {ctx['lt']:g}, {got}"
    if kind == "less_than_equal":
        return f"must be <= {ctx['le']:g}, {got}"
    if kind == "multiple_of":
        return f"must be a multiple of {ctx['multiple_of']:g}, {got}"
    if kind == "finite_number":
        return f"must be a finite number, {got}"
    if kind == "extra_forbidden":
        return f"unknown key (not in schema version {SCHEMA_VERSION})"
    if kind == "missing":
        return "required field is missing"
    if kind == "literal_error":
        return f"must be {ctx['expected']}, {got}"
    if kind == "too_long" and "actual_length" in ctx:
        return (f"has {ctx['actual_length']:,} entries, more than the "
                f"{ctx['max_length']:,} a document may have")
    if kind in ("too_short", "too_long"):
        return f"{error['msg'].lower()}, {got}"
    if kind == "string_pattern_mismatch":
        return f"has an invalid format, {got}"
    if kind in _TYPE_NAMES:
        return f"must be {_TYPE_NAMES[kind]}, {got}"
    message = error["msg"].removeprefix("Value error, ")
    return message if kind == "value_error" else f"{message}, {got}"


def _show(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (dict, list)):
        text = json.dumps(value, default=str)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"{value!r} ({type(value).__name__})" if isinstance(value, str) \
        else repr(value)


def new_scenario():
    """A minimal valid scenario: one 10 GbE NIC, every other field at its
    default. What File > New starts from."""
    return scenario_from_dict({
        "schema_version": SCHEMA_VERSION,
        "meta": {"name": "Untitled scenario"},
        "nics": [{"id": "nic0", "speed_gbps": 10.0}],
    })


# --------------------------------------------------------------------------
# Field descriptions
# --------------------------------------------------------------------------

#: What each field means, with its unit and where its default comes from,
#: for fields declared without one (the editor's tooltips and the JSON
#: Schema show them). Kept in one table so the declarations above stay
#: short; a field declared with its own description keeps it.
_DESCRIPTIONS = {
    Meta: {
        "name": "Title of the scenario, shown in the window and reports",
        "description": "What the scenario describes: hosts, network, test",
        "objectives": "The questions the scenario answers",
        "assumptions": "Inputs not taken from a measurement, stated so a "
                       "reader can judge the answer",
        "notes": "Free text kept with the file",
    },
    Goal: {
        "kind": "What recommendations optimise; default maximum throughput",
        "latency_target_ms": "Storage latency to stay under for the "
                             "latency_target goal [ms]",
    },
    Host: {
        "hypervisor": "Hypervisor of the host; picks the default CPU cost "
                      "preset and live-migration stop rule",
        "sockets": "CPU sockets of the host; default 2, the usual "
                   "two-socket virtualization server",
        "cores_per_socket": "Physical cores per socket; default 16",
        "ghz": "Core clock [GHz]; default 2.6, a typical server part",
        "stack": "CPU cost per packet and byte (models.host.STACK_PRESETS); "
                 "none: the hypervisor's own",
    },
    OffloadSet: {
        "checksum": "The NIC computes TCP/UDP checksums",
        "tso": "TCP segmentation offload on send",
        "lro": "Large receive offload (LRO/GRO in hardware)",
        "tunnel": "The same offloads also for VXLAN/Geneve-encapsulated "
                  "traffic",
    },
    Offloads: {
        "ipv4": "Offloads for IPv4 traffic",
        "ipv6": "Offloads for IPv6 traffic (often fewer than for IPv4)",
    },
    Nic: {
        "id": "Name of the port (vmnic0, eth0, NIC1); teams and workloads "
              "refer to it",
        "speed_gbps": "Link speed [Gbit/s]",
        "rss_queues": "Receive-side scaling queues; default 8, the "
                      "common driver default",
        "rss_tuned": "RSS queues pinned to distinct physical cores of the "
                     "NIC's own NUMA node (off: the OS defaults)",
        "rdma": "RDMA the NIC offers (RoCE v2, iWARP), used by SMB Direct",
        "offloads": "Stateless offloads per IP version",
    },
    NiocClass: {
        "traffic_class": "Traffic type (vm, vmotion, nfs, iscsi, vsan...)",
        "shares": "NIOC shares of the class; default 50 (Normal)",
        "reservation_gbps": "Bandwidth reserved for the class on each "
                            "uplink [Gbit/s]",
        "limit_gbps": "Bandwidth cap of the class; none: no limit "
                      "[Gbit/s]",
    },
    Team: {
        "name": "Name of the team (vSwitch, bond, LBFO/SET team)",
        "members": "Active uplinks (NIC ids), comma-separated",
        "standby": "Standby uplinks that take over on a failure",
        "switch_mode": "How the physical switch sees the team; the policy "
                       "decides which modes work",
        "policy": "Load-balancing policy, in the vendor's words",
        "hash": "Hash inputs of a hash-based policy (Linux "
                "xmit_hash_policy, vDS LACP algorithm, LBFO address hash); "
                "none: the policy's default",
        "kernel_hash": "Linux kernel release range whose bonding hash is "
                       "modelled; default the current one",
        "ip_hash_variant": "vSphere IP hash: XOR of the last octets "
                           "(VMware KB) or of the whole addresses",
        "lbt_threshold_pct": "LBT moves ports off an uplink above this "
                             "load; default 75 % (VMware) [%]",
        "lbt_period_s": "LBT's wake-up period; default 30 s (VMware) [s]",
        "lbt_target_rule": "Which uplink LBT moves a port to",
        "lbt_max_moves_per_uplink": "Ports LBT moves off one uplink per "
                                    "period",
        "ovs_rebalance_interval_ms": "Open vSwitch bond rebalance "
                                     "interval; default 10 s (ovs-vswitchd)"
                                     " [ms]",
        "ovs_hash_basis": "Open vSwitch bond hash basis",
        "tlb_order": "Order in which balance-tlb assigns flows",
        "dynamic_epoch_s": "Rebalancing epoch of LBFO/SET Dynamic [s]",
        "compare": "Policies to compare this team against; none: every "
                   "policy the switch mode allows",
        "failures": "Uplinks failing at once in the N-k view; default 1",
        "nioc": "Network I/O Control classes of the team",
        "nioc_reservation": "Reservations as a floor within the shares "
                            "(vSphere) or on top of them",
    },
    Network: {
        "ip_version": "IP version of the analysed traffic",
        "mtu_min": "Smallest MTU the gear accepts; default 576 (RFC 791) "
                   "[B]",
        "mtu_max": "Largest MTU the gear accepts; default 9216, common "
                   "switch maximum [B]",
        "mtu": "IP MTU: the largest IP packet, header included; default "
               "1500 (Ethernet) [B]",
        "vlan_tags": "802.1Q tags per frame (2: QinQ)",
        "tcp_timestamps": "TCP timestamps option (12 B per segment); on by "
                          "default in Linux, ESXi and Windows",
        "encapsulation": "Overlay encapsulation of the traffic",
        "underlay_ip_version": "IP version of the overlay's underlay",
        "geneve_option_bytes": "Geneve option bytes per packet [B]",
        "packet_loss_pct": "Packet loss on the path (TCP throughput "
                           "falls with it, Mathis et al.) [%]",
    },
    TimeProfile: {
        "name": "Name flows refer to",
        "t_s": "Times of the points, increasing [s]",
        "scale": "Demand multiplier at each time (1: the flow's rate)",
    },
    Flow: {
        "id": "Name of the port or flow",
        "vm": "VM the port belongs to (flows of one VM may share its "
              "port and MAC)",
        "port_id": "Virtual switch port ID (hashed by 'originating port')",
        "mac": "Source MAC address (hashed by MAC-based policies)",
        "dst_mac": "Destination MAC address",
        "src_ip": "Source IP address (hashed by IP-based policies)",
        "dst_ip": "Destination IP address",
        "protocol": "Transport protocol of the flow",
        "src_port": "Source TCP/UDP port (hashed by layer 4 policies)",
        "dst_port": "Destination TCP/UDP port",
        "vlan": "VLAN ID of the flow",
        "vlan_pcp": "802.1p priority in the VLAN tag",
        "traffic_class": "NIOC traffic class of the flow",
        "tx_gbps": "Demand sent by the VM [Gbit/s]",
        "rx_gbps": "Demand received by the VM [Gbit/s]",
        "profile": "Load profile scaling the demand over time; none: "
                   "steady",
        "team": "Team carrying the flow; needed with several teams",
        "pin": "Uplinks the flow is pinned to (explicit failover order)",
        "anti_affinity": "Group whose flows should use different uplinks",
    },
    DirtyModel: {
        "kind": "How the guest dirties memory: uniformly, or a hot set "
                "plus a cold rate",
        "rate_mib_s": "Dirtying rate (hot set's initial rate for "
                      "hot_cold) [MiB/s]",
        "hot_set_gib": "Size of the hot working set [GiB]",
        "cold_rate_mib_s": "Dirtying rate outside the hot set [MiB/s]",
    },
    Migration: {
        "name": "Name of the migration or batch",
        "memory_gib": "Guest memory of each VM [GiB]",
        "count": "VMs migrated (identical)",
        "concurrency": "Migrations at once",
        "zero_page_pct": "Share of zero pages, sent as a header only [%]",
        "dirty": "How the guest dirties memory during pre-copy",
        "first_round_rate_cap_mib_s": "Ceiling of the first pass (e.g. "
                                      "destination page allocation); "
                                      "none: the path's rate [MiB/s]",
        "transfer": "The workloads.transfers entry that carries it; none: "
                    "one built from the fields below over all NICs",
        "transport": "Transport of the migration traffic",
        "streams": "Parallel streams (vMotion streams, multifd channels); "
                   "none: the platform's (1; multifd 2; SMB one per "
                   "Multichannel connection)",
        "compression_ratio": "Memory compression ratio (1: none)",
        "compressor_gbps": "Compression speed of one thread [Gbit/s]",
        "compression_threads": "Compression threads",
        "stop_rule": "When pre-copy stops and the VM switches over, as the "
                     "hypervisor decides it (models.migration.STOP_RULES)",
        "downtime_budget_ms": "Switchover budget; none: the stop rule's "
                              "(QEMU 300 ms, vMotion 500 ms goal) [ms]",
        "max_switchover_s": "Longest switchover before the migration "
                            "fails; none: the stop rule's [s]",
        "fraction_left_pct": "Stop when this share of memory is left "
                             "(stop rule fraction_left) [%]",
        "throttling": "Guest throttling to converge; none: the stop rule's "
                      "(SDPS for vMotion)",
        "time_budget_s": "Abort when pre-copy runs longer [s]",
        "qemu_version": "QEMU release (major.minor): sets the default "
                        "max-bandwidth and auto-converge timing",
        "management": "Who sets QEMU's max-bandwidth: QEMU's default, "
                      "libvirt (no cap) or unlimited",
        "max_bandwidth_mib_s": "Bandwidth cap of one migration (virsh "
                               "--bandwidth, Proxmox bwlimit) [MiB/s]",
    },
    Backend: {
        "iops_max": "IOPS the back end delivers at most [IO/s]",
        "mbps_max": "Throughput the back end delivers at most [MB/s]",
        "devices": "Disks behind the workload",
        "device_iops": "IOPS of one disk; default a 15K RPM spindle "
                       "[IO/s]",
        "device_mbps": "Throughput of one disk; default a 15K RPM spindle "
                       "[MB/s]",
        "raid": "RAID level (its write penalty applies)",
        "service_time_ms": "Unloaded latency of one IO at the back end "
                           "[ms]",
    },
    StorageWorkload: {
        "name": "Name of the workload",
        "protocol": "Storage protocol",
        "block_kib": "IO size [KiB]",
        "read_pct": "Share of reads [%]",
        "random_pct": "Share of random IO [%]",
        "vms": "Benchmark VMs (HCIBench VMs)",
        "disks_per_vm": "Data disks per VM",
        "threads_per_disk": "Outstanding IO per disk (HCIBench threads, "
                            "fio iodepth, diskspd -t x -o)",
        "working_set_pct": "Share of each disk the test touches [%]",
        "nics": "NICs carrying the IO; none: all",
        "smb_encryption": "SMB 3 encryption on",
        "backend": "The storage system's own limits",
    },
    Transfer: {
        "name": "Name of the transfer; migrations refer to it",
        "transport": "TCP, TCP with compression, SMB Multichannel or SMB "
                     "Direct (RDMA)",
        "purpose": "Bulk copy, or live-migration traffic (uses the "
                   "hypervisor's migration preset)",
        "via": "Team carrying it; none: the NICs listed below (all if "
               "empty)",
        "nics": "NICs carrying it without a team",
        "direction": "This host receives the data (the usual binding side)"
                     " or sends it",
        "multipath": "Without a team, spread sessions over all NICs "
                     "(multi-NIC vMotion, iSCSI port binding)",
        "sessions": "Independent senders at once (VMs migrating, netperf "
                    "pairs)",
        "streams": "Streams per session, each one TCP connection for TCP; "
                   "none: the platform's (1; SMB one per Multichannel "
                   "connection, 4 per RSS NIC: Microsoft)",
        "stream_cap_gbps": "Ceiling of one stream; none: the hypervisor's "
                           "live-migration preset, else none [Gbit/s]",
        "compression_ratio": "Compression ratio with transport "
                             "compression; default 2",
        "compressor_gbps": "Compression speed of one thread [Gbit/s]",
        "compression_threads": "Compression threads; default 4",
        "receive_queues": "How the receiver spreads connections over cores",
        "vm_vcpus": "Logical processors of each receiving VM (vRSS, VMMQ)",
        "vmmq_queue_pairs": "Hardware queue pairs per vNIC with VMMQ; "
                            "default 16 (Hyper-V)",
    },
    EvacuationVm: {"name": "Name of the VM"},
    Destination: {"name": "Name of the receiving host"},
    Evacuation: {"name": "Name of the evacuation"},
    Workloads: {
        "profiles": "Load profiles: demand over time",
        "time_step_s": "Time step of the teaming simulation [s]",
        "flows": "VM ports and flows on the teams",
        "transfers": "Bulk transfers (live-migration networks, copies)",
        "migrations": "Live migrations",
        "storage": "Storage IO workloads",
        "evacuations": "Host evacuations (maintenance mode)",
    },
    Variant: {
        "name": "Name of the variant (a column of the comparison)",
        "description": "What the variant changes and why",
        "set": "The parameters it changes: path = value",
    },
}


def _describe_fields():
    for model, texts in _DESCRIPTIONS.items():
        for name, text in texts.items():
            info = model.model_fields[name]
            if not info.description:
                info.description = text


_describe_fields()


@functools.cache
def _rebuild_with_descriptions():
    """The JSON Schema carries the descriptions only once the models are
    rebuilt; done when the schema is first asked for, not at import
    (rebuilding every model takes ~50 ms of CPU, a tenth of this
    module's import)."""
    # contained models before their containers: each schema embeds the
    # rebuilt ones (the table lists them in that order)
    for model in (*_DESCRIPTIONS, Scenario):
        model.model_rebuild(force=True)
