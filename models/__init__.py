"""Closed-form physics of host networking as pure numpy functions.

No Qt, no I/O, no state: every function broadcasts over arrays of scenarios.
"""
