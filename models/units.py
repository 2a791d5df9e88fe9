"""Units shared by every model and analysis, defined once.

Link rates are decimal (1 Gbit/s = 1e9 bit/s, IEEE 802.3); memory sizes
are binary (1 GiB = 2**30 B, as hypervisors report them). Each conversion
broadcasts over numpy arrays.
"""

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
