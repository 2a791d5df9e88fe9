"""QEMU's RAM migration data path, page by page: the migration thread that
walks the dirty bitmap, the multifd channels that carry the pages, and
where each page is tested for zeros.

QEMU sends guest RAM one target page (4 KiB) at a time. The migration
thread (``migration/ram.c``: ``ram_find_and_save_block``,
``ram_save_target_page_multifd``) finds the next dirty page and either
writes it to the main channel itself or queues it for multifd
(``multifd_queue_page`` in ``migration/multifd-nocomp.c``), which hands
packets of ``MULTIFD_PACKET_SIZE`` (512 KiB, 128 pages) to the next idle
channel. Each multifd channel is a thread and one TCP connection
(``multifd_send_thread``/``multifd_recv_thread``, ``migration/multifd.c``):
on the destination its thread reads the pages straight into guest memory,
while the kernel's receive processing of the connection runs on the core
of the NIC queue its hash lands on. Zero pages are found by reading the
page (``buffer_is_zero``): on the migration thread (``legacy``,
``save_zero_page``), in the channel threads (``multifd``,
``multifd_send_zero_page_detect`` in ``migration/multifd-zero-page.c``,
QEMU's default from 9.0) or not at all (``none``: the page is sent
whole). A zero page sends a header only, but it still costs the thread
that tests it the read of 4 KiB and the migration thread its bookkeeping.

Cycle counts are at the reference generation's clock
(:func:`models.cpu.stack_ghz`), as the host presets'.
"""

import numpy as np

from models._checks import require_positive
from models.host import core_ceiling

#: How a transfer's receiving application takes the data (see the
#: ``data_path`` field of a transfer).
DATA_PATHS = ("socket", "qemu_multifd")

#: ``zero-page-detection`` values (``qapi/migration.json``
#: ``ZeroPageDetection``) and ``auto``, QEMU's default for the release.
ZERO_PAGE_DETECTIONS = ("auto", "none", "legacy", "multifd")

#: First release whose default is ``multifd`` (commit 70c25c92,
#: "migration/multifd: Enable multifd zero page checking by default",
#: QEMU 9.0); before it zero pages were found on the migration thread.
MULTIFD_DETECTION_SINCE = (9, 0)

#: Cycles the migration thread spends per page besides the data itself:
#: the dirty-bitmap walk (``migration_bitmap_find_dirty``, clearing the bit
#: and its KVM dirty log chunk) and queueing the page for a channel or
#: writing its header. Fitted once, minimax, with
#: :data:`ZERO_CHECK_CYCLES` on every published all-zero run and the two
#: QEMU zero-page cases: H. Xiang's "[PATCH v4 0/7] Introduce multifd zero
#: page checking" (qemu-devel, March 2024; two Xeon Platinum 8457C,
#: Sapphire Rapids, a 100 GB guest of zero pages over TCP: 9629 ms with
#: the tests on the migration thread, 6182, 4643 and 4143 ms with them in
#: 1, 2 and 4 channels), the DSA zero-page document's 8-channel baseline
#: (4867 ms, its migration thread running 4861 ms of them) and LM-1/LM-2
#: (QEMU 2.12, tests on the migration thread): all seven within 12.4 %
#: (cases QEMU-ZERO-100G-*). At the 2.6 GHz taken for the 8457C (its
#: lscpu clock 2538 MHz) these are 164 ns per page walked and 210 ns per
#: page tested. [cycles of reference clock, models.cpu]
MAIN_THREAD_PAGE_CYCLES = 695.0

#: Cycles to test one zero page for zeros: ``buffer_is_zero``
#: (``util/bufferiszero.c``) reads all 4096 bytes of a page that is zero
#: (a non-zero page stops at its first non-zero word, so costs nothing
#: worth counting), and reading a guest page never written first maps it.
#: Fitted with :data:`MAIN_THREAD_PAGE_CYCLES`: one channel testing every
#: page binds the 1-channel run, the migration thread testing them on
#: top of its walk the legacy one; the DSA document's channel threads ran
#: 244 ns per page they tested (780 ms for 3.2 M pages), close to the fit.
#: [cycles of reference clock]
ZERO_CHECK_CYCLES = 885.0


def zero_page_detection(setting, version, multifd):
    """Where QEMU tests pages for zeros.

    Parameters
    ----------
    setting : str
        A name in :data:`ZERO_PAGE_DETECTIONS`.
    version : str
        QEMU release, ``"major.minor"``.
    multifd : bool
        Multifd channels carry the pages.

    Returns
    -------
    str
        ``'none'``, ``'legacy'`` (the migration thread) or ``'multifd'``
        (the channel threads).

    Notes
    -----
    ``auto`` is ``multifd`` from QEMU 9.0, ``legacy`` before. Without
    multifd every setting but ``none`` tests on the migration thread
    (``ram_save_target_page_legacy`` calls ``save_zero_page``).
    """
    if setting not in ZERO_PAGE_DETECTIONS:
        raise ValueError("zero-page detection must be one of "
                         f"{', '.join(ZERO_PAGE_DETECTIONS)}, got "
                         f"{setting!r}")
    release = tuple(int(part) for part in version.split("."))
    if setting == "auto":
        setting = "multifd" if release >= MULTIFD_DETECTION_SINCE \
            else "legacy"
    if setting == "multifd" and not multifd:
        return "legacy"
    return setting


def page_times(ghz, detection, channels, *, copy_cycles=0.0,
               page_cycles=MAIN_THREAD_PAGE_CYCLES,
               zero_check_cycles=ZERO_CHECK_CYCLES):
    """Seconds the RAM path spends per page and per zero page.

    Parameters
    ----------
    ghz : numeric
        Reference-generation clock of the host's cores
        (:func:`models.cpu.stack_ghz`). [GHz]
    detection : str or array-like of str
        ``'none'``, ``'legacy'`` or ``'multifd'``
        (:func:`zero_page_detection`).
    channels : numeric
        Multifd channels (1 without multifd).
    copy_cycles : numeric, default 0
        Cycles the migration thread also spends writing a data page to
        its socket: without multifd it sends the pages itself (the kernel
        copies them in its ``writev``), the host preset's ``c_byte_tx``
        times 4096; 0 with multifd, whose channels write. [cycles]
    page_cycles : numeric, default :data:`MAIN_THREAD_PAGE_CYCLES`
        Migration thread's cycles per page. [cycles]
    zero_check_cycles : numeric, default :data:`ZERO_CHECK_CYCLES`
        Cycles to find that a page is zero. [cycles]

    Returns
    -------
    page_s : numpy.ndarray
        The migration thread's time per data page, a floor on every
        data page's time. [s]
    zero_page_s : numpy.ndarray
        Time one zero page takes its slowest thread: the migration
        thread's page time plus the test with ``legacy``, the larger of
        that page time and the test shared by the channels with
        ``multifd``; 0 with ``none`` (the page is then sent whole, see
        :func:`models.migration.precopy`). [s]

    Notes
    -----
    .. math::

        t_p = (c_p + c_{copy}) / f, \\qquad t_z = \\begin{cases}
            (c_p + c_z) / f & \\text{legacy} \\\\
            \\max(c_p / f, c_z / (n f)) & \\text{multifd}
        \\end{cases}

    A pass over :math:`N_z` zero pages then takes at least
    :math:`N_z t_z` however fast the link: an all-zero 100 GiB guest
    takes seconds, not the tenths its 8-byte headers would need.

    References
    ----------
    QEMU ``migration/ram.c`` (``ram_save_target_page_multifd``,
    ``save_zero_page``), ``migration/multifd-zero-page.c``,
    ``util/bufferiszero.c``.
    """
    hz = require_positive("ghz", ghz, "GHz") * 1e9
    channels = require_positive("channels", channels)
    detection = np.asarray(detection)
    walk_s = page_cycles / hz
    check_s = zero_check_cycles / hz
    zero_s = np.select(
        [detection == "legacy", detection == "multifd"],
        [walk_s + check_s, np.maximum(walk_s, check_s / channels)],
        default=0.0)
    return walk_s + copy_cycles / hz + np.zeros(np.shape(zero_s)), zero_s


def multifd_channel_cap(ghz, c_byte):
    """Ceiling of one multifd channel's thread [Gbit/s].

    Parameters
    ----------
    ghz : numeric
        Reference-generation clock (:func:`models.cpu.stack_ghz`). [GHz]
    c_byte : numeric
        Cycles per payload byte of the copy into guest memory (the host
        preset's receive ``c_byte``). [1/B]

    Returns
    -------
    numpy.ndarray
        One channel thread's rate. [Gbit/s]

    Notes
    -----
    .. math:: T_{ch} = 8 f / c_{byte}

    The channel thread copies (``recvmsg`` into the guest's pages); the
    driver, GRO and TCP work of its connection runs in the receive
    queue's softirq on another core, bounded there by the per-frame and
    per-traversal costs alone. The two cores work as a pipeline, so a
    channel moves what the slower of them allows; the generic stream of
    :func:`models.transport.bulk_transfer` puts both on one core.
    """
    return core_ceiling(ghz, c_byte)
