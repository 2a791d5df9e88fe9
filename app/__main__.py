"""``python -m app`` / ``linkplan``: no argument or a scenario file opens the
desktop app, ``--self-test`` checks the GUI and PDF paths offscreen, and
anything else is a CLI command (which never imports Qt)."""

import sys


def main(argv=None):
    if getattr(sys, "frozen", False):
        # sweep workers of a frozen build must run the worker, not the app
        # (needed wherever processes are spawned rather than forked)
        import multiprocessing
        multiprocessing.freeze_support()
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--self-test"]:
        from app.gui.application import self_test
        return self_test()
    if not argv or (len(argv) == 1 and not argv[0].startswith("-")
                    and argv[0].lower().endswith((".toml", ".json"))):
        from app.gui.application import run_gui
        return run_gui(argv[0] if argv else None)
    from app.cli import main as cli_main
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
