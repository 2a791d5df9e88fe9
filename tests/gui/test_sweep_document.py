"""Sweeps in the document (issue 37 item 5): the Sweep tab's run is kept
as the document's [[sweeps]] entry, which `linkplan sweep` reruns; the
axes start on the goal's input and are named in words; a variant that sets
the swept field is said."""

import csv
import io
import subprocess
import sys

from app.gui.sweep_panel import TAB_SWEEP_NAME, default_axis, numeric_paths
from app.scenario_io import load_scenario
from app.paths import resource_path
from tests.conftest import ROOT
from tests.gui.helpers import open_example, set_sweep_axis


def test_a_gui_sweep_saved_reruns_from_the_cli(qtbot, window, tmp_path):
    open_example(window, "seed003_vmotion.toml")
    panel = window.sweep_panel
    window.tabs.setCurrentWidget(panel)
    set_sweep_axis(panel.first, "workloads.migrations[0].dirty.rate_mib_s",
                   500, 4000, 8)
    panel.start()
    qtbot.waitUntil(lambda: panel.data is not None, timeout=60_000)
    stored = [s for s in window.scenario.sweeps if s.name == TAB_SWEEP_NAME]
    assert len(stored) == 1 and stored[0].axes[0].path == \
        "workloads.migrations[0].dirty.rate_mib_s"
    gui = list(csv.DictReader(io.StringIO(panel.data.to_csv())))
    path = tmp_path / "plan.toml"
    assert window.save_to(path)
    process = subprocess.run(
        [sys.executable, "-m", "app", "sweep", str(path), "--sweep",
         TAB_SWEEP_NAME, "--format", "csv"], cwd=ROOT, capture_output=True,
        text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    # one file sweeps its base (a fleet of files sweeps every variant)
    cli = list(csv.DictReader(io.StringIO(process.stdout)))
    base = [r for r in gui if r["variant"] == "Base"]
    assert len(cli) == len(base) == 8
    for column in ("workloads.migrations[0].dirty.rate_mib_s",
                   "migration.total_s[s]", "migration.downtime_s[s]"):
        assert [r[column] for r in cli] == [r[column] for r in base]
    # one undo takes the kept sweep back out
    window.undo()
    assert not any(s.name == TAB_SWEEP_NAME for s in window.scenario.sweeps)


def test_a_document_with_a_tab_sweep_opens_on_its_axes(qtbot, window,
                                                       tmp_path):
    open_example(window, "jumbo_10gbe.toml")
    panel = window.sweep_panel
    set_sweep_axis(panel.first, "network.mtu", 1500, 9000, 16)
    panel.start()
    qtbot.waitUntil(lambda: panel.data is not None, timeout=30_000)
    path = tmp_path / "kept.toml"
    assert window.save_to(path)
    window.open_path(resource_path("examples", "seed003_vmotion.toml"))
    window.open_path(path)
    window.tabs.setCurrentWidget(panel)
    assert panel.first.path.currentText() == "network.mtu"
    assert (panel.first.start.value(), panel.first.stop.value(),
            panel.first.num.value()) == (1500, 9000, 16)


def test_the_first_axis_follows_the_goal():
    for example, path in (
            ("seed003_vmotion.toml",
             "workloads.migrations[0].dirty.rate_mib_s"),
            ("seed002_hcibench.toml", "workloads.storage[0].threads_per_disk"),
            ("seed001_live_migration.toml", "nics[0].speed_gbps")):
        scenario = load_scenario(resource_path("examples", example))
        assert default_axis(scenario, numeric_paths(scenario)) == path, \
            example


def test_axes_are_named_in_words_and_variants_on_the_axis_said(qtbot,
                                                                window):
    open_example(window, "jumbo_10gbe.toml")
    panel = window.sweep_panel
    set_sweep_axis(panel.first, "network.mtu", 1500, 9000, 8)
    panel.start()
    qtbot.waitUntil(lambda: panel.data is not None, timeout=30_000)
    axis = panel.plot.getPlotItem().getAxis("bottom")
    assert axis.labelText == "Network \u203a MTU [B]"
    # the example's "MTU 9000" variant sets network.mtu: said
    assert "sets the swept field" in panel.status.text()
