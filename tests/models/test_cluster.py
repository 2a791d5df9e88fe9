"""Cluster fabric physics (models.cluster): replication traffic, rebuild
volume, host minimums and how links divide between classes."""

import numpy as np
import pytest

from models import cluster


def test_links_divide_by_shares_as_vmware_documents():
    # vSphere Networking, "Bandwidth allocation for system traffic": shares
    # 100/100/50 on a saturated 10 GbE adapter give 40/40/20 % (exact:
    # weighted max-min has no free parameter)
    allocated = cluster.link_allocation([[10.0, 10.0, 10.0]],
                                        [100.0, 100.0, 50.0], [10.0])
    assert allocated[0] == pytest.approx([4.0, 4.0, 2.0])


def test_a_link_that_is_down_carries_nothing():
    allocated = cluster.link_allocation([[3.0, 1.0], [3.0, 1.0]],
                                        [50.0, 50.0], [10.0, 0.0])
    assert allocated[0] == pytest.approx([3.0, 1.0])
    assert allocated[1] == pytest.approx([0.0, 0.0])


@pytest.mark.parametrize("layout, ftt, hosts", [
    # vSAN Planning and Deployment: RAID-1 needs 2 FTT + 1 hosts, OSA
    # RAID-5 4 and RAID-6 6, ESA RAID-5 (2+1) 3
    ("vsan_osa_raid1", 1, 3), ("vsan_osa_raid1", 2, 5),
    ("vsan_osa_raid1", 3, 7), ("vsan_osa_raid5", 1, 4),
    ("vsan_osa_raid6", 2, 6), ("vsan_esa_raid5", 1, 3),
    # Microsoft Learn, fault tolerance: three-way mirror 3, dual parity 4
    ("s2d_mirror", 2, 3), ("s2d_parity", 2, 4),
    # Ceph, host failure domain: a host per replica or chunk
    ("ceph_replica", 2, 3), ("ceph_ec", 2, 6)])
def test_minimum_hosts_per_layout(layout, ftt, hosts):
    assert cluster.minimum_hosts(layout, ftt, data_chunks=4) == hosts


def test_esa_raid5_widens_from_six_hosts():
    # VMware, "Adaptive RAID-5 erasure coding" (vSAN 8 ESA): 2+1 on 3-5
    # hosts, 4+1 from 6
    assert cluster.erasure_width("vsan_esa_raid5", 5, 1) == (2, 1)
    assert cluster.erasure_width("vsan_esa_raid5", 6, 1) == (4, 1)


def test_mirror_writes_every_copy_and_reads_one():
    # FTT 1 mirror: two copies per write, one per read, each remote unless
    # on the VM's host (probability 1/N); N large -> 2 W + R
    traffic = cluster.replication_traffic(4.0, 1.0, "vsan_osa_raid1",
                                          1_000_000, 1)
    assert traffic == pytest.approx(4.0 + 2.0, rel=1e-5)
    assert cluster.replication_traffic(0.0, 1.0, "vsan_osa_raid1", 4, 1) \
        == pytest.approx(0.75 * 2.0)


def test_ceph_primary_forwards_to_the_replicas_and_chunks():
    # Ceph "Data replication": the client writes to the primary OSD, which
    # writes to the other size - 1; an EC pool's primary sends k + m - 1
    # chunks of W / k. N large: size 3 -> 3 W; EC 4+2 -> W + 5 W / 4.
    big = 1_000_000
    assert cluster.replication_traffic(0.0, 1.0, "ceph_replica", big, 2) \
        == pytest.approx(3.0, rel=1e-5)
    assert cluster.replication_traffic(0.0, 1.0, "ceph_ec", big, 2,
                                       data_chunks=4) \
        == pytest.approx(2.25, rel=1e-5)


def test_osa_parity_reads_and_rewrites_data_and_parity():
    # a small in-place RAID-5 write reads and rewrites its data chunk and
    # its parity: 4 transfers (the RAID write penalty of 4)
    big = 1_000_000
    assert cluster.replication_traffic(0.0, 1.0, "vsan_osa_raid5", big, 1) \
        == pytest.approx(4.0, rel=1e-5)
    assert cluster.replication_traffic(0.0, 1.0, "vsan_osa_raid6", big, 2) \
        == pytest.approx(6.0, rel=1e-5)


def test_rebuild_moves_each_lost_byte_once_or_k_plus_one_chunks():
    assert cluster.rebuild_traffic(10.0, "vsan_esa_raid1", 8, 1) == 10.0
    # EC 4+2: read four chunks, write one
    assert cluster.rebuild_traffic(10.0, "ceph_ec", 8, 2, data_chunks=4) \
        == pytest.approx(50.0)


def test_rebuild_keeps_its_floor_under_contention():
    # vSAN Adaptive Resync: at least 20 % of the class for resync when
    # production wants it all
    production, rebuild = cluster.split_storage_class(10.0, 10.0, np.inf,
                                                      0.2)
    assert (production, rebuild) == pytest.approx((8.0, 2.0))
    # no contention: production whole, the rebuild takes the rest
    production, rebuild = cluster.split_storage_class(10.0, 3.0, np.inf,
                                                      0.2)
    assert (production, rebuild) == pytest.approx((3.0, 7.0))
    # a throttled rebuild leaves what it does not use
    production, rebuild = cluster.split_storage_class(10.0, 10.0, 1.0, 0.2)
    assert (production, rebuild) == pytest.approx((9.0, 1.0))


def test_out_of_rack_share():
    # 8 hosts in 2 racks: 4 of each host's 7 peers are in the other rack
    assert cluster.out_of_rack_fraction(8, 2) == pytest.approx(4 / 7)
    assert cluster.out_of_rack_fraction(8, 1) == 0.0


def test_rebuild_time_at_a_rate():
    # 1 TiB at 10 Gbit/s: 2^40 * 8 / 1e10 s
    assert cluster.rebuild_time(1.0, 10.0) == pytest.approx(879.6093, 1e-6)
    assert cluster.rebuild_time(1.0, 0.0) == np.inf


def test_an_unknown_layout_names_the_choices():
    with pytest.raises(ValueError, match="layout"):
        cluster.minimum_hosts("raid10", 1)
