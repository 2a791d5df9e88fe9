"""NIC teams of the scenario document: the load-balancing policies with
the switch modes each allows, the hash inputs, and Network I/O Control."""

from typing import Literal

from pydantic import Field, model_validator

from models.scenario.base import StrictModel, check_unique, identifier
from models.teaming import (IP_HASH_VARIANTS, KERNEL_HASH_VARIANTS,
                            LBT_TARGET_RULES, LINUX_HASHES,
                            SWITCH_HASH_FIELDS, UNIFORM_HASH_FIELDS)


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


class NiocClass(StrictModel):
    """Network I/O Control allocation of one traffic class on every
    adapter of a team (shares, reservation, limit)."""

    traffic_class: str = identifier(
        description="Traffic type (vm, vmotion, nfs, iscsi, vsan...)")
    shares: float = Field(
        default=50.0, gt=0, le=100,
        description="NIOC shares of the class; default 50 (Normal)")
    reservation_gbps: float = Field(
        default=0.0, ge=0,
        description="Bandwidth reserved for the class on each uplink "
                    "[Gbit/s]")
    limit_gbps: float | None = Field(
        default=None, gt=0,
        description="Bandwidth cap of the class; none: no limit [Gbit/s]")


class Team(StrictModel):
    """A NIC team (bond, LAG) and its load-balancing policy."""

    name: str = identifier("Name of the team (vSwitch, bond, LBFO/SET team)")
    members: list[str] = Field(
        min_length=1,
        description="Active uplinks (NIC ids), comma-separated")
    standby: list[str] = Field(
        default=[],
        description="Standby uplinks that take over on a failure")
    switch_mode: Literal["independent", "static", "lacp"] = Field(
        default="independent",
        description="How the physical switch sees the team; the policy "
                    "decides which modes work")
    policy: Literal[tuple(TEAMING_POLICIES)] = Field(
        default="port_id",
        description="Load-balancing policy, in the vendor's words")
    hash: Literal[HASH_POLICIES] | None = Field(
        default=None,
        description="Hash inputs of a hash-based policy (Linux "
                    "xmit_hash_policy, vDS LACP algorithm, LBFO address "
                    "hash); none: the policy's default")
    switch_hash: Literal[tuple(SWITCH_HASH_FIELDS)] | None = Field(
        default=None, description="The peer switch's port-channel hash "
        "for traffic it sends to this host (Cisco/Arista 'port-channel "
        "load-balance', Juniper 'hash-key'): it, not the host's policy, "
        "decides the receive member of a static or LACP team. None: the "
        "switch assumed to hash like the host")
    kernel_hash: Literal[tuple(KERNEL_HASH_VARIANTS)] = Field(
        default="current",
        description="Linux kernel release range whose bonding hash is "
                    "modelled; default the current one")
    #: vSphere IP hash: XOR of the last octets (VMware's KB wording) or of
    #: the whole 32-bit addresses; they differ only for 3, 5, 6, 7 uplinks
    ip_hash_variant: Literal[IP_HASH_VARIANTS] = Field(
        default="last_octet",
        description="vSphere IP hash: XOR of the last octets (VMware KB) or "
                    "of the whole addresses")
    lbt_threshold_pct: float = Field(
        default=75.0, gt=0, le=100,
        description="LBT moves ports off an uplink above this load; default "
                    "75 % (VMware) [%]")
    lbt_period_s: float = Field(
        default=30.0, gt=0, le=3600,
        description="LBT's wake-up period; default 30 s (VMware) [s]")
    lbt_target_rule: Literal[LBT_TARGET_RULES] = Field(
        default="stay_below",
        description="Which uplink LBT moves a port to")
    lbt_max_moves_per_uplink: int = Field(
        default=1, ge=1, le=64,
        description="Ports LBT moves off one uplink per period")
    ovs_rebalance_interval_ms: int = Field(
        default=10_000, ge=0, le=86_400_000,
        description="Open vSwitch bond rebalance interval; default 10 s "
                    "(ovs-vswitchd) [ms]")
    ovs_hash_basis: int = Field(
        default=0, ge=0, le=2**32 - 1,
        description="Open vSwitch bond hash basis")
    tlb_order: Literal["descending", "random"] = Field(
        default="descending",
        description="Order in which balance-tlb assigns flows")
    dynamic_epoch_s: float = Field(
        default=10.0, gt=0, le=3600,
        description="Rebalancing epoch of LBFO/SET Dynamic [s]")
    compare: list[Literal[tuple(TEAMING_POLICIES)]] | None = Field(
        default=None,
        description="Policies to compare this team against; none: every "
                    "policy the switch mode allows")
    failures: int = Field(
        default=1, ge=1, le=7,
        description="Uplinks failing at once in the N-k view; default 1")
    nioc: list[NiocClass] = Field(
        default=[],
        description="Network I/O Control classes of the team")
    nioc_reservation: Literal["floor", "additive"] = Field(
        default="floor",
        description="Reservations as a floor within the shares (vSphere) or "
                    "on top of them")

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
        check_unique("nioc", [c.traffic_class for c in self.nioc],
                     "traffic_class")
        return self
