"""Lossless traffic classes (IEEE 802.1Qbb PFC) on the links between the
host's NICs and their switch ports, checked by the PFC headroom analysis
(:mod:`models.pfc`)."""

from pydantic import Field, model_validator

from models.pfc import MAX_CABLE_M
from models.scenario.base import StrictModel, check_unique, identifier
from models.wire import (L2_OVERHEAD_BYTES, MIN_FRAME_BYTES, MTU_CEILING,
                         VLAN_TAG_BYTES)


class LosslessClass(StrictModel):
    """A lossless traffic class (IEEE 802.1Qbb PFC) on the links between
    the host's NICs and their switch ports: RoCE v2, FCoE."""

    name: str = identifier("Name of the class (e.g. roce)")
    priority: int = Field(ge=0, le=7, description="IEEE 802.1p priority "
                          "PFC pauses")
    frame_bytes: int | None = Field(
        default=None, ge=MIN_FRAME_BYTES,
        le=MTU_CEILING + L2_OVERHEAD_BYTES + 2 * VLAN_TAG_BYTES,
        description="Largest frame of the class, MAC header to FCS [B] "
        "(None: frames at network.mtu)")
    headroom_bytes: int | None = Field(
        default=None, ge=0, description="Headroom the switch reserves per "
        "port for the class [B] (None: not checked)")


class Lossless(StrictModel):
    """PFC on the links between the host's NICs and their switch ports."""

    cable_m: float = Field(
        default=3.0, ge=0, le=MAX_CABLE_M, description="Cable between "
        "a NIC and its switch port [m]; 3 m: a direct-attach cable in the "
        "rack")
    classes: list[LosslessClass] = Field(
        min_length=1, max_length=8, description="The lossless classes, "
        "one per PFC priority")

    @model_validator(mode="after")
    def _classes_unique(self):
        check_unique("lossless.classes", [c.name for c in self.classes],
                     "name")
        check_unique("lossless.classes", [c.priority for c in self.classes],
                     "priority")
        return self
