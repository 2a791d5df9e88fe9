"""Storage model against storage-io.md (sections 3, 5 and 7) and the per-IO
bytes of protocol-overheads.md section 7."""

import numpy as np
import pytest

from models import storage


def test_closed_queue_worked_example():
    # storage-io.md section 3: mu = 100,000 IOPS, R0 = 200 us. The table
    # is rounded to whole IOPS and 0.1 us, so that is the tolerance.
    oio = np.array([1, 2, 4, 8, 16, 32, 64, 128])
    iops = storage.closed_queue_iops(oio, 1e5, 200e-6)
    assert iops == pytest.approx([5000, 9975, 19837, 39071, 73551, 99822,
                                  100000, 100000], abs=0.5)
    latency_us = 1e6 * oio / iops
    assert latency_us == pytest.approx([200, 200.5, 201.6, 204.8, 217.5,
                                        320.6, 640, 1280], abs=0.05)


def test_closed_queue_follows_the_bounds():
    # below the knee N* = R0 mu the curve stays under N / R0, above it
    # under mu, and it rises with N (asymptotic bounds, section 2)
    oio = np.arange(1, 200)
    iops = storage.closed_queue_iops(oio, 20_000.0, 1e-3)
    assert (iops <= np.minimum(oio / 1e-3, 20_000.0) + 1e-9).all()
    assert (np.diff(iops) >= 0).all() and iops[-1] == pytest.approx(20_000)


def test_closed_queue_broadcasts_over_scenarios():
    iops = storage.closed_queue_iops([[1], [64]], [1e4, 1e5], 1e-3)
    assert iops.shape == (2, 2)


def test_total_oio_hcibench():
    # S-HCIB: 1 VM x 10 disks x 1 thread = 10; x 2 threads = 20 (exact)
    assert storage.total_oio(1, 10, [1, 2]).tolist() == [10, 20]


def test_iscsi_and_smb_message_bytes():
    # protocol-overheads.md section 7: iSCSI read = 48 B command, 48 B +
    # data back; SMB2 read request 4 + 64 + 48, response 4 + 64 + 16 + data
    to, back = storage.io_message_bytes(["iscsi", "smb3"], 4096, True)
    assert to.tolist() == [48, 116] and back.tolist() == [4144, 4180]
    to, back = storage.io_message_bytes("smb3", 4096, False, encrypted=True)
    assert (float(to), float(back)) == (4096 + 116 + 52, 84 + 52)


def test_nfs_pads_data_to_four_bytes():
    _, small = storage.io_message_bytes("nfs3", 1, True)
    _, aligned = storage.io_message_bytes("nfs3", 4, True)
    assert float(small) == float(aligned)


def test_raid5_random_writes_cost_four_device_ios():
    # 15 spindles at 180 IOPS: reads 2700, RAID-5 writes 2700 / 4
    read = storage.backend_iops(8192, 1.0, 1.0, devices=15, write_penalty=4)
    write = storage.backend_iops(8192, 0.0, 1.0, devices=15, write_penalty=4)
    assert float(read) == pytest.approx(2700)
    assert float(write) == pytest.approx(675)


def test_iops_ceiling_names_the_limit():
    ceiling, limit = storage.iops_ceiling([5000, 9000], [8000, 7000],
                                          [np.inf, 6000])
    assert ceiling.tolist() == [5000, 6000]
    assert [storage.LIMITS[i] for i in limit] == ["backend", "cpu"]


@pytest.mark.parametrize("call, fragment", [
    (lambda: storage.closed_queue_iops(0, 1e4, 1e-3), "oio must be"),
    (lambda: storage.closed_queue_iops(4, -1, 1e-3), "iops_max must be"),
    (lambda: storage.io_message_bytes("fc", 4096, True), "protocol must be"),
    (lambda: storage.backend_iops(4096, 1.5, 1), "read_fraction must be"),
])
def test_bad_input_names_the_parameter(call, fragment):
    with pytest.raises(ValueError, match=fragment):
        call()


def test_bound_is_littles_law_then_the_bottleneck():
    # storage-io.md section 2 with Z = 0: N / R0 below the knee, mu above
    assert storage.iops_bound([1, 20, 40], 1e5, 200e-6).tolist() == \
        [5000, 1e5, 1e5]
    curve = storage.closed_queue_iops([1, 20, 40], 1e5, 200e-6)
    assert (curve <= storage.iops_bound([1, 20, 40], 1e5, 200e-6)).all()
