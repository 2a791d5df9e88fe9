"""What the GUI and the PDF report say, without Qt: labels, values as
shown, evidence and effect texts, goal labels and the report's content
(what differs, grouped findings, the executive summary).

import-linter keeps this package free of Qt (pyproject.toml), so it is
tested without a display and shared by every face."""
