"""Where did the code go? Find a moved scope in a release's wheel.

When a release no longer defines a rewrite's scope in the module the entry names (vLLM 0.33 moved
`_get_kv_cache_groups_uniform_page_size` from `vllm.v1.core.kv_cache_utils` to
`vllm.v1.core.kv_cache_planning`), the scope is looked for by its code: the wheel's RECORD (cached
with the dist-info) lists its modules; they are read with range requests, nearest first (the
declared module's own package, then the package above it, up to the top-level package, within a
budget), and parsed with `ast` (no libcst, nothing imported); the module the declared one now
imports the scopes from (radpatch.releases.imported_from) is read before them all, an old module
too. A module that defines every scope the target's rewrites name is a candidate; the nearest one
where the rewrites prove (verify's own proof) is named first. The search does not stop dead at the
first tier holding a proving candidate: a new test double beside the declared module is as near as
it gets, and the real new home may be a package away. It reads on up to the package above that tier,
and there only the modules new since the entry's own release (the RECORDs say which): a copy that
appeared with the move is looked for, the package's old modules are not (vLLM 0.33's
kv_cache_planning: 19 modules read instead of the whole budget of 400). When several modules define
the scopes, in any of the tiers read (a compat copy beside the new home, a test double), which one
the program calls cannot be told from the code: every one is named (`also`) and port leaves the
entry alone. Only a single candidate is taken for where the code went, and never one of a `tests`
package alone.
Which modules are read, in which order: radpatch.releases.search_order. A rewrite that still finds
its scope but no longer matches gets its nearest candidate instead (radpatch.releases.nearest_code).
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from itertools import chain
from pathlib import PurePosixPath

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.prove.refusal import Cause, Kind
from radpatch.registry.model import ModuleChoice, NamedModule, Patch, Rewrite, rewrites_by_file
from radpatch.releases import shadowed
from radpatch.releases.imported_from import home, in_tests
from radpatch.releases.search_order import staged, wheel_modules
from radpatch.releases.wheels import Releases

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Moved:
    """The module of `release` that now defines the scopes of `file` (a `modules:` name); `proven`: the
    rewrites prove there."""

    file: str
    old: str  # the module the entry names for this release
    module: str
    proven: bool
    error: str | None  # the proof's failure there, when not proven
    also: tuple[str, ...] = ()  # other modules (any tier) that define the scopes too: ambiguous
    searched: int = 0  # modules read
    obsolete: bool = False  # the module already contains the change (not proven: nothing to port there)
    requirement: str | None = None  # the entry it requires that names no module for the release (not proven)


@dataclass(frozen=True)
class NoMove:
    """No module of the release was found to hold the scopes: what the search could not rule out."""

    searched: int  # modules read
    total: int  # modules of the wheel in the declared module's top-level package
    namesakes: tuple[str, ...] = ()  # modules that define the scopes, but did already next to the old one
    # the scopes of `file` split: (scope, module now defining it) for those gone from the declared
    # module, found elsewhere; and the scopes the declared module still defines
    split: tuple[tuple[str, str], ...] = ()
    stays: tuple[str, ...] = ()
    old: str = ""  # the declared module
    complete: bool = False  # every scope gone from the declared module was found elsewhere
    doubles: tuple[str, ...] = ()  # the only modules defining the scopes are in a tests package

    def describe(self) -> str:
        out = []
        if self.split and self.stays:
            moved = "; ".join(f"{scope} is now defined in {module}" for scope, module in self.split)
            out.append(
                f"the target's scopes split across modules: {moved} (the search read it), while "
                f"{', '.join(self.stays)} stay(s) in {self.old}: give the moved scope's rewrites a `modules:` "
                "target of their own (by hand)"
            )
            if self.complete:
                return "; ".join(out)
        if self.doubles:
            out.append(
                f"only {', '.join(self.doubles)} define(s) the scope, in a tests package (a test double, "
                "not where the code went)"
            )
        if self.namesakes:
            out.append(
                f"{', '.join(self.namesakes)} define(s) the scope but did already where the entry was written "
                "(a namesake, not where the code went)"
            )
        if self.searched < self.total:
            out.append(
                f"unknown whether it moved: the search read the {self.searched} modules nearest the declared one, "
                f"of {self.total}"
            )
        return "; ".join(out)


def scope_gone(kind: Kind) -> bool:
    """The failure is that the scope (or the module itself) is not where the entry looks for it: a
    rewrite's scope is not in the module, the wheel has no file of the module, or no `modules:`
    choice covers the release."""
    return kind.cause in (Cause.SCOPE_GONE, Cause.NO_MODULE, Cause.UNCOVERED)


def scopes(rewrites: tuple[Rewrite, ...]) -> tuple[str, ...]:
    """The qualified names the rewrites need defined (each operation's scope_name: its scope,
    function, or insert_definitions' anchor), in order."""
    return tuple(dict.fromkeys(n for rw in rewrites if (n := rw.op.scope_name()) != "<module>"))


def defines(source: bytes, qualname: str) -> bool:
    """The module defines `qualname` (`f`, `Class`, `Class.method`) at its top level / in its classes,
    and that definition is what runs: no later binding of the name (an import from where it moved,
    say) replaces it (radpatch.releases.shadowed)."""
    if shadowed.later(source, qualname) is not None:
        return False
    try:
        body: list[ast.stmt] = ast.parse(source).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for part in qualname.split("."):
        hits = [s for s in body if isinstance(s, _DEFS) and s.name == part]
        if not hits:
            return False
        body = hits[-1].body
    return True


def module_of(relpath: str) -> str:
    return relpath[: -len(".py")].replace("/", ".").removesuffix(".__init__")


def find_moved(
    patch: Patch, file: str, version: Version, releases: Releases, requires: tuple[Patch, ...] = ()
) -> Moved | NoMove | None:
    """The module of `version`'s wheel that now holds the scopes of `file`, a `modules:` name (proven there if possible,
    on what `requires`, the entries it requires in apply's order, leave of the release's files);
    NoMove when none was found but the search could not rule one out (its budget ran out before
    the package's end) or found only namesakes. A module that defined the scopes already in the
    release the entry was written for is a namesake (a copy of the code in another model, say), not
    where the code went: it is never taken."""
    from radpatch.releases.moved_proof import prove_moved, staying  # verify's proof, on bases as verify reads them
    from radpatch.releases.proof_job import File
    from radpatch.releases.resolved import requirement_layers, uncovered_requirement

    rewrites = rewrites_by_file(patch, version).get(file, ())
    wanted = scopes(rewrites)
    if not wanted:
        return None
    choices = patch.module(file).choices
    declared = patch.module(file).module_for(version)
    old = declared or choices[-1]  # no choice covers the release: start from the latest one, itself included
    release = releases.get(patch.distribution, version, frozenset())
    files = wheel_modules(release)
    found: list[Moved] = []
    namesakes: list[str] = []
    searched = 0
    here = release_read(releases, patch, version, old.relpath)
    missing = [q for q in wanted if here is None or not defines(here, q)]
    split: dict[str, str] = {}  # a scope gone from the declared module -> the nearest module defining it
    first = [(True, [old.relpath])] if declared is None and any(name == old.relpath for name, _ in files) else []
    # where the declared module now imports the scopes from is read first, an old module too
    went = None
    if here is not None and missing:
        went = home(
            old.relpath, wanted, {n for n, _ in files}, lambda p: release_read(releases, patch, version, p), defines
        )
    if went is not None:
        first.insert(0, (True, [went]))
    done: set[str] = set()
    # once a tier holds a proving candidate, only modules new since the entry's own release are read, up
    # to the package above it: where a test double or the real home beside a near candidate appears
    new: list[set[str]] = []  # (once set) the modules new since the entry's own release

    def keep(name: str) -> bool:
        return not new or name in new[0]

    for package, tier in chain(first, staged(old.relpath, files, wanted, keep)):
        last = bool(new) and package  # the package tier above the one that answered: the search's last
        searched += len(tier)
        release = releases.get(patch.distribution, version, frozenset(tier))
        for relpath in tier:
            if relpath in done:
                continue
            done.add(relpath)
            data = release.read(relpath)
            if data is not None and len(missing) < len(wanted):  # some scopes stay: where did the others go?
                for q in missing:
                    if q not in split and defines(data, q) and relpath != old.relpath:
                        if not _defined_before(patch, file, version, releases, relpath, (q,)):
                            split[q] = module_of(relpath)
            if data is None or not all(defines(data, q) for q in wanted):
                continue
            module = module_of(relpath)
            if (
                relpath != went
                and module != old.module
                and _defined_before(patch, file, version, releases, relpath, wanted)
            ):
                namesakes.append(module)
                continue
            moved = with_module(patch, file, version, module)
            whole = releases.get(patch.distribution, version, _needs(requires))
            gap = uncovered_requirement(requires, moved, version, whole)
            if gap is not None:  # apply would refuse: the module is not proven on the bare release instead
                lacking = next(p.name for p in requires if uncovered_requirement((p,), moved, version, whole))
                found.append(Moved(file, old.module, module, False, gap, requirement=lacking))
                continue
            below = requirement_layers(requires, moved, version, whole) or ()
            there = (File(file, module, relpath, rewrites, data),)
            # where a rewrite does not match, it may hold the change in upstream's layout: read off the
            # entry's own releases (stacked on its requirements there as here), spread as verify reads them
            got = prove_moved(moved, there, version, releases, below, requires)
            found.append(Moved(file, old.module, module, got.error is None, got.error, obsolete=got.obsolete))
        if last:
            break
        if not new and any(m.proven for m in found):
            new.append(_new_modules(patch, file, version, releases, files))
    if found:  # nearest proving one first; any other is ambiguity (a test double, a compat copy), in any tier
        pick = next((m for m in found if m.proven), found[0])
        if len(found) == 1 and in_tests(pick.module):  # a test double alone: not where the code went
            top = PurePosixPath(old.relpath).parts[0]
            total = sum(1 for name, _ in files if PurePosixPath(name).parts[0] == top and name != old.relpath)
            return NoMove(searched, total, tuple(namesakes), doubles=(pick.module,))
        pick = dataclasses.replace(pick, also=tuple(m.module for m in found if m is not pick), searched=searched)
        left = staying(patch, rewrites, here, old.relpath) if pick.proven and here is not None else ()
        if left:  # a move carries only the rewrites whose scope moved: these stay (not proven as moved)
            why = f"module-level rewrite(s) {', '.join(map(repr, left))} still change code {old.module} keeps"
            pick = dataclasses.replace(pick, proven=False, error=f"{why}: split the entry by hand")
        return pick
    top = PurePosixPath(old.relpath).parts[0]
    total = sum(1 for name, _ in files if PurePosixPath(name).parts[0] == top and name != old.relpath)
    stays = tuple(q for q in wanted if q not in missing)
    if split and stays:
        gone = tuple((q, split[q]) for q in missing if q in split)
        return NoMove(searched, total, tuple(namesakes), gone, stays, old.module, len(gone) == len(missing))
    if namesakes or searched < total:
        return NoMove(searched, total, tuple(namesakes))
    return None


def release_read(releases: Releases, patch: Patch, version: Version, relpath: str) -> bytes | None:
    """The wheel member `relpath` of the release (None when the wheel has no such file)."""
    return releases.get(patch.distribution, version, frozenset([relpath])).read(relpath)


def _defined_before(
    patch: Patch, file: str, version: Version, releases: Releases, relpath: str, wanted: tuple[str, ...]
) -> bool:
    """The module `relpath` defined the scopes already in the entry's own release nearest `version`
    (where the entry's declared module held them): two copies then, not a move."""
    listed = releases.versions(patch.distribution, patch.supported).versions
    own = [v for v in listed if v != version and patch.supported.contains(v, True) and patch.module(file).module_for(v)]
    if not own:
        return False
    below = [v for v in own if v < version]
    base = below[-1] if below else own[0]
    data = releases.get(patch.distribution, base, frozenset([relpath])).read(relpath)
    return data is not None and all(defines(data, q) for q in wanted)


def _new_modules(
    patch: Patch, file: str, version: Version, releases: Releases, files: list[tuple[str, int]]
) -> set[str]:
    """The modules of `files` (`version`'s wheel) that the entry's own release nearest `version` did
    not have (its RECORD, cached with the dist-info); every one when the entry has no such release."""
    listed = releases.versions(patch.distribution, patch.supported).versions
    own = [v for v in listed if v != version and patch.supported.contains(v, True) and patch.module(file).module_for(v)]
    names = {name for name, _ in files}
    if not own:
        return names
    below = [v for v in own if v < version]
    base = below[-1] if below else own[0]
    return names - {name for name, _ in wheel_modules(releases.get(patch.distribution, base, frozenset()))}


def with_module(patch: Patch, file: str, version: Version, module: str) -> Patch:
    """The entry with `file` pointing at `module` for `version` (and its other choices kept for the rest)."""
    pinned = ModuleChoice(SpecifierSet(f"=={version}"), module)
    others = tuple(
        ModuleChoice(c.versions & SpecifierSet(f"!={version}"), c.module) for c in patch.module(file).choices
    )
    modules = tuple(NamedModule(t.name, (pinned, *others)) if t.name == file else t for t in patch.modules)
    return dataclasses.replace(patch, modules=modules)


def _needs(requires: tuple[Patch, ...]) -> frozenset[str]:
    from radpatch.releases.modules import needs

    return needs(requires)
