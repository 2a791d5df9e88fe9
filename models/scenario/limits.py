"""Limits of the scenario document: its schema version, the magnitudes a
number may have and the sizes of its lists and studies, each with the
measurement or source it rests on; and the checks that a plain value is
within them and has a TOML form."""

import math


#: The schema version this build writes and reads natively.
SCHEMA_VERSION = 1


#: Magnitudes a number in a document may have, besides zero. The models
#: turn Gbit/s, GiB, MiB/s and ms into bit/s, B and s (factors up to
#: 2**40), multiply by counts (at most the product limits below) and
#: divide by rates and times: with every input 0 or within [1e-9, 1e12],
#: every intermediate stays far inside float64's normal range (about
#: 1e-308 to 1e308), so nothing overflows, divides by a denormal or
#: rounds to zero. Both ends are far outside real hardware (1e-9 Gbit/s is
#: 1 bit/s; 1e12 IOPS or Gbit/s is a million times today's largest).
SMALLEST_MAGNITUDE = 1e-9
LARGEST_MAGNITUDE = 1e12

#: Entries in one list of a document (unless limited below). Measured:
#: evaluation takes about 3 ms per live migration or transfer and advise
#: re-solves the scenario per candidate, so 10,000 migrations took 31 s
#: and 1 GB (issue 19); 1,000 stay within seconds.
MAX_ENTRIES = 1_000

#: Transfers and storage workloads in one document: advise re-validates
#: and re-solves the document once per candidate change, and there is a
#: candidate per entry, so its time grows with the square of their number
#: (measured, 2 cores: 100 transfers 7-9 s, 200 transfers 26 s; 100
#: storage workloads 2.5 s, 1,000 over 300 s). Real hosts run a few
#: bulk transfers (each up to 1,024 sessions) and a few storage tests.
MAX_TRANSFERS = 64
MAX_STORAGE_WORKLOADS = 100

#: Transfers, migrations, storage workloads and evacuations solved over
#: the base and all variants together: every variant solves them again
#: (same measurement). Flows are not counted: a team's flows are bounded
#: by MAX_TEAMING_CELLS per variant (measured: 400 flows on an LBT team
#: over 8 variants evaluate in 1.2 s).
MAX_SOLVED_ENTRIES = 2_000

#: NIC ports on one host: PCIe slots times ports per card stay below this.
MAX_NICS = 64

#: Largest total outstanding IO (VMs x disks x threads) of a storage
#: workload: the closed-queue model (models.storage.closed_queue_iops)
#: steps once per outstanding IO, about 1 s per 100,000 (measured); real
#: benchmarks stay far below (HCIBench: storage-io.md section 5.1).
MAX_OIO = 100_000

#: Largest number of TCP connections of one transfer (sessions x
#: streams): the receive-side model hashes every connection onto queues;
#: 65,536 is the ephemeral-port space of one peer address (RFC 6335).
MAX_CONNECTIONS = 65_536

#: Largest team simulation: time steps x flows x (failure sets + 1), the
#: cells the teaming solver computes per compared policy. 2e6 cells keep
#: one policy within about a second (measured on the seed examples).
MAX_TEAMING_CELLS = 2_000_000


#: Largest cluster study: cases x hosts x NICs x traffic classes, the
#: cells of one evaluation of models.cluster (8 bytes each; 20 million
#: cells solve in about a second and take 160 MB per array). 64 hosts x
#: 4 NICs x 8 classes with every single failure is about 40,000.
MAX_CLUSTER_CELLS = 20_000_000

#: Hosts of one cluster: vSphere 8 and Windows Server 2025 allow 96 and
#: 64 per cluster; Ceph clusters grow larger, but one study of a rack
#: fabric stays below this.
MAX_CLUSTER_HOSTS = 1_024


#: Most IOs a device serves at once: NVMe allows 65,535 queues, but no
#: drive has more than a few thousand dies x planes working in parallel.
MAX_DEVICE_CHANNELS = 4096


def representation_problem(value, where=""):
    """Problem text when a plain value is outside what the document
    accepts (see SMALLEST_MAGNITUDE), else None. Lists are checked by
    element; tables (variant changes) by value."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return f"{_at(where)}must be a finite number, got {value}"
        if value and not SMALLEST_MAGNITUDE <= abs(value) \
                <= LARGEST_MAGNITUDE:
            limit, side = (SMALLEST_MAGNITUDE, "below the smallest") \
                if abs(value) < SMALLEST_MAGNITUDE \
                else (LARGEST_MAGNITUDE, "above the largest")
            return (f"{_at(where)}is {side} magnitude the models represent "
                    f"({limit:g}; 0 where allowed), got {value!r}")
        return None
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{_at(where)}is not valid Unicode text, got {value!r}"
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            problem = representation_problem(item, f"{where}[{i}]")
            if problem:
                return problem
    return None


def _at(where):
    return f"{where}: " if where else ""


def plain_value_problem(value, where):
    """Problem text when a free-form value (variant change, sweep value)
    has no TOML form or is not representable, else None."""
    if value is None:
        return (f"{where}: null has no TOML form and cannot be saved; "
                "give the value itself")
    if isinstance(value, dict):
        for key, item in value.items():
            problem = plain_value_problem(item, f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(value, list):
        for i, item in enumerate(value):
            problem = plain_value_problem(item, f"{where}[{i}]")
            if problem:
                return problem
        return None
    return representation_problem(value, where)
