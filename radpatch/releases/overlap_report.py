"""The overlaps `list` and `verify` report (prove.overlaps finds them, by the rules apply refuses
with): on every release the entries' ranges name and the releases verify listed before (the cached
list, so a list run never asks the index), two insertions at one gap judged on verify's cached
release files (no network); one line per pair of entries."""

from __future__ import annotations

import json
from collections.abc import Iterable

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from radpatch.install.dist_infos import canonical_name
from radpatch.prove.overlaps import gaps, pairs
from radpatch.prove.overlaps.pairs import Overlap
from radpatch.registry.model import Patch, Rewrite


def find(patches: list[Patch], texts: gaps.Texts | None = None) -> list[Overlap]:
    """Every overlap between two of the entries, on the probed releases (`probes`). `texts`: the
    modules' text per release (`cached`), to see two insertions at one place whose anchors differ."""
    return pairs.find(patches, probes(patches), texts)


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


def cached() -> gaps.Texts:
    """The release's module from verify's cache (no network): None when verify has not read it."""
    from radpatch.releases import modules
    from radpatch.releases.wheels import Releases

    releases: list[Releases] = []

    def text(p: Patch, rw: Rewrite, v: Version) -> str | None:
        choice = p.module(rw.file).module_for(v)
        if choice is None:
            return None
        if not releases:
            releases.append(Releases.from_env())
        release = releases[0].cached(p.distribution, v, frozenset(choice.candidates))
        data = None if release is None else release.read(modules.choose(choice, (rw,), release).relpath)
        return _decoded(data)

    return text


def _decoded(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def lines(found: list[Overlap]) -> list[str]:
    """One line per pair of entries (their overlapping rewrites listed), for list and verify."""
    by_pair: dict[tuple[str, str], list[Overlap]] = {}
    for o in found:
        by_pair.setdefault((o.first, o.second), []).append(o)
    out = []
    for (a, b), os_ in by_pair.items():
        if len(os_) == 1:
            out.append(os_[0].describe())
            continue
        order = "ordered by `requires:`" if all(o.ordered for o in os_) else "no order between them (`requires:`)"
        each = "; ".join(f"{o.first_rewrite}/{o.second_rewrite}: {o.what} in {o.module}" for o in os_)
        out.append(f"{a} and {b} overlap in {len(os_)} places ({each}); {order}")
    return out
