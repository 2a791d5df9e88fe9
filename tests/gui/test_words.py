"""Words from the domain in the window (issue 37 item 3): an applied
recommendation's undo step names the field, never its path; enumerated
values show their product names."""

from app.paths import resource_path


def test_an_applied_recommendation_undoes_by_its_field_name(window):
    window.open_path(resource_path("examples", "seed002_hcibench.toml"))
    dialog = window.advice_dialog(window.session.advice())
    dialog._apply()
    window.apply_recommendation(dialog.chosen)
    window.wait_for_results()
    name = window.scenario.workloads.storage[0].name
    text = window.session.history.undo_text
    assert text == f"Apply {name} \u203a Threads per disk \u2192 2", text
    assert "workloads." not in text


def test_enumerated_values_show_product_names(window):
    window.open_path(resource_path("examples", "seed001_live_migration.toml"))
    window.editor.select("workloads.transfers[0]")
    purpose = window.editor.field("workloads.transfers[0].purpose")
    assert purpose.text() in ("Live migration",
                              "Bulk transfer (file copy, iperf)")
