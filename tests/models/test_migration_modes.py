"""Post-copy switchover and QEMU's RDMA memory registration
(models/migration.py postcopy, solvers/schedule.py precopy)."""

import numpy as np
import pytest

from models import migration as mig
from models import migration_costs
from models.scenario import Migration
from solvers import schedule
from solvers.inputs import migration_row

GIB, MIB = 2 ** 30, 2 ** 20
#: 10 GbE goodput [B/s]
RATE = 9.4e9 / 8


def _columns(**fields):
    item = Migration(name="vm", memory_gib=16, stop_rule="qemu",
                     management="unlimited", **fields)
    row = migration_row(item)
    return {k: np.array([v]) for k, v in row.items()}


def test_busy_guest_that_never_converges_finishes_in_post_copy():
    # QEMU docs/devel/migration/postcopy.rst: post-copy "deal[s] with
    # migrations that refuse to converge", with "an upper bound on the
    # amount of migration traffic and time"
    busy = {"cold_rate": 2.0e9}          # dirties faster than 10 GbE
    pre = _columns(dirty={"rate_mib_s": 2.0e9 / MIB})
    post = _columns(dirty={"rate_mib_s": 2.0e9 / MIB},
                    switchover="postcopy_after_first_pass")
    assert busy["cold_rate"] > RATE
    stuck = schedule.precopy(pre, np.array([RATE]))
    done = schedule.precopy(post, np.array([RATE]))
    assert not stuck["converged"][0]
    assert done["converged"][0]
    assert mig.OUTCOMES[done["outcome"][0]] == "postcopy"
    # the guest stops only for the device state
    assert done["downtime"][0] == pytest.approx(mig.FIXED_DOWNTIME)
    # one pass of memory, then at most all of it again, each page once
    memory = 16 * GIB * (1 + mig.PAGE_HEADER_BYTES / mig.PAGE_BYTES)
    assert done["bytes_sent"][0] <= 2 * memory * (1 + 1e-9)
    assert 0 < done["postcopy_time"][0] <= memory / RATE * (1 + 1e-9)
    # total = end of the first pass + device state + the post-copy phase
    assert done["total_time"][0] == pytest.approx(
        done["stopped_at"][0] + mig.FIXED_DOWNTIME
        + done["postcopy_time"][0])


def test_a_guest_that_converges_in_its_first_pass_never_needs_post_copy():
    idle = schedule.precopy(_columns(), np.array([RATE]))
    post = schedule.precopy(_columns(switchover="postcopy_after_first_pass"),
                            np.array([RATE]))
    assert mig.OUTCOMES[post["outcome"][0]] == "switchover"
    assert post["total_time"][0] == pytest.approx(idle["total_time"][0])
    assert post["postcopy_time"][0] == 0.0


def test_post_copy_at_the_time_budget_starts_there():
    # KubeVirt allowPostCopy: "switch to post-copy when
    # CompletionTimeoutPerGiB triggers"; 16 GiB x 2 s/GiB = 32 s
    columns = _columns(dirty={"rate_mib_s": 2.0e9 / MIB}, time_budget_s=32,
                       switchover="postcopy_at_time_budget")
    result = schedule.precopy(columns, np.array([RATE]))
    assert mig.OUTCOMES[result["outcome"][0]] == "postcopy"
    assert 32 <= result["stopped_at"][0] < 32 + 16 * GIB / RATE
    assert result["total_time"][0] > result["stopped_at"][0]


def test_rdma_pin_all_pays_up_front_dynamic_registration_in_round_0():
    # QEMU docs/rdma.txt: pin-all registers everything before the copy,
    # dynamic registration chunk by chunk as round 0 sends
    dynamic = _columns(transport="rdma")
    pinned = _columns(transport="rdma", rdma_pin_all=True)
    pages = 16 * GIB / mig.PAGE_BYTES
    assert pinned["setup_s"][0] == pytest.approx(
        pages * migration_costs.RDMA_PIN_S_PER_PAGE)
    assert dynamic["setup_s"][0] == 0.0
    assert dynamic["register_s_per_byte"][0] > 0.0
    rate = np.array([26e9 / 8])
    slow, fast = (schedule.precopy(c, rate)["total_time"][0]
                  for c in (dynamic, pinned))
    plain = schedule.precopy(_columns(), rate)["total_time"][0]
    assert plain < fast < slow
    assert fast == pytest.approx(plain + pinned["setup_s"][0])
