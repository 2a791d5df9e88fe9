"""Issue 33: CPU generations (models.cpu), QEMU's RAM path per page
(models.qemu_ram and models.migration.precopy's zero-page time and
switch-over on page bytes) and sending threads shared by streams
(models.transport.sender_thread_cap)."""

import numpy as np
import pytest

from models import cpu, host, qemu_ram, transport
from models import migration as mig

GIB = 2 ** 30
PAGES_100G = 100 * GIB / mig.PAGE_BYTES


def test_generations_chain_the_vendors_ipc_gains():
    # Intel: Broadwell +5 %, Skylake +10 %, Sunny Cove +18 %, Golden Cove
    # +19 % over Haswell; AMD: Zen at Broadwell, then +15/+19/+13/+16 %
    speed = {name: g.stack_speed for name, g in cpu.CPU_GENERATIONS.items()}
    assert speed["intel_haswell"] == speed["legacy"] == 1.0
    assert speed["intel_sapphire_rapids"] == pytest.approx(
        1.05 * 1.10 * 1.18 * 1.19, rel=0.01)
    assert speed["amd_turin"] == pytest.approx(
        1.05 * 1.15 * 1.19 * 1.13 * 1.16, rel=0.01)
    assert speed["arm_graviton3"] == pytest.approx(
        speed["arm_graviton2"] * 1.25 * 2.5 / 2.6, rel=0.01)
    # every later generation of a vendor is at least as fast per clock
    for vendor in ("intel", "amd"):
        rows = sorted((g.year, g.stack_speed)
                      for name, g in cpu.CPU_GENERATIONS.items()
                      if g.vendor == vendor and name != "legacy")
        assert all(a[1] <= b[1] for a, b in zip(rows, rows[1:]))


def test_stack_ghz_scales_a_cores_ceiling_by_its_generation():
    cycles = 2.4
    old = host.core_ceiling(cpu.stack_ghz(2.6, 1.0), cycles)
    new = host.core_ceiling(cpu.stack_ghz(
        2.6, cpu.stack_speed("intel_sapphire_rapids")), cycles)
    assert new / old == pytest.approx(1.62)


def test_unknown_generation_lists_the_choices():
    with pytest.raises(ValueError, match="intel_haswell.*got 'pentium'"):
        cpu.stack_speed(["intel_haswell", "pentium"])


@pytest.mark.parametrize("setting, version, multifd, where", [
    ("auto", "9.2", True, "multifd"), ("auto", "8.2", True, "legacy"),
    ("auto", "9.2", False, "legacy"), ("multifd", "9.0", False, "legacy"),
    ("none", "9.2", True, "none"), ("legacy", "9.2", True, "legacy")])
def test_zero_page_detection_runs_where_qemu_runs_it(setting, version,
                                                     multifd, where):
    # ram.c: ram_save_target_page_legacy always calls save_zero_page;
    # multifd tests in its channels from 9.0 by default (commit 70c25c92)
    assert qemu_ram.zero_page_detection(setting, version, multifd) == where


def test_zero_pages_cost_the_thread_that_tests_them():
    page_s, legacy = qemu_ram.page_times(4.0, "legacy", 8)
    _, channels = qemu_ram.page_times(4.0, "multifd", 8)
    _, none = qemu_ram.page_times(4.0, "none", 8)
    assert page_s == pytest.approx(qemu_ram.MAIN_THREAD_PAGE_CYCLES / 4e9)
    assert legacy == pytest.approx(page_s + qemu_ram.ZERO_CHECK_CYCLES
                                   / 4e9)
    # eight channels share the tests: the migration thread's walk binds
    assert channels == pytest.approx(page_s)
    assert none == 0.0


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


def test_a_multifd_channel_is_bound_by_its_copy_alone():
    # the channel thread copies (c_byte); the frames are the queue core's
    assert qemu_ram.multifd_channel_cap(4.0, 0.558) == pytest.approx(
        8 * 4.0 / 0.558)


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


def test_clock_scaled_migration_stream_preset():
    # seed 001, case S-HV-e: 4.75 Gbit/s per Hyper-V SMB stream at 2.6 GHz;
    # a thread bound by its core's cycles moves with the clock
    cap, reference_ghz, _ = transport.MIGRATION_STREAM_CAPS["hyperv"]
    assert cpu.clock_scaled(cap, reference_ghz, reference_ghz) == cap
    assert cpu.clock_scaled(cap, 2 * reference_ghz, reference_ghz) \
        == pytest.approx(2 * cap)
