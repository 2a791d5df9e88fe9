"""fio ``--output-format=json`` -> the storage workloads measured, and the
runs ``linkplan calibrate`` fits a back end to.

Structure (fio(1), "JSON output"; fio's ``stat.c``): ``"fio version"``,
``global options`` and ``jobs[]``, each with ``jobname``, ``error``,
``job options`` (rw, bs, iodepth, numjobs, rwmixread, ioengine, direct;
an option given globally is in ``global options``), ``read`` and
``write`` (``iops``, ``bw`` in KiB/s, ``io_bytes``, ``lat_ns`` with
``mean``, ``clat_ns.percentile`` keyed ``"99.000000"``), ``usr_cpu`` and
``sys_cpu`` (% of one CPU). Without ``group_reporting`` each of
``numjobs`` clones is a job entry of the same name: their rates add up.
"""

import errno
import os
import re

from app.importers.common import (Draft, ImportProblem, identifier,
                                  import_each, storage_workloads)
from app.importers.iperf3 import read_json
from models.units import KIB
from solvers.calibrate import StorageRun

#: fio's rw values: (share of reads, share of random IO); a mix takes its
#: read share from rwmixread.
RW_MODES = {"read": (1.0, 0.0), "randread": (1.0, 1.0),
            "write": (0.0, 0.0), "randwrite": (0.0, 1.0),
            "rw": (None, 0.0), "readwrite": (None, 0.0),
            "randrw": (None, 1.0)}

#: fio's synchronous engines: one IO in flight per job whatever iodepth
#: says (fio(1), "iodepth").
SYNC_ENGINES = ("sync", "psync", "vsync", "pvsync", "pvsync2", "mmap",
                "null", "falloc", "ftruncate", "filecreate", "filestat",
                "filedelete", "e4defrag")

_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([kmgt]?)i?b?$", re.IGNORECASE)
_POWERS = {"": 1, "k": KIB, "m": KIB ** 2, "g": KIB ** 3, "t": KIB ** 4}


def import_files(paths):
    """Import fio JSON files; one scenario per file, a workload per job."""
    return import_each(paths, _import_one)


def _import_one(path, result):
    data = read_json(path, "fio", "fio --output-format=json")
    if "jobs" not in data or not str(data.get("fio version", "")):
        raise ImportProblem(path, "fio JSON output (keys 'fio version' and "
                            "jobs)", got=", ".join(sorted(data))[:80])
    globals_ = data.get("global options") or {}
    jobs = {}
    for index, job in enumerate(data["jobs"]):
        name = str(job.get("jobname", f"job{index}"))
        if job.get("error"):
            raise ImportProblem(path, f"a fio run without errors; job "
                                f"{name!r} (jobs[{index}]) ended with "
                                f"error {job['error']} "
                                f"({_error_text(job['error'])})")
        jobs.setdefault(name, []).append((index, job))
    if not jobs:
        raise ImportProblem(path, "at least one fio job in jobs[]")
    draft = Draft(f"fio measured: {path}")
    document = draft.document
    document["host"] = {"hypervisor": "kvm"}
    document["nics"] = [{"id": "nic0", "speed_gbps": 10.0}]
    document["meta"]["description"] = (
        f"{data['fio version']} run{'s' * (len(jobs) > 1)} of "
        f"{', '.join(jobs)}; a local device (fio reports no protocol)")
    draft.assumptions += [
        "Protocol 'local': fio ran on the host against its own device or "
        "file (a network file system would need the protocol set)",
        "fio reports no CPU model or clock: set host.ghz, sockets and "
        "cores_per_socket",
        "NIC nic0 (10 Gbit/s) is a placeholder: local IO does not use it"]
    workloads = storage_workloads(document)
    for name, entries in jobs.items():
        run = _job(path, name, entries, globals_, draft, len(workloads))
        if run is None:
            result.skipped.append(f"{path}: job {name!r}: no reads or "
                                  "writes measured")
            continue
        workload, storage_run = run
        workloads.append(workload)
        result.runs.append(storage_run)
        result.taken.append(
            f"{path}: job {name!r}: {storage_run.iops:.0f} IOPS at "
            f"{storage_run.oio} outstanding IO, "
            f"{storage_run.latency_s * 1e6:.1f} us mean latency")
    if workloads:
        result.drafts.append(draft)


def _option(job, globals_, key, default=None):
    options = job.get("job options") or {}
    return options.get(key, globals_.get(key, default))


def _job(path, name, entries, globals_, draft, index):
    first = entries[0][1]
    where = f"jobs[{entries[0][0]}] ({name})"
    rw = str(_option(first, globals_, "rw",
                     _option(first, globals_, "readwrite", "read")))
    rw = rw.split(":")[0]
    if rw not in RW_MODES:
        raise ImportProblem(path, f"rw one of {', '.join(RW_MODES)}",
                            column=f"{where} rw", got=rw)
    read, random = RW_MODES[rw]
    if read is None:
        read = _number(path, _option(first, globals_, "rwmixread", "50"),
                       f"{where} rwmixread") / 100
    if _option(first, globals_, "bs") is None \
            and _option(first, globals_, "bssplit") is not None:
        raise ImportProblem(path, "one block size per job (bs); a bssplit "
                            "mix is not one workload", column=f"{where} "
                            "bssplit", got=_option(first, globals_,
                                                   "bssplit"))
    block = _size(path, _option(first, globals_, "bs", "4k"),
                  f"{where} bs")
    depth = int(_number(path, _option(first, globals_, "iodepth", "1"),
                        f"{where} iodepth"))
    engine = str(_option(first, globals_, "ioengine", "psync"))
    if engine in SYNC_ENGINES and depth > 1:
        # fio caps a synchronous engine's queue at one IO ("both iodepth
        # >= 1 and synchronous I/O engine are selected")
        draft.assumptions.append(
            f"{path}: job {name!r}: ioengine {engine} is synchronous: "
            f"iodepth {depth} runs as 1 IO in flight per job")
        depth = 1
    if str(_option(first, globals_, "direct", "0")) in ("0", "false"):
        draft.assumptions.append(
            f"{path}: job {name!r}: buffered IO (direct=0): the page cache "
            "may have served IOs the device never saw")
    numjobs = int(_number(path, _option(first, globals_, "numjobs", "1"),
                          f"{where} numjobs"))
    iops = rate = latency_weight = 0.0
    for _, job in entries:
        for side in ("read", "write"):
            stats = job.get(side) or {}
            side_iops = float(stats.get("iops") or 0)
            iops += side_iops
            rate += float(stats.get("bw") or 0) * KIB
            latency_weight += side_iops * _mean_latency(stats)
    if iops <= 0:
        return None
    latency = latency_weight / iops
    # clones without group_reporting are separate entries; with it one
    oio = depth * (numjobs if len(entries) == 1 else len(entries))
    clones = numjobs if len(entries) == 1 else len(entries)
    item = f"workloads.storage[{index}]"
    workload = {
        "name": identifier(name),
        "protocol": "local",
        "block_kib": draft.measured(f"{item}.block_kib", block / KIB, path,
                                    f"{where} job options.bs"),
        "read_pct": draft.measured(f"{item}.read_pct", 100 * read, path,
                                   f"{where} job options.rw"
                                   + (", rwmixread" if RW_MODES[rw][0] is None
                                      else "")),
        "random_pct": draft.measured(f"{item}.random_pct", 100 * random,
                                     path, f"{where} job options.rw"),
        "disks_per_vm": draft.measured(f"{item}.disks_per_vm", clones, path,
                                       f"{where} numjobs"),
        "threads_per_disk": draft.measured(f"{item}.threads_per_disk",
                                           depth, path,
                                           f"{where} job options.iodepth"),
        "backend": {
            "iops_max": draft.measured(
                f"{item}.backend.iops_max", iops, path,
                f"{where} read.iops + write.iops (a lower bound: the rate "
                f"at {oio} outstanding IO)")},
    }
    if oio == 1:
        workload["backend"]["service_time_ms"] = draft.measured(
            f"{item}.backend.service_time_ms", latency * 1e3, path,
            f"{where} lat_ns.mean (one IO in flight)")
    cpu = (float(first.get("usr_cpu") or 0), float(first.get("sys_cpu")
                                                   or 0))
    percentiles = _percentiles(first)
    draft.document["meta"]["notes"] = "\n".join(filter(None, [
        draft.document["meta"].get("notes", ""),
        f"Measured outcome of job {name!r}: {iops:.6g} IOPS, "
        f"{rate / 1e6:.4g} MB/s, mean latency {latency * 1e6:.4g} us"
        + (f", {percentiles}" if percentiles else "")
        + f"; fio's CPU {cpu[0]:.1f} % user + {cpu[1]:.1f} % system of one "
        f"CPU ({path}, {where})"]))
    run = StorageRun(f"{path} ({name}: {rw}, bs {block / KIB:g} KiB, "
                     f"QD {depth} x {clones} job(s))", path, "fio", block,
                     read, random, 1, clones, depth, iops, latency)
    return workload, run


def _mean_latency(stats):
    """Mean total latency of one direction [s]: ``lat_ns`` (fio 3), else
    ``lat`` in microseconds (fio 2)."""
    if "lat_ns" in stats:
        return float(stats["lat_ns"].get("mean") or 0) / 1e9
    return float((stats.get("lat") or {}).get("mean") or 0) / 1e6


def _percentiles(job):
    shown = []
    for side in ("read", "write"):
        points = ((job.get(side) or {}).get("clat_ns") or {}).get(
            "percentile") or {}
        for key, label in (("95.000000", "p95"), ("99.000000", "p99")):
            if points.get(key):
                shown.append(f"{side} {label} {points[key] / 1e3:.4g} us")
    return ", ".join(shown)


def _number(path, text, column):
    try:
        return float(str(text).strip())
    except ValueError:
        raise ImportProblem(path, "a number", column=column,
                            got=text) from None


def _size(path, text, column):
    """fio sizes: ``4k`` = 4096 (kb_base 1024), ``4096``, ``1m``; of
    ``4k,8k`` (read,write) the first."""
    match = _SIZE.match(str(text).split(",")[0].split("-")[0].strip())
    if not match:
        raise ImportProblem(path, "a block size such as 4k or 4096",
                            column=column, got=text)
    return float(match.group(1)) * _POWERS[match.group(2).lower()]


def _error_text(code):
    try:
        return f"{errno.errorcode[int(code)]}: {os.strerror(int(code))}"
    except (KeyError, ValueError):
        return "see fio's output"
