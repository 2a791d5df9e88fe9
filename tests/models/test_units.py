"""Quantities as people type them (issue 32 item 7): in the field's
canonical unit, a wrong dimension refused naming field, value and the
units accepted."""

import pytest

from models.scenario import ScenarioError, parse_scenario
from models.units import accepted_units, field_unit, parse_quantity


@pytest.mark.parametrize("text, unit, expected", [
    # decimal bytes per second into binary MiB/s: 1.5e9 / 2**20
    ("1.5 GB/s", "MiB/s", 1.5e9 / 2 ** 20),
    ("1.5GB/s", "MiB/s", 1.5e9 / 2 ** 20),
    ("200 MiB/s", "MiB/s", 200.0),
    ("10 Gbit/s", "MB/s", 1250.0),          # 10e9 / 8 / 1e6
    ("1.5 GB/s", "Gbit/s", 12.0),
    ("100 Mbit/s", "Gbit/s", 0.1),
    ("100 Mbps", "Gbit/s", 0.1),
    ("25 GbE", "Gbit/s", 25.0),
    ("40 gbit/s", "Gbit/s", 40.0),          # case-blind where unambiguous
    ("1 GiB/s", "Gbit/s", 8 * 2 ** 30 / 1e9),
    ("9 KiB", "B", 9216.0),
    ("64 GB", "GiB", 64e9 / 2 ** 30),
    ("512 MiB", "GiB", 0.5),
    ("300 ms", "s", 0.3),
    ("0.5 s", "ms", 500.0),
    ("2 min", "s", 120.0),
    ("250 us", "ms", 0.25),
    ("200 kIOPS", "IO/s", 200e3),
    ("2.4 GHz", "GHz", 2.4),
    ("2400 MHz", "GHz", 2.4),
    ("42 %", "%", 42.0),
    ("1,430.5", "MiB/s", 1430.5),           # a bare number is the unit's
])
def test_quantities_in_the_canonical_unit(text, unit, expected):
    assert parse_quantity(text, unit) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("text, unit, words", [
    ("1.5 GiB", "MiB/s", "'1.5 GiB' is a data size, but the field is a "
                         "data rate in MiB/s; accepted units: bit/s"),
    ("3 s", "Gbit/s", "is a time, but the field is a data rate"),
    ("10 mb/s", "Gbit/s", "no unit Linkplan knows"),   # megabit or -byte?
    ("9000 B", "", "takes a number without another unit"),
    ("fast", "Gbit/s", "expected a number in Gbit/s or with a unit"),
])
def test_wrong_units_name_field_value_and_accepted_units(text, unit, words):
    with pytest.raises(ValueError, match="^dirty.rate: .*" + words.replace(
            "(", r"\(").replace(")", r"\)")):
        parse_quantity(text, unit, field="dirty.rate")


def test_every_unit_shown_as_accepted_is_accepted():
    for unit in ("MiB/s", "GiB", "ms", "IO/s", "GHz", "%"):
        for other in accepted_units(unit):
            parse_quantity(f"1 {other}", unit)


def test_field_units_come_from_the_schema_naming():
    assert field_unit("rate_mib_s") == "MiB/s"
    assert field_unit("speed_gbps") == "Gbit/s"
    assert field_unit("stream_cap_pps", "Packets per second [1/s]") == "1/s"


SCENARIO = '''schema_version = 1
[meta]
name = "typed units"
[[nics]]
id = "nic1"
speed_gbps = "25 GbE"
[network]
mtu = "9 kB"
[[workloads.migrations]]
name = "vm"
memory_gib = "512 MiB"
downtime_budget_ms = "0.3 s"
dirty = { rate_mib_s = "1.5 GB/s" }
'''


def test_scenario_files_take_quantities_with_units():
    scenario = parse_scenario(SCENARIO, "toml")
    migration = scenario.workloads.migrations[0]
    assert scenario.nics[0].speed_gbps == 25.0
    assert scenario.network.mtu == 9000 and \
        isinstance(scenario.network.mtu, int)
    assert migration.memory_gib == 0.5
    assert migration.downtime_budget_ms == pytest.approx(300.0)
    assert migration.dirty.rate_mib_s == pytest.approx(1430.511474609375)
    # a variant may type one too
    changed = scenario.with_values(
        {"workloads.migrations[0].dirty.rate_mib_s": "100 MB/s"})
    assert changed.workloads.migrations[0].dirty.rate_mib_s == \
        pytest.approx(1e8 / 2 ** 20)


@pytest.mark.parametrize("old, new, problem", [
    ('"1.5 GB/s"', '"1.5 GiB"',
     "x.toml: workloads.migrations[0].dirty.rate_mib_s: '1.5 GiB' is a "
     "data size, but the field is a data rate in MiB/s; accepted units:"),
    ('"9 kB"', '"9.0001 kB"',
     "x.toml: network.mtu: '9.0001 kB' is 9000.1 B; give a whole number"),
    ('"25 GbE"', '"25"', "nics[0].speed_gbps: must be a number, got '25' "
                         "(str)"),
])
def test_scenario_files_refuse_a_wrong_unit_naming_the_field(old, new,
                                                             problem):
    with pytest.raises(ScenarioError) as err:
        parse_scenario(SCENARIO.replace(old, new), "toml", source="x.toml")
    assert problem in str(err.value)
