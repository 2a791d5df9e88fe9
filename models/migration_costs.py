"""What a live migration's pages cost beyond their bytes: QEMU's page
headers, its migration thread's page rate, the memory registration of its
RDMA transport; and the downtime settings every pre-copy question shares.

Companions of :func:`models.migration.precopy`, which take its columns
and return rates and times; all arguments broadcast.
"""

import numpy as np

from models.migration import PAGE_BYTES, PAGE_HEADER_BYTES, STOP_RULES

#: QEMU's RDMA transport registers guest memory with the NIC in chunks of
#: 1 MiB (migration/rdma.c ``RDMA_REG_CHUNK_SHIFT`` 20) the first time a
#: chunk is sent, or all of it up front with ``rdma-pin-all``. [B]
RDMA_CHUNK_BYTES = 1 << 20
#: Pinning and mapping one 4 KiB page for the NIC [s]: fitted on
#: QEMU-RDMA-PINALL-ON (8 GiB registered at once; about 4 s in all where
#: the copy alone takes 2.5 s at the 27.7 Gbit/s the NIC's slot carries:
#: 1.47 s for 2 Mi pages).
RDMA_PIN_S_PER_PAGE = 0.70e-6
#: Fixed cost of one on-demand registration [s]: the destination's
#: registration request and reply plus both hosts' ``ibv_reg_mr`` calls
#: (a command to the NIC each), serialised with the sends. Fitted on
#: QEMU-RDMA-PINALL-OFF (the same 8 GiB at 9.5 Gbit/s, about 7.5 s), with
#: the per-page pinning above on top.
RDMA_REGISTRATION_S = 0.50e-3

#: Downtime budget of a question that names none [s]: QEMU's default
#: ``downtime-limit``, 300 ms (QEMU migration/options.c
#: ``DEFAULT_MIGRATE_SET_DOWNTIME``; the ``qemu`` stop rule).
DEFAULT_DOWNTIME_LIMIT_S = STOP_RULES["qemu"].downtime_limit

#: Shortest downtime window the converging-rate evidence solves for [s].
#: Stop rules that test page counts or a fraction left (Xen's, the
#: generic ``fraction_left``) carry no budget (0 s), for which the rate
#: that converges is infinite; 1 ms lies below every measured switch-over
#: (9-29 ms in validation case LM-8), so it never raises a real budget.
#: [Model]
DOWNTIME_FLOOR_S = 1e-3


def page_header_factor(page_header_bytes=PAGE_HEADER_BYTES, *,
                       page_bytes=PAGE_BYTES):
    """Bytes QEMU sends per byte of page data.

    Parameters
    ----------
    page_header_bytes : numeric, default 8
        Bytes sent with each page besides its data. [B]
    page_bytes : numeric, default 4096
        Guest page size. [B]

    Returns
    -------
    numeric
        Wire bytes of pages per byte of their data. [unitless]

    Notes
    -----
    .. math:: h = 1 + b_{header} / P

    References
    ----------
    S. Gudkov et al., live-migration time predictor (``header_size = 8``);
    live-migration.md section 7.
    """
    return 1 + page_header_bytes / page_bytes


def page_rate_cap(page_s, *, page_bytes=PAGE_BYTES,
                  page_header_bytes=PAGE_HEADER_BYTES):
    """Rate at which QEMU's migration thread can hand pages on.

    Parameters
    ----------
    page_s : numeric
        The thread's time per page (:func:`models.qemu_ram.page_times`);
        0 where it is not modelled. [s]
    page_bytes : numeric, default 4096
        Guest page size. [B]
    page_header_bytes : numeric, default 8
        Bytes sent with each page besides its data. [B]

    Returns
    -------
    numeric
        A page and its header per ``page_s``; inf where ``page_s`` is 0.
        [B/s]

    Notes
    -----
    .. math:: R_{page} = (P + b_{header}) / t_{page}
    """
    page_s = np.asarray(page_s)
    return np.where(page_s > 0, (page_bytes + page_header_bytes)
                    / np.where(page_s > 0, page_s, 1.0), np.inf)


def rdma_registration(memory, pin_all, *, page_bytes=PAGE_BYTES,
                      chunk_bytes=RDMA_CHUNK_BYTES,
                      pin_s_per_page=RDMA_PIN_S_PER_PAGE,
                      registration_s=RDMA_REGISTRATION_S):
    """Memory registration cost of QEMU's RDMA migration transport.

    Parameters
    ----------
    memory : numeric
        Guest memory. [B]
    pin_all : bool or array-like of bool
        ``rdma-pin-all``: register all guest memory before the first pass.
    page_bytes : numeric, default 4096
        Guest page size. [B]
    chunk_bytes : numeric, default 1 MiB
        Chunk registered on demand the first time it is sent. [B]
    pin_s_per_page : numeric, default 0.70e-6
        Pinning and mapping one page for the NIC (fitted on
        QEMU-RDMA-PINALL-ON). [s]
    registration_s : numeric, default 0.50e-3
        Fixed cost of one on-demand registration (fitted on
        QEMU-RDMA-PINALL-OFF). [s]

    Returns
    -------
    setup_s : numeric
        Time to pin all memory before round 0 (0 without pin-all). [s]
    register_s_per_byte : numeric
        Time added to round 0 per byte sent (0 with pin-all). [s/B]

    Notes
    -----
    .. math:: t_{setup} = \\frac{M}{P} t_{pin},\\qquad
              \\tau = \\frac{t_{reg} + (C/P)\\, t_{pin}}{C}

    References
    ----------
    QEMU migration/rdma.c (``RDMA_REG_CHUNK_SHIFT`` 20, ``rdma-pin-all``);
    :data:`RDMA_PIN_S_PER_PAGE` and
    :data:`RDMA_REGISTRATION_S` for the fits.
    """
    pages = memory / page_bytes
    chunk_pages = chunk_bytes / page_bytes
    per_byte = (registration_s + chunk_pages * pin_s_per_page) / chunk_bytes
    return (np.where(pin_all, pages * pin_s_per_page, 0.0),
            np.where(pin_all, 0.0, per_byte))


def registered_rate(rate, register_s_per_byte):
    """Rate of a pass that registers its memory on demand as it sends.

    Parameters
    ----------
    rate : numeric
        Rate without registration. [B/s]
    register_s_per_byte : numeric
        Registration time per byte sent (:func:`rdma_registration`).
        [s/B]

    Returns
    -------
    numeric
        Rate with the registrations serialised with the sends. [B/s]

    Notes
    -----
    .. math:: R' = 1 / (1/R + \\tau)
    """
    return 1.0 / (1.0 / rate + register_s_per_byte)
