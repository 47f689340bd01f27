"""Validate one registry YAML file into a `Patch`, reporting every problem with file:line:col.

The YAML is *composed* (never constructed): tags such as !!python/object are never honoured,
and aliases are followed under a node budget so an alias bomb costs a bounded amount of work.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import yaml

from radpatch.errors import RegistryError
from radpatch.files import read_regular
from radpatch.registry.loader import top_keys, vouched
from radpatch.registry.loader.nodes import MAX_BYTES, Invalid, Problems, TooBig, mapping, specifier, string, undecodable
from radpatch.registry.loader.operations import EntryReader
from radpatch.registry.model import Patch

TOP_REQUIRED = {"summary", "description", "distribution", "supported", "modules", "rewrites"}
TOP_OPTIONAL = {"obsolete", "knobs", "providers", "prereleases", "requires", "upstream", "vouched_exec"}


def compose(ctx: Problems, data: bytes) -> yaml.Node:
    if len(data) > MAX_BYTES:
        ctx.problems.append(f"{ctx.file}: file is larger than {MAX_BYTES} bytes")
        raise Invalid()
    bad = None if data.startswith((b"\xff\xfe", b"\xfe\xff")) else undecodable(data)  # UTF-16/32: YAML reads its BOM
    if bad:
        line, column, byte = bad
        ctx.problems.append(
            f"{ctx.file}:{line}:{column}: byte {byte} is not UTF-8; save the registry file as UTF-8 (YAML's encoding)"
        )
        raise Invalid()
    try:
        node = yaml.compose(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"{ctx.file}:{mark.line + 1}:{mark.column + 1}" if mark else str(ctx.file)
        ctx.problems.append(f"{at}: not valid YAML: {getattr(exc, 'problem', None) or exc}")
        raise Invalid()
    if node is None:
        ctx.problems.append(
            f"{ctx.file}:1:1: the file is empty; expected a mapping with keys {', '.join(sorted(TOP_REQUIRED))}"
        )
        raise Invalid()
    return node


def load_patch(file: Path) -> Patch:
    """Load and validate one registry file; raise RegistryError listing every problem."""
    try:
        data = read_regular(file, MAX_BYTES)
    except OSError as exc:
        raise RegistryError([f"{file}: cannot read registry file ({exc.strerror})"])
    return load_bytes(file, data)


def load_bytes(file: Path, data: bytes) -> Patch:
    """load_patch on `data` as the contents of `file` (e.g. an edit proven before it is written)."""
    ctx = Problems(file)
    try:
        patch = _load(ctx, data)
    except (Invalid, TooBig):
        patch = None
    except RecursionError:
        ctx.problems.append(f"{file}: YAML nested too deeply")
        patch = None
    if ctx.problems or patch is None:
        raise RegistryError(ctx.problems or [f"{file}: invalid registry file"])
    return patch


def revision_digest(data: bytes, payloads: dict[str, bytes]) -> str:
    """The entry's revision: the sha256 of its YAML, and of each payload with the path the entry
    names it by and its length (att53 #2: bytes moved from one payload to the next, or from the YAML
    to a payload, made the same revision when they were hashed one after the other). An entry with
    no payload keeps the sha256 of its YAML alone, as records before this framing have it."""
    if not payloads:
        return hashlib.sha256(data).hexdigest()
    digest = hashlib.sha256(b"radpatch-entry-2\0")
    for part in (
        data,
        *(x for rel in sorted(payloads) for x in (rel.encode("utf-8", "surrogateescape"), payloads[rel])),
    ):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def _load(ctx: Problems, data: bytes) -> Patch:
    root = compose(ctx, data)
    top = mapping(ctx, root, "", set(), TOP_REQUIRED | TOP_OPTIONAL)
    for key in sorted(TOP_REQUIRED - top.keys()):
        ctx.fail(root, "", f"missing required key {key!r}")
    loader = EntryReader(ctx)
    fields: dict[str, object] = {}

    def read(key: str, fn: Callable[[yaml.Node, str], object]) -> None:
        if key in top:
            try:
                fields[key] = fn(top[key], key)
            except Invalid:
                pass

    read("summary", lambda n, p: top_keys.one_line(ctx, n, p))
    read("description", lambda n, p: string(ctx, n, p))
    read("distribution", lambda n, p: top_keys.distributions(ctx, n, p))
    read("providers", lambda n, p: top_keys.choice(ctx, n, p, ("any", "named")))
    read("prereleases", lambda n, p: top_keys.choice(ctx, n, p, ("accept", "refuse")))
    read("supported", lambda n, p: specifier(ctx, n, p))
    read("obsolete", lambda n, p: specifier(ctx, n, p))
    read("knobs", lambda n, p: top_keys.knobs(ctx, n, p))
    read("requires", lambda n, p: top_keys.requires(ctx, n, p))
    read("upstream", lambda n, p: top_keys.upstream(ctx, n, p))
    read("vouched_exec", lambda n, p: vouched.vouched_exec(ctx, n, p))
    read("modules", lambda n, p: top_keys.modules(ctx, loader, n, p))
    modules = fields.get("modules")
    names = {t.name for t in modules} if isinstance(modules, tuple) else set()
    read("rewrites", lambda n, p: top_keys.rewrites(ctx, loader, n, p, names))
    if ctx.problems:
        raise Invalid()
    digest = revision_digest(
        data, {os.path.relpath(f, ctx.file.parent.resolve()): b for f, b in loader.payloads.items()}
    )
    return Patch(
        name=ctx.file.stem,
        summary=str(fields["summary"]),
        description=str(fields["description"]),
        distribution=fields["distribution"][0],  # type: ignore[index]
        distributions=fields["distribution"],  # type: ignore[arg-type]
        providers=fields.get("providers", "any"),  # type: ignore[arg-type]
        prereleases=fields.get("prereleases", "accept"),  # type: ignore[arg-type]
        supported=fields["supported"],  # type: ignore[arg-type]
        obsolete=fields.get("obsolete"),  # type: ignore[arg-type]
        knobs=fields.get("knobs", ()),  # type: ignore[arg-type]
        modules=fields["modules"],  # type: ignore[arg-type]
        rewrites=fields["rewrites"],  # type: ignore[arg-type]
        source=ctx.file,
        digest=digest,
        supported_text=string(ctx, top["supported"], "supported").strip(),
        requires=fields.get("requires", ()),  # type: ignore[arg-type]
        upstream=fields.get("upstream", ()),  # type: ignore[arg-type]
        vouched_exec=fields.get("vouched_exec", ()),  # type: ignore[arg-type]
    )
