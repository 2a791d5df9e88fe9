"""The inputs layer: resolved scenario documents -> typed model inputs.

Every analysis reads its inputs from one :class:`Inputs`, built once per
evaluation: each family (wire, transfers, storage, migrations,
evacuations, teams) is gathered into numpy columns the first time an
analysis asks for it, with every unit conversion (:mod:`models.units`) and
preset lookup (CPU cost presets, stop rules, stream caps) done here and
nowhere else. Sweeps and searches reuse the same builders.

One module per family: :mod:`~solvers.inputs.wire`,
:mod:`~solvers.inputs.paths` (where a transfer runs),
:mod:`~solvers.inputs.carriers` (a migration's own transfer, named
compressors), :mod:`~solvers.inputs.transfers`,
:mod:`~solvers.inputs.storage`, :mod:`~solvers.inputs.migrations`,
:mod:`~solvers.inputs.evacuations` and :mod:`~solvers.inputs.teams`, over
:mod:`~solvers.inputs.common` (host preset and clock, network fields, NIC
speeds). Every name importers use is re-exported here.
"""

import functools

from solvers.inputs.carriers import (QEMU_MULTIFD_CHANNELS, compression_note,
                                     migration_carrier, migration_streams,
                                     resolve_compression)
from solvers.inputs.common import (encapsulation_bytes, given, mtu_limits,
                                   stack_costs, stack_ghz, stack_preset,
                                   total_cores)
from solvers.inputs.evacuations import (UNLIMITED_SWEEP, EvacuationRows,
                                        evacuation_rows,
                                        evacuation_transfers,
                                        evacuation_vm_migration,
                                        sessions_to_rate)
from solvers.inputs.migrations import (MigrationRows, migration_row,
                                       migration_rows, qemu_page_path,
                                       rdma_registration)
from solvers.inputs.paths import (PINNED_PER_VNIC, RDMA_TRANSPORTS,
                                  VNIC_STACKS, TransferPath,
                                  application_streams, auto_streams,
                                  rdma_slot_cap, stream_cap, transfer_path)
from solvers.inputs.storage import (StorageRows, device_servers,
                                    sessions_per_path, storage_columns,
                                    storage_rdma, storage_row, storage_rows)
from solvers.inputs.teams import FlowColumns, team_flows
from solvers.inputs.transfers import (TransferRows, transfer_columns,
                                      transfer_owners, transfer_rows)
from solvers.inputs.wire import WireColumns, wire_columns

__all__ = [
    "Inputs",
    # common
    "encapsulation_bytes", "given", "mtu_limits", "stack_costs",
    "stack_ghz", "stack_preset", "total_cores",
    # wire
    "WireColumns", "wire_columns",
    # paths
    "PINNED_PER_VNIC", "RDMA_TRANSPORTS", "VNIC_STACKS", "TransferPath",
    "application_streams", "auto_streams", "rdma_slot_cap", "stream_cap",
    "transfer_path",
    # carriers
    "QEMU_MULTIFD_CHANNELS", "compression_note", "migration_carrier",
    "migration_streams", "resolve_compression",
    # transfers
    "TransferRows", "transfer_columns", "transfer_owners", "transfer_rows",
    # storage
    "StorageRows", "device_servers", "sessions_per_path", "storage_columns",
    "storage_rdma", "storage_row", "storage_rows",
    # migrations
    "MigrationRows", "migration_row", "migration_rows", "qemu_page_path",
    "rdma_registration",
    # evacuations
    "UNLIMITED_SWEEP", "EvacuationRows", "evacuation_rows",
    "evacuation_transfers", "evacuation_vm_migration", "sessions_to_rate",
    # teams
    "FlowColumns", "team_flows",
]


class Inputs:
    """The model inputs of a set of resolved documents, each family built
    once, on first use.

    Parameters
    ----------
    documents : list of (str, Scenario)
        Resolved variants (or sweep points), base first.
    cache : solvers.analysis_cache.AnalysisCache, optional
    """

    #: Where steps of the analyses are kept between evaluations (an
    #: editing session's :class:`solvers.analysis_cache.AnalysisCache`),
    #: or None.
    cache = None

    def __init__(self, documents, cache=None):
        self.names = [name for name, _ in documents]
        self.documents = [doc for _, doc in documents]
        self.cache = cache

    def reuse(self, name, arrays, compute):
        """``compute()``, a function of the numpy ``arrays`` alone: kept
        by :attr:`cache` for equal arrays, computed when there is none."""
        if self.cache is None:
            return compute()
        return self.cache.reuse(name, arrays, compute)

    @functools.cached_property
    def wire(self):
        """:class:`WireColumns` of every document."""
        return wire_columns(self.documents)

    @functools.cached_property
    def transfers(self):
        """:class:`TransferRows` of every document."""
        return transfer_rows(self.documents)

    @functools.cached_property
    def storage(self):
        """:class:`StorageRows` of every document."""
        return storage_rows(self.documents)

    @functools.cached_property
    def migrations(self):
        """:class:`MigrationRows` of every document."""
        return migration_rows(self.documents)

    @functools.cached_property
    def evacuations(self):
        """:class:`EvacuationRows` of every document."""
        return evacuation_rows(self.documents)
