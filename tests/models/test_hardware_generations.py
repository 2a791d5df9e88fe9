"""Issue 33: QEMU's zero pages in models.migration.precopy (their page
walk and the switch-over on page bytes), sending threads shared by streams
(models.transport.sender_thread_cap), BIG TCP and InfiniBand framing. The
CPU generations are tested in test_cpu.py, QEMU's per-page costs in
test_qemu_ram.py."""

import numpy as np
import pytest

from models import host, qemu_ram, transport
from models import migration as mig

GIB = 2 ** 30
PAGES_100G = 100 * GIB / mig.PAGE_BYTES


def test_an_all_zero_guest_takes_its_page_walk_not_its_headers():
    # 100 GiB of zero pages on 100 GbE: 26.2 M headers of 8 B would cross
    # in a few hundredths of a second; each page costs the migration
    # thread its walk (issue 33: 4.1-6.2 s measured)
    rate = 11.7e9
    page_s, zero_s = qemu_ram.page_times(4.212, "legacy", 1)
    headers = mig.precopy(100 * GIB, rate, zero_fraction=1.0,
                          downtime_limit=0.1, sync="qemu",
                          pending_in_pages=True)
    walked = mig.precopy(100 * GIB, rate, zero_fraction=1.0,
                         downtime_limit=0.1, sync="qemu", zero_page_s=zero_s,
                         pending_in_pages=True)
    assert headers["total_time"] < 0.2
    assert walked["total_time"] == pytest.approx(
        PAGES_100G * zero_s + mig.FIXED_DOWNTIME, rel=0.01)
    # the time is not bytes: what crossed the wire is the headers
    assert walked["bytes_sent"] == pytest.approx(headers["bytes_sent"])


def test_qemu_switches_over_on_page_bytes_against_written_bytes():
    # migration.c: pending (pages x 4 KiB, zero pages included) against
    # written bytes per second x limit. A pass rich in zero pages writes
    # few bytes per page, so QEMU stops with far less than the limit's
    # worth of time left; counted in written bytes it would stop near it.
    kwargs = dict(zero_fraction=0.9, downtime_limit=0.1, sync="qemu",
                  cold_rate=1e6, zero_page_s=200e-9)
    wire_rule = mig.precopy(8 * GIB, 1.17e9, **kwargs)
    qemu_rule = mig.precopy(8 * GIB, 1.17e9, pending_in_pages=True,
                            **kwargs)
    assert qemu_rule["downtime"] < wire_rule["downtime"]
    assert qemu_rule["downtime"] - mig.FIXED_DOWNTIME < 0.1 * 0.2
    # without zero pages the two rules agree exactly
    full = dict(kwargs, zero_fraction=0.0)
    assert mig.precopy(8 * GIB, 1.17e9, pending_in_pages=True,
                       **full)["downtime"] == \
        mig.precopy(8 * GIB, 1.17e9, **full)["downtime"]


def test_streams_of_one_thread_share_its_core():
    # iperf3 before 3.16: every stream of a client in one thread
    caps = transport.sender_thread_cap(np.array([1, 2, 12, np.inf]), 12,
                                       20.0)
    assert caps[:3] * 12 == pytest.approx([20.0, 40.0, 240.0])
    assert np.isinf(caps[3])
    with pytest.raises(ValueError, match="threads must be >= 1"):
        transport.sender_thread_cap(0, 4, 20.0)


def test_big_tcp_saves_traversals_not_frames():
    costs = host.STACK_PRESETS["linux_host"]
    per_byte = [host.cycles_per_byte(
        1448, host.stack_traversal_bytes(1448, False, software=True,
                                         aggregate_bytes=size),
        costs.c_byte_rx, costs.c_pkt, costs.c_wire)
        for size in (65536, 185 * 1000)]
    assert per_byte[0] - per_byte[1] == pytest.approx(
        costs.c_pkt / 65536 - costs.c_pkt / 185000)


def test_infiniband_frames_carry_an_ib_path_mtu_and_26_bytes():
    # IBTA vol. 1: LRH 8 + BTH 12 + ICRC 4 + VCRC 2, path MTU <= 4096
    from models import wire
    assert wire.payload_bytes(9000, protocol="infiniband") == 4096
    assert wire.wire_bytes(9000, protocol="infiniband") == 4096 + 26
    assert wire.payload_bytes(1500, protocol="infiniband") == 1024
    assert wire.wire_bytes(2048, protocol="infiniband", vlan_tags=1) == \
        2048 + 26  # no Ethernet framing, no tag
    with pytest.raises(ValueError, match="at least 256 B for InfiniBand"):
        wire.ib_path_mtu(200)
