"""``linkplan advise --target``: the smallest change of each lever that
meets a target (:mod:`solvers.target`), as a table or JSON."""

import json
import sys

EXIT_OK, EXIT_USAGE = 0, 2


def result_part(fmt, path, scenario, result):
    """One file's advice or target result as the CLI writes it: a JSON
    line, or a table whose names are shown safely on one line."""
    if fmt == "json":
        return json.dumps({"file": path, **result.to_dict(scenario)},
                          ensure_ascii=False, separators=(",", ":")) + "\n"
    from app.plain_text import scenario_as_shown
    return f"File: {path}\n" + result.to_table(scenario_as_shown(scenario))


def advise_target(args, batch, emit):
    """Seek ``args.target`` on every input of ``args.files`` with
    ``batch(args, handle)`` and write the text with ``emit(args, text)``.
    A malformed target, a metric a scenario lacks or a lever it does not
    have is reported with exit code 2 (1 when other files succeeded)."""
    from solvers.target import TargetError, parse_target, seek_target

    if args.goal is not None:
        print("linkplan advise: --goal ranks changes and --target seeks "
              "one bound; give one of them", file=sys.stderr)
        return EXIT_USAGE
    try:
        target = parse_target(args.target)
    except TargetError as err:
        print(f"linkplan advise: --target: {err}", file=sys.stderr)
        return EXIT_USAGE
    parts, refused = [], []

    def seek_one(path, scenario):
        try:
            result = seek_target(scenario, target, levers=args.lever)
        except TargetError as err:
            print(f"linkplan: {path}: {err}", file=sys.stderr)
            refused.append(path)
            return
        parts.append(result_part(args.format, path, scenario, result))

    code = batch(args, seek_one)
    if refused and code == EXIT_OK:
        code = EXIT_USAGE if len(refused) == 1 and not parts else 1
    if parts:
        emit(args, "".join(parts) if args.format == "json"
             else "\n".join(parts))
    return code
