"""``linkplan calibrate FILE… [-o calibrated.toml]``: benchmark outputs of
the user's own hosts -> a scenario with a calibrated site preset.

The files are recognised by their content (iperf3 -J, fio JSON, DiskSpd
-Rxml, HCIBench ``*-res.txt``, QMP replies, virsh domjobinfo), imported by
app.importers, fitted by solvers.calibrate (host stack costs, storage back
ends) and solvers.fit (a migration's dirty model, via the QEMU and libvirt
importers), and written into the scenario's ``calibration`` section with
the source files, the date, what could not be determined and a
predicted-vs-measured table (fitted, and leave-one-out). The GUI's
File > Calibrate from measurements… runs :func:`calibrate` too.

Bad input (a file of another tool, truncated JSON, a fio job with an
error, an iperf3 server's output) stops everything: nothing is fitted on
part of the runs, nothing is written, exit code 2.
"""

import datetime
import re
from dataclasses import dataclass, field

#: How each format is recognised, in order: (format, test on the text).
_SIGNATURES = (
    ("diskspd", lambda text, data: "<Results" in text[:4096]
     and "<TimeSpan" in text),
    ("hcibench", lambda text, data: ("JOB_NAME" in text
                                     or "Run Def:" in text)
     and "IOPS" in text),
    ("fio", lambda text, data: isinstance(data, dict)
     and "fio version" in data),
    ("iperf3", lambda text, data: isinstance(data, dict)
     and ("start" in data and ("end" in data or "error" in data)
          or data.get("event") == "start")),
    ("qemu", lambda text, data: '"return"' in text or '"ram"' in text
     or '"dirty-rate"' in text),
    ("libvirt", lambda text, data: "Job type:" in text
     or "dirtyrate." in text),
)

#: Exit codes, those of every linkplan command (app.cli, which imports
#: this module: it cannot import them back without a circle).
EXIT_OK, EXIT_USAGE = 0, 2

#: What calibrate reads, for messages.
KNOWN = ("iperf3 -J, fio --output-format=json, DiskSpd -Rxml, HCIBench "
         "*-res.txt, QMP query-migrate/query-dirty-rate replies, virsh "
         "domjobinfo")


class CalibrationError(ValueError):
    """Input calibrate cannot use; the message names the file and what is
    wrong."""


def detect_format(path):
    """The importer format of a benchmark output, from its content."""
    from app.importers.common import ImportProblem, read_text
    from app.importers.iperf3 import read_json_objects

    try:
        text = read_text(path)
    except ImportProblem as err:
        raise CalibrationError(str(err)) from None
    stripped = text.strip()
    data = None
    if re.search(r"^\s*\{", text, re.MULTILINE):
        try:
            data = read_json_objects(path, "a tool's", KNOWN)[0]
        except ImportProblem as err:
            if "truncated" in str(err):
                raise CalibrationError(str(err)) from None
            data = None   # not JSON
    for fmt, test in _SIGNATURES:
        if test(text, data):
            return fmt
    shown = stripped[:60].replace("\n", " ")
    raise CalibrationError(f"{path}: not an output Linkplan calibrates from "
                           f"(expected {KNOWN}); it starts {shown!r}")


@dataclass
class Calibrated:
    """What :func:`calibrate` made: the scenario, the report lines and the
    notes on fields to set (``missing``)."""

    scenario: object
    lines: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    kept: list = field(default_factory=list)


def calibrate(paths, *, base=None, ghz=None, name=None, today=None):
    """Fit what the runs determine and build the calibrated scenario.

    Parameters
    ----------
    paths : sequence of str
        Benchmark outputs.
    base : models.scenario.Scenario, optional
        The scenario to calibrate (its given values are kept; the
        measured set-up is added to it). Default: one built from the
        files.
    ghz : float, optional
        Core clock of the measured host [GHz]: overrides the base's
        host.ghz, said so in ``kept``.
    name : str, optional
        Name of the site preset (default ``site-<date>``).
    today : datetime.date, optional

    Raises
    ------
    CalibrationError
        A file that cannot be used, naming it and what is wrong.
    """
    from app.importers.common import identifier, run_import
    from models.host import STACK_PRESETS
    from models.scenario import scenario_data, scenario_from_dict
    from solvers import calibrate as fits
    from solvers.inputs import stack_preset

    paths = [str(p) for p in paths]
    if not paths:
        raise CalibrationError("no files given")
    by_format = {}
    for path in paths:
        by_format.setdefault(detect_format(path), []).append(path)
    outcomes = {}
    for fmt, files in by_format.items():
        outcome = run_import(fmt, files)
        if outcome.problems:
            raise CalibrationError("\n".join(outcome.problems))
        outcomes[fmt] = outcome
    runs = [run for o in outcomes.values() for run in o.result.runs]
    migrations = [(s, c) for o in outcomes.values() for s, c in o.checks]
    migration_scenarios = [s for fmt in ("qemu", "libvirt")
                           for s in (outcomes[fmt].scenarios
                                     if fmt in outcomes else [])]
    # several runs appended to one file have sources FILE#1, FILE#2, ...
    used = {run.source.rsplit("#", 1)[0] for run in runs} \
        | {run.source for run in runs} | set(by_format.get("qemu", ())) \
        | set(by_format.get("libvirt", ()))
    result, skipped = Calibrated(scenario=None), set()
    for path in paths:
        if path in used:
            continue
        reasons = [line for o in outcomes.values()
                   for line in o.result.skipped
                   if line.startswith(f"{path}:")]
        if reasons and all("UDP run" in r for r in reasons) and used:
            # a UDP run beside TCP runs: said, not fatal
            result.kept += [f"skipped {r}" for r in reasons]
            skipped.add(path)
            continue
        raise CalibrationError(
            "\n".join(reasons) or f"{path}: no run to fit in the file")
    today = today or datetime.date.today()
    if base is None:
        # the measured network set-up (iperf3's transfer) when there is
        # one; storage workloads and migrations are added below
        first = next((s for fmt in sorted(outcomes, key=lambda f: f !=
                                          "iperf3")
                      for s in outcomes[fmt].scenarios), None)
        if first is None:
            named = [line if line.startswith(tuple(paths))
                     else f"{', '.join(paths)}: {line}"
                     for o in outcomes.values() for line in o.result.skipped]
            raise CalibrationError("\n".join(named) or f"{', '.join(paths)}"
                                   ": no scenario could be built")
        document = scenario_data(first)
        document["meta"] = {"name": f"Calibrated on "
                            f"{len(paths) - len(skipped)} measured file(s)",
                            "assumptions": [
                                a for a in first.meta.assumptions
                                if not a.startswith("Measured (")]}
        document["workloads"] = {
            "transfers": document["workloads"].get("transfers", [])
            if "iperf3" in outcomes else []}
    else:
        document = scenario_data(base)
    if ghz is not None:
        if base is not None and base.host.ghz != ghz:
            result.kept.append(f"host.ghz: the scenario's {base.host.ghz:g}"
                               f" GHz replaced by --ghz {ghz:g} (given on "
                               "the command line)")
        document["host"]["ghz"] = ghz
    clock = document["host"]["ghz"]
    stack_runs = [r for r in runs if isinstance(r, fits.StackRun)]
    storage_runs = [r for r in runs if isinstance(r, fits.StorageRun)]
    if stack_runs and ghz is None and base is not None:
        result.kept.append(f"host.ghz: the cycles are counted at the "
                           f"scenario's {clock:g} GHz, taken as the measured "
                           "host's clock (iperf3 reports none)")
    elif stack_runs and ghz is None:
        result.missing.append(
            f"host.ghz: the CPU clock is not in the files (iperf3's "
            f"system_info is uname -a: kernel and architecture, no CPU "
            f"model or clock); the cycles are counted at {clock:g} GHz. "
            "Set host.ghz (--ghz, or in the --scenario file) to the "
            "measured host's clock")
    site = {"name": identifier(name or f"site-{today.isoformat()}"),
            "date": today.isoformat(),
            "sources": [p for p in paths if p not in skipped], "fitted": [],
            "undetermined": [], "checks": []}
    checks = []
    if stack_runs:
        doc = scenario_from_dict(document)
        measured = {s.host.hypervisor for s in outcomes["iperf3"].scenarios}
        if base is not None and doc.host.hypervisor not in measured:
            result.kept.append(
                f"host.hypervisor: the scenario's {doc.host.hypervisor!r} "
                f"is kept, though the runs' system_info says "
                f"{' or '.join(sorted(measured))}: the fitted costs replace "
                f"values of its preset {stack_preset(doc)!r}")
        preset_name = stack_preset(doc)
        preset = STACK_PRESETS[preset_name]
        all_runs = len(stack_runs)
        stack_runs, scatter = fits.setting_medians(stack_runs)
        fit = fits.fit_stack(stack_runs, preset, clock)
        site["stack"] = {"base": preset_name, **{
            key: fit.costs[key] for key in fit.fitted + fit.scaled}}
        for key in fit.fitted:
            site["fitted"].append(
                f"host stack {key} = {fit.costs[key]:.4g} "
                f"{fits.STACK_UNITS[key]} (preset {preset_name!r}: "
                f"{getattr(preset, key):g}; {all_runs} iperf3 "
                "run end(s), the median of each setting's)")
        for key in fit.scaled:
            site["fitted"].append(
                f"host stack {key} = {fit.costs[key]:.4g} "
                f"{fits.STACK_UNITS[key]}: the preset's "
                f"{getattr(preset, key):g} scaled with the per-byte cost "
                "(not determined by the runs: see below)")
        site["fitted"] += fit.notes
        site["undetermined"] += fit.undetermined
        site["undetermined"] += filter(None, [
            fits.accuracy_statement(scatter)])
        checks += fits.stack_checks(stack_runs, preset, clock, fit)
    if storage_runs:
        checks += _storage(document, storage_runs, site)
    for scenario, check in migrations:
        checks += _migration(document, scenario, check, site)
    for scenario in migration_scenarios:
        if not any(m[0] is scenario for m in migrations):
            _add_migration(document, scenario, site)
    site["checks"] = [{"run": c.run, "quantity": c.quantity,
                       "measured": float(c.measured),
                       "predicted": float(c.predicted),
                       # a run met exactly: 0, not a 1e-14 the schema
                       # cannot represent
                       "error_pct": round(float(c.error_pct), 6),
                       "role": c.role}
                      for c in checks]
    if base is not None and base.calibration is not None:
        result.kept.append(f"calibration: the scenario's site preset "
                           f"{base.calibration.name!r} is replaced by "
                           f"{site['name']!r}")
    document["calibration"] = site
    meta = document.setdefault("meta", {})
    meta["assumptions"] = [a for a in meta.get("assumptions", [])
                           if not a.startswith("Calibrated:")] + [
        f"Calibrated: site preset {site['name']!r} fitted {site['date']} "
        f"on {len(site['sources'])} file(s)"]
    result.scenario = scenario_from_dict(document)
    result.lines = report_lines(result.scenario.calibration)
    return result


def _storage(document, runs, site):
    """Fit one back end per queue-depth series; the runs become storage
    workloads of the document."""
    from app.importers.common import identifier, storage_workloads
    from models.scenario import scenario_from_dict
    from solvers import calibrate as fits
    from solvers.inputs import storage_columns

    checks = []
    workloads = storage_workloads(document)
    taken = {w["name"] for w in workloads}
    series = {}
    for run in runs:
        series.setdefault(run.series, []).append(run)
    for (tool, block, read, random), members in series.items():
        members.sort(key=lambda r: r.oio)
        names = []
        for run in members:
            names.append(identifier(f"{tool}-{block / 1024:g}k-r"
                                    f"{100 * read:g}-QD{run.oio}", taken))
            taken.add(names[-1])
            workloads.append({
                "name": names[-1], "protocol": "local",
                "block_kib": block / 1024, "read_pct": 100 * read,
                "random_pct": 100 * random, "vms": run.vms,
                "disks_per_vm": run.disks_per_vm,
                "threads_per_disk": run.threads_per_disk,
                "nics": [document["nics"][0]["id"]],
                "backend": {"kind": "nvme",
                            "iops_max": max(r.iops for r in members) * 2,
                            "service_time_ms": members[0].latency_s * 1e3,
                            "channels": 1}})
        doc = scenario_from_dict(document)
        items = {w.name: w for w in doc.workloads.storage}
        columns = storage_columns([(doc, items[n]) for n in names])
        measured = [r.iops for r in members]
        latency = [r.latency_s for r in members]
        fit = fits.fit_backend(columns, measured, latency)
        for name in names:
            entry = next(w for w in workloads if w["name"] == name)
            entry["backend"] = {"kind": "nvme",
                                "iops_max": fit.iops_max,
                                "service_time_ms": fit.service_time_s * 1e3,
                                "channels": fit.channels}
        what = (f"{tool} {block / 1024:g} KiB, {100 * read:g} % read, "
                f"{100 * random:g} % random, QD "
                + "/".join(str(r.oio) for r in members))
        site["fitted"].append(
            f"storage back end ({what}): service_time_ms = "
            f"{fit.service_time_s * 1e3:.4g}, channels = {fit.channels}, "
            f"iops_max = {fit.iops_max:.5g}"
            + ("" if fit.ceiling_fitted else " (channels / service time: "
               f"fewer than {fits.DEPTHS_FOR_CEILING} depths do not "
               "determine a ceiling of its own)")
            + f"; workloads {names[0]}..{names[-1]}")
        if len(members) < fits.DEPTHS_FOR_CHANNELS:
            site["undetermined"].append(
                f"storage back end ({what}): one queue depth determines "
                "the service time only; channels = 1 (run two or more "
                "iodepths to fit the parallelism)")
        quantity = "IOPS"
        for run, predicted in zip(members, fits.predict_iops(columns, fit)):
            checks.append(fits.Check(run.label, quantity, run.iops,
                                     float(predicted), "fitted"))
        if len({r.oio for r in members}) > fits.DEPTHS_FOR_CHANNELS:
            for i, run in enumerate(members):
                keep = [j for j in range(len(members)) if j != i]
                part = {k: v[keep] for k, v in columns.items()}
                held = fits.fit_backend(part, [measured[j] for j in keep],
                                        [latency[j] for j in keep])
                one = {k: v[[i]] for k, v in columns.items()}
                lost = fit.ceiling_fitted and not held.ceiling_fitted
                checks.append(fits.Check(
                    run.label + (" [without it no ceiling of its own]"
                                 if lost else ""), quantity, run.iops,
                    float(fits.predict_iops(one, held)[0]), "held_out"))
    return checks


def _add_migration(document, scenario, site):
    """The imported migration (dirty model and channel rate fitted by the
    QEMU/libvirt importer) with its transfer and NIC, in the document."""
    from models.scenario import scenario_data

    data = scenario_data(scenario)
    nic_ids = {n["id"] for n in document["nics"]}
    for nic in data["nics"]:
        if nic["id"] not in nic_ids:
            document["nics"].append(nic)
    workloads = document["workloads"]
    transfers = {t["name"] for t in workloads.get("transfers", [])}
    for transfer in data["workloads"]["transfers"]:
        if transfer["name"] not in transfers:
            workloads.setdefault("transfers", []).append(transfer)
    names = {m["name"] for m in workloads.get("migrations", [])}
    for migration in data["workloads"]["migrations"]:
        if migration["name"] in names:
            continue
        workloads.setdefault("migrations", []).append(migration)
        dirty = migration.get("dirty", {})
        rate = next((t.get("stream_cap_gbps") for t in
                     data["workloads"]["transfers"]
                     if t["name"] == migration.get("transfer")), None)
        site["fitted"].append(
            f"migration {migration['name']!r}: dirty model "
            + ", ".join(f"{k} {v:.4g}" for k, v in dirty.items()
                        if k != "kind")
            + f" ({dirty.get('kind', 'uniform')})"
            + (f", channel rate {rate:.4g} Gbit/s" if rate else ""))


def _migration(document, scenario, check, site):
    from app.importers.migration import predicted_vs_measured
    from solvers import calibrate as fits

    _add_migration(document, scenario, site)
    rows = predicted_vs_measured(scenario, check)
    return [fits.Check(f"{check['source']} (migration "
                       f"{check['name']!r})",
                       f"{row['label']}" + (f" [{row['unit']}]"
                                            if row["unit"] else ""),
                       row["measured"], row["predicted"], "fitted")
            for row in rows if row["predicted"] is not None
            and row["measured"]]


def report_lines(site):
    """The calibration as text: fitted, undetermined, and the
    predicted-vs-measured table."""
    lines = [f"Site preset {site.name!r}, fitted {site.date} on "
             f"{len(site.sources)} file(s)"]
    lines += [f"  fitted: {line}" for line in site.fitted]
    lines += [f"  not determined: {line}" for line in site.undetermined]
    if site.checks:
        lines.append("Predicted vs measured (fitted: fit on all runs; "
                     "held out: fit on the other runs, leave-one-out)")
        lines.append(f"  {'run':58} {'quantity':20} {'measured':>11} "
                     f"{'predicted':>11} {'error':>8}  role")
        for check in site.checks:
            run = check.run if len(check.run) <= 58 \
                else "…" + check.run[-57:]
            lines.append(f"  {run:58} {check.quantity:20} "
                         f"{check.measured:11.5g} {check.predicted:11.5g} "
                         f"{check.error_pct:+7.1f}%  "
                         f"{check.role.replace('_', ' ')}")
        lines += [f"  {line}" for line in error_summary(site.checks)]
    return lines


def error_summary(checks):
    """One line per role: how many runs, the largest and the median
    absolute error."""
    lines = []
    for role in ("fitted", "held_out"):
        errors = sorted(abs(c.error_pct) for c in checks if c.role == role)
        if errors:
            lines.append(f"{role.replace('_', ' ')}: {len(errors)} run(s), "
                         f"largest error {errors[-1]:.1f} %, median "
                         f"{errors[len(errors) // 2]:.1f} %")
    return lines


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

EXAMPLE = """example:
  linkplan calibrate iperf3-*.json fio-qd*.json -o site.toml --ghz 2.9
  linkplan calibrate runs/ --scenario plan.toml -o plan-calibrated.toml

Recognises iperf3 -J (client side), fio --output-format=json, DiskSpd
-Rxml, HCIBench *-res.txt, QMP replies and virsh domjobinfo by their
content. Fits what the runs determine: per-byte and per-traversal host
costs from iperf3 runs (the split needs two message sizes; the per-frame
cost runs between hosts at two MTUs), a back end's service time and
channels from a queue-depth series, a migration's dirty model and channel
rate. Prints what was fitted, what the runs cannot determine, and each
run's prediction (fitted on all runs, and held out). Writes the scenario
with its site preset to -o (standard output without). Exit code 2 on any
bad input: nothing is written."""


def expand_files(arguments):
    """Files from paths, quoted globs and directories (every file below
    one), in order; and the arguments that name nothing, as messages."""
    import glob
    from pathlib import Path

    paths, problems = [], []
    for argument in arguments:
        if Path(argument).is_dir():
            found = sorted(str(p) for p in Path(argument).rglob("*")
                           if p.is_file())
        elif glob.has_magic(argument):
            found = sorted(glob.glob(argument, recursive=True))
        else:
            found = [argument] if Path(argument).is_file() else []
        if not found:
            problems.append(f"{argument}: no such file")
        paths.extend(p for p in found if p not in paths)
    return paths, problems


def add_arguments(parser):
    """The calibrate command's arguments."""
    parser.add_argument("files", nargs="+", metavar="file",
                        help="benchmark outputs (files, quoted globs or "
                        "directories)")
    parser.add_argument("-o", "--output", help="calibrated scenario to "
                        "write (.toml or .json), atomically")
    parser.add_argument("--scenario", metavar="FILE", help="scenario to "
                        "calibrate (its values are kept; default: one "
                        "built from the files)")
    parser.add_argument("--ghz", type=float, help="core clock of the "
                        "measured host [GHz] (not in iperf3's or fio's "
                        "output)")
    parser.add_argument("--name", help="name of the site preset (default: "
                        "site-DATE)")


def run(args):
    """``linkplan calibrate``; returns the exit code."""
    import sys

    from app.scenario_io import atomic_write, load_scenario, scenario_format
    from models.scenario import ScenarioError, dump_scenario

    paths, missing = expand_files(args.files)
    if missing:
        print("linkplan calibrate: " + "; ".join(missing) + "\nnothing "
              "written", file=sys.stderr)
        return EXIT_USAGE
    if args.ghz is not None and not 0 < args.ghz <= 10:
        print(f"linkplan calibrate: --ghz must be > 0 and <= 10, got "
              f"{args.ghz:g}", file=sys.stderr)
        return EXIT_USAGE
    try:
        fmt = scenario_format(args.output) if args.output else "toml"
        base = load_scenario(args.scenario) if args.scenario else None
        done = calibrate(paths, base=base, ghz=args.ghz, name=args.name)
    except (CalibrationError, ScenarioError) as err:
        print(f"linkplan calibrate: {err}\nnothing written", file=sys.stderr)
        return EXIT_USAGE
    report = sys.stdout if args.output else sys.stderr
    for line in done.lines:
        print(line, file=report)
    for line in done.kept:
        print(f"note: {line}", file=report)
    for line in done.missing:
        print(f"set: {line}", file=report)
    text = dump_scenario(done.scenario, fmt)
    if args.output:
        atomic_write(args.output, text.encode())
        print(f"wrote {args.output}", file=report)
    else:
        sys.stdout.write(text)
    return EXIT_OK
