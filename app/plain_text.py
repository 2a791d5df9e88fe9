"""Text from files shown as it is written, never acted on (issue 38,
item 4): control characters (ESC sequences that recolour, retitle or clear
a terminal, a bell, a carriage return that overwrites a line) and the
Unicode bidirectional controls (an RLO reverses what follows) are shown as
escapes, ``\\x1b`` and ``\\u202e``, on the terminal and in the PDF report.

The escapes are also valid inside JSON and TOML strings, where they mean
the same character again; JSON and TOML writers escape C0 controls
themselves, so only C1 and bidirectional controls ever change there.
"""

import dataclasses
import re

#: C0 controls but tab and line feed, DEL, C1 controls (U+0080-U+009F,
#: which some terminals obey like ESC sequences), and the bidirectional
#: formatting characters of Unicode UAX #9 (ALM, LRM, RLM, LRE-RLO,
#: LRI-PDI).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f"
                       "\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = re.compile("[\t\n\u2028\u2029]")


def _escape(match):
    code = ord(match.group())
    # \x only for C0, which JSON and TOML writers never leave raw: DEL
    # and above as \u, an escape both read
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def escaped(text):
    """``text`` with its controls as escapes; tabs and line breaks kept
    (the layout of a terminal's lines)."""
    if _CONTROLS.search(text) is None:
        return text
    return _CONTROLS.sub(_escape, text)


def one_line(text):
    """``text`` as one line of a name: its controls, tabs and line breaks
    (also U+2028/U+2029) as escapes."""
    return _LINE_BREAKS.sub(_escape, escaped(text))


def scenario_as_shown(scenario):
    """A copy of the scenario with its free text as shown (the PDF
    report, the CLI's tables): names on one line, its controls as escapes (an RLO
    reversing a line, a line break in a table cell act no more)."""
    meta = scenario.meta
    return scenario.model_copy(update={
        "meta": meta.model_copy(update={
            "name": one_line(meta.name),
            "description": escaped(meta.description),
            "objectives": [escaped(t) for t in meta.objectives],
            "assumptions": [escaped(t) for t in meta.assumptions],
            "notes": escaped(meta.notes)}),
        "variants": [v.model_copy(update={
            "name": one_line(v.name), "description": escaped(v.description),
            "set": {path: escaped(value) if isinstance(value, str)
                    else value for path, value in v.set.items()}})
            for v in scenario.variants]})


def results_as_shown(results):
    """A copy of the results with their names on one line and their
    messages' controls as escapes (see :func:`scenario_as_shown`)."""
    def finding(item):
        return dataclasses.replace(item, message=escaped(item.message))

    return dataclasses.replace(
        results, scenario=one_line(results.scenario),
        variants=tuple(dataclasses.replace(
            v, name=one_line(v.name),
            bottleneck=finding(v.bottleneck),
            findings=tuple(finding(f) for f in v.findings),
            assumptions=tuple(escaped(a) for a in v.assumptions))
            for v in results.variants))


class EscapedStream:
    """A text stream (standard output or error) that writes
    :func:`escaped` text into the one it wraps; everything else is the
    wrapped stream's. ``raw`` is the wrapped stream, for a progress bar's
    own carriage returns."""

    def __init__(self, stream):
        self.raw = stream

    def write(self, text):
        return self.raw.write(escaped(text) if isinstance(text, str)
                              else text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self.raw, name)
