"""Units people type in the editor (issue 32 item 7)."""

import pytest


@pytest.fixture
def migration(window):
    window.show_scenario(window.scenario.with_values({
        "workloads.migrations": [{"name": "vm", "memory_gib": 64.0,
                                  "stop_rule": "qemu"}]}))
    return "workloads.migrations[0]"


def test_a_dirty_rate_typed_in_gb_per_s_is_stored_in_mib_per_s(window,
                                                              migration):
    path = f"{migration}.dirty.rate_mib_s"
    field = window.editor.field(path)
    assert field.unit.text() == "MiB/s"   # the canonical unit beside
    assert "In MiB/s, or typed with a unit: bit/s" in field.input.toolTip()
    field.enter("1.5 GB/s")
    assert window.scenario.value_at(path) == pytest.approx(1.5e9 / 2 ** 20)
    window.editor.field(f"{migration}.memory_gib").enter("512 MiB")
    assert window.scenario.value_at(f"{migration}.memory_gib") == 0.5
    window.editor.field("nics[0].speed_gbps").enter("25 GbE")
    assert window.scenario.nics[0].speed_gbps == 25.0
    window.editor.field("network.mtu").enter("9 KB")
    assert window.scenario.network.mtu == 9000


def test_a_wrong_dimension_is_refused_on_the_field(window, migration):
    path = f"{migration}.dirty.rate_mib_s"
    before = window.scenario
    field = window.editor.field(path)
    field.enter("1.5 GiB")
    assert window.scenario is before   # nothing changed
    text = field.error.text()
    assert text.startswith("Not applied: Rate: '1.5 GiB' is a data "
                           "size, but the field is a data rate in MiB/s")
    assert "accepted units:" in text and "GB/s" in text
    field = window.editor.field("network.mtu")
    field.enter("9.0001 KB")
    assert "give a whole number of B" in field.error.text()
