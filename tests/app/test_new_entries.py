"""app/new_entries.py: a new list entry's free name."""

import pytest

import models.scenario as scenario
from app.new_entries import new_entry

#: The least of a document the new entries read.
DATA = {"nics": [{"id": "vmnic0"}], "teams": [], "host": {},
        "workloads": {"transfers": []}}


@pytest.mark.parametrize("model, key, name", [
    ("Nic", "id", "nic1"),                      # the model's name ...
    ("Team", "name", "team1"),
    ("Transfer", "name", "transfer1"),
    ("Migration", "name", "migration1"),
    ("Evacuation", "name", "evacuation1"),
    ("StorageWorkload", "name", "workload1"),   # ... or a stem of its own
])
def test_a_new_entry_is_named_after_its_model(model, key, name):
    assert new_entry(getattr(scenario, model), [], DATA)[key] == name


def test_a_new_entry_takes_the_next_free_name():
    taken = [{"name": "migration1"}]
    assert new_entry(scenario.Migration, taken, DATA)["name"] == "migration2"
