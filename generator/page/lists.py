"""`page.item_indent` and `page.item_indents`: the spaces before each <li> of Implementation
Requirements and Constraints, written and read back side by side."""

from __future__ import annotations

from typing import Any, Dict, List

#: chgen's (the public majority's) indentation of a list item
DEFAULT_INDENT = "  "


def write(form: Any, count: int) -> List[str]:
    """The spaces before each of the `count` items in page order (requirements, then
    constraints; the performance bullet apart), from the spec's `page:` block."""
    return list(form.item_indents or [form.item_indent] * count)


def read(written: List[str]) -> Dict[str, Any]:
    """The flags the text before each item's <li> (`written`, in page order) shows: one
    indentation for all, or one per item where they differ; none where chgen's default holds or
    an item does not start its line."""
    if not written or any(indent.strip(" ") for indent in written):
        return {}
    if len(set(written)) > 1:
        return {"item_indents": written}
    if written[0] != DEFAULT_INDENT:
        return {"item_indent": written[0]}
    return {}
