"""QEMU migration measurements: QMP ``query-migrate`` and
``query-dirty-rate`` replies (qapi/migration.json: MigrationInfo,
MigrationStats, DirtyRateInfo).

A file holds one reply, a JSON array of replies, or one reply per line
(JSON Lines), each either the bare object or QMP's ``{"return": {...}}``.
A ``query-memory-size-summary`` reply gives the guest's memory when no
``query-migrate`` does (dirty-rate samples taken before any migration).
Several ``query-migrate`` snapshots of one migration give its rounds
(``ram.dirty-sync-count`` steps); ``query-dirty-rate`` replies with
different ``calc-time`` windows give dirty-rate samples. Either is fitted
to the hot-set + cold-rate model (solvers.fit); a completed migration
becomes a check of the prediction against what happened.
"""

from app.importers.common import (MAX_PROBLEMS, Draft, ImportProblem,
                                  ImportResult, read_text)
from app.loading_gate import MalformedText, parse_json
from app.importers.migration import MigrationRecord, build
from models.units import GIB, MIB

_TIME_UNITS = {"second": 1.0, "millisecond": 1e-3}


def read_replies(path, result=None):
    """The QMP reply objects in a file, in order (an encoding other than
    UTF-8 said in ``result``)."""
    what = "QMP replies (JSON)"
    text = read_text(path, result, what).strip()
    if not text:
        raise ImportProblem(path, f"{what}, the file is empty")
    try:
        data = parse_json(text, path, what)
        replies = data if isinstance(data, list) else [data]
    except MalformedText as err:
        replies = _json_lines(path, text, what, err)
    out = []
    for number, reply in enumerate(replies, 1):
        if isinstance(reply, dict) and isinstance(reply.get("return"),
                                                  dict):
            reply = reply["return"]
        if not isinstance(reply, dict):
            raise ImportProblem(path, "a JSON object per reply", row=number,
                                got=str(reply)[:60])
        out.append(reply)
    return out


def _json_lines(path, text, what, first_error):
    """JSON Lines: one reply per line, read as one array (one parse, not
    one per line); line by line only to find the line that is not JSON."""
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        replies = parse_json("[" + ",".join(lines) + "]", path, what)
        if len(replies) == len(lines):
            return replies
    except MalformedText:
        pass
    replies = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            replies.append(parse_json(line, path, what))
        except MalformedText:
            raise ImportProblem(
                path, "JSON (one QMP reply, an array of replies, or one "
                f"reply per line): {first_error.detail}", row=number,
                got=line[:60]) from None
    return replies


def import_files(paths):
    """Import QMP replies; returns an ImportResult with one scenario."""
    result = ImportResult()
    record = MigrationRecord(name="qemu-migration")
    for path in paths:
        try:
            replies = read_replies(path, result)
        except ImportProblem as err:
            result.problems.append(str(err))
            continue
        bad = 0
        for number, reply in enumerate(replies, 1):
            try:
                _take(path, number, reply, record, result)
            except ImportProblem as err:
                result.problems.append(str(err))
                bad += 1
                if bad == MAX_PROBLEMS:
                    result.problems.append(
                        f"{path}: {bad} replies that cannot be read: the "
                        f"other {len(replies) - number:,} are not read")
                    break
    if record.empty():
        return result
    draft = Draft(f"QEMU migration measured ({', '.join(map(str, paths))})")
    build(draft, record, result, hypervisor="kvm", stop_rule="qemu")
    return result


def _take(path, number, reply, record, result):
    if "downtime-limit" in reply:  # query-migrate-parameters
        limit = _integer(path, number, reply, "downtime-limit",
                         "query-migrate-parameters")
        if limit <= 0:
            raise ImportProblem(path, "downtime-limit > 0 ms", row=number,
                                column="downtime-limit", got=limit)
        record.downtime_limit_ms = limit
        record.downtime_limit_source = f"{path}, downtime-limit (reply " \
            f"{number})"
        result.taken.append(f"{path}: reply {number}: downtime limit "
                            f"{limit:g} ms")
    elif "base-memory" in reply:  # query-memory-size-summary
        memory = _integer(path, number, reply, "base-memory",
                          "query-memory-size-summary")
        if "plugged-memory" in reply:
            memory += _integer(path, number, reply, "plugged-memory",
                               "query-memory-size-summary")
        record.memory_bytes = memory
        record.memory_source = f"{path}, base-memory + plugged-memory " \
            f"(reply {number})"
        result.taken.append(f"{path}: reply {number}: guest memory "
                            f"{memory / GIB:g} GiB")
    elif "dirty-rate" in reply or reply.get("status") in ("measuring",
                                                        "unstarted"):
        _dirty_rate(path, number, reply, record, result)
    elif "ram" in reply or "status" in reply:
        _snapshot(path, number, reply, record, result)
    else:
        raise ImportProblem(path, "a query-migrate reply (keys status, ram),"
                            " a query-dirty-rate reply (dirty-rate, "
                            "calc-time), query-migrate-parameters "
                            "(downtime-limit) or query-memory-size-summary "
                            "(base-memory)", row=number,
                            got=", ".join(sorted(reply))[:60])


#: QMP's statistics are (u)int64 (qapi/migration.json): a value past 2**64
#: is no measurement, and would overflow the fit's products.
_QMP_MAX = 2.0 ** 64


def _integer(path, number, data, key, where):
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 <= value < _QMP_MAX:
        raise ImportProblem(path, f"{where}.{key} as a number >= 0 and "
                            "< 2^64", row=number, column=key,
                            got=value if not isinstance(value, (dict, list))
                            else type(value).__name__)
    return float(value)


def _dirty_rate(path, number, reply, record, result):
    if reply.get("status") != "measured":
        result.skipped.append(f"{path}: reply {number}: dirty-rate status "
                              f"{reply.get('status')!r}, not 'measured': "
                              "no sample")
        return
    rate = _integer(path, number, reply, "dirty-rate", "query-dirty-rate")
    unit = reply.get("calc-time-unit", "second")
    if not isinstance(unit, str) or unit not in _TIME_UNITS:
        raise ImportProblem(path, "calc-time-unit 'second' or "
                            "'millisecond'", row=number,
                            column="calc-time-unit", got=unit)
    window = _integer(path, number, reply, "calc-time",
                      "query-dirty-rate") * _TIME_UNITS[unit]
    if window <= 0:
        raise ImportProblem(path, "calc-time > 0", row=number,
                            column="calc-time", got=reply["calc-time"])
    # dirtyrate.c divides by 1 << 20: the "MB/s" of the schema are MiB/s
    record.samples.append((window, rate * MIB * window,
                           f"{path}, reply {number}, dirty-rate"))
    result.taken.append(f"{path}: reply {number}: dirty rate {rate:g} MiB/s"
                        f" over {window:g} s")


def _snapshot(path, number, reply, record, result):
    status = reply.get("status")
    ram = reply.get("ram")
    if not isinstance(ram, dict):
        result.skipped.append(f"{path}: reply {number}: query-migrate "
                              f"status {status!r} without ram statistics")
        return
    where = "query-migrate ram"
    time_ms = _integer(path, number, reply, "total-time", "query-migrate")
    snapshot = {
        "time_s": time_ms / 1e3,
        # absent before QEMU 2.1 and in hand-made records: no rounds then
        "round": _integer(path, number, ram, "dirty-sync-count", where)
        if "dirty-sync-count" in ram else None,
        "remaining": _integer(path, number, ram, "remaining", where),
        "transferred": _integer(path, number, ram, "transferred", where),
        "total": _integer(path, number, ram, "total", where),
        "source": f"{path}, reply {number}",
    }
    page = _integer(path, number, ram, "page-size", where) \
        if "page-size" in ram else 4096.0
    if page <= 0:
        raise ImportProblem(path, f"{where}.page-size > 0", row=number,
                            column="page-size", got=ram["page-size"])
    if "dirty-pages-rate" in ram:
        snapshot["dirty_rate"] = _integer(path, number, ram,
                                          "dirty-pages-rate", where) * page
    if "duplicate" in ram:
        snapshot["zero_bytes"] = _integer(path, number, ram, "duplicate",
                                          where) * page
    if "mbps" in ram:
        snapshot["mbps"] = _integer(path, number, ram, "mbps", where)
    record.snapshots.append(snapshot)
    if snapshot["round"] is None:
        result.skipped.append(f"{path}: reply {number}: no ram."
                              "dirty-sync-count: not used as a round")
    if status == "completed":
        record.completed = {
            "total_s": time_ms / 1e3,
            "downtime_s": _integer(path, number, reply, "downtime",
                                   "query-migrate") / 1e3,
            "bytes_sent_gib": snapshot["transferred"] / GIB,
            # Linkplan's QEMU rule reports rounds as QEMU's own
            # dirty-sync-count at completion
            "source": snapshot["source"],
        }
        if snapshot["round"] is not None:
            record.completed["rounds"] = snapshot["round"]
    count = "?" if snapshot["round"] is None else int(snapshot["round"])
    result.taken.append(f"{path}: reply {number}: query-migrate "
                        f"{status}, sync count {count}, "
                        f"{snapshot['remaining'] / MIB:.1f} MiB remaining")
