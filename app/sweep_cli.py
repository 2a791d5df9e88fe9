"""``linkplan sweep``: one scenario's sweep, or a fleet of files, streamed
as CSV, JSON Lines or Parquet (columns formatted where they are
evaluated, parts published atomically, progress on a terminal)."""

import contextlib
import glob
import json
import os
import sys
from pathlib import Path

from app.cli_common import (EXIT_OK, EXIT_TERMINATED, EXIT_USAGE,
                            _batch_code, _inputs, _load_or_report,
                            _Progress, _Terminated, _Working,
                            expand_inputs)
from app.output_safety import (OutputRefused, check_output_folder, is_stream,
                               mark_output_folder, open_to_all)
from solvers import __version__


def _sweep(args):
    from solvers import sweep
    from solvers.grid import paused_gc

    if args.format == "parquet" and not args.output:
        print("linkplan sweep: --format parquet writes a folder of parts: "
              "give it with -o", file=sys.stderr)
        return EXIT_USAGE
    if (args.engine == "dask") != (args.scheduler is not None):
        print("linkplan sweep: --engine dask needs --scheduler ADDRESS, "
              "and --scheduler only goes with --engine dask",
              file=sys.stderr)
        return EXIT_USAGE
    if len(args.files) > 1 or Path(args.files[0]).is_dir() or \
            glob.has_magic(args.files[0]):
        # the cyclic collector paused throughout a local fleet: loading,
        # planning and streaming make next to no reference cycles, and its
        # full collections would rescan the whole loaded fleet (0.3 s of
        # CPU on 1,000 files); not with Dask, whose client makes its own
        with paused_gc() if args.scheduler is None else \
                contextlib.nullcontext():
            return _sweep_fleet(args)
    scenario = _load_or_report(args.files[0])
    if scenario is None:
        return EXIT_USAGE
    try:
        plan = sweep.plan(scenario, args.sweep_name)
    except ValueError as err:
        print(f"linkplan sweep: {err}", file=sys.stderr)
        return EXIT_USAGE
    processes = args.processes or sweep.default_processes(plan.total,
                                                          os.cpu_count())
    try:
        # chunks evaluated elsewhere are written there, as part files
        writer = _SweepWriter(args, plan, scenario=scenario,
                              parts=processes > 1 or
                              args.scheduler is not None)
    except ValueError as err:
        print(f"linkplan sweep: {err}", file=sys.stderr)
        return EXIT_USAGE
    progress = _Progress(plan) if sys.stderr.isatty() else None

    def write(chunk):
        writer.write(chunk)
        if progress:
            progress.update(writer.points)
    # each chunk is formatted (and with -o written) where it is evaluated
    stopped = _write_sweep(writer, sweep.run(
        scenario, plan, processes=processes,
        format_chunk=writer.format_chunk, scheduler=args.scheduler),
        write, f" of {plan.total:,}")
    if stopped is not None:
        return stopped
    if progress:
        progress.done()
    return EXIT_OK


def _sweep_fleet(args):
    """``sweep`` of several files: every variant of each (a document
    without variants, with its file's sweeps) over its file's sweep, in
    one output whose rows name the scenario and the variant, on the
    engine and in the format asked. A file that cannot be read, or whose
    sweep a variant refuses, is reported and the rest done (exit 1)."""
    from models.scenario import BASE_NAME
    from solvers import sweep

    paths, failed = _inputs(args)
    jobs, parsed = [], {}   # files of equal text parsed once
    for path in paths:
        scenario = _load_or_report(path, parsed)
        if scenario is None:
            failed.append(path)
            continue
        name, label = None, (scenario.meta.name, scenario.sha256())
        try:
            for name, document in scenario.variant_documents():
                swept = document.model_copy(
                    update={"sweeps": scenario.sweeps})
                plan = sweep.plan(swept, args.sweep_name)
                if jobs and plan.paths != jobs[0][1].plan.paths:
                    raise ValueError(
                        f"its sweep's axes {list(plan.paths)} are not the "
                        f"first file's {list(jobs[0][1].plan.paths)} (one "
                        "header for every row)")
                jobs.append((path, sweep.FleetJob(
                    swept, plan, (label[0], name, label[1]))))
        except ValueError as err:
            where = "" if name in (None, BASE_NAME) else \
                f"variant {name!r}: "
            print(f"linkplan sweep: {path}: {where}{err}", file=sys.stderr)
            failed.append(path)
            jobs = [job for job in jobs if job[0] != path]
    code = _batch_code(paths, failed)
    if not jobs:
        return code
    jobs = [job for _, job in jobs]
    total = sum(job.plan.total for job in jobs)
    processes = args.processes or sweep.default_processes(total,
                                                          os.cpu_count())
    try:
        writer = _SweepWriter(args, jobs[0].plan, fleet=jobs,
                              parts=processes > 1 or
                              args.scheduler is not None)
    except ValueError as err:
        print(f"linkplan sweep: {err}", file=sys.stderr)
        return EXIT_USAGE
    # JSON Lines heads each document with its own metrics; CSV and
    # Parquet have one header (schema) for every row
    results = sweep.run_fleet(jobs, format_task=writer.format_chunk,
                              shared_columns=args.format != "jsonl",
                              processes=processes, scheduler=args.scheduler)
    with _Working(f"sweep ({len(jobs)} variants of "
                  f"{len(paths) - len(failed)} files)"):
        stopped = _write_sweep(writer, results, writer.write_task)
    return code if stopped is None else stopped


def _write_sweep(writer, results, write, of_total=""):
    """Write each of a running sweep's ``results`` (a generator of
    solvers.sweep) with ``write`` and publish the output (a
    :class:`_SweepWriter`); None once done, else the exit code after
    saying why: an engine that cannot be reached (2), or Ctrl-C (130),
    which publishes the rows so far as OUT.partial. The workers stop
    before their parts are removed. ``of_total``: " of N" after the
    points written, when the total is known."""
    from solvers import sweep

    try:
        for result in results:
            write(result)
        writer.finish()
    except (sweep.EngineUnavailable, OutputRefused) as err:
        print(f"linkplan sweep: {err}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyboardInterrupt, _Terminated) as stop:
        where = writer.interrupted()
        how, code = ("terminated", EXIT_TERMINATED) \
            if isinstance(stop, _Terminated) else ("interrupted", 130)
        print(f"\nlinkplan sweep: {how} after {writer.points:,}"
              f"{of_total} points; {where}", file=sys.stderr)
        return code
    finally:
        results.close()
        writer.discard()
    return None


#: The kind of output (app.output_safety) of ``sweep --format parquet``.
PARQUET_SWEEP = "Parquet sweep"


class _SweepWriter:
    """Streams sweep rows as CSV or JSON Lines, or writes them as a folder
    of Parquet parts. With -o and ``parts`` (chunks evaluated by workers)
    each worker writes its chunks to part files in a hidden folder beside
    the output, which this appends (or moves) in point order into an
    unnamed file (or hidden folder), renamed to OUT once complete
    (OUT.partial on Ctrl-C). Only whole rows are ever written; a process
    killed outright leaves the hidden part folder behind.

    The sweep of ``scenario`` over ``plan`` is written chunk by chunk
    (:meth:`write`); a fleet, ``fleet`` (its jobs, ``plan`` the first's),
    task by task (:meth:`write_task`)."""

    def __init__(self, args, plan, *, parts, scenario=None, fleet=None):
        import dataclasses
        import tempfile

        from app.scenario_io import AtomicFile
        from app.sweep_format import (FleetFormat, ParquetFormat, PartWriter,
                                      SweepFormat, fleet_axis_types)
        from solvers.metric_ids import info as metric_info

        self.kind, self.plan, self.points = args.format, plan, 0
        # several scenarios and their variants: rows name them
        self.fleet = fleet is not None
        self.output = Path(args.output) if args.output else None
        self.partial = f"{args.output}.partial" if args.output else None
        self.metrics, self.file, self.folder, self.parts = (None,) * 4
        self.metric_info, self.known_by = metric_info, {}
        # a device or pipe is written as a stream: no part files beside it
        streamed = self.output is not None and is_stream(self.output)
        if self.output is not None:
            self._check_targets(expand_inputs(args.files)[0])
        if self.fleet:
            self.format = FleetFormat(self.kind, __version__, plan.paths)
            if self.kind == "parquet":
                self.format = dataclasses.replace(
                    self.format,
                    axis_types=fleet_axis_types(j.plan for j in fleet),
                    metadata={
                        "linkplan_version": __version__,
                        "scenarios": str(len({j.label[2] for j in fleet})),
                        "variants": str(len(fleet)),
                        "points": str(sum(j.plan.total for j in fleet))})
        else:
            self.stamp = (__version__, scenario.sha256())
            self.scenario_name = scenario.meta.name
            if self.kind == "parquet":
                self.format = ParquetFormat(tuple(plan.paths), plan.values, {
                    "linkplan_version": self.stamp[0],
                    "scenario": self.scenario_name,
                    "scenario_sha256": self.stamp[1], "sweep": plan.name,
                    "mode": plan.mode, "points": str(plan.total)})
            else:
                self.format = SweepFormat.of(
                    self.kind, f"{self.stamp[0]},{self.stamp[1]},", plan)
        self.format_chunk = self.format
        if self.output is None:
            self.stream = sys.stdout
            return
        beside = self.output.parent
        if self.kind == "parquet":
            self.folder = Path(tempfile.mkdtemp(
                dir=beside, prefix=f".{self.output.name}."))
        else:
            self.file = AtomicFile(self.output)
            self.stream = self.file.stream
        if parts and not streamed or self.kind == "parquet":
            self.parts = tempfile.mkdtemp(
                dir=beside, prefix=f".{self.output.name}.parts-")
            self.format_chunk = dataclasses.replace(
                self.format, folder=self.parts) if self.fleet \
                else PartWriter(self.format, self.parts)

    def _check_targets(self, inputs):
        """OutputRefused for a Parquet output that could lose what
        Linkplan did not write: a folder not of an earlier Parquet sweep
        (nor its .partial), one holding an input."""
        if self.kind != "parquet":
            return
        for target in (self.output, Path(self.partial)):
            check_output_folder(target, PARQUET_SWEEP, inputs)

    def write(self, chunk):
        if self.metrics is None:
            self._header(chunk.metric_ids)
        output = chunk.text
        if chunk.metric_ids != tuple(self.metrics):
            # map this chunk's metrics onto the fixed columns
            import dataclasses   # here: it costs --version 10 ms
            import numpy as np

            self._drop(set(chunk.metric_ids), self.known)
            where = dict(zip(chunk.metric_ids, chunk.columns))
            missing = np.full(len(chunk), np.nan)
            if output is not None and self.parts:
                os.unlink(output)
            output = self.format_chunk(dataclasses.replace(
                chunk, metric_ids=tuple(self.metrics),
                columns=tuple(where.get(m, missing) for m in self.metrics)))
        elif output is None:
            output = self.format_chunk(chunk)
        self._place(output, chunk.start)
        self.points += len(chunk)

    def write_task(self, result):
        """A fleet task's rows (``solvers.sweep.FleetResult``), formatted
        (and written to a part) where it ran."""
        if self.metrics is None and None in result.columns:
            self._header(result.columns[None])   # the one CSV header
        for key, metrics in result.columns.items():
            self.known_by.setdefault(key, set(metrics))
        for key, extra in result.dropped:
            self._drop(set(extra), self.known_by[key])
        self._place(result.text, result.first_row)
        self.points += result.rows

    def _place(self, output, first):
        """Append formatted rows (text, or the part file holding them), or
        move a Parquet part into the output folder, as ``part-<first row>``
        so that the folder lists in row order."""
        if self.folder is not None:
            os.replace(output, self.folder / f"part-{first:015d}.parquet")
        elif self.parts:
            import shutil

            with open(output, "rb") as part:
                shutil.copyfileobj(part, self.stream, 1 << 20)
            os.unlink(output)
        else:
            self.stream.write(output.encode("utf-8") if self.file
                              else output)
        if self.folder is None:
            self.stream.flush()

    def _drop(self, metrics, known):
        # a metric the first chunk did not have: the columns are fixed
        extra = metrics - known
        if extra:
            known |= extra
            print(f"linkplan sweep: metrics {sorted(extra)} appear only in "
                  "later points and are left out", file=sys.stderr)

    def _header(self, metric_ids):
        from app.sweep_format import quote

        self.metrics = list(metric_ids)
        units = {m: self.metric_info(m)[0] for m in self.metrics}
        self.known = set(self.metrics)
        if self.kind == "parquet":   # units are in the parts' fields
            return
        if self.kind == "csv":
            header = ["linkplan_version", "scenario_sha256",
                      *(("scenario", "variant") if self.fleet else ()),
                      "point", *self.plan.paths,
                      *(f"{m}[{units[m]}]" for m in self.metrics)]
            text = ",".join(quote(h) for h in header) + "\n"
        else:
            text = json.dumps(
                {"linkplan_version": self.stamp[0],
                 "scenario": self.scenario_name,
                 "scenario_sha256": self.stamp[1], "sweep": self.plan.name,
                 "mode": self.plan.mode, "axes": list(self.plan.paths),
                 "points": self.plan.total, "units": units},
                ensure_ascii=False, separators=(",", ":")) + "\n"
        self.stream.write(text.encode("utf-8") if self.file else text)

    def finish(self):
        if self.file:
            self.file.publish()
        elif self.folder is not None:
            self._publish_folder(self.output)

    def interrupted(self):
        if self.file:
            self.file.publish(self.partial)
        elif self.folder is not None:
            try:
                self._publish_folder(Path(self.partial))
            except OutputRefused as err:
                return f"nothing kept: {err}"
        else:
            return "the rows so far are complete"
        return f"the rows so far are in {self.partial}"

    def _publish_folder(self, target):
        """Rename the folder of parts over ``target`` (a folder replaced
        whole: the old one is moved aside first, then removed)."""
        import shutil

        # checked again: the folder may have changed during the sweep
        check_output_folder(target, PARQUET_SWEEP)
        mark_output_folder(self.folder, PARQUET_SWEEP, __version__)
        open_to_all(self.folder)
        old = None
        if target.exists():
            old = target.with_name(f".{target.name}.old-{os.getpid()}")
            os.replace(target, old)
        os.replace(self.folder, target)
        self.folder = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def discard(self):
        import shutil

        if self.file:
            self.file.discard()
        for folder in (self.folder, self.parts):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        self.folder = self.parts = None
