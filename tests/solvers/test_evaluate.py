"""evaluate(): the results contract, its values and its serialisations."""

import csv
import io
import json

import numpy as np
import pytest

from models import wire
from app.scenario_io import load_scenario
from models.scenario import ScenarioError, parse_scenario, scenario_from_dict
from solvers import metric_ids
from solvers.evaluate import evaluate
from solvers.results import Metric, format_number
from tests.conftest import EXAMPLES, ROOT, minimal_document

REQUIRED_METRICS = ("wire.efficiency_pct", "wire.goodput_gbps",
                    "wire.packets_per_s")


@pytest.fixture
def results(example_path):
    return evaluate(parse_scenario(example_path.read_text(), "toml"))


def test_contract_shape(results):
    data = json.loads(results.to_json())
    assert set(data) == {"linkplan_version", "scenario", "scenario_sha256",
                         "variants"}
    assert len(data["scenario_sha256"]) == 64
    names = [v["name"] for v in data["variants"]]
    assert names == ["Base", "MTU 9000", "IPv6", "802.1Q tagged",
                     "VXLAN overlay"]
    for variant in data["variants"]:
        assert {"name", "metrics", "bottleneck", "findings", "assumptions",
                "traces"} <= set(variant)
        ids = {m["id"] for m in variant["metrics"]}
        assert set(REQUIRED_METRICS) <= ids
        for metric in variant["metrics"]:
            assert {"id", "value", "unit"} <= set(metric)
        # the example's transfer names the host-level limit
        expected = "host.cpu_core" if variant["name"] == "VXLAN overlay" \
            else "host.link"
        assert variant["bottleneck"]["id"] == expected


def test_values_equal_the_model_functions(results):
    # evaluate() only gathers inputs: its numbers are the wire model's.
    expected = {
        "Base": wire.goodput(10.0, 1500),
        "MTU 9000": wire.goodput(10.0, 9000),
        "IPv6": wire.goodput(10.0, 1500, 6),
        "802.1Q tagged": wire.goodput(10.0, 1500, vlan_tags=1),
        "VXLAN overlay": wire.goodput(10.0, 1500, encapsulation_bytes=50),
    }
    for name, goodput in expected.items():
        variant = results.variant(name)
        assert variant.metric("wire.goodput_gbps").value == \
            pytest.approx(goodput, rel=1e-15)
        assert variant.metric("wire.packets_per_s").value == pytest.approx(
            goodput * 1e9 / 8 / variant.metric("wire.payload_bytes").value,
            rel=1e-15)
    assert results.variant("Base").metric("wire.efficiency_pct").value == \
        pytest.approx(100 * 1448 / 1538, rel=1e-15)


def test_aggregate_link_sums_the_nics():
    scenario = parse_scenario(
        (EXAMPLES / "seed003_ipv6_netperf.toml").read_text(), "toml")
    base = evaluate(scenario).variant("Base")
    assert base.metric("wire.link_gbps").value == 40.0
    assert "4 × 10 Gbit/s" in base.bottleneck.message


def test_trace_matches_marker(results):
    for variant in results.variants:
        trace = variant.traces["goodput_vs_mtu"]
        x = np.array(trace["x"]["values"])
        y = np.array(trace["y"]["values"])
        marker = trace["marker"]
        assert np.all(np.diff(y) > 0)  # efficiency rises with MTU
        assert marker["y"] == variant.metric("wire.goodput_gbps").value
        if marker["x"] in x:
            assert y[x == marker["x"]][0] == pytest.approx(marker["y"])
    ipv6 = results.variant("IPv6").traces["goodput_vs_mtu"]["x"]["values"]
    assert min(ipv6) >= 1280  # no IPv6 point below its minimum MTU


def test_raised_mtu_limit_is_evaluated_and_traced():
    # MTU 9600 on gear that accepts it (network.mtu_max): IPv4 TCP with
    # timestamps carries MTU - 52 B (protocol-overheads.md section 6)
    scenario = scenario_from_dict(minimal_document(
        network={"mtu": 9600, "mtu_max": 9710},
        workloads={"transfers": [{"name": "copy"}]}))
    base = evaluate(scenario).variant("Base")
    assert base.metric("wire.payload_bytes").value == 9600 - 52
    assert base.metric("wire.frame_bytes").value == 9600 + 38
    trace = base.traces["goodput_vs_mtu"]
    assert max(trace["x"]["values"]) > 9216
    assert max(trace["x"]["values"]) <= 9710
    assert trace["marker"]["x"] == 9600


def test_trace_stays_inside_a_narrowed_range():
    scenario = scenario_from_dict(minimal_document(
        network={"mtu": 1500, "mtu_min": 1280, "mtu_max": 4000}))
    x = evaluate(scenario).variants[0].traces["goodput_vs_mtu"]["x"]["values"]
    assert 1280 <= min(x) and max(x) <= 4000


def test_overlay_larger_than_the_accepted_mtu_is_a_warning():
    # VXLAN over IPv4 adds 50 B and must not be fragmented (RFC 7348
    # section 4.3): inner MTU 1500 needs a 1550 B underlay
    scenario = scenario_from_dict(minimal_document(
        network={"mtu": 1500, "mtu_max": 1500, "encapsulation": "vxlan"}))
    findings = {f.id: f for f in evaluate(scenario).variants[0].findings}
    warning = findings["wire.underlay_mtu_too_small"]
    assert warning.severity == "warning"
    assert "1550 B" in warning.message and "1450 B" in warning.message
    fitting = scenario.with_value("network.mtu", 1450)
    assert "wire.underlay_mtu_too_small" not in {
        f.id for f in evaluate(fitting).variants[0].findings}


def test_json_is_deterministic(example_path):
    text = example_path.read_text()
    assert evaluate(parse_scenario(text, "toml")).to_json() == \
        evaluate(parse_scenario(text, "toml")).to_json()


def test_csv_rows_carry_version_hash_and_units(results):
    rows = list(csv.DictReader(io.StringIO(results.to_csv())))
    assert len(rows) == sum(len(v.metrics) for v in results.variants)
    assert {r["scenario_sha256"] for r in rows} == {results.scenario_sha256}
    goodput = [r for r in rows if r["variant"] == "MTU 9000"
               and r["metric"] == "wire.goodput_gbps"][0]
    assert goodput["unit"] == "Gbit/s"
    assert float(goodput["value"]) == pytest.approx(9.900, abs=5e-4)


def test_csv_escapes_formula_cells():
    scenario = scenario_from_dict(minimal_document(
        meta={"name": "=HYPERLINK(\"x\")"},
        variants=[{"name": "+1 NIC", "set": {}}]))
    rows = list(csv.reader(io.StringIO(evaluate(scenario).to_csv())))
    assert rows[1][0] == "'=HYPERLINK(\"x\")"
    assert {r[3] for r in rows[1:]} == {"Base", "'+1 NIC"}


def test_csv_rows_are_what_csv_writer_writes():
    # to_csv joins pre-encoded fields instead of calling csv.writer per
    # row; names with a comma, a quote, a line break and a formula prefix
    # must come out as the writer quotes them (read back exactly)
    name = 'a, "b"\nc'
    scenario = scenario_from_dict(minimal_document(
        meta={"name": name},
        variants=[{"name": "-x, \"y\"", "set": {}}]))
    results = evaluate(scenario)
    rows = list(csv.reader(io.StringIO(results.to_csv())))
    assert {r[0] for r in rows[1:]} == {name}
    assert {r[3] for r in rows[1:]} == {"Base", "'-x, \"y\""}
    metrics = [m for v in results.variants for m in v.metrics]
    assert [(r[4], float(r[5]), r[6]) for r in rows[1:]] == \
        [(m.id, m.value, m.unit) for m in metrics]


def test_table_lists_shared_assumptions_once(results):
    table = results.to_table()
    assert table.count("No packet loss") == 1
    assert "VXLAN over IPv4: 50 B per packet" in table


def test_packet_loss_raises_an_unmodelled_effect_finding():
    # V16 (ESXi 7 NFS reads, 0.02 % loss, -35 %): out of scope. The check:
    # a non-zero loss input raises an "unmodelled effect" finding and leaves
    # the throughput unchanged.
    lossy = evaluate(scenario_from_dict(minimal_document(
        network={"packet_loss_pct": 0.02}))).variant("Base")
    clean = evaluate(scenario_from_dict(minimal_document())).variant("Base")
    assert [f.id for f in lossy.findings] == ["wire.loss_unmodelled"]
    assert lossy.metric("wire.goodput_gbps") == \
        clean.metric("wire.goodput_gbps")


def test_nan_never_reaches_results():
    with pytest.raises(ValueError, match="not finite"):
        Metric("x.y", float("nan"), "1", "x")


@pytest.mark.parametrize("value, text", [
    (9.414824, "9.415"), (94.148, "94.15"), (812743.8, "812,744"),
    (0.012345, "0.01235"), (0, "0"), (1448.0, "1,448")])
def test_format_number(value, text):
    assert format_number(value) == text


def test_without_transfers_the_wire_names_the_limit():
    base = evaluate(scenario_from_dict(minimal_document())).variant("Base")
    assert base.bottleneck.id == "wire.line_rate"
    assert not any(m.id.startswith("host.") for m in base.metrics)


def test_table_rows_drop_only_repeats_of_a_headline():
    scenario = parse_scenario(
        (EXAMPLES / "seed003_vmotion.toml").read_text(), "toml")
    results = evaluate(scenario)
    rows = results.metric_ids(
        headlines=metric_ids.repeating_headlines())
    assert "host.throughput_gbps" in rows
    assert "transfer.vmotion-net.throughput_gbps" not in rows
    assert "migration.total_s" in rows
    assert "migration.vm48.total_s" not in rows
    # equal values on different links are not repeats
    assert {f"uplink.vmnic{i}.rx_util_pct" for i in range(4)} <= set(rows)
    assert set(rows) < set(results.metric_ids())


def test_packet_rate_question_at_a_frame_size():
    # RFC 5180 A.1: 64 B frames on 10 GbE run at 14,880,952 frames/s and
    # each carries 18 B of UDP data over IPv4
    scenario = load_scenario(ROOT / "resources" / "examples"
                             / "jumbo_10gbe.toml")
    base = evaluate(scenario.with_value("network.frame_size_bytes",
                                        64)).variants[0]
    assert base.metric("wire.frame_rate_pps").value == pytest.approx(
        14_880_952.38, rel=1e-9)
    assert base.metric("wire.udp_payload_gbps").value == pytest.approx(
        10 * 18 / 84, rel=1e-12)
    plain = evaluate(scenario).variants[0]
    assert "wire.frame_rate_pps" not in {m.id for m in plain.metrics}
    with pytest.raises(ScenarioError, match="frame_size_bytes must be <= "
                       "1518"):
        scenario.with_value("network.frame_size_bytes", 1519)
