"""Variants: the base scenario and each named variant of it as documents of
their own, resolved once per live scenario (a module-level cache)."""

import weakref

from pydantic import ValidationError

from models.scenario.errors import ScenarioError, problems
from models.scenario.paths import set_path

#: Name of the unmodified base scenario among the compared variants.
BASE_NAME = "Base"


#: The resolved variants of each live scenario, by ``id``, with a weak
#: reference that tells a live one from a later object of the same id:
#: a scenario is frozen, and resolving validates every variant, which a
#: loaded file has already paid once (:func:`scenario_from_dict` resolves
#: them all to check them).
_RESOLVED = {}


def variant_documents(scenario):
    """The base and every variant of a scenario, each as a scenario without
    variants (:meth:`Scenario.variant_documents`).

    Returns
    -------
    list of (str, Scenario)
        ``(BASE_NAME, base)`` first, then one entry per variant in file
        order.

    Raises
    ------
    ScenarioError
        A variant whose changes do not make a valid document.
    """
    key = id(scenario)
    known = _RESOLVED.get(key)
    if known is not None and known[0]() is scenario:
        return list(known[1])
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    resolved = [(BASE_NAME, base)]
    for index, variant in enumerate(scenario.variants):
        resolved.append((variant.name,
                         resolve_variant(base, index, variant)))
    _RESOLVED[key] = (weakref.ref(scenario,
                                  lambda _: _RESOLVED.pop(key, None)),
                      tuple(resolved))
    return resolved


def resolve_variant(base, index, variant):
    """The base scenario (without variants) with one variant's changes
    applied and validated; ``index`` is the variant's place in the file,
    for the error messages."""
    # Only the top-level fields a change touches are dumped and validated
    # again; the others are the base's validated objects, which pydantic
    # takes as they are (it does not revalidate model instances), and the
    # document's own checks (cross-references) run on the whole.
    document = type(base)
    touched = {path.split(".", 1)[0].split("[", 1)[0] for path in variant.set}
    data = base.model_dump(mode="json", include=touched)
    prefix = f"variants[{index}] ({variant.name!r})"
    for path, value in variant.set.items():
        try:
            set_path(data, path, value)
        except KeyError as err:
            raise ScenarioError([(f'{prefix}.set."{path}"',
                                  err.args[0])]) from None
    kept = {name: getattr(base, name) for name in document.model_fields
            if name not in data}
    try:
        return document.model_validate({**kept, **data})
    except ValidationError as err:
        # a check of the whole document has no field path of its own
        raise ScenarioError([(f"{prefix}: {path}" if path else prefix,
                              message)
                             for path, message in problems(err)]) from None
