"""Parameter paths: dotted field names with list indices
(``network.mtu``, ``nics[1].speed_gbps``), read and set in plain-data
documents. Variants, sweeps and recommendations name parameters by them."""

import re


_PATH_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")


def parse_path(path):
    """Split ``'nics[1].speed_gbps'`` into ``['nics', 1, 'speed_gbps']``.

    Raises
    ------
    KeyError
        If the path is not of that form.
    """
    if not isinstance(path, str) or not path:
        raise KeyError(f"parameter path must be a non-empty string, "
                       f"got {path!r}")
    keys = []
    for part in path.split("."):
        match = _PATH_TOKEN.fullmatch(part)
        if match is None:
            raise KeyError(f"malformed parameter path {path!r}: expected "
                           "names and [index] separated by dots, e.g. "
                           "'nics[1].speed_gbps'")
        keys.append(match.group(1))
        keys.extend(int(i) for i in re.findall(r"\[(\d+)\]", match.group(2)))
    return keys


def _walk(data, keys, path):
    node = data
    for depth, key in enumerate(keys):
        where = format_keys(keys[:depth]) or "the scenario"
        if isinstance(key, int):
            if not isinstance(node, list):
                raise KeyError(f"unknown parameter path {path!r}: {where} "
                               "is not a list")
            if key >= len(node):
                raise KeyError(f"unknown parameter path {path!r}: {where} "
                               f"has {len(node)} entries, no index {key}")
        elif not isinstance(node, dict) or key not in node:
            raise KeyError(f"unknown parameter path {path!r}: {where} has "
                           f"no field {key!r}")
        if depth < len(keys) - 1:
            node = node[key]
    return node


def get_path(data, path):
    """Read the value at a parameter path in a plain-data document."""
    keys = parse_path(path)
    return _walk(data, keys, path)[keys[-1]]


def set_path(data, path, value):
    """Set the value at a parameter path in a plain-data document, in place.

    Raises
    ------
    KeyError
        If the path does not name an existing field.
    """
    keys = parse_path(path)
    _walk(data, keys, path)[keys[-1]] = value


def format_keys(keys):
    text = ""
    for key in keys:
        if isinstance(key, int):
            text += f"[{key}]"
        elif isinstance(key, str) and _PATH_TOKEN.fullmatch(key):
            text += f".{key}" if text else key
        else:
            text += f'."{key}"' if text else f'"{key}"'
    return text
