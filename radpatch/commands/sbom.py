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
wrote (drifted, edited by hand) is listed and flagged (`radpatch:state`), without a diff (every
entry of the file alike, as `radpatch diff` refuses each), and the command exits 3 after printing
the BOM, as `status --check` would.
The wheel the component comes from is its `pedigree.ancestors` (the unmodified release, same purl),
so a scanner matching advisories by purl still finds it.
"""

from __future__ import annotations

import base64
import datetime
import re
import urllib.parse
import uuid

import click

from radpatch import __version__
from radpatch.commands import json_output
from radpatch.context import Context
from radpatch.errors import EXIT_CHECK_FAILED, EXIT_OK
from radpatch.prove.diffs import unified_diff
from radpatch.prove.form import judge
from radpatch.registry.loader import links
from radpatch.registry.loader.links import github_ref
from radpatch.registry.loader.nodes import URL_CHAR
from radpatch.state import unloaded
from radpatch.state.inventory import Listed, collect
from radpatch.state.recorded_diffs import NoDiff
from radpatch.write.takeover import renamed_requirement

SPEC_VERSION = "1.6"
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def purl(name: str, version: str) -> str:
    # PEP 503 normalised name, as the purl spec's pypi type asks (lowercase, '_' -> '-'); the version
    # percent-encoded, as every purl component is: a local version's `+` (vLLM's `0.33.0+cpu`) is `%2B`
    return f"pkg:pypi/{re.sub(r'[-_.]+', '-', name).lower()}@{urllib.parse.quote(version, safe='')}"


def iri(link: str) -> str:
    """`link` as a valid IRI-reference, as `resolves[].references` must be: the registry refuses any
    other `upstream:` link (registry.loader.nodes.URL), so this only guards the BOM's validity:
    a character a link cannot hold, a `%` that starts no escape, a second `#`, a second `@` and a `:`
    that starts no port are percent-encoded, and an IPv6 host is written out whole."""
    parts = links.split(link)
    if parts is None:
        return _chars(link)
    scheme, user, host, port, rest = parts
    user = user[:-1].replace("@", "%40") + user[-1:]  # one '@' ends the user name
    if links.bad_port(port):
        host, port = host + port, ""
    address = links.ipv6(host)
    if address is not None:  # written out whole: the strict validator (rfc3987-syntax) refuses a '::'
        return _chars(scheme + user) + f"[{address.exploded}]" + _chars(port + rest)
    return _chars(scheme + user + host.replace(":", "%3A") + port + rest)  # a ':' in a host starts no port


def _chars(link: str) -> str:
    head, hash_, fragment = link.partition("#")
    fixed = _BAD_ESCAPE.sub("%25", head) + hash_ + _BAD_ESCAPE.sub("%25", fragment).replace("#", "%23")
    return "".join(c if URL_CHAR.match(c) else urllib.parse.quote(c, safe="") for c in fixed)


def _resolves(link: str) -> dict[str, object]:
    ident = github_ref(link) or link
    return {"type": "defect", "id": ident, "name": ident, "references": [iri(link)]}


def _patch(a: Listed) -> dict[str, object]:
    out: dict[str, object] = {"type": "backport" if a.links else "unofficial"}
    if isinstance(a.diff, str):
        out["diff"] = {"text": _attachment(a.diff)}
    if a.links:
        out["resolves"] = [_resolves(link) for link in a.links]
    return out


def _attachment(diff: str) -> dict[str, str]:
    """The diff as the text a JSON string can hold when it is UTF-8, else (a file in another PEP 263
    coding: its bytes kept as surrogates by state.recorded_diffs.file_diff) base64 of its bytes, so
    `patch -p1` rebuilds the installed bytes from either."""
    try:
        diff.encode("utf-8")
    except UnicodeEncodeError:
        data = diff.encode("utf-8", "surrogateescape")
        return {"contentType": "text/x-diff", "encoding": "base64", "content": base64.b64encode(data).decode("ascii")}
    return {"contentType": "text/x-diff", "content": diff}


def _note(a: Listed) -> str:
    note = f"{a.name}: {a.summary}" if a.summary else f"{a.name}: not in the loaded registries (listed from the record)"
    if a.current and a.current != a.digest:
        note += (
            f" (the registry's entry has changed since it was applied: applied {a.digest[:12]}, now {a.current[:12]})"
        )
    if isinstance(a.diff, NoDiff):
        note += f" (no diff: {a.diff.why})"
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


def run(ctx: Context, names: tuple[str, ...]) -> int:
    """The BOM of the named entries (default: every entry of the registries and of the record); exit 3
    when a recorded entry's files are not as radpatch wrote them."""
    renamed = renamed_requirement(ctx.registry, ctx.env)  # a requirement applied under its old name is met
    if names:  # a named entry no loaded registry has but the record holds is listed from the record, as status does
        only = unloaded.recorded(ctx.env, ctx.registry.names())
        wanted = ctx.registry.load_many([n for n in dict.fromkeys(names) if n not in only])
        listed = collect(ctx.registry, wanted, ctx.env, set(names) & set(only), judge, unified_diff, renamed)
    else:
        every = ctx.registry.load_many(ctx.registry.names())
        listed = collect(ctx.registry, every, ctx.env, None, judge, unified_diff, renamed)
    json_output.emit(bom(listed))
    flagged = [a for a in listed if a.flag]
    if flagged:
        click.echo(
            f"radpatch: {len(flagged)} recorded entr{'y is' if len(flagged) == 1 else 'ies are'} not as applied "
            "(flagged in the BOM's radpatch:state): "
            + "; ".join(f"{a.name}: {_one_line(a.flag, 200 // len(flagged) + 40)}" for a in flagged),
            err=True,
        )
        return EXIT_CHECK_FAILED
    return EXIT_OK
