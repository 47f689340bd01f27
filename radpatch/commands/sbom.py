"""`radpatch status --format cyclonedx`: what is patched in this environment, as a CycloneDX 1.6 BOM.

Supply-chain tooling asks "what is in this image?" as an SBOM; a distribution radpatch patched is
no longer the wheel its purl names. CycloneDX records exactly this as a component's pedigree:
each patched distribution is one component (purl `pkg:pypi/NAME@VERSION`), and its
`pedigree.patches` lists the entries applied to it, in the order `status` lists them:

- `type`: `backport` when the entry names the upstream change it carries (`upstream:` links),
  else `unofficial` (a local change no upstream has);
- `diff.text`: the unified diff pristine -> installed, exactly as `radpatch diff NAME` prints it;
- `resolves`: one issue per `upstream:` link (its URL as reference, `owner/repo#N` as id).

Listed: every entry applied, and every entry the environment's record (`.radpatch/record.json`)
holds, whether or not a loaded registry has it: a BOM made without the registry (a later build
stage, a scanner) still lists what radpatch changed, from the record (name, digest, files and their
hashes, the diff from the kept originals). An entry that is not applied and not recorded is not in
the image. The digest named is the one applied (the record's), with the registry's current one
beside it when the entry has changed since. A recorded entry whose files are not what radpatch
wrote (drifted, edited by hand) is listed and flagged (`radpatch:state`), and the command exits 3
after printing the BOM, as `status --check` would: its diff cannot be vouched for.
The wheel the component comes from is its `pedigree.ancestors` (the unmodified release, same purl),
so a scanner matching advisories by purl still finds it.
"""

from __future__ import annotations

import datetime
import json
import re
import urllib.parse
import uuid
from dataclasses import dataclass
from pathlib import Path

import click

from radpatch import __version__
from radpatch.context import Context
from radpatch.errors import EXIT_CHECK_FAILED, EXIT_OK
from radpatch.files import read_regular
from radpatch.state.decide import PatchState, State, patch_state
from radpatch.state.diffs import recorded_diff, unified_diff
from radpatch.state.record import ABSENT, PatchRecord, Store, state_sha

SPEC_VERSION = "1.6"
_GITHUB = re.compile(r"https?://github\.com/([^/]+/[^/]+)/(?:pull|issues)/(\d+)")


@dataclass(frozen=True)
class Listed:
    """One entry of a component's pedigree: from its state (a loaded entry) and/or its record."""

    name: str
    dist: tuple[str, str]  # (distribution, version)
    digest: str  # the revision applied (the record's), else the loaded entry's
    current: str  # the loaded entry's digest ("" when no registry has it)
    links: tuple[str, ...]  # `upstream:` of the loaded entry
    summary: str
    diff: str | None  # None: it cannot be made (a kept original is gone)
    files: tuple[tuple[str, str], ...]  # (relpath, sha256 radpatch wrote)
    flag: str  # "" when the files are as radpatch left them, else why not


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


def _patch(a: Listed) -> dict[str, object]:
    out: dict[str, object] = {"type": "backport" if a.links else "unofficial"}
    if a.diff is not None:
        out["diff"] = {"text": {"contentType": "text/x-diff", "content": a.diff}}
    if a.links:
        out["resolves"] = [_resolves(link) for link in a.links]
    return out


def _note(a: Listed) -> str:
    note = f"{a.name}: {a.summary}" if a.summary else f"{a.name}: not in the loaded registries (listed from the record)"
    if a.current and a.current != a.digest:
        note += (
            f" (the registry's entry has changed since it was applied: applied {a.digest[:12]}, now {a.current[:12]})"
        )
    if a.diff is None:
        note += " (no diff: a kept original is gone)"
    return note + (f"; NOT AS APPLIED: {a.flag}" if a.flag else "")


def _properties(a: Listed) -> list[dict[str, str]]:
    out = [
        {"name": "radpatch:patch", "value": a.name},
        {"name": "radpatch:registry_digest", "value": a.digest},
        {"name": "radpatch:state", "value": f"{a.name}: " + (a.flag or "applied")},
    ]
    if a.current and a.current != a.digest:
        out.append({"name": "radpatch:current_registry_digest", "value": f"{a.name}: {a.current}"})
    out += [{"name": "radpatch:file", "value": f"{a.name}: {path} sha256:{sha}"} for path, sha in a.files]
    return out


def bom(listed: list[Listed]) -> dict[str, object]:
    by_dist: dict[tuple[str, str], list[Listed]] = {}
    for a in listed:
        by_dist.setdefault(a.dist, []).append(a)
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
                "description": "patched in place by radpatch: " + ", ".join(a.name for a in patches),
                "pedigree": {
                    "ancestors": [{"type": "library", "bom-ref": ref, "name": name, "version": version, "purl": ref}],
                    "patches": [_patch(a) for a in patches],
                    "notes": "; ".join(_note(a) for a in patches),
                },
                "properties": [p for a in patches for p in _properties(a)],
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


def _one_line(text: str, limit: int = 200) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def _installed(root: Path, dist: str, version: str) -> bool:
    want = (re.sub(r"[-_.]+", "-", dist).lower(), version)
    for info in root.glob("*.dist-info"):
        name, _, ver = info.name[: -len(".dist-info")].partition("-")
        if (re.sub(r"[-_.]+", "-", name).lower(), ver) == want:
            return True
    return False


def _intact(store: Store, rec: PatchRecord) -> str:
    """Empty when every file of the record is as radpatch's chain of entries left it, else what is not."""
    if not _installed(store.root, rec.distribution, rec.version):
        return f"recorded for {rec.distribution} {rec.version}, which is not installed here (a stale record)"
    for f in rec.files:
        top = store.chain(f.path)[-1][1].patched_sha256
        try:
            now = state_sha(read_regular(store.root / f.path))
        except FileNotFoundError:
            now = ABSENT
        except OSError as exc:
            return f"{f.path} cannot be read ({exc.strerror})"
        if now != top:
            return f"{f.path} is not what radpatch wrote (sha256 {now[:12]}, recorded {top[:12]}): drifted"
    return ""


def collect(ctx: Context, names: tuple[str, ...]) -> list[Listed]:
    """The named entries (default: every entry of the registries, and every entry the environment's
    record holds), as the BOM lists them."""
    patches = ctx.registry.load_many(list(names) if names else ctx.registry.names())
    out: list[Listed] = []
    seen: set[str] = set()
    for p in patches:
        s = patch_state(p, ctx.env)
        if s.dist is None or (s.state is not State.APPLIED and s.record is None):
            continue  # not in the image
        seen.add(p.name)
        store = Store(s.dist.root)
        applied = s.state is State.APPLIED
        diff = unified_diff(s) if applied else (recorded_diff(store, s.record) if s.record else None)
        files = tuple((f.path, f.patched_sha256) for f in s.record.files) if s.record else ()
        flag = "" if applied else f"{s.state.value}: {s.reason}" if s.reason else s.state.value
        dist = (s.dist.name, str(s.dist.version))
        digest = s.record.registry_digest if s.record else p.digest
        out.append(Listed(p.name, dist, digest, p.digest, p.upstream, p.summary, diff, files, flag))
    if names:
        return out
    for d in ctx.env.paths:
        store = Store(d)
        for name, rec in sorted(store.records().items(), key=lambda item: item[1].seq):
            if name in seen:
                continue
            seen.add(name)
            files = tuple((f.path, f.patched_sha256) for f in rec.files)
            dist = (rec.distribution, rec.version)
            diff = recorded_diff(store, rec)
            out.append(Listed(name, dist, rec.registry_digest, "", (), "", diff, files, _intact(store, rec)))
    return out


def run(ctx: Context, names: tuple[str, ...]) -> int:
    """The BOM of the named entries (default: every entry of the registries and of the record); exit 3
    when a recorded entry's files are not as radpatch wrote them."""
    listed = collect(ctx, names)
    click.echo(json.dumps(bom(listed), indent=2))
    flagged = [a for a in listed if a.flag]
    if flagged:
        click.echo(
            f"radpatch: {len(flagged)} recorded entr{'y is' if len(flagged) == 1 else 'ies are'} not as applied "
            f"(flagged in the BOM's radpatch:state): {flagged[0].name}: {_one_line(flagged[0].flag)}",
            err=True,
        )
        return EXIT_CHECK_FAILED
    return EXIT_OK
