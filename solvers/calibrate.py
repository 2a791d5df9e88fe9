"""Calibration: the host's stack costs and a storage back end fitted to the
user's own benchmark runs, and each run predicted from the others.

Host costs (iperf3): the CPU a run measures at an end is the cycles the
end spends per second, ``cores x f``; models.host.cycles_per_byte says

.. math::

    y = T_{tx} (c_{tx} + c_{pkt}/S + c_{wire}/p)
      + T_{rx} (c_{rx} + c_{pkt}/S + c_{wire}/p)

with :math:`T` the payload rates sent and received [B/s], :math:`S` the
bytes per stack traversal (one per send or receive call of the tool's
message, at most a 64 KiB aggregate) and :math:`p` the payload per frame
(the MSS). It is linear in the coefficients: a non-negative least squares
on relative residuals fits those the runs determine. A coefficient is
determined only when its term varies apart from the others: the
per-traversal cost needs two message sizes below 64 KiB, the per-frame
cost two MSS (on loopback it is TCP's per-segment and ACK work, with no
NIC driver), separate send and receive costs the two ends of a run
between two hosts (on loopback one host does both). An undetermined
coefficient keeps the preset's proportion to the per-byte cost and is
listed with the reason: the split is the preset's, never a new guess.

Storage (fio, DiskSpd, HCIBench): a queue-depth series of one block size
and mix fits the back end's service time, parallelism (channels) and,
with four or more depths, its ceiling, through the very storage chain the
solver evaluates (solvers.analyses.storage.evaluate_rows).

Every fit is checked leave-one-out: fitted on the other runs (the other
settings' for iperf3, whose repeated runs of one setting are averaged),
each run is predicted and the error reported (:class:`Check`).
"""

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import least_squares, nnls

from models.host import AGGREGATE_BYTES

#: The host cost coefficients a calibration may fit (models.host.StackCosts).
STACK_COEFFICIENTS = ("c_byte_tx", "c_byte_rx", "c_pkt", "c_wire")

#: Units of each coefficient, for the report.
STACK_UNITS = {"c_byte_tx": "cycles/B", "c_byte_rx": "cycles/B",
               "c_pkt": "cycles", "c_wire": "cycles"}


@dataclass(frozen=True)
class StackRun:
    """One TCP run's CPU at one end (both ends of a loopback run).

    Attributes
    ----------
    label : str
        File and setting, e.g. ``p4.json (-P 4, MSS 1448)``.
    source : str
        The file.
    loopback : bool
        Both ends on one host (127.0.0.1): their CPU is summed.
    message_bytes : float
        Bytes per send/receive call (iperf3 ``blksize``). [B]
    mss_bytes : float
        TCP payload per segment. [B]
    tx_bytes_s, rx_bytes_s : float
        Payload this end sent and received per second. [B/s]
    cores_busy : float
        Measured CPU of this end in cores (1.0: one core all the time).
    setting : str
        What repeated runs of one setting share (the label without the
        file); empty: the label.
    """

    label: str
    source: str
    loopback: bool
    message_bytes: float
    mss_bytes: float
    tx_bytes_s: float
    rx_bytes_s: float
    cores_busy: float
    setting: str = ""

    @property
    def bytes_s(self):
        """Payload rate the cycles are counted against: what the end sent
        or received, the larger (both at once on loopback). [B/s]"""
        return max(self.tx_bytes_s, self.rx_bytes_s)


@dataclass(frozen=True)
class StorageRun:
    """One storage benchmark run (a job at one queue depth).

    Attributes
    ----------
    label, source, tool : str
    block_bytes : float
        [B]
    read_fraction, random_fraction : float
        Shares of reads and of random IO, 0-1.
    vms, disks_per_vm, threads_per_disk : int
        Outstanding IO = their product (fio: 1, numjobs, iodepth).
    iops : float
        Measured IOs per second. [1/s]
    latency_s : float
        Measured mean latency. [s]
    """

    label: str
    source: str
    tool: str
    block_bytes: float
    read_fraction: float
    random_fraction: float
    vms: int
    disks_per_vm: int
    threads_per_disk: int
    iops: float
    latency_s: float

    @property
    def oio(self):
        return self.vms * self.disks_per_vm * self.threads_per_disk

    @property
    def series(self):
        """What a queue-depth series shares: tool, block size and mix."""
        return (self.tool, self.block_bytes, round(self.read_fraction, 3),
                round(self.random_fraction, 3))


@dataclass(frozen=True)
class Check:
    """A measured run next to its prediction."""

    run: str
    quantity: str
    measured: float
    predicted: float
    role: str          # "fitted" or "held_out"

    @property
    def error_pct(self):
        return 100.0 * (self.predicted - self.measured) / self.measured


# ---------------------------------------------------------------------------
# Host stack costs
# ---------------------------------------------------------------------------

def traversal_bytes(message_bytes):
    """Bytes per stack traversal of a tool writing ``message_bytes`` per
    call: one traversal per call, at most one 64 KiB aggregate. [B]"""
    return np.minimum(np.asarray(message_bytes, dtype=float),
                      AGGREGATE_BYTES)


def _stack_design(runs):
    """The terms of each coefficient per run, in STACK_COEFFICIENTS order
    [B/s, B/s, traversals/s, frames/s]."""
    tx = np.array([r.tx_bytes_s for r in runs])
    rx = np.array([r.rx_bytes_s for r in runs])
    size = traversal_bytes([r.message_bytes for r in runs])
    frames = np.array([1.0 / r.mss_bytes for r in runs])
    return np.column_stack([tx, rx, (tx + rx) / size, (tx + rx) * frames])


def predict_cores(runs, costs, ghz):
    """CPU of each run's end(s) with the given coefficients [cores].

    Parameters
    ----------
    runs : sequence of StackRun
    costs : mapping
        Values of :data:`STACK_COEFFICIENTS`.
    ghz : float
        Core clock. [GHz]
    """
    coefficients = np.array([costs[name] for name in STACK_COEFFICIENTS])
    return _stack_design(runs) @ coefficients / (ghz * 1e9)


@dataclass
class StackFit:
    """Fitted host costs.

    ``costs`` holds all four coefficients, ``fitted`` the names the runs
    determine, ``scaled`` those that keep the preset's proportion to the
    per-byte cost, ``undetermined`` one reason per coefficient the runs
    cannot determine, ``notes`` what a fitted value covers."""

    costs: dict
    fitted: tuple
    undetermined: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    scaled: tuple = ()


def _distinct(values, tolerance=0.01):
    values = np.sort(np.asarray(values, dtype=float))
    if values.size == 0:
        return 0
    return 1 + int(np.sum(np.diff(values) > tolerance * values[1:]))


def fit_stack(runs, preset, ghz):
    """Fit the host cost coefficients the runs determine.

    Parameters
    ----------
    runs : sequence of StackRun
    preset : models.host.StackCosts
        Whose proportions an undetermined coefficient keeps.
    ghz : float
        Core clock of the measured host. [GHz]

    Returns
    -------
    StackFit

    Notes
    -----
    A coefficient the runs do not determine (one message size: the
    per-traversal cost; one MSS: the per-frame cost) keeps the preset's
    proportion to the per-byte cost, :math:`c_q = c_{byte} p_q / p_{byte}`,
    and so scales with it to the measured total: the runs are met and the
    split is the preset's, said so, not a new guess. (Keeping the preset's
    value itself could exceed what a fast host spends in all.)
    """
    design = _stack_design(runs)
    observed = np.array([r.cores_busy for r in runs]) * ghz * 1e9
    sizes = traversal_bytes([r.message_bytes for r in runs])
    wired = [r for r in runs if not r.loopback]
    free, tied, why, notes = [], [], [], []
    split = any(r.tx_bytes_s > 0 and r.rx_bytes_s == 0 for r in wired) \
        and any(r.rx_bytes_s > 0 and r.tx_bytes_s == 0 for r in wired)
    if not split:
        why.append("c_byte_tx vs c_byte_rx: no run measures a sending end "
                   "apart from a receiving one (loopback runs put both on "
                   "one host), so one per-byte cost is fitted for both")
    byte = (preset.c_byte_tx + preset.c_byte_rx) / 2
    if _distinct(sizes) >= 2:
        free.append("c_pkt")
    else:
        tied.append("c_pkt")
        shown = ", ".join(f"{s:.0f} B" for s in sorted(set(sizes)))
        why.append(f"c_pkt (per stack traversal) vs per-byte cost: one "
                   f"message size ({shown}; sizes of 64 KiB and more are "
                   "one aggregate) in the runs, so the split cannot be "
                   "determined: c_pkt keeps the preset's proportion to the "
                   f"per-byte cost ({preset.c_pkt / byte:.4g} cycles per "
                   "cycle/B) and scales with it to the measured total; run "
                   "iperf3 at two -l sizes below 64K (e.g. -l 8K and -l "
                   "32K) to fit it")
    if _distinct([r.mss_bytes for r in runs]) >= 2:
        free.append("c_wire")
        if not wired:
            notes.append("c_wire is fitted on loopback, where a segment "
                         "costs its TCP and ACK handling but no NIC "
                         "driver work: runs between two hosts at two MTUs "
                         "measure the driver's share too")
    else:
        tied.append("c_wire")
        why.append(f"c_wire (per wire frame): one MSS in the runs, so it "
                   f"keeps the preset's proportion to the per-byte cost "
                   f"({preset.c_wire / byte:.4g} cycles per cycle/B) and "
                   "scales with it; runs at two MTUs (or iperf3 -M MSS "
                   "values) determine it")
    # the tied terms ride on the per-byte columns, half on each when
    # sending and receiving are fitted apart (c_q follows their mean)
    riding = sum(design[:, STACK_COEFFICIENTS.index(n)]
                 * getattr(preset, n) / byte for n in tied)
    if split:
        names = ["c_byte_tx", "c_byte_rx"]
        columns = [design[:, 0] + riding / 2, design[:, 1] + riding / 2]
    else:
        names = ["c_byte"]
        columns = [design[:, 0] + design[:, 1] + riding]
    names += free
    columns += [design[:, STACK_COEFFICIENTS.index(n)] for n in free]
    # relative residuals: a slow run counts as much as a fast one; each
    # column scaled to 1 (bytes/s and traversals/s differ by 1e4)
    matrix = np.column_stack(columns) / observed[:, None]
    scale = np.abs(matrix).max(axis=0)
    scale[scale == 0] = 1.0
    values, _ = nnls(matrix / scale, np.ones(len(runs)))
    values = values / scale
    values[values < 1e-9 * values.max(initial=0)] = 0.0   # round-off
    fitted = dict(zip(names, values))
    if not split:
        fitted["c_byte_tx"] = fitted["c_byte_rx"] = fitted.pop("c_byte")
    mean_byte = (fitted["c_byte_tx"] + fitted["c_byte_rx"]) / 2
    costs = {name: float(fitted[name]) if name in fitted
             else float(getattr(preset, name) * mean_byte / byte)
             for name in STACK_COEFFICIENTS}
    return StackFit(costs, tuple(n for n in STACK_COEFFICIENTS
                                 if n in fitted), why, notes,
                    tuple(tied))


#: What a calibration claims on the runs it was fitted on and on held-out
#: runs (issue 34's targets), when the runs are repeatable enough. [%]
FITTED_TARGET_PCT = 5.0
HELD_OUT_TARGET_PCT = 15.0


def setting_medians(runs):
    """Each setting's median run and how far repeated runs scatter.

    A setting's runs (the same iperf3 arguments, repeated) are represented
    by the one of median cycles per byte (CPU over payload rate; of an
    even count the lower middle): a run a busy machine disturbed moves the
    mean, not the median.

    Parameters
    ----------
    runs : sequence of StackRun

    Returns
    -------
    medians : list of StackRun
        One per setting, in first-seen order, labelled with the count.
    scatter : float or None
        The largest :math:`|y_i / \\tilde y - 1|` of a run's cycles per
        byte around its setting's median, over the settings of two or
        more runs; None when no setting was repeated.
    """
    groups = {}
    for run in runs:
        groups.setdefault(run.setting or run.label, []).append(run)
    medians, scatter = [], None
    for setting, members in groups.items():
        per_byte = np.array([r.cores_busy / r.bytes_s for r in members])
        middle = int(np.argsort(per_byte, kind="stable")[
            (len(members) - 1) // 2])
        run = members[middle]
        if len(members) > 1:
            run = replace(run, label=f"{setting} [median of "
                          f"{len(members)} runs: {run.source}]")
            spread = float(np.max(np.abs(per_byte / per_byte[middle] - 1)))
            scatter = spread if scatter is None else max(scatter, spread)
        medians.append(run)
    return medians, scatter


def accuracy_statement(scatter):
    """What the runs' repeatability leaves undetermined, or None.

    The calibration claims its fitted runs within
    :data:`FITTED_TARGET_PCT` and held-out ones within
    :data:`HELD_OUT_TARGET_PCT` only where repeated runs of one setting
    agree within the fitted target: a finer claim than the runs' own
    scatter would be a claim about noise.

    Parameters
    ----------
    scatter : float or None
        :func:`setting_medians`' scatter (a fraction).
    """
    if scatter is None:
        return ("accuracy of the host costs: each setting was run once, so "
                "how far a run strays from a repeat of it is not measured "
                "and no error bound is claimed; run each setting 3 or "
                "more times (iperf3 -A to pin both ends, -t 10) so that "
                "the fit's errors can be told from the runs' own scatter")
    if 100 * scatter <= FITTED_TARGET_PCT:
        return None
    return (f"accuracy of the host costs finer than {100 * scatter:.1f} %: "
            "repeated runs of one setting scatter by up to that much "
            "around their median (a busy or throttled host), so within "
            f"{FITTED_TARGET_PCT:g} % (fitted) and "
            f"{HELD_OUT_TARGET_PCT:g} % (held out) is not claimed; repeat "
            "the runs on a quiet host (iperf3 -A to pin both ends, -t 10, "
            "3 or more runs each)")


def stack_checks(runs, preset, ghz, fit):
    """Each setting's cycles per payload byte, measured (the mean of its
    repeated runs) and predicted by the fit on all runs (fitted) and by
    the fit on the other settings' runs (held out, when there are other
    settings).

    Returns
    -------
    list of Check
        Quantity ``cycles/B``: the end's CPU cycles per payload byte it
        moved (both ends of a loopback run).
    """
    quantity = "cycles/B"
    groups = {}
    for run in runs:
        groups.setdefault(run.setting or run.label, []).append(run)

    def per_byte(members, cores):
        return float(np.mean(np.asarray(cores) * ghz * 1e9 / np.array(
            [r.bytes_s for r in members])))

    def label(setting, members):
        if len(members) == 1:
            return members[0].label
        return f"{setting} [{len(members)} runs]"

    checks = []
    for setting, members in groups.items():
        measured = per_byte(members, [r.cores_busy for r in members])
        predicted = per_byte(members, predict_cores(members, fit.costs, ghz))
        checks.append(Check(label(setting, members), quantity, measured,
                            predicted, "fitted"))
    if len(groups) < 2:
        return checks
    for setting, members in groups.items():
        held = fit_stack([r for r in runs if r not in members], preset, ghz)
        lost = [n for n in fit.fitted if n not in held.fitted]
        checks.append(Check(
            label(setting, members) + (
                f" [without it {', '.join(lost)} not determined: preset]"
                if lost else ""), quantity,
            per_byte(members, [r.cores_busy for r in members]),
            per_byte(members, predict_cores(members, held.costs, ghz)),
            "held_out"))
    return checks


# ---------------------------------------------------------------------------
# Storage back ends
# ---------------------------------------------------------------------------

#: Fewest queue depths that determine the service time and the channels;
#: with :data:`DEPTHS_FOR_CEILING` or more the ceiling is fitted too.
DEPTHS_FOR_CHANNELS = 2
DEPTHS_FOR_CEILING = 4

#: Most channels fitted (models.scenario.MAX_DEVICE_CHANNELS).
MAX_CHANNELS = 4096


@dataclass(frozen=True)
class BackendFit:
    """A fitted back end: kind 'nvme' with these values.

    Attributes
    ----------
    service_time_s : float
        One IO's service time alone (the QD1 latency). [s]
    channels : int
        IOs served at once.
    iops_max : float
        The ceiling. [1/s]
    ceiling_fitted : bool
        False: the ceiling is channels / service time (too few depths).
    """

    service_time_s: float
    channels: int
    iops_max: float
    ceiling_fitted: bool


def predict_iops(columns, fit):
    """IOPS of the storage rows ``columns`` (solvers.inputs.storage_columns)
    with the back end ``fit``, through the solver's own chain."""
    from solvers.analyses.storage import evaluate_rows

    count = len(columns["block"])
    col = dict(columns)
    col["service_s"] = np.full(count, fit.service_time_s)
    col["device_servers"] = np.full(count, float(fit.channels))
    col["iops_max"] = np.full(count, fit.iops_max)
    col["devices"] = np.zeros(count)
    col["mbps_max"] = np.full(count, np.inf)
    return evaluate_rows(col)["iops"][:, 0]


def fit_backend(columns, measured_iops, latency_s):
    """Fit service time, channels and (with enough depths) the ceiling of
    one queue-depth series.

    Parameters
    ----------
    columns : dict
        solvers.inputs.storage_columns of the series' workloads.
    measured_iops : array_like
        [1/s]
    latency_s : array_like
        Measured mean latencies, for the start. [s]

    Returns
    -------
    BackendFit
    """
    measured = np.asarray(measured_iops, dtype=float)
    depths = np.unique(columns["threads_per_disk"] * columns["vms"]
                       * columns["disks_per_vm"]).size
    lowest = int(np.argmin(columns["threads_per_disk"] * columns["vms"]
                           * columns["disks_per_vm"]))
    service0 = float(np.asarray(latency_s)[lowest])
    with_ceiling = depths >= DEPTHS_FOR_CEILING

    def backend(p, channels=None):
        service, chans = float(np.exp(p[0])), float(np.exp(p[1]))
        chans = chans if channels is None else channels
        ceiling = float(np.exp(p[2])) if with_ceiling else chans / service
        return BackendFit(service, chans, ceiling, with_ceiling)

    def residual(p, channels=None):
        return np.log(predict_iops(columns, backend(p, channels)) / measured)

    start = [np.log(service0), np.log(max(1.0, measured.max() * service0))]
    if with_ceiling:
        start.append(np.log(measured.max() * 1.05))
    low = [np.log(1e-7), 0.0] + [np.log(measured.max() * 0.5)] * with_ceiling
    high = [np.log(10.0), np.log(MAX_CHANNELS)] \
        + [np.log(measured.max() * 100)] * with_ceiling
    start = np.clip(start, low, high)
    if depths < DEPTHS_FOR_CHANNELS:
        # one depth: a single server at the measured rate
        return BackendFit(service0, 1, 1.0 / service0, False)
    result = least_squares(residual, start, bounds=(low, high))
    # channels are whole: refit the rest at the two nearest counts
    best = None
    for channels in {max(1, int(np.floor(np.exp(result.x[1])))),
                     max(1, int(np.ceil(np.exp(result.x[1]))))}:
        def fixed(p, channels=channels):
            return residual(np.insert(p, 1, np.log(channels)), channels)
        rest = least_squares(fixed, np.delete(result.x, 1),
                             bounds=(np.delete(low, 1), np.delete(high, 1)))
        if best is None or rest.cost < best[0]:
            best = (rest.cost, backend(np.insert(rest.x, 1, 0.0), channels))
    fit = best[1]
    return replace(fit, channels=int(fit.channels))
