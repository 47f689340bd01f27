"""What `status` says of a patch beside its state, from the entry and from verify's cache (no
network): declared obsolete for the installed release, obsolete upstream (the verified releases that
contain the change), or new code that may not take effect there. Split out of commands/status.py
(issue 22: commands thin), behaviour unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from radpatch.state.decide import PatchState, State

if TYPE_CHECKING:
    from radpatch.releases.summaries import Run


def declared_obsolete(s: PatchState) -> str:
    """The entry declares the installed release obsolete (`obsolete:`), in words ("" otherwise)."""
    declined = s.state is State.OBSOLETE or (s.declined is not None and s.declined.obsolete)
    if not declined or s.patch.obsolete is None or s.dist is None:
        return ""
    return (
        f"declared obsolete for {s.dist.name} {s.dist.version} by the entry (`obsolete: {s.patch.obsolete}`): "
        "apply does nothing here"
    )


def obsolete_upstream(s: PatchState) -> str:
    """ "obsolete upstream in X..Y" (releases.summaries.obsolete_words, as `list` says it) when verify
    found (radpatch.releases: its cache, no network) that the installed release contains the change:
    every verified release that does, in runs that each hold every release between their ends."""
    from radpatch.releases.summaries import obsolete_all, obsolete_words
    from radpatch.state.verified import cache_root

    if obsolete_upstream_run(s) is None:
        return ""
    every = obsolete_all(cache_root(), s.patch)
    if every is None:
        return ""
    links = s.patch.upstream
    return obsolete_words(every) + (f" ({', '.join(links)})" if links else "")


def not_in_effect(s: PatchState) -> str:
    """prove.refusal.NOT_IN_EFFECT, with the file, when verify read an installed file of the entry on a
    release and found its new code there may not take effect (its cache, no network): not carried."""
    if s.dist is None or s.state is State.APPLIED and s.record is not None:
        return ""
    from radpatch.prove.refusal import NOT_IN_EFFECT
    from radpatch.state.verified import in_effect

    judge = in_effect(s.patch)
    held = [f.relpath for f in s.files if f.exists and not judge(f.data)]
    return f"{', '.join(held)}: {NOT_IN_EFFECT}" if held else ""


def obsolete_upstream_run(s: PatchState) -> Run | None:
    """X..Y of "obsolete upstream in X..Y": the installed release is one verify read and found to
    contain the change, in a run of such releases from X to Y (None otherwise: the installed file
    decides)."""
    if s.dist is None or s.patch.from_record:
        return None
    from radpatch.releases.summaries import installed_obsolete_run
    from radpatch.state.verified import cache_root

    # only a release verify read, installed as verify read it (not a local build of the same number)
    return installed_obsolete_run(cache_root(), s.patch, s.dist)


def not_as_verified(s: PatchState) -> str:
    """What `status` says instead of "obsolete upstream" when verify found the installed release
    contains the change but the installed files are not, as code, that release's ("" otherwise)."""
    if s.dist is None or s.patch.from_record:
        return ""
    from radpatch.releases.summaries import obsolete_run
    from radpatch.state.verified import cache_root, installed_differs

    root = cache_root()
    differs = installed_differs(root, s.patch, s.dist)
    if not differs or obsolete_run(root, s.patch, s.dist.version) is None:
        return ""
    return (
        f"{', '.join(differs)} differs from the published {s.dist.name} {s.dist.version} verify found "
        "to contain the change: not obsolete upstream here"
    )


def obsolete_upstream_json(s: PatchState) -> dict[str, object] | None:
    """`status --json`'s `obsolete_upstream`: the first release of the run and the `upstream:` links."""
    span = obsolete_upstream_run(s)
    return None if span is None else {"from": str(span.first), "upstream": list(s.patch.upstream)}
