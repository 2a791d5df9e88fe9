"""The scenario document: validation messages, variants, paths, versions."""

import copy
import json

import pytest
from pydantic import create_model

from models.scenario import (SCHEMA_VERSION, Network, Scenario, ScenarioError,
                             dump_scenario, get_path, migrate, new_scenario,
                             parse_path, parse_scenario, scenario_from_dict,
                             set_path)
from tests.conftest import EXAMPLES, ROOT, minimal_document


def problems_of(document):
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict(document)
    return str(err.value)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")),
                         ids=lambda p: p.name)
def test_every_example_loads(path):
    scenario = parse_scenario(path.read_text(), "toml")
    assert scenario.schema_version == SCHEMA_VERSION


def test_historical_version_1_fixture_still_loads():
    # tests/data keeps one file per released schema version; each must keep
    # loading through the migrations (style-anchors.md section 2.5).
    path = ROOT / "tests" / "data" / "scenario_v1.toml"
    scenario = parse_scenario(path.read_text(), "toml")
    assert [name for name, _ in scenario.variant_documents()] == \
        ["Base", "MTU 9000"]


@pytest.mark.parametrize("nic, expected", [
    ({"id": "a", "speed_gbps": -10}, "nics[0].speed_gbps: must be > 0, "
                                     "got -10"),
    ({"id": "a", "speed_gbps": 0}, "nics[0].speed_gbps: must be > 0, got 0"),
    ({"id": "a", "speed_gbps": float("nan")},
     "nics[0].speed_gbps: must be a finite number, got nan"),
    ({"id": "a", "speed_gbps": float("inf")},
     "nics[0].speed_gbps: must be a finite number, got inf"),
    ({"id": "a", "speed_gbps": "10"},
     "nics[0].speed_gbps: must be a number, got '10' (str)"),
    ({"id": "a", "speed_gbps": True},
     "nics[0].speed_gbps: must be a number, got True"),
    ({"id": "a", "speed_gbps": 10, "colour": "red"},
     "nics[0].colour: unknown key"),
    ({"speed_gbps": 10}, "nics[0].id: required field is missing"),
    ({"id": "a", "speed_gbps": 10, "rdma": "omni_path"},
     "nics[0].rdma: must be 'none', 'roce_v2', 'iwarp' or 'infiniband', "
     "got 'omni_path'"),
])
def test_field_errors_name_path_and_value(nic, expected):
    assert expected in problems_of(minimal_document(nics=[nic]))


def test_second_list_entry_is_named_by_index():
    message = problems_of(minimal_document(nics=[
        {"id": "a", "speed_gbps": 10}, {"id": "b", "speed_gbps": -10}]))
    assert message == "nics[1].speed_gbps: must be > 0, got -10"


def test_every_problem_is_reported_at_once():
    message = problems_of(minimal_document(
        network={"mtu": 100, "vlan_tags": 5}, host={"sockets": 0}))
    assert "network.mtu: must be >= 576, got 100" in message
    assert "network.vlan_tags: must be <= 2, got 5" in message
    assert "host.sockets: must be >= 1, got 0" in message


def test_ipv6_minimum_mtu_is_enforced_on_the_mtu_field():
    message = problems_of(minimal_document(network={"ip_version": 6,
                                                    "mtu": 1000}))
    assert message.startswith("network.mtu: must be at least 1280 with IPv6")


def test_mtu_is_checked_against_the_scenarios_own_limits():
    # issue 3, bad input: "MTU outside 576-9216 (limits configurable)"; the
    # message names the field, the value and the limit that refused it
    assert problems_of(minimal_document(network={"mtu": 9300})) == \
        "network.mtu: must be <= 9216 (network.mtu_max), got 9300"
    raised = scenario_from_dict(minimal_document(
        network={"mtu": 9600, "mtu_max": 9710}))
    assert raised.network.mtu == 9600
    assert problems_of(minimal_document(
        network={"mtu": 1400, "mtu_min": 1500})) == \
        "network.mtu: must be >= 1500 (network.mtu_min), got 1400"


@pytest.mark.parametrize("network, expected", [
    ({"mtu_min": 2000, "mtu_max": 1500},
     "network.mtu_max: must be >= mtu_min (2000), got 1500"),
    ({"mtu_max": 70000}, "network.mtu_max: must be <= 65535, got 70000"),
    ({"mtu_min": 100}, "network.mtu_min: must be >= 576, got 100"),
])
def test_mtu_limits_themselves_are_checked(network, expected):
    assert problems_of(minimal_document(network=network)) == expected


def test_unknown_top_level_key():
    assert "routers: unknown key" in problems_of(
        minimal_document(routers=[]))


@pytest.mark.parametrize("document, expected", [
    (minimal_document(teams=[{"name": "t", "members": ["nic9"]}]),
     "NIC 'nic9', which is not in nics"),
    (minimal_document(teams=[{"name": "t", "members": ["nic0"],
                              "policy": "ip_hash"}]),
     "policy 'ip_hash'"),
    (minimal_document(nics=[{"id": "a", "speed_gbps": 1},
                            {"id": "a", "speed_gbps": 1}]),
     "nics[1].id 'a' is used twice"),
    (minimal_document(variants=[{"name": "Base"}]), "may not be called"),
    (minimal_document(workloads={"flows": [{"id": "f", "src_ip": "10.0.0"}]}),
     "not an IP address"),
])
def test_cross_field_rules(document, expected):
    assert expected in problems_of(document)


def test_missing_and_future_schema_version():
    document = minimal_document()
    del document["schema_version"]
    assert "schema_version: required field is missing" in \
        problems_of(document)
    assert "99 is newer than this build" in \
        problems_of(minimal_document(schema_version=99))


def test_malformed_text_is_reported_with_its_position():
    with pytest.raises(ScenarioError, match="malformed TOML"):
        parse_scenario("schema_version = = 1", "toml", source="a.toml")
    with pytest.raises(ScenarioError, match=r"malformed JSON: .* line 1 "):
        parse_scenario('{"schema_version": 1,}', "json", source="a.json")
    with pytest.raises(ScenarioError, match="must be a table/object"):
        parse_scenario("[1, 2]", "json")


def test_nan_in_json_and_toml_is_rejected():
    document = minimal_document()
    text = json.dumps(document).replace("10.0", "NaN")
    with pytest.raises(ScenarioError, match="finite number, got nan"):
        parse_scenario(text, "json")
    toml = ('schema_version = 1\n[meta]\nname = "x"\n[[nics]]\nid = "a"\n'
            'speed_gbps = inf\n')
    with pytest.raises(ScenarioError, match="finite number, got inf"):
        parse_scenario(toml, "toml")


# -- variants and parameter paths -----------------------------------------

def test_variants_override_the_base_only():
    scenario = scenario_from_dict(minimal_document(variants=[
        {"name": "jumbo", "set": {"network.mtu": 9000}},
        {"name": "fast", "set": {"nics[0].speed_gbps": 25.0}}]))
    resolved = dict(scenario.variant_documents())
    assert resolved["Base"].network.mtu == 1500
    assert resolved["jumbo"].network.mtu == 9000
    assert resolved["jumbo"].nics[0].speed_gbps == 10.0
    assert resolved["fast"].nics[0].speed_gbps == 25.0


def test_variant_with_unknown_path_or_bad_value():
    assert 'variants[0] (\'v\').set."network.mtuu": unknown parameter ' \
        "path 'network.mtuu': network has no field 'mtuu'" in problems_of(
            minimal_document(variants=[{"name": "v",
                                        "set": {"network.mtuu": 1}}]))
    assert "variants[0] ('v'): nics[0].speed_gbps: must be > 0, got 0" in \
        problems_of(minimal_document(variants=[
            {"name": "v", "set": {"nics[0].speed_gbps": 0}}]))
    assert "has 1 entries, no index 3" in problems_of(minimal_document(
        variants=[{"name": "v", "set": {"nics[3].speed_gbps": 1}}]))


def test_variant_failing_a_document_check_names_the_variant_once():
    # a cross-reference check has no field path: no empty path after it
    message = problems_of(minimal_document(
        teams=[{"name": "t", "members": ["nic0"]}],
        variants=[{"name": "v", "set": {"teams[0].members": ["nic9"]}}]))
    assert message == ("variants[0] ('v'): teams[0] names NIC 'nic9', "
                       "which is not in nics")


def test_paths():
    assert parse_path("nics[1].offloads.ipv6.tso") == \
        ["nics", 1, "offloads", "ipv6", "tso"]
    data = {"a": [{"b": 1}, {"b": 2}]}
    assert get_path(data, "a[1].b") == 2
    set_path(data, "a[0].b", 5)
    assert data == {"a": [{"b": 5}, {"b": 2}]}
    for bad in ("", "a..b", "a[x]", "1a"):
        with pytest.raises(KeyError):
            parse_path(bad)


def test_with_value_validates_and_leaves_the_original():
    scenario = new_scenario()
    changed = scenario.with_value("network.mtu", 9000)
    assert (scenario.network.mtu, changed.network.mtu) == (1500, 9000)
    with pytest.raises(ScenarioError, match="network.mtu"):
        scenario.with_value("network.mtu", 99999)


# -- versions and serialisation ---------------------------------------------

def test_migration_hook_upgrades_through_each_step():
    document = minimal_document()
    steps = {1: lambda d: {**d, "meta": {**d["meta"], "name": "renamed"}}}
    upgraded = migrate(document, target=2, migrations=steps)
    assert upgraded["schema_version"] == 2
    assert upgraded["meta"]["name"] == "renamed"
    assert document["schema_version"] == 1  # the input is untouched


def test_failing_migration_rolls_back_and_names_the_step():
    document = minimal_document()
    before = copy.deepcopy(document)

    def broken(data):
        data["meta"]["name"] = "half-done"
        raise RuntimeError("boom")

    with pytest.raises(ScenarioError, match="migrating from version 1 "
                                            "failed: boom"):
        migrate(document, target=2, migrations={1: broken})
    assert document == before


def test_missing_migration_step():
    with pytest.raises(ScenarioError, match="no migration from version 1"):
        migrate(minimal_document(), target=2, migrations={})


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_dump_and_parse_round_trip(fmt, example_path):
    scenario = parse_scenario(example_path.read_text(), "toml")
    again = parse_scenario(dump_scenario(scenario, fmt), fmt)
    assert again == scenario
    assert again.sha256() == scenario.sha256()


def test_sha256_ignores_format_and_key_order():
    a = scenario_from_dict(minimal_document())
    reordered = dict(reversed(list(minimal_document().items())))
    assert scenario_from_dict(reordered).sha256() == a.sha256()
    assert a.with_value("network.mtu", 9000).sha256() != a.sha256()


def test_sha256_is_unchanged_by_a_new_defaulted_field():
    # issue 31: the hash in every result and golden file is that of the
    # minimal document, so a schema field added with a default (here a
    # network table with one more field) changes no hash
    wider_network = create_model("WiderNetwork", __base__=Network,
                                 future_knob=(int, 7))
    wider_scenario = create_model(
        "WiderScenario", __base__=Scenario,
        network=(wider_network, wider_network()))
    document = minimal_document()
    assert wider_scenario(**scenario_from_dict(document).model_dump()) \
        .sha256() == scenario_from_dict(document).sha256()
    document["network"] = {"mtu": 9000}
    widened = wider_scenario.model_validate(document)
    assert widened.network.future_knob == 7
    assert widened.sha256() == scenario_from_dict(document).sha256()
    document["network"]["future_knob"] = 8
    assert wider_scenario.model_validate(document).sha256() != \
        widened.sha256()


def test_schema_is_json_schema():
    schema = Scenario.model_json_schema()
    assert schema["additionalProperties"] is False
    assert "network" in schema["properties"]


def test_queue_mode_of_another_hypervisor_is_refused():
    # vRSS/VMMQ are Hyper-V's, multi-queue vNICs vSphere's and KVM's
    message = problems_of(minimal_document(
        host={"hypervisor": "vsphere"},
        workloads={"transfers": [{"name": "t", "receive_queues": "vrss"}]}))
    assert "workloads.transfers[0].receive_queues 'vrss' does not exist " \
        "on host.hypervisor 'vsphere' (only on hyperv)" in message
    message = problems_of(minimal_document(
        host={"hypervisor": "hyperv"}, workloads={"transfers": [
            {"name": "t", "receive_queues": "multiqueue"}]}))
    assert "'multiqueue' does not exist on host.hypervisor 'hyperv' " \
        "(only on vsphere, kvm)" in message


def test_stack_preset_of_another_hypervisor_is_refused():
    message = problems_of(minimal_document(
        host={"hypervisor": "kvm", "stack": "windows_host"}))
    assert "host.stack 'windows_host' is a preset of hyperv hosts, not of " \
        "host.hypervisor 'kvm'" in message


def test_software_offload_flags_are_booleans():
    message = problems_of(minimal_document(nics=[
        {"id": "n", "speed_gbps": 10.0,
         "offloads": {"ipv4": {"gro": "yes"}}}]))
    assert "nics[0].offloads.ipv4.gro" in message and "'yes'" in message


def test_unknown_receive_queue_mode_is_named():
    message = problems_of(minimal_document(workloads={"transfers": [
        {"name": "t", "receive_queues": "netqueue"}]}))
    assert message == ("workloads.transfers[0].receive_queues: must be "
                       "'rss', 'vmq', 'vrss', 'vmmq' or 'multiqueue', got "
                       "'netqueue' (str)")


def _migration(hypervisor="kvm", nics=None, **fields):
    item = {"name": "vm", "memory_gib": 8, "stop_rule": "qemu", **fields}
    return minimal_document(
        host={"hypervisor": hypervisor},
        nics=nics or [{"id": "nic0", "speed_gbps": 10.0}],
        workloads={"migrations": [item]})


@pytest.mark.parametrize("document, expected", [
    # post-copy exists in QEMU/KVM only: never a silent pre-copy fallback
    (_migration("vsphere", stop_rule="vmotion",
                switchover="postcopy_after_first_pass"),
     "workloads.migrations[0].switchover 'postcopy_after_first_pass': "
     "post-copy exists in QEMU/KVM only"),
    (_migration("hyperv", stop_rule="hyperv",
                switchover="postcopy_at_time_budget", time_budget_s=60),
     "host.hypervisor 'hyperv' with stop_rule 'hyperv' has none"),
    (_migration(switchover="postcopy_at_time_budget"),
     "'postcopy_at_time_budget' needs time_budget_s"),
    (_migration(transport="rdma"),
     "workloads.migrations[0].transport 'rdma' needs an RDMA-capable NIC"),
    (_migration("hyperv", stop_rule="hyperv", transport="rdma",
                nics=[{"id": "r", "speed_gbps": 25, "rdma": "roce_v2"}]),
     "transport 'rdma' is QEMU's RDMA migration transport"),
    (_migration(rdma_pin_all=True),
     "workloads.migrations[0].rdma_pin_all true needs transport 'rdma', "
     "got 'tcp'"),
    (_migration(compressor="zstd-1"),
     "workloads.migrations[0].compressor 'zstd-1' needs transport "
     "'compression', got 'tcp'"),
    (_migration(transport="compression", compression_data="silesia"),
     "compression_data 'silesia' needs a compressor"),
    (_migration("vsphere", stop_rule="vmotion", multifd=True),
     "workloads.migrations[0].multifd true: multifd is QEMU's"),
    # the compressors each QEMU release offers (QEMU 9.1 removed the
    # legacy compress threads; multifd: zlib/zstd since 5.0, QATzip 9.2)
    (_migration(transport="compression", compressor="zlib-1"),
     "compressor 'zlib-1': QEMU 9.2 has no legacy compress threads"),
    (_migration(transport="compression", compressor="zstd-1",
                qemu_version="2.12"),
     "legacy compress threads use zlib only"),
    (_migration(transport="compression", compressor="lz4", multifd=True),
     "multifd compresses with zlib, zstd, qpl or qatzip only"),
    (_migration(transport="compression", compressor="qatzip", multifd=True,
                qemu_version="9.0"),
     "QEMU multifd offers it from 9.2, got qemu_version '9.0'"),
    # QPL (IAA) came with QEMU 9.1 (migration/multifd-qpl.c)
    (_migration(transport="compression", compressor="qpl", multifd=True,
                qemu_version="9.0"),
     "QEMU multifd offers it from 9.1, got qemu_version '9.0'"),
    (minimal_document(workloads={"transfers": [
        {"name": "t", "transport": "rdma"}]}),
     "workloads.transfers[0].transport 'rdma' needs an RDMA-capable NIC"),
])
def test_migration_mode_combinations(document, expected):
    assert expected in problems_of(document)


def test_unknown_compressor_names_path_and_value():
    message = problems_of(_migration(transport="compression",
                                     compressor="zstd-99"))
    assert "workloads.migrations[0].compressor" in message
    assert "zstd-99" in message


def storage_document(nics=None, **workload):
    item = {"name": "w", "protocol": "iscsi",
            "backend": {"iops_max": 1e5, "service_time_ms": 0.1},
            **workload}
    return minimal_document(
        nics=nics or [{"id": "nic0", "speed_gbps": 25.0}],
        workloads={"storage": [item]})


@pytest.mark.parametrize("document, expected", [
    # an RDMA transport needs RDMA NICs (issue 14: impossible combinations
    # are clear errors, never a silent fallback to TCP)
    (storage_document(transport="rdma"),
     "workloads.storage[0].transport 'rdma' needs RDMA NICs, but NIC(s) "
     "'nic0' have rdma = 'none'"),
    (storage_document(protocol="local", transport="tcp"),
     "workloads.storage[0].transport: local IO crosses no network, so it "
     "has no transport, got 'tcp'"),
    (storage_document(transport="udp"),
     "workloads.storage[0].transport: must be 'tcp' or 'rdma', got 'udp'"),
    (storage_document(backend={"kind": "nvme", "iops_max": 4.5e5}),
     "workloads.storage[0].backend: kind 'nvme' needs service_time_ms"),
    (storage_document(backend={"kind": "cloud_volume", "mbps_max": 1000,
                               "service_time_ms": 1}),
     "workloads.storage[0].backend: kind 'cloud_volume' needs iops_max"),
    (storage_document(backend={"iops_max": 1e5, "channels": 18}),
     "workloads.storage[0].backend: channels (18) applies to kind 'nvme' "
     "only, got kind 'array'"),
    (storage_document(backend={"kind": "nvme", "iops_max": 4.5e5,
                               "service_time_ms": 0.1, "channels": 0}),
     "workloads.storage[0].backend.channels: must be >= 1, got 0"),
    # a rating in the wrong unit must not become a device with millions
    # of channels (found by the fuzzer)
    (storage_document(backend={"kind": "nvme", "iops_max": 1e12,
                               "service_time_ms": 0.08}),
     "workloads.storage[0].backend: kind 'nvme': iops_max x "
     "service_time_ms means 8e+07 IOs in service at once, more than the "
     "4096 channels allowed"),
])
def test_storage_transport_and_backend_errors_name_path_and_value(
        document, expected):
    assert expected in problems_of(document)


def test_rdma_transport_on_rdma_nics_is_accepted():
    scenario = scenario_from_dict(storage_document(
        nics=[{"id": "nic0", "speed_gbps": 25.0, "rdma": "roce_v2"}],
        transport="rdma", protocol="nvmeof",
        backend={"kind": "nvme", "iops_max": 1e6, "service_time_ms": 0.08,
                 "channels": 32}))
    assert scenario.workloads.storage[0].transport == "rdma"
