"""Migration inputs: every live migration as the pre-copy model's
columns (:class:`MigrationRows`).
"""

import functools
import math
from dataclasses import dataclass

import numpy as np

from models import migration, migration_costs, qemu_ram
from models.units import GIB, MIB
from solvers.inputs.carriers import (migration_carrier, migration_streams,
                                     resolve_compression)
from solvers.inputs.common import given, stack_costs, stack_ghz


@dataclass(frozen=True)
class MigrationRows:
    """Every migration, as columns of the pre-copy model's inputs.

    Attributes
    ----------
    owners : list of (int, Migration)
    columns : dict of numpy.ndarray
        Memory [B], dirty rates [B/s], hot set [B], limits [s], codes;
        see :func:`migration_row`.
    concurrency : numpy.ndarray
        Migrations sharing the carrier's rate.
    """

    owners: list
    columns: dict
    concurrency: np.ndarray


def migration_row(item, carrier=None, ghz=None, c_byte_tx=0.0):
    """The pre-copy model's inputs of one migration, in SI units;
    ``carrier`` is the transfer it rides (default: its own); ``ghz`` the
    host's reference-generation clock [GHz] (:func:`stack_ghz`) and
    ``c_byte_tx`` its preset's send copy [1/B], which time QEMU's RAM path
    per page (none when ``ghz`` is None)."""
    rule = migration.STOP_RULES[item.stop_rule]
    dirty = item.dirty
    hot = dirty.kind == "hot_cold"
    budget = rule.downtime_limit if item.downtime_budget_ms is None \
        else item.downtime_budget_ms / 1e3
    throttle = item.throttling or rule.throttle
    qemu = migration.qemu_settings(
        item.qemu_version, item.management, throttle=throttle) \
        if rule.sync == "qemu" else None
    if qemu and item.max_bandwidth_mib_s is not None:
        # an explicit max-bandwidth wins (as in qemu_settings), set here
        # so that a column sweep's array of them passes
        qemu["max_bandwidth"] = item.max_bandwidth_mib_s * MIB
    return {
        "memory": item.memory_gib * GIB,
        "cold_rate": (dirty.cold_rate_mib_s if hot else dirty.rate_mib_s)
        * MIB,
        "hot_set": dirty.hot_set_gib * GIB if hot else 0.0,
        "hot_rate": dirty.rate_mib_s * MIB if hot else 0.0,
        "first_cap": given(item.first_round_rate_cap_mib_s, math.inf) * MIB,
        # zero pages cross as data where QEMU does not look for them
        "zero_fraction": 0.0 if rule.sync == "qemu" and ghz is not None
        and qemu_ram.zero_page_detection(
            item.zero_page_detection, item.qemu_version,
            item.multifd) == "none" else item.zero_page_pct / 100,
        "downtime_limit": budget,
        "min_pages": rule.min_pages,
        "fraction_left": item.fraction_left_pct / 100
        if item.stop_rule == "fraction_left" else 0.0,
        "max_rounds": rule.max_rounds,
        "max_factor": rule.max_factor,
        "max_switchover": given(item.max_switchover_s, rule.max_switchover),
        "time_budget": given(item.time_budget_s, math.inf),
        "throttle": migration.THROTTLES.index(throttle),
        "fixed_downtime": rule.fixed_downtime,
        "sync": migration.SYNC_RULES.index(rule.sync),
        # QEMU's rate limit counts the bytes it writes: compressed ones
        "max_bandwidth": qemu["max_bandwidth"] * _wire_ratio(
            carrier or migration_carrier(item)) if qemu else math.inf,
        "sync_timer": qemu["sync_timer_s"] if qemu else math.inf,
        "test_sent_pass": rule.test_sent_pass,
        "final_live_pass": rule.final_live_pass,
        "switchover": migration.SWITCHOVER_MODES.index(item.switchover),
        **rdma_registration(item),
        **qemu_page_path(item, ghz if rule.sync == "qemu" else None,
                         c_byte_tx),
        # QEMU's switch-over threshold counts written (compressed) bytes
        "wire_share": 1.0 / _wire_ratio(carrier or migration_carrier(item))
        if qemu else 1.0,
    }


def qemu_page_path(item, ghz, c_byte_tx=0.0):
    """QEMU's RAM path per page (:mod:`models.qemu_ram`): ``page_s`` [s]
    the migration thread's time per page, ``zero_page_s`` [s] a zero
    page's on its slowest thread and ``pending_in_pages`` QEMU's
    switch-over test on page bytes. Without multifd the migration thread
    also writes each data page to its socket (``c_byte_tx`` [1/B], the
    host preset's). All off for other hypervisors (``ghz`` None)."""
    if ghz is None:
        return {"page_s": 0.0, "zero_page_s": 0.0,
                "pending_in_pages": False}
    page_s, zero_s = _qemu_page_times(
        ghz, qemu_ram.zero_page_detection(
            item.zero_page_detection, item.qemu_version, item.multifd),
        migration_streams(item) if item.multifd else 1,
        0.0 if item.multifd else c_byte_tx * migration.PAGE_BYTES)
    return {"page_s": page_s, "zero_page_s": zero_s,
            "pending_in_pages": True}


@functools.lru_cache(maxsize=1024)
def _qemu_page_times(ghz, detection, channels, copy_cycles):
    """:func:`models.qemu_ram.page_times` as floats, kept: an evacuation's
    VMs ask for the same few settings."""
    page_s, zero_s = qemu_ram.page_times(ghz, detection, channels,
                                         copy_cycles=copy_cycles)
    return float(page_s), float(zero_s)


def rdma_registration(item):
    """Registration cost of QEMU's RDMA transport (zero for others):
    ``setup_s`` [s] to pin all guest memory before round 0
    (``rdma-pin-all``), or ``register_s_per_byte`` [s/B] added to round 0
    for registering each 1 MiB chunk the first time it is sent."""
    if item.transport != "rdma":
        return {"setup_s": 0.0, "register_s_per_byte": 0.0}
    setup_s, per_byte = migration_costs.rdma_registration(
        item.memory_gib * GIB, item.rdma_pin_all)
    return {"setup_s": setup_s, "register_s_per_byte": per_byte}


def _wire_ratio(transfer):
    return transfer.compression_ratio \
        if transfer.transport == "compression" else 1.0


def migration_rows(documents):
    owners = [(d, item) for d, doc in enumerate(documents)
              for item in doc.workloads.migrations]
    if not owners:
        return MigrationRows([], {}, np.zeros(0))
    rows = [migration_row(item, next(
        (resolve_compression(t, None)
         for t in documents[d].workloads.transfers
         if t.name == item.transfer), None), stack_ghz(documents[d]),
        stack_costs(documents[d]).c_byte_tx)
        for d, item in owners]
    return MigrationRows(
        owners, {k: np.array([r[k] for r in rows]) for k in rows[0]},
        np.array([item.concurrency for _, item in owners]))
