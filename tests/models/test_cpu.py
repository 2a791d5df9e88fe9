"""models/cpu.py: server CPU generations and the reference-equivalent
clock the host models' cycle counts are read at (issue 33)."""

import pytest

from models import cpu, host, transport


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


def test_clock_scaled_migration_stream_preset():
    # seed 001, case S-HV-e: 4.75 Gbit/s per Hyper-V SMB stream at 2.6 GHz;
    # a thread bound by its core's cycles moves with the clock
    cap, reference_ghz, _ = transport.MIGRATION_STREAM_CAPS["hyperv"]
    assert cpu.clock_scaled(cap, reference_ghz, reference_ghz) == cap
    assert cpu.clock_scaled(cap, 2 * reference_ghz, reference_ghz) \
        == pytest.approx(2 * cap)
