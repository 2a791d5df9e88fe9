"""A site preset in the scenario document: the host CPU costs ``linkplan
calibrate`` fitted to measured runs, on which files and when, with the
residuals."""

from typing import Literal

from pydantic import Field

from models.host import STACK_PRESETS
from models.scenario.base import StrictModel, identifier
from models.scenario.limits import MAX_ENTRIES, MAX_SOLVED_ENTRIES


class StackCalibration(StrictModel):
    """Host CPU costs fitted to the user's own runs: each given coefficient
    replaces the base preset's (models.host.StackCosts), the others stay."""

    base: Literal[tuple(STACK_PRESETS)] = Field(
        description="Preset the fitted coefficients replace values of")
    c_byte_tx: float | None = Field(default=None, ge=0, description=(
        "Cycles per payload byte sent [1/B]; None: the base preset's"))
    c_byte_rx: float | None = Field(default=None, ge=0, description=(
        "Cycles per payload byte received [1/B]; None: the base preset's"))
    c_pkt: float | None = Field(default=None, ge=0, description=(
        "Cycles per stack traversal [cycles]; None: the base preset's"))
    c_wire: float | None = Field(default=None, ge=0, description=(
        "Cycles per wire frame [cycles]; None: the base preset's"))


class CalibrationCheck(StrictModel):
    """One measured run next to what the calibrated models predict."""

    run: str = Field(min_length=1, max_length=400,
                     description="The run: file and setting")
    quantity: str = Field(min_length=1, max_length=80,
                          description="What is compared, with its unit")
    measured: float = Field(description="The tool's value")
    predicted: float = Field(description="The calibrated models' value")
    error_pct: float = Field(description="(predicted - measured) / "
                             "measured [%]")
    role: Literal["fitted", "held_out"] = Field(description=(
        "fitted: the run was among those fitted; held_out: fitted on the "
        "other runs and predicted (leave-one-out)"))


class Calibration(StrictModel):
    """A named site preset: what ``linkplan calibrate`` fitted to measured
    runs, on which files and when, with the residuals."""

    name: str = identifier()
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}", max_length=40,
                      description="When it was fitted (ISO 8601)")
    sources: list[str] = Field(min_length=1, max_length=MAX_ENTRIES,
                               description="The measured files fitted on")
    stack: StackCalibration | None = Field(
        default=None, description="Fitted host CPU costs; None: the "
        "preset's")
    fitted: list[str] = Field(default=[], max_length=MAX_ENTRIES,
                              description="Each fitted parameter: path = "
                              "value, and what determined it")
    undetermined: list[str] = Field(
        default=[], max_length=MAX_ENTRIES, description="Parameters the "
        "runs cannot determine, and why (kept at their given or preset "
        "values, not guessed)")
    checks: list[CalibrationCheck] = Field(default=[],
                                           max_length=MAX_SOLVED_ENTRIES)
