"""radpatch's version policy: which installed versions a range admits, the same under every
`packaging` release radpatch allows.

`version in SpecifierSet(...)` leaves pre-releases to packaging's default, and that default
changed (packaging 26 admits a dev build such as 0.33.1.dev42 where 24-25 exclude it). radpatch
never relies on it: every check passes `prereleases=True` explicitly and applies its own policy:

* final releases, post releases (0.32.0.post1) and local labels (0.32.0+cu128, +cpu): judged by
  PEP 440 ordering like any release; a local label is ignored by a range without one.
* pre-releases and development builds (0.33.0rc1, 0.33.1.dev42+g1234abc, 0.32.0rc2.dev5+gabc):
  judged by PEP 440 ordering too, so 0.33.1.dev42 is inside `>=0.22.0,<0.34`. Two PEP 440
  rules refuse some of them, and radpatch says which: a pre-release comes *before* its release
  (0.22.0rc1 is outside `>=0.22.0`), and `<V` excludes V's own pre-releases (0.34.0rc1 is outside
  `<0.34`).
* a registry entry may set `prereleases: refuse`: then every pre-release or development build is
  refused, with that reason, even inside the range.

The proof does not depend on the version: whatever version radpatch accepts, the patch is still
applied only if every rewrite matches the installed files exactly once, compiles and reverses.
"""

from __future__ import annotations

from typing import Literal

from packaging.specifiers import Specifier, SpecifierSet
from packaging.version import Version

from radpatch.errors import RefusedError

Policy = Literal["accept", "refuse"]


def allows(spec: SpecifierSet, version: Version) -> bool:
    """Is `version` in `spec` by PEP 440 ordering, pre-releases admitted (independent of packaging's default)?"""
    return spec.contains(version, prereleases=True)


def kind(version: Version) -> str:
    """A word for what sort of build a version is, for messages."""
    if version.is_devrelease:
        return "development build"
    if version.is_prerelease:
        return "pre-release"
    if version.is_postrelease:
        return "post-release"
    return "release"


def refusal(spec: SpecifierSet, spec_text: str, version: Version, policy: Policy, who: str) -> RefusedError | None:
    """None when the policy admits `version` under `spec`; else the refusal (a value, never raised)
    saying why not, in one line.

    `who` names the installed distribution and patch for the message,
    e.g. "vllm 0.34.0rc1 is installed; kv_group_size"."""
    if policy == "refuse" and version.is_prerelease:
        return RefusedError(
            f"{who} supports {spec_text} and accepts only final releases (prereleases: refuse); "
            f"{version} is a {kind(version)} of {version.base_version}"
        )
    if allows(spec, version):
        return None
    why = _prerelease_rule(spec, version)
    return RefusedError(f"{who} supports {spec_text}" + (f"; {why}" if why else ""))


def _prerelease_rule(spec: SpecifierSet, version: Version) -> str:
    """For a pre-release outside `spec` because of a PEP 440 pre-release rule, that rule."""
    if not version.is_prerelease:
        return ""
    base = Version(version.base_version)
    for s in (s for s in spec if not s.contains(version, prereleases=True)):
        if s.operator == "<" and _spec_version(s) == base:
            return (
                f"{version} is a {kind(version)} of {base}, "
                f"and PEP 440 makes `{s}` exclude {s.version}'s own pre-releases"
            )
        if s.contains(base, prereleases=True):
            return (
                f"{version} is a {kind(version)} of {base}, "
                f"which PEP 440 orders before {base} itself, so `{s}` excludes it"
            )
    return ""


def _spec_version(s: Specifier) -> Version | None:
    try:
        return Version(s.version)
    except ValueError:  # a wildcard (==0.32.*) or an arbitrary-equality string
        return None
