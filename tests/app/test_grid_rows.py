"""The rows of a list as a table, without Qt (app.grid_rows): pasted
rows with a header or a count, fill down, sort, delete."""

import pytest

from app.grid_rows import (column_for_header, columns, filled_down,
                           parse_cell, pasted, read_table, sorted_rows,
                           without_rows)
from app.schema_fields import next_name
from models.scenario import (Evacuation, EvacuationVm, Flow, Nic,
                             StorageWorkload)


def new_nic(siblings):
    return {"id": next_name("nic", {e["id"] for e in siblings}),
            "speed_gbps": 10.0}


def column(model, path):
    return next(c for c in columns(model) if c.path == path)


def test_nested_fields_are_columns_named_by_their_group():
    backend = column(StorageWorkload, "backend.iops_max")
    assert backend.header == "Backend › IOPS max. [IO/s]"
    assert column(EvacuationVm, "dirty.rate_mib_s").header == \
        "Dirty › Rate [MiB/s]"
    # a list of models is a grid of its own, not a column
    assert not any(c.path == "vms" for c in columns(Evacuation))
    assert column(StorageWorkload, "nics").reference == "nics"


def test_headers_map_by_field_name_label_or_header():
    nic_columns = columns(Nic)
    assert column_for_header("speed_gbps", nic_columns).path == "speed_gbps"
    assert column_for_header("Speed [Gbit/s]", nic_columns).path == \
        "speed_gbps"
    assert column_for_header("RSS queues", nic_columns).path == "rss_queues"
    assert column_for_header("Count", nic_columns) == "count"
    assert column_for_header("Notes", nic_columns) is None


def test_spreadsheet_and_csv_text_read_alike():
    assert read_table("id\tspeed_gbps\r\nnic1\t25\r\n\r\n") == \
        [["id", "speed_gbps"], ["nic1", "25"]]
    assert read_table('id,members\nteam1,"nic1, nic2"\n') == \
        [["id", "members"], ["team1", "nic1, nic2"]]
    assert read_table("id;speed_gbps\nnic1;25") == \
        [["id", "speed_gbps"], ["nic1", "25"]]


def test_a_header_row_appends_and_a_count_numbers_on():
    entries = [{"id": "nic0", "speed_gbps": 10.0}]
    text = "Count,ID,Speed [Gbit/s],RDMA\n3,uplink,25,RoCE v2\n,spare9,1,"
    result, rows = pasted(entries, text, columns(Nic), new_nic)
    assert rows == 2
    assert [e["id"] for e in result] == ["nic0", "uplink1", "uplink2",
                                         "uplink3", "spare9"]
    assert [e["speed_gbps"] for e in result] == [10, 25, 25, 25, 1]
    assert result[1]["rdma"] == "roce_v2"   # by its product name
    assert entries == [{"id": "nic0", "speed_gbps": 10.0}]   # untouched


def test_a_counted_name_makes_that_many_named_entries():
    result, _ = pasted([], "id,tx_gbps\n40 × web VM,0.5",
                       columns(Flow),
                       lambda s: {"id": f"x{len(s)}", "vm": f"x{len(s)}"})
    assert [e["id"] for e in result] == [f"web{i}" for i in range(1, 41)]
    assert {e["vm"] for e in result} == {f"web{i}" for i in range(1, 41)}


def test_rows_without_a_header_overwrite_from_the_current_cell():
    entries = [{"id": "nic1", "speed_gbps": 10.0},
               {"id": "nic2", "speed_gbps": 10.0}]
    nic_columns = columns(Nic)
    speed = nic_columns.index(column(Nic, "speed_gbps"))
    result, rows = pasted(entries, "25\n40\n100", nic_columns, new_nic,
                          at=(1, speed))
    assert rows == 3
    assert [(e["id"], e["speed_gbps"]) for e in result] == \
        [("nic1", 10.0), ("nic2", 25.0), ("nic3", 40.0), ("nic4", 100.0)]


def test_a_bad_cell_is_refused_naming_row_and_column():
    with pytest.raises(ValueError, match=r"row 3, Speed \[Gbit/s\]: "
                                         r"expected a number, got 'fast'"):
        pasted([], "id,speed_gbps\nnic1,10\nnic2,fast", columns(Nic),
               new_nic)
    with pytest.raises(ValueError, match="expected one of None, RoCE v2"):
        parse_cell(column(Nic, "rdma"), "roce_v3")


def test_fill_down_copies_values_and_numbers_names_on():
    entries = [{"id": "web1", "speed_gbps": 25.0},
               {"id": "a", "speed_gbps": 10.0},
               {"id": "b", "speed_gbps": 1.0}]
    filled = filled_down(entries, [0, 1, 2], column(Nic, "speed_gbps"))
    assert [e["speed_gbps"] for e in filled] == [25.0] * 3
    named = filled_down(entries, [0, 2], column(Nic, "id"))
    assert [e["id"] for e in named] == ["web1", "a", "web2"]


def test_sort_orders_numbers_and_numbered_names_naturally():
    entries = [{"id": f"vm{i}", "speed_gbps": float(i % 3)}
               for i in (10, 2, 1)]
    assert [e["id"] for e in sorted_rows(entries, column(Nic, "id"))] == \
        ["vm1", "vm2", "vm10"]
    by_speed = sorted_rows(entries, column(Nic, "speed_gbps"),
                           descending=True)
    assert [e["speed_gbps"] for e in by_speed] == [2.0, 1.0, 1.0]
    assert [e["id"] for e in without_rows(entries, [0, 2])] == ["vm2"]
