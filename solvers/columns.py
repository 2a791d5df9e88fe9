"""Column fields: the scenario fields a sweep or a search varies without a
document per point, and :class:`TiledInputs`, the model inputs of many
points that share one template document.

A column field's values reach the families of :class:`solvers.inputs.
Inputs` listed for it in :data:`FIELDS`, and nothing else changes with
them: no row of a family, no transfer's path. Its values get there in
one of two ways:

- a *direct* field (:data:`DIRECT`: the MTU, VLAN tags and timestamps, a
  storage workload's outstanding-IO counts) is copied into its columns;
- any other is *rebuilt*: the family's own row builder
  (:mod:`solvers.inputs`) runs on the template with the field set to its
  distinct values, all at once as a numpy array where the builder's
  arithmetic broadcasts, else (a builder that branches on the value
  raises on an array) once per distinct value. The builders stay the one
  place that turns documents into model inputs.

A rebuilt row whose structure differs from the template's (another
owner, another transfer path: a faster NIC that SMB prefers, more
concurrent migrations than the template has rows for) raises
:class:`StructureChanged`, and :func:`solvers.evaluate.evaluate_grid`
groups the points by that field's values instead, as it does for a field
that is no column field. An analysis that reads a column field from the
documents rather than from the families (teaming) runs once per distinct
value (:func:`solvers.evaluate.evaluate_columns`).
"""

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from solvers.grid import grid_documents, replaced
from solvers.inputs import (EvacuationRows, Inputs, MigrationRows,
                            StorageRows, TransferRows, WireColumns,
                            evacuation_rows, migration_rows, storage_columns,
                            transfer_columns, transfer_owners, transfer_path,
                            wire_columns)

#: Direct column fields: path (``[]`` for any index) -> family -> column.
DIRECT = {
    "network.mtu": {"wire": "mtu", "transfers": "mtu", "storage": "mtu"},
    "network.vlan_tags": {"wire": "vlan_tags", "transfers": "vlan_tags",
                          "storage": "vlan_tags"},
    "network.tcp_timestamps": {"wire": "timestamps",
                               "transfers": "timestamps",
                               "storage": "timestamps"},
    "workloads.storage[].vms": {"storage": "vms"},
    "workloads.storage[].disks_per_vm": {"storage": "disks_per_vm"},
    "workloads.storage[].threads_per_disk": {"storage": "threads_per_disk"},
}

_TRANSFER = ("sessions", "streams", "stream_cap_gbps", "stream_cap_pps",
             "compression_ratio", "compressor_gbps", "compression_threads")
#: Fields of a migration its carrier (the transfer it rides when it names
#: none) is built from.
_CARRIER = ("concurrency", "streams", "compression_ratio",
            "compressor_gbps", "compression_threads")
_MIGRATION = ("memory_gib", "count", "zero_page_pct", "dirty.rate_mib_s",
              "dirty.hot_set_gib", "dirty.cold_rate_mib_s",
              "first_round_rate_cap_mib_s", "downtime_budget_ms",
              "max_switchover_s", "fraction_left_pct", "time_budget_s",
              "max_bandwidth_mib_s")
_STORAGE = ("block_kib", "read_pct", "random_pct", "sessions_per_path",
            "backend.iops_max", "backend.mbps_max", "backend.devices",
            "backend.device_iops", "backend.device_mbps",
            "backend.service_time_ms", "backend.channels")
_EVACUATION_VM = ("memory_gib", "zero_page_pct", "dirty.rate_mib_s",
                  "disk_gib", "disk_write_mib_s")

#: Every column field: path (``[]`` for any index) -> the families its
#: values reach (none: only analyses that read documents read it).
FIELDS = {
    **{path: tuple(targets) for path, targets in DIRECT.items()},
    # (migrations and evacuations too: QEMU's RAM path per page runs at
    # the host's clock where the migration rows read it)
    "host.ghz": ("wire", "transfers", "storage", "migrations",
                 "evacuations"),
    "host.sockets": ("transfers", "storage"),
    "host.cores_per_socket": ("transfers", "storage"),
    "nics[].speed_gbps": ("wire", "transfers", "storage", "evacuations"),
    "teams[].lbt_threshold_pct": (),
    **{f"workloads.transfers[].{name}": ("transfers", "migrations")
       for name in _TRANSFER},
    **{f"workloads.migrations[].{name}": ("migrations",)
       for name in _MIGRATION},
    **{f"workloads.migrations[].{name}": ("migrations", "transfers")
       for name in _CARRIER},
    **{f"workloads.storage[].{name}": ("storage",) for name in _STORAGE},
    "workloads.evacuations[].concurrency": ("evacuations", "transfers"),
    "workloads.evacuations[].bandwidth_per_migration_mib_s":
        ("evacuations",),
    "workloads.evacuations[].total_bandwidth_mib_s": ("evacuations",),
    **{f"workloads.evacuations[].vms[].{name}": ("evacuations",)
       for name in _EVACUATION_VM},
}

#: Column fields an analysis that reads documents reads only by comparing
#: data with them: path -> that analysis. Values between the same two
#: compared ones decide alike, so a sweep runs it by classes of values
#: (:func:`solvers.evaluate.evaluate_columns`): the LBT threshold [%]
#: reaches only teaming_dynamic.lbt (:mod:`solvers.teaming_threshold`).
COMPARED = {"teams[].lbt_threshold_pct": "teaming"}

_INDEX = re.compile(r"\[(\d+)\]")


def _generic(path):
    return _INDEX.sub("[]", path)


def column_targets(path):
    """The families a column field's values reach, or None when ``path``
    is no column field (:data:`FIELDS`); an empty tuple for a field only
    analyses that read documents read."""
    return FIELDS.get(_generic(path))


def compared_field(path):
    """:data:`COMPARED`'s entry of ``path``, or None."""
    return COMPARED.get(_generic(path))


class StructureChanged(Exception):
    """Values of column fields change the structure of a template's
    inputs (its rows, a transfer's path): its points are grouped by the
    values of ``paths`` instead."""

    def __init__(self, paths):
        super().__init__(f"the values of {', '.join(paths)} change the "
                         "structure of the inputs")
        self.paths = tuple(paths)


def distinct_combinations(columns, paths):
    """The distinct value combinations of ``paths`` over the points.

    Parameters
    ----------
    columns : dict
        Path -> numpy.ndarray of a value per point.
    paths : list of str

    Returns
    -------
    combo : numpy.ndarray
        Each point's combination.
    values : dict
        Path -> numpy.ndarray of its value in each combination.
    """
    codes, distinct = [], []
    for path in paths:
        unique, code = np.unique(columns[path], return_inverse=True)
        distinct.append(unique)
        codes.append(code.reshape(-1))
    if len(paths) == 1:
        return codes[0], {paths[0]: distinct[0]}
    flat, combo = np.unique(np.ravel_multi_index(
        codes, [u.size for u in distinct]), return_inverse=True)
    which = np.unravel_index(flat, [u.size for u in distinct])
    return combo.reshape(-1), {path: unique[index] for path, unique, index
                               in zip(paths, distinct, which)}


def combination_documents(template, values):
    """``template`` with each combination of ``values`` (path -> array
    over the combinations, validated values) set, one document per
    combination."""
    paths = list(values)
    combos = list(zip(*(values[path].tolist() for path in paths)))
    return grid_documents(template, paths, combos, [
        {repr(v): v for v in values[path].tolist()} for path in paths])


class TiledInputs(Inputs):
    """The inputs of ``count`` points that share one template document
    and differ only in column fields (:data:`FIELDS`): each family is
    built once for the template, repeated per point and its columns set
    from the values (see the module's description).

    Rows are template-row-major: the ``count`` points of the template's
    row 0, then those of its row 1, and so on, so that the points of one
    template row are the slice ``[j * count, (j + 1) * count)`` (what
    ``analyse_columns`` reads) and the template's leading rows (a
    family's own transfers) stay leading.

    Parameters
    ----------
    template : Scenario
        A resolved document (without variants).
    columns : dict
        Path of a column field -> numpy.ndarray, one validated value per
        point.
    count : int
        Points.

    Attributes
    ----------
    template : Inputs
        The template's own inputs (its owners and paths: plain data every
        point shares).
    count : int

    Raises
    ------
    StructureChanged
        (on first use of a family) The values change its rows or paths.
    """

    def __init__(self, template, columns, count):
        # (not Inputs.__init__: two lists of ``count`` items, built in C)
        self.names, self.documents = [""] * count, [template] * count
        self.template = Inputs([("", template)])
        self._columns = columns
        self._combos, self._made = {}, {}
        self.count = count

    def nic_speed(self, nic):
        """Speed of one of the template's NICs at every point [Gbit/s]
        (a number when no axis varies it)."""
        index = self.template.documents[0].nics.index(nic)
        return self._columns.get(f"nics[{index}].speed_gbps",
                                 nic.speed_gbps)

    def _set(self, family, values, point_of_row, template_row):
        """The direct fields' values into ``values`` (column -> array)."""
        for path, column in self._columns.items():
            key = DIRECT.get(_generic(path), {}).get(family)
            if key is None or key not in values:
                continue
            value = column[point_of_row].astype(values[key].dtype,
                                                copy=False)
            index = _INDEX.search(path)
            if index is None:
                values[key] = value
            else:
                values[key] = np.where(template_row == int(index.group(1)),
                                       value, values[key])

    def _combinations(self, paths):
        """:func:`distinct_combinations` of ``paths``, found once for the
        families that share them."""
        key = tuple(paths)
        if key not in self._combos:
            self._combos[key] = distinct_combinations(self._columns, paths)
        return self._combos[key]

    def _documents(self, paths):
        """:func:`combination_documents` of ``paths``' combinations, made
        once for the families that share them."""
        key = tuple(paths)
        if key not in self._made:
            self._made[key] = combination_documents(
                self.template.documents[0], self._combinations(paths)[1])
        return self._made[key]

    def _rebuilt_paths(self, family):
        """The rebuilt fields among the axes whose values reach
        ``family``."""
        return [path for path in self._columns
                if _generic(path) not in DIRECT
                and family in FIELDS[_generic(path)]]

    def _rebuild(self, family, rows_of, columns_of):
        """Rebuild a family's rows for the rebuilt fields' values.

        ``rows_of(document)`` gives the family's rows of a document as
        ``(structure, inputs)`` pairs, ``columns_of(inputs)`` the columns
        of a list of rows' inputs (the family's builder: one array per
        column, a row per input, or an array over the combinations per
        row where the document holds arrays). Returns None without
        rebuilt fields, else the combination of every point and per
        template row the columns over the combinations that differ from
        the template's."""
        paths = self._rebuilt_paths(family)
        if not paths:
            return None
        combo, values = self._combinations(paths)
        count = combo.max() + 1
        template = self.template.documents[0]
        own = rows_of(template)
        expected = [structure for structure, _ in own]
        if count > 1:
            try:
                built = rows_of(replaced(template, values))
                if [structure for structure, _ in built] != expected:
                    raise StructureChanged(paths)
                # one row at a time: a column is an array in some rows
                return combo, [
                    {key: np.broadcast_to(column[0], (count,))
                     for key, column in columns_of([row]).items()
                     if np.ndim(column) > 1}
                    for _, row in built]
            except (TypeError, ValueError):
                pass   # a builder branches on a value: one at a time
        each = [rows_of(document) for document in self._documents(paths)]
        if any([structure for structure, _ in rows] != expected
               for rows in each):
            raise StructureChanged(paths)
        # every combination's rows in one call of the builder
        rows = len(own)
        built = columns_of([row for done in each for _, row in done])
        mine = columns_of([row for _, row in own])
        # only the columns that differ from the template's somewhere
        return combo, [
            {key: by_combo for key, column in built.items()
             if not _equal(by_combo := column.reshape(
                 count, rows, *column.shape[1:])[:, j], mine[key][j])}
            for j in range(rows)]

    def _place(self, rebuilt, columns, rows):
        """Rebuilt columns (:meth:`_rebuild`) into the tiled ``columns``
        of ``rows`` template rows."""
        combo, per_row = rebuilt
        count = self.count
        for j in range(rows):
            for key, by_combo in per_row[j].items():
                if key in columns:
                    columns[key][j * count:(j + 1) * count] = \
                        by_combo[combo]

    def _rows(self, per_point):
        """Template row and point of each tiled row."""
        return (np.repeat(np.arange(per_point), self.count),
                np.tile(np.arange(self.count), per_point))

    @functools.cached_property
    def wire(self):
        one = self.template.wire
        values = {field.name: np.repeat(getattr(one, field.name),
                                        self.count)
                  for field in fields(one)
                  if field.name != "limits"}
        rebuilt = self._rebuild("wire", _wire_rows, _wire_columns)
        if rebuilt is not None:
            self._place(rebuilt, values, 1)
        self._set("wire", values, np.arange(self.count),
                  np.zeros(self.count, dtype=int))
        return WireColumns(limits=one.limits, **values)

    @functools.cached_property
    def transfers(self):
        one = self.template.transfers
        if not one.owners:
            return one
        row, point = self._rows(len(one.owners))
        columns = {k: v[row] for k, v in one.columns.items()}
        columns["vrss_fallback"] = one.vrss_fallback[row]
        rebuilt = self._rebuild("transfers", _transfer_rows,
                                transfer_columns)
        if rebuilt is not None:
            self._place(rebuilt, columns, len(one.owners))
        self._set("transfers", columns, point, row)
        return _TiledTransferRows(
            _Tiled(one.owners, self.count, owned=True),
            _Tiled(one.paths, self.count), columns,
            columns.pop("vrss_fallback"), own=one.transfers * self.count)

    @functools.cached_property
    def storage(self):
        one = self.template.storage
        if not one.owners:
            return one
        row, point = self._rows(len(one.owners))
        columns = {k: v[row] for k, v in one.columns.items()}
        rebuilt = self._rebuild("storage", _storage_rows, storage_columns)
        if rebuilt is not None:
            self._place(rebuilt, columns, len(one.owners))
        self._set("storage", columns, point, row)
        return StorageRows(_Tiled(one.owners, self.count, owned=True),
                           columns)

    @functools.cached_property
    def evacuations(self):
        one = self.template.evacuations
        if not one.owners:
            return one
        count = self.count
        paths = self._rebuilt_paths("evacuations")
        if not paths:
            # each evacuation's VM columns are read, never written: shared
            return EvacuationRows(
                [(point, item) for _, item in one.owners
                 for point in range(count)],
                [c for c in one.columns for _ in range(count)],
                [x for x in one.limits for _ in range(count)],
                [x for x in one.per_migration_cap for _ in range(count)],
                [x for x in one.aggregate_cap for _ in range(count)])
        # evacuations are planned point by point anyway: their rows are
        # built once per combination of values, items and all
        combo, _ = self._combinations(paths)
        built = [evacuation_rows([document])
                 for document in self._documents(paths)]
        if any([item.name for _, item in rows.owners]
               != [item.name for _, item in one.owners] for rows in built):
            raise StructureChanged(paths)
        at = [built[c] for c in combo.tolist()]
        evacuations = range(len(one.owners))
        return EvacuationRows(
            [(point, rows.owners[e][1]) for e in evacuations
             for point, rows in enumerate(at)],
            [rows.columns[e] for e in evacuations for rows in at],
            [rows.limits[e] for e in evacuations for rows in at],
            [rows.per_migration_cap[e] for e in evacuations for rows in at],
            [rows.aggregate_cap[e] for e in evacuations for rows in at])

    @functools.cached_property
    def migrations(self):
        one = self.template.migrations
        if not one.owners:
            return one
        row, _ = self._rows(len(one.owners))
        columns = {k: v[row] for k, v in one.columns.items()}
        columns["concurrency"] = one.concurrency[row]
        columns["count"] = np.array([item.count for _, item in one.owners])[
            row]
        rebuilt = self._rebuild("migrations", _migration_rows,
                                _migration_columns)
        if rebuilt is not None:
            self._place(rebuilt, columns, len(one.owners))
        return _TiledMigrationRows(
            _Tiled(one.owners, self.count, owned=True), columns,
            columns.pop("concurrency"), count=columns.pop("count"))


def _equal(values, value):
    """Every one of ``values`` is ``value`` (NaN equal to NaN)."""
    return bool(np.all((values == value) | (
        (values != values) & (value != value))))


def _wire_rows(document):
    return [((document.network.mtu_min, document.network.mtu_max),
             document)]


def _wire_columns(documents):
    one = wire_columns(documents)
    return {field.name: getattr(one, field.name) for field in fields(one)
            if field.name != "limits"}


def _path_structure(path):
    """What a column field must not change of a transfer's path (its
    flows are a column)."""
    return (tuple(nic.id for nic in path.nics), path.transport, path.spread,
            path.team_mode, path.switch_hash, path.pinned)


def _transfer_rows(document):
    rows = []
    for _, item, carried in transfer_owners([document]):
        path = transfer_path(document, item)
        rows.append(((carried, _path_structure(path)),
                     (document, item, path)))
    return rows


def _storage_rows(document):
    return [(item.name, (document, item))
            for item in document.workloads.storage]


def _migration_rows(document):
    # (the owners of migration_rows: the document's migrations in order)
    return [(item.name, (document, j))
            for j, item in enumerate(document.workloads.migrations)]


def _migration_columns(rows):
    """The migrations' columns of ``(document, index)`` rows, with each
    one's ``concurrency`` and ``count``."""
    built = {}
    for document, _ in rows:
        if id(document) not in built:
            one = migration_rows([document])
            built[id(document)] = (one, [item.count
                                         for _, item in one.owners])
    columns = {}
    for document, j in rows:
        one, counts = built[id(document)]
        row = {key: column[j] for key, column in one.columns.items()}
        row.update(concurrency=one.concurrency[j], count=counts[j])
        for key, value in row.items():
            columns.setdefault(key, []).append(value)
    return {key: np.array(values) for key, values in columns.items()}


class _Tiled(Sequence):
    """The rows of a template repeated per point, template-row-major,
    made on access (a sweep's chunk reads few of them): row ``j * count
    + p`` is the template's row ``j``, with point ``p`` as its document
    index when ``owned`` (an owner tuple, document index first)."""

    def __init__(self, rows, count, *, owned=False):
        self._rows, self._count, self._owned = rows, count, owned

    def __len__(self):
        return len(self._rows) * self._count

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        row, point = divmod(index, self._count)
        if self._owned:
            return (point, *self._rows[row][1:])
        return self._rows[row]

    def __iter__(self):
        for row in self._rows:
            for point in range(self._count):
                yield (point, *row[1:]) if self._owned else row


@dataclass(frozen=True)
class _TiledTransferRows(TransferRows):
    """:class:`TransferRows` of a tile, with its count of own transfers
    known (not counted over every row)."""

    own: int = 0

    @property
    def transfers(self):
        return self.own


@dataclass(frozen=True)
class _TiledMigrationRows(MigrationRows):
    """:class:`MigrationRows` of a tile, with each row's ``count`` of
    migrations (a column field): ``analyse_columns`` reads it."""

    count: np.ndarray = None
