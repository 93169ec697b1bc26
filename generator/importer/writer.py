"""Spec data -> YAML that reads like the hand-written specs.

PyYAML's dumper cannot mix styles the way the specs do (flow style for short lists and maps, block
literals for code and HTML, blank lines between groups), so the spec is written here field by field;
`dump_spec` then parses its own output and insists on getting the same data back.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any, Dict, List

import yaml

WIDTH = 100
_GROUPS = [
    ["id", "slug", "directory", "name", "difficulty", "access_tier", "num_gpus", "atol", "rtol"],
    ["signature"],
    ["reference_helpers"],
    ["reference"],
    ["reference_jax", "exploded_reference_jax"],
    ["description", "svg", "after_svg"],
    ["requirements"],
    ["constraints"],
    ["example", "examples"],
    ["prefill"],
    ["scaffold"],
    ["starter_helpers"],
    ["exploded_solve"],
    ["kept_starters"],
    ["defaults"],
    ["functional"],
    ["performance"],
    ["page"],
    ["sections"],
    ["tolerated_rules"],
]


class WriteError(Exception):
    """The YAML written does not read back as the data it was written from (a writer bug)."""


def number(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    if exponent and "." not in mantissa:
        text = f"{mantissa}.0e{exponent}"  # YAML 1.1 reads 1e-05 as a string
    return text


#: the safe loader, in C where PyYAML has libyaml: the writer reads back every value it writes
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read(text: str) -> Any:
    """`text` as yaml.safe_load reads it."""
    return yaml.load(text, Loader=_SAFE_LOADER)


@functools.lru_cache(maxsize=4096)
def _reads_back(text: str, value: str, flow: bool) -> bool:
    document = f"{{k: {text}}}" if flow else f"k: {text}"
    try:
        return _read(document) == {"k": value}
    except yaml.YAMLError:
        return False


def string(value: str, flow: bool = False) -> str:
    """Plain when YAML reads it back unchanged, else quoted."""
    if value and value == value.strip() and "\n" not in value and _reads_back(value, value, flow):
        return value
    if "\n" not in value and value.isprintable():
        quoted = "'" + value.replace("'", "''") + "'"
        if _reads_back(quoted, value, flow):
            return quoted
    return json.dumps(value, ensure_ascii=False)


def flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{string(k, True)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    if isinstance(value, str):
        return string(value, flow=True)
    if value is None:
        return "null"
    return number(value)


def _wrapped_list(prefix: str, items: List[Any], indent: int) -> List[str]:
    """`prefix[a, b, ...]` across lines of at most WIDTH characters."""
    tokens = [flow(v) for v in items]
    lines: List[str] = []
    current, empty = prefix + "[", True
    for i, token in enumerate(tokens):
        piece = token + ("]" if i == len(tokens) - 1 else ",")
        if not empty and len(current) + 1 + len(piece) > WIDTH:
            lines.append(current)
            current, empty = " " * (indent + 2) + piece, False
            continue
        current += piece if empty else " " + piece
        empty = False
    lines.append(current)
    return lines


def value_lines(key: str, value: Any, indent: int) -> List[str]:
    """`key: value` as one flow line when it fits, else nested blocks (an input's code of
    several lines as a literal block)."""
    pad = " " * indent
    prefix = f"{pad}{string(key)}: "
    if isinstance(value, str) and key == "code" and "\n" in value.rstrip("\n"):
        return [pad + line if line else "" for line in block(string(key), value)]
    if isinstance(value, str):
        return [prefix + string(value)]
    one = prefix + flow(value)
    several = _holds_block(value)
    if not several and (len(one) <= WIDTH or not isinstance(value, (dict, list)) or not value):
        return [one]
    if isinstance(value, dict):
        lines = [f"{pad}{string(key)}:"]
        for k, v in value.items():
            lines.extend(value_lines(k, v, indent + 2))
        return lines
    if all(isinstance(v, list) for v in value):
        lines = [f"{pad}{string(key)}:"]
        for row in value:
            lines.extend(_wrapped_list(f"{pad}  - ", row, indent + 2))
        return lines
    return _wrapped_list(prefix, value, indent)


def _holds_block(value: Any) -> bool:
    """Whether a mapping holds an input's code of several lines (written as a block)."""
    if not isinstance(value, dict):
        return False
    code = value.get("code")
    if isinstance(code, str) and "\n" in code.rstrip("\n"):
        return True
    return any(_holds_block(v) for v in value.values())


def block(key: str, text: str) -> List[str]:
    """A literal block (`|`) for code and HTML; quoted when a block cannot hold the text.

    `text` ends with exactly one newline, which is what a `|` block reads back as."""
    body = text[:-1] if text.endswith("\n") else text
    lines = body.split("\n")
    indicator = "|2" if lines[0][:1] in (" ", "\t") else "|"
    out = [f"{key}: {indicator}"] + [f"  {line}" if line.strip() else "" for line in lines]
    try:
        ok = bool(body.strip()) and _read("\n".join(out) + "\n") == {key: text}
    except yaml.YAMLError:
        ok = False
    return out if ok else [f"{key}: {json.dumps(text, ensure_ascii=False)}"]


def _item_lines(item: Dict[str, Any], indent: int) -> List[str]:
    """One list entry (a case, a parameter): flow on one line if short, else a block."""
    pad = " " * indent
    one = f"{pad}- {flow(item)}"
    if len(one) <= WIDTH and "note" not in item and not _holds_block(item):
        return [one]
    lines: List[str] = []
    for i, (k, v) in enumerate(item.items()):
        sub = value_lines(k, v, indent + 2)
        if i == 0:
            sub[0] = f"{pad}- " + sub[0].lstrip()
        lines.extend(sub)
    return lines


def _field(key: str, value: Any) -> List[str]:
    if key in ("reference", "reference_helpers", "reference_jax", "description", "after_svg") or (
        key == "svg" and "\n" in value
    ):
        return block(key, value)
    if key in ("starter_helpers", "kept_starters"):
        lines = [f"{key}:"]
        for language, code in value.items():
            lines.extend("  " + line if line else "" for line in block(language, code))
        return lines
    if key == "signature":
        return [f"{key}:"] + [line for p in value for line in _item_lines(p, 2)]
    if key == "functional":
        return [f"{key}:"] + [line for c in value for line in _item_lines(c, 2)]
    if key == "requirements" and isinstance(value, str):  # the section's HTML as written
        return block(key, value)
    if key in ("requirements", "constraints"):
        if not value:
            return [f"{key}: []"]
        return [f"{key}:"] + [f"  - {string(item)}" for item in value]
    if key in ("example", "defaults", "performance") and isinstance(value, dict):
        return [f"{key}:"] + _section_lines(value, 2)
    if key == "examples":
        lines = [f"{key}:"]
        for example in value:
            sub = _section_lines(example, 4)
            sub[0] = "  - " + sub[0].lstrip()
            lines.extend(sub)
        return lines
    if key == "sections":
        lines = [f"{key}:"]
        for section in value:
            sub = [f"    {k}: {flow(v)}" for k, v in section.items() if k != "html"]
            sub += ["    " + line if line else "" for line in block("html", section["html"])]
            sub[0] = "  - " + sub[0].lstrip()
            lines.extend(sub)
        return lines
    return value_lines(key, value, 0)


def _section_lines(value: Dict[str, Any], indent: int) -> List[str]:
    """The fields of an example, the defaults or the performance case, one per line (inputs and
    outputs one tensor per line)."""
    pad = " " * indent
    lines: List[str] = []
    for k, v in value.items():
        if k == "min_bytes":
            lines.append(f"{pad}{k}: {string(v)}")
        elif isinstance(v, dict) and k in ("inputs", "outputs"):
            lines.append(f"{pad}{k}:")
            for name, data in v.items():
                lines.extend(value_lines(name, data, indent + 2))
        elif k in ("display", "explanation") and isinstance(v, str) and "\n" in v.strip(" "):
            # the page's own HTML, kept as it reads
            lines.extend(pad + line if line else "" for line in block(k, v))
        else:
            lines.extend(value_lines(k, v, indent))
    return lines


def dump_spec(data: Dict[str, Any], comments: List[str]) -> str:
    """The spec as YAML text: `comments` first (each a '# ' line), then the fields in groups."""
    out: List[str] = []
    for comment in comments:
        for line in comment.splitlines() or [""]:
            out.append(f"# {line}".rstrip())
    placed = set()
    for group in _GROUPS:
        lines = []
        for key in group:
            if key in data and data[key] is not None:
                lines.extend(_field(key, data[key]))
                placed.add(key)
        if lines:
            if out and group is not _GROUPS[0]:
                out.append("")
            out.extend(lines)
    missing = set(data) - placed - {k for k, v in data.items() if v is None}
    if missing:
        raise WriteError(f"fields without a place in the spec layout: {sorted(missing)}")
    text = "\n".join(out) + "\n"
    expected = {k: v for k, v in data.items() if v is not None}
    if _read(text) != plain(expected):
        raise WriteError("the spec written does not read back as the data it was written from")
    return text


def plain(value: Any) -> Any:
    """What YAML gives back: lists for tuples."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
