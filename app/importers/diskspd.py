"""DiskSpd ``-Rxml`` results -> the storage workloads measured, and the
runs ``linkplan calibrate`` fits a back end to.

Structure (microsoft/diskspd, ``XmlResultParser.cpp`` and the profile's
``GetXml`` in ``Common.cpp``): ``<Results>`` holds ``<System>``
(ComputerName, ProcessorTopology), ``<Profile>`` with
``TimeSpans/TimeSpan/Targets/Target`` (Path, BlockSize, RequestCount =
outstanding IO per thread and target, WriteRatio, ``<Random>`` present
for random IO with an optional RandomRatio, ThreadsPerFile), then one
result ``<TimeSpan>`` per profile time span: TestTimeSeconds, ThreadCount,
``CpuUtilization/Average/UsagePercent``, ``Latency/AverageTotalMilliseconds``
(with -L) and ``Thread/Target`` counters (ReadCount, WriteCount). A span
interrupted before measuring holds ``<Error>``.
"""

import xml.etree.ElementTree as ElementTree

from app.importers.common import (Draft, ImportProblem, identifier,
                                  import_each, read_text, storage_workloads)
from models.units import KIB
from solvers.calibrate import StorageRun


def import_files(paths):
    """Import DiskSpd XML files; one scenario per file."""
    return import_each(paths, _import_one)


def _import_one(path, result):
    text = read_text(path)
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as err:
        line, column = err.position
        raise ImportProblem(path, f"DiskSpd -Rxml XML: {err} (truncated "
                            "file?)", row=line, column=column) from None
    if root.tag != "Results":
        raise ImportProblem(path, "DiskSpd -Rxml XML (root <Results>)",
                            got=f"<{root.tag}>")
    profiles = root.findall("Profile/TimeSpans/TimeSpan")
    measured = root.findall("TimeSpan")
    if not profiles or not measured:
        raise ImportProblem(path, "a <Profile> time span and its result "
                            "<TimeSpan> in <Results>")
    computer = root.findtext("System/ComputerName", "host")
    draft = Draft(f"DiskSpd measured: {path}")
    document = draft.document
    document["host"] = {"hypervisor": "hyperv"}
    document["nics"] = [{"id": "nic0", "speed_gbps": 10.0}]
    document["meta"]["description"] = f"DiskSpd run on {computer}"
    draft.assumptions += [
        "Protocol 'local': DiskSpd ran against the host's own volume (an "
        "SMB share or CSV over the network would need the protocol set)",
        "DiskSpd reports processors but no clock: set host.ghz",
        "NIC nic0 (10 Gbit/s) is a placeholder: local IO does not use it"]
    workloads = storage_workloads(document)
    for number, (profile, span) in enumerate(zip(profiles, measured), 1):
        error = span.findtext("Error")
        if error:
            raise ImportProblem(path, f"a measured time span; time span "
                                f"{number} says: {error.strip()}")
        run = _span(path, number, profile, span, draft, len(workloads))
        workloads.append(run[0])
        result.runs.append(run[1])
        result.taken.append(f"{path}: time span {number}: "
                            f"{run[1].iops:.0f} IOPS at {run[1].oio} "
                            f"outstanding IO")
    result.drafts.append(draft)


def _number(path, element, tag, where):
    text = element.findtext(tag)
    try:
        return float(text)
    except (TypeError, ValueError):
        raise ImportProblem(path, f"<{tag}> as a number", column=where,
                            got=text) from None


def _span(path, number, profile, span, draft, index):
    targets = profile.findall("Targets/Target")
    if not targets:
        raise ImportProblem(path, "a <Target> in the profile's time span",
                            column=f"TimeSpan {number}")
    target = targets[0]
    where = f"Profile TimeSpan {number} Target"
    block = _number(path, target, "BlockSize", where)
    depth = int(_number(path, target, "RequestCount", where))
    write_pct = _number(path, target, "WriteRatio", where)
    random_pct = 0.0
    if target.find("Random") is not None:
        random_pct = _number(path, target, "RandomRatio", where) \
            if target.find("RandomRatio") is not None else 100.0
    seconds = _number(path, span, "TestTimeSeconds", f"TimeSpan {number}")
    threads = int(_number(path, span, "ThreadCount", f"TimeSpan {number}"))
    if int(profile.findtext("ThreadCount") or 0) > 0:
        # -F: every thread keeps RequestCount IOs on every target
        depth *= len(targets)
    ios = sum(_number(path, t, "ReadCount", "Thread/Target")
              + _number(path, t, "WriteCount", "Thread/Target")
              for t in span.findall("Thread/Target"))
    if seconds <= 0 or ios <= 0:
        raise ImportProblem(path, "IOs counted over a test time > 0",
                            column=f"TimeSpan {number}", got=ios)
    iops = ios / seconds
    oio = threads * depth
    latency_ms = span.findtext("Latency/AverageTotalMilliseconds")
    latency = float(latency_ms) / 1e3 if latency_ms else oio / iops
    item = f"workloads.storage[{index}]"
    workload = {
        "name": identifier(f"diskspd-{number}"), "protocol": "local",
        "block_kib": draft.measured(f"{item}.block_kib", block / KIB, path,
                                    f"{where}/BlockSize"),
        "read_pct": draft.measured(f"{item}.read_pct", 100 - write_pct,
                                   path, f"{where}/WriteRatio"),
        "random_pct": draft.measured(f"{item}.random_pct", random_pct, path,
                                     f"{where}/Random"),
        "disks_per_vm": draft.measured(f"{item}.disks_per_vm", threads,
                                       path, f"TimeSpan {number}/ThreadCount"),
        "threads_per_disk": draft.measured(f"{item}.threads_per_disk",
                                           depth, path,
                                           f"{where}/RequestCount"),
        "backend": {"iops_max": draft.measured(
            f"{item}.backend.iops_max", iops, path,
            f"TimeSpan {number}: (ReadCount + WriteCount) / "
            "TestTimeSeconds (a lower bound)")}}
    cpu = span.findtext("CpuUtilization/Average/UsagePercent")
    draft.document["meta"]["notes"] = "\n".join(filter(None, [
        draft.document["meta"].get("notes", ""),
        f"Measured outcome of time span {number}: {iops:.6g} IOPS, mean "
        f"latency {latency * 1e3:.4g} ms" + (f", CPU {cpu} % of all "
                                             "processors" if cpu else "")]))
    run = StorageRun(f"{path} (bs {block / KIB:g} KiB, {100 - write_pct:g} "
                     f"% read, {threads} thread(s) x -o{depth})", path,
                     "diskspd", block, 1 - write_pct / 100,
                     random_pct / 100, 1, threads, depth, iops, latency)
    return workload, run
