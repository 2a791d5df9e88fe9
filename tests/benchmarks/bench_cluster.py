"""Cluster planner at scale (issue 35, item 6): 64 hosts x 4 NICs x 8
traffic classes in two racks, every single failure (each host group's host,
each switch, each NIC of a host) and maintenance solved by one
``evaluate``."""

import time

from models.scenario import scenario_from_dict
from solvers.evaluate import evaluate

KINDS = ("vm", "storage", "vmotion", "backup", "management", "vm", "other",
         "vm")


def cluster_document(hosts=64, nics=4, classes=8):
    """A two-rack cluster document of ``hosts`` hosts in four groups."""
    per_group = hosts // 4
    return scenario_from_dict({
        "schema_version": 1, "meta": {"name": "bench cluster"},
        "host": {"hypervisor": "vsphere"},
        "nics": [{"id": f"vmnic{n}", "speed_gbps": 25.0}
                 for n in range(nics)],
        "cluster": {
            "storage_layout": "vsan_esa_raid5", "data_per_host_tib": 20.0,
            "memory_per_host_gib": 1024.0,
            "host_groups": [{"name": f"g{g}", "count": per_group,
                             "links": [f"tor{g // 2}a", f"tor{g // 2}b"]}
                            for g in range(4)],
            "switches": [{"name": f"tor{r}{side}", "rack": f"rack{r}",
                          "uplink_gbps": 400.0}
                         for r in range(2) for side in "ab"],
            "classes": [
                {"name": f"c{k}", "kind": kind,
                 **({"read_gbps": 6.0, "write_gbps": 3.0}
                    if kind == "storage" else {"demand_gbps": 2.0}),
                 "north_south_pct": 20.0 if kind == "vm" else 0.0,
                 "shares": 100.0 if kind == "storage" else 50.0}
                for k, kind in enumerate(KINDS[:classes])]}})


def cluster_every_failure_seconds():
    """Cluster 64 hosts x 4 NICs x 8 classes, all cases [s]"""
    scenario = cluster_document()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        evaluate(scenario)
        best = min(best, time.perf_counter() - start)
    return best, "s", 1.0, False


BENCHMARKS = [cluster_every_failure_seconds]
