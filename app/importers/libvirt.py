"""libvirt migration measurements: ``virsh domjobinfo`` (polled while a
migration runs, or ``--completed`` afterwards) and ``virsh domstats
--dirtyrate`` text (virsh(1): "domjobinfo", "domstats"; the
``dirtyrate.*`` and ``balloon.current`` fields of virConnectGetAllDomainStats).

One file may hold several outputs one after another (a polling loop);
each ``domjobinfo`` block starts at its ``Job type:`` line, each
``domstats`` block at ``Domain: 'name'``.
"""

import re

from app.importers.common import (Draft, ImportProblem, ImportResult,
                                  decimal_mark, number, read_text)
from app.importers.migration import MigrationRecord, build
from models.units import GIB, KIB, MIB

_UNITS = {"B": 1, "KiB": KIB, "MiB": MIB, "GiB": GIB, "TiB": 1024 * GIB,
          "ms": 1e-3, "bytes": 1, "pages/s": 1}
#: "Key:  value [unit]"; the value and the unit are whole words (a value
#: that could end anywhere made matching a long line quadratic).
_LINE = re.compile(r"^([A-Za-z][A-Za-z /.()-]*?):\s+(\S+)(?:\s+(\S+))?\s*$")
#: The domjobinfo lines read (others, e.g. disk or compression, are not).
_USED = ("Time elapsed", "Memory total", "Memory remaining",
         "Memory processed", "Memory bandwidth", "Dirty rate", "Page size",
         "Constant pages", "Iteration", "Total downtime")
#: virsh prints unsigned long long counters: larger values are no
#: measurement (and would overflow the fit's products).
VIRSH_MAX = 2.0 ** 64
#: domstats dirtyrate.calc_status: 2 is "measured" (virDomainDirtyRateStatus)
MEASURED = 2


def import_files(paths):
    """Import virsh outputs; returns an ImportResult with one scenario."""
    result = ImportResult()
    record = MigrationRecord(name="libvirt-migration")
    for path in paths:
        try:
            text = read_text(path, result, "virsh output")
            if "Job type:" in text:
                _jobinfo(path, text, record, result)
            elif "dirtyrate." in text or "balloon.current" in text:
                _domstats(path, text, _decimal(path, text), record, result)
            else:
                raise ImportProblem(path, "virsh domjobinfo output (a 'Job "
                                    "type:' line) or virsh domstats "
                                    "--dirtyrate output (dirtyrate.* "
                                    "fields)")
        except ImportProblem as err:
            result.problems.append(str(err))
    if record.empty():
        return result
    draft = Draft(f"libvirt migration measured "
                  f"({', '.join(map(str, paths))})")
    build(draft, record, result, hypervisor="kvm", stop_rule="qemu")
    return result


def _blocks(text, start):
    """(first line number, lines) of each block starting at ``start``."""
    blocks = []
    for line_number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(start):
            blocks.append((line_number, []))
        if blocks:
            blocks[-1][1].append((line_number, line))
    return blocks


def _decimal(path, text):
    """The decimal mark of a domstats output (integers that virsh never
    groups: a mark there is someone's edit), decided by the whole file
    (app.importers.common.decimal_mark): "1,024" alone is refused."""
    values = []
    for row, line in enumerate(text.splitlines(), 1):
        match = _LINE.match(line.strip())
        if match:
            values.append((row, match.group(2)))
        elif "=" in line:
            values.append((row, line.partition("=")[2].strip()))
    return decimal_mark(path, "the values", values)


def _jobinfo(path, text, record, result):
    for first, lines in _blocks(text, "Job type:"):
        fields = {}
        for row, line in lines:
            match = _LINE.match(line.strip())
            if match:
                if match.group(1) in fields:
                    raise ImportProblem(
                        path, f"one '{match.group(1)}:' line per job",
                        row=row, found=f"a second one (the first at row "
                        f"{fields[match.group(1)][0]})")
                fields[match.group(1)] = (row, match.group(2),
                                          match.group(3) or "")
        if "Job type" not in fields:
            raise ImportProblem(path, "a job type after 'Job type:' "
                                "(None, Unbounded, Completed, ...)",
                                row=first, got=lines[0][1].strip()[:60])
        kind = fields["Job type"][1]
        if kind == "None":
            result.skipped.append(f"{path}: row {first}: no job running")
            continue
        values = {key: _quantity(path, key, *fields[key])
                  for key in fields if key in _USED}
        needed = ("Time elapsed", "Memory total", "Memory remaining",
                  "Memory processed")
        for key in needed:
            if key not in values:
                raise ImportProblem(path, f"a '{key}:' line in the "
                                    "domjobinfo output", row=first)
        where = f"{path}, domjobinfo at row {first}"
        snapshot = {"time_s": values["Time elapsed"],
                    "round": values.get("Iteration"),
                    "remaining": values["Memory remaining"],
                    "transferred": values["Memory processed"],
                    "total": values["Memory total"], "source": where}
        page = values.get("Page size", 4096.0)
        if page <= 0:
            raise ImportProblem(path, "a 'Page size:' > 0", row=first,
                                column="Page size", got=page)
        if "Dirty rate" in values:
            snapshot["dirty_rate"] = values["Dirty rate"] * page
        if "Constant pages" in values:
            snapshot["zero_bytes"] = values["Constant pages"] * page
        if "Memory bandwidth" in values:
            record.bandwidth_mib_s = values["Memory bandwidth"] / MIB
            record.bandwidth_source = f"{path}, Memory bandwidth"
        record.snapshots.append(snapshot)
        if "Iteration" not in values:
            result.skipped.append(f"{where}: no 'Iteration:' line (older "
                                  "libvirt): not used as a round")
        if kind == "Completed":
            if "Total downtime" not in values:
                raise ImportProblem(path, "a 'Total downtime:' line in the "
                                    "completed job", row=first)
            record.completed = {
                "total_s": values["Time elapsed"],
                "downtime_s": values["Total downtime"],
                "bytes_sent_gib": values["Memory processed"] / GIB,
                "source": where}
            if "Iteration" in values:
                # libvirt's iteration is QEMU's dirty-sync-count, which
                # Linkplan's QEMU rule reports as its rounds (see qemu.py)
                record.completed["rounds"] = values["Iteration"]
        result.taken.append(f"{where}: {kind.lower()} job, "
                            f"{values['Memory remaining'] / MIB:.1f} MiB "
                            "remaining")


#: domjobinfo's sizes and bandwidths: virsh prints them "%.3lf" in its
#: locale (vshPrettyCapacity), so the mark before the last three digits is
#: the decimal one ("1,081 GiB" under de_DE); everything else ("%llu":
#: times in ms, pages, counts) is a whole number, so a mark in it can only
#: group thousands ("37,369 ms" is 37369 ms).
_SIZE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def _quantity(path, key, row, value, unit):
    if unit.removesuffix("/s") in _SIZE_UNITS:
        decimal = value[-4] if value[-4:-3] in (",", ".") else "."
    else:
        decimal = "," if "." in value else "."
    # every quantity of a migration job is a size, time, rate or count
    amount = number(path, value, f"a number for {key!r}", row=row,
                    column=key, decimal=decimal, minimum=0,
                    maximum=VIRSH_MAX)
    if unit.endswith("/s") and unit != "pages/s":
        unit = unit[:-2]  # bandwidth: bytes per second
    if unit and unit not in _UNITS:
        raise ImportProblem(path, f"a unit among {', '.join(_UNITS)} for "
                            f"{key!r}", row=row, column=key, got=unit)
    return amount * _UNITS.get(unit, 1)


def _domstats(path, text, decimal, record, result):
    for first, lines in _blocks(text, "Domain:"):
        fields = {}
        for row, line in lines:
            key, sep, value = line.strip().partition("=")
            if sep:
                fields[key] = (row, value)

        def get(key, expected):
            row, value = fields[key]
            amount = number(path, value, expected, row=row, column=key,
                            decimal=decimal, minimum=0, maximum=VIRSH_MAX)
            if amount is None:
                raise ImportProblem(path, expected, row=row, column=key,
                                    found="no value")
            return amount

        domain = lines[0][1].split(":", 1)[1].strip().strip("'")
        if "balloon.current" in fields:
            record.memory_bytes = get("balloon.current", "KiB") * KIB
            record.memory_source = f"{path}, balloon.current (KiB)"
        if "dirtyrate.calc_status" not in fields:
            continue
        status = get("dirtyrate.calc_status", "0, 1 or 2")
        if status != MEASURED:
            result.skipped.append(f"{path}: row {first}: domain {domain}: "
                                  f"dirtyrate.calc_status {status:g}, not "
                                  f"{MEASURED} (measured)")
            continue
        for key in ("dirtyrate.calc_period",
                    "dirtyrate.megabytes_per_second"):
            if key not in fields:
                raise ImportProblem(path, f"a {key}= line", row=first)
        window = get("dirtyrate.calc_period", "seconds")
        rate = get("dirtyrate.megabytes_per_second", "MiB/s")
        if window <= 0:
            raise ImportProblem(path, "calc_period > 0", row=first,
                                column="dirtyrate.calc_period", got=window)
        record.samples.append((window, rate * MIB * window,
                               f"{path}, dirtyrate at row {first}"))
        result.taken.append(f"{path}: row {first}: domain {domain}: dirty "
                            f"rate {rate:g} MiB/s over {window:g} s")
