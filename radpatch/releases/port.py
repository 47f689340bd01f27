"""Port an entry to new releases: what a patch-queue maintainer does at a bump, done from the wheels.

For the releases asked for (`--to VERSION|SPEC`), verify's engine proves the entry as it is and
each release gets a cell (radpatch.releases.matrix):

- every rewrite proves: the release is claimed by widening `supported:` (an upper bound `<X` moves
  to the next minor release after it, keeping X's number of components, so `<0.34` becomes `<0.35`,
  unless the index lists a release in between that was not proven: then `<=` the release;
  `<=X` and `>=X` move to the release; `==X` becomes `>=low,<=high`);
- the scope moved to another module (found by its code, radpatch.releases.moved) and the rewrites
  prove there: the module variant is added (`modules:` gets `{versions: ">=V", module: NEW}` and the
  choice it replaces ends at V; for a backport to older releases than the entry claims, the new
  choice is `<B` and goes first, B the first release after them, and the old choice starts at B);
  when no choice covers the release and the latest choice's module still holds the scope, that
  choice's `versions:` is widened instead (as `supported:` is);
- a rewrite no longer matches (or another check fails, or the release already contains the change):
  the nearest candidate is shown and the entry is left alone, whatever the other releases say.

The edit is made on the file's text at the nodes' marks (radpatch.releases.yamledit): comments and
layout stay. Before anything is written the edited entry is loaded and proven again over its whole
new `supported` range; an edit that does not prove is never written.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import yaml
from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import Version

from radpatch.errors import EnvironmentProblem, RadpatchError, RefusedError, UsageError
from radpatch.registry import loader
from radpatch.registry.model import Patch
from radpatch.releases import matrix, yamledit
from radpatch.releases.verify import verify
from radpatch.releases.wheels import Releases


def claimable(c: matrix.Cell) -> bool:
    """port may claim the release: it passes, or the scope moved to one module where the rewrites prove."""
    return c.kind == matrix.PASS or (c.kind == matrix.MOVED and bool(c.proven) and not c.also)


def _kind(c: matrix.Cell) -> str:
    return f"moved to several modules ({', '.join((c.module or '', *c.also))})" if c.also else c.kind


@dataclass(frozen=True)
class Port:
    patch: Patch
    cells: tuple[matrix.Cell, ...]
    before: str
    after: str | None  # None: the entry is left alone
    changes: tuple[str, ...]  # what the edit does, one line each
    why: str = ""  # why it is left alone
    settled: bool = False  # left alone because there is nothing to do (every release already claimed)
    requires: tuple[Patch, ...] = ()  # the entries it requires: proven on what they leave
    new_range: str | None = None  # the widened `supported:` the edit writes (None: the edit leaves it as it is)
    had: tuple[Version, ...] = ()  # the listed releases the entry claimed before the edit
    # the edited nodes that are a YAML anchor another key uses as an alias, in words: the edit changes both
    shared: tuple[str, ...] = ()

    @property
    def range_after(self) -> str:
        """The entry's `supported:` range once edited: the widened one, else the entry's own."""
        return self.new_range if self.new_range is not None else self.patch.range

    @property
    def diff(self) -> str:
        if self.after is None or self.after == self.before:
            return ""
        name = self.patch.source.name
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True), self.after.splitlines(keepends=True), f"a/{name}", f"b/{name}"
            )
        )


def plan(
    patch: Patch,
    wanted: SpecifierSet,
    releases: Releases,
    stream: TextIO | None = None,
    requires: tuple[Patch, ...] = (),
) -> Port:
    """`requires`: the entries `patch` requires, in the order apply runs them (verify stacks them)."""
    report = verify(patch, wanted, releases, probe=False, stream=stream, requires=requires)
    cells = tuple(matrix.cell(patch, r, releases, anywhere=True, requires=requires) for r in report.results)
    try:
        before = patch.source.read_bytes().decode("utf-8")  # as is: CRLF files stay CRLF
    except UnicodeDecodeError:  # the loader also reads UTF-16 (with its BOM); port edits UTF-8 text only
        raise UsageError(
            f"{patch.source}: not UTF-8 text: port edits a registry file's text in place",
            "save it as UTF-8 (the registry loads it the same), then port again",
        ) from None
    except OSError as exc:
        raise EnvironmentProblem(f"{patch.source}: cannot be read ({exc.strerror})", "check the file") from None
    blocked = [c for c in cells if not claimable(c)]
    if blocked and all(c.kind == matrix.OBSOLETE for c in blocked):
        at = ", ".join(str(c.version) for c in blocked)
        if all(c.detail.startswith("declared") for c in blocked):  # the entry says so: nothing was read
            why = (
                f"the entry declares {at} obsolete (`obsolete: {patch.obsolete}`): nothing to port there; "
                "port to the others only"
            )
            return Port(patch, cells, before, None, (), why, True)
        why = (
            f"{at} already contain{'s' if len(blocked) == 1 else ''} the change (obsolete there): nothing to port; "
            "retire the entry for those releases (`obsolete:`, or narrow `supported:`), or keep it as it is"
        )
        return Port(patch, cells, before, None, (), why, True)
    if blocked:
        why = "not every release asked for proves (" + ", ".join(f"{c.version}: {_kind(c)}" for c in blocked) + ")"
        return Port(patch, cells, before, None, (), why + _own_fails(patch, cells, releases, requires, stream))
    new = [c.version for c in cells if c.kind == matrix.MOVED or not patch.supported.contains(c.version, True)]
    if not new:
        return Port(patch, cells, before, None, (), "every release asked for is already claimed and proves", True)
    try:
        root = yamledit.compose(before)
    except (yaml.YAMLError, ValueError) as exc:
        raise UsageError(f"{patch.source}: cannot be edited in place: {exc}", "fix the YAML, then port again")
    edits: list[yamledit.Edit] = []
    changes: list[str] = []
    new_range: str | None = None
    claimed = [c.version for c in cells]
    if not all(patch.supported.contains(v, prereleases=True) for v in claimed):
        text = widen(patch.range, claimed, releases.versions(patch.distribution, SpecifierSet()).versions)
        node = yamledit.get(root, "supported")
        if node is None:
            raise UsageError(f"{patch.source}: no `supported:` to widen", "add one, then port again")
        edits.append(yamledit.set_scalar(before, node, text))
        changes.append(f"supported: {patch.range} -> {text}")
        new_range = text
    known = releases.versions(patch.distribution, SpecifierSet()).versions
    by_file: dict[str, list[matrix.Cell]] = {}
    for c in cells:
        if c.kind == matrix.MOVED and c.file is not None:
            by_file.setdefault(c.file, []).append(c)
    for file, moved in by_file.items():
        same = [c for c in moved if c.module == c.old]  # no choice covers them; the latest choice's module holds it
        other = [c for c in moved if c.module != c.old]
        if same:
            edit, change = _extend_choice(
                before, root, patch, file, same[0].module or "", [c.version for c in same], known
            )
            edits.append(edit)
            changes.append(change)
        if not other:
            continue
        module = other[0].module or ""
        if any(c.module != module for c in other):
            return Port(patch, cells, before, None, (), f"{file}: the scope moved to several modules: edit by hand")
        low, high = min(c.version for c in other), max(c.version for c in other)
        claimed = [k for k in known if not k.is_prerelease and patch.supported.contains(k, prereleases=True)]
        if claimed and high < min(claimed):  # a backport: the older releases asked for used another module
            bound = min(k for k in known if k > high and not k.is_prerelease)  # the old module's first release
            move = _Move(f"<{bound}", f">={bound}", high, first=True)
            stay = [c.version for c in cells if c not in other and c.version <= high]
            side = f"releases before {high}"
        else:
            move = _Move(f">={low}", f"<{low}", low, first=False)
            stay = [c.version for c in cells if c not in other and c.version >= low]
            side = f"releases after {low}"
        if stay:
            return Port(patch, cells, before, None, (), f"{file}: {side} still use the old module: edit by hand")
        edits += _add_choice(before, root, patch, file, module, move)
        changes.append(f"modules.{file}: {module} for {move.new}")
    if "\r\n" in before:  # a CRLF file gets CRLF lines
        edits = [yamledit.Edit(e.start, e.end, e.text.replace("\n", "\r\n")) for e in edits]
    # one node reached twice (an alias `versions: *range` of `supported: &range ...`) is edited once
    edits = list(dict.fromkeys(edits))
    try:
        after = yamledit.apply(before, edits)
    except ValueError:  # the same text edited two ways: two keys share one anchor with different needs
        raise UsageError(
            f"{patch.source}: two ranges port would change differently are one node (an anchor and its alias)",
            "write them apart, then port again",
        ) from None
    had = tuple(k for k in known if not k.is_prerelease and patch.supported.contains(k, prereleases=True))
    shared = yamledit.shared(before, root, edits)
    changed = tuple(changes)
    return Port(patch, cells, before, after, changed, requires=requires, new_range=new_range, had=had, shared=shared)


def _own_fails(
    patch: Patch,
    cells: tuple[matrix.Cell, ...],
    releases: Releases,
    requires: tuple[Patch, ...],
    stream: TextIO | None,
) -> str:
    """When no release asked for is one the entry claims: whether it proves on its own release nearest
    them. A nearest candidate on a new release says little of an entry that fails where it was written:
    "" when it proves there (or the entry claims no listed release), else that release and why."""
    asked = [c.version for c in cells]
    if not asked or any(patch.supported.contains(v, prereleases=True) for v in asked):
        return ""
    listed = releases.versions(patch.distribution, patch.supported).versions
    own = [v for v in listed if not v.is_prerelease and patch.supported.contains(v, prereleases=True)]
    if not own:
        return ""
    below = [v for v in own if v < asked[0]]
    at = below[-1] if below else own[0]
    try:
        report = verify(patch, SpecifierSet(f"=={at}"), releases, probe=False, stream=stream, requires=requires)
        failing = report.failing
    except RadpatchError:  # it cannot be read now: the cells above say what is known
        return ""
    if not failing:
        return ""
    return (
        f"; it does not prove on its own release {at} either ({_short(failing[0].error or 'fails', 120)}): "
        f"fix the entry there first (`radpatch verify {patch.name} --versions =={at}`)"
    )


def _extend_choice(
    text_of: str,
    root: yaml.MappingNode,
    patch: Patch,
    file: str,
    module: str,
    versions: list[Version],
    known: Iterable[Version],
) -> tuple[yamledit.Edit, str]:
    """Widen the `versions:` of the (last) choice of `file` (a `modules:` name) naming `module` to hold `versions`."""
    modules = yamledit.get(root, "modules")
    node = yamledit.get(modules, file) if modules is not None else None
    items = node.value if isinstance(node, yaml.SequenceNode) else []
    for item, choice in reversed(list(zip(items, patch.module(file).choices))):
        ranged = yamledit.get(item, "versions")
        if choice.module == module and isinstance(ranged, yaml.ScalarNode):
            text = widen(ranged.value, versions, known)
            change = f"modules.{file}: {module} for {ranged.value} -> {text}"
            return yamledit.set_scalar(text_of, ranged, text), change
    raise UsageError(f"{patch.source}: no `modules: {file}:` choice names {module}", "edit it by hand")


@dataclass(frozen=True)
class _Move:
    """A module choice to add: its range `new`, what the choices it takes releases from get
    (`old`, joined to their range), the release `at` that tells which choices those are, and
    whether it goes before them (a backport: the older releases) or after (a bump)."""

    new: str
    old: str
    at: Version
    first: bool


def _add_choice(
    text: str, root: yaml.MappingNode, patch: Patch, file: str, module: str, move: _Move
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
        end = yamledit.line_end(text, node.end_mark.index)
        comment = text[node.end_mark.index : end].rstrip()  # a trailing comment stays with the old module
        old = yamledit.choice_text(move.old, node.value, False, indent) + comment
        new = yamledit.choice_text(move.new, module, False, indent)
        # comments between the key and its value (`kv: # note`, then the module on the next line) stay
        head = yamledit.comments_between(text, key.end_mark.index, node.start_mark.index)
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

    last = node.value[-1]
    assert isinstance(last, yaml.MappingNode)
    if node.flow_style:  # [{...}, {...}]: one more item in the brackets
        item = f"{{versions: {yamledit.quoted(move.new)}, module: {module}}}"
        return [*edits, yamledit.Edit(last.end_mark.index, last.end_mark.index, f", {item}")]
    flow = bool(last.flow_style)
    first_key = str(last.value[0][0].value) if last.value else "versions"
    indent = yamledit.dash_of(text, last.start_mark.index)  # the item's `- ` (`-   key:` is valid too)
    end_of = last.end_mark.index if flow else last.value[-1][1].end_mark.index
    at = yamledit.line_end(text, end_of)
    edits.append(yamledit.Edit(at, at, "\n" + yamledit.choice_text(move.new, module, flow, indent, first_key)))
    return edits


def widen(spec_text: str, versions: Iterable[Version], known: Iterable[Version] = ()) -> str:
    """`spec_text` widened just enough to hold `versions`, in its own order and style. An upper
    bound `<X` moves to the next minor release unless that would claim a `known` release (one
    the index lists) that was not proven: then it becomes `<=` the highest release proven."""
    vs = sorted(versions)
    others = [k for k in known if k not in vs and not k.is_prerelease]
    low, high = vs[0], vs[-1]
    out: list[str] = []
    for part in (p.strip() for p in spec_text.split(",")):
        if not part:
            continue
        try:
            s = Specifier(part)
        except InvalidSpecifier:
            raise UsageError(f"`supported: {spec_text}` cannot be widened automatically", "edit it by hand")
        if all(s.contains(v, prereleases=True) for v in vs):
            out.append(part)
        elif s.operator == "<":
            bound = _next_minor(high, len(Version(s.version).release))
            unproven = [k for k in others if high < k < Version(bound) and not s.contains(k, prereleases=True)]
            out.append(f"<={high}" if unproven else f"<{bound}")
        elif s.operator == "<=":
            out.append(f"<={high}")
        elif s.operator in (">=", ">"):
            out.append(f">={low}")
        elif s.operator == "==" and "*" not in s.version:
            pinned = Version(s.version)
            out += [f">={min(pinned, low)}", f"<={max(pinned, high)}"]
        elif s.operator == "!=":
            continue
        else:
            raise UsageError(f"`supported: {spec_text}` ({part}) cannot be widened automatically", "edit it by hand")
    text = ",".join(out)
    if not text:  # only exclusions, each dropped: every release (the loader refuses an empty range)
        raise UsageError(
            f"`supported: {spec_text}` widened to {', '.join(map(str, vs))} claims every release", "edit it by hand"
        )
    if not all(SpecifierSet(text).contains(v, prereleases=True) for v in vs):
        raise UsageError(f"`supported: {spec_text}` cannot be widened to {', '.join(map(str, vs))}", "edit it by hand")
    return text


def _next_minor(v: Version, parts: int) -> str:
    release = list(v.release) + [0, 0]
    if parts <= 1:
        return str(release[0] + 1)
    bumped = [release[0], release[1] + 1] + [0] * (parts - 2)
    return ".".join(str(n) for n in bumped)


def edited(port: Port) -> Patch:
    """The edited entry, loaded from its text as the registry file it will become (payload paths
    resolve and errors name that file; nothing is written, so --dry-run proves too and a read-only
    registry is no internal error)."""
    assert port.after is not None
    return loader.load_bytes(port.patch.source, port.after.encode("utf-8"))


def prove_edit(port: Port, releases: Releases, stream: TextIO | None = None) -> list[tuple[Version | None, str]]:
    """Prove the edited entry over its whole new `supported` range: the releases that fail, with why
    (no version: the edit itself cannot be loaded or verified)."""
    try:
        entry = edited(port)
        report = verify(entry, entry.supported, releases, probe=False, stream=stream, requires=port.requires)
    except RadpatchError as exc:
        return [(None, exc.message)]
    return [(r.version, r.error or "fails") for r in report.failing]


def summary(
    failing: list[tuple[Version | None, str]],
    claimed: Iterable[Version] = (),
    had: Iterable[Version] = (),
    name: str = "NAME",
) -> str:
    """The failing releases in one bounded line: grouped by the check that fails (each group's count,
    first and last release, and one example), and, when every one lies below (or above) the releases
    asked for, which bound of `supported` to move; failing releases between those the entry claimed
    before (`had`) and those asked for are named with what to do (moving a bound would drop releases
    that pass)."""
    if any(v is None for v, _ in failing):
        return "; ".join(_short(e) for v, e in failing if v is None)
    groups: dict[str, list[tuple[Version, str]]] = {}
    for v, e in failing:
        assert v is not None
        groups.setdefault(e.split(":", 1)[0], []).append((v, e))
    parts = []
    for check, items in groups.items():
        vs = sorted(v for v, _ in items)
        span = f"{vs[0]}" if len(vs) == 1 else f"{len(vs)} releases from {vs[0]} to {vs[-1]}"
        parts.append(f"{span} fail {check} (e.g. {vs[-1]}: {_short(dict(items)[vs[-1]])})")
    out = "; ".join(parts)
    asked = sorted(claimed)
    bad = sorted(v for v, _ in failing if v is not None)
    own = sorted(had)
    between = [v for v in bad if own and asked and (own[-1] < v < asked[0] or asked[-1] < v < own[0])]
    if between:
        names = ", ".join(map(str, between))
        span = f'">={between[0]},<={between[-1]}"' if len(between) > 1 else str(between[0])
        out += (
            f"; {names} lie{'s' if len(between) == 1 else ''} between the releases the entry claimed and those "
            f"asked for: port {'them' if len(between) > 1 else 'it'} first (`radpatch port {name} --to {span}`) "
            f"to see what each needs, or leave {'them' if len(between) > 1 else 'it'} out of `supported:` "
            f"({', '.join(f'!={v}' for v in between)}) by hand"
        )
    elif asked and bad and bad[-1] < asked[0]:
        out += (
            f"; every one is below {asked[0]}, the releases asked for: raise `supported`'s lower bound, "
            "or port them too"
        )
    elif asked and bad and bad[0] > asked[-1]:
        out += (
            f"; every one is above {asked[-1]}, the releases asked for: lower `supported`'s upper bound, "
            "or port them too"
        )
    return out


def _short(text: str, limit: int = 160) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def in_series(patches: list[Patch], load: Callable[[str], Patch]) -> list[Patch]:
    """The named entries in the order apply runs them (an entry after those it requires): a requirement
    ported in the same command is ported first, and the entries after it are proven on its edit."""
    from radpatch.registry import series

    named = {p.name for p in patches}
    return [p for p in series.with_requirements(patches, load) if p.name in named]


def write(port: Port) -> None:
    """Replace the registry file atomically (same directory, same mode). A registry entry that is a
    symlink (a registry of links into a shared checkout) is edited where it points, the link kept.
    The file must still be what `plan` read: an editor that saved it while the edit was being
    proven keeps its change (the edit would silently drop it)."""
    assert port.after is not None
    src = port.patch.source
    real = Path(os.path.realpath(src))
    try:
        now: str | None = real.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        now = None
    if now != port.before:
        raise RefusedError(f"{src}: changed since port read it; the edit was not written", "run `radpatch port` again")
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", dir=real.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(port.after)
        os.chmod(tmp, real.stat().st_mode & 0o7777)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
