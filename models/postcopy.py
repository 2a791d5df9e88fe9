"""Post-copy: where a live migration hands its remaining pages over to
the destination instead of copying them while the guest runs.

Takes :func:`models.migration.precopy`'s result; all arguments
broadcast. Units: bytes [B], seconds [s], rates [B/s].
"""

import numpy as np

from models.migration import (FIXED_DOWNTIME, POSTCOPY,
                              POSTCOPY_AFTER_FIRST_PASS,
                              POSTCOPY_AT_TIME_BUDGET, ROUND_CAP,
                              TIME_BUDGET)


def postcopy(result, rate, mode, fixed_downtime=FIXED_DOWNTIME,
             ceiling=np.inf):
    """Hand a pre-copy over to post-copy where its switchover mode says.

    Parameters
    ----------
    result : dict
        :func:`precopy`'s result (run with ``max_rounds`` 1 for
        post-copy after the first pass and ``run_to_budget`` for post-copy
        at the time budget).
    rate : numeric
        Migration rate. [B/s]
    mode : array-like of int
        Index into :data:`SWITCHOVER_MODES`.
    fixed_downtime : numeric, default 0.05
        Device state and resume. [s]
    ceiling : numeric, default inf
        Most that can be left: every non-zero page once, with its header
        (pre-copy's rounds may count a page that is both unsent and
        re-dirtied twice). [B]

    Returns
    -------
    dict
        ``result`` updated where post-copy takes over (outcome POSTCOPY,
        converged, downtime = ``fixed_downtime``), with
        ``postcopy_time`` [s] (the guest's degraded period, 0 without
        post-copy) and ``postcopy_bytes`` [B].

    Notes
    -----
    Post-copy stops the source for the device state only and resumes the
    guest on the destination; the pages still dirty at that moment,
    :math:`V`, are pushed by the background stream and pulled on each
    page fault, every page once (the destination owns the memory, so
    nothing is re-dirtied):

    .. math:: T_{post} = V / B, \\quad T = t_{stop} + T_{fixed} + T_{post}

    During :math:`T_{post}` a vCPU touching a missing page waits for it
    over the network (QEMU's postcopy-blocktime counts those waits), and
    a failure of either host or the network loses the guest.

    References
    ----------
    QEMU docs/devel/migration/postcopy.rst; M. Hines, K. Gopalan,
    "Post-copy based live virtual machine migration", VEE 2009.
    """
    mode = np.asarray(mode)
    outcome = result["outcome"]
    switch = ((mode == POSTCOPY_AFTER_FIRST_PASS) & (outcome == ROUND_CAP)) \
        | ((mode == POSTCOPY_AT_TIME_BUDGET) & (outcome == TIME_BUDGET))
    left = np.where(switch, np.minimum(result["left_bytes"], ceiling), 0.0)
    post = left / rate
    fixed = np.broadcast_to(fixed_downtime, np.shape(outcome))
    out = dict(result)
    out.update(
        outcome=np.where(switch, POSTCOPY, outcome).astype(outcome.dtype),
        converged=result["converged"] | switch,
        total_time=np.where(switch, result["stopped_at"] + fixed + post,
                            result["total_time"]),
        downtime=np.where(switch, fixed, result["downtime"]),
        bytes_sent=np.where(switch, result["sent_by_end"]
                            - result["left_bytes"] + left,
                            result["bytes_sent"]),
        postcopy_time=post, postcopy_bytes=left)
    return out
