"""Linkplan's faces: the desktop GUI, the batch CLI and the PDF report.

The only package that knows Qt; it computes nothing itself and calls
``solvers.evaluate`` for every number it shows.
"""
