"""The real formatters, run once per generated text (a process remembers what it formatted).

Generated text must be exactly what black/isort, clang-format and mblack would leave, so that the
public set's own pre-commit hooks change nothing. black, isort and mblack run in-process;
clang-format is a binary, run through a subprocess with the public set's style.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Tuple

LINE_LENGTH = 100

#: The public challenge set's .clang-format, as one inline style.
CLANG_FORMAT_STYLE = (
    "{BasedOnStyle: LLVM, IndentWidth: 4, ColumnLimit: 100, PointerAlignment: Left, "
    "AlignAfterOpenBracket: Align, AllowShortFunctionsOnASingleLine: Empty, "
    "AllowShortIfStatementsOnASingleLine: Never, AllowShortLoopsOnASingleLine: false, "
    "BreakBeforeBraces: Attach, IndentCaseLabels: false, SpaceBeforeParens: ControlStatements}"
)


class FormatError(Exception):
    """A formatter rejected generated text: a template bug, reported with the file name."""


def finish(text: str) -> str:
    """No trailing whitespace, exactly one final newline."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def python_format(text: str, name: str = "<generated>") -> str:
    import black
    import isort

    try:
        text = isort.code(text, config=isort.Config(profile="black", line_length=LINE_LENGTH))
        text = black.format_str(text, mode=black.Mode(line_length=LINE_LENGTH))
    except Exception as exc:  # black raises several exception types for bad input
        raise FormatError(f"{name}: black/isort failed: {exc}") from None
    return finish(text)


def mojo_format(text: str, name: str = "<generated>") -> str:
    import mblack

    mode = mblack.Mode(
        line_length=LINE_LENGTH,
        target_versions={mblack.TargetVersion.MOJO},
        is_mojo=True,
    )
    try:
        text = mblack.format_str(text, mode=mode)
    except Exception as exc:
        raise FormatError(f"{name}: mblack failed: {exc}") from None
    return finish(text)


@functools.lru_cache(maxsize=1)
def clang_format_binary() -> str:
    """The clang-format pinned in pyproject.toml (the wheel's binary, found through its package,
    so that a child whose PATH or interpreter path differs finds the same one), else one on
    PATH."""
    try:
        import clang_format

        packaged = Path(clang_format.__file__).parent / "data" / "bin" / "clang-format"
        if packaged.exists():
            return str(packaged)
    except ImportError:
        pass
    here = Path(sys.executable).parent / "clang-format"
    if here.exists():
        return str(here)
    found = shutil.which("clang-format")
    if not found:
        raise FormatError("clang-format not found: pip install 'chgen[formatters]'")
    return found


def clang_format(text: str, name: str = "<generated>.cu") -> str:
    try:
        result = subprocess.run(
            [clang_format_binary(), f"--style={CLANG_FORMAT_STYLE}", "--assume-filename=x.cu"],
            input=text,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FormatError(f"{name}: clang-format could not run: {exc}") from None
    if result.returncode != 0:
        raise FormatError(f"{name}: clang-format failed: {result.stderr.strip()}")
    return finish(result.stdout)


def plain(text: str, name: str = "<generated>") -> str:
    return finish(text)


FORMATTERS = {
    "python_format": python_format,
    "mojo_format": mojo_format,
    "clang_format": clang_format,
    "plain": plain,
}


#: the most formatted texts one process remembers (an import renders a challenge several times)
MEMO_SIZE = 1024
_memo: "OrderedDict[Tuple[str, str], str]" = OrderedDict()


def format_text(formatter: str, text: str, name: str) -> str:
    """`formatter` on `text`, remembered by (formatter, text): the formatters are pure functions of
    the text at the pinned versions, and the import renders the same text several times per
    challenge. `name` only words an error, and errors are not remembered."""
    key = (formatter, text)
    if key in _memo:
        _memo.move_to_end(key)
        return _memo[key]
    formatted = FORMATTERS[formatter](text, name)
    _memo[key] = formatted
    if len(_memo) > MEMO_SIZE:
        _memo.popitem(last=False)
    return formatted
