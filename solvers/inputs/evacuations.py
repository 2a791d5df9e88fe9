"""Evacuation inputs: each evacuation's transfer, the concurrencies it is
evaluated at and its VMs as pre-copy columns (:class:`EvacuationRows`).
"""

import math
from dataclasses import dataclass

import numpy as np

from models import evacuation
from models.scenario import Migration
from models.units import GIB, MIB, gbps_to_bytes_per_s
from solvers.inputs.common import (fastest_speed, stack_costs, stack_ghz,
                                   total_speed)
from solvers.inputs.migrations import migration_row
from solvers.inputs.paths import transfer_path


#: Largest concurrency an 'auto' evacuation tries on a platform without a
#: limit of its own.
UNLIMITED_SWEEP = 16


def evacuation_transfers(doc):
    """Each evacuation of ``doc`` with its transfer and the platform's
    concurrency limit on that transfer's link (inf: none)."""
    transfers = {t.name: t for t in doc.workloads.transfers}
    for item in doc.workloads.evacuations:
        transfer = transfers[item.transfer]
        link = fastest_speed(transfer_path(doc, transfer).nics)
        yield item, transfer, float(evacuation.concurrency_limit(
            item.platform, link, host_limit=item.platform_limit,
            cluster_limit=item.cluster_limit,
            disks_copied=item.disks == "copied"))


def sessions_to_rate(item, limit):
    """Concurrencies an evacuation is evaluated at: 1 to the most it may
    run (its own setting, or the platform limit for 'auto'), at most one
    per VM."""
    top = UNLIMITED_SWEEP if math.isinf(limit) else int(limit)
    if item.concurrency != "auto":
        top = max(top, item.concurrency)
    return min(top, len(item.vms))


@dataclass(frozen=True)
class EvacuationRows:
    """Every evacuation, its VMs as pre-copy model columns.

    Attributes
    ----------
    owners : list of (int, Evacuation)
    columns : list of dict of numpy.ndarray
        Per evacuation, :func:`migration_row` columns over its VMs, with
        ``disk`` [B] and ``disk_write`` [B/s] of the disks each copies
        (zero on shared storage) and ``disk_cap``, the storage's rate for
        one copy [B/s] (inf: none given).
    limits : list of float
        The platform's concurrency limit on each evacuation's link.
    per_migration_cap : list of float
        Ceiling of one migration's rate (setting, else platform). [B/s]
    aggregate_cap : list of float
        Ceiling of all migrations together (inf: none). [B/s]
    """

    owners: list
    columns: list
    limits: list
    per_migration_cap: list
    aggregate_cap: list


def evacuation_vm_migration(item, vm):
    """The migration one evacuated VM is: the fields the pre-copy model
    reads, as a :class:`Migration` of the evacuation's settings."""
    preset = evacuation.PLATFORMS[item.platform]
    # the platform's per-migration bandwidth is the management layer's
    # max-bandwidth setting (evacuation_rows' caps), not QEMU's default
    return Migration(name=vm.name, memory_gib=vm.memory_gib,
                     zero_page_pct=vm.zero_page_pct, dirty=vm.dirty,
                     transfer=item.transfer, management="unlimited",
                     stop_rule=item.stop_rule or preset.stop_rule,
                     downtime_budget_ms=vm.downtime_budget_ms
                     if vm.downtime_budget_ms is not None
                     else item.downtime_budget_ms,
                     throttling=item.throttling,
                     time_budget_s=item.time_budget_s)


def evacuation_rows(documents):
    owners, columns, limits, caps, totals = [], [], [], [], []
    for d, doc in enumerate(documents):
        for item, _, limit in evacuation_transfers(doc):
            rows = [migration_row(evacuation_vm_migration(item, vm),
                                  ghz=stack_ghz(doc),
                                  c_byte_tx=stack_costs(doc).c_byte_tx)
                    for vm in item.vms]
            copied = item.disks == "copied"
            owners.append((d, item))
            columns.append({
                **{k: np.array([r[k] for r in rows]) for k in rows[0]},
                # the disk copy ahead of the memory (solvers.schedule)
                "disk": np.array([vm.disk_gib * GIB if copied else 0.0
                                  for vm in item.vms]),
                "disk_write": np.array([vm.disk_write_mib_s * MIB
                                        if copied else 0.0
                                        for vm in item.vms]),
                "disk_cap": np.full(len(item.vms), math.inf
                                    if item.disk_copy_mib_s is None
                                    else item.disk_copy_mib_s * MIB)})
            limits.append(limit)
            caps.append(item.bandwidth_per_migration_mib_s * MIB
                        if item.bandwidth_per_migration_mib_s is not None
                        else evacuation.PLATFORMS[
                            item.platform].bandwidth_per_migration)
            totals.append(item.total_bandwidth_mib_s * MIB
                          if item.total_bandwidth_mib_s is not None
                          else _smb_reserve_cap(doc, item))
    return EvacuationRows(owners, columns, limits, caps, totals)


def _smb_reserve_cap(doc, item):
    """What live migration over SMB may take together where the platform
    reserves part of the SMB interfaces' line rate for the cluster [B/s]
    (inf: no reservation, or not over SMB)."""
    share = evacuation.PLATFORMS[item.platform].smb_share
    transfer = next(t for t in doc.workloads.transfers
                    if t.name == item.transfer)
    path = transfer_path(doc, transfer)
    if share >= 1 or path.transport not in ("smb", "smb_direct"):
        return math.inf
    return gbps_to_bytes_per_s(share * total_speed(path.nics))
