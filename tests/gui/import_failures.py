"""Importers that fail as a hostile file makes a real one fail, run in
the import dialog's process (which imports them by name)."""

import os
import signal


def raise_type_error(fmt, paths):
    # what a PowerCLI export with only net.transmitted.average did
    raise TypeError("unsupported operand type(s) for +: 'NoneType' and "
                    "'float'")


def killed(fmt, paths):
    # what the kernel does to an importer that ran out of memory
    os.kill(os.getpid(), signal.SIGKILL)
