"""Compressors of bulk transfers and live migration: what one thread (or
one offload device) compresses per second, by algorithm and level, and
the ratio it reaches on a class of data.

Rates are per thread on the Silesia corpus, measured by lzbench on one
core of a Core i7-9700K at 4.9 GHz, and scale with the core clock
(:func:`thread_rate`). Units: rates in Gbit/s of logical (uncompressed)
data, clocks in GHz.
"""

import numpy as np

from models._checks import require_positive
from models.units import MB

#: Clock of the reference measurements (Core i7-9700K at 4.9 GHz, the
#: machine of the zstd and lz4 READMEs' lzbench tables). [GHz]
REFERENCE_GHZ = 4.9

#: Measured levels, one thread, Silesia, as (MB/s, compression ratio):
#: zstd 1.5.1 -1 530 MB/s at 2.887 and zlib 1.2.11 -1 95 MB/s at 2.743
#: (facebook/zstd README, Benchmarks); LZ4 1.9.0 780 MB/s at 2.101, zlib
#: -6 36 MB/s at 3.099 and LZ4 HC -9 41 MB/s at 2.721 (lz4/lz4 README).
#: Levels not on the reference machine are placed by their published
#: speed relative to level 1 on another machine: zlib -9 8.30/20 of -6 at
#: ratio 100/31.92 (lzbench 1.7.1 README, Core i5-4300U); zstd -6, -12,
#: -17 and -22 at 74.28, 19.94, 4.09 and 1.69 of -1's 360.13 MiB/s, ratios
#: 100/29.04, 100/27.46, 100/25.61, 100/24.76 (Calorado/strider README,
#: zstd 1.5.5, Ryzen 6900HX).
_ANCHORS = {
    "zlib": {1: (95.0, 2.743), 6: (36.0, 3.099),
             9: (36.0 * 8.30 / 20.0, 100 / 31.92)},
    "zstd": {1: (530.0, 2.887),
             6: (530.0 * 74.28 / 360.13, 100 / 29.04),
             12: (530.0 * 19.94 / 360.13, 100 / 27.46),
             17: (530.0 * 4.09 / 360.13, 100 / 25.61),
             22: (530.0 * 1.69 / 360.13, 100 / 24.76)},
}
_SINGLE = {"lz4": (780.0, 2.101), "lz4hc-9": (41.0, 2.721)}

#: QAT (QuickAssist) deflate offload, at zlib level 1's ratio (deflate
#: level 1 is QATzip's default). Each QEMU multifd channel submits its
#: packet and waits for it, so one channel gets at most
#: QAT_CHANNEL_GBPS of logical data; the devices together at most
#: QAT_DEVICE_GBPS each. Fitted once on the QATzip rows of QEMU's
#: qatzip-compression.rst (v5 patch, 2024; 54 GiB of Silesia data, max-
#: bandwidth 10 GB/s): 2 channels in 22.45 s (channel-bound) and 8
#: channels on 4 devices in 10.26 s (device-bound); 4 channels (13.0 s)
#: and the runs under 1 and 1.25 GB/s caps are checks. [Gbit/s]
QAT_CHANNEL_GBPS = 10.4
QAT_DEVICE_GBPS = 11.3

#: IAA (In-Memory Analytics Accelerator, Sapphire Rapids) deflate through
#: QEMU's ``qpl`` multifd compression (QEMU 9.1, migration/multifd-qpl.c;
#: hardware path). Each channel submits its packet's pages and waits, so
#: one channel gets at most IAA_CHANNEL_GBPS of logical data; the devices
#: together at most IAA_DEVICE_GBPS each. Fitted once on the 100G rows of
#: Y. Liu's "[PATCH v8 0/7] Live Migration With IAA" (qemu-devel, 10 June
#: 2024; 4 IAA devices per host, a 64 GiB guest 90 % filled with Silesia
#: data): 2 channels in 7330 ms (channel-bound) and 4 channels in 5219 ms
#: (device-bound: "IAA hardware resources are fully used"); 8 channels
#: (5250 ms) and the runs under a 1 GiB/s cap are checks. [Gbit/s]
IAA_CHANNEL_GBPS = 35.0
IAA_DEVICE_GBPS = 25.0

#: What IAA's deflate compresses Silesia-like memory to: QPL keeps a 4 KiB
#: history (docs/devel/migration/qpl-compression.rst: "QPL only supports
#: 4K history buffer", zlib 32K), so it compresses less than zlib-1. From
#: the same letter's 100G rows: 57.6 GiB of data pages crossed as about
#: 31.9 GB (network bandwidth x total time, 31.7-32.2 GB in the three
#: runs). [logical bytes per compressed byte]
QPL_SILESIA_RATIO = 1.94

#: QEMU's legacy multi-thread compression (the ``compress`` capability,
#: removed in QEMU 9.1) reaches this share of a thread's lzbench rate:
#: the migration thread hands every 4 KiB page to a compression thread,
#: which runs one zlib stream per page (and the 2011 Sandy Bridge core
#: does less per clock). Fitted once on LM-2 and LM-4 (QEMU
#: docs/multi-thread-compression.txt: 8 zlib-1 threads on a Xeon E5-2680,
#: 3.1 GHz all-core turbo, moved 1.65 and 2.19 Gbit/s of logical data; one
#: value, 0.24 Gbit/s per thread, holds both to +-14 %). Multifd
#: compresses whole packets per call and gets the full rate.
QEMU_LEGACY_COMPRESS_EFFICIENCY = 0.499

#: What a data class compresses to with each algorithm: ``silesia`` the
#: ratios above (mixed text, binaries, images, databases), ``random``
#: incompressible data (ratio 1).
DATA_CLASSES = ("silesia", "random")


def _levels():
    table = {name: value for name, value in _SINGLE.items()}
    for family, anchors in _ANCHORS.items():
        levels = sorted(anchors)
        for level in range(levels[0], levels[-1] + 1):
            # geometric interpolation between the measured levels
            rate = np.exp(np.interp(level, levels, [np.log(anchors[k][0])
                                                    for k in levels]))
            ratio = float(np.interp(level, levels,
                                    [anchors[k][1] for k in levels]))
            table[f"{family}-{level}"] = (float(rate), ratio)
    return table


#: Every software compressor by name (``zlib-1`` .. ``zlib-9``, ``zstd-1``
#: .. ``zstd-22``, ``lz4``, ``lz4hc-9``) as (MB/s per thread at
#: :data:`REFERENCE_GHZ`, Silesia ratio).
SOFTWARE = _levels()
#: Compressors that run on an offload device instead of the host's cores.
OFFLOAD = {"qatzip": (QAT_CHANNEL_GBPS, QAT_DEVICE_GBPS,
                      SOFTWARE["zlib-1"][1]),
           "qpl": (IAA_CHANNEL_GBPS, IAA_DEVICE_GBPS, QPL_SILESIA_RATIO)}
ALGORITHMS = tuple(SOFTWARE) + tuple(OFFLOAD)
#: The on-die engine (models.cpu.ACCELERATORS) an offload compressor runs
#: on: QPL drives IAA (QEMU docs/devel/migration/qpl-compression.rst). QAT
#: also comes as a PCIe card or in the chipset, so qatzip needs none.
OFFLOAD_ENGINE = {"qpl": "iaa"}


def offload_thread_rate(threads, devices, channel_gbps, device_gbps):
    """Logical rate each thread gets from an offload compressor.

    Parameters
    ----------
    threads : numeric
        Threads submitting work (QEMU multifd channels).
    devices : numeric
        Offload devices shared by them.
    channel_gbps, device_gbps : numeric
        Ceiling of one submitting thread and of one device. [Gbit/s]

    Returns
    -------
    numpy.ndarray
        Per-thread logical rate. [Gbit/s]

    Notes
    -----
    .. math:: C = \\min(C_{ch},\\; n_{dev} C_{dev} / n_{thr})
    """
    threads = require_positive("threads", threads)
    devices = require_positive("devices", devices)
    return np.minimum(channel_gbps, devices * device_gbps / threads)


def thread_rate(reference_mb_s, ghz, *, reference_ghz=REFERENCE_GHZ,
                efficiency=1.0):
    """Logical rate one compression thread sustains on a given core.

    Parameters
    ----------
    reference_mb_s : numeric
        lzbench rate of one thread at ``reference_ghz``. [MB/s]
    ghz : numeric
        Clock of the compressing core. [GHz]
    reference_ghz : numeric, default 4.9
        Clock of the reference measurement. [GHz]
    efficiency : numeric, default 1
        Share of the library's rate the caller reaches (QEMU's legacy
        per-page compression: :data:`QEMU_LEGACY_COMPRESS_EFFICIENCY`).

    Returns
    -------
    numpy.ndarray
        Logical (uncompressed) rate. [Gbit/s]

    Notes
    -----
    .. math:: C = \\eta \\, C_{ref} \\, f / f_{ref}

    LZ77 compressors are bound by one core's work per input byte, so
    the rate follows the clock. Checked across machines: lzbench on a
    Core i5-4300U (2.9 GHz turbo) gives zlib -6 20 MB/s and LZ4 452 MB/s
    where the clock scaling predicts 21 and 462 (validation cases
    LZBENCH-4300U-*); differences between core generations stay within
    about 15 %.

    References
    ----------
    facebook/zstd and lz4/lz4 READMEs (lzbench, i7-9700K); inikep/lzbench
    README 1.7.1 (i5-4300U).
    """
    reference_mb_s = require_positive("reference_mb_s", reference_mb_s,
                                      "MB/s")
    ghz = require_positive("ghz", ghz, "GHz")
    return efficiency * reference_mb_s * MB * 8 / 1e9 * ghz / reference_ghz


def preset(algorithm, data="silesia"):
    """Rate and ratio of a named compressor on a data class.

    Parameters
    ----------
    algorithm : str
        A name in :data:`ALGORITHMS`.
    data : {'silesia', 'random'}, default 'silesia'

    Returns
    -------
    dict
        ``mb_s`` lzbench rate per thread at :data:`REFERENCE_GHZ` [MB/s]
        (software), or ``channel_gbps`` per submitting thread and
        ``device_gbps`` per offload device [Gbit/s]; ``ratio`` logical
        bytes per compressed byte; ``offload``.
    """
    if data not in DATA_CLASSES:
        raise ValueError(f"data must be one of {DATA_CLASSES}, got "
                         f"{data!r}")
    if algorithm in OFFLOAD:
        channel, device, ratio = OFFLOAD[algorithm]
        out = {"channel_gbps": channel, "device_gbps": device,
               "offload": True}
    elif algorithm in SOFTWARE:
        rate, ratio = SOFTWARE[algorithm]
        out = {"mb_s": rate, "offload": False}
    else:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}, got "
                         f"{algorithm!r}")
    out["ratio"] = ratio if data == "silesia" else 1.0
    return out
