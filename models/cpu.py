"""Server CPU generations: how fast one core runs the network stack per
clock cycle.

The host cost presets (:data:`models.host.STACK_PRESETS`) count cycles per
byte, per stack traversal and per frame on the hosts they were fitted on,
mostly 2013-2016 Xeons. A later core retires the same code in fewer cycles
(wider decode, larger out-of-order windows and caches, faster memory copy),
so one core of a later generation moves a flow faster at the same clock.
:func:`stack_ghz` turns the clock into the reference generation's
equivalent clock: the models' cycle counts stay those of the fit.

Per-clock speeds are chained from each vendor's published
instructions-per-clock (IPC) gain of a core over its predecessor,
anchored at Intel Haswell (1.0, the generation of the linux_host and
windows_host fits); the sources are each preset's ``source``. The network
stack is taken to gain what integer code gains per clock (its per-frame
work is branchy integer code, its per-byte work a cache-resident copy),
an assumption the validation cases test (``host_cpu_generations.toml``).
"""

from dataclasses import dataclass

import numpy as np

from models._checks import require_positive


@dataclass(frozen=True)
class CpuGeneration:
    """One server CPU generation.

    Attributes
    ----------
    vendor : str
        ``intel``, ``amd`` or ``arm``.
    core : str
        Microarchitecture of its cores.
    year : int
        Year of the server launch.
    stack_speed : float
        Network-stack work per clock cycle relative to Intel Haswell
        (:func:`stack_ghz`). [unitless]
    source : str
        Where the per-clock speed comes from.
    accelerators : tuple of str
        On-die offload engines every part of the generation carries (names
        in :data:`ACCELERATORS`); an offload a scenario asks for must be
        among them.
    """

    vendor: str
    core: str
    year: int
    stack_speed: float
    source: str
    accelerators: tuple[str, ...] = ()


_INTEL_IPC = ("Intel's published IPC gains chained from Haswell: Broadwell "
              "+5 % (IDF 2014), Skylake +10 % over Broadwell (Skylake-SP "
              "launch, 2017), Cascade Lake the same core, Sunny Cove +18 % "
              "over Skylake (Architecture Day 2018; Ice Lake-SP launch "
              "2021: '20 % IPC'), Golden Cove +19 % over Cypress/Sunny "
              "Cove (Architecture Day 2021)")
_AMD_IPC = ("AMD's published IPC gains chained from Zen 1, which AMD "
            "showed at Broadwell-E's per-clock speed (Zen launch, "
            "Blender against the i7-6900K at equal clocks, 2016): Zen 2 "
            "+15 % (Computex 2019), Zen 3 +19 % (2020), Zen 4 +13 % "
            "(2022), Zen 5 +16 % (Computex 2024)")
_ARM_IPC = ("Neoverse N1 taken at Skylake's per-clock speed (Arm's N1 "
            "launch, 2019: SPECint2006 per core at 'competitive' x86 "
            "levels; AnandTech's Graviton2 review 2020 puts it between "
            "Skylake and Zen 2 per clock); AWS's own gains: Graviton3 "
            "(Neoverse V1) '25 % better compute performance' than "
            "Graviton2 at 2.6 vs 2.5 GHz (re:Invent 2021), Graviton4 "
            "(Neoverse V2) '30 % better' than Graviton3 at 2.8 vs 2.6 GHz "
            "(re:Invent 2023)")

#: On-die offload engines of server CPUs. Intel put the In-Memory Analytics
#: Accelerator (IAA: deflate compression, QEMU's multifd-compression qpl)
#: and the Data Streaming Accelerator (DSA: memory copy, fill and compare)
#: into the 4th generation Xeon Scalable (Sapphire Rapids) and kept them in
#: Emerald Rapids and Xeon 6 (Granite Rapids) (Intel IAA User Guide 2022,
#: Intel DSA Architecture Specification rev 1.2 2022, Xeon 6 product
#: brief 2024); no earlier Xeon, no AMD EPYC and no Arm server core has
#: either. QAT is left out: it also comes as a PCIe card or in the
#: chipset, so any host may have one.
ACCELERATORS = {
    "iaa": "Intel In-Memory Analytics Accelerator (IAA)",
    "dsa": "Intel Data Streaming Accelerator (DSA)",
}
_XEON_4TH_GEN_ENGINES = ("iaa", "dsa")

#: Server CPU generations by family. ``legacy`` is the behaviour of every
#: stack preset as it was fitted (the clock alone decides a core's speed,
#: whatever the hosts of the fit were): what a case measured on the fit's
#: own hosts, or a scenario that wants the earlier results, names.
CPU_GENERATIONS = {
    "legacy": CpuGeneration(
        "intel", "as fitted", 2015, 1.0,
        "The stack presets' own hosts (2008-2016: ESX 3.5's, Windows "
        "Server 2012 R2's and ESnet's Linux hosts): per-core speed by "
        "clock alone, as before CPU generations were modelled"),
    "intel_sandy_bridge": CpuGeneration(
        "intel", "Sandy Bridge-EP", 2012, 0.87,
        "Intel: Ivy Bridge +5 % and Haswell +10 % per clock over their "
        "predecessors (IDF 2012, 2013): 1 / (1.05 x 1.10)"),
    "intel_ivy_bridge": CpuGeneration(
        "intel", "Ivy Bridge-EP", 2013, 0.91,
        "Intel: Haswell +10 % per clock over Ivy Bridge (IDF 2013)"),
    "intel_haswell": CpuGeneration(
        "intel", "Haswell-EP", 2014, 1.0,
        "Reference generation: the linux_host and windows_host presets "
        "were fitted on 2014-2016 Xeon E5 v3 hosts"),
    "intel_broadwell": CpuGeneration(
        "intel", "Broadwell-EP", 2016, 1.05, _INTEL_IPC),
    "intel_skylake": CpuGeneration(
        "intel", "Skylake-SP", 2017, 1.155, _INTEL_IPC),
    "intel_cascade_lake": CpuGeneration(
        "intel", "Cascade Lake-SP", 2019, 1.155, _INTEL_IPC),
    "intel_ice_lake": CpuGeneration(
        "intel", "Ice Lake-SP (Sunny Cove)", 2021, 1.36, _INTEL_IPC),
    "intel_sapphire_rapids": CpuGeneration(
        "intel", "Sapphire Rapids (Golden Cove)", 2023, 1.62, _INTEL_IPC,
        _XEON_4TH_GEN_ENGINES),
    "intel_emerald_rapids": CpuGeneration(
        "intel", "Emerald Rapids (Raptor Cove)", 2023, 1.62,
        _INTEL_IPC + "; Raptor Cove keeps Golden Cove's per-clock speed "
        "(Intel 5th Gen Xeon launch: the gains are cores and cache)",
        _XEON_4TH_GEN_ENGINES),
    "intel_granite_rapids": CpuGeneration(
        "intel", "Granite Rapids (Redwood Cove)", 2024, 1.62,
        _INTEL_IPC + "; Intel published no per-clock gain of Redwood Cove "
        "over Golden Cove for Xeon 6, so none is taken",
        _XEON_4TH_GEN_ENGINES),
    "amd_naples": CpuGeneration(
        "amd", "Zen (EPYC 7001)", 2017, 1.05, _AMD_IPC),
    "amd_rome": CpuGeneration(
        "amd", "Zen 2 (EPYC 7002)", 2019, 1.21, _AMD_IPC),
    "amd_milan": CpuGeneration(
        "amd", "Zen 3 (EPYC 7003)", 2021, 1.44, _AMD_IPC),
    "amd_genoa": CpuGeneration(
        "amd", "Zen 4 (EPYC 9004)", 2022, 1.62, _AMD_IPC),
    "amd_turin": CpuGeneration(
        "amd", "Zen 5 (EPYC 9005)", 2024, 1.88, _AMD_IPC),
    "arm_graviton2": CpuGeneration(
        "arm", "Neoverse N1", 2020, 1.155, _ARM_IPC),
    "arm_ampere_altra": CpuGeneration(
        "arm", "Neoverse N1", 2020, 1.155, _ARM_IPC),
    "arm_graviton3": CpuGeneration(
        "arm", "Neoverse V1", 2022, 1.39, _ARM_IPC),
    "arm_graviton4": CpuGeneration(
        "arm", "Neoverse V2", 2024, 1.68, _ARM_IPC),
}

#: Generation of a host that names none: a current server generation.
DEFAULT_CPU = "intel_sapphire_rapids"


def generations_with(accelerator):
    """CPU generations whose parts carry an on-die offload engine.

    Parameters
    ----------
    accelerator : str
        A name in :data:`ACCELERATORS`.

    Returns
    -------
    tuple of str
        Names in :data:`CPU_GENERATIONS`, in their order.
    """
    if accelerator not in ACCELERATORS:
        raise ValueError(f"accelerator must be one of "
                         f"{', '.join(ACCELERATORS)}, got {accelerator!r}")
    return tuple(name for name, gen in CPU_GENERATIONS.items()
                 if accelerator in gen.accelerators)


def stack_speed(cpu):
    """Per-clock network-stack speed of CPU generations.

    Parameters
    ----------
    cpu : str or array-like of str
        Names in :data:`CPU_GENERATIONS`.

    Returns
    -------
    numpy.ndarray
        Speed relative to Intel Haswell. [unitless]

    Raises
    ------
    ValueError
        An unknown generation, with the list of choices.
    """
    names = np.asarray(cpu)
    unknown = sorted(set(names.ravel().tolist()) - set(CPU_GENERATIONS))
    if unknown:
        raise ValueError(f"cpu must be one of {', '.join(CPU_GENERATIONS)}"
                         f", got {unknown[0]!r}")
    if names.ndim == 0:  # one host: the common call, no vectorising
        return np.asarray(CPU_GENERATIONS[names.item()].stack_speed)
    lookup = {name: gen.stack_speed for name, gen in CPU_GENERATIONS.items()}
    return np.vectorize(lookup.__getitem__, otypes=[float])(names)


def stack_ghz(ghz, speed):
    """Clock of the reference generation doing one core's network work.

    Parameters
    ----------
    ghz : numeric
        The core's clock. [GHz]
    speed : numeric
        Its generation's per-clock speed, :func:`stack_speed`. [unitless]

    Returns
    -------
    numpy.ndarray
        Equivalent clock for the stack presets' cycle counts. [GHz]

    Notes
    -----
    .. math:: f_{eq} = s_{gen} f

    so a core's ceiling :math:`8 f_{eq} / c` (:func:`models.host.
    core_ceiling`) and the cores a rate costs, :math:`T c / (8 f_{eq})`,
    both follow the generation.
    """
    return require_positive("ghz", ghz, "GHz") \
        * require_positive("speed", speed)


def clock_scaled(rate, ghz, reference_ghz):
    """A per-core rate measured at one clock, at another.

    Parameters
    ----------
    rate : numeric
        Rate measured at ``reference_ghz`` (e.g. one migration stream's
        ceiling). [Gbit/s]
    ghz : numeric
        Clock of the host (:func:`stack_ghz`). [GHz]
    reference_ghz : numeric
        Clock of the measurement. [GHz]

    Returns
    -------
    numeric
        The rate at ``ghz``. [Gbit/s]

    Notes
    -----
    A single thread bound by its core's cycles moves in proportion to the
    clock:

    .. math:: R = R_{ref} \\cdot f / f_{ref}
    """
    return rate * ghz / reference_ghz
