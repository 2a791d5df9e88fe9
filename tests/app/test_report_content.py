"""What the PDF report says, decided without Qt (app/presentation/content.py):
variants' changes in words, which comparison rows are printed, the
teaming policies table and variant lists."""

from app.presentation.content import (changes_text, names_text, table_rows,
                                teaming_pivot, what_differs)
from app.presentation.summary import executive_summary
from app.scenario_io import load_scenario
from solvers.advise import advise
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES


def test_changes_in_words_not_paths():
    scenario = load_scenario(EXAMPLES / "seed001_live_migration.toml")
    changes = {name: changes_text(items)
               for name, items in what_differs(scenario).items()}
    # the same change to both NICs is said once; enum ids in vendor words
    assert changes["b LACP TCP tuned RSS"] == \
        "NICs nic1, nic2 › RSS tuned: off → on"
    assert "Transfer live-migration › Transport: TCP → SMB Multichannel " \
        "(TCP), Sessions: 4 → 1, Streams: 1 → 8" in changes["c LACP SMB"]
    assert "NICs nic1, nic2 › RDMA: None → RoCE v2" in \
        changes["i SMB Direct (RoCEv2)"]
    assert not any("[0]" in text for text in changes.values())


def test_units_on_changed_numbers():
    scenario = load_scenario(EXAMPLES / "jumbo_10gbe.toml")
    assert changes_text(what_differs(scenario)["MTU 9000"]) == \
        "Network › MTU: 1500 B → 9000 B"


def test_rows_equal_in_every_variant_are_not_compared():
    # seed000's variants change only the configured policy: every
    # policy's own metrics are the same in both; only the configured
    # policy's peak, the answer of each variant, differs (issue 32)
    results = evaluate(load_scenario(EXAMPLES / "seed000_lbt.toml"))
    rows = table_rows(results)
    assert rows.compared == ["teaming.configured.peak_util_pct"]
    assert "teaming.lbt.peak_util_pct" in rows.same
    columns, policies, rest = teaming_pivot(rows.same)
    assert columns[0] == "peak_util_pct"
    assert [name for name, _ in policies][:2] == ["LBT (NIC load)",
                                                  "Port ID"]
    assert all(m.startswith("wire.") for m in rest)


def test_gain_below_half_a_percent_is_noise():
    # issue 16: "IOPS gain from MTU 9000 0.01549 %" on seed004
    results = evaluate(load_scenario(
        EXAMPLES / "seed004_jumbo_ip_storage.toml"))
    rows = table_rows(results)
    assert "storage.jumbo_gain_pct" in rows.noise
    assert not set(rows.noise) & set(rows.compared + rows.same)
    # what differs stays: MTU 9000 lowers the CPU per IO
    assert "storage.cpu_pct" in rows.compared


def test_names_of_variants_briefly():
    everyone = ["Base", "a", "b", "c", "d", "e", "f"]
    assert names_text(everyone, everyone) == "all variants"
    assert names_text(everyone[1:], everyone) == "all but Base"
    assert names_text(["a", "b"], everyone) == "a, b"
    assert names_text(everyone[:6], ["x"] + everyone) == \
        "Base, a, b, c and 2 more"


def test_summary_next_step_in_words():
    scenario = load_scenario(EXAMPLES / "seed002_hcibench.toml")
    summary = executive_summary(scenario, evaluate(scenario),
                                advise(scenario))
    assert summary.best == "2 threads per disk"
    # the recommended variant's own limit: the back end, no longer the
    # outstanding IO (seed002)
    assert "back end caps IOPS" in summary.binding_limit
    assert summary.next_step.startswith(
        "Storage workload hcibench › Threads per disk: 1 → 2 (+27.5 %")
