"""esxtop batch CSV -> uplinks, teams and measured demand profiles.

Format: esxtop batch mode (``esxtop -b``, VMware "Using esxtop in batch
mode"; resxtop the same): PDH-CSV 4.0, every cell quoted, a first header
cell ``(PDH-CSV 4.0) (UTC)(0)``, counters named
``\\\\host\\Network Port(vSwitch:portID:client)\\MBits Transmitted/sec``.
The sample (tests/app/import_samples.py, esxtop_sample_rows) has a UTF-8
BOM, 20 unrelated counters, decimal commas in the uplink columns, a port
that appears mid-file, a blank sample and a 60 s pause in the clock.
"""

import numpy as np
import pytest

from app.importers import esxtop
from app.importers.common import run_import
from solvers.evaluate import evaluate
from tests.app.import_samples import (ESXTOP_PORTS, SAMPLES, esxtop_header,
                                      esxtop_sample_rows, write_esxtop)

SAMPLE = SAMPLES / "esxtop_batch.csv"
SAMPLES_N = 24
WEB_TX = np.array([100 + 50 * (i % 4) for i in range(SAMPLES_N)]) / 1000


def _profile(scenario, flow):
    profile = next(p for p in scenario.workloads.profiles
                   if p.name == flow.profile)
    return np.array(profile.t_s), flow.tx_gbps * np.array(profile.scale)


def test_uplinks_team_ports_and_demand_statistics():
    outcome = run_import("esxtop", [SAMPLE])
    (scenario,) = outcome.scenarios
    assert [(n.id, n.speed_gbps) for n in scenario.nics] == [
        ("vmnic0", 10.0), ("vmnic1", 10.0)]
    assert [(t.name, t.policy, t.members) for t in scenario.teams] == [
        ("vSwitch0", "port_id", ["vmnic0", "vmnic1"])]
    assert any("does not record the teaming policy" in a
               for a in scenario.meta.assumptions)
    flows = {f.vm: f for f in scenario.workloads.flows}
    assert sorted(flows) == ["db01", "vmk1", "web01"]
    assert flows["web01"].port_id == 33554440
    assert flows["vmk1"].traffic_class == "vmkernel"
    # web01: 100, 150, 200, 250 Mbit/s repeating; the profile reproduces
    # every sample, so its statistics are the measured ones
    times, tx = _profile(scenario, flows["web01"])
    assert tx == pytest.approx(WEB_TX)
    assert (tx.mean(), np.percentile(tx, 95), tx.max()) == pytest.approx(
        (0.175, 0.25, 0.25))
    assert flows["web01"].rx_gbps == pytest.approx(0.025)
    # the 60 s pause after sample 18: 19 steps of 5 s, then 65 s
    assert times[19] - times[18] == 65 and times[1] - times[0] == 5
    assert scenario.workloads.time_step_s == 5
    # db01 appears at sample 6 (zeros before) and misses sample 12
    times, tx = _profile(scenario, flows["db01"])
    assert len(tx) == SAMPLES_N - 1
    assert tx[:6] == pytest.approx(0) and tx[6:] == pytest.approx(0.4)
    # vmk1: one 2 Gbit/s burst
    _, tx = _profile(scenario, flows["vmk1"])
    assert tx.max() == pytest.approx(2.0) and np.median(tx) == 0
    text = "\n".join(outcome.result.taken)
    # vmnic0 carries web01 and the burst, written with decimal commas
    assert "uplink vmnic0 10 Gbit/s: transmit mean 0.258, p95 0.25, peak " \
        "2.2 Gbit/s" in text
    results = evaluate(scenario).variants[0]
    # port ID hashing: the peak of the heaviest uplink, over 20 Gbit/s
    assert results.metric("teaming.port_id.peak_util_pct").value > 0


def test_messy_parts_are_reported_with_row_and_column():
    outcome = run_import("esxtop", [SAMPLE])
    problems = "\n".join(outcome.problems)
    skipped = "\n".join(outcome.result.skipped)
    assert f"{SAMPLE}: rows 20-21: 65 s between samples of every counter," \
        " expected about 5 s" in problems
    assert "db01.eth0: 1 samples missing (rows 14)" in problems
    assert "db01.eth0)\\MBits Transmitted/sec': first sample at row 8: " \
        "the instance appeared mid-file" in skipped
    assert "shadow of vmnic0: internal port" in skipped


def test_51000_column_header_streams(tmp_path):
    path = tmp_path / "wide.csv"
    write_esxtop(path, esxtop_header("esx01.example", ESXTOP_PORTS, 51_000),
                 esxtop_sample_rows())
    (scenario,) = run_import("esxtop", [path]).scenarios
    assert len(scenario.nics) == 2 and len(scenario.workloads.flows) == 3


def test_truncated_file_keeps_the_whole_rows(tmp_path):
    text = SAMPLE.read_text(encoding="utf-8-sig")
    cut = tmp_path / "cut.csv"
    cut.write_text(text[:text.rindex(",") - 3])
    outcome = run_import("esxtop", [cut])
    assert len(outcome.scenarios) == 1
    width = len(text.splitlines()[0].split('","'))
    assert any(p.startswith(f"{cut}: row 25: ") and f"but the header has "
               f"{width}: row not read" in p
               for p in outcome.problems), outcome.problems


def test_non_numeric_cell_names_row_and_column(tmp_path):
    rows = esxtop_sample_rows()
    rows[3][4] = "N/A"   # vmnic0 receive in sample 3: row 5 of the file
    path = tmp_path / "na.csv"
    write_esxtop(path, esxtop_header("esx01.example", ESXTOP_PORTS),
                 rows)
    outcome = run_import("esxtop", [path])
    assert outcome.scenarios
    assert (f"{path}: row 5, column '\\\\esx01.example\\Network Port("
            "vSwitch0:33554433:vmnic0)\\MBits Received/sec': expected a "
            "number >= 0, got 'N/A': treated as a missing sample") \
        in outcome.problems


@pytest.mark.parametrize("content, expected", [
    (b"PK\x03\x04binary", "expected an esxtop batch file (esxtop -b) as "
     "text, found a zip archive (an .xlsx workbook?)"),
    (b"1,2\n", "expected an esxtop batch file (esxtop -b): a header starting "
     "with '(PDH-CSV 4.0)'"),
    (b"", "expected an esxtop batch file (esxtop -b): a header row, found "
     "an empty file"),
    (b'"(PDH-CSV 4.0) (UTC)(0)","\\\\h\\Memory\\Free MBytes"\n',
     "expected an esxtop batch file (esxtop -b): counters matching"),
])
def test_wrong_file_type(tmp_path, content, expected):
    path = tmp_path / "x.csv"
    path.write_bytes(content)
    result = esxtop.import_files([path])
    assert not result.drafts
    assert result.problems[0].startswith(f"{path}: ")
    assert expected in result.problems[0]


def _without_link_speed(path):
    """The sample as esxtop writes it when the Link Speed field of the
    network panel is not selected: the same PDH-CSV 4.0 columns, less
    every ``\\Link Speed (Mb)`` counter."""
    header = esxtop_header("esx01.example", ESXTOP_PORTS)
    keep = [i for i, name in enumerate(header)
            if not name.endswith("\\Link Speed (Mb)")]
    rows = esxtop_sample_rows()
    write_esxtop(path, [header[i] for i in keep],
                 [[row[i] for i in keep] for row in rows])
    return path


def test_without_link_speed_the_speed_is_a_stated_assumption(tmp_path):
    # issue 37 item 8: refused whole before ("nothing could be imported")
    path = _without_link_speed(tmp_path / "nospeed.csv")
    outcome = run_import("esxtop", [path])
    (scenario,) = outcome.scenarios
    # vmnic0's highest rate is the 2.2 Gbit/s of the burst: the smallest
    # server Ethernet speed at or above it is 10 GbE, the sample's speed
    assert [(n.id, n.speed_gbps) for n in scenario.nics] == [
        ("vmnic0", 10.0), ("vmnic1", 10.0)]
    assumption = (f"Link speed of vmnic0, vmnic1: not in {path} (no 'Link "
                  "Speed (Mb)' counter); 10 Gbit/s assumed, the smallest "
                  "server Ethernet speed at or above the highest rate they "
                  "carried (2.2 Gbit/s)")
    assert any(a.startswith(assumption) and "--link-speed" in a
               for a in scenario.meta.assumptions)
    assert any(t.startswith(assumption) for t in outcome.result.taken)
    assert "uplink vmnic0 (speed not recorded): transmit mean 0.258" in \
        "\n".join(outcome.result.taken)
    assert len(scenario.workloads.flows) == 3


def test_without_link_speed_the_option_sets_it(tmp_path):
    path = _without_link_speed(tmp_path / "nospeed.csv")
    (scenario,) = run_import("esxtop", [path],
                             link_speed_gbps=25).scenarios
    assert {n.speed_gbps for n in scenario.nics} == {25.0}
    assert any("25 Gbit/s assumed, as given at import (--link-speed" in a
               for a in scenario.meta.assumptions)
    # a recorded counter wins over the option
    (scenario,) = run_import("esxtop", [SAMPLE],
                             link_speed_gbps=25).scenarios
    assert {n.speed_gbps for n in scenario.nics} == {10.0}
