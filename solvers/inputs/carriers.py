"""The transfer a migration rides when it names none, and named
compressors turned into the rates and ratios the transport chain reads.
"""

from models import compression
from models.scenario import Transfer


#: QEMU's default number of multifd channels (migration parameter
#: ``multifd-channels``, default 2: QEMU qapi/migration.json).
QEMU_MULTIFD_CHANNELS = 2


def migration_streams(item):
    """Streams of a migration that builds its own carrier: its own; by
    default QEMU multifd's channel count, else None (the carrier's
    platform default, :func:`application_streams`)."""
    if item.streams is not None:
        return item.streams
    return QEMU_MULTIFD_CHANNELS if item.multifd else None


def migration_carrier(item, ghz=None):
    """The transfer a migration without a named one rides: its own
    transport fields over all NICs (one session per concurrent migration,
    spread over the NICs like multi-NIC vMotion). With QEMU multifd every
    channel (stream) has its own compression thread; ``ghz`` resolves a
    named compressor (:func:`resolve_compression`)."""
    streams = migration_streams(item)
    carrier = Transfer(
        name=f"{item.name}-network", purpose="live_migration",
        transport=item.transport, sessions=item.concurrency,
        streams=streams, multipath=True,
        compression_ratio=item.compression_ratio,
        compressor_gbps=item.compressor_gbps,
        compression_threads=streams if item.multifd
        else item.compression_threads,
        compressor=item.compressor, compression_data=item.compression_data,
        qat_devices=item.qat_devices,
        data_path="qemu_multifd" if item.multifd and item.stop_rule == "qemu"
        else "socket")
    legacy = item.stop_rule == "qemu" and not item.multifd
    return resolve_compression(
        carrier, ghz, efficiency=compression.QEMU_LEGACY_COMPRESS_EFFICIENCY
        if legacy else 1.0)


def resolve_compression(item, ghz, *, efficiency=1.0):
    """``item`` (a Transfer) with its named compressor turned into the
    numbers the transport chain reads: ``compressor_gbps`` per thread at
    ``ghz`` [GHz] (:func:`models.compression.thread_rate`; for an offload
    such as QAT what each thread gets from ``qat_devices``,
    :func:`models.compression.offload_thread_rate`) and
    ``compression_ratio`` from ``compression_data``. Unchanged without a
    compressor; ``ghz`` None resolves the ratio only."""
    if item.compressor is None:
        return item
    named = compression.preset(
        item.compressor, "silesia" if item.compression_data == "ratio"
        else item.compression_data)
    update = {}
    if item.compression_data != "ratio":
        update["compression_ratio"] = named["ratio"]
    if named["offload"]:
        update["compressor_gbps"] = float(compression.offload_thread_rate(
            item.compression_threads, item.qat_devices,
            named["channel_gbps"], named["device_gbps"]))
    elif ghz is not None:
        update["compressor_gbps"] = float(compression.thread_rate(
            named["mb_s"], ghz, efficiency=efficiency))
    return item.model_copy(update=update)


def compression_note(doc, item):
    """Assumption line of a transfer with a named compressor."""
    if item.compressor in compression.OFFLOAD:
        return (f"Compression offloaded to {item.qat_devices} "
                f"{item.compressor} device(s): {item.compression_threads} "
                f"thread(s) at {item.compressor_gbps:.3g} Gbit/s each "
                "(models.compression.OFFLOAD: a cap per thread and one "
                "per device), no host cores; ratio "
                f"{item.compression_ratio:.3g}")
    return (f"Compressor {item.compressor}: {item.compressor_gbps:.3g} "
            f"Gbit/s per thread at {doc.host.ghz:g} GHz (lzbench rate at "
            f"{compression.REFERENCE_GHZ:g} GHz scaled by clock), "
            f"{item.compression_threads} thread(s), ratio "
            f"{item.compression_ratio:.3g} ({item.compression_data})")
