"""The scenario editor panel: the base scenario's network settings and
its first team's load-balancing policy."""

from PySide6 import QtCore, QtGui, QtWidgets

from models.scenario import TEAMING_POLICIES
from models.wire import ENCAPSULATIONS, MTU_CEILING

#: Background of a refused field (a pale tint of the charts' Okabe–Ito
#: vermilion); a palette keeps the platform's look of the field.
_REFUSED_TINT = QtGui.QColor("#F9D9C6")
_POLICY_HINT = ("Load-balancing policy of the first team; the switch mode "
                "follows when the policy needs another one")


class NetworkEditor(QtWidgets.QGroupBox):
    """Edits ``network.*`` and the first team's policy of the base
    scenario.

    Emits ``edited(path, value, label)`` when the user commits a change; the
    window turns it into an undo command. ``load`` shows a scenario without
    emitting anything.
    """

    edited = QtCore.Signal(str, object, str)
    #: several parameters that must change together: {path: value}, label
    edited_many = QtCore.Signal(dict, str)

    def __init__(self, parent=None):
        super().__init__("Network (base scenario)", parent)
        form = QtWidgets.QFormLayout(self)
        form.setFieldGrowthPolicy(
            QtWidgets.QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)

        self.mtu = QtWidgets.QSpinBox()
        # any number can be typed whole: a value the scenario's limits
        # refuse is explained on the field, never clamped or cut short
        self.mtu.setRange(1, MTU_CEILING)
        self.mtu.setSuffix(" B")
        self.mtu.setKeyboardTracking(False)  # commit on Enter/focus-out
        self.mtu.setToolTip("IP MTU: the largest IP packet, header included")
        self.mtu.valueChanged.connect(lambda v: self.edited.emit(
            "network.mtu", v, f"Set MTU to {v}"))
        form.addRow("MTU", self.mtu)

        self.ip_version = QtWidgets.QComboBox()
        for version in (4, 6):
            self.ip_version.addItem(f"IPv{version}", version)
        self.ip_version.activated.connect(lambda i: self.edited.emit(
            "network.ip_version", self.ip_version.itemData(i),
            f"Set IP version to {self.ip_version.itemText(i)}"))
        form.addRow("IP version", self.ip_version)

        self.vlan_tags = QtWidgets.QSpinBox()
        self.vlan_tags.setRange(0, 2)
        self.vlan_tags.setKeyboardTracking(False)
        self.vlan_tags.setToolTip("802.1Q tags per frame (2 = QinQ)")
        self.vlan_tags.valueChanged.connect(lambda v: self.edited.emit(
            "network.vlan_tags", v, f"Set VLAN tags to {v}"))
        form.addRow("VLAN tags", self.vlan_tags)

        self.timestamps = QtWidgets.QCheckBox("TCP timestamps")
        self.timestamps.setToolTip("12 B of TCP options on every segment")
        self.timestamps.clicked.connect(lambda on: self.edited.emit(
            "network.tcp_timestamps", on,
            f"Turn TCP timestamps {'on' if on else 'off'}"))
        form.addRow("", self.timestamps)

        self.encapsulation = QtWidgets.QComboBox()
        for kind in ENCAPSULATIONS:
            self.encapsulation.addItem(kind.upper() if kind != "none"
                                       else "None", kind)
        self.encapsulation.activated.connect(lambda i: self.edited.emit(
            "network.encapsulation", self.encapsulation.itemData(i),
            f"Set encapsulation to {self.encapsulation.itemText(i)}"))
        form.addRow("Overlay", self.encapsulation)

        self.nics = QtWidgets.QLabel()
        self.nics.setWordWrap(True)
        form.addRow("NICs", self.nics)

        self.team_policy = QtWidgets.QComboBox()
        for policy, (label, _) in TEAMING_POLICIES.items():
            self.team_policy.addItem(label, policy)
        self.team_policy.setToolTip(_POLICY_HINT)
        # the vendors' names are long: elide rather than widen the panel
        self.team_policy.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy
            .AdjustToMinimumContentsLengthWithIcon)
        self.team_policy.setMinimumContentsLength(14)
        self.team_policy.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Expanding,
            QtWidgets.QSizePolicy.Policy.Fixed)
        # the open list shows the names whole, however narrow the box
        self.team_policy.view().setMinimumWidth(
            self.team_policy.view().sizeHintForColumn(0) + 24)
        self.team_policy.activated.connect(self._policy_chosen)
        self.team_policy_label = QtWidgets.QLabel("Team policy")
        form.addRow(self.team_policy_label, self.team_policy)
        self._team = None

        #: why the last edit was refused, shown until a good edit
        self.refusal = QtWidgets.QLabel()
        self.refusal.setWordWrap(True)
        self.refusal.setStyleSheet("color: #B04000;")
        self.refusal.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.refusal.hide()
        form.addRow(self.refusal)
        self._fields = {"network.mtu": self.mtu,
                        "network.ip_version": self.ip_version,
                        "network.vlan_tags": self.vlan_tags,
                        "network.tcp_timestamps": self.timestamps,
                        "network.encapsulation": self.encapsulation,
                        "teams[0].policy": self.team_policy}
        self._tooltips = {w: w.toolTip() for w in self._fields.values()}
        self._marked = []

    def show_refusal(self, message, changes=()):
        """Explain a refused edit below the fields and mark the fields of
        ``changes`` (paths) that were refused, until the next good edit."""
        self.clear_refusal()
        self.refusal.setText(f"Not applied: {message}")
        self.refusal.show()
        for path in changes:
            widget = self._fields.get(path)
            if widget is not None:
                palette = widget.palette()
                for role in (QtGui.QPalette.ColorRole.Base,
                             QtGui.QPalette.ColorRole.Button):
                    palette.setColor(role, _REFUSED_TINT)
                widget.setPalette(palette)
                widget.setProperty("refused", True)
                widget.setToolTip(f"Not applied: {message}")
                self._marked.append(widget)

    def clear_refusal(self):
        """Remove the refusal message and marks (after a good edit)."""
        self.refusal.clear()
        self.refusal.hide()
        for widget in self._marked:
            widget.setPalette(QtGui.QPalette())   # the application's again
            widget.setProperty("refused", False)
            widget.setToolTip(self._tooltips[widget])
        self._marked = []

    def _policy_chosen(self, index):
        policy = self.team_policy.itemData(index)
        label, modes = TEAMING_POLICIES[policy]
        changes = {"teams[0].policy": policy}
        if self._team.switch_mode not in modes:
            changes["teams[0].switch_mode"] = modes[0]
        self.edited_many.emit(changes, f"Set team policy to {label}")

    def load(self, scenario):
        """Show the scenario's values without emitting ``edited``."""
        network = scenario.network
        self._team = scenario.teams[0] if scenario.teams else None
        for widget in (self.team_policy, self.team_policy_label):
            widget.setVisible(self._team is not None)
        widgets = (self.mtu, self.ip_version, self.vlan_tags,
                   self.timestamps, self.encapsulation, self.team_policy)
        for widget in widgets:
            widget.blockSignals(True)
        try:
            self.mtu.setValue(network.mtu)
            self.ip_version.setCurrentIndex(
                self.ip_version.findData(network.ip_version))
            self.vlan_tags.setValue(network.vlan_tags)
            self.timestamps.setChecked(network.tcp_timestamps)
            self.encapsulation.setCurrentIndex(
                self.encapsulation.findData(network.encapsulation))
            if self._team is not None:
                self.team_policy.setCurrentIndex(
                    self.team_policy.findData(self._team.policy))
                # the name whole where the box elides it
                tip = f"{self.team_policy.currentText()}\n\n{_POLICY_HINT}"
                self._tooltips[self.team_policy] = tip
                if self.team_policy not in self._marked:
                    self.team_policy.setToolTip(tip)
        finally:
            for widget in widgets:
                widget.blockSignals(False)
        self.nics.setText("\n".join(f"{nic.id}: {nic.speed_gbps:g} Gbit/s"
                                    for nic in scenario.nics))
