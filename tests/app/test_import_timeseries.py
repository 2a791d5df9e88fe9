"""perfmon/typeperf, vCenter Get-Stat and sar (sadf -j) -> scenarios with
measured demand profiles.

Formats: Microsoft typeperf (-f CSV, PDH-CSV 4.0; "Network Interface"
Bytes Sent/sec, Bytes Received/sec, Current Bandwidth [bit/s];
"Hyper-V Virtual Network Adapter"); VMware PowerCLI Get-Stat exported with
Export-Csv (Value, Timestamp, MetricId, Unit, Instance, IntervalSecs,
Entity; net.*.average in KBps); sysstat sadf(1) -j with -n DEV (rxkB,
txkB in kB/s, ifutil-percent). Samples: tests/app/import_samples.py.
"""

import numpy as np
import pytest

from app.importers.common import run_import
from solvers.evaluate import evaluate
from tests.app.import_samples import SAMPLES


def _demand(scenario, flow):
    profile = next(p for p in scenario.workloads.profiles
                   if p.name == flow.profile)
    return np.array(profile.t_s), flow.tx_gbps * np.array(profile.scale)


@pytest.mark.parametrize("sample", ["typeperf.csv", "typeperf_german.csv"])
def test_perfmon(sample):
    outcome = run_import("perfmon", [SAMPLES / sample])
    (scenario,) = outcome.scenarios
    assert scenario.host.hypervisor == "hyperv"
    assert [n.speed_gbps for n in scenario.nics] == [25.0, 25.0]
    assert [(t.policy, t.switch_mode) for t in scenario.teams] == [
        ("dynamic", "independent")]
    (flow,) = scenario.workloads.flows
    assert flow.vm == "vm-sql"
    times, tx = _demand(scenario, flow)
    # 1 and 2 Gbit/s alternating from sample 3 on; 0 before it appeared
    expected = np.array([0, 0, 0] + [2.0 if i % 2 else 1.0
                                     for i in range(3, 12)])
    assert tx == pytest.approx(expected)
    assert (tx.mean(), np.percentile(tx, 95), tx.max()) == pytest.approx(
        (expected.mean(), 2.0, 2.0))
    assert flow.rx_gbps == pytest.approx(0.4)
    assert times[1] == 15 and scenario.workloads.time_step_s == 15
    assert any("vEthernet (Management)" in s for s in outcome.result.skipped)
    assert not outcome.problems
    evaluate(scenario)


def test_vcenter():
    outcome = run_import("vcenter", [SAMPLES / "vcenter_get_stat.csv"])
    (scenario,) = outcome.scenarios
    flows = {f.vm: f for f in scenario.workloads.flows}
    assert sorted(flows) == ["app01", "web01"]
    # KBps are 1024 bytes per second: 12800 KBps = 0.1048576 Gbit/s
    _, tx = _demand(scenario, flows["web01"])
    expected = (12800 + 1280 * np.arange(15)) * 1024 * 8 / 1e9
    assert tx == pytest.approx(expected)
    assert (tx.mean(), np.percentile(tx, 95), tx.max()) == pytest.approx(
        (expected.mean(), np.percentile(expected, 95), expected.max()))
    assert flows["web01"].rx_gbps == pytest.approx(expected.max() / 2)
    # 20 s real-time and 300 s historical samples side by side
    assert scenario.workloads.time_step_s == 20
    times, _ = _demand(scenario, flows["app01"])
    assert list(np.diff(times)) == [300, 300, 300, 600, 300, 300]
    assert [n.id for n in scenario.nics] == ["vmnic0"]
    assert any("10 Gbit/s" in a for a in scenario.meta.assumptions)
    assert any("600 s between samples of app01" in p
               for p in outcome.problems)
    assert any("instance '4000'" in s for s in outcome.result.skipped)
    evaluate(scenario)


def test_vcenter_missing_column_and_bad_unit(tmp_path):
    text = (SAMPLES / "vcenter_get_stat.csv").read_text()
    no_unit = tmp_path / "no_unit.csv"
    no_unit.write_text(text.replace('"Unit",', '"Units",'))
    outcome = run_import("vcenter", [no_unit])
    assert not outcome.scenarios
    assert outcome.problems[0].startswith(
        f"{no_unit}: row 2, column 'Unit': expected a Get-Stat export with "
        "columns Value, Timestamp, MetricId, Unit, Instance, Entity")
    mbps = tmp_path / "mbps.csv"
    mbps.write_text(text.replace('"KBps"', '"MBps"', 1))
    outcome = run_import("vcenter", [mbps])
    assert outcome.problems == [f"{mbps}: row 3, column 'Unit': expected "
                                "unit KBps for net.transmitted.average, "
                                "got 'MBps'"]


def test_vcenter_non_numeric_value(tmp_path):
    text = (SAMPLES / "vcenter_get_stat.csv").read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text(text.replace('"12800"', '"n/a"', 1))
    outcome = run_import("vcenter", [bad])
    assert outcome.scenarios
    assert outcome.problems[0] == (f"{bad}: row 3, column 'Value': "
                                   "expected a number of KBps, got 'n/a': "
                                   "sample skipped")


def test_sar():
    outcome = run_import("sar", [SAMPLES / "sadf_net_dev.json"])
    (scenario,) = outcome.scenarios
    assert scenario.host.hypervisor == "kvm"
    # ifutil-percent = txkB / speed: 25 Gbit/s, rounded to Ethernet
    assert [(n.id, n.speed_gbps) for n in scenario.nics] == [
        ("eno1", 25.0), ("eno2", 25.0)]
    (flow,) = scenario.workloads.flows
    times, tx = _demand(scenario, flow)
    # the tap receives what the VM sends: 1 Gbit/s, 2 Gbit/s from 10:05
    expected = np.array([1, 1, 1, 1, 1, 2, 2, 2, 2.0])
    assert tx == pytest.approx(expected)
    assert flow.rx_gbps == pytest.approx(0.2)
    assert list(np.diff(times)) == [60, 60, 60, 60, 120, 60, 60, 60]
    assert any("rows statistics[4]-statistics[5]: 120 s" in p
               for p in outcome.problems)
    evaluate(scenario)


def test_sar_bad_json(tmp_path):
    bad = tmp_path / "cut.json"
    bad.write_text((SAMPLES / "sadf_net_dev.json").read_text()[:500])
    outcome = run_import("sar", [bad])
    assert not outcome.scenarios
    assert outcome.problems[0].startswith(f"{bad}: row ")
    assert "expected sadf -j JSON" in outcome.problems[0]


def test_perfmon_without_vm_adapters_gives_nic_baselines(tmp_path):
    from tests.app.import_samples import perfmon_sample, write_pdh

    header, rows = perfmon_sample()
    path = tmp_path / "host_only.csv"
    write_pdh(path, header[:-2], [row[:-2] for row in rows])
    (scenario,) = run_import("perfmon", [path]).scenarios
    first, second = scenario.workloads.flows
    assert first.pin == [scenario.nics[0].id]
    assert second.pin == [scenario.nics[1].id]
    # adapter 1 sends the VM's 1-2 Gbit/s plus 1 MB/s of its own
    assert first.tx_gbps == pytest.approx(2.008)
    assert any("utilisation baseline" in a for a in scenario.meta.assumptions)
    evaluate(scenario)
