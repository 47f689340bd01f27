"""port following a renamed scope (issue 23, port44): the release's declared module binds the old name
to a definition of a new one (radpatch.releases.renamed). The entry's YAML is edited on its text
(radpatch.releases.yamledit: comments and layout stay): each rewrite of the `modules:` name whose
scope's first name is the old one gets a variant for the release on, `versions: ">=V"`, its `scope:`
(`function:`, `before:`/`after:` of insert_definitions) renamed, written right after it; the rewrite
as written keeps its text, its `versions:` joined with `<V` (or given one). Where the new name is
defined in another module, every rewrite of that name must be of the renamed scope (else the scopes
split: by hand), and `modules:` gets a choice of that module from V on (port_edits.add_choice).
The edit counts only when verify, on the edited text loaded as the registry file, proves it on the
release: the matrix cell is then moved (proven), port writes it. A qualified scope follows a renamed
first name (`C.meth`, `C = NewC`: `NewC.meth`), and a method renamed inside its class (`meth =
meth_new` in the class body, radpatch.releases.renamed_class: `C.meth_new`). A backport across a
rename (radpatch.releases.renamed_back: the release asked for is older, under the old name) gets the
variant for the releases before the entry's first release after it (`versions: "<B"`), and the
rewrite as written `>=B`."""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.registry import loader
from radpatch.registry.model import Patch
from radpatch.releases import port_edits, yamledit
from radpatch.releases.renamed import Renamed
from radpatch.releases.renamed_back import Backported
from radpatch.releases.verify import verify
from radpatch.releases.wheels import Releases

_SCOPE_KEYS = ("scope", "function", "before", "after")
_NOT_OPS = ("id", "versions", "file")


@dataclass(frozen=True)
class Followed:
    """The entry's text with the renamed variant written for `at` on, what it does, and whether it proves."""

    text: str | None  # None: it cannot be written in place (why says so)
    changes: tuple[str, ...]
    proven: bool
    why: str = ""


def under(scope: str, name: str) -> bool:
    """`scope` is the renamed `name` or a scope inside it (`C.size` of `C`; `C.size.inner` of `C.size`)."""
    return scope == name or scope.startswith(name + ".")


def new_scope(found: Renamed, qualname: str) -> str:
    return found.target + qualname[len(found.name) :]


def edits(
    text: str, root: yaml.MappingNode, patch: Patch, file: str, found: Renamed, at: Version
) -> tuple[list[yamledit.Edit], list[str]]:
    """The edits of `text` that give the rewrites of `file` naming `found.name` a variant from `at` on."""
    back = found.back if isinstance(found, Backported) else None  # a backport: the variant is for `<back`
    rewrites = [rw for rw in patch.rewrites if rw.file == file and rw.applies_to(back or at)]
    mine = [rw for rw in rewrites if under(rw.op.scope_name(), found.name)]
    if not mine:
        raise ValueError(f"no rewrite of {file!r} names the scope {found.name!r}")
    if found.module != found_declared(patch, file, at) and len(mine) != len(rewrites):
        raise ValueError(
            f"the scopes of {file!r} split: {found.target} is in {found.module}, the other rewrites' scopes are not"
        )
    items = yamledit.get(root, "rewrites")
    if not isinstance(items, yaml.SequenceNode) or len(items.value) != len(patch.rewrites):
        raise ValueError("the `rewrites:` list cannot be read in place")
    out: list[yamledit.Edit] = []
    said: list[str] = []
    for item, rw in zip(items.value, patch.rewrites):
        if rw not in mine:
            continue
        if not isinstance(item, yaml.MappingNode):
            raise ValueError(f"rewrite {rw.id!r} is no mapping")
        new = new_scope(found, rw.op.scope_name())
        end = _item_end(text, item)
        old_range = rw.versions and str(yamledit.get(item, "versions").value)  # type: ignore[union-attr]
        mine_range, other_range = mine_range_of(back, at)
        keep = _ranged(text, item, f"{old_range},{other_range}" if old_range else other_range)
        start = text.rfind("\n", 0, item.start_mark.index) + 1
        made = [*_ranged(text, item, mine_range), _scope(text, item, rw.op.scope_name(), new)]
        made += _set(text, item, "id", f"{rw.id}-{new}", quote=False)  # ids are unique: the new name in it
        # LF lines, as every edit's text is: a CRLF file's edits get CRLF lines (port, `follow`) all alike
        copy = yamledit.apply(text[start:end], [_shift(e, start) for e in made]).replace("\r\n", "\n")
        versions_at_end = [e for e in keep if e.start == end]
        out += [e for e in keep if e.start != end]
        out.append(yamledit.Edit(end, end, "".join(e.text for e in versions_at_end) + "\n" + copy))
        said.append(f"rewrites.{rw.id}: a variant for {mine_range} with scope {new!r} ({found.describe()})")
    if found.module != found_declared(patch, file, at):  # a backport's choice goes first, for the older range
        move = port_edits.Move(*mine_range_of(back, at), at, first=bool(back))
        out += port_edits.add_choice(text, root, patch, file, found.module, move)
        said.append(f"modules.{file}: {found.module} for >={at}")
    return out, said


def mine_range_of(back: Version | None, at: Version) -> tuple[str, str]:
    """The ranges of the new `modules:` choice and of the choice it takes releases from."""
    return (f"<{back}", f">={back}") if back else (f">={at}", f"<{at}")


def found_declared(patch: Patch, file: str, at: Version) -> str | None:
    choice = patch.module(file).module_for(at)
    return choice.module if choice is not None else None


def follow(
    patch: Patch, file: str, found: Renamed, at: Version, releases: Releases, requires: tuple[Patch, ...] = ()
) -> Followed:
    """The renamed variant written for `at` on, proven by verify on `at` (the edited text loaded as the file)."""
    try:
        before = patch.source.read_bytes().decode("utf-8")
        root = yamledit.compose(before)
        made, said = edits(before, root, patch, file, found, at)
        if "\r\n" in before:
            made = [yamledit.Edit(e.start, e.end, e.text.replace("\n", "\r\n")) for e in made]
        after = yamledit.apply(before, made)
    except (OSError, UnicodeDecodeError, ValueError, RadpatchError) as exc:
        return Followed(None, (), False, str(exc))
    try:
        entry = loader.load_bytes(patch.source, after.encode("utf-8"))
        # proven as claiming `at` (as port writes it): the old variant, ended at `at`, is not dropped there
        entry = dataclasses.replace(entry, supported=SpecifierSet(f"=={at}"), supported_text=f"=={at}")
        report = verify(entry, SpecifierSet(f"=={at}"), releases, probe=False, stream=io.StringIO(), requires=requires)
    except RadpatchError as exc:
        return Followed(after, tuple(said), False, exc.message)
    r = next((r for r in report.results if r.version == at), None)
    if r is None or not r.ok:
        return Followed(after, tuple(said), False, (r.error or "fails") if r else "not verified")
    return Followed(after, tuple(said), True)


def said(found: Renamed, got: Followed) -> str:
    """What the cell says: moved under the new name (a backport: the old one), and whether the rewrites prove so."""
    name = f"the {'old' if isinstance(found, Backported) else 'new'} name {found.target!r}"
    if got.proven:
        return f"{found.describe()}: the rewrites prove under {name} (port writes the variant)"
    why = got.why.splitlines()[0] if got.why else "fails"
    return f"{found.describe()}: the rewrites do not prove under {name}: {why}; {found.hint}"


def _item_end(text: str, item: yaml.Node) -> int:
    """The end of the rewrite item's last line (a trailing comment kept on it): a block collection's
    end mark lies at the next line's start, so its last value's end is taken, at any depth."""
    last = item
    while isinstance(last, (yaml.MappingNode, yaml.SequenceNode)) and last.value and not last.flow_style:
        last = last.value[-1][1] if isinstance(last, yaml.MappingNode) else last.value[-1]
    at = last.end_mark.index if getattr(last, "flow_style", False) else yamledit.end_of(text, last)
    return yamledit.line_end(text, at)


def _shift(e: yamledit.Edit, by: int) -> yamledit.Edit:
    return yamledit.Edit(e.start - by, e.end - by, e.text)


def _ranged(text: str, item: yaml.MappingNode, value: str) -> list[yamledit.Edit]:
    """`versions:` of the rewrite item set to `value`."""
    return _set(text, item, "versions", value)


def _set(text: str, item: yaml.MappingNode, key: str, value: str, quote: bool = True) -> list[yamledit.Edit]:
    """`key` of the rewrite item set to `value`: its scalar replaced, or the key added after its last."""
    node = yamledit.get(item, key)
    written = yamledit.quoted(value) if quote else value
    if isinstance(node, yaml.ScalarNode):
        if quote or getattr(node, "style", None):
            return [yamledit.set_scalar(text, node, value)]
        return [yamledit.Edit(node.start_mark.index, node.end_mark.index, written)]
    if node is not None:
        raise ValueError(f"a rewrite's `{key}:` is no scalar")
    if item.flow_style:
        at = item.end_mark.index - 1
        return [yamledit.Edit(at, at, f", {key}: {written}")]
    indent = yamledit.indent_of(text, item.value[0][0].start_mark.index)
    end = _item_end(text, item)
    return [yamledit.Edit(end, end, "\n" + " " * indent + f"{key}: {written}")]


def _scope(text: str, item: yaml.MappingNode, old: str, new: str) -> yamledit.Edit:
    """The operation's scalar naming the scope `old` set to `new`."""
    for key, op in item.value:
        if isinstance(key, yaml.ScalarNode) and key.value in _NOT_OPS:
            continue
        for name in _SCOPE_KEYS:
            node = yamledit.get(op, name)
            if isinstance(node, yaml.ScalarNode) and node.value.strip() == old:
                if getattr(node, "style", None):  # quoted: as it was quoted
                    return yamledit.set_scalar(text, node, new)
                return yamledit.Edit(node.start_mark.index, node.end_mark.index, new)
    raise ValueError(f"no `scope:` naming {old!r} to rename")


def ported(
    text: str,
    root: yaml.MappingNode,
    patch: Patch,
    renames: list[tuple[Version, str, Renamed]],
    others: list[Version],
) -> tuple[list[yamledit.Edit], list[str]] | str:
    """port's edits for the releases asked for whose scope was renamed ((release, `modules:` name,
    binding) each), from the first of them on; `others`: the other releases claimed. Why it is left
    alone instead, when the releases disagree or the text cannot be edited in place."""
    out: list[yamledit.Edit] = []
    said: list[str] = []
    for file in dict.fromkeys(f for _, f, _ in renames):
        mine = [(v, found) for v, f, found in renames if f == file]
        low, found = min(mine, key=lambda m: m[0])
        if any((m.module, m.target, m.name) != (found.module, found.target, found.name) for _, m in mine):
            return f"{file}: the scope is renamed differently across the releases asked for: edit by hand"
        if isinstance(found, Backported) and any(v < max(v for v, _ in mine) for v in others):
            return f"{file}: releases before {max(v for v, _ in mine)} already use the new name: edit by hand"
        if not isinstance(found, Backported) and any(v > low for v in others):
            return f"{file}: releases after {low} still use the old name: edit by hand"
        try:
            more, words = edits(text, root, patch, file, found, low)
        except ValueError as exc:
            return f"{file}: {exc}: edit by hand"
        out += more
        said += words
    return out, said
