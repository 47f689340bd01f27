"""The edits `radpatch port` makes to an entry's YAML text, at the nodes' marks
(radpatch.releases.yamledit: comments and layout stay): `supported:` (or a module choice's
`versions:`) widened just enough to hold the releases proven (`widen`), and a module choice added
for a scope that moved to another module (`add_choice`: after the choices it takes releases from
for a bump, before them for a backport)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import yaml
from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from radpatch.errors import UsageError
from radpatch.registry.model import Patch
from radpatch.releases import yamledit


def widen_rewrite(
    text_of: str, root: yaml.MappingNode, patch: Patch, rewrite: str, versions: list[Version], known: Iterable[Version]
) -> tuple[yamledit.Edit, str]:
    """Widen the `versions:` of rewrite `rewrite` (its id) to hold `versions`, as `supported:` is widened."""
    items = yamledit.get(root, "rewrites")
    for item in items.value if isinstance(items, yaml.SequenceNode) else []:
        named = yamledit.get(item, "id")
        ranged = yamledit.get(item, "versions")
        if isinstance(named, yaml.ScalarNode) and named.value == rewrite and isinstance(ranged, yaml.ScalarNode):
            text = widen(ranged.value, versions, known)
            return yamledit.set_scalar(text_of, ranged, text), f"rewrites.{rewrite}.versions: {ranged.value} -> {text}"
    raise UsageError(
        f"{patch.source}: the `versions:` of rewrite {rewrite!r} cannot be edited in place", "widen it by hand"
    )


@dataclass(frozen=True)
class Move:
    """A module choice to add: its range `new`, what the choices it takes releases from get
    (`old`, joined to their range), the release `at` that tells which choices those are, and
    whether it goes before them (a backport: the older releases) or after (a bump)."""

    new: str
    old: str
    at: Version
    first: bool


def add_choice(
    text: str, root: yaml.MappingNode, patch: Patch, file: str, module: str, move: Move
) -> list[yamledit.Edit]:
    modules = yamledit.get(root, "modules")
    node = yamledit.get(modules, file) if modules is not None else None
    key = yamledit.key_node(modules, file) if isinstance(modules, yaml.MappingNode) else None
    if node is None or key is None:
        raise UsageError(f"{patch.source}: no `modules: {file}:` to edit", "port needs the entry's modules mapping")
    if isinstance(node, yaml.ScalarNode) and getattr(modules, "flow_style", False):
        # `modules: {NAME: module}`: block lines cannot go inside the braces; a flow list of two choices can
        old = f"{{versions: {yamledit.quoted(move.old)}, module: {node.value}}}"
        new = f"{{versions: {yamledit.quoted(move.new)}, module: {module}}}"
        return [yamledit.set_whole(text, node, f"[{new}, {old}]" if move.first else f"[{old}, {new}]")]
    if isinstance(node, yaml.ScalarNode):  # NAME: module -> a list of two choices
        indent = yamledit.indent_of(text, key.start_mark.index) + 2
        end = yamledit.line_end(text, yamledit.end_of(text, node))
        comment = text[yamledit.end_of(text, node) : end].rstrip()  # a trailing comment stays with the old module
        old = yamledit.choice_text(move.old, node.value, False, indent) + comment
        new = yamledit.choice_text(move.new, module, False, indent)
        # comments between the key and its value (`kv: # note`, then the module on the next line) stay
        head = yamledit.comments_between(text, key.end_mark.index, node.start_mark.index)
        props = yamledit.properties(text, node)  # `&m `, `!!str &m `: what stands before the module
        anchor = re.search(r"&\S+", props)
        if (
            anchor
        ):  # `NAME: &m module` that another key reaches as `*m`: the list keeps the anchor (a tag would not fit)
            head = f": {anchor.group()}{head[1:]}"
        return [
            yamledit.Edit(key.end_mark.index, end, f"{head}\n{new}\n{old}" if move.first else f"{head}\n{old}\n{new}")
        ]
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise UsageError(f"{patch.source}: `modules: {file}:` is neither a module nor a list of choices")
    edits: list[yamledit.Edit] = []
    choices = patch.module(file).choices
    for item, choice in zip(node.value, choices):
        if not choice.versions.contains(move.at, prereleases=True):
            continue
        versions = yamledit.get(item, "versions")
        if isinstance(versions, yaml.ScalarNode):
            joined = f"{versions.value},{move.old}" if versions.value.strip() else move.old
            edits.append(yamledit.set_scalar(text, versions, joined))

    return [*edits, yamledit.append_choice(text, node, module, move.new)]


def excluding(text: str, asked: SpecifierSet, known: Iterable[Version], had: SpecifierSet) -> str:
    """The widened range `text` with the exclusions of the releases asked for (`--to ">=0.30,!=0.31.1"`)
    that leave out a `known` release it would newly claim: the release was not asked for, so not
    proven. A release the entry claimed (`had`) stays claimed: `!=` says where not to port, not what to drop."""
    for s in sorted(asked, key=str):
        if s.operator == "!=" and any(
            SpecifierSet(text).contains(k) and not s.contains(k) and not had.contains(k, prereleases=True)
            for k in known
            if not k.is_prerelease
        ):
            text += f",{s}"
    return text


def unproven_prereleases(text: str, proven: Iterable[Version], known: Iterable[Version], had: SpecifierSet) -> str:
    """The widened range `text` with `!=V` for each `known` pre-release, development build or post-release
    it newly claims that was not proven (`<1.1` widened to `<=1.1` takes in 1.1rc1, which PEP 440 puts
    before 1.1; `>=1.0` widened to `>=0.9` takes in 0.9.post1): a release the entry did not claim and port
    did not prove stays unclaimed. One claimed before stays."""
    done = set(proven)
    wide = SpecifierSet(text)
    for k in sorted(known):
        if (k.is_prerelease or k.is_postrelease) and k not in done and wide.contains(k, prereleases=True):
            if not had.contains(k, prereleases=True):
                text += f",!={k}"
    return text


def widen(spec_text: str, versions: Iterable[Version], known: Iterable[Version] = ()) -> str:
    """`spec_text` widened just enough to hold `versions`, in its own order and style. An upper
    bound `<X` moves to the next minor release unless that would claim a `known` release (one
    the index lists) that was not proven: then it becomes `<=` the highest release proven."""
    vs = sorted(versions)
    others = [k for k in known if k not in vs and not k.is_prerelease]
    out: list[str] = []
    for whole in (p.strip() for p in spec_text.split(",")):
        if not whole:
            continue
        try:
            first = Specifier(whole)
        except InvalidSpecifier:
            raise UsageError(f"`supported: {spec_text}` cannot be widened automatically", "edit it by hand")
        if all(first.contains(v, prereleases=True) for v in vs):
            out.append(whole)
            continue
        for part in _bounds(first, spec_text):
            out += _widened(Specifier(part), vs, others)
    text = ",".join(out)
    if not text:  # only exclusions, each dropped: every release (the loader refuses an empty range)
        raise UsageError(
            f"`supported: {spec_text}` widened to {', '.join(map(str, vs))} claims every release", "edit it by hand"
        )
    if not all(SpecifierSet(text).contains(v, prereleases=True) for v in vs):
        raise UsageError(f"`supported: {spec_text}` cannot be widened to {', '.join(map(str, vs))}", "edit it by hand")
    return text


def _bounds(s: Specifier, spec_text: str) -> list[str]:
    """`s` as the plain bounds `widen` moves: `~=1.0.0` is `>=1.0.0,<1.1` (PEP 440's own reading),
    `==1.0.*` is `>=1.0,<1.1`, `===1.0` (a version's own text) is `==1.0`; any other as it is."""
    if s.operator not in ("~=", "===") and not (s.operator == "==" and s.version.endswith(".*")):
        return [str(s)]
    try:
        v = Version(s.version[:-2] if s.version.endswith(".*") else s.version)
    except InvalidVersion:  # `===` of a text no version has
        raise UsageError(
            f"`supported: {spec_text}` ({s}) names no PEP 440 version and cannot be widened automatically",
            "edit it by hand",
        ) from None
    if s.operator == "===":
        return [f"=={v}"]
    release = list(v.release)
    head = release[:-1] if s.operator == "~=" else release  # the components that must stay equal
    upper = ".".join(map(str, [*head[:-1], head[-1] + 1]))
    return [f">={v}", f"<{'' if v.epoch == 0 else f'{v.epoch}!'}{upper}"]


def _widened(s: Specifier, vs: list[Version], others: list[Version]) -> list[str]:
    """One plain bound `s` widened to hold `vs`: nothing for an exclusion that leaves one out."""
    low, high = _public(vs[0]), _public(vs[-1])  # a bound other than == and != names no local version
    if all(s.contains(v, prereleases=True) for v in vs):
        return [str(s)]
    if s.operator == "<":
        bound = _next_minor(high, len(Version(s.version).release))
        unproven = [k for k in others if high < k < Version(bound) and not s.contains(k, prereleases=True)]
        return [f"<={high}" if unproven else f"<{bound}"]
    if s.operator == "<=":
        return [f"<={high}"]
    if s.operator in (">=", ">"):
        return [f">={low}"]
    if s.operator == "==":  # `_bounds` leaves no `==X.*`
        pinned = _public(Version(s.version))
        return [f">={min(pinned, low)}", f"<={max(pinned, high)}"]
    return []  # `!=`


def _public(v: Version) -> Version:
    return Version(v.public)


def _next_minor(v: Version, parts: int) -> str:
    release = list(v.release) + [0, 0]
    if parts <= 1:
        return str(release[0] + 1)
    bumped = [release[0], release[1] + 1] + [0] * (parts - 2)
    return ".".join(str(n) for n in bumped)
