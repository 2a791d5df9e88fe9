"""Issue 33 through the scenario schema: the CPU generation, QEMU's
multifd data path and zero-page detection, sending threads and BIG TCP,
on resources/examples/modern_100g_host.toml, qemu_multifd_100g.toml and
small documents."""

import pytest

from models import cpu, host, qemu_ram
from models.scenario import ScenarioError, parse_scenario, scenario_from_dict
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES, minimal_document


def variants(example):
    scenario = parse_scenario((EXAMPLES / example).read_text(), "toml")
    return {v.name: v for v in evaluate(scenario).variants}


@pytest.fixture(scope="module")
def modern():
    return variants("modern_100g_host.toml")


@pytest.fixture(scope="module")
def multifd():
    return variants("qemu_multifd_100g.toml")


def value(variant, metric):
    return variant.metric(metric).value


def test_the_generation_scales_one_streams_core(modern):
    base, haswell = modern["Base"], modern["Haswell host"]
    assert value(base, "host.throughput_gbps") / value(
        haswell, "host.throughput_gbps") == pytest.approx(
        cpu.CPU_GENERATIONS["intel_sapphire_rapids"].stack_speed)
    assert any("CPU generation 'intel_sapphire_rapids'" in a
               for a in base.assumptions)


def test_one_sending_thread_caps_all_its_streams(modern):
    one, threads = modern["iperf3 -P 12, one thread"], \
        modern["iperf3 3.16 -P 12"]
    assert one.bottleneck.id == "host.stream_cap"
    assert "12 stream(s) sent by 1 thread(s)" in one.bottleneck.message
    # one thread moves one core's worth: the one stream's rate
    assert value(one, "host.throughput_gbps") == pytest.approx(
        value(modern["Base"], "host.throughput_gbps"))
    assert threads.bottleneck.id == "host.link"


def test_big_tcp_gains_only_the_traversals(modern):
    gain = value(modern["BIG TCP 185 KB"], "host.throughput_gbps") \
        / value(modern["Base"], "host.throughput_gbps")
    assert 1.0 < gain < 1.02


def test_multifd_channels_copy_apart_from_their_queue_cores(multifd):
    # 2 channels on 16 queues: each channel's frames on its queue's core
    # (per-frame and per-traversal cost only), its copy on its thread
    costs = host.STACK_PRESETS["linux_host"]
    ghz = 2.6 * cpu.CPU_GENERATIONS["intel_sapphire_rapids"].stack_speed
    queue_core = host.core_ceiling(ghz, host.cycles_per_byte(
        1448, 65536, 0.0, costs.c_pkt, costs.c_wire))
    busy = 16 * (1 - (15 / 16) ** 2)
    assert value(multifd["Base"], "migration.guest.rate_gbps") == \
        pytest.approx(busy * queue_core)
    assert queue_core < qemu_ram.multifd_channel_cap(ghz, costs.c_byte_rx)
    # eight channels fill the link
    assert value(multifd["8 channels"], "migration.guest.rate_gbps") == \
        pytest.approx(value(multifd["Base"], "wire.goodput_gbps"))


def test_zero_pages_are_timed_where_they_are_found(multifd):
    channels = value(multifd["all-zero guest, 8 channels"],
                     "migration.guest.total_s")
    legacy = value(multifd["all-zero guest, legacy detection"],
                   "migration.guest.total_s")
    ghz = 2.6 * cpu.CPU_GENERATIONS["intel_sapphire_rapids"].stack_speed
    pages = 100 * 2 ** 30 / 4096
    assert channels == pytest.approx(
        pages * qemu_ram.MAIN_THREAD_PAGE_CYCLES / (ghz * 1e9), rel=0.02)
    assert legacy - channels == pytest.approx(
        pages * qemu_ram.ZERO_CHECK_CYCLES / (ghz * 1e9), rel=0.02)


def test_zero_pages_cross_whole_without_detection():
    migration = {"name": "m", "memory_gib": 8.0, "zero_page_pct": 90.0,
                 "stop_rule": "qemu", "management": "libvirt"}
    times = {}
    for setting in ("legacy", "none"):
        document = minimal_document(
            host={"hypervisor": "kvm"},
            workloads={"migrations": [dict(migration,
                                           zero_page_detection=setting)]})
        variant = evaluate(scenario_from_dict(document)).variants[0]
        times[setting] = value(variant, "migration.m.bytes_sent_gib")
    assert times["none"] > 8.0 > 1.0 > times["legacy"]


@pytest.mark.parametrize("section, fragment", [
    ({"host": {"cpu": "pentium_4"}},
     r"host.cpu: must be 'legacy', .*'intel_sapphire_rapids'.*got "
     r"'pentium_4'"),
    ({"workloads": {"migrations": [{"name": "m", "memory_gib": 4.0,
                                    "zero_page_detection": "dsa"}]}},
     r"zero_page_detection: must be 'auto', 'none', 'legacy' or "
     r"'multifd', got 'dsa'"),
    ({"workloads": {"transfers": [{"name": "t", "sender_threads": 0}]}},
     r"sender_threads"),
    ({"nics": [{"id": "n", "speed_gbps": 10.0, "offloads": {
        "ipv6": {"aggregate_kib": 1024.0}}}]}, r"aggregate_kib")])
def test_bad_hardware_fields_are_named(section, fragment):
    with pytest.raises(ScenarioError, match=fragment):
        scenario_from_dict(minimal_document(**section))


def test_zero_copy_send_saves_the_senders_copy(modern):
    # msg_zerocopy.rst: pinning and notification cost what copying
    # "around 10 KB" costs, here spread over 128 KiB writes
    costs = host.STACK_PRESETS["linux_host"]
    ghz = 2.6 * cpu.CPU_GENERATIONS["intel_sapphire_rapids"].stack_speed
    frames = costs.c_pkt / 65536 + costs.c_wire / 1448
    for name, c_byte in (("sending, copying", costs.c_byte_tx),
                         ("sending, iperf3 -Z", costs.c_byte_tx * 10 / 128)):
        assert value(modern[name], "host.throughput_gbps") == \
            pytest.approx(8 * ghz / (c_byte + frames))


def test_zero_copy_send_needs_the_sending_side():
    with pytest.raises(ScenarioError, match="zero_copy_send saves the "
                       "sender's copy and needs direction 'send'"):
        scenario_from_dict(minimal_document(workloads={"transfers": [
            {"name": "t", "zero_copy_send": True}]}))
