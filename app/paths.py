"""Where bundled resources live, from a source checkout or a frozen build."""

import sys
from pathlib import Path

#: The example scenario the app opens when started without a file.
DEFAULT_EXAMPLE = "examples/jumbo_10gbe.toml"

#: File > New from a template: (file under resources/templates, menu
#: text), one per question the app answers.
TEMPLATES = (("teaming.toml", "&Teaming policy"),
             ("transport.toml", "T&ransport (TCP, SMB, RDMA)"),
             ("jumbo.toml", "&Jumbo frames"),
             ("migration.toml", "&Live migration"),
             ("storage.toml", "&Storage IO"),
             ("evacuation.toml", "Host &evacuation"),
             ("cluster.toml", "&Cluster and fabric"))


def resource_path(*parts):
    """Path of a file under ``resources/``; PyInstaller unpacks them under
    ``sys._MEIPASS``."""
    if getattr(sys, "frozen", False) and hasattr(sys, "_MEIPASS"):
        root = Path(sys._MEIPASS)
    else:
        root = Path(__file__).resolve().parent.parent
    return root.joinpath("resources", *parts)
