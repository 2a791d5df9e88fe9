"""PCIe slot analysis: the bandwidth each NIC's slot moves per direction
against the line rate of the ports it carries (a dual-port 100 GbE
adapter in a Gen3 x16 slot cannot run both ports at line rate)."""

import numpy as np

from models import pcie
from solvers import metric_grammar as metric_ids
from solvers.analysis import (EMPTY, HIGHER, VERDICT, Analysis, ColumnResult,
                              Items, Metric, ResultBuilder)
from solvers.results import Bottleneck, Finding

ANALYSIS = Analysis(
    name="pcie", order=5, bottleneck_priority=8, module=__name__,
    reads=("nics",),
    metrics=(
        Metric("slot_gbps", "Gbit/s", "PCIe slot bandwidth per direction"),
        Metric("ports_gbps", "Gbit/s", "line rate of the ports in the "
               "slot"),
        Metric("slot_headroom_pct", "%", "PCIe slot bandwidth above the "
               "ports'", kind=VERDICT, better=HIGHER),
    ),
    headline="slot_headroom_pct",
    items=(Items("pcie"),),
    models=("models.pcie",), areas=("host_cpu",))


def _slots(doc):
    """Modelled slots of a document: name -> the NICs in it."""
    slots = {}
    for nic in doc.nics:
        if nic.pcie_gen is not None:
            slots.setdefault(nic.pcie_slot or nic.id, []).append(nic)
    return slots


def analyse_columns(inputs, upstream):
    """Slot metrics of the points of a :class:`solvers.columns.
    TiledInputs`, as columns (see :mod:`solvers.analysis`): the slots
    are the template's, the ports' speeds each point's."""
    slots = _slots(inputs.template.documents[0])
    if not slots:
        return ColumnResult()
    first = [nics[0] for nics in slots.values()]
    slot = _slot_bandwidth(first)
    metrics = {}
    for r, (name, nics) in enumerate(slots.items()):
        # summed in NIC order, as analyse does
        ports = sum(inputs.nic_speed(n) for n in nics)
        values = {"slot_gbps": slot[r], "ports_gbps": ports,
                  "slot_headroom_pct": 100 * (slot[r] / ports - 1)}
        metrics.update({metric_ids.pcie(name, k): np.broadcast_to(
            v, (inputs.count,)) for k, v in values.items()})
    return ColumnResult(metrics)


def _slot_bandwidth(first):
    """Bandwidth per direction of the slots whose first NICs are
    ``first`` [Gbit/s]."""
    return pcie.slot_bandwidth(
        np.array([n.pcie_gen for n in first]),
        np.array([n.pcie_lanes for n in first]),
        max_payload_bytes=np.array([n.pcie_max_payload_bytes
                                    for n in first]))


def analyse(inputs, upstream, *, details=True):
    """Slot metrics of every document (see :mod:`solvers.analysis`)."""
    owners = [(d, name, nics) for d, doc in enumerate(inputs.documents)
              for name, nics in _slots(doc).items()]
    if not owners:
        return [EMPTY] * len(inputs.documents)
    out = ResultBuilder.each(inputs.documents)
    tightest = [1.0] * len(inputs.documents)   # slot / ports
    slot = _slot_bandwidth([nics[0] for *_, nics in owners])
    ports = np.array([sum(n.speed_gbps for n in nics)
                      for *_, nics in owners])
    for r, (d, name, nics) in enumerate(owners):
        values = {"slot_gbps": slot[r], "ports_gbps": ports[r],
                  "slot_headroom_pct": 100 * (slot[r] / ports[r] - 1)}
        out[d].metrics.update({metric_ids.pcie(name, k): v
                               for k, v in values.items()})
        if details and slot[r] < ports[r]:
            out[d].findings.append(_too_slow(name, nics, slot[r], ports[r]))
            if slot[r] / ports[r] < tightest[d]:
                tightest[d] = slot[r] / ports[r]
                out[d].bottleneck = Bottleneck(
                    "pcie.slot",
                    f"PCIe slot {name!r}: {slot[r]:.1f} Gbit/s per "
                    f"direction for {ports[r]:g} Gbit/s of ports")
    if details:
        for d in {d for d, *_ in owners}:
            out[d].assumptions.append(
                "PCIe slots: payload bandwidth per direction after "
                f"line encoding and {pcie.TLP_OVERHEAD_BYTES} B of TLP "
                "overhead per maximum payload (Intel AN 456); DLLP and "
                "SKP traffic not counted, so an upper bound")
    return [o.result() for o in out]


def _too_slow(name, nics, slot, ports):
    nic = nics[0]
    return Finding(
        id="pcie.slot_too_slow", severity="warning",
        message=(f"PCIe slot {name!r} (Gen{nic.pcie_gen} x{nic.pcie_lanes}, "
                 f"MPS {nic.pcie_max_payload_bytes} B) moves "
                 f"{slot:.1f} Gbit/s per direction, below the "
                 f"{ports:g} Gbit/s of its port(s) "
                 f"{', '.join(n.id for n in nics)}: together they reach "
                 f"at most {100 * slot / ports:.0f} % of line rate. Use a "
                 "slot with more lanes or a newer generation."),
        evidence={"metric": metric_ids.pcie(name, "slot_gbps"),
                  "value": float(slot), "threshold": float(ports)})
