"""Finds texts a widget shows cut: a label, button, combo box, tab,
group title, header section or table cell narrower than its text
(QFontMetrics' advance against the room the style gives it; a wrapping
header or table its lines' height against the section's).

Not measured: word-wrapped labels (they grow instead), texts drawn inside
charts (pyqtgraph items elide themselves to the view), line edits (they
scroll) and parts scrolled out of a scroll area's view."""

from PySide6 import QtCore, QtGui, QtWidgets

#: Pixels of slack: rounding of fractional advances between the style's
#: own measure and ours.
SLACK = 1


def clipped_texts(top):
    """(where, text, needed px, room px) of every visible text shown cut
    below ``top``."""
    found = []
    for widget in [top] + top.findChildren(QtWidgets.QWidget):
        if not widget.isVisible() or widget.width() <= 0 or \
                widget is not top and not _on_screen(widget):
            continue
        for text, needed, room in _texts(widget):
            if text and needed > room + SLACK:
                found.append((_where(widget), text, needed, room))
    return found


def _on_screen(widget):
    """Whether any of the widget shows in its window (a scroll area's
    parts outside its viewport are not cut, just scrolled away)."""
    window = QtWidgets.QWidget.window(widget)
    rect = QtCore.QRect(widget.mapTo(window, QtCore.QPoint(0, 0)),
                        widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        rect = rect.intersected(QtCore.QRect(
            parent.mapTo(window, QtCore.QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return rect.intersected(window.rect()).isValid()


def _where(widget):
    names = []
    while widget is not None:
        names.append(widget.objectName() or type(widget).__name__)
        widget = widget.parentWidget()
    return "/".join(reversed(names[:4]))


def _advance(metrics, text):
    return max(metrics.horizontalAdvance(line) for line in text.split("\n"))


def _texts(widget):
    metrics = widget.fontMetrics()
    style = widget.style()
    if isinstance(widget, QtWidgets.QLabel):
        if widget.wordWrap() or widget.textFormat() == \
                QtCore.Qt.TextFormat.RichText or \
                QtGui.Qt.mightBeRichText(widget.text()) or \
                widget.pixmap() is not None and not widget.pixmap().isNull():
            return
        room = widget.contentsRect().width() - 2 * widget.margin() - \
            max(widget.indent(), 0)
        yield widget.text(), _advance(metrics, widget.text()), room
    elif isinstance(widget, QtWidgets.QComboBox) and not widget.isEditable():
        option = QtWidgets.QStyleOptionComboBox()
        widget.initStyleOption(option)
        field = style.subControlRect(
            QtWidgets.QStyle.ComplexControl.CC_ComboBox, option,
            QtWidgets.QStyle.SubControl.SC_ComboBoxEditField, widget)
        text = option.currentText
        yield text, metrics.horizontalAdvance(text), field.width()
    elif isinstance(widget, QtWidgets.QAbstractButton) and \
            not isinstance(widget, QtWidgets.QComboBox):
        text = widget.text().replace("&&", "\0").replace("&", "") \
            .replace("\0", "&")
        if not text:
            return
        hint = widget.sizeHint().width()
        # the style's own size for the text: a button narrower than its
        # hint shows its text cut
        yield text, hint, widget.width()
    elif isinstance(widget, QtWidgets.QTabBar):
        for index in range(widget.count()):
            rect = widget.tabRect(index)
            if rect.right() < 0 or rect.left() > widget.width():
                continue
            needed = widget.tabSizeHint(index).width() \
                if widget.elideMode() != QtCore.Qt.TextElideMode.ElideNone \
                else 0
            yield widget.tabText(index), needed, rect.width()
    elif isinstance(widget, QtWidgets.QGroupBox) and widget.title():
        yield widget.title(), metrics.horizontalAdvance(widget.title()) + \
            2 * metrics.averageCharWidth(), widget.width()
    elif isinstance(widget, QtWidgets.QHeaderView):
        yield from _header_texts(widget)
    elif isinstance(widget, QtWidgets.QAbstractItemView) and \
            widget.model() is not None and \
            not isinstance(widget, QtWidgets.QListView):
        yield from _cell_texts(widget)


def _header_texts(header):
    model = header.model()
    if model is None:
        return
    metrics = header.fontMetrics()
    horizontal = header.orientation() == QtCore.Qt.Orientation.Horizontal
    margin = header.style().pixelMetric(
        QtWidgets.QStyle.PixelMetric.PM_HeaderMargin, None, header)
    for section in range(header.count()):
        if header.isSectionHidden(section):
            continue
        position = header.sectionViewportPosition(section)
        size = header.sectionSize(section)
        if position + size <= 0 or position >= (
                header.width() if horizontal else header.height()):
            continue
        text = model.headerData(section, header.orientation(),
                                QtCore.Qt.ItemDataRole.DisplayRole)
        if text is None:
            continue
        text = str(text)
        width = size if horizontal else header.width()
        if header.defaultAlignment() & QtCore.Qt.TextFlag.TextWordWrap:
            # wrapped: its lines' height against the section's
            lines = metrics.boundingRect(
                QtCore.QRect(0, 0, max(width - 2 * margin, 1), 100000),
                int(QtCore.Qt.TextFlag.TextWordWrap), text)
            widest_word = max(metrics.horizontalAdvance(w)
                              for w in text.split())
            yield text, widest_word + 2 * margin, width
            yield text, lines.height(), \
                header.height() if horizontal else size
            continue
        needed = _advance(metrics, text) + 2 * margin
        if header.isSortIndicatorShown() and \
                header.sortIndicatorSection() == section:
            needed += header.style().pixelMetric(
                QtWidgets.QStyle.PixelMetric.PM_HeaderMarkSize, None, header)
        yield text, needed, width


def _indexes(view, parent=QtCore.QModelIndex()):
    """Every index of the view's model that may show: below collapsed
    tree items none."""
    model = view.model()
    for row in range(model.rowCount(parent)):
        for column in range(model.columnCount(parent)):
            index = model.index(row, column, parent)
            yield index
            if column == 0 and isinstance(view, QtWidgets.QTreeView) and \
                    view.isExpanded(index):
                yield from _indexes(view, index)


def _cell_texts(view):
    wraps = isinstance(view, QtWidgets.QTableView) and view.wordWrap()
    if isinstance(view, QtWidgets.QTreeView) and \
            view.horizontalScrollBar().maximum() > 0:
        return   # a tree scrolled sideways shows its long items whole
    model = view.model()
    metrics = view.fontMetrics()
    margin = view.style().pixelMetric(
        QtWidgets.QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
    viewport = view.viewport().rect()
    for index in _indexes(view):
        rect = view.visualRect(index)
        if not rect.isValid() or not rect.intersects(viewport):
            continue
        text = index.data(QtCore.Qt.ItemDataRole.DisplayRole)
        if not isinstance(text, str):
            continue
        room = rect.width()
        if isinstance(view, QtWidgets.QTreeView) and \
                index.column() == model.columnCount(index.parent()) - 1:
            room = viewport.right() - rect.left()
        decoration = index.data(QtCore.Qt.ItemDataRole.DecorationRole)
        extra = view.iconSize().width() + 4 if decoration else 0
        check = index.data(QtCore.Qt.ItemDataRole.CheckStateRole)
        if check is not None:
            extra += view.style().pixelMetric(
                QtWidgets.QStyle.PixelMetric.PM_IndicatorWidth, None, view) + 4
        if wraps:   # its lines' height against the row's
            lines = metrics.boundingRect(
                QtCore.QRect(0, 0, max(room - 2 * margin - extra, 1), 100000),
                int(QtCore.Qt.TextFlag.TextWordWrap |
                    QtCore.Qt.TextFlag.TextWrapAnywhere), text)
            yield text, lines.height(), rect.height()
            continue
        yield text, _advance(metrics, text) + 2 * margin + extra, room
