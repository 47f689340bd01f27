"""A registry file's YAML nodes read as the kinds its fields are: each problem recorded at
file:line:column and key path (Problems), a node budget that stops an alias bomb, the node kinds
every key reads (a string, a mapping, a sequence, a specifier, one of a field's `choices`) and the
patterns names and links are checked by. The readers of the kinds the operations' FIELDS name
(READERS) are `field_kinds`'.
"""

from __future__ import annotations

import keyword
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from radpatch.errors import RadpatchError

MAX_NODES = 20_000
MAX_BYTES = 1_000_000


DIST_NAME = re.compile(r"^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$")  # PEP 508 names
ENVVAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ENTRY = re.compile(r"^(?!.*\.ya?ml$)[A-Za-z0-9_][A-Za-z0-9_.-]*$")  # a registry file's stem, as `radpatch list` shows
# an http(s) link that is a valid IRI-reference (RFC 3987; CycloneDX's `resolves[].references` are): only
# URI characters and the non-ASCII ones an IRI may hold (what a browser's address bar shows: `é`), `%` only
# before two hex digits, one `#` at most, the scheme in any case (`HTTPS://`); anything else is written
# percent-encoded
URL_CHAR = re.compile(r"[A-Za-z0-9._~!$&'()*+,;=:@/?#%-]")  # one character a URI (and the SBOM's link) may hold
# RFC 3987's ucschar: of the Basic Multilingual Plane without the bidirectional formatting marks RFC 3987
# 4.1 forbids (U+200E/F, U+202A-E, U+2066-9) and the line and paragraph separators (U+2028/9), which YAML
# reads as line breaks; of planes 1-13 all but each plane's last two (non)characters, and of plane 14 from
# U+E1000 (an emoji, a CJK ideograph of plane 2). The other planes' ranges are written as the characters
# themselves, not as escapes: Python's `re` reads them so, the JSON Schema carries them as JSON escapes
# (surrogate pairs) and an editor's ECMAScript regular expression with the `u` flag reads them back as
# code points (port37: a link with an emoji was refused)
_ASTRAL = "".join(f"{chr(p << 16)}-{chr(p << 16 | 0xFFFD)}" for p in range(1, 14)) + f"{chr(0xE1000)}-{chr(0xEFFFD)}"
_UCS = r"\u00a0-\u200d\u2010-\u2027\u202f-\u2065\u206a-\ud7ff\uf900-\ufdcf\ufdf0-\uffef" + _ASTRAL
IRI_CHAR = re.compile(rf"[A-Za-z0-9._~!$&'()*+,;=:@/?#%{_UCS}-]")  # one character a link may hold
_URI_CHAR = rf"(?:[A-Za-z0-9._~!$&'()*+,;=:@/?{_UCS}-]|%[0-9A-Fa-f]{{2}})"
_HOST_CHAR = rf"(?:[A-Za-z0-9._~!$&'()*+,;={_UCS}-]|%[0-9A-Fa-f]{{2}})"
# an authority is [userinfo@]host[:port]: one '@', a port of digits, an IPv6 host in brackets
# (registry.loader.links checks the address itself)
URL = re.compile(
    rf"^[Hh][Tt][Tt][Pp][Ss]?://(?:(?:{_HOST_CHAR}|:)*@)?(?:{_HOST_CHAR}+|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?"
    # the end (?![\s\S]): Python's `$` matches before a final line break too, an editor's does not
    rf"(?:[/?]{_URI_CHAR}*)?(?:#{_URI_CHAR}*)?(?![\s\S])"
)

T = TypeVar("T")


class Invalid(RadpatchError):
    """Internal: this node could not be read; its problem is already recorded (a RegistryError
    reports it). Under the one root, never shown."""

    def __init__(self) -> None:
        super().__init__("a registry node could not be read (already reported)")


class TooBig(RadpatchError):
    """Internal: the node budget is spent; stop reading the file at once. Under the one root, never shown."""

    def __init__(self) -> None:
        super().__init__("the registry file's node budget is spent")


@dataclass
class Problems:
    """One registry file's problems as it is read, each at file:line:column and key path, and the
    node budget that stops an alias bomb."""

    file: Path
    problems: list[str] = field(default_factory=list)
    budget: int = MAX_NODES

    def location(self, node: yaml.Node) -> str:
        m = node.start_mark
        return f"{self.file}:{m.line + 1}:{m.column + 1}"

    def fail(self, node: yaml.Node, path: str, message: str) -> Invalid:
        self.problems.append(f"{self.location(node)}: at {path or '<top>'}: {message}")
        return Invalid()

    def spend(self, node: yaml.Node, path: str) -> None:
        self.budget -= 1
        if self.budget < 0:
            self.fail(node, path, f"more than {MAX_NODES} YAML nodes (alias expansion?); radpatch stops reading here")
            raise TooBig()


_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "null", "bool")}


def describe(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return f"{node.value!r}"[:60]
    return "a mapping" if isinstance(node, yaml.MappingNode) else "a list"


def string(ctx: Problems, node: yaml.Node, path: str) -> str:
    ctx.spend(node, path)
    if not isinstance(node, yaml.ScalarNode):
        raise ctx.fail(node, path, f"expected a string, found {describe(node)}")
    if node.tag not in _PLAIN_TAGS:
        raise ctx.fail(node, path, f"the YAML tag {node.tag!r} is not supported; write a plain string")
    if node.tag == "tag:yaml.org,2002:null" and not node.style:
        raise ctx.fail(node, path, "expected a string, found nothing (null)")
    return str(node.value)


def mapping(ctx: Problems, node: yaml.Node, path: str, required: set[str], optional: set[str]) -> dict[str, yaml.Node]:
    ctx.spend(node, path)
    if not isinstance(node, yaml.MappingNode):
        raise ctx.fail(node, path, f"expected a mapping, found {describe(node)}")
    out: dict[str, yaml.Node] = {}
    for k, v in node.value:
        key = string(ctx, k, path)
        if key in out:
            ctx.fail(k, path, f"duplicate key {key!r}")
        elif key not in required | optional:
            allowed = ", ".join(sorted(required | optional))
            ctx.fail(k, path, f"unknown key {key!r}; expected one of: {allowed}")
        else:
            out[key] = v
    missing = sorted(required - out.keys())
    for key in missing:
        ctx.fail(node, path, f"missing required key {key!r}")
    if missing:
        raise Invalid()
    return out


def seq(ctx: Problems, node: yaml.Node, path: str) -> list[yaml.Node]:
    ctx.spend(node, path)
    if not isinstance(node, yaml.SequenceNode):
        raise ctx.fail(node, path, f"expected a list, found {describe(node)}")
    return list(node.value)


def each(items: list[T], fn: Callable[[T], object]) -> None:
    """Run `fn` on every item, so that one bad item does not hide problems in the next."""
    for item in items:
        try:
            fn(item)
        except Invalid:
            pass


def specifier(ctx: Problems, node: yaml.Node, path: str) -> SpecifierSet:
    text = string(ctx, node, path)
    try:
        spec = SpecifierSet(text)
        for s in spec:  # each one: packaging (from 22) reads its version only when asked to compare
            s.contains("0", prereleases=True)
    except InvalidSpecifier:
        raise ctx.fail(node, path, f"{text!r} is not a PEP 440 version range, e.g. '>=0.22,<0.34'")
    except ValueError as exc:  # e.g. a release number longer than Python converts (4300 digits)
        raise ctx.fail(node, path, f"{text[:40]!r}... cannot be compared with a version: {str(exc)[:80]}")
    if not text.strip():
        raise ctx.fail(node, path, "empty version range; write e.g. '>=0.22,<0.34'")
    return spec


def choice(ctx: Problems, node: yaml.Node, path: str, choices: tuple[str, ...]) -> str:
    """An enum-valued key (a Field of kind "choice"): one of the values its field declares."""
    text = string(ctx, node, path)
    if text not in choices:
        raise ctx.fail(node, path, f"{text!r}: expected one of {', '.join(choices)}")
    return text


class EveryProblem:
    """Call readers one after another; remember whether any failed, so every problem of a
    mapping is reported before giving up on it."""

    def __init__(self) -> None:
        self.failed = False

    def __call__(self, fn: Callable[..., T], *args: object) -> T:
        try:
            return fn(*args)
        except Invalid:
            self.failed = True
            return None  # type: ignore[return-value]

    def fail(self, _: Invalid) -> None:
        self.failed = True

    def check(self) -> None:
        if self.failed:
            raise Invalid()


def python_name(name: str) -> str:
    """`name` as Python reads it: the parser normalises every identifier to NFKC (PEP 3131), so
    `def ｆ` defines `f` and `import pkg.ﬁle` imports `pkg.file`. The loader keeps names in that form,
    so that a scope, a function or a module the registry spells with a compatibility character is
    looked up by the name the installed code binds."""
    return unicodedata.normalize("NFKC", name)


def is_dotted(name: str) -> bool:
    """A dotted module name as Python imports one: each part an identifier (PEP 3131's too:
    `pkg.módulo`) and no keyword; registry.name_patterns.dotted is the JSON Schema's pattern for it."""
    return all(p.isidentifier() and not keyword.iskeyword(p) for p in name.split("."))


def undecodable(data: bytes, encoding: str = "utf-8") -> tuple[int, int, str] | None:
    """Where `data` stops being text in `encoding`: the 1-based line and column (in characters) of
    the first byte that is not, and that byte as 0xNN; None when all of it decodes."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[start : exc.start].decode(encoding, "replace")) + 1
        return data.count(b"\n", 0, exc.start) + 1, column, f"0x{data[exc.start]:02x}"
    except LookupError:
        return None
    return None
