"""Which validated cases back a metric (solvers.provenance), on small
hand-made case lists and on the bundled set."""

from solvers.accuracy import AREAS, Case, Check
from solvers.provenance import (FAMILY_AREAS, FAMILY_MODELS,
                                ProvenanceIndex, areas_of, quantity)


def _case(case_id, metric, status="held", model="models.wire.goodput",
          rel=0.01):
    return Case(id=case_id, title=case_id, area="wire", model=model,
                source="s", url="u", status=status,
                checks=(Check(metric=metric, measured=1.0, rel=rel,
                              justification="j"),))


def test_a_transfer_metric_and_its_headline_are_one_quantity():
    assert quantity("transfer.lm.throughput_gbps") == \
        quantity("host.throughput_gbps") == ("host", "throughput_gbps")
    assert quantity("migration.vm1.total_s") == quantity("migration.total_s")
    assert quantity("not-an-id") is None


def test_cases_group_by_status_with_their_tolerance():
    index = ProvenanceIndex([
        _case("A", "host.throughput_gbps", rel=0.05),
        _case("B", "transfer.x.throughput_gbps", status="known_miss"),
        _case("C", "host.cpu_pct"),
    ])
    text = index("transfer.lm.throughput_gbps").text()
    assert text.splitlines() == ["Backed by A (+-5 %): held",
                                 "Backed by B (+-1 %): known miss"]


def test_a_quantity_no_case_checks_names_the_cases_of_its_model():
    index = ProvenanceIndex([
        _case("W1", "wire.goodput_gbps"),
        _case("H1", "host.cpu_pct", model="models.host (preset)")])
    provenance = index("wire.frame_rate_pps")
    assert provenance.direct == ()
    assert [b.case for b in provenance.related] == ["W1"]
    assert "models.wire is tested by W1 (1 of 1 held)" in provenance.text()
    assert index("pcie.s1.slot_gbps").text().startswith("Not validated")


def test_answers_are_cached_per_metric():
    index = ProvenanceIndex([_case("A", "wire.goodput_gbps")])
    assert index("wire.goodput_gbps") is index("wire.goodput_gbps")


def test_metrics_name_the_areas_whose_cases_test_their_models():
    # an evacuation's times are pre-copy migrations; a transfer's rate is
    # the host's CPU and its transport; each area once, in order met
    assert areas_of(["evacuation.esx01.total_s", "wire.goodput_gbps",
                     "evacuation.total_s", "transfer.lm.throughput_gbps"]) \
        == ("evacuation", "migration", "wire", "host_cpu", "transport")
    assert areas_of(["not-an-id", "nothing.here"]) == ()


def test_every_metric_family_has_its_validation_areas():
    assert set(FAMILY_AREAS) == set(FAMILY_MODELS) | {"transfer", "uplink"}
    assert {a for areas in FAMILY_AREAS.values() for a in areas} == \
        set(AREAS)
