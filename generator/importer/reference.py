"""The spec's attributes, signature and reference (and reference_jax) from challenge.py's source."""

from __future__ import annotations

import ast
import re
from typing import Any, Dict, List, Optional

from generator.importer import html as page_reader
from generator.importer import pyast
from generator.importer.draft import Parameter
from generator.importer.infer import ParamInfo
from generator.importer.report import ImportFailure, Report
from generator.naming import URL_NAME_RE
from generator.spec.model import HELPER_MODULES


def attributes(source: pyast.ChallengeSource, report: Report) -> Dict[str, Any]:
    attrs = source.attrs
    name = attrs.get("name")
    if not isinstance(name, str):
        raise ImportFailure("class Challenge sets no name")
    if not URL_NAME_RE.match(name):
        cleaned = " ".join(re.sub(r"[^A-Za-z0-9 -]", " ", name).split())
        cleaned = re.sub(r" ?-+ ?", "-", cleaned).strip("-")
        if not URL_NAME_RE.match(cleaned):
            raise ImportFailure(f"name {name!r} has no URL-friendly form")
        report.note(f"name {name!r} is written {cleaned!r} (URL-friendly characters only)")
        name = cleaned
    out: Dict[str, Any] = {"name": name}
    for key in ("atol", "rtol"):
        value = attrs.get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ImportFailure(f"class Challenge sets no numeric {key}")
        out[key] = float(value)
    tier = attrs.get("access_tier", "free")
    if tier not in ("free", "premium"):
        report.note(f"access_tier {tier!r} is written 'free'")
        tier = "free"
    out["access_tier"] = tier
    gpus = attrs.get("num_gpus", 1)
    out["num_gpus"] = gpus if isinstance(gpus, int) and 1 <= gpus <= 8 else 1
    return out


def reference_text(source: pyast.ChallengeSource, params: List[ParamInfo], report: Report) -> str:
    ref = source.reference
    body = ref.body
    names = [p.name for p in params]
    if ref.params != names:
        if sorted(ref.params) == sorted(names):
            report.note("reference_impl takes the parameters in another order than solve")
        else:
            report.note(
                f"reference_impl takes ({', '.join(ref.params)}) but solve takes "
                f"({', '.join(names)}); the body is kept as written (not representable)"
            )
    imports = [
        source.imports[n]
        for n in sorted(ref.free_names)
        if n in source.imports and n not in source.helper_imports
    ]
    inside = [line for line in imports if not is_helper_import(line)]
    if inside:
        report.note(
            "reference: " + "; ".join(f"`{line}`" for line in inside) + " moved into the body "
            "(a spec's reference_helpers import math and torch modules only)"
        )
        body = "\n".join(inside) + "\n" + body
    module_level = sorted(
        n for n in ref.free_names if n in source.module_names and n not in source.helper_names
    )
    if module_level:
        report.note(
            f"reference uses module-level {', '.join(module_level)} from challenge.py, which a "
            "spec cannot carry (not representable)"
        )
    if source.helpers:
        report.note(
            f"reference helpers {', '.join(sorted(source.helper_names))} are carried over as "
            "reference_helpers"
        )
    if ref.uses_self and not _self_is_representable(ref_node(source), source.helper_names):
        report.note(
            "reference uses `self` beyond its helpers and self.device, which a spec's reference "
            "cannot (not representable)"
        )
    return body.rstrip("\n") + "\n"


def is_helper_import(line: str) -> bool:
    """An import reference_helpers may hold (math and torch modules): challenge.py keeps it at
    module level, where the author wrote it."""
    node = ast.parse(line).body[0]
    modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
    return all((m or "").split(".")[0] in HELPER_MODULES for m in modules)


def reference_helpers(source: pyast.ChallengeSource) -> Optional[str]:
    """What the reference reaches besides its body: the module imports of math and torch
    modules it names (kept at module level), then the helpers pyast found."""
    imports = [
        source.imports[n]
        for n in sorted(source.reference.free_names)
        if n in source.imports and is_helper_import(source.imports[n])
    ]
    helpers = source.helpers or ""
    missing = [line for line in imports if line not in helpers.splitlines()]
    text = "\n\n".join(part for part in ("\n".join(missing), helpers) if part)
    return text + "\n" if text else None


def reference_jax_fields(
    source: pyast.ChallengeSource, params: List[ParamInfo], report: Report
) -> Dict[str, Any]:
    """reference_impl_jax as the spec's reference_jax (its header is chgen's: the in/inout
    tensors and the scalars in solve order); empty when there is none or it takes others."""
    jax = source.reference_jax
    if jax is None:
        return {"reference_jax": None, "exploded_reference_jax": None}
    expected = [p.name for p in params if p.direction != "out"]
    if jax.params != expected:
        report.note(
            f"reference_impl_jax takes ({', '.join(jax.params)}), not the in/inout tensors and "
            f"scalars ({', '.join(expected)}); it is dropped (not representable)"
        )
        return {"reference_jax": None, "exploded_reference_jax": None}
    module_level = sorted(
        n
        for n in jax.free_names
        if n in set(source.imports) | source.module_names
        and n not in source.helper_names | source.helper_imports
    )
    if module_level:
        report.note(
            f"reference_impl_jax uses module-level {', '.join(module_level)} from challenge.py, "
            "which a spec cannot carry; it is dropped (not representable)"
        )
        return {"reference_jax": None, "exploded_reference_jax": None}
    found: Dict[str, Any] = {"reference_jax": jax.body + "\n", "exploded_reference_jax": None}
    if jax.exploded:
        found["exploded_reference_jax"] = True
        report.note("exploded_reference_jax: reference_impl_jax lists one parameter per line")
    return found


def ref_node(source: pyast.ChallengeSource) -> ast.Module:
    return ast.parse(source.reference.body)


def _self_is_representable(tree: ast.AST, helpers: set) -> bool:
    """`self.device` and calls of carried-over helpers are what a spec's reference may use."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "self" and node.attr not in helpers | {"device"}:
                return False
    return True


def latex_labels(
    params: List[ParamInfo], sizes: List[str], page: page_reader.Page
) -> Dict[str, str]:
    """Scalar labels the page writes in LaTeX (\\varepsilon for eps, ...)."""
    scalars = [p.name for p in params if not p.is_tensor]
    inputs = [p.name for p in params if p.is_tensor and p.direction != "out"]
    labels = page.scalar_labels
    if page.matrix:
        names = [n for n in scalars if n not in sizes]
        if len(labels) != len(names):
            return {}
        pairs = zip(names, labels)
    else:
        if labels[: len(inputs)] != inputs or len(labels) != len(inputs) + len(scalars):
            return {}
        pairs = zip(scalars, labels[len(inputs) :])
    return {
        n: label
        for n, label in pairs
        if label.startswith("\\") and label not in (n, f"\\text{{{n}}}")
    }


def signature_entries(params: List[ParamInfo], latex: Dict[str, str]) -> List[Parameter]:
    return [
        Parameter(
            p.name,
            p.dtype,
            p.direction if p.is_tensor else None,
            p.shape if p.is_tensor else None,
            latex.get(p.name),
        )
        for p in params
    ]
