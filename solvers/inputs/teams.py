"""Team inputs: the flows riding each team as hash-input and rate columns
over the simulated time axis (:class:`FlowColumns`).
"""

import functools
import ipaddress

import numpy as np

from models import teaming


def _mac(text):
    return int(text.replace("-", ":").replace(":", ""), 16) if text else 0


def _ip(text):
    if not text:
        return 0
    value = int(ipaddress.ip_address(text))
    if value >= 1 << 32:     # IPv6: XOR of the four words (ipv6_addr_hash)
        value = (value ^ (value >> 32) ^ (value >> 64) ^ (value >> 96)) \
            & 0xFFFFFFFF
    return value


def _words(text):
    value = int(ipaddress.ip_address(text)) if text else 0
    return [(value >> shift) & 0xFFFFFFFF for shift in (96, 64, 32, 0)]


def team_flows(doc):
    """Each team with the flows that ride it, in team order; teams
    without flows are left out."""
    first = doc.teams[0].name if doc.teams else None
    return [(team, mine) for team in doc.teams
            if (mine := [f for f in doc.workloads.flows
                         if (f.team or first) == team.name])]


class FlowColumns:
    """Column view of a team's flows over the simulated time axis.

    Parameters
    ----------
    doc : Scenario
    team : Team
    flows : list of Flow
    uplinks : list of str
        The team's uplinks, active members first.
    steady_s : float
        Horizon of constant demand (flows without time profiles) [s].
    """

    def __init__(self, doc, team, flows, uplinks, steady_s):
        self.count = len(flows)
        step = doc.workloads.time_step_s
        profiles = {p.name: p for p in doc.workloads.profiles}
        horizon = max((profiles[f.profile].t_s[-1] for f in flows
                       if f.profile), default=0.0)
        if horizon > 0:
            self.t = np.arange(0.0, horizon + step / 2, step)
        else:
            self.t = np.arange(0.0, steady_s, step)
        self.step = step
        scale = np.ones((self.t.size, self.count))
        for i, flow in enumerate(flows):
            if flow.profile:
                p = profiles[flow.profile]
                scale[:, i] = np.interp(self.t, p.t_s, p.scale)
        self.tx = scale * np.array([f.tx_gbps for f in flows])
        self.rx = scale * np.array([f.rx_gbps for f in flows])
        self.smac = np.array([_mac(f.mac) for f in flows], dtype=np.uint64)
        self.dmac = np.array([_mac(f.dst_mac) for f in flows],
                             dtype=np.uint64)
        self.sip = np.array([_ip(f.src_ip) for f in flows], dtype=np.uint32)
        self.dip = np.array([_ip(f.dst_ip) for f in flows], dtype=np.uint32)
        # the four 32-bit words of each address: OVS hashes IPv6 whole,
        # vSphere IP hash reads the last word (its low byte: the last octet)
        self.sip_words = np.array([_words(f.src_ip) for f in flows],
                                  dtype=np.uint32).reshape(-1, 4)
        self.dip_words = np.array([_words(f.dst_ip) for f in flows],
                                  dtype=np.uint32).reshape(-1, 4)
        self.sport = np.array([f.src_port or 0 for f in flows])
        self.dport = np.array([f.dst_port or 0 for f in flows])
        self.has_ports = np.array([f.src_port is not None
                                   and f.dst_port is not None
                                   for f in flows])
        self.vlan = np.array([f.vlan or 0 for f in flows])
        # the whole tag control field of tagged frames (PCP << 13 | VID)
        self.vlan_tci = np.array([0 if f.vlan is None
                                  else f.vlan_pcp << 13 | f.vlan
                                  for f in flows])
        self.proto = np.array([6 if f.protocol == "tcp" else 17
                               for f in flows])
        self.ethertype = np.array(
            [teaming.ETHERTYPE_IPV6 if f.src_ip and ":" in f.src_ip
             else teaming.ETHERTYPE_IPV4 for f in flows])
        self.traffic_class = [f.traffic_class for f in flows]
        self.ids = [f.id for f in flows]
        # vNIC ports: the flows of one VM share one port
        # (a position per name, not list.index per flow: linear in flows)
        position = {}
        for f in flows:
            position.setdefault(f.vm or f.id, len(position))
        owners = list(position)
        self.owners = owners
        self.unit = np.array([position[f.vm or f.id] for f in flows])
        self.units = len(owners)
        port_ids = {}
        for f in flows:
            if f.port_id is not None:
                port_ids.setdefault(f.vm or f.id, f.port_id)
        self.connect_order = len(port_ids) < len(owners)
        self.port_id = np.arange(len(owners)) if self.connect_order \
            else np.array([port_ids[o] for o in owners])
        self.allowed = np.ones((self.count, len(uplinks)), dtype=bool)
        for i, f in enumerate(flows):
            if f.pin:
                self.allowed[i] = [u in f.pin for u in uplinks]
        groups = {}
        for f in flows:
            if f.anti_affinity:
                groups.setdefault(f.anti_affinity, len(groups))
        self.group = np.array([groups[f.anti_affinity]
                               if f.anti_affinity else -1 for f in flows])
        self.constrained = bool(groups) or not self.allowed.all()

    @functools.cached_property
    def unit_rates(self):
        """(T, units) transmit and receive rate of each vNIC port, summed
        once: LBT (per failure set) and the port optimum both use it."""
        return (teaming.member_loads(self.unit, self.tx, self.units),
                teaming.member_loads(self.unit, self.rx, self.units))
