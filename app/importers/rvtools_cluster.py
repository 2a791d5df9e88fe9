"""RVTools inventory -> one cluster document per vCenter cluster.

Built from the per-host drafts of :mod:`app.importers.rvtools` (their NICs
and powered-on VMs, read from vNIC and vInfo), the vHost "Cluster" column
and the VMkernel services of vSC_VMK (vMotion, vSAN). RVTools shows no
physical switch, no traffic rate and no vSAN policy: what the document
needs of them is assumed and said in its assumptions (two top-of-rack
switches, non-blocking uplinks, vSAN RAID-1 FTT 1, no traffic yet).
"""

from collections import Counter

from app.importers.common import Draft, identifier
from models.cluster import minimum_hosts

#: Switches the hosts' NICs alternate over (RVTools sees no physical
#: switch): NIC 0 to the first, NIC 1 to the second, ...
SWITCHES = ("tor-a", "tor-b")

#: NIOC v3's "normal" shares, for every class a cluster import creates.
NORMAL_SHARES = 50.0

#: vSAN layout assumed for an imported vSAN cluster: the default storage
#: policy (RAID-1, FTT 1; VMware, "vSAN Default Storage Policy").
VSAN_LAYOUT = ("vsan_osa_raid1", 1)


def add_clusters(path, members, services, columns, result):
    """Append one cluster draft per vCenter cluster of two hosts or more.

    Parameters
    ----------
    path : path-like
        The RVTools export (for the names and provenance).
    members : list of (str, str, Draft)
        Host name, its vHost "Cluster" cell and its imported draft.
    services : dict
        Host name -> the lower-cased VMkernel services it runs (vSC_VMK).
    columns : dict
        ``memory`` and ``in_use``: the vInfo columns the hosts' VM memory
        and disks in use were read from (``tab!header``), for provenance.
    result : ImportResult
    """
    clusters = {}
    for host, cluster, draft in members:
        if cluster:
            clusters.setdefault(cluster, []).append((host, draft))
    for cluster, hosts in clusters.items():
        if len(hosts) < 2:
            result.skipped.append(f"{path}: cluster {cluster}: one host "
                                  f"({hosts[0][0]}): no cluster document")
            continue
        _cluster(path, cluster, hosts, services, columns, result)


def _cluster(path, cluster, hosts, services, columns, result):
    counts = Counter(len(draft.document["nics"]) for _, draft in hosts)
    nic_count = counts.most_common(1)[0][0]
    kept = [(h, d) for h, d in hosts if len(d.document["nics"]) == nic_count]
    for host, draft in hosts:
        if (host, draft) not in kept:
            result.skipped.append(
                f"{path}: cluster {cluster}: host {host} has "
                f"{len(draft.document['nics'])} NICs with a link, the "
                f"others {nic_count}: left out of the cluster document")
    if len(kept) < 2:
        return
    # the first word names the file `linkplan import -o` writes
    draft = Draft(f"{identifier(cluster)}-cluster (vCenter cluster "
                  f"{cluster}, RVTools {path})")
    doc = draft.document
    doc["host"] = dict(kept[0][1].document["host"])
    speeds = [[n["speed_gbps"] for n in d.document["nics"]] for _, d in kept]
    slowest = [min(column) for column in zip(*speeds)]
    doc["nics"] = [{"id": nic["id"], "speed_gbps": speed} for nic, speed
                   in zip(kept[0][1].document["nics"], slowest)]
    if any(s != slowest for s in speeds):
        draft.assumptions.append(
            f"The hosts of {cluster} have different NIC speeds; the cluster "
            "document gives every host the slowest at each position "
            f"({', '.join(f'{s:g}' for s in slowest)} Gbit/s)")
    links = [SWITCHES[n % len(SWITCHES)] for n in range(nic_count)]
    switches = sorted(set(links))
    doc["cluster"] = cluster_section = {
        "host_groups": [{"name": identifier(cluster), "count": len(kept),
                         "links": links}],
        "switches": [{"name": s, "uplink_gbps": len(kept) * sum(
            speed for speed, link in zip(slowest, links) if link == s)}
            for s in switches],
        "classes": [{"name": "vm", "kind": "vm", "demand_gbps": 0.0,
                     "shares": NORMAL_SHARES},
                    {"name": "management", "kind": "management",
                     "demand_gbps": 0.0, "shares": NORMAL_SHARES}]}
    draft.assumptions += [
        f"Each host's NICs alternate over {len(switches)} top-of-rack "
        f"switch(es) ({', '.join(switches)}) with non-blocking uplinks "
        "(RVTools shows no physical switch)",
        "No traffic rates in RVTools: the classes' demand_gbps is 0 until "
        "measured (esxtop, vCenter or perfmon imports) or typed in"]
    memory = [sum(m["memory_gib"] for m in d.document["workloads"]
                  ["migrations"]) for _, d in kept]
    if max(memory) > 0:
        cluster_section["memory_per_host_gib"] = draft.measured(
            "cluster.memory_per_host_gib", max(memory), path,
            f"{columns.get('memory')} (the busiest host's powered-on VMs)")
    ran = set().union(*(services.get(h, set()) for h, _ in kept))
    if "vmotion" in ran:
        cluster_section["classes"].append(
            {"name": "vmotion", "kind": "vmotion", "demand_gbps": 0.0,
             "shares": NORMAL_SHARES})
    if "vsan" in ran:
        _vsan(draft, path, cluster, kept, columns, result)
    result.drafts.append(draft)
    result.taken.append(
        f"{path}: cluster {cluster}: {len(kept)} hosts x {nic_count} NICs "
        f"on {', '.join(switches)}"
        + (", vSAN" if "vsan" in ran else ""))


def _vsan(draft, path, cluster, kept, columns, result):
    layout, ftt = VSAN_LAYOUT
    if len(kept) < minimum_hosts(layout, ftt):
        result.skipped.append(
            f"{path}: cluster {cluster}: vSAN on {len(kept)} hosts is below "
            f"the {minimum_hosts(layout, ftt)} of {layout} FTT {ftt}: no "
            "storage replication in the cluster document")
        return
    section = draft.document["cluster"]
    section["storage_layout"], section["failures_to_tolerate"] = layout, ftt
    section["classes"].append({"name": "vsan", "kind": "storage",
                               "shares": 2 * NORMAL_SHARES})
    disks = [vm.get("disk_gib", 0.0) for _, d in kept
             for e in d.document["workloads"].get("evacuations", [])
             for vm in e["vms"]]
    if sum(disks) > 0:
        # FTT + 1 copies of the VMs' data spread over the hosts
        section["data_per_host_tib"] = draft.measured(
            "cluster.data_per_host_tib",
            sum(disks) * (ftt + 1) / len(kept) / 1024, path,
            f"{columns.get('in_use')} (the cluster's powered-on VMs)")
    draft.assumptions.append(
        f"vSAN vmknics found (vSC_VMK services): the default storage policy "
        f"assumed ({layout}, FTT {ftt}); vSAN traffic shares 100, the other "
        "classes 50 (NIOC normal)")
