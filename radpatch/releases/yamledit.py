"""Minimal text edits of a registry file, placed by the YAML parser's node marks.

`port` changes one scalar (`supported:`, a module choice's `versions:`) or adds a module choice; a
yaml dump would drop the comments and re-flow the layout a maintainer chose. Here the file is
composed (not constructed) only to learn where each node starts and ends; every edit replaces
that span of the text, or inserts new lines right after a node, in the style of its siblings
(flow `{versions: ..., module: ...}` items stay flow, block items stay block, at their indent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class Edit:
    start: int  # character offsets into the text
    end: int
    text: str


def compose(text: str) -> yaml.MappingNode:
    """The file's node tree, its marks character offsets into `text`. The pure-Python parser counts
    characters (libyaml, which the registry loader uses, does not count a BOM); it refuses a tab
    before a value (`supported:<TAB>"..."`) that libyaml accepts, so it reads the text with each tab
    a space: the same length, so the same offsets (a tab is only ever separation or scalar text,
    and a value read here is only a module name or a version range)."""
    try:
        node = yaml.compose(text.replace("\t", " "), Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise ValueError(at + str(getattr(exc, "problem", None) or exc).replace("\n", " ")) from None
    if not isinstance(node, yaml.MappingNode):
        raise ValueError("the registry file is not a mapping")
    return node


def shared(text: str, root: yaml.Node, edits: list[Edit]) -> tuple[str, ...]:
    """The edited scalars that several keys reach (an anchor `&a` and its aliases `*a`), in words:
    `supported` (&range) is also `modules.planner[0].versions` (*range). An edit of one changes all."""
    paths: dict[int, list[str]] = {}
    nodes: dict[int, yaml.Node] = {}

    def walk(node: yaml.Node, path: str) -> None:
        seen = id(node) in nodes
        nodes[id(node)] = node
        paths.setdefault(id(node), []).append(path)
        if seen:
            return
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                walk(v, f"{path}.{k.value}" if path else str(k.value))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, f"{path}[{i}]")

    walk(root, "")
    out = []
    for key, where in paths.items():
        node = nodes[key]
        if len(where) < 2 or not isinstance(node, yaml.ScalarNode):
            continue
        start, end = node.start_mark.index, node.end_mark.index
        if not any(start <= e.start and e.end <= end for e in edits):
            continue
        anchor = re.match(r"&(\S+)", text[start:end])
        name = anchor.group(1) if anchor else "?"
        others = ", ".join(f"`{p}` (*{name})" for p in where[1:])
        out.append(f"`{where[0]}` (&{name}) is also {others}")
    return tuple(out)


def get(node: yaml.Node, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def key_node(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    return next((k for k, _ in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def quoted(value: str) -> str:
    """A YAML double-quoted scalar (a version range starts with `>` or `<`: plain would not do)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


_PROPERTIES = re.compile(r"(?:[&!][^\s]*[ \t]+)*")  # an anchor (`&range `) and a tag (`!!str `) before a scalar


def set_scalar(text: str, node: yaml.Node, value: str) -> Edit:
    """Replace a scalar's text, keeping its quote style where it has one. A node's marks span its
    anchor and tag too (`&range ">=1"`): those stay, or an alias of the anchor would no longer
    resolve. A block scalar (`>-` or `|` then indented lines) ends after its line breaks: those stay,
    or the next key would be joined to the new value's line."""
    style = getattr(node, "style", None)
    new = f"'{value}'" if style == "'" else quoted(value)
    start = node.start_mark.index
    found = _PROPERTIES.match(text, start, end_of(text, node))
    return Edit(found.end() if found else start, end_of(text, node), new)


def properties(text: str, node: yaml.Node) -> str:
    """The anchor and tag written before a node's value (`&range `, `!!str &m `, on the key's line when
    the value is on the next), or ""."""
    found = re.compile(r"(?:[&!]\S*\s+)*").match(text, node.start_mark.index, end_of(text, node))
    return found.group() if found else ""


def set_whole(text: str, node: yaml.Node, new: str) -> Edit:
    """Replace a node's text (after its anchor and tag) with `new` as written."""
    start, end = node.start_mark.index, end_of(text, node)
    found = _PROPERTIES.match(text, start, end)
    return Edit(found.end() if found else start, end, new)


def end_of(text: str, node: yaml.Node) -> int:
    """Where a node's own text ends: its end mark, but for a block scalar (`>-` or `|` then indented
    lines; at any depth of a collection), whose mark lies after its line breaks, at the start of the
    next key's line, the end of its last line: an edit there must not take the next key's line."""
    end = node.end_mark.index
    last = node
    while isinstance(last, (yaml.MappingNode, yaml.SequenceNode)) and last.value and not last.flow_style:
        last = last.value[-1][1] if isinstance(last, yaml.MappingNode) else last.value[-1]
    if isinstance(last, yaml.ScalarNode) and getattr(last, "style", None) in ("|", ">"):
        return node.start_mark.index + len(text[node.start_mark.index : end].rstrip())
    return end


def indent_of(text: str, index: int) -> int:
    """The column of `index` on its line."""
    return index - (text.rfind("\n", 0, index) + 1)


def dash_of(text: str, index: int) -> int:
    """The column of the `-` that opens the block sequence item starting at `index`."""
    line = text.rfind("\n", 0, index) + 1
    dash = text.rfind("-", line, index)
    return (dash if dash >= 0 else index - 2) - line


def line_end(text: str, index: int) -> int:
    """The end of the line holding `index` (after a trailing comment), before its newline (or CRLF)."""
    end = text.find("\n", index)
    if end < 0:
        return len(text)
    return end - 1 if end > index and text[end - 1] == "\r" else end


def comments_between(text: str, start: int, end: int) -> str:
    """`:` and the comments between a key (ending at `start`) and its value (at `end`), as written:
    one after the `:` on the key's line, and whole comment lines before the value."""
    lines = text[start:end].split("\n")
    first = lines[0].strip().removeprefix(":").strip()
    out = ":" + (f" {first}" if first.startswith("#") else "")
    for line in lines[1:]:
        if line.strip().startswith("#"):
            out += "\n" + line.rstrip("\r")
    return out


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


def append_choice(text: str, node: yaml.SequenceNode, module: str, versions: str) -> Edit:
    """One more item after the last of the `modules:` list `node`, in that item's style."""
    last = node.value[-1]
    assert isinstance(last, yaml.MappingNode)
    if node.flow_style:  # [{...}, {...}]: one more item in the brackets
        item = f"{{versions: {quoted(versions)}, module: {module}}}"
        return Edit(last.end_mark.index, last.end_mark.index, f", {item}")
    flow = bool(last.flow_style)
    first_key = str(last.value[0][0].value) if last.value else "versions"
    indent = dash_of(text, last.start_mark.index)  # the item's `- ` (`-   key:` is valid too)
    at = line_end(text, end_of(text, last) if flow else end_of(text, last.value[-1][1]))
    return Edit(at, at, "\n" + choice_text(versions, module, flow, indent, first_key))
