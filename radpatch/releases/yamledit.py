"""Minimal text edits of a registry file, placed by the YAML parser's node marks.

`port` changes one scalar (`supported:`, a module choice's `versions:`) or adds a module choice; a
yaml dump would drop the comments and re-flow the layout a maintainer chose. Here the file is
composed (not constructed) only to learn where each node starts and ends; every edit replaces
that span of the text, or inserts new lines right after a node, in the style of its siblings
(flow `{versions: ..., module: ...}` items stay flow, block items stay block, at their indent).
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class Edit:
    start: int  # character offsets into the text
    end: int
    text: str


def compose(text: str) -> yaml.MappingNode:
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(node, yaml.MappingNode):
        raise ValueError("the registry file is not a mapping")
    return node


def get(node: yaml.Node, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def key_node(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    return next((k for k, _ in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def quoted(value: str) -> str:
    """A YAML double-quoted scalar (a version range starts with `>` or `<`: plain would not do)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def set_scalar(node: yaml.Node, value: str) -> Edit:
    """Replace a scalar's text, keeping its quote style where it has one."""
    style = getattr(node, "style", None)
    text = f"'{value}'" if style == "'" else quoted(value)
    return Edit(node.start_mark.index, node.end_mark.index, text)


def indent_of(text: str, index: int) -> int:
    """The column of `index` on its line."""
    return index - (text.rfind("\n", 0, index) + 1)


def line_end(text: str, index: int) -> int:
    """The end of the line holding `index` (after a trailing comment), before its newline (or CRLF)."""
    end = text.find("\n", index)
    if end < 0:
        return len(text)
    return end - 1 if end > index and text[end - 1] == "\r" else end


def choice_text(versions: str, module: str, flow: bool, indent: int, first_key: str = "versions") -> str:
    """One `modules:` list item, flow (`- {versions: ..., module: ...}`) or block, at `indent`."""
    if flow:
        return f"{' ' * indent}- {{versions: {quoted(versions)}, module: {module}}}"
    pad = " " * (indent + 2)
    if first_key == "module":
        return f"{' ' * indent}- module: {module}\n{pad}versions: {quoted(versions)}"
    return f"{' ' * indent}- versions: {quoted(versions)}\n{pad}module: {module}"


def apply(text: str, edits: list[Edit]) -> str:
    """The text with every edit made (they must not overlap), from the last to the first."""
    out = text
    last = len(text) + 1
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        if e.end > last:
            raise ValueError("overlapping edits")
        out = out[: e.start] + e.text + out[e.end :]
        last = e.start
    return out
