"""The modules a release's wheel is read for beyond those asked: the ones its star imports and the
decorators of its modules are read from, followed (radpatch.prove.star_exports,
radpatch.releases.imported_decorators)."""

from __future__ import annotations

import threading

from radpatch.releases.wheel_records import Release


def with_stars(release: Release, needs: frozenset[str]) -> frozenset[str]:
    """`needs` and both files each module a star import among them reads may be, followed through
    their own star imports, as far as `release` holds them: verify tells from the star-imported
    module whether a later star import rebinds what a patch changes, as apply does from the
    target's path (radpatch.prove.star_exports); and the modules of the package that the decorators
    of `needs` are imported from, followed (radpatch.releases.imported_decorators). A module the wheel lacks
    (another distribution's) stays unread: the proof then cannot tell."""
    with _PARSING:
        return _with_stars(release, needs)


# verify fetches releases in threads (verifier._fetch), and each follows its star imports and
# decorators by parsing modules with `ast`. CPython 3.11 (seen on 3.11.7) keeps the AST
# constructor's recursion depth per interpreter, not per thread, so two parses at once can raise
# "SystemError: AST constructor recursion depth mismatch" (cf. python/cpython#106905): verify
# exited 70. One parse at a time.
_PARSING = threading.Lock()


def _with_stars(release: Release, needs: frozenset[str]) -> frozenset[str]:
    from radpatch.prove import star_exports  # only for wheels read or checked, not on import
    from radpatch.releases import imported_decorators

    out = needs
    own = [n for n in needs if n in release.members]
    while True:
        more = out | star_exports.wanted(release.read, [n for n in out if n in release.members])
        more |= imported_decorators.wanted(release.read, own)  # where their decorators are defined (bindings)
        if more == out:
            return out
        out = more
