"""What every family of inputs shares: the host's CPU cost preset and
clock, its cores, the network section's framing fields and the NICs'
speeds, each derived here once.
"""

import functools
from dataclasses import replace

import numpy as np

from models import cpu, host, wire


def stack_preset(doc):
    """Name of the CPU cost preset a document's host uses."""
    return doc.host.stack or host.DEFAULT_STACK[doc.host.hypervisor]


def stack_costs(doc):
    """The :class:`models.host.StackCosts` of a document's host: its preset,
    with the coefficients a calibration fitted (``doc.calibration.stack``)
    in place of the preset's."""
    preset = host.STACK_PRESETS[stack_preset(doc)]
    fitted = doc.calibration.stack if doc.calibration else None
    if fitted is None:
        return preset
    return replace(preset, **{
        name: value for name, value in fitted.model_dump().items()
        if name != "base" and value is not None})


def stack_ghz(doc):
    """Clock at which the stack presets' cycle counts run on a document's
    host: its clock times its CPU generation's per-clock speed
    (:func:`models.cpu.stack_ghz`) [GHz]."""
    return _generation_clock(doc.host.ghz, doc.host.cpu)


@functools.lru_cache(maxsize=1024)
def _generation_clock(ghz, generation):
    """:func:`models.cpu.stack_ghz` of one clock and generation, kept: a
    sweep asks for the same few pairs for every row."""
    return float(cpu.stack_ghz(ghz, cpu.stack_speed(generation)))


def given(value, default):
    """``value``, or ``default`` where the field is not set (None): not
    ``value or default``, so that a column sweep's array of values
    (:mod:`solvers.columns`) passes through the builders."""
    return default if value is None else value


def total_cores(doc):
    """Physical cores of a document's host."""
    return doc.host.sockets * doc.host.cores_per_socket


def encapsulation_bytes(network):
    """Overlay bytes per packet of one network section [B] (as the
    columns' ``encap``, :func:`_encapsulation_column`)."""
    row = network_row(network)
    _encapsulation_column(row)
    return int(row["encap"])


def network_row(network):
    """The framing fields of one network section, by the column names the
    wire, transfer and storage inputs share: IP MTU and the accepted range
    [B], IP version, TCP timestamps, VLAN tags and the overlay fields
    (turned into bytes by :func:`_encapsulation_column`)."""
    return {"mtu": network.mtu, "mtu_min": network.mtu_min,
            "mtu_max": network.mtu_max, "ip_version": network.ip_version,
            "timestamps": network.tcp_timestamps,
            "vlan_tags": network.vlan_tags,
            "encapsulation": network.encapsulation,
            "underlay_ip_version": network.underlay_ip_version,
            "geneve_option_bytes": network.geneve_option_bytes}


def mtu_limits(columns):
    """The MTU range covering every row's accepted range (and jumbo
    frames), from the ``mtu_min`` and ``mtu_max`` columns
    (:func:`models.wire.limits_covering`) [B]."""
    return wire.limits_covering(columns["mtu_min"], columns["mtu_max"])


def total_speed(nics):
    """Sum of the NICs' nominal rates [Gbit/s]."""
    return sum(n.speed_gbps for n in nics)


def slowest_speed(nics):
    """Nominal rate of the slowest NIC [Gbit/s] (``np.minimum``: a column
    sweep passes speeds as arrays)."""
    return functools.reduce(np.minimum, (n.speed_gbps for n in nics))


def fastest_speed(nics):
    """Nominal rate of the fastest NIC [Gbit/s]."""
    return functools.reduce(np.maximum, (n.speed_gbps for n in nics))


def _encapsulation_column(columns):
    """Replace the overlay fields of ``columns`` by ``encap``, the overlay
    bytes per packet [B], in one vectorised call for all rows."""
    columns["encap"] = wire.encapsulation_bytes(
        columns.pop("encapsulation"), columns.pop("underlay_ip_version"),
        geneve_option_bytes=columns.pop("geneve_option_bytes"))
