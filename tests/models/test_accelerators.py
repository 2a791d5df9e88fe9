"""On-die offload engines: a scenario asking for one its CPU lacks is refused
with the field, the value and the generations that have it."""

import pytest

from models.cpu import CPU_GENERATIONS, generations_with
from models.scenario import ScenarioError, scenario_from_dict
from tests.conftest import minimal_document


def _qpl_migration(cpu):
    return minimal_document(
        host={"hypervisor": "kvm", "cpu": cpu},
        nics=[{"id": "nic0", "speed_gbps": 25.0}],
        workloads={"migrations": [{
            "name": "vm", "memory_gib": 8, "stop_rule": "qemu",
            "multifd": True, "streams": 4, "qemu_version": "9.1",
            "transport": "compression", "compressor": "qpl",
            "compression_data": "silesia", "qat_devices": 4}]})


def test_iaa_is_on_xeon_4th_generation_and_later_only():
    # Intel IAA User Guide (2022): IAA first ships in 4th Gen Xeon Scalable
    assert generations_with("iaa") == (
        "intel_sapphire_rapids", "intel_emerald_rapids",
        "intel_granite_rapids")
    assert generations_with("dsa") == generations_with("iaa")
    assert not CPU_GENERATIONS["legacy"].accelerators


def test_unknown_accelerator_lists_the_choices():
    with pytest.raises(ValueError, match="one of iaa, dsa, got 'qat'"):
        generations_with("qat")


@pytest.mark.parametrize("cpu", ["amd_genoa", "intel_ice_lake", "legacy",
                                 "arm_graviton4"])
def test_qpl_on_a_cpu_without_iaa_is_refused(cpu):
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict(_qpl_migration(cpu))
    message = str(err.value)
    assert "workloads.migrations[0].compressor 'qpl'" in message
    assert f"host.cpu {cpu!r} lacks" in message
    assert "intel_sapphire_rapids, intel_emerald_rapids, " \
        "intel_granite_rapids" in message


def test_qpl_on_sapphire_rapids_and_qatzip_anywhere_are_valid():
    scenario_from_dict(_qpl_migration("intel_sapphire_rapids"))
    document = _qpl_migration("amd_genoa")
    # QAT also comes as a PCIe card: no CPU generation is required
    document["workloads"]["migrations"][0].update(compressor="qatzip",
                                                   qemu_version="9.2")
    scenario_from_dict(document)


def test_qpl_on_a_transfer_is_checked_too():
    document = minimal_document(
        host={"hypervisor": "kvm", "cpu": "amd_turin"},
        workloads={"transfers": [{
            "name": "t", "transport": "compression", "compressor": "qpl"}]})
    with pytest.raises(ScenarioError, match=r"workloads\.transfers\[0\]"
                       r"\.compressor 'qpl' runs on the Intel In-Memory"):
        scenario_from_dict(document)
