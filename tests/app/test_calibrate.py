"""linkplan calibrate and the benchmark importers: real iperf3 and fio runs
(made here, on loopback and a temporary file) import and calibrate; the
calibrated scenario's solver reproduces the fitted predictions; what the
runs cannot determine is reported, not guessed; bad input exits 2 and
writes nothing."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from app.importers.common import run_import
from models.host import STACK_PRESETS
from solvers.evaluate import evaluate
from solvers.inputs import stack_costs
from tests.app import benchmark_runs, storage_samples

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "import"
IPERF3 = sorted(SAMPLES.glob("iperf3_[lmpr]*.json"))
FIO = sorted(SAMPLES.glob("fio_qd*.json"))

needs_tools = pytest.mark.skipif(not benchmark_runs.available(),
                                 reason="iperf3 and fio not installed "
                                 "(.ci/system-deps installs them)")


def _calibrate(tmp_path, files, *extra):
    out = tmp_path / "calibrated.toml"
    code = main(["calibrate", *map(str, files), "-o", str(out), *extra])
    return code, out


def _load(path):
    from app.scenario_io import load_scenario
    return load_scenario(path)


@needs_tools
def test_live_iperf3_and_fio_runs_calibrate_and_the_solver_reproduces_the_fit(
        tmp_path, capsys):
    settings = {k: benchmark_runs.IPERF3_SETTINGS[k] for k in (
        "iperf3_l8k", "iperf3_l32k", "iperf3_l128k", "iperf3_p4_l16k",
        "iperf3_r_l32k", "iperf3_mss1448_l32k")}
    # three rounds, both ends pinned: each setting's median run is fitted
    runs = benchmark_runs.record_iperf3(tmp_path, settings, seconds=2,
                                        repeats=3, pin=benchmark_runs.PIN)
    runs += benchmark_runs.record_fio(tmp_path, depths=(1, 4, 16))
    (tmp_path / "fio.dat").unlink()
    code, out = _calibrate(tmp_path, runs, "--ghz", "2.6")
    text = capsys.readouterr().out
    assert code == 0, text
    scenario = _load(out)
    site = scenario.calibration
    # four message sizes and two MSS: the per-traversal and per-segment
    # costs are fitted; loopback cannot split send from receive
    assert {"c_byte_tx", "c_pkt", "c_wire"} <= set(
        site.stack.model_dump(exclude_none=True))
    assert any("c_byte_tx vs c_byte_rx" in u for u in site.undetermined)
    costs = stack_costs(scenario)
    assert costs.c_pkt == site.stack.c_pkt
    assert costs.c_byte_tx == costs.c_byte_rx == site.stack.c_byte_tx
    # the storage workloads' predictions in the table are the solver's
    storage = [c for c in site.checks if c.quantity == "IOPS"
               and c.role == "fitted"]
    assert len(storage) == 3
    metrics = {m.id: m.value for m in evaluate(scenario).variants[0].metrics}
    predicted = sorted(v for k, v in metrics.items()
                       if k.startswith("storage.fio-") and k.endswith(
                           ".iops"))
    np.testing.assert_allclose(predicted, sorted(c.predicted
                                                 for c in storage),
                               rtol=1e-9)
    assert "Predicted vs measured" in text
    assert "held out" in text
    _assert_claims_hold(site, len(settings))


def _assert_claims_hold(site, settings):
    """Issue 34's targets, per setting (its median run): fitted within
    5 %, held out within 15 %, wherever the calibration claims them (its
    runs repeat within 5 %); where they scatter more it says so, with the
    scatter, and claims no bound."""
    stack = [c for c in site.checks if c.quantity == "cycles/B"]
    assert len([c for c in stack if c.role == "fitted"]) == settings
    statement = [u for u in site.undetermined
                 if u.startswith("accuracy of the host costs")]
    if statement:
        assert "finer than" in statement[0] and "not claimed" in \
            statement[0], statement
        return
    for check in stack:
        if "not determined" in check.run:
            continue   # held out, a coefficient went back to the preset
        target = 5.0 if check.role == "fitted" else 15.0
        assert abs(check.error_pct) <= target, check


def test_recorded_repeats_fit_their_medians_and_state_their_scatter(
        tmp_path, capsys):
    """Five pinned rounds of the seven settings (3 s each), recorded on
    the shared two-core machine at a load average of 7: repeats of one
    setting scatter by up to 30.4 % around their median, so the
    calibration claims no 5 %/15 % bound and says why; the medians are
    what is fitted and checked."""
    files = sorted((SAMPLES / "iperf3_repeats").glob("*.json"))
    assert len(files) == 35
    code, out = _calibrate(tmp_path, files, "--ghz", "2.6")
    report = capsys.readouterr().out
    assert code == 0, report
    site = _load(out).calibration
    assert len(site.sources) == 35
    assert any("finer than 30.4 %" in u for u in site.undetermined)
    _assert_claims_hold(site, 7)
    fitted = [c for c in site.checks if c.role == "fitted"]
    assert all("[median of 5 runs" in c.run for c in fitted)
    # every setting's median met within the runs' own scatter
    assert max(abs(c.error_pct) for c in fitted) < 30.4


def test_single_runs_claim_no_bound(tmp_path, capsys):
    """The recorded single runs (2 s each): one run per setting measures
    no repeatability, so the fit is made and checked but no error bound
    is claimed."""
    code, out = _calibrate(tmp_path, IPERF3, "--ghz", "2.6")
    assert code == 0, capsys.readouterr().err
    site = _load(out).calibration
    assert any("run once" in u and "no error bound is claimed" in u
               for u in site.undetermined)
    assert len([c for c in site.checks if c.role == "fitted"]) == \
        len(IPERF3)


def test_one_message_size_leaves_the_split_undetermined(tmp_path, capsys):
    code, out = _calibrate(tmp_path, [SAMPLES / "iperf3_l128k.json"])
    report = capsys.readouterr().out
    assert code == 0
    site = _load(out).calibration
    assert any(u.startswith("c_pkt") and "cannot be determined" in u
               for u in site.undetermined)
    # the preset's split between per-byte and per-traversal cost is kept
    preset = STACK_PRESETS["linux_host"]
    costs = stack_costs(_load(out))
    assert costs.c_pkt / costs.c_byte_tx == pytest.approx(
        preset.c_pkt / preset.c_byte_tx)
    assert "set: host.ghz" in report


@pytest.mark.parametrize("sample, depths", [("diskspd_o*.xml", 3),
                                            ("fio-1vmdk-*-res.txt", 5),
                                            ("vdb-1vmdk-*-res.txt", 3)])
def test_documented_format_samples_recover_the_back_end(tmp_path, capsys,
                                                        sample, depths):
    """The DiskSpd and HCIBench samples measure a known back end (8
    channels of 200 us, tests/app/storage_samples.py): the fit finds it."""
    files = sorted(SAMPLES.glob(sample))
    assert len(files) == depths
    code, out = _calibrate(tmp_path, files)
    assert code == 0, capsys.readouterr().err
    scenario = _load(out)
    backend = scenario.workloads.storage[0].backend
    assert backend.channels == storage_samples.CHANNELS
    # the fitted one-IO latency carries the host's wake-up (1.5 us)
    assert backend.service_time_ms == pytest.approx(
        storage_samples.SERVICE_S * 1e3, rel=0.02)
    fitted = [c for c in scenario.calibration.checks if c.role == "fitted"]
    assert max(abs(c.error_pct) for c in fitted) < 1.0


def test_importers_record_provenance_per_field():
    outcome = run_import("iperf3", [SAMPLES / "iperf3_p4_l16k.json"])
    scenario = outcome.scenarios[0]
    assert scenario.workloads.transfers[0].streams == 4
    assert "start.test_start.num_streams" in scenario.meta.notes
    outcome = run_import("fio", FIO[:1])
    assert "job options.iodepth" in outcome.scenarios[0].meta.notes
    outcome = run_import("diskspd", sorted(SAMPLES.glob("diskspd_o4.xml")))
    item = outcome.scenarios[0].workloads.storage[0]
    assert (item.threads_per_disk, item.disks_per_vm) == (4, 1)
    assert "RequestCount" in outcome.scenarios[0].meta.notes
    outcome = run_import("hcibench",
                         sorted(SAMPLES.glob("fio-1vmdk-*02-res.txt")))
    assert outcome.scenarios[0].workloads.storage[0].vms == 2


def test_server_side_and_udp_files_import_but_do_not_calibrate(tmp_path,
                                                               capsys):
    outcome = run_import("iperf3", [SAMPLES / "iperf3_server_side.json",
                                    SAMPLES / "iperf3_udp.json"])
    assert len(outcome.scenarios) == 2 and not outcome.problems
    server = SAMPLES / "iperf3_server_side.json"
    code, out = _calibrate(tmp_path, [server])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert str(server) in err and "server's output" in err
    assert "nothing written" in err


def test_a_udp_run_alone_is_refused_saying_what_it_measures(tmp_path,
                                                            capsys):
    udp = SAMPLES / "iperf3_udp.json"
    code, out = _calibrate(tmp_path, [udp])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists() and "nothing written" in err
    # what the run measures (recorded: -b 1G, 8000 B datagrams, 3943 of
    # 15614 lost; the server received and was busy 8.24 % of a core)
    assert f"{udp}: UDP run (25.3 % of 15,614 datagrams of 8,000 B lost " \
        "at -b 1 Gbit/s offered" in err
    assert "= 7.07 us of CPU each" in err
    # and why it determines nothing
    assert "1,830 cycles" in err and "no loss onset" in err


def test_a_udp_run_beside_tcp_runs_is_skipped_and_said(tmp_path, capsys):
    code, out = _calibrate(tmp_path, [IPERF3[0], SAMPLES / "iperf3_udp.json"])
    report = capsys.readouterr().out
    assert code == 0 and "note: skipped" in report and "UDP run" in report
    assert _load(out).calibration.sources == [str(IPERF3[0])]


def test_bad_inputs_exit_2_naming_the_file(tmp_path, capsys):
    truncated = tmp_path / "cut.json"
    truncated.write_text(FIO[0].read_text()[:900])
    failed = tmp_path / "failed.json"
    data = json.loads(FIO[0].read_text())
    data["jobs"][0]["error"] = 5
    failed.write_text(json.dumps(data))
    other = SAMPLES / "sadf_net_dev.json"
    csv = SAMPLES / "esxtop_batch.csv"
    for bad, words in ((truncated, "truncated"), (failed, "error 5"),
                       (other, "not an output"), (csv, "not an output")):
        code, out = _calibrate(tmp_path, [IPERF3[0], bad])
        err = capsys.readouterr().err
        assert code == 2, (bad, err)
        assert str(bad) in err and words in err, err
        assert not out.exists()
        assert "Traceback" not in err


def test_qmp_migration_calibrates_with_its_check(tmp_path, capsys):
    files = [SAMPLES / "qmp_query_migrate_rounds.jsonl"]
    code, out = _calibrate(tmp_path, files)
    assert code == 0, capsys.readouterr().err
    scenario = _load(out)
    assert scenario.workloads.migrations
    assert any("dirty model" in f for f in scenario.calibration.fitted)


def test_every_variant_says_it_is_calibrated(tmp_path, capsys):
    code, out = _calibrate(tmp_path, IPERF3[:2], "--name", "rack12")
    assert code == 0
    from models.scenario import scenario_data, scenario_from_dict
    data = scenario_data(_load(out))
    data["variants"] = [{"name": "Jumbo", "set": {"network.mtu": 9000}}]
    results = evaluate(scenario_from_dict(data))
    for variant in results.variants:
        assert any(a.startswith("Calibrated: site preset 'rack12'")
                   for a in variant.assumptions)


def test_tools_are_in_the_system_deps():
    deps = (Path(__file__).resolve().parents[2] / ".ci" / "system-deps") \
        .read_text()
    assert "iperf3" in deps and "fio" in deps
    assert shutil.which("iperf3") or not benchmark_runs.available()


def test_bidir_loopback_counts_both_directions():
    data = json.loads((SAMPLES / "iperf3_bidir.json").read_text())
    outcome = run_import("iperf3", [SAMPLES / "iperf3_bidir.json"])
    (run,) = outcome.result.runs
    end = data["end"]
    both = (end["sum_received"]["bits_per_second"]
            + end["sum_received_bidir_reverse"]["bits_per_second"]) / 8
    assert run.loopback and run.tx_bytes_s == pytest.approx(both)
    cpu = end["cpu_utilization_percent"]
    assert run.cores_busy == pytest.approx(
        (cpu["host_total"] + cpu["remote_total"]) / 100)


def test_runs_between_two_hosts_split_send_from_receive(tmp_path, capsys):
    """The client's output of a run between two hosts (a recorded run
    with its addresses changed): each end is an observation, the sender's
    and the receiver's per-byte costs are fitted apart, and the MTU
    comes from the MSS."""
    files = []
    for sample in ("iperf3_l8k.json", "iperf3_l32k.json",
                   "iperf3_r_l32k.json", "iperf3_mss1448_l32k.json"):
        data = json.loads((SAMPLES / sample).read_text())
        for link in data["start"]["connected"]:
            link["local_host"], link["remote_host"] = "10.0.0.1", "10.0.0.2"
        files.append(tmp_path / sample)
        files[-1].write_text(json.dumps(data))
    outcome = run_import("iperf3", files[3:])
    assert outcome.scenarios[0].network.mtu == 1448 + 52
    data = json.loads(files[3].read_text())
    data["start"]["connected"][0]["local_host"] = "fd00::1"
    data["start"]["connected"][0]["remote_host"] = "fd00::2"
    ipv6 = tmp_path / "ipv6.json"
    ipv6.write_text(json.dumps(data))
    network = run_import("iperf3", [ipv6]).scenarios[0].network
    assert (network.ip_version, network.mtu) == (6, 1448 + 72)
    assert [r.tx_bytes_s > 0 for r in outcome.result.runs] == [True, False]
    code, out = _calibrate(tmp_path, files, "--ghz", "2.6")
    assert code == 0, capsys.readouterr().err
    site = _load(out).calibration
    fitted = site.stack.model_dump(exclude_none=True)
    assert {"c_byte_tx", "c_byte_rx"} <= set(fitted)
    assert not any("c_byte_tx vs c_byte_rx" in u for u in site.undetermined)
    assert len([c for c in site.checks if c.role == "fitted"]) == 8


def test_numjobs_clones_add_up():
    outcome = run_import("fio", [SAMPLES / "fio_numjobs2_qd2.json"])
    data = json.loads((SAMPLES / "fio_numjobs2_qd2.json").read_text())
    (run,) = outcome.result.runs
    assert run.oio == 4 and run.disks_per_vm == 2
    assert run.iops == pytest.approx(sum(j["read"]["iops"]
                                         for j in data["jobs"]))


def test_given_values_are_kept_and_overrides_said(tmp_path, capsys):
    from app.scenario_io import atomic_write
    from models.scenario import dump_scenario, new_scenario, scenario_data
    from models.scenario import scenario_from_dict

    data = scenario_data(new_scenario())
    data["host"]["ghz"] = 3.4
    base = tmp_path / "base.toml"
    atomic_write(base, dump_scenario(scenario_from_dict(data),
                                     "toml").encode())
    code, out = _calibrate(tmp_path, IPERF3[:2] + FIO[:3], "--scenario",
                           str(base))
    report = capsys.readouterr().out
    assert code == 0
    scenario = _load(out)
    assert scenario.host.ghz == 3.4 and "set: host.ghz" not in report
    given = scenario_from_dict(data)
    assert scenario.nics == given.nics and scenario.teams == given.teams
    assert [w.name for w in scenario.workloads.storage[:len(
        given.workloads.storage)]] == [w.name for w in
                                       given.workloads.storage]
    code, out = _calibrate(tmp_path, IPERF3[:2], "--scenario", str(base),
                           "--ghz", "2.9")
    report = capsys.readouterr().out
    assert code == 0 and _load(out).host.ghz == 2.9
    assert "note: host.ghz: the scenario's 3.4 GHz replaced by --ghz 2.9" \
        in report


def test_appended_runs_json_stream_and_leading_notes_import(tmp_path):
    appended = tmp_path / "runs.json"
    appended.write_text(IPERF3[0].read_text() + "\n"
                        + IPERF3[1].read_text())
    outcome = run_import("iperf3", [appended])
    assert len(outcome.result.runs) == 2 and not outcome.problems
    assert outcome.result.runs[1].source == f"{appended}#2"
    assert _calibrate(tmp_path, [appended], "--ghz", "2.6")[0] == 0
    # iperf3 --json-stream (3.17+): one event per line
    data = json.loads(IPERF3[0].read_text())
    stream = tmp_path / "stream.json"
    stream.write_text("\n".join(json.dumps({"event": key, "data": data[key]})
                                for key in ("start", "end")))
    outcome = run_import("iperf3", [stream])
    assert len(outcome.result.runs) == 1 and not outcome.problems
    noted = tmp_path / "noted.json"
    noted.write_text("note: both iodepth >= 1 and synchronous I/O engine "
                     "are selected\n" + FIO[0].read_text())
    assert len(run_import("fio", [noted]).result.runs) == 1


def test_a_synchronous_engine_runs_one_io_whatever_iodepth_says():
    sample = SAMPLES / "fio_psync_iodepth8.json"
    assert sample.read_text().startswith("note: both iodepth")
    outcome = run_import("fio", [sample])
    (run,) = outcome.result.runs
    assert run.oio == 1
    assumptions = " ".join(outcome.scenarios[0].meta.assumptions)
    assert "psync is synchronous" in assumptions and "direct=0" in assumptions


def test_the_calibrated_costs_reach_the_transfer_predictions(tmp_path,
                                                            capsys):
    """The measured transfer predicted with the fitted costs, and at MTU
    9000 (a variant nobody measured), differs from the preset's."""
    code, out = _calibrate(tmp_path, IPERF3, "--ghz", "2.6")
    assert code == 0
    from models.scenario import scenario_data, scenario_from_dict
    data = scenario_data(_load(out))
    data["variants"] = [{"name": "Jumbo", "set": {"network.mtu": 9000}}]
    calibrated = evaluate(scenario_from_dict(data))
    del data["calibration"]
    preset = evaluate(scenario_from_dict(data))

    def cpu(results):
        return [next(m.value for m in v.metrics
                     if m.id == "host.cpu_pct") for v in results.variants]

    assert all(a != b for a, b in zip(cpu(calibrated), cpu(preset)))


def test_a_migration_without_guest_memory_is_refused_naming_the_file(
        tmp_path, capsys):
    reply = tmp_path / "no-memory.json"
    reply.write_text(json.dumps({"return": {
        "status": "active", "total-time": 1000,
        "ram": {"remaining": 100, "transferred": 10, "total": 0,
                "dirty-sync-count": 1}}}))
    code, out = _calibrate(tmp_path, [reply])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert f"{reply}: no guest memory size" in err
