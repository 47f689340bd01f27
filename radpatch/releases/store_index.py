"""Which modules of a release's package may store an attribute name, for a package with more `.py`
files than verify reads for it (package_files.MAX_FILES; vLLM's 2,000 to 3,600) (issue 23, port49).

A rename is followed only where no other module of the package may store or delete the renamed
name (radpatch.releases.renamed_release's rules): an attribute store or `del` (`x.size = ...`), or a
`setattr`-like call whose string constants name it or that has none. Every such hit is, in that
module's syntax tree, an `ast.Attribute` stored or deleted whose `attr` is the name, or a call of
`setattr`, `delattr`, `__setattr__` or `__delattr__`; so the index keeps, per module, those attribute
names, the calls' string constants, and ANY for a call with none (or a module that does not parse
here: the rules then read it, as before); for an `exec` or `eval`, the names its code may store where
that is a string literal (radpatch.releases.exec_code), else ANY (the rules refuse such a call unless
the entry vouches for it, exec51). The modules whose words meet the
names asked (or hold ANY) are the only ones the rules can find a store in: they are read, at most
MAX_FILES of them, and the rules run on them exactly as on a small package's every module.

The index is built once per release from every `.py` file under the package, read by range requests
in one pass and not kept (vLLM 0.33.0: 3,231 files, 11.6 MiB compressed, 48 MiB of source), and kept
beside the release's cache entry, keyed by the wheel's RECORD (`<wheel>.stores.json`)."""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import time
from collections.abc import Iterable

from radpatch.errors import EnvironmentProblem
from radpatch.releases import exec_code, package_files, remotezip, renamed
from radpatch.releases.cache import write_json
from radpatch.releases.index import Offline
from radpatch.releases.wheel_pick import _check_record
from radpatch.releases.wheel_records import Release
from radpatch.releases.wheels import Releases

ANY = "*"  # a module that may store any name: a setattr-like call with no string constant, or no tree here
FORMAT = 4  # the index's layout and rules; another value is built again (3: literal exec code, 4: exec out of sight)
SETTERS = ("setattr", "delattr", "__setattr__", "__delattr__")


def words(source: bytes) -> list[str]:
    """The attribute names `source` stores or deletes, the string constants of its setattr-like calls,
    and ANY for such a call with none or a module that does not parse: sorted."""
    tree = renamed.parse_or_none(source)
    if tree is None:
        return [ANY]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            out.add(node.attr)
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if called in SETTERS:
                said = {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
                out |= said or {ANY}
            elif exec_code.runs_code(node):  # literal code: the names it may store (exec_code); other: ANY
                text = exec_code.code_of(node)
                out |= set(exec_code.stored(text)) if text is not None else {ANY}
    if ANY not in out and any(not isinstance(site, ast.Call) for site, _ in exec_code.unread_sites(tree)):
        out.add(ANY)  # exec/eval out of sight (`_run = exec`): what it runs later may store anything
    return sorted(out)


def candidates(
    releases: Releases, release: Release, tops: frozenset[str], names: Iterable[str]
) -> frozenset[str] | str:
    """The `.py` files under `tops` in which a store of one of `names` may be (read into the release's
    cache, for the rules to read), or why they cannot be told within verify's budget, in its words."""
    index = _index(releases, release, tops)
    if isinstance(index, str):
        return index
    asked = set(names)
    found = frozenset(m for m, ws in index.items() if ANY in ws or asked.intersection(ws))
    if len(found) > package_files.MAX_FILES:
        return (
            f"{len(found)} of its modules may store {', '.join(sorted(asked))} (a store or setattr-like call), "
            f"verify reads at most {package_files.MAX_FILES}"
        )
    if found:
        releases.get(release.dist, release.version, found)  # one read of them all, kept in the cache
    return found


def _record(release: Release) -> tuple[str, bytes] | None:
    name = next((m for m in release.members if m.endswith(".dist-info/RECORD") and m.count("/") == 1), None)
    data = release.read(name) if name is not None else None
    return None if name is None or data is None else (name, data)


def _index(releases: Releases, release: Release, tops: frozenset[str]) -> dict[str, list[str]] | str:
    """Module -> words for every `.py` file the wheel's RECORD lists under `tops`: kept, or built."""
    record = _record(release)
    if record is None:
        return "the wheel's RECORD could not be read"
    rows = csv.reader(io.StringIO(record[1].decode("utf-8", "replace")))
    listed = frozenset(r[0] for r in rows if r and r[0].endswith(".py") and r[0].split("/")[0] in tops)
    key = {"format": FORMAT, "record": hashlib.sha256(record[1]).hexdigest(), "tops": sorted(tops)}
    path = releases.dist_dir(release.dist) / str(release.version) / f"{release.wheel}.stores.json"
    try:
        kept = json.loads(path.read_bytes())
        if isinstance(kept, dict) and kept.get("key") == key and isinstance(kept.get("modules"), dict):
            return {str(m): [str(w) for w in ws] for m, ws in kept["modules"].items()}
    except (OSError, ValueError):
        pass
    try:
        wheel = releases.wheel_of(release.dist, release.version)
        releases.say(
            f"radpatch: indexing the stores of {release.dist} {release.version}'s {len(listed)} modules "
            "(range requests, once per release)"
        )
        before, t0 = releases.read_elsewhere, time.monotonic()
        got = remotezip.read_members(releases.http, wheel.url, lambda ns: listed & ns, None, releases.count)
        releases.say(
            f"radpatch: indexed {release.dist} {release.version}: read {releases.read_elsewhere - before} bytes "
            f"in {time.monotonic() - t0:.1f} s"
        )
    except Offline as exc:
        return f"the index could not be asked for its modules ({exc.message})"
    except EnvironmentProblem as exc:
        return f"its modules could not be read ({exc})"
    if not listed <= set(got.data):
        return "the wheel lacks some of the modules its RECORD lists"
    _check_record(wheel.filename, {record[0]: record[1], **got.data}, listed)
    modules = {m: words(got.data[m]) for m in sorted(listed)}
    write_json(path, {"key": key, "modules": modules})
    return modules
