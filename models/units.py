"""Units shared by every model and analysis, defined once, and quantities
as people type them in a field's canonical unit.

Link rates are decimal (1 Gbit/s = 1e9 bit/s, IEEE 802.3); memory sizes
are binary (1 GiB = 2**30 B, as hypervisors report them). Each conversion
broadcasts over numpy arrays.
"""

import re

#: Bits per byte.
BITS_PER_BYTE = 8

#: Bytes per second in 1 Gbit/s [B/s].
GBIT_BYTES = 1e9 / BITS_PER_BYTE

#: Decimal megabyte, as storage throughput is quoted (MB/s) [B].
MB = 1e6

#: Binary prefixes [B].
KIB = 2 ** 10
MIB = 2 ** 20
GIB = 2 ** 30


def gbps_to_bytes_per_s(gbps):
    """A rate in Gbit/s as bytes per second [B/s]."""
    return gbps * GBIT_BYTES


def bytes_per_s_to_gbps(bytes_per_s):
    """A rate in bytes per second as Gbit/s [Gbit/s]."""
    return bytes_per_s / GBIT_BYTES


# --------------------------------------------------------------------------
# Quantities as people type them ("1.5 GB/s", "9 KiB", "300 ms")
# --------------------------------------------------------------------------

#: Units by the suffix of a scenario field's name (the schema's naming
#: convention); a unit in brackets at the end of a field's description
#: wins (:func:`field_unit`).
UNIT_SUFFIXES = (
    ("_mib_s", "MiB/s"), ("_gbps", "Gbit/s"), ("_mbps", "MB/s"),
    ("_pct", "%"), ("_ms", "ms"), ("_s", "s"), ("_gib", "GiB"),
    ("_kib", "KiB"), ("_bytes", "B"), ("_iops", "IO/s"), ("ghz", "GHz"),
    ("iops_max", "IO/s"), ("mtu", "B"), ("mtu_min", "B"), ("mtu_max", "B"),
)


def field_unit(name, description=""):
    """The canonical unit of a scenario field: ``[unit]`` ending its
    description, else the one its name's suffix says; '' when it has
    none."""
    text = (description or "").rstrip(". ")
    if text.endswith("]") and "[" in text:
        unit = text[text.rindex("[") + 1:-1]
        if unit and len(unit) <= 12:
            return unit
    for suffix, unit in UNIT_SUFFIXES:
        if name == suffix.lstrip("_") or name.endswith(suffix):
            return unit
    return ""


def _prefixed(base, factor, prefixes):
    return {f"{p}{base}": factor * scale for p, scale in prefixes}


_DECIMAL = (("", 1.0), ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9),
            ("T", 1e12))
_BINARY = (("Ki", float(KIB)), ("Mi", float(MIB)), ("Gi", float(GIB)),
           ("Ti", float(2 ** 40)))

#: Units a quantity may be typed in, by dimension: unit -> its size in the
#: dimension's base unit (bit/s, byte, second, 1/s, hertz, per cent).
#: Rates in bits are decimal (IEEE 802.3); bytes take decimal (kB, MB,
#: GB: storage vendors) and binary (KiB, MiB, GiB: hypervisors) prefixes.
UNITS = {
    "data rate": {
        **_prefixed("bit/s", 1.0, _DECIMAL), **_prefixed("b/s", 1.0, _DECIMAL),
        **_prefixed("bps", 1.0, _DECIMAL),
        **_prefixed("B/s", 8.0, _DECIMAL + _BINARY),
        **_prefixed("Bps", 8.0, _DECIMAL),
        "GbE": 1e9},
    "data size": {**_prefixed("B", 1.0, _DECIMAL + _BINARY),
                  **_prefixed("bytes", 1.0, (("", 1.0),))},
    "time": {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3,
             "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0},
    "rate of events": {"1/s": 1.0, "/s": 1.0, "IO/s": 1.0, "IOPS": 1.0,
                       "kIOPS": 1e3, "k IOPS": 1e3, "pps": 1.0,
                       "kpps": 1e3, "Mpps": 1e6},
    "frequency": _prefixed("Hz", 1.0, _DECIMAL),
    "share": {"%": 1.0},
}


def _dimension(unit):
    for dimension, units in UNITS.items():
        if unit in units:
            return dimension
    return None


def _lookup(dimension, unit):
    """Factor of ``unit`` in ``dimension``: exactly as written, else
    case-blind where that names one size only (``gbit/s``, not ``mb/s``,
    which could be megabits or megabytes)."""
    units = UNITS[dimension]
    if unit in units:
        return units[unit]
    sizes = {factor for name, factor in units.items()
             if name.lower() == unit.lower()}
    return sizes.pop() if len(sizes) == 1 else None


_QUANTITY = re.compile(
    r"\s*([-+]?(?:\d[\d_,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*")


def parse_quantity(text, unit, *, field=""):
    """A number typed with a unit (``"1.5 GB/s"``) in the field's canonical
    ``unit`` (``"MiB/s"``: 1430.51...). A bare number is already in it.

    Parameters
    ----------
    text : str
    unit : str
        The canonical unit of the field (:func:`field_unit`).
    field : str, optional
        The field's name or path, for the message.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Not a number, a unit Linkplan does not know, or one of another
        dimension; the message names the field, the value and the units
        accepted.
    """
    where = f"{field}: " if field else ""
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise ValueError(f"{where}expected a number"
                         + (f" in {unit} or with a unit" if unit else "")
                         + f", got {text!r}")
    number = float(match.group(1).replace("_", "").replace(",", ""))
    typed = " ".join(match.group(2).split())
    if not typed or typed == unit:
        return number
    dimension = _dimension(unit)
    if dimension is None:
        raise ValueError(f"{where}takes a number"
                         + (f" in {unit}" if unit else "")
                         + f" without another unit, got {text!r}")
    factor = _lookup(dimension, typed)
    if factor is None:
        other = next((d for d in UNITS if _lookup(d, typed) is not None),
                     None)
        what = f"a {other}" if other else f"no unit Linkplan knows ({typed!r})"
        raise ValueError(
            f"{where}{text!r} is {what}, but the field is a {dimension} in "
            f"{unit}; accepted units: {', '.join(accepted_units(unit))}")
    return number * factor / UNITS[dimension][unit]


def accepted_units(unit):
    """The units a quantity of ``unit``'s dimension may be typed in (the
    usual spellings; case-blind forms and aliases are accepted too)."""
    dimension = _dimension(unit)
    if dimension is None:
        return [unit] if unit else []
    shown = {"data rate": ("bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s",
                           "Gbps", "B/s", "kB/s", "MB/s", "GB/s", "KiB/s",
                           "MiB/s", "GiB/s"),
             "data size": ("B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB",
                           "TiB"),
             "time": ("ns", "us", "ms", "s", "min", "h"),
             "rate of events": ("1/s", "IO/s", "IOPS", "kIOPS", "pps"),
             "frequency": ("Hz", "kHz", "MHz", "GHz"),
             "share": ("%",)}
    return list(shown[dimension])
