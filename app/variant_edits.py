"""What the session's variant commands change, without Qt: a variant's
changes after an edit made to it (TOML has no null), the document a
variant shows, a free variant name, and the repair of variants that a
base edit of a team's policy or switch mode would break."""

import copy
import re
from dataclasses import dataclass

from app.new_entries import policy_changes
from app.schema_fields import free_name, without_none
from models.scenario import ScenarioError, get_path, parse_path, set_path

#: A base change that can break a variant's own team policy.
_TEAM_MODE_PATH = re.compile(r"teams\[\d+\]\.(policy|switch_mode)")


def free_variant_name(scenario, stem):
    """A variant name not taken yet ("Variant 2", "Variant 3"…)."""
    return free_name(stem, {v.name for v in scenario.variants},
                     separator=" ")


def dumped(variants):
    """Variants as the plain data of the document's ``variants`` list."""
    return [v.model_dump(mode="json") for v in variants]


def variant_data(scenario, index):
    """Plain data of the base (``index`` None) or of its variant number
    ``index`` resolved against it; a change that no longer fits the base
    is left out."""
    data = scenario.model_dump(mode="json")
    if index is None:
        return data
    for path, value in scenario.variants[index].set.items():
        try:
            set_path(data, path, copy.deepcopy(value))
        except KeyError:
            pass
    return data


def overrides_after_edit(scenario, index, changes):
    """The changes of variant ``index`` after ``{path: value}`` was edited
    in it: a value equal to the base's drops the variant's change; a None
    inside an entry sets the entry whole without that field (TOML has no
    null, the field then takes its default); a field inside an entry the
    variant sets whole changes that entry."""
    overrides = dict(scenario.variants[index].set)
    shown = variant_data(scenario, index)
    for path, value in changes.items():
        try:
            same = scenario.value_at(path) == value
        except KeyError:
            same = False
        if same:
            overrides.pop(path, None)
        elif value is None and "." in path:
            set_path(shown, path, None)
            entry = path.rsplit(".", 1)[0]
            overrides = {k: v for k, v in overrides.items()
                         if not k.startswith(entry + ".")}
            overrides[entry] = without_none(get_path(shown, entry))
        else:
            whole = next((k for k, v in overrides.items()
                          if path.startswith(k + ".")
                          and isinstance(v, dict)), None)
            if whole is None:
                overrides[path] = value
            else:
                overrides[whole] = _with_field(
                    overrides[whole], path[len(whole) + 1:], value)
    return overrides


def _with_field(entry, path, value):
    """A copy of a variant's whole entry with ``path`` (relative to it)
    set, the field added when the entry left it out (a None default has
    no TOML form)."""
    entry = copy.deepcopy(entry)
    node, keys = entry, parse_path(path)
    for key in keys[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) \
            else node[key]
    node[keys[-1]] = value
    return entry


def covering_overrides(variant, path):
    """The keys of a variant's changes that set ``path``: the path itself
    or an entry or list holding it."""
    return [k for k in variant.set
            if path == k or path.startswith((k + ".", k + "["))]


def recommendation_stem(recommendation):
    """A variant name for a recommendation ('advice.network.mtu' →
    'network mtu')."""
    return recommendation.id.removeprefix("advice.").replace(".", " ") \
        .replace("_", " ")


@dataclass(frozen=True)
class VariantRepair:
    """A refused base edit made valid by updating the variants it broke."""

    #: The base edit plus the updated ``variants`` list.
    changes: dict
    #: Why the edit alone was refused.
    error: ScenarioError
    #: Names of the variants the edit alone breaks, as the error names them.
    broken: tuple
    #: ``(variant name, 'path = value')`` of every switch mode set.
    fixes: tuple


def repair_variants(base, changes, err):
    """The repair of a base edit refused with ``err`` because a variant's
    own team policy needs another switch mode than the base's new one:
    each such variant gets the switch mode its policy needs. None when
    that does not make every variant valid (the refusal then stands)."""
    teams = {parse_path(p)[1] for p in changes if _TEAM_MODE_PATH.fullmatch(p)}
    if not teams or not all(p.startswith("variants[")
                            for p, _ in err.problems):
        return None
    variants = dumped(base.variants)
    fixes = []
    for variant in variants:
        for team in teams:
            policy = variant["set"].get(f"teams[{team}].policy")
            if policy is None:
                continue
            mode_path = f"teams[{team}].switch_mode"
            mode = variant["set"].get(mode_path, changes.get(
                mode_path, base.teams[team].switch_mode))
            needed = policy_changes(f"teams[{team}]",
                                    {"switch_mode": mode}, policy)
            if mode_path in needed:
                variant["set"][mode_path] = needed[mode_path]
                fixes.append((variant["name"],
                              f"{mode_path} = {needed[mode_path]}"))
    repaired = {**changes, "variants": variants}
    try:
        base.with_values(repaired)
    except ScenarioError:
        return None
    broken = sorted({p.split("(", 1)[1].split(")", 1)[0]
                     for p, _ in err.problems if "(" in p})
    return VariantRepair(repaired, err, tuple(broken), tuple(fixes))
