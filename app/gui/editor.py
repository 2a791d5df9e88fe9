"""The scenario editor: every field the scenario schema has, grouped as an
architect thinks (scenario and goal, host, NICs, teams and policy,
network, workloads), built from the pydantic models themselves
(:mod:`app.schema_fields`), so a field added to the schema appears here
without a change.

A tree on top holds the sections and every list entry (NICs, teams, NIOC
classes, flows, transfers, migrations, evacuations and their VMs, storage
workloads); below it, the selected node's fields, each with its unit, a
tooltip saying what it means and its default, a "changed" mark and a way
back. Lists get add, duplicate, remove, move and presets.

The fields themselves are :class:`app.gui.field_editor.FieldEditor`.

The editor never changes the document itself: it emits ``edited_many``
(``{path: value}``, label) for the window to apply as one undoable step,
and ``reset_requested(path)`` for the way back. ``load`` shows a document
(the base, or a variant resolved against it) without emitting anything.
"""

import copy
import re

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.appearance import colour
from app.gui.field_editor import FieldEditor
from app.gui.grid import CheckList, GridPage
from app.grid_rows import REFERENCES, names_in
from app.new_entries import duplicate, new_entry, policy_changes
from app.variant_edits import variant_data
from app.presets import PRESETS
from app.schema_fields import (entry_name, field_label, fields_of,
                               show_value, without_none)
from models import platform
from models.scenario import (Scenario, TEAMING_POLICIES, get_path,
                             parse_path, set_path)

#: Mark of a field that differs from its default (base) or from the base
#: (variant): a sizer's "customized" state.
CHANGED_MARK = "●"

#: Top-level fields that are not edited here: the file format's version;
#: variants (the variants panel) and sweeps (the sweep view); the
#: calibration, which linkplan calibrate fits (File > Calibrate from
#: measurements… shows it, the PDF reports it).
_NOT_EDITED = ("schema_version", "variants", "sweeps", "calibration")

#: Section titles where the field name alone would not say it.
_SECTION_TITLES = {
    "meta": "Scenario", "goal": "Goal", "host": "Host", "nics": "NICs",
    "teams": "Teams and policy", "network": "Network",
    "workloads": "Workloads", "flows": "VM ports and flows",
    "profiles": "Load profiles", "transfers": "Transfers",
    "migrations": "Live migrations", "evacuations": "Host evacuations",
    "storage": "Storage workloads", "nioc": "NIOC classes", "vms": "VMs",
    "destinations": "Destinations", "offloads": "Offloads",
    "backend": "Storage back end", "dirty": "Memory dirtying",
}

#: Order of the workload lists: the traffic first, the studies after.
_WORKLOAD_ORDER = ("time_step_s", "flows", "profiles", "transfers",
                   "migrations", "evacuations", "storage")

#: Fields most studies leave at their defaults, per model: folded under
#: "More…" at the end of the form so the common ones fit 1280x800 (a
#: migration's dirty rate in view); the group opens by itself when one of
#: them is set. Everything else shows, in the schema's order.
ADVANCED_FIELDS = {
    "Migration": ("first_round_rate_cap_mib_s", "compressor_gbps",
                  "compression_threads", "compressor", "compression_data",
                  "qat_devices", "multifd", "switchover", "rdma_pin_all",
                  "max_switchover_s", "fraction_left_pct", "time_budget_s",
                  "qemu_version", "management", "max_bandwidth_mib_s"),
    "Team": ("hash", "switch_hash", "kernel_hash", "ip_hash_variant",
             "lbt_target_rule", "lbt_max_moves_per_uplink",
             "ovs_rebalance_interval_ms", "ovs_hash_basis", "tlb_order",
             "dynamic_epoch_s", "nioc_reservation"),
    "Transfer": ("stream_cap_gbps", "stream_cap_pps", "compressor_gbps",
                 "compression_threads", "compressor", "compression_data",
                 "qat_devices", "vm_vcpus", "vmmq_queue_pairs",
                 "vnic_queues"),
    "Nic": ("rss_tuned", "pcie_gen", "pcie_lanes", "pcie_max_payload_bytes",
            "pcie_slot"),
    "StorageWorkload": ("working_set_pct", "smb_encryption",
                        "sessions_per_path"),
    "Backend": ("service_time_ms", "channels"),
    "Evacuation": ("disk_copy_mib_s", "platform_limit", "cluster_limit",
                   "stop_rule", "throttling",
                   "bandwidth_per_migration_mib_s", "total_bandwidth_mib_s",
                   "time_budget_s", "setup_s", "serial_setup_s"),
    "Network": ("mtu_min", "mtu_max", "underlay_ip_version",
                "geneve_option_bytes", "frame_size_bytes"),
    "Flow": ("dst_mac", "vlan_pcp", "anti_affinity"),
    "EvacuationVm": ("disk_gib", "disk_write_mib_s"),
}

#: On/off fields side by side, where a group has at least MIN_SWITCHES
#: of them (a NIC's offloads per IP version: six)
SWITCHES_PER_ROW = 2
MIN_SWITCHES = 4

#: A choice longer than this [average characters] gets its own line
WIDE_CHOICE_CHARS = 26


#: Pixels between a form's rows: the style's 6 to 8 took a field in four
#: at 1280x800 (issue 37: a migration showed 6 of its fields).
FORM_ROW_SPACING = 2


def _form_layout():
    form = QtWidgets.QFormLayout()
    form.setVerticalSpacing(FORM_ROW_SPACING)
    form.setFieldGrowthPolicy(
        QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.DontWrapRows)
    return form


def _widest_choice(box):
    """Pixels of a combo box's longest choice (0 for other inputs)."""
    if not isinstance(box, QtWidgets.QComboBox) or \
            isinstance(box, CheckList) or box.count() == 0:
        return 0
    return max(box.fontMetrics().horizontalAdvance(box.itemText(i))
               for i in range(box.count()))


def _ordered(model, specs):
    if model.__name__ != "Workloads":
        return specs
    rank = {name: i for i, name in enumerate(_WORKLOAD_ORDER)}
    return sorted(specs, key=lambda s: rank.get(s.name, len(rank)))


def _title(name):
    return _SECTION_TITLES.get(name, field_label(name))


class FormPage(QtWidgets.QWidget):
    """The fields of one model at ``path``, nested models as groups; lists
    of models are the tree's, not the form's."""

    def __init__(self, model, path, parent=None):
        super().__init__(parent)
        self.fields = {}
        self.model = model
        self.path = path
        self.folded = {}   # "More…" button -> the field paths it folds
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        self._add_fields(layout, model, path)
        layout.addStretch(1)

    def _add_fields(self, layout, model, path):
        folded = ADVANCED_FIELDS.get(model.__name__, ())
        specs = list(_ordered(model, fields_of(model)))
        switches = [s for s in specs
                    if s.kind == "bool" and s.name not in folded]
        if len(switches) < MIN_SWITCHES:
            switches = []
        form = _form_layout()
        layout.addLayout(form)
        more = None   # (button, form) of the folded fields
        grid = None   # the on/off fields, two to a row
        for spec in specs:
            if model is Scenario and spec.name in _NOT_EDITED:
                continue
            field_path = f"{path}.{spec.name}" if path else spec.name
            if spec.kind == "models":
                continue   # a node of the tree
            if spec.kind == "model":
                group = QtWidgets.QGroupBox(_title(spec.name))
                group.setToolTip(spec.description or
                                 (spec.detail.__doc__ or "").strip())
                inner = QtWidgets.QVBoxLayout(group)
                inner.setContentsMargins(6, 0, 6, 2)
                self._add_fields(inner, spec.detail, field_path)
                layout.addWidget(group)
                # the fields after it below it: the schema's order (a
                # migration's dirty rate beside its memory, in view)
                form = _form_layout()
                layout.addLayout(form)
                continue
            if spec.kind == "any":
                continue   # free-form values (variant changes, sweeps)
            if spec in switches:
                if grid is None:   # where the first of them is
                    grid = QtWidgets.QGridLayout()
                    grid.setVerticalSpacing(FORM_ROW_SPACING)
                    grid.setHorizontalSpacing(8)
                    form.addRow(grid)
                self._add_switch(grid, switches.index(spec), spec,
                                 field_path, model)
                continue
            if spec.name in folded and more is None:
                more = self._more_section(layout)
            self._add_row(more[1] if spec.name in folded else form, spec,
                          field_path, model)
            if spec.name in folded:
                self.folded[more[0]].append(field_path)
        if more is not None:   # after the groups: rarely used, last
            layout.removeWidget(more[0])
            layout.removeWidget(more[0].section)
            layout.addWidget(more[0])
            layout.addWidget(more[0].section)
            more[0].setText(f"More… ({len(self.folded[more[0]])} rarely "
                            "used fields)")

    def _more_section(self, layout):
        """A folded part of the form: a button that opens it."""
        button = QtWidgets.QToolButton()
        button.setCheckable(True)
        button.setAutoRaise(True)
        button.setToolButtonStyle(
            QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        button.setArrowType(QtCore.Qt.ArrowType.RightArrow)
        button.setToolTip("Fields most studies leave at their defaults "
                          "(ADVANCED_FIELDS); opens by itself when one "
                          "is set")
        section = QtWidgets.QWidget()
        form = _form_layout()
        form.setContentsMargins(12, 0, 0, 0)
        section.setLayout(form)
        section.hide()
        button.section = section

        def toggled(on):
            section.setVisible(on)
            button.setArrowType(QtCore.Qt.ArrowType.DownArrow if on
                                else QtCore.Qt.ArrowType.RightArrow)
        button.toggled.connect(toggled)
        layout.addWidget(button)
        layout.addWidget(section)
        self.folded[button] = []
        return button, form

    def _add_switch(self, grid, index, spec, field_path, model):
        """An on/off field in the grid of its group's (a NIC's offloads):
        two to a row, half the height of one a row."""
        label, editor = self._labelled(spec, field_path, model)
        editor.unit.hide()   # on/off has no unit
        row, column = divmod(index, SWITCHES_PER_ROW)
        grid.addWidget(label, row, 2 * column)
        grid.addWidget(editor, row, 2 * column + 1)
        grid.setColumnStretch(2 * column + 1, 1)

    def _labelled(self, spec, field_path, model):
        """A field's editor and its label, registered as the page's."""
        editor = FieldEditor(
            spec, field_path,
            reference=REFERENCES.get((model.__name__, spec.name)))
        label = QtWidgets.QLabel(spec.label)
        label.setWordWrap(True)   # a long name wraps, never clips
        label.setToolTip(editor.input.toolTip())
        editor.label = label
        self.fields[field_path] = editor
        return label, editor

    def _add_row(self, form, spec, field_path, model):
        label, editor = self._labelled(spec, field_path, model)
        if _widest_choice(editor.input) > \
                editor.fontMetrics().averageCharWidth() * WIDE_CHOICE_CHARS:
            # a choice as long as "Route based on physical NIC load
            # (vSphere LBT)" gets the form's whole width, under its label
            form.addRow(label)
            form.addRow(editor)
            if not spec.unit:   # no unit column to line up with here
                editor.unit.hide()
        else:
            form.addRow(label, editor)

    def load(self, data, changed):
        """Show the values of the document's plain data; ``changed(path,
        spec, value)`` says which fields to mark."""
        for path, editor in self.fields.items():
            try:
                value = get_path(data, path)
            except KeyError:   # an optional group that is not given
                value = editor.spec.default
            if editor.reference is not None:
                editor.set_choices(names_in(data, editor.reference))
            mark, resettable = changed(path, editor.spec, value)
            editor.set_value(value, mark, resettable)
            if mark:   # nothing set is folded away unseen
                for button, paths in self.folded.items():
                    if path in paths:
                        button.setChecked(True)
            if editor.spec.kind == "enum":
                editor.offer(platform.allowed_values(data, path))
            font = editor.label.font()
            if font.bold() != mark:
                font.setBold(mark)
                editor.label.setFont(font)
            text = f"{CHANGED_MARK} {editor.spec.label}" if mark \
                else editor.spec.label
            if editor.label.text() != text:
                editor.label.setText(text)


class ScenarioEditor(QtWidgets.QWidget):
    """Every field of a scenario, as a tree of sections and list entries
    and a form for the selected one."""

    #: {path: value}, label: one undoable step for the window
    edited_many = QtCore.Signal(dict, str)
    #: a field's way back: to its default (base) or to the base (variant)
    reset_requested = QtCore.Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._data = None          # plain data of the document shown
        self._defaults_only = True  # base: changed = differs from default
        self._overrides = {}       # variant: its changes {path: value}
        self._signature = None
        self._page = None
        self._items = {}           # tree node path -> item
        self.variant = None        # index of the variant shown, or None
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.heading = QtWidgets.QLabel()
        self.heading.setWordWrap(True)
        layout.addWidget(self.heading)

        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setToolTip("The scenario's sections and list entries: "
                             "select one to edit its fields")
        self.tree.currentItemChanged.connect(self._node_selected)

        actions = QtWidgets.QHBoxLayout()
        actions.setSpacing(2)
        self.buttons = {}
        for key, text, tip in (
                ("add", "Add", "A new entry in this list"),
                ("duplicate", "Duplicate", "A copy of this entry"),
                ("remove", "Remove", "Remove this entry"),
                ("up", "▲", "Move this entry up"),
                ("down", "▼", "Move this entry down")):
            button = self.buttons[key] = QtWidgets.QToolButton()
            button.setText(text)
            button.setToolTip(f"{tip} (undoable)")
            button.clicked.connect(getattr(self, f"_{key}"))
            actions.addWidget(button)
        self.preset = QtWidgets.QComboBox()
        self.preset.setToolTip("Presets set the fields they name (undoable)")
        self.preset.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy
            .AdjustToMinimumContentsLengthWithIcon)
        self.preset.setMinimumContentsLength(10)
        self.preset.activated.connect(self._preset_chosen)
        actions.addWidget(self.preset, 1)

        self.refusal = QtWidgets.QLabel()
        self.refusal.setWordWrap(True)
        self.refusal.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.refusal.hide()

        self.scroll = QtWidgets.QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(
            QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lower = QtWidgets.QWidget()
        lower_layout = QtWidgets.QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(actions)
        lower_layout.addWidget(self.refusal)
        lower_layout.addWidget(self.scroll, 1)
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(lower)
        # a taller window lengthens the tree too (a 1080-line screen: 17
        # rows beside a migration's 17 common fields), the form more
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setSizes([170, 290])   # what 1280x800 leaves
        layout.addWidget(self.splitter, 1)
        self._marked = []
        self._pending = {}         # refused values waiting for a sibling
        self._grid_windows = {}    # list path -> its grid's own window

    # -- showing a document ---------------------------------------------

    def load(self, scenario, variant=None):
        """Show the base scenario, or its variant number ``variant``
        resolved against it; nothing is emitted."""
        data = variant_data(scenario, variant)
        if variant is None:
            self._overrides = {}
            self.heading.setText(f"Editing the <b>base</b>: {CHANGED_MARK} "
                                 "set away from its default")
            self.heading.setToolTip("Edits change the base, and every "
                                    "variant that does not set the field")
        else:
            chosen = scenario.variants[variant]
            self._overrides = dict(chosen.set)
            # one line: the fields below get the room
            self.heading.setText(
                f"Editing variant <b>{chosen.name}</b>: {CHANGED_MARK} "
                "differs from the base, ↺ takes it back")
            self.heading.setToolTip("Edits change this variant only")
        self.variant = variant
        self._data = data
        for window in self._grid_windows.values():
            window.page.load(data)
        signature = self._tree_signature(data)
        same_nodes = self._signature is not None and \
            [p for p, _ in signature] == [p for p, _ in self._signature]
        self._signature = signature
        if not same_nodes:
            self._rebuild_tree(data)
            return
        for path, label in signature:   # a renamed entry: its label only
            if self._items[path].text(0) != label:
                self._items[path].setText(0, label)
        if self._page is not None:
            self._page.load(data, self._changed)

    def shown_data(self):
        """Plain data of the document shown (a variant resolved)."""
        return self._data

    def _tree_signature(self, data):
        return tuple(self._tree_nodes(Scenario, data, ""))

    def _tree_nodes(self, model, data, prefix):
        """(path, label) of every node below ``model``'s data."""
        for spec in _ordered(model, fields_of(model)):
            if model is Scenario and spec.name in _NOT_EDITED:
                continue
            path = f"{prefix}{spec.name}"
            if spec.kind == "models":
                entries = (data or {}).get(spec.name) or []
                yield path, f"{_title(spec.name)} ({len(entries)})"
                for i, entry in enumerate(entries):
                    yield from [(f"{path}[{i}]",
                                 entry_name(entry) or f"#{i + 1}")]
                    yield from self._tree_nodes(spec.detail, entry,
                                                f"{path}[{i}].")
            elif spec.kind == "model" and model is Scenario:
                yield path, _title(spec.name)
                yield from self._tree_nodes(spec.detail,
                                            (data or {}).get(spec.name),
                                            f"{path}.")

    def _rebuild_tree(self, data):
        current = self.current_path()
        previous = self._items
        expanded = {path for path, item in previous.items()
                    if item.isExpanded()}
        self.tree.blockSignals(True)
        try:
            self.tree.clear()
            self._items = {}
            for path, label in self._tree_nodes(Scenario, data, ""):
                parent_path = _parent_node(path)
                parent = self._items.get(parent_path)
                item = QtWidgets.QTreeWidgetItem([label])
                item.setData(0, _PATH, path)
                if parent is None:
                    self.tree.addTopLevelItem(item)
                else:
                    parent.addChild(item)
                self._items[path] = item
            # sections and lists open, entries closed, as the user left
            for path, item in self._items.items():
                item.setExpanded(path in expanded or path not in previous
                                 and not path.endswith("]"))
        finally:
            self.tree.blockSignals(False)
        self._page = None
        self.select(current if current in self._items else
                    _parent_node(current) if current and
                    _parent_node(current) in self._items else "network")

    # -- the selected node ----------------------------------------------

    def current_path(self):
        item = self.tree.currentItem()
        return item.data(0, _PATH) if item is not None else None

    def select(self, path):
        """Show the node at ``path`` (``'nics[1]'``, ``'network'``,
        ``'workloads.flows'``)."""
        item = self._items[path]
        if self.tree.currentItem() is item:
            self._show_node(path)
        else:
            self.tree.setCurrentItem(item)

    def _node_selected(self, item, _previous):
        if item is not None:
            self._show_node(item.data(0, _PATH))

    def _node_model(self, path):
        """(model class, is a list node) of a tree node's path."""
        model, is_list = Scenario, False
        for key in parse_path(path):
            if isinstance(key, int):
                is_list = False
                continue
            spec = next(s for s in fields_of(model) if s.name == key)
            model, is_list = spec.detail, spec.kind == "models"
        return model, is_list

    def _show_node(self, path):
        model, is_list = self._node_model(path)
        self.clear_refusal()
        if is_list:
            page = self._page = self._grid_page(model, path)
            page.window_requested.connect(self.open_grid_window)
        else:
            page = self._page = FormPage(model, path)
            for editor in page.fields.values():
                editor.committed.connect(self._field_committed)
                editor.reset_clicked.connect(self.reset_requested)
            page.load(self._data, self._changed)
        self.scroll.setWidget(page)
        in_list = is_list or path.endswith("]")
        entry = path.endswith("]")
        self.buttons["add"].setEnabled(in_list)
        for key in ("duplicate", "remove", "up", "down"):
            self.buttons[key].setEnabled(entry)
        self.preset.blockSignals(True)
        self.preset.clear()
        presets = PRESETS.get(model.__name__, ()) if in_list else ()
        rules = platform.allowed_values(
            self._data, "workloads.migrations[0].stop_rule")
        # migration presets of the host's own hypervisor only
        presets = [p for p in presets if p[1].get("stop_rule") in
                   (None,) + rules]
        self.preset.addItem("Add from preset…" if is_list
                            else "Apply preset…" if presets
                            else "No presets", None)
        for label, values, source in presets:
            self.preset.addItem(label, values)
            self.preset.setItemData(self.preset.count() - 1, source,
                                    QtCore.Qt.ItemDataRole.ToolTipRole)
        self.preset.setEnabled(bool(presets))
        self.preset.blockSignals(False)

    # -- lists as tables (app.gui.grid) ---------------------------------

    def _grid_page(self, model, list_path):
        """The grid of a list node, editing through this editor."""
        title = self._node_text(list_path).split(" (")[0]
        page = GridPage(model, list_path, title,
                        lambda siblings, data: new_entry(model, siblings,
                                                          data))
        page.edited.connect(self._grid_edited)
        page.refused.connect(self.show_refusal)
        page.load(self._data)
        return page

    def _grid_edited(self, list_path, entries, label):
        self._set_list(list_path, entries, label)

    def open_grid_window(self, list_path):
        """The grid of ``list_path`` in a window of its own (wide lists at
        a glance), kept in step with the document; returns its page."""
        window = self._grid_windows.get(list_path)
        if window is None:
            model, _ = self._node_model(list_path)
            window = QtWidgets.QDialog(self.window())
            window.setWindowTitle(f"{self._node_text(list_path)} — table")
            window.page = self._grid_page(model, list_path)
            window.page.buttons["window"].hide()
            QtWidgets.QVBoxLayout(window).addWidget(window.page)
            screen = (self.screen() or
                      QtGui.QGuiApplication.primaryScreen()).availableGeometry()
            window.resize(screen.width() * 4 // 5, screen.height() * 2 // 3)
            window.finished.connect(
                lambda _: self._grid_windows.pop(list_path, None))
            self._grid_windows[list_path] = window
        window.show()
        window.raise_()
        return window.page

    def field(self, path):
        """The field editor of ``path`` on the shown form (tests,
        scripts); selects the node that holds it first."""
        if self._page is None or path not in self._page.fields:
            node = path
            while node not in self._items or \
                    self._node_model(node)[1]:
                if "." not in node:
                    raise KeyError(f"no field {path!r} in the editor")
                node = node.rsplit(".", 1)[0]
            self.select(node)
        return self._page.fields[path]

    def _changed(self, path, spec, value):
        """(marked, resettable) of a field: base: set away from its
        default; variant: changed by the variant."""
        if self.variant is None:
            differs = not spec.required and value != spec.default
            return differs, differs
        overridden = any(path == key or path.startswith((key + ".",
                                                         key + "["))
                         for key in self._overrides)
        return overridden, overridden

    # -- edits -----------------------------------------------------------

    def _field_committed(self, path, value):
        label = field_label(path.rsplit(".", 1)[-1])
        where = _parent_node(path)
        changes = {p: v for p, v in self._pending.items()
                   if _parent_node(p) == where}
        changes[path] = value
        if re.fullmatch(r"teams\[\d+\]\.policy", path):
            changes = policy_changes(where, get_path(self._data, where),
                                     value)
            value = TEAMING_POLICIES[value][0]
        # an entry is named ("Set Speed of nic1 to 25"); a section is not
        of = f" of {self._node_text(where)}" if where.endswith("]") else ""
        self._emit(changes,
                   f"Set {label}{of} to {show_value(value) or 'default'}")

    def _emit(self, changes, label):
        # an optional group left out (the goal) is given whole
        data = self._data
        whole = {}
        for path, value in changes.items():
            head = parse_path(path)[0]
            if head in data and data[head] is None:
                spec = next(s for s in fields_of(Scenario) if s.name == head)
                group = {s.name: s.default for s in fields_of(spec.detail)
                         if s.default is not None}
                set_path({head: group}, path, value)
                whole[head] = group
            else:
                whole[path] = value
        self.edited_many.emit(whole, label)

    def _node_text(self, path):
        item = self._items.get(path)
        if item is None:
            return path
        text = item.text(0)
        parent = item.parent()
        return f"{parent.text(0).split(' (')[0]} {text}" \
            if parent is not None and path.endswith("]") else text

    def _list_of(self):
        """(list path, entries, index or None, model) of the node shown."""
        path = self.current_path()
        model, is_list = self._node_model(path)
        if is_list:
            return path, list(get_path(self._data, path) or []), None, model
        list_path, index = path.rsplit("[", 1)
        return (list_path, list(get_path(self._data, list_path)),
                int(index.rstrip("]")), model)

    def _set_list(self, list_path, entries, label, select=None):
        # a variant holds the list whole, in TOML: no null in its entries
        self.edited_many.emit({list_path: without_none(entries)}, label)
        if select is not None and f"{list_path}[{select}]" in self._items:
            self.select(f"{list_path}[{select}]")

    def _add(self):
        list_path, entries, index, model = self._list_of()
        entry = new_entry(model, entries, self._data)
        entries.append(entry)
        self._set_list(list_path, entries,
                       f"Add {entry_name(entry)} to "
                       f"{self._node_text(list_path).split(' (')[0]}",
                       len(entries) - 1)

    def _duplicate(self):
        list_path, entries, index, model = self._list_of()
        twin = duplicate(model, entries[index], entries)
        entries.insert(index + 1, twin)
        self._set_list(list_path, entries,
                       f"Duplicate {entry_name(entries[index])}", index + 1)

    def _remove(self):
        list_path, entries, index, _ = self._list_of()
        removed = entries.pop(index)
        self._set_list(list_path, entries,
                       f"Remove {entry_name(removed) or f'#{index + 1}'}")

    def _move(self, step):
        list_path, entries, index, _ = self._list_of()
        other = index + step
        if not 0 <= other < len(entries):
            return
        entries[index], entries[other] = entries[other], entries[index]
        self._set_list(list_path, entries,
                       f"Move {entry_name(entries[other])} "
                       f"{'up' if step < 0 else 'down'}", other)

    def _up(self):
        self._move(-1)

    def _down(self):
        self._move(1)

    def _preset_chosen(self, index):
        values = self.preset.itemData(index)
        name = self.preset.itemText(index)
        self.preset.setCurrentIndex(0)
        if values is None:
            return
        list_path, entries, entry_index, model = self._list_of()
        if entry_index is None:   # on the list: a new entry from it
            entry = new_entry(model, entries, self._data)
            entry.update(copy.deepcopy(values))
            entries.append(entry)
            self._set_list(list_path, entries, f"Add {name}",
                           len(entries) - 1)
            return
        prefix = f"{list_path}[{entry_index}]"
        self._emit({f"{prefix}.{key}": value
                    for key, value in values.items()},
                   f"Apply preset {name} to "
                   f"{entry_name(entries[entry_index])}")

    def apply_preset(self, name):
        """Choose the preset called ``name`` on the shown node (tests)."""
        self._preset_chosen(self.preset.findText(name))

    # -- refusals --------------------------------------------------------

    def show_refusal(self, message, changes=(), problems=()):
        """A refused edit: the message on the fields of ``changes``
        (paths, or {path: value}) that are shown, else above the form,
        until the next good edit or another node is shown.

        A value refused only because it does not fit a sibling (the
        problem is the entry's, as t_s and scale of a load profile must
        have as many points) stays typed in its field and goes in with
        the next change of the same entry."""
        self.clear_refusal()
        shown = [self._page.fields[p] for p in changes
                 if self._page is not None and p in self._page.fields]
        entries = {path for path, _ in problems}
        for editor in shown:
            if isinstance(changes, dict) and \
                    _parent_node(editor.path) in entries:
                self._pending[editor.path] = changes[editor.path]
                editor.show_pending(changes[editor.path])
                editor.show_error(f"{message} — kept here, it goes in with "
                                  "your next change of this entry")
            else:
                editor.show_error(message)
            self._marked.append(editor)
        if not shown:
            self.refusal.setText(f"Not applied: {message}")
            self.refusal.setStyleSheet(f"color: {colour('error')};")
            self.refusal.show()

    def refusal_text(self):
        """Every refusal message shown (tests)."""
        texts = [e.error.text() for e in self._marked]
        if self.refusal.isVisibleTo(self):
            texts.append(self.refusal.text())
        return "\n".join(texts)

    def clear_refusal(self):
        """Remove the refusal messages and marks (after a good edit)."""
        self.refusal.clear()
        self.refusal.hide()
        self._pending = {}
        for editor in self._marked:
            editor.clear_error()
        self._marked = []


_PATH = QtCore.Qt.ItemDataRole.UserRole


def _parent_node(path):
    """The tree node above ``path``: 'nics' for 'nics[0]', 'nics[0]' for
    'nics[0].speed_gbps', 'workloads' for 'workloads.flows'."""
    if path is None:
        return None
    if path.endswith("]"):
        return path[:path.rindex("[")]
    return path.rsplit(".", 1)[0] if "." in path else None
