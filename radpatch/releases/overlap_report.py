"""The overlaps `list` and `verify` report, by the one decision apply refuses with
(prove.overlaps.order_matters): on every release the entries' ranges name and the releases verify
listed before (the cached list, so a list run never asks the index), the two orders tried on
verify's cached release files (no network; for `list`, else on the installed release's files where
their bytes are the release's): reported where the order matters, left out where both
orders write the same code, and said to be one that "may overlap" where no release's file was at
hand; one line per pair of entries."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from radpatch.errors import RadpatchError
from radpatch.install.dist_infos import canonical_name
from radpatch.prove.overlaps import gaps, order_matters
from radpatch.prove.overlaps.pairs import Overlap
from radpatch.registry.model import Patch, Rewrite

if TYPE_CHECKING:
    from radpatch.install.environment import PythonEnv


def find(patches: list[Patch], texts: gaps.Texts | None = None) -> list[Overlap]:
    """Every overlap between two of the entries, on the probed releases (`probes`): those whose order
    matters on the modules' text per release `texts` (`cached`), and those it has no text to try
    (`Overlap.tried` False)."""
    return order_matters.overlaps(patches, probes(patches), texts)


def probes(patches: Iterable[Patch], extra: Iterable[Version] = ()) -> list[Version]:
    """The versions to test: those every range of the entries names, the extra ones, and the cached list."""
    out: set[Version] = set(extra)
    listed: set[str] = set()
    for p in patches:
        specs: list[SpecifierSet] = [p.supported, *(c.versions for t in p.modules for c in t.choices)]
        specs += [r.versions for r in p.rewrites if r.versions is not None]
        for spec in specs:
            for s in spec:
                try:
                    out.add(Version(s.version.rstrip(".*")))
                except InvalidVersion:
                    pass
        if p.distribution not in listed:
            listed.add(p.distribution)
            out.update(_cached_listing(p.distribution))
    return sorted(out)


def _cached_listing(dist: str) -> list[Version]:
    from radpatch.state.verified import cache_root  # no network: only what verify listed before

    try:
        data = json.loads((cache_root() / canonical_name(dist) / "versions.json").read_text())
        return [Version(v) for v in data["versions"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, InvalidVersion):
        return []


def cached(env: PythonEnv | None = None) -> gaps.Texts:
    """The release's module from verify's cache (no network); where verify has not read it and `env` is
    given, the installed module when the installed release is that release and its bytes are the
    release's (`installed_release`); else None."""
    from radpatch.releases import modules
    from radpatch.releases.wheels import Releases

    releases: list[Releases] = []

    @functools.cache
    def text(p: Patch, rw: Rewrite, v: Version) -> str | None:
        choice = p.module(rw.file).module_for(v)
        if choice is None:
            return None
        if not releases:
            releases.append(Releases.from_env())
        release = releases[0].cached(p.distribution, v, frozenset(choice.candidates))
        data = None if release is None else release.read(modules.choose(choice, (rw,), release).relpath)
        if data is None and env is not None:
            data = installed_release(env, p, rw, v)
        return _decoded(data)

    return text


def installed_release(env: PythonEnv, p: Patch, rw: Rewrite, v: Version) -> bytes | None:
    """The module `rw` changes as release `v` ships it, read from the install: the installed release is
    `v` and the file's bytes are those its RECORD names, or radpatch keeps those bytes (an entry is
    applied there); None otherwise (a file edited by hand is not the release)."""
    import hashlib

    from radpatch.files import read_regular
    from radpatch.install import locate
    from radpatch.install.targets import rewritten_files
    from radpatch.registry.model import rewrites_by_file
    from radpatch.state.record import Store

    try:
        dist = locate.find_target(env, p)
        if dist is None or dist.version != v:
            return None
        found = rewritten_files(p, dist, rewrites_by_file(p, v))
        relpath = (
            None if isinstance(found, RadpatchError) else next((t.relpath for t in found if rw in t.rewrites), None)
        )
        wheel = None if relpath is None else dist.recorded_sha256(relpath)
        if relpath is None or wheel is None:
            return None
        data = read_regular(dist.root / relpath)
        return data if hashlib.sha256(data).hexdigest() == wheel else Store(dist.root).original(wheel)
    except (RadpatchError, OSError, ValueError, TypeError):
        return None


def _decoded(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def lines(found: list[Overlap]) -> list[str]:
    """One line per pair of entries (their overlapping rewrites listed), for list and verify: `overlap: `
    where the order matters on a release's file, `may overlap: ` where no file was at hand to try it."""
    by_pair: dict[tuple[str, str, bool], list[Overlap]] = {}
    for o in found:
        by_pair.setdefault((o.first, o.second, o.tried), []).append(o)
    out = []
    for (a, b, tried), os_ in by_pair.items():
        said = "overlap: " if tried else "may overlap: "
        untried = "" if tried else f"; {UNTRIED.format(a=a, b=b)}"
        if len(os_) == 1:
            out.append(said + os_[0].describe() + untried)
            continue
        order = "ordered by `requires:`" if all(o.ordered for o in os_) else "no order between them (`requires:`)"
        each = "; ".join(f"{o.first_rewrite}/{o.second_rewrite}: {o.what} in {o.module}" for o in os_)
        out.append(f"{said}{a} and {b} {said[:-2]} in {len(os_)} places ({each}); {order}{untried}")
    return out


# an overlap the registry text finds with no release's file at hand to try the two orders on
UNTRIED = "not tried on a release's file: `radpatch verify {a} {b}` reads the release and tries both orders"
