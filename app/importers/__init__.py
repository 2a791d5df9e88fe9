"""Importers: files that architects already export -> scenario documents.

One module per format; each has ``import_files(paths) -> ImportResult``
(app.importers.common); :func:`app.importers.common.run_import` runs one
and validates its scenarios. No Qt and no physics here: the documents are
validated by models.scenario, a migration check runs solvers.evaluate.
This module holds only the list of formats, which the CLI's parser reads
on every start.
"""

#: Formats by command-line name: (module, what the files are).
FORMATS = {
    "rvtools": ("rvtools", "RVTools export (.xlsx)"),
    "esxtop": ("esxtop", "esxtop/resxtop batch CSV (esxtop -b)"),
    "perfmon": ("perfmon", "Windows perfmon/typeperf CSV (PDH-CSV 4.0)"),
    "vcenter": ("vcenter", "vCenter statistics (PowerCLI Get-Stat CSV)"),
    "sar": ("sar", "sysstat sadf -j JSON"),
    "qemu": ("qemu", "QEMU QMP replies (query-migrate, query-dirty-rate)"),
    "libvirt": ("libvirt", "virsh domjobinfo / domstats --dirtyrate"),
    "iperf3": ("iperf3", "iperf3 -J JSON (client side; server side "
               "imports without the sender's CPU)"),
    "fio": ("fio", "fio --output-format=json"),
    "diskspd": ("diskspd", "DiskSpd -Rxml results"),
    "hcibench": ("hcibench", "HCIBench result summary (*-res.txt)"),
    "inventory": ("inventory", "VM inventory, one row per VM (.csv or "
                  ".xlsx: Get-VM | Export-Csv, a CMDB list)"),
}
