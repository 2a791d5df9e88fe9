"""Wire inputs: the network section and link rate of every document, as
columns (:class:`WireColumns`).
"""

from dataclasses import dataclass

import numpy as np

from solvers.inputs.common import (_encapsulation_column, mtu_limits,
                                   network_row, stack_costs, stack_ghz,
                                   total_speed)


@dataclass(frozen=True)
class WireColumns:
    """The network section and link rate of every document, as columns.

    Attributes
    ----------
    mtu, ip_version, vlan_tags, timestamps, encap : numpy.ndarray
        IP MTU [B], 4 or 6, tags per frame, TCP timestamps on, overlay
        bytes per packet [B].
    link_gbps : numpy.ndarray
        Sum of the NICs' nominal rates [Gbit/s].
    frame_size : numpy.ndarray
        Frame size of the packet-rate question [B]; NaN where not asked.
    limits : tuple of int
        MTU range covering every document's accepted range [B].
    ghz, c_wire, c_byte_rx : numpy.ndarray
        Core clock [GHz] and the host preset's per-frame [cycles] and
        per-byte receive [1/B] costs, for the per-packet cost of frames
        of ``frame_size``.
    """

    mtu: np.ndarray
    ip_version: np.ndarray
    vlan_tags: np.ndarray
    timestamps: np.ndarray
    encap: np.ndarray
    link_gbps: np.ndarray
    frame_size: np.ndarray
    limits: tuple
    ghz: np.ndarray
    c_wire: np.ndarray
    c_byte_rx: np.ndarray


def wire_columns(documents):
    networks = [doc.network for doc in documents]
    costs = [stack_costs(doc) for doc in documents]
    rows = [network_row(n) for n in networks]
    net = {key: np.array([r[key] for r in rows]) for key in rows[0]}
    _encapsulation_column(net)
    return WireColumns(
        ghz=np.array([stack_ghz(doc) for doc in documents]),
        c_wire=np.array([c.c_wire for c in costs]),
        c_byte_rx=np.array([c.c_byte_rx for c in costs]),
        mtu=net["mtu"], ip_version=net["ip_version"],
        vlan_tags=net["vlan_tags"], timestamps=net["timestamps"],
        encap=net["encap"],
        link_gbps=np.array([total_speed(doc.nics) for doc in documents]),
        frame_size=np.array([np.nan if n.frame_size_bytes is None
                             else n.frame_size_bytes for n in networks]),
        limits=mtu_limits(net))
