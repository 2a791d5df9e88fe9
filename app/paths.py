"""Where bundled resources live, from a source checkout or a frozen build."""

import sys
from pathlib import Path

#: The example scenario the app opens when started without a file.
DEFAULT_EXAMPLE = "examples/jumbo_10gbe.toml"


def resource_path(*parts):
    """Path of a file under ``resources/``; PyInstaller unpacks them under
    ``sys._MEIPASS``."""
    if getattr(sys, "frozen", False) and hasattr(sys, "_MEIPASS"):
        root = Path(sys._MEIPASS)
    else:
        root = Path(__file__).resolve().parent.parent
    return root.joinpath("resources", *parts)
