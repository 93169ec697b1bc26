"""`chgen preview`: challenge.html as a solver sees it (dark page, MathML, SVG, the starters)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from generator.commands import CommandFailure
from generator.commands.generate import TREE_DIR
from generator.commands.options import argument, option, request


@request
class PreviewRequest:
    challenge: str = argument(..., help="A challenge id (in --tree) or a challenge directory")
    tree_dir: Path = option(TREE_DIR, "--tree", help="Tree in which ids are looked up.")
    html_out: Optional[Path] = option(None, "--html", help="Page to write (default: tmp).")
    png: Optional[Path] = option(None, "--png", help="Also screenshot it (headless Chromium).")
    open_page: bool = option(False, "--open", help="Open the page in a browser.")


@dataclass
class PreviewResult:
    page: Path
    png: Optional[Path]
    #: TeX the converter could not read, one message each
    math_errors: List[str]


def run_preview(req: PreviewRequest) -> PreviewResult:
    import tempfile
    import webbrowser

    from generator import preview as pages
    from generator.scaffold import find_challenge_dir

    directory = find_challenge_dir(req.challenge, req.tree_dir)
    if directory is None:
        raise CommandFailure(
            f"error: no challenge {req.challenge!r} (give an id present in {req.tree_dir}/ or "
            "a directory)"
        )
    target = req.html_out or (
        Path(tempfile.mkdtemp(prefix="chgen-preview-")) / f"{directory.name}.html"
    )
    try:
        errors = pages.write_preview(directory, target)
        if req.png is not None:
            pages.screenshot(target, req.png)
    except pages.PreviewError as exc:
        raise CommandFailure(f"error: {exc}") from None
    if req.open_page:
        webbrowser.open(target.resolve().as_uri())
    return PreviewResult(target, req.png, list(errors))
