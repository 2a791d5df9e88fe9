"""Hash inputs of a VM port the editor adds or duplicates: addresses and
MACs that spread as a real estate's do, so that a hash policy is judged on
a plausible spread and not on a pattern the generator made.

A naive generator gives the N-th VM 10.0.0.N talking to 10.1.0.N: every
flow's source XOR destination is then the same, and vSphere IP hash (the
XOR of the last octets, modulo the uplinks) puts every VM on one uplink.
A constant offset between the two ends does it too (10.0.0.N to
10.1.0.N+100: the two lowest bits of the XOR are always 0). Here the VMs
take consecutive addresses in their own subnet, as DHCP or an IP plan
hands them out, and their peers are spread evenly over the client subnet
by the golden-ratio sequence frac(N / phi) (Weyl: equidistributed, so no
value of the hash input is favoured, and not tied to the VMs' numbering);
the MACs follow vCenter's VMware OUI allocation, spread the same way.
"""

#: The VMs' subnet (10.0.0.0/16) and the peers' (10.1.0.0/16).
VM_NETWORK, PEER_NETWORK = "10.0", "10.1"

#: vCenter's VMware OUI allocation: 00:50:56:XX:YY:ZZ with XX = 0x80 +
#: vCenter Server ID (0 here) and YY:ZZ random (VMware vSphere
#: Networking, "VMware OUI Allocation").
VMWARE_OUI, VCENTER_BYTE = "00:50:56", 0x80

#: 2**32 / phi, the multiplier of the golden-ratio sequence (Knuth's
#: multiplicative hashing constant).
_GOLDEN = 0x9E3779B9

#: Offset of the MACs' place in the sequence from the peers': the two are
#: spread alike but not in step.
_MAC_OFFSET = 7919


def golden16(index):
    """The top 16 bits of frac(index / phi): consecutive indices land
    evenly spread over 0..65535 (the Weyl sequence of the golden ratio),
    reproducibly."""
    return ((index * _GOLDEN) & 0xFFFFFFFF) >> 16


def port_keys(number, taken_macs=()):
    """MAC and addresses of the VM port numbered ``number``.

    Parameters
    ----------
    number : int
        The port's ID (unique among the ports).
    taken_macs : collection of str
        MACs in use (lower case); the new one is not among them.

    Returns
    -------
    dict
        ``mac``, ``src_ip`` (the VM: consecutive in 10.0.0.0/16, no
        network or broadcast address of a /24) and ``dst_ip`` (its peer,
        spread over 10.1.0.0/16).
    """
    src = f"{VM_NETWORK}.{number // 254 % 256}.{number % 254 + 1}"
    peer = golden16(number)
    dst = f"{PEER_NETWORK}.{peer >> 8}.{(peer & 0xFF) % 254 + 1}"
    index = number + _MAC_OFFSET
    while True:
        low = golden16(index)
        mac = f"{VMWARE_OUI}:{VCENTER_BYTE:02x}:{low >> 8:02x}:" \
              f"{low & 0xFF:02x}"
        if mac not in taken_macs:
            return {"mac": mac, "src_ip": src, "dst_ip": dst}
        index += 65536   # the next free place of the sequence
