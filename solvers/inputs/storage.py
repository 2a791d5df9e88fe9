"""Storage inputs: every storage workload as the storage chain's columns
(:class:`StorageRows`).
"""

from dataclasses import dataclass

import numpy as np

from models import storage, transport
from models.units import KIB, gbps_to_bytes_per_s
from solvers.inputs.common import (_encapsulation_column, given,
                                   network_row, stack_costs, stack_ghz,
                                   total_cores, total_speed)


@dataclass(frozen=True)
class StorageRows:
    """Every storage workload, as columns (see :func:`storage_columns`).

    Attributes
    ----------
    owners : list of (int, StorageWorkload)
    columns : dict of numpy.ndarray
    """

    owners: list
    columns: dict

def storage_rows(documents):
    owners = [(d, item) for d, doc in enumerate(documents)
              for item in doc.workloads.storage]
    columns = storage_columns([(documents[d], item) for d, item in owners]) \
        if owners else {}
    return StorageRows(owners, columns)


def storage_row(doc, item):
    """Model inputs of one storage workload (see
    :func:`models.storage.storage_chain`); without ``nics`` it uses the
    first NIC."""
    used = [n for n in doc.nics if n.id in item.nics] or [doc.nics[0]]
    backend = item.backend
    service = backend.service_time_ms / 1e3 \
        if backend.service_time_ms is not None \
        else (1.0 / backend.device_iops if backend.devices is not None
              else storage.DEFAULT_SERVICE_S)
    preset = stack_costs(doc)
    rdma = storage_rdma(item, used)
    cores = total_cores(doc)
    return {
        "protocol": item.protocol, "block": item.block_kib * KIB,
        "read": item.read_pct / 100, "random": item.random_pct / 100,
        "vms": item.vms, "disks_per_vm": item.disks_per_vm,
        "threads_per_disk": item.threads_per_disk,
        "link_bytes": gbps_to_bytes_per_s(total_speed(used)),
        "serving_cores": cores if item.protocol == "local" else min(
            len(used) * sessions_per_path(item, used, rdma, cores), cores),
        "device_servers": device_servers(backend, service - (
            float(storage.host_wakeup_share(service, storage.HOST_WAKEUP_S))
            if item.protocol == "local" else 0.0)),
        # random reads wait for the die that holds their page
        "placed": (item.read_pct / 100) * (item.random_pct / 100)
        if backend.kind == "nvme" else 0.0,
        **network_row(doc.network),
        "iops_max": given(backend.iops_max, np.inf),
        "mbps_max": given(backend.mbps_max, np.inf),
        "devices": given(backend.devices, 0),
        "device_iops": backend.device_iops,
        "device_mbps": backend.device_mbps,
        "penalty": storage.WRITE_PENALTY[backend.raid],
        "service_s": service, "encrypted": item.smb_encryption,
        "rdma": rdma,
        "c_io": preset.c_io * storage.PROTOCOL_CPU_FACTOR[item.protocol],
        "c_byte": preset.c_byte_rx, "c_pkt": preset.c_pkt,
        "c_wire": preset.c_wire,
        "hz": stack_ghz(doc) * 1e9,
        "cores": cores,
    }


def storage_rdma(item, nics):
    """Whether a storage workload runs over RDMA: its ``transport``, else
    the protocol's default (SMB3 and the S2D storage bus use SMB Direct
    when every NIC is RDMA-capable)."""
    if item.transport is not None:
        return item.transport == "rdma"
    return item.protocol in ("smb3", "s2d") \
        and all(n.rdma != "none" for n in nics)


def device_servers(backend, service_s):
    """IOs the back end serves at once (see ``device_servers`` of
    :func:`models.storage.storage_chain`): 0 for an array, the NVMe
    device's channels (else what Little's law needs to reach its rating,
    iops_max x service time), inf for a cloud volume."""
    if backend.kind == "array":
        return 0.0
    if backend.kind == "cloud_volume":
        return np.inf
    if backend.channels is not None:
        return float(backend.channels)
    return storage.device_servers(backend.iops_max, service_s)


def sessions_per_path(item, nics, rdma, cores):
    """Connections a storage workload opens per path: its own, else the
    protocol's default (SMB Multichannel: 4 per RSS NIC, 2 per RDMA NIC,
    models.transport.SMB_CONNECTIONS; NVMe-oF one IO queue per core,
    models.storage.EVERY_CORE_PROTOCOLS; one iSCSI session or NFS
    connection per path)."""
    if item.sessions_per_path is not None:
        return item.sessions_per_path
    if item.protocol in storage.EVERY_CORE_PROTOCOLS:
        return cores
    if item.protocol not in ("smb3", "s2d"):
        return 1
    kind = "rdma" if rdma else "rss" if all(n.rss_queues > 1 for n in nics) \
        else "plain"
    return int(transport.smb_connections(1, kind))


def storage_columns(pairs):
    rows = [storage_row(doc, item) for doc, item in pairs]
    columns = {key: np.array([r[key] for r in rows]) for key in rows[0]}
    _encapsulation_column(columns)
    return columns
