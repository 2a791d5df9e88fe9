"""The whole scenario document, the root table that holds the others, and
the ways to build one that check its variants too."""

import hashlib
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from models.scenario.base import StrictModel
from models.scenario.calibration import Calibration
from models.scenario.checks import check_cross_references
from models.scenario.cluster import Cluster
from models.scenario.errors import ScenarioError, problems
from models.scenario.formats import canonical_json, document_data, migrate
from models.scenario.host import Host, Meta, Network, Nic
from models.scenario.lossless import Lossless
from models.scenario.limits import MAX_ENTRIES, MAX_NICS, SCHEMA_VERSION
from models.scenario.paths import get_path, set_path
from models.scenario.studies import Goal, Sweep, Variant
from models.scenario.teams import Team
from models.scenario.variants import variant_documents
from models.scenario.workloads import Workloads


class Scenario(StrictModel):
    """The whole scenario document.

    Build it with :func:`scenario_from_dict`, :func:`parse_scenario` or
    :meth:`with_value`, which also check the variants; the pydantic
    constructor alone does not.
    """

    schema_version: Literal[SCHEMA_VERSION]
    meta: Meta
    goal: Goal | None = None
    host: Host = Host()
    nics: list[Nic] = Field(min_length=1, max_length=MAX_NICS)
    teams: list[Team] = []
    network: Network = Network()
    workloads: Workloads = Workloads()
    variants: list[Variant] = Field(default=[], max_length=MAX_ENTRIES)
    sweeps: list[Sweep] = Field(default=[], max_length=MAX_ENTRIES)
    calibration: Calibration | None = Field(
        default=None, description="Site preset fitted by linkplan "
        "calibrate (None: the published presets)")
    cluster: Cluster | None = None
    lossless: Lossless | None = Field(
        default=None, description="Lossless (PFC) classes whose switch "
        "headroom is checked (None: no lossless class)")

    @model_validator(mode="after")
    def _cross_references(self):
        # what one table cannot check alone (models.scenario.checks)
        check_cross_references(self)
        return self

    # -- derived documents -------------------------------------------------

    def variant_documents(self):
        """The base and every variant, each as a scenario without variants.

        Returns
        -------
        list of (str, Scenario)
            ``(BASE_NAME, base)`` first, then one entry per variant in file
            order.
        """
        return variant_documents(self)

    def value_at(self, path):
        """The value at a parameter path, e.g. ``'network.mtu'``."""
        return get_path(self.model_dump(mode="json"), path)

    def with_value(self, path, value):
        """A new, validated scenario with one parameter changed."""
        return self.with_values({path: value})

    def with_values(self, changes):
        """A new, validated scenario with several parameters changed at
        once (path -> value), validated only as a whole."""
        data = self.model_dump(mode="json")
        for path, value in changes.items():
            set_path(data, path, value)
        return scenario_from_dict(data)

    def sha256(self):
        """SHA-256 of the canonical JSON form (independent of file format,
        key order and whitespace, and of fields left at their defaults, so
        that a new schema field with a default leaves every hash as it
        was)."""
        return hashlib.sha256(canonical_json(self).encode()).hexdigest()


def scenario_from_dict(data, *, source=None):
    """Validate a plain-data document (after migration) into a Scenario.

    Raises
    ------
    ScenarioError
        With every problem, each naming its field path and value.
    """
    if not isinstance(data, dict):
        raise ScenarioError([("", "the document must be a table/object, "
                              f"got {type(data).__name__}")], source)
    try:
        data = migrate(data)
        scenario = Scenario.model_validate(data)
        scenario.variant_documents()  # every variant must validate too
    except ValidationError as err:
        raise ScenarioError(problems(err), source) from None
    except ScenarioError as err:
        raise ScenarioError(err.problems, source) from None
    return scenario


def parse_scenario(text, fmt, *, source=None):
    """Parse scenario text.

    Parameters
    ----------
    text : str
        The document.
    fmt : {'toml', 'json'}
        Its format.
    source : str, optional
        A file name to prefix error messages with.

    Raises
    ------
    ScenarioError
        Malformed text or an invalid document.
    """
    return scenario_from_dict(document_data(text, fmt, source=source),
                              source=source)


def json_schema():
    """The JSON Schema of the scenario document."""
    return Scenario.model_json_schema()


def new_scenario():
    """A minimal valid scenario: one 10 GbE NIC, every other field at its
    default. What File > New starts from."""
    return scenario_from_dict({
        "schema_version": SCHEMA_VERSION,
        "meta": {"name": "Untitled scenario"},
        "nics": [{"id": "nic0", "speed_gbps": 10.0}],
    })
