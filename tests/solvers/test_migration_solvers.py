"""Live migration through evaluate() (and its goal-seek answers), against
the published seed 003 case and analytical oracles. The goal seek itself
is tested in test_goalseek.py."""

import pytest

from models import migration as mig
from models.scenario import ScenarioError, parse_scenario, scenario_from_dict
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES, minimal_document

GIB = 2 ** 30


def metric(variant, name):
    return variant.metric(name).value


def test_s_v6_through_evaluate():
    # S-V6 (seed 003): ~40 s for IPv4 and IPv6 alike; the rate comes from
    # the transfer model (4 x 10 GbE, one stream per vmknic), the first
    # round from the measured allocation-limited rate. Check: 40 s +-15 %,
    # converged, IPv6 within 5 % of IPv4 (the article's own statement).
    scenario = parse_scenario((EXAMPLES / "seed003_vmotion.toml").read_text(),
                              "toml")
    ipv4, ipv6 = evaluate(scenario).variants
    for variant in (ipv4, ipv6):
        assert metric(variant, "migration.converged") == 1
        assert metric(variant, "migration.total_s") == pytest.approx(
            40, rel=0.15)
        trace = variant.traces["migration.vm48.rounds"]
        assert len(trace["y"]["values"]) == metric(variant,
                                                   "migration.rounds")
    assert metric(ipv6, "migration.total_s") == pytest.approx(
        metric(ipv4, "migration.total_s"), rel=0.05)
    # "S_stream x streams must allow at least 4301 MB/s"
    assert metric(ipv4, "migration.rate_gbps") >= 4301e6 * 8 / 1e9


def document_with(migration, **sections):
    # the stop rule's own hypervisor (models.platform.STOP_RULE_PLATFORMS)
    rule = migration.get("stop_rule", "vmotion")
    sections.setdefault("host", {"hypervisor": {
        "qemu": "kvm", "hyperv": "hyperv", "xen_legacy": "xen",
        "xen_v2": "xen"}.get(rule, "vsphere")})
    return minimal_document(workloads={"migrations": [migration]}, **sections)


def test_non_convergence_is_a_result_with_no_time():
    base = {"name": "busy", "memory_gib": 64, "stop_rule": "qemu",
            "dirty": {"rate_mib_s": 4000}}  # 4000 MiB/s on 10 GbE
    variant = evaluate(scenario_from_dict(document_with(base))).variants[0]
    assert metric(variant, "migration.converged") == 0
    ids = {m.id for m in variant.metrics}
    assert "migration.total_s" not in ids and "migration.downtime_s" \
        not in ids
    finding = variant.findings[-1]
    assert finding.id == "migration.no_convergence"
    assert finding.severity == "critical"
    assert finding.evidence["value"] > finding.evidence["threshold"]


def test_throttled_convergence_is_flagged():
    item = {"name": "busy", "memory_gib": 64, "stop_rule": "qemu",
            "throttling": "auto_converge", "dirty": {"rate_mib_s": 4000}}
    variant = evaluate(scenario_from_dict(document_with(item))).variants[0]
    assert metric(variant, "migration.converged") == 1
    assert metric(variant, "migration.throttle_pct") > 0
    assert variant.findings[-1].id == "migration.throttled"


def test_batches_of_concurrent_vms():
    item = {"name": "evacuate", "memory_gib": 8, "count": 10,
            "concurrency": 2, "stop_rule": "vmotion"}
    variant = evaluate(scenario_from_dict(document_with(item))).variants[0]
    assert metric(variant, "migration.all_vms_s") == pytest.approx(
        5 * metric(variant, "migration.total_s"))


@pytest.mark.parametrize("migration, fragment", [
    ({"name": "m", "memory_gib": 0}, "memory_gib: must be > 0, got 0"),
    ({"name": "m", "memory_gib": -4}, "memory_gib: must be > 0, got -4"),
    ({"name": "m", "memory_gib": 4, "stop_rule": "hyperspace"},
     "stop_rule: must be"),
    ({"name": "m", "memory_gib": 4, "dirty": {"rate_mib_s": 1e9}},
     "dirty.rate_mib_s: must be <= 1e+07, got 1000000000"),
    ({"name": "m", "memory_gib": 4, "transfer": "nope"},
     "transfer names 'nope'"),
])
def test_bad_migration_fields_are_named(migration, fragment):
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict(document_with(migration))
    assert fragment in str(err.value)


# -- goal seek through evaluate() ------------------------------------------

def test_evaluate_answers_what_it_takes_to_meet_the_time_budget():
    # seed 003 with a 60 s slot: the rate it names, fed back into the
    # same model (SDPS and the first-round cap included), meets the slot
    scenario = parse_scenario((EXAMPLES / "seed003_vmotion.toml").read_text(),
                              "toml")
    base = evaluate(scenario).variants[0]
    needed = metric(base, "migration.rate_needed_gbps") * 1e9 / 8
    result = mig.precopy(48 * GIB, needed, 0.0, hot_set=48 * GIB,
                         hot_rate=38147.0 * 2 ** 20,
                         first_rate=min(1809.1 * 2 ** 20, needed),
                         downtime_limit=0.5, max_switchover=100,
                         throttle="sdps")
    assert result["total_time"] == pytest.approx(60.0, rel=1e-3)
    assert metric(base, "migration.nics_needed") == 2  # 10 GbE vmknics
    assert metric(base, "migration.largest_vm_gib") > 48


def test_qemu_max_bandwidth_is_the_default_unless_the_manager_lifts_it():
    # issue 20: 8 GiB dirtied at 150 MiB/s. QEMU's own max-bandwidth
    # default (MAX_THROTTLE 128 MiB/s since 5.2, migration/migration.c)
    # is below the dirty rate: no convergence. libvirt lifts the cap
    # (QEMU_DOMAIN_MIG_BANDWIDTH_MAX): 10 GbE converges. An explicit
    # max_bandwidth_mib_s wins over both. The assumption names the cap.
    base = {"name": "vm", "memory_gib": 8, "stop_rule": "qemu",
            "dirty": {"rate_mib_s": 150}}
    bare = evaluate(scenario_from_dict(document_with(base))).variants[0]
    assert metric(bare, "migration.converged") == 0
    assert metric(bare, "migration.rate_gbps") == pytest.approx(
        128 * 2 ** 20 * 8 / 1e9)
    assert any("max-bandwidth 128 MiB/s (QEMU 9.2 default)" in text
               for text in bare.assumptions)
    lifted = evaluate(scenario_from_dict(document_with(
        dict(base, management="libvirt")))).variants[0]
    assert metric(lifted, "migration.converged") == 1
    assert any("no cap (lifted by libvirt)" in text
               for text in lifted.assumptions)
    explicit = evaluate(scenario_from_dict(document_with(
        dict(base, management="libvirt", max_bandwidth_mib_s=100))))
    assert metric(explicit.variants[0], "migration.rate_gbps") == \
        pytest.approx(100 * 2 ** 20 * 8 / 1e9)


def test_bad_qemu_version_names_the_field_and_value():
    base = {"name": "vm", "memory_gib": 8, "stop_rule": "qemu",
            "qemu_version": "latest"}
    with pytest.raises(ScenarioError) as error:
        scenario_from_dict(document_with(base))
    text = str(error.value)
    assert "workloads.migrations[0].qemu_version" in text or \
        "workloads.migrations.0.qemu_version" in text
    assert "latest" in text
