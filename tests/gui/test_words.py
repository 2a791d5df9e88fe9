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


def test_file_new_asks_for_the_name_and_the_question(window, monkeypatch):
    # issue 37: the PDF read "Question: Untitled scenario"
    from app.gui.new_dialog import NewDocumentDialog
    asked = []

    def answer(dialog):
        asked.append((dialog.name.text(), dialog.question.toPlainText()))
        dialog.name.setText("Rack 12 teaming")
        dialog.question.setPlainText("Does IP hash spread our 40 web VMs?")
        return True
    monkeypatch.setattr(NewDocumentDialog, "exec", answer)
    window.ask_new_from_template("teaming.toml")
    # prefilled from the template
    assert asked[0][0] == "Teaming study" and asked[0][1]
    assert window.scenario.meta.name == "Rack 12 teaming"
    assert window.scenario.meta.objectives == [
        "Does IP hash spread our 40 web VMs?"]
    assert window.path is None and window.title.text() == "Rack 12 teaming"
    # a blank document is named the same way; Cancel keeps the default
    monkeypatch.setattr(NewDocumentDialog, "exec", lambda dialog: False)
    window.ask_new_document()
    assert window.scenario.meta.name == "Untitled scenario"
