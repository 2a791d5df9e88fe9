"""Goal labels: what each goal of ``models.scenario.GOALS`` means, as the
goal selector, the findings panel and the report name it."""

GOAL_LABELS = {
    "max_throughput": "Highest host throughput",
    "min_cpu": "Lowest host CPU per Gbit/s moved",
    "min_migration_time": "Shortest live migration",
    "min_evacuation_time": "Shortest host evacuation",
    "max_iops": "Most storage IOPS, all workloads",
    "latency_target": "Storage latency within the target",
    "min_peak_util": "Lowest peak uplink utilization, configured policy",
    "min_cluster_util": "Lowest busiest cluster link in any case",
}
