"""Light or dark, as the system says: the window's palette and the colours
of the panels that draw their own (charts, rich text, refused fields).

Qt 6.5+ reports the system's colour scheme (``QStyleHints.colorScheme``)
and signals its changes (``colorSchemeChanged``). Some platforms hand Qt a
dark palette with it (Windows 11, macOS); others only report the scheme
(Fusion on a Linux desktop), so a dark scheme under a light palette gets
Linkplan's own dark palette, and a light scheme gets the system's palette
back.
"""

from PySide6 import QtCore, QtGui, QtWidgets

from app.figures.charts import DARK, LIGHT

_Role = QtGui.QPalette.ColorRole
_Group = QtGui.QPalette.ColorGroup

#: Linkplan's dark palette (Fusion's roles; greys close to the desktops'
#: dark themes, accents of the charts' dark palette).
_DARK_ROLES = {
    _Role.Window: "#2B2B2B", _Role.WindowText: "#E6E6E6",
    _Role.Base: "#1E1E1E", _Role.AlternateBase: "#262626",
    _Role.ToolTipBase: "#3A3A3A", _Role.ToolTipText: "#E6E6E6",
    _Role.PlaceholderText: "#8C8C8C", _Role.Text: "#E6E6E6",
    _Role.Button: "#353535", _Role.ButtonText: "#E6E6E6",
    _Role.BrightText: "#FF6B6B", _Role.Light: "#4A4A4A",
    _Role.Midlight: "#3E3E3E", _Role.Mid: "#2F2F2F", _Role.Dark: "#1A1A1A",
    _Role.Shadow: "#0F0F0F", _Role.Highlight: "#2F6DA8",
    _Role.HighlightedText: "#FFFFFF", _Role.Link: "#6CB4EE",
    _Role.LinkVisited: "#B28CE0",
}
_DARK_DISABLED = {_Role.WindowText: "#7A7A7A", _Role.Text: "#7A7A7A",
                  _Role.ButtonText: "#7A7A7A", _Role.Base: "#262626",
                  _Role.Highlight: "#3A3A3A"}

#: Text colours of the panels, light then dark: each keeps at least 4.5:1
#: contrast on its background (WCAG AA).
_PANEL_COLOURS = {
    "critical": ("#B00020", "#FF7A8A"), "warning": ("#9A4C00", "#F0A350"),
    "info": ("#1F5A8A", "#8CC2F0"), "error": ("#B04000", "#FF9A5C"),
    # background of a refused field: a tint of the charts' vermilion
    "refused": ("#F9D9C6", "#5A2A14"),
}


def dark_palette():
    """Linkplan's dark palette."""
    palette = QtGui.QPalette()
    for role, colour in _DARK_ROLES.items():
        palette.setColor(role, QtGui.QColor(colour))
    for role, colour in _DARK_DISABLED.items():
        palette.setColor(_Group.Disabled, role, QtGui.QColor(colour))
    return palette


def is_dark(palette=None):
    """Whether a palette (the application's by default) is a dark one:
    its window darker than its text."""
    palette = palette or QtWidgets.QApplication.palette()
    return palette.color(_Role.Window).lightness() < \
        palette.color(_Role.WindowText).lightness()


def colour(name):
    """A panel colour ('critical', 'warning', 'info', 'error',
    'refused') for the application's current palette."""
    light, dark = _PANEL_COLOURS[name]
    return dark if is_dark() else light


def chart_theme():
    """The charts' colours for the application's current palette."""
    return DARK if is_dark() else LIGHT


class SystemScheme(QtCore.QObject):
    """Follows the system's colour scheme by setting the application's
    palette; widgets that draw their own colours follow the palette (their
    ``PaletteChange`` event), whoever changed it."""

    def __init__(self, app, parent=None):
        super().__init__(parent)
        self._app = app
        self._own_palette = False   # whether Linkplan set the dark one
        # the system's palette, given back when the scheme turns light
        self._system_palette = QtGui.QPalette(app.palette())
        app.styleHints().colorSchemeChanged.connect(self.follow)
        self.follow(app.styleHints().colorScheme())

    @QtCore.Slot(QtCore.Qt.ColorScheme)
    def follow(self, scheme):
        """Apply ``scheme`` (a ``Qt.ColorScheme``): the dark palette where
        the platform gave none, the system's back for a light one; an
        unknown scheme leaves the palette as it is."""
        if scheme == QtCore.Qt.ColorScheme.Dark and not is_dark():
            self._system_palette = QtGui.QPalette(self._app.palette())
            self._app.setPalette(dark_palette())
            self._own_palette = True
        elif scheme == QtCore.Qt.ColorScheme.Light and self._own_palette:
            self._app.setPalette(self._system_palette)
            self._own_palette = False


_scheme = None


def system_scheme():
    """The application's one :class:`SystemScheme` (made on first use)."""
    global _scheme
    app = QtWidgets.QApplication.instance()
    if _scheme is None or _scheme.parent() is not app:
        _scheme = SystemScheme(app, parent=app)
    return _scheme
