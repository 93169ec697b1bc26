"""An easy challenge's scaffold, and what the starters ship besides chgen's stub, from the
original starters."""

from __future__ import annotations

from typing import Dict, List, Optional

from generator.importer import starters
from generator.importer.draft import ScaffoldEntry
from generator.importer.infer import ParamInfo
from generator.importer.report import Report
from generator.languages import LANGUAGES, SigParam
from generator.spec.derived import is_size


def scaffold_of(
    difficulty: str, slug: str, texts: Dict[str, Optional[str]], sizes: List[str], report: Report
) -> Optional[ScaffoldEntry]:
    if difficulty != "easy":
        return None
    scaffold, notes = starters.scaffold(texts["starter.cu"], sizes)
    for note in notes:
        report.note(note)
    if scaffold is None:
        scaffold = ScaffoldEntry(f"{slug}_kernel", sizes[:1])
        report.note(f"easy starters get chgen's scaffold: kernel {scaffold.kernel}")
    return scaffold


def starter_scaffolds(
    scaffold: Optional[ScaffoldEntry],
    texts: Dict[str, Optional[str]],
    params: List[ParamInfo],
    report: Report,
) -> None:
    """`scaffold.starters`: where a Python easy starter's stub and launch depart from chgen's."""
    if scaffold is None:
        return
    sig = [SigParam.make(p.name, p.dtype, p.direction, p.is_tensor) for p in params]
    found = {}
    for lang in LANGUAGES:
        if not lang.scaffolded or lang.starter_syntax != "python":
            continue
        default = lang.kernel_parameter_names(sig, scaffold.grid)
        variant = starters.python_scaffold(
            texts.get(lang.starter_name),
            scaffold.kernel,
            default,
            scaffold.grid,
            [p.name for p in params if is_size(p)],
        )
        if variant:
            found[lang.key] = variant
    if found:
        scaffold.starters = found
        report.note(f"scaffold.starters: the {', '.join(found)} stub and launch as written")


def exploded_solve(texts: Dict[str, Optional[str]], report: Report) -> List[str]:
    found = [
        lang.key
        for lang in LANGUAGES
        if lang.starter_syntax == "python" and starters.exploded_solve(texts.get(lang.starter_name))
    ]
    if found:
        report.note(f"exploded_solve: solve lists one parameter per line in {', '.join(found)}")
    return found


def starter_helpers_of(
    texts: Dict[str, Optional[str]],
    scaffold: Optional[ScaffoldEntry],
    report: Report,
    easy: bool = True,
) -> Dict[str, str]:
    """Code the starters ship besides solve and the kernel stub, per language key; a definition
    rule S010 flags (a medium/hard starter's kernel stub) is not carried, and the report says so."""
    from generator.checks.starters import stub_definitions

    found = {}
    for lang in LANGUAGES:
        kernel = scaffold.kernel if scaffold else None
        variant = (scaffold.starters or {}).get(lang.key) if scaffold else None
        if variant is not None and variant.kernel is not None:
            kernel = variant.kernel
        text = texts.get(lang.starter_name)
        stubs = stub_definitions(lang, text, easy) if text is not None else ((), ())
        code = starters.helpers(text, kernel, stubs)
        if stubs[1] and code != starters.helpers(text, kernel):
            names = ", ".join(f"`{name}`" for _, name in stubs[1])
            report.note(
                f"starter/{lang.starter_name}: {names} not carried into starter_helpers: rule "
                "S010 flags it (such a starter holds only helpers and an empty solve)"
            )
        if code is not None:
            found[lang.key] = lang.current_helper(code)
    if found:
        report.note(f"starter helpers carried over for {', '.join(found)} (starter_helpers)")
    return found
