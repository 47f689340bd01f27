"""`radpatch status --format cyclonedx`: what is patched in this environment, as a CycloneDX 1.6 BOM.

Supply-chain tooling asks "what is in this image?" as an SBOM; a distribution radpatch patched is
no longer the wheel its purl names. CycloneDX records exactly this as a component's pedigree:
each patched distribution is one component (purl `pkg:pypi/NAME@VERSION`), and its
`pedigree.patches` lists the entries applied to it, in the order `status` lists them:

- `type`: `backport` when the entry names the upstream change it carries (`upstream:` links),
  else `unofficial` (a local change no upstream has);
- `diff.text`: the unified diff pristine -> installed, exactly as `radpatch diff NAME` prints it;
- `resolves`: one issue per `upstream:` link (its URL as reference, `owner/repo#N` as id).

Only applied entries are listed (an entry that is not applied is not in the image). The wheel the
component comes from is its `pedigree.ancestors` (the unmodified release, same purl), so a scanner
matching advisories by purl still finds it.
"""

from __future__ import annotations

import datetime
import json
import re
import urllib.parse
import uuid
from dataclasses import dataclass

import click

from radpatch import __version__
from radpatch.context import Context
from radpatch.errors import EXIT_OK
from radpatch.state.decide import PatchState, State, patch_state
from radpatch.state.diffs import unified_diff

SPEC_VERSION = "1.6"
_GITHUB = re.compile(r"https?://github\.com/([^/]+/[^/]+)/(?:pull|issues)/(\d+)")


@dataclass(frozen=True)
class Applied:
    state: PatchState
    diff: str


def upstream(state: PatchState) -> tuple[str, ...]:
    """The entry's `upstream:` links (the PRs or issues whose change it carries)."""
    return state.patch.upstream


def purl(name: str, version: str) -> str:
    # PEP 503 normalised name, as the purl spec's pypi type asks (lowercase, '_' -> '-'); the version
    # percent-encoded, as every purl component is: a local version's `+` (vLLM's `0.33.0+cpu`) is `%2B`
    return f"pkg:pypi/{re.sub(r'[-_.]+', '-', name).lower()}@{urllib.parse.quote(version, safe='')}"


def _resolves(link: str) -> dict[str, object]:
    found = _GITHUB.match(link)
    ident = f"{found.group(1)}#{found.group(2)}" if found else link
    return {"type": "defect", "id": ident, "name": ident, "references": [link]}


def _patch(a: Applied) -> dict[str, object]:
    links = upstream(a.state)
    out: dict[str, object] = {
        "type": "backport" if links else "unofficial",
        "diff": {"text": {"contentType": "text/x-diff", "content": a.diff}},
    }
    if links:
        out["resolves"] = [_resolves(link) for link in links]
    return out


def bom(states: list[PatchState]) -> dict[str, object]:
    applied = [Applied(s, unified_diff(s)) for s in states if s.state is State.APPLIED and s.dist is not None]
    by_dist: dict[tuple[str, str], list[Applied]] = {}
    for a in applied:
        assert a.state.dist is not None
        by_dist.setdefault((a.state.dist.name, str(a.state.dist.version)), []).append(a)
    components = []
    for (name, version), patches in by_dist.items():
        ref = purl(name, version)
        components.append(
            {
                "type": "library",
                "bom-ref": f"{ref}+radpatch",
                "name": name,
                "version": version,
                "purl": ref,
                "description": "patched in place by radpatch: " + ", ".join(a.state.patch.name for a in patches),
                "pedigree": {
                    "ancestors": [{"type": "library", "bom-ref": ref, "name": name, "version": version, "purl": ref}],
                    "patches": [_patch(a) for a in patches],
                    "notes": "; ".join(f"{a.state.patch.name}: {a.state.patch.summary}" for a in patches),
                },
                "properties": [{"name": "radpatch:patch", "value": a.state.patch.name} for a in patches]
                + [{"name": "radpatch:registry_digest", "value": a.state.patch.digest} for a in patches],
            }
        )
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return {
        "bomFormat": "CycloneDX",
        "specVersion": SPEC_VERSION,
        "serialNumber": f"urn:uuid:{uuid.uuid4()}",
        "version": 1,
        "metadata": {
            "timestamp": now.isoformat().replace("+00:00", "Z"),
            "tools": {"components": [{"type": "application", "name": "radpatch", "version": __version__}]},
        },
        "components": components,
    }


def run(ctx: Context, names: tuple[str, ...]) -> int:
    """The named entries (default: every entry of the registries); only the applied ones are listed."""
    patches = ctx.registry.load_many(list(names) if names else ctx.registry.names())
    click.echo(json.dumps(bom([patch_state(p, ctx.env) for p in patches]), indent=2))
    return EXIT_OK
