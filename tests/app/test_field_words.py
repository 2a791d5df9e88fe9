"""Words from the domain (issue 37 item 3): every field label of a table
is its own, every enumerated value has a product name."""

import pytest

from app.schema_fields import VALUE_LABELS, fields_of
from models.scenario import Scenario


def models():
    seen, order = set(), [Scenario]
    while order:
        model = order.pop()
        if model in seen:
            continue
        seen.add(model)
        order += [f.detail for f in fields_of(model)
                  if f.kind in ("model", "models")]
    return sorted(seen, key=lambda m: m.__name__)


@pytest.mark.parametrize("model", models(), ids=lambda m: m.__name__)
def test_labels_of_a_table_are_unique(model):
    labels = [f.label for f in fields_of(model)]
    assert len(labels) == len(set(labels)), labels


def test_disk_fields_say_what_they_hold():
    from models.scenario import Backend
    labels = {f.name: (f.label, f.unit) for f in fields_of(Backend)}
    assert labels["device_iops"] == ("IOPS per disk", "IO/s")
    assert labels["device_mbps"] == ("Throughput per disk", "MB/s")
    assert labels["mbps_max"] == ("Throughput max.", "MB/s")


# identifiers that are themselves the vendors' words (Linux and switch
# hash names, compressor names, kernel generations)
AS_WRITTEN = {"hash", "switch_hash", "kernel_hash", "compressor", "cases",
              "storage_layout"}


@pytest.mark.parametrize("model", models(), ids=lambda m: m.__name__)
def test_every_enumerated_value_has_a_name(model):
    for spec in fields_of(model):
        if spec.kind != "enum" or spec.name in AS_WRITTEN:
            continue
        missing = [v for v in spec.detail if not isinstance(v, int)
                   and v not in VALUE_LABELS.get(spec.name, {})]
        assert not missing, (spec.name, missing)


def test_new_names_take_the_next_free_number():
    # issue 37: duplicating gave nic0 -> nic2, nic22, nic23 and vm1 -> vm2,
    # vm22 ... vm239
    from app.schema_fields import next_name
    assert next_name("nic", {"nic0"}) == "nic1"
    assert next_name("nic", {"nic0", "nic1"}) == "nic2"
    assert next_name("vm", {f"vm{i}" for i in range(1, 40)}) == "vm40"
    assert next_name("vm", set()) == "vm1"
    assert next_name("web", {"web7", "db9"}) == "web8"
