"""A rename refused for code run by `exec`/`eval` that radpatch cannot read (issue 23, exec51): the
words of the refusal, naming every such call by file:line, scope and statement (and, where an item
names the statement elsewhere or with other bindings, what changed: att52 #3a, #3b), and the
`vouched_exec:` YAML that vouches for them; and the items that match nothing in a release (stale).
Which calls those are and where they stand: radpatch.releases.exec_code, radpatch.releases.exec_sites."""

from __future__ import annotations

import ast
import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.registry.model import Patch, VouchedExec
from radpatch.releases import exec_sites
from radpatch.releases.exec_sites import Site
from radpatch.releases.wheels import Releases

if TYPE_CHECKING:
    from radpatch.releases.results import ReleaseResult


def item(site: Site) -> str:
    """One `vouched_exec:` item as YAML flow (the texts quoted as JSON, which YAML reads alike)."""
    at = f"file: {site.file}, scope: {json.dumps(site.scope)}, code: {json.dumps(site.code)}"
    nth = f", occurrence: {site.occurrence}" if site.occurrence != 1 else ""
    binds = f", binds: [{', '.join(json.dumps(b) for b in site.binds)}]" if site.binds else ""
    return f"{{{at}{nth}{binds}, reads: {json.dumps(site.reads)}}}"


def to_json(v: VouchedExec) -> dict[str, object]:
    return {
        "file": v.file,
        "scope": v.scope,
        "code": v.code,
        "occurrence": v.occurrence,
        "binds": list(v.binds),
        "reads": v.reads,
    }


def said(v: VouchedExec) -> str:
    """The item in words: its file, scope, statement (and which occurrence)."""
    where = "module level" if v.scope == exec_sites.MODULE else v.scope or "no scope given"
    nth = f" ({exec_sites.ordinal(v.occurrence)})" if v.occurrence != 1 else ""
    return f"{v.file} ({where}): `{v.code}`{nth}"


def refusal(head: str, unread: Sequence[tuple[Site, str]], names: Sequence[str], listed: bool) -> str:
    """`head`, then the calls (and what changed since an item vouched for them) whose code may store
    `names`, and the YAML to add if the entry's author, having read each, vouches that it stores none of them."""
    where = [f"{s.file}:{s.line} `{s.code}`" + (f" ({why})" if why else "") for s, why in unread]
    named = ", ".join(f"`{n}`" for n in dict.fromkeys(names))
    items = ", ".join(dict.fromkeys(item(s) for s, _ in unread))
    add = f"add to the entry's vouched_exec: list: {items}" if listed else f"add to the entry: vouched_exec: [{items}]"
    return (
        f"{head}: code run by exec/eval that radpatch cannot read (another module of the package) may store "
        f"{named}: {'; '.join(where)}; if you have read it and it cannot, {add}"
    )


Read = Callable[[str], bytes | None]


def stale(items: Sequence[VouchedExec], read: Read) -> tuple[tuple[tuple[int, str], ...], tuple[int, ...]]:
    """(index, why) of each item that matches no call in the release `read` reads (att52 #3 item 3); and
    the index of each item whose file the release does not have: not stale, out of its reach (vouch2 #2)."""
    trees: dict[str, list[Site] | None] = {}
    out: list[tuple[int, str]] = []
    absent: list[int] = []
    for i, v in enumerate(items):
        if v.file not in trees:
            data = read(v.file)
            tree = _parsed(data)
            trees[v.file] = None if data is None else exec_sites.sites(v.file, tree) if tree else []
        found = trees[v.file]
        if found is None:
            absent.append(i)
        elif why := exec_sites.stale(v, found):
            out.append((i, why))
    return tuple(out), tuple(absent)


def absent_words(items: Sequence[VouchedExec], absent: Sequence[tuple[object, Sequence[int]]]) -> list[str]:
    """One line per item whose file some releases do not have: which item, which releases (not stale)."""
    out = []
    for i, v in enumerate(items):
        where = [str(version) for version, indices in absent if i in indices]
        if where:
            out.append(
                f"vouched_exec[{i}] {said(v)} does not apply to {', '.join(where)}: there is no {v.file} there "
                "(not stale: nothing there for it to vouch for)"
            )
    return out


def stale_words(patch_items: Sequence[VouchedExec], version: object, i: int, why: str) -> str:
    """One stale item, in words: which item, which release, what to do."""
    return (
        f"vouched_exec[{i}] {said(patch_items[i])} matches nothing in {version}: {why}; "
        "a rename there does not rest on it: drop it, or replace it with the item verify's refusal prints"
    )


def _parsed(data: bytes | None) -> ast.Module | None:
    try:
        return None if data is None else ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def marked(patch: Patch, results: Sequence[ReleaseResult], releases: Releases) -> tuple[ReleaseResult, ...]:
    """Each result with the entry's `vouched_exec:` items that match nothing in its release (`stale`), and
    those whose file it does not have (`absent`)."""
    if not patch.vouched_exec:
        return tuple(results)

    def reader(version: Version) -> Read:
        def read(rel: str) -> bytes | None:
            try:
                return releases.get(patch.distribution, version, frozenset([rel])).read(rel)
            except RadpatchError:
                return None

        return read

    out = []
    for r in results:
        if r.checks.get("wheel"):
            found, absent = stale(patch.vouched_exec, reader(r.version))
            r = dataclasses.replace(r, stale=found, absent=absent)
        out.append(r)
    return tuple(out)
