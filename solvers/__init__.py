"""Numeric procedures on the models and the one ``evaluate`` entry point.

Kept free of Qt and of file I/O; importing this package is cheap (no numpy)
so that ``linkplan --version`` starts fast.
"""

#: Linkplan's version, stamped into every result and report.
__version__ = "0.1.0"
