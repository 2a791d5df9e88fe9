"""A scenario file with quantities typed with units (issue 32 item 7)."""

from tests.app.test_cli import assert_clean_failure, run

FILE = '''schema_version = 1
[meta]
name = "typed units"
[[nics]]
id = "nic1"
speed_gbps = 10.0
[[workloads.migrations]]
name = "vm"
memory_gib = "64 GB"
dirty = { rate_mib_s = "RATE" }
'''


def test_a_dirty_rate_in_gb_per_s_solves(tmp_path):
    path = tmp_path / "units.toml"
    path.write_text(FILE.replace("RATE", "0.1 GB/s"))
    process = run("solve", str(path), "--format", "json")
    assert process.returncode == 0, process.stderr


def test_a_wrong_dimension_exits_2_naming_file_field_and_units(tmp_path):
    path = tmp_path / "units.toml"
    path.write_text(FILE.replace("RATE", "1.5 GiB"))
    assert_clean_failure(
        run("solve", str(path)),
        f"{path}: workloads.migrations[0].dirty.rate_mib_s: '1.5 GiB' is a "
        "data size, but the field is a data rate in MiB/s; accepted units: "
        "bit/s")


def test_saving_keeps_what_was_typed_with_a_unit(tmp_path):
    # an edit elsewhere leaves "1.5 GB/s" as the user wrote it; a changed
    # value is written in the field's unit
    from app.scenario_io import load_scenario, save_scenario
    path = tmp_path / "units.toml"
    path.write_text(FILE.replace("RATE", "1.5 GB/s"))
    scenario = load_scenario(path)
    save_scenario(scenario.with_values({"network.mtu": 9000}), path)
    text = path.read_text()
    assert 'rate_mib_s = "1.5 GB/s"' in text
    assert 'memory_gib = "64 GB"' in text
    save_scenario(load_scenario(path).with_values(
        {"workloads.migrations[0].memory_gib": 32.0}), path)
    text = path.read_text()
    assert "memory_gib = 32.0" in text and '"1.5 GB/s"' in text
