"""The spec format's reference (docs/spec.md) and its JSON Schema, both made from the spec model.

The field descriptions live once, in generator/spec/model.py (`Field(description=...)`); the page
a reader reads and the schema an editor completes with are derived from them, so neither can drift
from what the loader accepts. `python -m generator.spec_docs` rewrites the committed copies
(docs/spec.md, the packaged schema, specs/'s schema); tests/test_spec_docs.py fails when one is
stale.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import typing
from importlib import resources
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Type

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from generator.naming import MODELINE, SCHEMA_NAME
from generator.spec.model import DISTRIBUTION_KINDS, Spec

DOCS_INTRO = """\
# The spec format

<!-- Generated from generator/spec/model.py by `python -m generator.spec_docs`; edit the
     field descriptions there, not this page (tests/test_spec_docs.py keeps it in sync). -->

A spec is one YAML file, `specs/<id>_<slug>.yaml`; see `specs/142_rms_norm_backward.yaml` for a
complete one. Every field is listed below with its default ("required" where it has none), in the
order of the model (`generator/spec/model.py`), each nested part in a section of its own.

**In an editor.** `chgen schema --out FILE` writes the spec format as a JSON Schema (the same file
ships inside the package, `generator/{schema}`). Every spec `chgen new` and `chgen import` write
starts with the line

```yaml
{modeline}
```

and chgen writes `{schema}` into the same folder beside it (again whenever it differs from the
installed chgen's), so an editor running the YAML language server (VS Code's YAML extension,
Neovim, Helix, JetBrains IDEs) validates the spec and completes its fields, with these
descriptions, as you type. The path is relative to the spec, not a URL or the path of an
installation, so it holds in every clone, on every machine and offline; the schema travels with
the specs it describes. The schema checks the form of each field; what spans fields (every case
gives every size, shapes evaluate to positive dimensions, the example matches the reference) is
checked by `chgen generate` and `chgen check`.
"""


def spec_schema() -> Dict[str, Any]:
    """The JSON Schema of a spec: the model's, plus `example:` as the one-example spelling."""
    schema = Spec.model_json_schema()
    schema["properties"]["example"] = {
        "$ref": "#/$defs/Example",
        "description": "one worked example: the same as `examples` holding it alone",
    }
    schema["required"] = [name for name in schema["required"] if name != "examples"]
    schema["oneOf"] = [{"required": ["examples"]}, {"required": ["example"]}]
    schema["title"] = "chgen spec"
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    return json.dumps(spec_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def packaged_schema_text() -> str:
    """The schema shipped in the wheel (generator/chgen-spec.schema.json)."""
    return resources.files("generator").joinpath(SCHEMA_NAME).read_text(encoding="utf-8")


def write_schema_beside(folder: Path) -> Optional[Path]:
    """The schema into `folder`, where a spec's modeline finds it; None when already there."""
    target = folder / SCHEMA_NAME
    text = schema_text()
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return None
    write_atomically(target, text)
    return target


def write_atomically(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(temporary, target)


# ------------------------------------------------------------------------------ the reference


def _models(annotation: Any) -> List[Type[BaseModel]]:
    """The models an annotation holds, however deep in lists, dicts, unions and Annotated."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: List[Type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found += [m for m in _models(arg) if m not in found]
    return found


def _container_suffix(annotation: Any) -> str:
    """`[]` for a list of the model, `.<name>` for a mapping of names to it."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _container_suffix(typing.get_args(annotation)[0])
    if origin in (list, List):
        return "[]"
    if origin in (dict, Dict):
        return ".<key>"
    if origin is typing.Union:
        for arg in typing.get_args(annotation):
            suffix = _container_suffix(arg)
            if suffix:
                return suffix
    return ""


def _is_distribution(model: Type[BaseModel]) -> bool:
    return getattr(model, "kind", None) in DISTRIBUTION_KINDS


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.default_factory() if info.default_factory is not None else info.default
    if isinstance(value, BaseModel):
        return "all defaults"
    if value is None or value == [] or value == {}:
        return "none"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str) and not value.strip():
        return f'`"{value}"`'
    if isinstance(value, list):
        return "`[" + ", ".join(str(v) for v in value) + "]`"
    return f"`{value}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _table(model: Type[BaseModel], name_of=lambda name: f"`{name}`") -> List[str]:
    lines = ["| field | default | meaning |", "|---|---|---|"]
    for name, info in model.model_fields.items():
        meaning = _cell(info.description or "")
        lines.append(f"| {name_of(name)} | {_default(info)} | {meaning} |")
    return lines


def _sections() -> List[Tuple[str, Type[BaseModel]]]:
    """(path, model) for every nested part of a spec, depth first in field order, each once."""
    seen = {Spec}
    order: List[Tuple[str, Type[BaseModel]]] = []

    def visit(path: str, model: Type[BaseModel]) -> None:
        for name, info in model.model_fields.items():
            for child in _models(info.annotation):
                if child in seen or _is_distribution(child):
                    continue
                seen.add(child)
                where = f"{path}.{name}" if path else name
                where += _container_suffix(info.annotation)
                order.append((where, child))
                visit(where, child)

    visit("", Spec)
    return order


def _inputs_section() -> List[str]:
    """The input forms: one row per distribution model, its one field's description."""
    from generator.spec import model as spec_model

    lines = [
        "## Inputs",
        "",
        "Each entry of a case's, the `defaults`' or the performance case's `inputs` is one of "
        "these forms; an example's inputs are literal data or one of the draws its `inputs` "
        "names.",
        "",
        "| form | meaning |",
        "|---|---|",
    ]
    for kind in DISTRIBUTION_KINDS:
        model = next(
            m
            for m in vars(spec_model).values()
            if isinstance(m, type) and issubclass(m, BaseModel) and getattr(m, "kind", 0) == kind
        )
        (field,) = model.model_fields.values()
        lines.append(f"| `{{{kind}: ...}}` | {_cell(field.description or '')} |")
    lines += ["", "`{correlated: ...}` takes:", ""]
    lines += _table(spec_model.CorrelatedArgs)
    return lines


def spec_markdown() -> str:
    """docs/spec.md: the intro, the top-level fields, then each nested part and the inputs."""
    lines = [DOCS_INTRO.format(schema=SCHEMA_NAME, modeline=MODELINE), "## Top-level fields", ""]
    lines += _table(Spec)
    for path, model in _sections():
        lines += ["", f"## `{path}`", ""]
        if model.__doc__:
            lines += [" ".join(model.__doc__.split()), ""]
        lines += _table(model)
        if path.startswith("functional"):
            lines += [""] + _inputs_section()
    return "\n".join(lines) + "\n"


#: the committed copies, relative to the repository root
COPIES = {
    "docs/spec.md": spec_markdown,
    f"generator/{SCHEMA_NAME}": schema_text,
    f"specs/{SCHEMA_NAME}": schema_text,
}


def main(argv: List[str]) -> int:
    """Rewrite the committed copies under the repository root (argv[0], default: here)."""
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    for relative, make in COPIES.items():
        write_atomically(root / relative, make())
        print(f"wrote {relative}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
