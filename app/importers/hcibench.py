"""HCIBench result summaries (``<test>-res.txt``) -> the storage workloads
measured, and the runs ``linkplan calibrate`` fits a back end to.

Structure (vmware-labs/hci-benchmark-appliance,
``HCIBench/automation/lib/parseFioResult.rb``): ``Datastore = NAME``, then
per job a block between ``=====`` lines: ``JOB_NAME = job0``, ``VMs = 8``,
``IOPS = 123.45 IO/S``, ``THROUGHPUT = 4.82 MB/s``, ``R_LATENCY = 1.2 ms``,
``W_LATENCY``, ``95%tile_R_LAT``, ``95%tile_W_LAT``; then ``Resource
Usage:``. Vdbench runs (``parseVdbResult.rb``) start each block with
``Run Def: RD=name; ...`` instead of JOB_NAME, with the same VMs, IOPS,
R_LATENCY and W_LATENCY lines. The workload is in the test's name,
which the file is named after: ``fio-<N>vmdk-<W>ws-<block>-<R>rdpct-
<X>randompct-<T>threads-<epoch>-res.txt`` (HCIBench's parameter file
naming; ``vdb-`` for vdbench).
"""

import re
from pathlib import Path

from app.importers.common import (Draft, ImportProblem, identifier,
                                  import_each, number, read_text,
                                  storage_workloads)
from models.units import KIB
from solvers.calibrate import StorageRun

_NAME = re.compile(r"(?:fio|vdb)-(\d+)vmdk-(\d+)ws-(\d+)([kKmM]?)-(\d+)rdpct-"
                   r"(\d+)randompct-(\d+)threads")
_LINE = re.compile(r"^\s*([A-Za-z0-9_%]+)\s*=\s*(.*?)\s*$")


def import_files(paths):
    """Import HCIBench summaries; one scenario per file."""
    return import_each(paths, _import_one)


def _import_one(path, result):
    match = _NAME.search(Path(path).name)
    if not match:
        raise ImportProblem(path, "an HCIBench summary named after its test "
                            "(fio-<N>vmdk-<W>ws-<block>-<R>rdpct-"
                            "<X>randompct-<T>threads-<time>-res.txt): the "
                            "workload is read from the name",
                            got=Path(path).name)
    disks, _, size, unit, read, random, threads = match.groups()
    block = float(size) * {"": KIB, "k": KIB, "m": KIB ** 2}[unit.lower()]
    text = read_text(path)
    jobs, datastore, current = [], "", None
    for row, line in enumerate(text.splitlines(), 1):
        if line.startswith("Run Def:"):
            # vdbench's summary: a block per run definition, no JOB_NAME
            name = line.split(":", 1)[1].split(";")[0].strip()
            current = {"name": name.removeprefix("RD=") or "rd", "row": row}
            jobs.append(current)
            continue
        found = _LINE.match(line)
        if not found:
            if line.startswith("Resource Usage"):
                break
            continue
        key, value = found.groups()
        if key == "Datastore":
            datastore = value
        elif key == "JOB_NAME":
            current = {"name": value, "row": row}
            jobs.append(current)
        elif current is not None:
            current[key] = (row, value.split()[0] if value else "")
    if not jobs:
        raise ImportProblem(path, "an HCIBench summary with JOB_NAME, VMs "
                            "and IOPS lines (the test may have finished "
                            "early: no results summarized)")
    draft = Draft(f"HCIBench measured: {path}")
    document = draft.document
    document["host"] = {"hypervisor": "vsphere"}
    document["nics"] = [{"id": "nic0", "speed_gbps": 25.0}]
    document["meta"]["description"] = f"HCIBench on datastore {datastore}"
    draft.assumptions += [
        "The test VMs' disks on the datastore are one back end seen "
        "locally (protocol 'local'): the datastore's network and CPU are "
        "inside the fitted service time and channels",
        "NIC nic0 (25 Gbit/s) is a placeholder: the summary names no NIC"]
    workloads = storage_workloads(document)
    for job in jobs:
        values = {}
        for key in ("VMs", "IOPS", "R_LATENCY", "W_LATENCY"):
            if key not in job:
                raise ImportProblem(path, f"a {key} line in job "
                                    f"{job['name']!r}", row=job["row"])
            row, text_value = job[key]
            values[key] = number(path, text_value, f"a number for {key}",
                                 row=row, column=key)
        vms = int(values["VMs"])
        share = float(read) / 100
        latency = (share * values["R_LATENCY"]
                   + (1 - share) * values["W_LATENCY"]) / 1e3
        index = len(workloads)
        item = f"workloads.storage[{index}]"
        workloads.append({
            "name": identifier(f"hcibench-{job['name']}"),
            "protocol": "local", "block_kib": block / KIB,
            "read_pct": float(read), "random_pct": float(random),
            "vms": draft.measured(f"{item}.vms", vms, path,
                                  f"VMs of job {job['name']}"),
            "disks_per_vm": int(disks), "threads_per_disk": int(threads),
            "backend": {"iops_max": draft.measured(
                f"{item}.backend.iops_max", values["IOPS"], path,
                f"IOPS of job {job['name']} (a lower bound)")}})
        draft.measured(f"{item}.block_kib", block / KIB, path,
                       "the test name's block size")
        run = StorageRun(f"{path} ({job['name']}: {vms} VMs x {disks} "
                         f"disks x {threads} threads)", path, "hcibench",
                         block, share, float(random) / 100, vms, int(disks),
                         int(threads), values["IOPS"], latency)
        result.runs.append(run)
        result.taken.append(f"{path}: job {job['name']}: "
                            f"{values['IOPS']:.0f} IOPS at {run.oio} "
                            "outstanding IO")
    result.drafts.append(draft)
