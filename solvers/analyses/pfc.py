"""PFC headroom analysis: the buffer each lossless class (IEEE 802.1Qbb:
RoCE v2, FCoE) needs per switch port so that nothing is dropped after a
pause, against what the switch reserves (a class short of headroom drops
frames that RDMA assumes are never lost)."""

import numpy as np

from models import pfc
from models.wire import L2_OVERHEAD_BYTES, VLAN_TAG_BYTES
from solvers import metric_grammar as metric_ids
from solvers.analysis import (EMPTY, HIGHER, LOWER, SUMMED, VERDICT, Analysis,
                              Items, Metric, ResultBuilder)
from solvers.results import Bottleneck, Finding

ANALYSIS = Analysis(
    name="pfc", order=8,
    # a lossless class that drops frames breaks RDMA before any rate limit
    # matters
    bottleneck_priority=-2, module=__name__,
    reads=("lossless", "network", "nics"),
    metrics=(
        Metric("needed_bytes", "B", "PFC headroom needed per port",
               "PFC: headroom needed per port, all lossless classes",
               better=LOWER),
        Metric("headroom_margin_pct", "%", "reserved headroom above the "
               "need", "PFC: smallest reserved headroom above the need",
               kind=VERDICT, better=HIGHER),
        Metric("stop_s", "s", "time from pause to the last frame in",
               better=LOWER),
    ),
    headline="needed_bytes",
    # one class per port buffer: the headline sums them, the margin is the
    # smallest
    items=(Items("pfc", SUMMED),),
    models=("models.pfc",))


def analyse(inputs, upstream, *, details=True):
    """PFC headroom of every document's lossless classes (see
    :mod:`solvers.analysis`), all computed at once."""
    documents = inputs.documents
    if all(doc.lossless is None for doc in documents):
        return [EMPTY] * len(documents)
    rows = [(d, doc, c) for d, doc in enumerate(documents)
            if doc.lossless is not None and _speed(doc) in pfc.SPEEDS
            for c in doc.lossless.classes]
    out = ResultBuilder.each(documents)
    if rows:
        speed = np.array([_speed(doc) for _, doc, *_ in rows])
        port = np.array([_port_frame(doc) for _, doc, *_ in rows])
        own = np.array([c.frame_bytes or _port_frame(doc)
                        for _, doc, c in rows])
        needed = pfc.headroom_bytes(
            speed, [doc.lossless.cable_m for _, doc, *_ in rows], port, own)
        stop = pfc.stop_time_s(needed, speed)
        for r, (d, doc, c) in enumerate(rows):
            _collect(out[d], doc, c, needed[r], stop[r], speed[r], details)
    for d, doc in enumerate(documents):
        if doc.lossless is None or not details:
            continue
        if _speed(doc) not in pfc.SPEEDS:
            out[d].findings.append(_speed_not_modelled(doc))
        else:
            out[d].assumptions.append(_assumption(doc))
    return [o.result() for o in out]


def _speed(doc):
    """The fastest NIC's line rate: its switch port needs the most
    headroom [Gbit/s]."""
    return max(nic.speed_gbps for nic in doc.nics)


def _port_frame(doc):
    """Largest frame at the document's MTU with its 802.1Q tag(s): PFC
    reads the priority from a tag, so there is at least one [B]."""
    return doc.network.mtu + L2_OVERHEAD_BYTES + VLAN_TAG_BYTES * max(
        1, doc.network.vlan_tags)


def _collect(out, doc, lossless_class, needed, stop, speed, details):
    """One class's metrics, and its finding when the switch reserves
    too little."""
    name = lossless_class.name
    values = {"needed_bytes": needed, "stop_s": stop}
    reserved = lossless_class.headroom_bytes
    if reserved is not None:
        values["headroom_margin_pct"] = 100 * (reserved / needed - 1)
    headline = {metric_ids.headline(ANALYSIS.name, "needed_bytes"): needed
                + out.metrics.get(metric_ids.headline(
                    ANALYSIS.name, "needed_bytes"), 0.0)}
    margin = metric_ids.headline(ANALYSIS.name, "headroom_margin_pct")
    if reserved is not None:
        headline[margin] = min(values["headroom_margin_pct"],
                               out.metrics.get(margin, np.inf))
    out.metrics.update(headline)
    out.metrics.update({metric_ids.item(ANALYSIS.name, name, k): v
                        for k, v in values.items()})
    if not details or reserved is None or reserved >= needed:
        return
    out.findings.append(Finding(
        id="pfc.headroom_short", severity="warning",
        message=(f"Lossless class {name!r} (priority "
                 f"{lossless_class.priority}) needs {needed:,.0f} B of "
                 f"headroom per switch port at {speed:g} Gbit/s over "
                 f"{doc.lossless.cable_m:g} m; the switch reserves "
                 f"{reserved:,} B, so up to {needed - reserved:,.0f} B that "
                 "arrive after a pause find no room and are dropped in a "
                 "class RDMA expects to lose nothing. Reserve at least "
                 f"{np.ceil(needed / 1024):.0f} KiB per port for it, or "
                 "shorten the cable or the frames."),
        evidence={"metric": metric_ids.item(ANALYSIS.name, name,
                                            "headroom_margin_pct"),
                  "value": float(values["headroom_margin_pct"]),
                  "threshold": 0.0}))
    if out.bottleneck is None:   # the first class short of headroom
        out.bottleneck = Bottleneck(
            "pfc.headroom",
            f"PFC headroom of class {name!r}: {reserved:,} B reserved for "
            f"{needed:,.0f} B needed")


def _assumption(doc):
    return (f"PFC headroom (IEEE 802.1Qbb Annex N): the worst case at the "
            f"fastest NIC's {_speed(doc):g} Gbit/s over "
            f"{doc.lossless.cable_m:g} m of cable "
            f"({pfc.PROPAGATION_NS_PER_M:g} ns/m), IEEE 802.3's upper "
            "bounds for interface delay and "
            "pause response, the port's largest frame ahead of the pause "
            "and the class's largest frame behind it; a cell-based switch "
            "buffer stores small frames in whole cells and needs more")


def _speed_not_modelled(doc):
    speed = _speed(doc)
    return Finding(
        id="pfc.speed_not_modelled", severity="info",
        message=(f"PFC headroom is not computed at {speed:g} Gbit/s: the "
                 "interface and response delay bounds are known for "
                 f"{', '.join(f'{s:g}' for s in pfc.SPEEDS)} Gbit/s "
                 "(models.pfc)."),
        evidence={"metric": metric_ids.headline(ANALYSIS.name,
                                                "needed_bytes"),
                  "value": float(speed), "threshold": 0.0})
