"""models/migration_costs.py: QEMU's page headers, page rate and RDMA
registration against the constants' sources and their fits."""

import inspect

import numpy as np
import pytest

from models import migration, migration_costs
from solvers import goalseek
from models.units import GIB


def test_page_header_factor():
    # 8 B header per 4 KiB page (Gudkov's predictor, live-migration.md 7)
    assert migration_costs.page_header_factor() == 1 + 8 / 4096
    assert migration_costs.page_header_factor(0) == 1.0


def test_page_rate_cap():
    cap = migration_costs.page_rate_cap(np.array([0.0, 1e-6]))
    assert cap[0] == np.inf
    assert cap[1] == pytest.approx((4096 + 8) / 1e-6, rel=1e-12)


def test_rdma_pin_all_matches_its_fit():
    # QEMU-RDMA-PINALL-ON (models.migration_costs.RDMA_PIN_S_PER_PAGE): pinning
    # 8 GiB, 2 Mi pages, takes about 1.47 s before round 0
    setup, per_byte = migration_costs.rdma_registration(8 * GIB, True)
    assert setup == pytest.approx(1.47, abs=0.005)
    assert per_byte == 0.0


def test_rdma_on_demand_registration():
    setup, per_byte = migration_costs.rdma_registration(
        np.array([8 * GIB, 8 * GIB]), np.array([False, True]))
    assert setup[0] == 0.0 and per_byte[1] == 0.0
    # one registration per 1 MiB chunk plus its 256 pages pinned
    chunk = migration_costs.RDMA_REGISTRATION_S + 256 * migration_costs.RDMA_PIN_S_PER_PAGE
    assert per_byte[0] * 2 ** 20 == pytest.approx(chunk, rel=1e-12)
    # 8 GiB registered on demand: 8192 chunks, about 5.6 s on top of the
    # copy (QEMU-RDMA-PINALL-OFF's fit)
    assert per_byte[0] * 8 * GIB == pytest.approx(5.56, abs=0.01)


def test_registered_rate():
    # 1 GB/s with 1 ns per byte of registration: half the rate
    assert migration_costs.registered_rate(1e9, 1e-9) == pytest.approx(5e8)
    # without registration the rate is unchanged (to rounding: callers
    # keep the unregistered rate where nothing registers)
    assert migration_costs.registered_rate(2e9, 0.0) == pytest.approx(
        2e9, rel=1e-15)


def test_named_downtime_defaults():
    # QEMU's default downtime-limit, 300 ms, the one default of the model
    # and the goal seeks
    assert migration_costs.DEFAULT_DOWNTIME_LIMIT_S == 0.3
    assert inspect.signature(migration.precopy).parameters[
        "downtime_limit"].default == migration_costs.DEFAULT_DOWNTIME_LIMIT_S
    for seek in (goalseek.rate_for_time, goalseek.largest_memory,
                 goalseek.dirty_limit):
        assert inspect.signature(seek).parameters["downtime_limit"].default \
            == migration_costs.DEFAULT_DOWNTIME_LIMIT_S
    # the floor stays below every measured switch-over (LM-8: 9-29 ms)
    assert migration_costs.DOWNTIME_FLOOR_S < 9e-3
