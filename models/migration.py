"""Live-migration pre-copy: dirty-memory model, closed-form oracles and the
vectorised round iteration with each hypervisor's stop rule and throttling.

Units inside this module: bytes [B], seconds [s], rates [B/s]. Every
function broadcasts over scenarios; :func:`precopy` iterates the rounds of
all scenarios together, with a mask for those that have finished.
Reference: ``docs/reference/live-migration.md`` (sections cited below).
"""

from dataclasses import dataclass

import numpy as np

from models._checks import as_codes, require_positive, require_range

PAGE_BYTES = 4096
#: Bytes QEMU sends per page besides its data (Gudkov's predictor,
#: ``header_size = 8``; live-migration.md section 7).
PAGE_HEADER_BYTES = 8

THROTTLES = ("none", "auto_converge", "sdps")
NONE, AUTO_CONVERGE, SDPS = range(3)

#: When the dirty log is read and the stop rule tested: ``round`` at the
#: end of each pass over the dirty set (Xen, the generic rules); ``qemu``
#: whenever the unsent part of the pass drops below the threshold (and at
#: QEMU's periodic timer), see :func:`precopy`.
SYNC_RULES = ("round", "qemu")
ROUND_SYNC, QEMU_SYNC = range(2)

#: QEMU migration/ram.c ``ram_save_iterate``: one iteration sends for at
#: most MAX_WAIT = 50 ms; under a max-bandwidth cap the migration thread
#: waits out each BUFFER_DELAY = 100 ms window (migration/migration.c).
QEMU_ITERATION_S = 0.05
QEMU_CAPPED_ITERATION_S = 0.1
#: QEMU migration/ram.c ``migration_bitmap_sync``: the auto-converge
#: trigger is tested only when more than 1000 ms passed since the last
#: test.
QEMU_TRIGGER_PERIOD_S = 1.0
#: QEMU >= 9.2 (cpu-throttle.c, CPU_THROTTLE_DIRTY_SYNC_TIMESLICE_MS):
#: with auto-converge a timer syncs the dirty bitmap every 5 s when no
#: sync happened in the previous 5 s (never during the first pass).
QEMU_SYNC_TIMER_S = 5.0
#: Syncs to simulate before a QEMU-rule migration is declared
#: non-converging: the 5 s timer alone makes 3000 cover over four hours.
QEMU_SYNC_LIMIT = 3000
#: QEMU's default max-bandwidth, MAX_THROTTLE: 32 MiB/s until 5.1,
#: 128 MiB/s from 5.2 (migration/migration.c, later options.c). [B/s]
QEMU_MAX_BANDWIDTH = {(0, 0): 32 * 2 ** 20, (5, 2): 128 * 2 ** 20}

#: Why a pre-copy ended, by code (``postcopy``: it handed over to
#: post-copy, see :func:`models.postcopy.postcopy`).
OUTCOMES = ("switchover", "round_cap", "data_cap", "switchover_too_long",
            "time_budget", "no_convergence", "postcopy")
SWITCHOVER, ROUND_CAP, DATA_CAP, SWITCHOVER_TOO_LONG, TIME_BUDGET, \
    NO_CONVERGENCE, POSTCOPY = range(7)

#: How a migration ends: ``precopy`` stop-and-copy; post-copy after the
#: first pre-copy pass (libvirt ``VIR_MIGRATE_POSTCOPY_AFTER_PRECOPY``,
#: ``virsh migrate --postcopy-after-precopy``) or when the time budget
#: runs out (KubeVirt ``allowPostCopy``: "switch to post-copy when
#: CompletionTimeoutPerGiB triggers").
SWITCHOVER_MODES = ("precopy", "postcopy_after_first_pass",
                    "postcopy_at_time_budget")
PRECOPY_ONLY, POSTCOPY_AFTER_FIRST_PASS, POSTCOPY_AT_TIME_BUDGET = range(3)

@dataclass(frozen=True)
class StopRule:
    """How a hypervisor decides to stop and copy (live-migration.md 5).

    Attributes
    ----------
    downtime_limit : float
        Default switchover budget: stop when what is left can be sent in
        this time. [s]
    min_pages : float
        Stop when fewer pages than this are dirty.
    max_rounds : float
        Stop and copy after this many pre-copy rounds (inf: no cap).
    max_factor : float
        Stop and copy once this many times the memory has been sent.
    max_switchover : float
        Fail when the switchover would take longer. [s]
    throttle : str
        Default throttling: 'none', 'auto_converge' or 'sdps'.
    fixed_downtime : float
        Device state transfer and resume, added to every downtime. [s]
    source : str
    sync : str
        When the dirty log is read and tested: a name in SYNC_RULES.
    test_sent_pass : bool
        Xen ``xc_domain_save``: the page test reads the pass just sent
        and the data cap the memory sent so far.
    final_live_pass : bool
        Xen migration v2: a dirty set under ``min_pages`` is still sent
        live before stop-and-copy (one more round).
    """

    downtime_limit: float
    min_pages: float
    max_rounds: float
    max_factor: float
    max_switchover: float
    throttle: str
    fixed_downtime: float
    source: str
    sync: str = "round"
    test_sent_pass: bool = False
    final_live_pass: bool = False


#: Device-state transfer and resume time, one value for every hypervisor
#: [s]: the idle QEMU guest of validation case LM-1 stops for 100 ms with
#: almost nothing left to send, LM-8 for 9-29 ms; 50 ms sits between.
FIXED_DOWNTIME = 0.05

STOP_RULES = {
    "qemu": StopRule(
        0.3, 0, np.inf, np.inf, np.inf, "none", FIXED_DOWNTIME,
        "QEMU migration.c/ram.c: downtime-limit 300 ms; the dirty bitmap is "
        "re-synced whenever the unsent part of a pass drops below bandwidth "
        "x limit and switchover happens once it stays below; no iteration "
        "cap; auto-converge is opt-in", sync="qemu"),
    "vmotion": StopRule(
        0.5, 0, np.inf, np.inf, 100.0, "sdps", FIXED_DOWNTIME,
        "ESXi Migrate.PreCopySwitchoverTimeGoal 500 ms, SDPS dynamic "
        "(Migrate.SdpsEnabled 2), failure beyond the 100 s maximum "
        "switchover time (VMware KB 2141355)"),
    "xen_legacy": StopRule(
        0.0, 50, 29, 3.0, np.inf, "none", FIXED_DOWNTIME,
        "Xen xc_domain_save (last in Xen 4.5): after each pass, stop when "
        "that pass sent fewer than 50 pages, after DEF_MAX_ITERS 29 live "
        "passes, or once more than DEF_MAX_FACTOR 3 x memory was sent",
        test_sent_pass=True),
    "xen_v2": StopRule(
        0.0, 50, 5, np.inf, np.inf, "none", FIXED_DOWNTIME,
        "Xen migration v2 simple_precopy_policy (xg_sr_save.c): fewer than "
        "SPP_TARGET_DIRTY_COUNT 50 dirty pages (sent live once more, then "
        "stop-and-copy) or SPP_MAX_ITERATIONS 5", final_live_pass=True),
    "hyperv": StopRule(
        0.3, 0, np.inf, np.inf, np.inf, "none", FIXED_DOWNTIME,
        "Hyper-V's stop rule is not documented: modelled as the generic "
        "downtime-budget rule (an assumption)"),
    "fraction_left": StopRule(
        0.0, 0, np.inf, np.inf, np.inf, "none", FIXED_DOWNTIME,
        "Generic rule of Aldhalaan and Menasce (EPEW 2013): stop when a "
        "fraction of memory is left"),
}

#: QEMU auto-converge: initial 20 %, increment 10 %, maximum 99 %, trigger
#: when dirtied > 50 % of transferred in two periods (migration/ram.c,
#: migration/options.c).
AUTO_CONVERGE_STEPS = (0.20, 0.10, 0.99, 0.5)
#: SDPS as interpreted in live-migration.md 6.2: engage when transmit/dirty
#: < 1.3 (Migrate.PreCopyMinProgressPerc 130), then slow the vCPUs until
#: transmit = 5 x dirty (Migrate.SdpsTargetRate 500, read as a ratio).
SDPS_MIN_PROGRESS = 1.3
SDPS_TARGET = 5.0


def qemu_settings(version, management="qemu", max_bandwidth=None,
                  throttle="none"):
    """QEMU's migration settings that depend on its release and on the
    management layer.

    Parameters
    ----------
    version : str
        QEMU release, "major.minor".
    management : {'qemu', 'libvirt', 'unlimited'}, default 'qemu'
        Who sets max-bandwidth: QEMU's default; libvirt, which lifts it
        (``QEMU_DOMAIN_MIG_BANDWIDTH_MAX``, src/qemu/qemu_domain.h); or
        someone who raised it above the path by other means.
    max_bandwidth : float, optional
        An explicit max-bandwidth, which wins over both. [B/s]
    throttle : str, default 'none'
        The throttling in use.

    Returns
    -------
    dict
        ``max_bandwidth`` [B/s] (inf: no cap), ``sync_timer_s`` [s] (inf:
        no periodic sync) and ``source``, a sentence naming both.
    """
    release = tuple(int(part) for part in version.split("."))
    default = next(value for since, value in
                   sorted(QEMU_MAX_BANDWIDTH.items(), reverse=True)
                   if release >= since)
    if max_bandwidth is not None:
        cap, origin = float(max_bandwidth), "set explicitly"
    elif management == "libvirt":
        cap, origin = np.inf, "lifted by libvirt"
    elif management == "unlimited":
        cap, origin = np.inf, "raised above the path"
    else:
        cap, origin = float(default), f"QEMU {version} default"
    timer = QEMU_SYNC_TIMER_S if throttle == "auto_converge" \
        and release >= (9, 2) else np.inf
    limit = "no cap" if not np.isfinite(cap) else f"{cap / 2 ** 20:g} MiB/s"
    source = (f"QEMU {version}: max-bandwidth {limit} ({origin}); "
              + ("auto-converge syncs the dirty bitmap at least every 5 s "
                 "(cpu-throttle.c, QEMU >= 9.2)" if np.isfinite(timer)
                 else "no periodic bitmap sync"))
    return {"max_bandwidth": cap, "sync_timer_s": timer, "source": source}


def dirty_bytes(window, nonzero_memory, cold_rate, *, hot_set=0.0,
                hot_rate=0.0, run_fraction=1.0):
    """Unique bytes dirtied in a window that starts from a clean state.

    Parameters
    ----------
    window : numeric
        Length of the window. [s]
    nonzero_memory : numeric
        Non-zero guest memory, the ceiling of the curve. [B]
    cold_rate : numeric
        Linear dirtying rate of the cold remainder (the uniform model's
        rate when ``hot_set`` is 0). [B/s]
    hot_set : numeric, default 0
        Hot writable working set. [B]
    hot_rate : numeric, default 0
        Initial dirtying rate of the hot set. [B/s]
    run_fraction : numeric, default 1
        vCPU run fraction, 1 - throttle.

    Returns
    -------
    numeric
        D(t). [B]

    Notes
    -----
    .. math::

        D(t) = \\min\\left(H (1 - e^{-r_h f t / H}) + r_c f t,\\; M_{nz}\\right)

    References
    ----------
    live-migration.md section 3.2 (Clark et al. NSDI 2005 writable working
    set; Gudkov 2023 saturating D(t)).
    """
    window = np.asarray(window, dtype=float)
    hot_set = np.asarray(hot_set, dtype=float)
    # below one byte there is no hot set to speak of (and no overflow)
    safe = np.where(hot_set >= 1, hot_set, 1.0)
    hot = np.where(hot_set >= 1, -safe * np.expm1(
        -np.asarray(hot_rate) * run_fraction * window / safe), 0.0)
    return np.minimum(hot + cold_rate * run_fraction * window,
                      nonzero_memory)


def converges(rate, downtime_limit, nonzero_memory, cold_rate, *,
              hot_set=0.0, hot_rate=0.0):
    """Whether pre-copy without throttling or caps reaches switchover.

    Notes
    -----
    For any increasing concave D with D(0) = 0, iterating
    :math:`t_{k+1} = D(t_k)/B` reaches :math:`t_k \\le d` in finite rounds
    if and only if

    .. math:: D(d)/d < B

    (live-migration.md section 3.2).
    """
    downtime_limit = require_positive("downtime_limit", downtime_limit, "s")
    return dirty_bytes(downtime_limit, nonzero_memory, cold_rate,
                       hot_set=hot_set, hot_rate=hot_rate) \
        / downtime_limit < rate


def geometric_precopy(memory, rate, dirty_rate, downtime_limit, *,
                      max_rounds=np.inf, fixed_downtime=0.0):
    """Closed form of the uniform-dirty-rate model (Liu et al., HPDC 2011).

    Parameters
    ----------
    memory : numeric
        Memory sent in round 0. [B]
    rate : numeric
        Migration rate B. [B/s]
    dirty_rate : numeric
        Uniform dirtying rate D, below ``rate``. [B/s]
    downtime_limit : numeric
        Stop when at most ``rate * downtime_limit`` is left. [s]
    max_rounds : numeric, default inf
        Round cap K_max.
    fixed_downtime : numeric, default 0
        T_fixed. [s]

    Returns
    -------
    dict of numeric
        ``rounds`` n (the stop-and-copy round), ``bytes``, ``time`` and
        ``downtime``.

    Notes
    -----
    .. math::

        \\lambda = D/B,\\quad n = \\lceil \\ln(B d / M) / \\ln\\lambda \\rceil,
        \\quad V = M \\frac{1 - \\lambda^{n+1}}{1 - \\lambda},\\quad
        T = V / B,\\quad T_{down} = M \\lambda^n / B + T_{fixed}
    """
    memory = require_positive("memory", memory, "B")
    rate = require_positive("rate", rate, "B/s")
    ratio = np.asarray(dirty_rate, dtype=float) / rate
    if np.any((ratio < 0) | (ratio >= 1)):
        raise ValueError("dirty_rate must be >= 0 and below rate for the "
                         f"geometric model, got ratio {ratio!r}")
    threshold = rate * downtime_limit
    with np.errstate(divide="ignore"):
        rounds = np.where(
            threshold >= memory, 0,
            np.ceil(np.log(threshold / memory) / np.log(ratio)))
    # no dirtying: round 1 has nothing left, so n = 1 (0 if M fits at once)
    rounds = np.minimum(np.where(ratio == 0, (threshold < memory) * 1.0,
                                 rounds), max_rounds)
    volume = memory * (1 - ratio ** (rounds + 1)) / (1 - ratio)
    return {"rounds": rounds, "bytes": volume, "time": volume / rate,
            "downtime": memory * ratio ** rounds / rate + fixed_downtime}


def precopy(memory, rate, cold_rate=0.0, *, hot_set=0.0, hot_rate=0.0,
            first_rate=None, zero_fraction=0.0, downtime_limit=0.3,
            min_pages=0.0, fraction_left=0.0, max_rounds=np.inf,
            max_factor=np.inf, max_switchover=np.inf, time_budget=np.inf,
            throttle="none", fixed_downtime=FIXED_DOWNTIME,
            page_header=PAGE_HEADER_BYTES, auto_converge=AUTO_CONVERGE_STEPS,
            sdps_min_progress=SDPS_MIN_PROGRESS, sdps_target=SDPS_TARGET,
            sync="round", iteration_s=QEMU_ITERATION_S, sync_timer_s=np.inf,
            trigger_period_s=QEMU_TRIGGER_PERIOD_S, test_sent_pass=False,
            final_live_pass=False, run_to_budget=False, round_limit=300,
            zero_page_s=0.0, pending_in_pages=False, wire_share=1.0,
            stop_rate=None,
            trace=False):
    """Iterate pre-copy rounds until each scenario stops, all at once.

    Parameters
    ----------
    memory : numeric
        Guest RAM M. [B]
    rate : numeric
        Effective migration rate B (after framing, stream caps, sharing,
        compression and any max-bandwidth cap). [B/s]
    cold_rate : numeric, default 0
        Uniform (cold) dirtying rate. [B/s]
    hot_set, hot_rate : numeric, default 0
        Hot working set [B] and its initial dirtying rate [B/s].
    first_rate : numeric, optional
        Rate of round 0 when it differs from ``rate``: lower where the
        destination allocates its pages then, and either way for a
        migration that shares its link with others (an evacuation's first
        pass sees other neighbours than its later rounds). [B/s]
    zero_fraction : numeric, default 0
        Share of pages that are zero (sent as a header only).
    downtime_limit : numeric, default 0.3
        Stop when what is left takes less than this long to send. [s]
    min_pages : numeric, default 0
        Stop when fewer pages than this are left (Xen).
    fraction_left : numeric, default 0
        Stop when less than this share of memory is left.
    max_rounds, max_factor : numeric, default inf
        Stop and copy after this many rounds, or once more than this many
        times the memory has been sent (Xen caps).
    max_switchover : numeric, default inf
        Fail when the switchover would take longer. [s]
    time_budget : numeric, default inf
        Abort when pre-copy runs longer (a management timeout). [s]
    throttle : str or array-like of str, default 'none'
        'none', 'auto_converge' (QEMU) or 'sdps' (vMotion).
    fixed_downtime : numeric, default 0.05
        Device state and resume. [s]
    page_header : numeric, default 8
        Header bytes per page sent. [B]
    auto_converge : tuple, default (0.20, 0.10, 0.99, 0.5)
        Initial throttle, increment, maximum, trigger ratio.
    sdps_min_progress, sdps_target : float, default 1.3, 5.0
        SDPS engages below this transmit/dirty ratio and aims at the target.
    sync : str or array-like of str, default 'round'
        When the dirty log is read and the stop rule tested, a name in
        :data:`SYNC_RULES`.
    iteration_s : numeric, default 0.05
        ``qemu``: length of one send iteration (MAX_WAIT, or the 100 ms
        window under a max-bandwidth cap). [s]
    sync_timer_s : numeric, default inf
        ``qemu``: period of the forced bitmap sync (5 s with auto-converge
        from QEMU 9.2, else inf). [s]
    trigger_period_s : numeric, default 1
        The auto-converge trigger is tested at a sync only when more than
        this long passed since its last test. [s]
    test_sent_pass : bool or array-like, default False
        Test ``min_pages`` on the pass just sent and ``max_factor`` on what
        was sent so far (Xen ``xc_domain_save``).
    final_live_pass : bool or array-like, default False
        A dirty set under the page threshold is sent live once more before
        stop-and-copy (Xen migration v2).
    run_to_budget : bool or array-like, default False
        Keep sending until ``time_budget`` even when the rounds have
        stopped making progress (what precedes a switch to post-copy at
        the budget); the outcome is then TIME_BUDGET.
    zero_page_s : numeric, default 0
        Time a zero page takes the thread that handles it in round 0 (the
        test for zeros and the page's bookkeeping,
        :func:`models.qemu_ram.page_times`): a zero page costs round 0 the
        larger of its header and ``first_rate * zero_page_s``. [s]
    pending_in_pages : bool or array-like of bool, default False
        QEMU's switch-over test (``migration_iteration_run``): the pending
        size is dirty pages x page size, zero pages included, while the
        threshold is the bytes the channels actually wrote per second
        times the limit. In round 0 a pass rich in zero pages writes few
        bytes per page, so the threshold in pass time shrinks by the wire
        bytes of the pass over its page bytes.
    wire_share : numeric, default 1
        With ``pending_in_pages``: bytes written per byte of memory sent
        (1 / the compression ratio), which shrinks QEMU's threshold in
        every round: compressed pages are counted whole in the pending
        size but written compressed.
    stop_rate : numeric, optional
        Rate of the stop-and-copy phase [B/s], default ``rate``. QEMU
        lifts its max-bandwidth cap when it stops the guest
        (``migration_completion_precopy`` calls
        ``migration_rate_set(RATE_LIMIT_DISABLED)``, migration/migration.c):
        a capped migration sends what is left at its uncapped rate.
    round_limit : int, default 300
        Rounds simulated before declaring no convergence; a scenario on
        the QEMU rule gets at least :data:`QEMU_SYNC_LIMIT` syncs. Each
        scenario's result is the same whatever the others in the call.
    trace : bool, default False
        Also return the per-round volumes and durations.

    Returns
    -------
    dict of numeric
        ``converged`` (bool), ``outcome`` (index into OUTCOMES), ``rounds``
        (round rule: pre-copy passes before stop-and-copy; qemu rule:
        QEMU's dirty-sync-count at completion, the setup and last-stage
        syncs included), ``total_time`` [s], ``downtime`` [s],
        ``bytes_sent`` [B], ``throttle`` (final, 0-1), ``slowdown``
        (guest, 1/f); with ``trace`` also ``round_bytes`` and
        ``round_seconds`` (scenarios x intervals between syncs, NaN past
        the end). Time, downtime and bytes are NaN where the migration
        never switches over. ``stopped_at`` [s] and ``left_bytes`` [B]:
        when pre-copy stopped by any rule but no convergence and what was
        left to send then, ``sent_by_end`` [B] all bytes once that is
        sent (NaN otherwise).

    Notes
    -----
    Round rule: round 0 sends the non-zero memory; round k+1 sends
    D(t_k); stop and copy when :math:`D(t_k) < \\max(B d, p_{min} P,
    \\alpha M)` or a cap fires; then :math:`T_{down} = V_{stop}/B +
    T_{fixed}` (live-migration.md section 4).

    QEMU rule (migration.c ``migration_iteration_run``, ram.c
    ``ram_state_pending_exact``): with :math:`T = B d`, the pass sends in
    iterations of :math:`\\delta`; once the unsent part :math:`R'` drops
    below T at an iteration boundary the bitmap is synced,
    :math:`R = R' + D(\\Delta)` with :math:`\\Delta` the time since the
    previous sync, and QEMU switches over when :math:`R < T`, otherwise
    it sends on and re-syncs at the next crossing. So the RAM part of the
    downtime is close to the limit d. With ``sync_timer_s`` a sync is also
    forced at the first timer tick a full period after the last sync
    (never in round 0). At a sync more than ``trigger_period_s`` after the
    last test, auto-converge counts a high period when the pages newly
    dirtied since that test exceed the trigger ratio times the bytes sent
    since it, and steps the throttle at every second high period (ram.c
    ``migration_trigger_throttle``). D is the unique-page curve of
    :func:`dirty_bytes` from the last sync; pages re-dirtied while still
    unsent are counted again (an overestimate when R' is a large share of
    memory).
    """
    memory = require_positive("memory", memory, "B")
    rate = require_positive("rate", rate, "B/s")
    first_rate = rate if first_rate is None else require_positive(
        "first_rate", first_rate, "B/s")
    zero_fraction = require_range("zero_fraction", zero_fraction, 0, 1)
    for name, value in (("cold_rate", cold_rate), ("hot_rate", hot_rate),
                        ("hot_set", hot_set)):
        require_range(name, value, 0, np.inf, "B/s" if "rate" in name
                      else "B")
    throttle = as_codes("throttle", throttle, THROTTLES)
    # the defaults (round sync, no Xen pass rules) skip all their work
    sync = ROUND_SYNC if isinstance(sync, str) and sync == "round" \
        else as_codes("sync", sync, SYNC_RULES)
    if np.any(sync == QEMU_SYNC):
        iteration_s = require_positive("iteration_s", iteration_s, "s")
        sync_timer_s = np.asarray(sync_timer_s, dtype=float)
        if np.any(~(sync_timer_s > 0)):  # inf (no timer) is allowed
            raise ValueError("sync_timer_s must be > 0 [s] (inf: no "
                             f"timer), got {sync_timer_s!r}")
    shape = np.broadcast_shapes(*(np.shape(v) for v in (
        memory, rate, cold_rate, hot_set, hot_rate, first_rate,
        zero_fraction, downtime_limit, min_pages, fraction_left, max_rounds,
        max_factor, max_switchover, time_budget, throttle, sync, iteration_s,
        sync_timer_s, test_sent_pass, final_live_pass, run_to_budget,
        zero_page_s, pending_in_pages, wire_share,
        rate if stop_rate is None else stop_rate)))
    full = _flattener(shape)
    memory, rate, first_rate = full(memory), full(rate), full(first_rate)
    stop_rate = rate if stop_rate is None else full(require_positive(
        "stop_rate", stop_rate, "B/s"))
    nonzero = memory * (1 - full(zero_fraction))
    overhead = 1 + page_header / PAGE_BYTES
    live = _scenario_state(
        full, shape, memory=memory, nonzero=nonzero, rate=rate,
        stop_rate=stop_rate, cold_rate=cold_rate, hot_set=hot_set,
        hot_rate=hot_rate, downtime_limit=downtime_limit,
        min_pages=min_pages, fraction_left=fraction_left,
        max_rounds=max_rounds, max_factor=max_factor,
        max_switchover=max_switchover, time_budget=time_budget,
        fixed_downtime=fixed_downtime, throttle=throttle)
    uses = _RulesInUse(
        qemu=bool(np.any(sync == QEMU_SYNC)),
        sent_test=bool(np.any(test_sent_pass)),
        final_pass=bool(np.any(final_live_pass)),
        run_to_budget=bool(np.any(run_to_budget)),
        auto_converge=bool((live["throttle"] == AUTO_CONVERGE).any()),
        budget=bool(np.isfinite(live["time_budget"]).any()),
        factor=bool(np.isfinite(live["max_factor"]).any()),
        round_cap=bool(np.isfinite(live["max_rounds"]).any()),
        switchover_cap=bool(np.isfinite(live["max_switchover"]).any()))
    zero_pages, zero_cost, pending = _page_path_cost(
        live, memory, nonzero, first_rate, overhead, page_header,
        full(zero_page_s), full(pending_in_pages, bool), full(wire_share))
    if uses.qemu:
        live.update(iteration=full(iteration_s), timer=full(sync_timer_s),
                    sync=full(sync, np.int8))
    for key, flag, value in (("test_sent_pass", uses.sent_test,
                              test_sent_pass),
                             ("final_live_pass", uses.final_pass,
                              final_live_pass),
                             ("run_to_budget", uses.run_to_budget,
                              run_to_budget)):
        if flag:
            live[key] = full(value, bool)
    _first_pass(live, uses, pending, first_rate)
    out = _blank_results(memory.size)
    _rule_out_hopeless(live, uses, out, pending, first_rate, overhead,
                       sdps_min_progress, sdps_target)
    trace_rows = _round_loop(live, uses, out, overhead, auto_converge,
                             trigger_period_s, round_limit, trace, pending)
    return _precopy_results(out, zero_pages * (zero_cost - page_header),
                            trace_rows, shape)


@dataclass(frozen=True)
class _RulesInUse:
    """Which of :func:`precopy`'s optional rules any scenario of a call
    uses: a rule no scenario uses costs the round loop nothing."""

    qemu: bool
    sent_test: bool
    final_pass: bool
    run_to_budget: bool
    auto_converge: bool
    budget: bool
    factor: bool
    round_cap: bool
    switchover_cap: bool


def _flattener(shape):
    """A function that broadcasts an input to ``shape`` and flattens it."""
    size = int(np.prod(shape))

    def full(value, dtype=float):
        value = np.asarray(value, dtype=dtype)
        if value.ndim == 0:  # the common scalar: no broadcasting machinery
            return np.full(size, value.item(), dtype=dtype)
        return np.broadcast_to(value, shape).ravel()
    return full


def _scenario_state(full, shape, *, memory, nonzero, rate, stop_rate,
                    cold_rate, hot_set, hot_rate, downtime_limit, min_pages,
                    fraction_left, max_rounds, max_factor, max_switchover,
                    time_budget, fixed_downtime, throttle):
    """What each running scenario needs, compacted as scenarios finish so
    that a long tail of slow ones costs only their own share; the stop
    threshold is the largest of bandwidth x limit, the page count and the
    share of memory (:func:`precopy`'s Notes)."""
    return {
        "index": np.arange(memory.size),
        "rate": rate,
        "stop_rate": stop_rate,
        "nonzero": nonzero,
        "memory": memory,
        "cold_rate": full(cold_rate),
        "hot_set": full(hot_set),
        "hot_rate": full(hot_rate),
        "threshold": np.maximum.reduce([rate * full(downtime_limit),
                                        full(min_pages) * PAGE_BYTES,
                                        full(fraction_left) * memory]),
        "max_rounds": full(max_rounds),
        "max_factor": full(max_factor),
        "max_switchover": full(max_switchover),
        "time_budget": full(time_budget),
        "fixed_downtime": full(fixed_downtime),
        "throttle": np.broadcast_to(throttle, shape).ravel(),
        "slope": full(hot_rate) + full(cold_rate),  # unthrottled dirtying
    }


def _page_path_cost(live, memory, nonzero, first_rate, overhead,
                    page_header, zero_page_s, in_pages, wire_share):
    """Round 0's pass through the page path: each non-zero page with its
    header, each zero page the larger of its header and the time its
    thread takes to test it (``zero_page_s``); with ``in_pages`` QEMU's
    threshold shrinks to the written share of the page bytes. Returns the
    zero page count, a zero page's cost [B] and round 0's pending [B]."""
    zero_pages = (memory - nonzero) / PAGE_BYTES
    zero_cost = np.maximum(page_header, first_rate * zero_page_s)
    pending = nonzero * overhead + zero_pages * zero_cost
    if in_pages.any():
        # QEMU compares page bytes with written bytes per second x limit:
        # in round 0's pass time the threshold is the written share
        written = (nonzero * overhead + zero_pages * page_header) \
            / (memory * overhead)
        share = np.where(in_pages, wire_share, 1.0)
        live["threshold_after"] = live["threshold"] * share
        live["threshold"] = np.where(in_pages,
                                     live["threshold"] * share * written,
                                     live["threshold"])
    return zero_pages, zero_cost, pending


def _first_pass(live, uses, pending, first_rate):
    """Round 0: how long it runs until its first sync and what it leaves
    unsent then (QEMU rule), and the loop's starting state."""
    count = pending.size
    if uses.qemu:
        seconds = _next_sync(live, pending, first_rate, np.zeros(count),
                             first_pass=True)
        leftover = _unsent(live["sync"], pending, first_rate, seconds)
        live["leftover"] = leftover
    else:
        seconds, leftover = pending / first_rate, 0.0
    if uses.auto_converge:
        live.update(high=np.zeros(count), since=np.zeros(count),
                    excess=np.zeros(count))
    live.update(pending=pending, seconds=seconds, elapsed=seconds.copy(),
                sent=pending - leftover, rounds=np.ones(count),
                fraction=np.ones(count), alive=np.ones(count, dtype=bool))


def _blank_results(count):
    """Per-scenario outputs before any scenario stops."""
    total = np.full(count, np.nan)
    return {"outcome": np.full(count, NO_CONVERGENCE, dtype=np.int8),
            "total": total, "downtime": total.copy(),
            "bytes_sent": total.copy(), "stopped_at": total.copy(),
            "left_bytes": total.copy(), "sent_by_end": total.copy(),
            "rounds": np.ones(count), "fraction": np.ones(count)}


def _rule_out_hopeless(live, uses, out, pending, first_rate, overhead,
                       sdps_min_progress, sdps_target):
    """Scenarios that cannot converge, decided before the loop, and the
    loop's per-scenario constants.

    Without throttling or caps the theorem of section 3.2 decides up front
    for the round rule: switchover iff h D(d)/d < B, with d the threshold
    in time, once round 0 lasts the window: D(t0) >= D(d) >= B d after it.
    """
    rate, nonzero = live["rate"], live["nonzero"]
    window = live["threshold"] / rate
    free = (live["throttle"] == NONE) & ~np.isfinite(live["max_rounds"]) \
        & ~np.isfinite(live["max_factor"]) & (window > 0)
    if uses.qemu:
        free &= live["sync"] == ROUND_SYNC
    hopeless = free & ~(overhead * dirty_bytes(
        window, nonzero, live["cold_rate"], hot_set=live["hot_set"],
        hot_rate=live["hot_rate"]) < rate * window)
    hopeless &= pending / first_rate >= window
    if uses.run_to_budget:
        hopeless &= ~live["run_to_budget"]
    out["outcome"][hopeless] = np.where(
        np.isfinite(live["time_budget"][hopeless]), TIME_BUDGET,
        NO_CONVERGENCE)
    live["alive"] = ~hopeless
    slope = live["slope"]
    live.update(
        auto=live["throttle"] == AUTO_CONVERGE,
        sdps=live["throttle"] == SDPS,
        sdps_fraction=live["rate"] / (sdps_target * np.where(
            slope >= 1, slope, 1)),
        sdps_progress=sdps_min_progress * slope,
        uncapped=~(np.isfinite(live["max_rounds"])
                   | np.isfinite(live["max_factor"])),
        budgeted=np.isfinite(live["time_budget"]))
    del live["slope"], live["throttle"]
    # a zero threshold still stops on an empty dirty set
    live["threshold"] = np.maximum(live["threshold"], np.finfo(float).tiny)
    if "threshold_after" in live:
        live["threshold_after"] = np.maximum(live["threshold_after"],
                                             np.finfo(float).tiny)


def _round_loop(live, uses, out, overhead, auto_converge, trigger_period_s,
                round_limit, trace, pending):
    """Sync after sync until every scenario has stopped or run out of
    rounds; fills ``out`` and returns the trace rows (scenario indices,
    bytes sent, seconds per interval; none without ``trace``)."""
    trace_rows = [(np.arange(pending.size), pending - live.get(
        "leftover", 0.0), live["seconds"])] if trace else []
    steps = max(round_limit, QEMU_SYNC_LIMIT) if uses.qemu else round_limit
    for round_index in range(steps):
        s = live
        found, sent_now, tested, stop_volume, live_time, resent, dirty = \
            _sync(s, uses, overhead)
        reason = _stop_reason(s, uses, found, tested, stop_volume)
        fraction, engage, throttle_state = _throttle(
            s, uses, dirty, sent_now, auto_converge, trigger_period_s)
        reason = _no_progress(s, uses, reason, found, fraction, engage,
                              throttle_state, auto_converge[2])
        done = s["alive"] & (reason >= 0)
        _record_stops(s, uses, out, done, reason, found, stop_volume,
                      live_time, resent)
        alive = s["alive"] & ~done
        remaining = np.count_nonzero(alive)
        if not remaining:
            break
        live = _next_round(s, uses, out, alive, remaining, fraction, found,
                           throttle_state, round_index, round_limit, steps,
                           trace_rows)
    else:  # still running after round_limit rounds
        where = live["index"][live["alive"]]
        out["rounds"][where] = live["rounds"][live["alive"]]
        if uses.qemu:
            out["rounds"][where] += 2.0 * (live["sync"][live["alive"]]
                                           == QEMU_SYNC)
        out["fraction"][where] = live["fraction"][live["alive"]]
    return trace_rows


def _sync(s, uses, overhead):
    """What a sync finds: the pages dirtied since the previous one (and,
    QEMU rule, the unsent part of the pass), what the stop rule tests, and
    what stop-and-copy would send (Xen v2 sends a small dirty set live
    once more, then copies what that pass left dirty)."""
    dirty = dirty_bytes(s["seconds"], s["nonzero"], s["cold_rate"],
                        hot_set=s["hot_set"], hot_rate=s["hot_rate"],
                        run_fraction=s["fraction"]) * overhead
    found = s["leftover"] + dirty if uses.qemu else dirty
    sent_now = s["pending"] - s["leftover"] if uses.qemu else s["pending"]
    tested = found
    if uses.sent_test:
        # xc_domain_save tests the pass just sent and what was sent
        tested = np.where(s["test_sent_pass"], s["pending"], found)
    stop_volume, live_time, resent = found, 0.0, 0.0
    if uses.final_pass:
        small = s["final_live_pass"] & (tested < s["threshold"])
        live_time = np.where(small, found / s["rate"], 0.0)
        stop_volume = np.where(small, dirty_bytes(
            live_time, s["nonzero"], s["cold_rate"], hot_set=s["hot_set"],
            hot_rate=s["hot_rate"], run_fraction=s["fraction"])
            * overhead, found)
        resent = np.where(small, found, 0.0)
    return found, sent_now, tested, stop_volume, live_time, resent, dirty


def _stop_reason(s, uses, found, tested, stop_volume):
    """Why each scenario stops at this sync (-1: it goes on). The first
    matching rule wins, in this order (nested where: cheaper than
    np.select); rules no scenario uses are left out."""
    reason = -1
    if uses.budget:
        reason = np.where(s["elapsed"] > s["time_budget"], TIME_BUDGET,
                          reason)
    if uses.factor:
        total_after = s["sent"] + found
        if uses.sent_test:
            total_after = np.where(s["test_sent_pass"], s["sent"],
                                   total_after)
        reason = np.where(total_after > s["max_factor"] * s["memory"],
                          DATA_CAP, reason)
    if uses.round_cap:
        reason = np.where(s["rounds"] >= s["max_rounds"], ROUND_CAP, reason)
    reason = np.where(tested < s["threshold"], SWITCHOVER, reason)
    if uses.switchover_cap:
        stop_time = _stop_phase(stop_volume, s["stop_rate"],
                                s["fixed_downtime"])
        reason = np.where((reason >= 0) & (reason != TIME_BUDGET) &
                          (stop_time > s["max_switchover"]),
                          SWITCHOVER_TOO_LONG, reason)
    return reason


def _stop_phase(volume, stop_rate, fixed_downtime):
    """Downtime: what is left sent at the stop-and-copy rate, plus the
    device state and resume. [s]"""
    return volume / stop_rate + fixed_downtime


def _throttle(s, uses, dirty, sent_now, auto_converge, trigger_period_s):
    """The vCPUs' run fraction after this sync: auto-converge steps at
    every second high period, tested at a sync more than
    ``trigger_period_s`` after its last test on the pages dirtied and
    bytes sent since then; SDPS engages below its minimum progress.
    Returns the fraction, where SDPS engaged and auto-converge's state
    (high periods, time and excess since the last test, whether it was
    tested and whether it stepped; None without auto-converge)."""
    initial, increment, maximum, trigger = auto_converge
    fraction = s["fraction"]
    state = None
    if uses.auto_converge:
        since = s["since"] + s["seconds"]
        # dirtied minus trigger x sent since the last test
        excess = s["excess"] + (dirty - trigger * sent_now)
        tests = since > trigger_period_s
        too_fast = tests & (excess > 0)
        high = s["high"] + too_fast
        step = too_fast & (high >= 2) & s["auto"]
        if step.any():
            high = np.where(step, 0, high)
            fraction = np.where(step, np.where(
                fraction == 1, 1 - initial,
                np.maximum(fraction - increment, 1 - maximum)), fraction)
        state = (high, since, excess, tests, step)
    engage = s["sdps"] & (s["rate"] < s["sdps_progress"] * fraction)
    fraction = np.where(engage, np.minimum(fraction, s["sdps_fraction"]),
                        fraction)
    return fraction, engage, state


def _no_progress(s, uses, reason, found, fraction, engage, throttle_state,
                 maximum):
    """No progress and no throttle step left: the rounds have reached
    their fixed point and will never switch over (section 3.2); a round
    or data cap will still end the others."""
    stalled = (reason < 0) & (found >= s["pending"])
    if not stalled.any():
        return reason
    can_throttle = (s["auto"] & (fraction > 1 - maximum)) | engage
    if uses.auto_converge:  # a step just taken gets its round
        can_throttle |= throttle_state[4]
    stalled &= s["uncapped"] & ~can_throttle
    if uses.run_to_budget:
        stalled &= ~s["run_to_budget"]
    return np.where(stalled, np.where(s["budgeted"], TIME_BUDGET,
                                      NO_CONVERGENCE), reason)


def _record_stops(s, uses, out, done, reason, found, stop_volume, live_time,
                  resent):
    """Write the outcome of the scenarios that stopped at this sync; those
    that finished (switchover or a cap) get their stop phase."""
    finished = done & (reason <= DATA_CAP)
    where = s["index"][done]
    out["outcome"][where] = reason[done]
    out["rounds"][where] = s["rounds"][done]
    if uses.final_pass:
        out["rounds"][where] += resent[done] > 0
    if uses.qemu:  # QEMU counts the setup and last-stage syncs too
        out["rounds"][where] += 2.0 * (s["sync"][done] == QEMU_SYNC)
    out["fraction"][where] = s["fraction"][done]
    out["stopped_at"][where] = (s["elapsed"] + live_time)[done]
    out["left_bytes"][where] = stop_volume[done]
    out["sent_by_end"][where] = (s["sent"] + resent + stop_volume)[done]
    ok = s["index"][finished]
    if not ok.size:
        return
    stop_time = _stop_phase(stop_volume[finished], s["stop_rate"][finished],
                            s["fixed_downtime"][finished])
    if uses.final_pass:
        out["total"][ok] = (s["elapsed"] + live_time)[finished] + stop_time
        out["bytes_sent"][ok] = (s["sent"] + resent + stop_volume)[finished]
    else:
        out["total"][ok] = s["elapsed"][finished] + stop_time
        out["bytes_sent"][ok] = s["sent"][finished] + found[finished]
    out["downtime"][ok] = stop_time


def _next_round(s, uses, out, alive, remaining, fraction, found,
                throttle_state, round_index, round_limit, steps,
                trace_rows):
    """Advance the scenarios still running to their next sync; returns the
    live state (compacted once enough scenarios have finished)."""
    s["fraction"], s["pending"] = fraction, found
    if round_index == 0 and "threshold_after" in s:
        s["threshold"] = s.pop("threshold_after")
    if uses.auto_converge:
        high, since, excess, tests, _ = throttle_state
        s["high"] = high
        s["since"] = np.where(tests, 0.0, since)
        s["excess"] = np.where(tests, 0.0, excess)
    s["alive"] = alive
    if remaining < 0.7 * alive.size:
        # drop finished scenarios once enough have piled up: copying
        # every array each round would cost more than it saves
        s = {k: v[alive] for k, v in s.items()}
    if uses.qemu:
        s["seconds"] = _next_sync(s, s["pending"], s["rate"], s["elapsed"])
        s["leftover"] = _unsent(s["sync"], s["pending"], s["rate"],
                                s["seconds"])
        sent_now = s["pending"] - s["leftover"]
    else:
        s["seconds"] = s["pending"] / s["rate"]
        sent_now = s["pending"]
    s["elapsed"] = s["elapsed"] + s["seconds"]
    s["sent"] = s["sent"] + sent_now
    s["rounds"] = s["rounds"] + s["alive"]
    if trace_rows:
        trace_rows.append((s["index"][s["alive"]], sent_now[s["alive"]],
                           s["seconds"][s["alive"]]))
    if round_index == round_limit - 1 < steps - 1:
        # the round rule's rows stop at round_limit as they would in a
        # call without QEMU rows: a row's result never depends on the
        # others in the call
        expired = s["alive"] & (s["sync"] != QEMU_SYNC)
        where = s["index"][expired]
        out["rounds"][where] = s["rounds"][expired]
        out["fraction"][where] = s["fraction"][expired]
        s["alive"] = s["alive"] & ~expired
    return s


def _precopy_results(out, unsent_time, trace_rows, shape):
    """:func:`precopy`'s result dict, reshaped to the inputs' shape; a zero
    page's time in round 0 (``unsent_time`` [B] at round 0's rate) is not
    bytes on the wire."""
    bytes_sent = out["bytes_sent"] - unsent_time
    sent_by_end = out["sent_by_end"] - unsent_time
    fraction = out["fraction"]
    outcome = out["outcome"]
    result = {"converged": outcome <= DATA_CAP, "outcome": outcome,
              "rounds": out["rounds"], "total_time": out["total"],
              "downtime": out["downtime"], "bytes_sent": bytes_sent,
              "throttle": 1 - fraction, "slowdown": 1 / fraction,
              "stopped_at": out["stopped_at"],
              "left_bytes": out["left_bytes"], "sent_by_end": sent_by_end}
    stuck = outcome == NO_CONVERGENCE
    for key in ("stopped_at", "left_bytes", "sent_by_end"):
        result[key][stuck] = np.nan
    if trace_rows:
        count = outcome.size
        volumes = np.full((count, len(trace_rows)), np.nan)
        durations = volumes.copy()
        for column, (index, volume, duration) in enumerate(trace_rows):
            volumes[index, column] = volume
            durations[index, column] = duration
        result["round_bytes"] = volumes.reshape(shape + (-1,))
        result["round_seconds"] = durations.reshape(shape + (-1,))
    return {k: v if k.startswith("round_") else v.reshape(shape)
            for k, v in result.items()}


def _unsent(sync, pending, rate, seconds):
    """What a pass leaves unsent at its sync: the QEMU rule's part left
    over; none under the round rule, which sends the whole pass (exactly
    0, not ``pending - rate * (pending / rate)``, which may be an ulp)."""
    return np.where(sync == QEMU_SYNC,
                    np.maximum(pending - rate * seconds, 0.0), 0.0)


def _next_sync(s, pending, rate, elapsed, first_pass=False):
    """Time from a sync to the next one (section of :func:`precopy`'s
    Notes): the round rule sends the whole pass; the QEMU rule syncs at
    the first iteration boundary where less than the threshold is left
    unsent (or when the pass runs out), or earlier at its timer."""
    whole = pending / rate
    step = s["iteration"] * rate
    iterations = np.floor(np.maximum(pending - s["threshold"], 0.0)
                          / step) + 1
    natural = np.minimum(iterations * s["iteration"], whole)
    if not first_pass:  # the timer skips syncs while round 0 runs
        period = s["timer"]
        finite = np.isfinite(period)
        safe = np.where(finite, period, 1.0)
        tick = safe * (np.ceil(elapsed / safe - 1e-9) + 1)
        natural = np.where(finite, np.minimum(natural, tick - elapsed),
                           natural)
    return np.where(s["sync"] == QEMU_SYNC, natural, whole)
