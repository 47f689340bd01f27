"""The parts of an entry read with what the entry read before: each rewrite (its operation, read
as its spec declares it: its FIELDS, then its own read and build checks), its payload files (kept
for the entry's digest), the module file it names, and the module choices of `modules:`.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from packaging.specifiers import SpecifierSet

from radpatch.files import read_regular
from radpatch.registry.code import MAX_DEPTH, depth_over, newer_grammar
from radpatch.registry.loader.field_kinds import READERS
from radpatch.registry.loader.nodes import (
    MAX_BYTES,
    EveryProblem,
    Invalid,
    Problems,
    choice,
    each,
    is_dotted,
    mapping,
    python_name,
    seq,
    specifier,
    string,
    undecodable,
)
from radpatch.registry.model import (
    Field,
    ModuleChoice,
    Operation,
    PayloadFile,
    Rewrite,
)
from radpatch.rewrite.ops import OPERATIONS

# a payload's bytes -> its tree, parsed and found within MAX_DEPTH: a process that loads a registry
# again (verify's releases, the engine's start, a test's many runs) parsed and walked the same
# payloads each time (a 28 kB payload, about 40 ms). The tree is only read (the operations' read
# checks), never changed; a payload that fails is read again, for its message
_checked: dict[bytes, ast.Module] = {}
_CHECKED_MAX = 16


@dataclass
class EntryReader:
    ctx: Problems
    payloads: dict[Path, bytes] = field(default_factory=dict)

    def payload(self, node: yaml.Node, path: str) -> PayloadFile:
        rel = string(self.ctx, node, path)
        try:
            file = (self.ctx.file.parent / rel).resolve()
            data = read_regular(file, MAX_BYTES)
        except ValueError as exc:
            raise self.ctx.fail(node, path, f"payload path {rel!r} is not a valid path ({exc})")
        except OSError as exc:
            raise self.ctx.fail(node, path, f"payload {rel!r} cannot be read ({exc.strerror}): {file}")
        tree = _checked.get(data)
        if tree is not None:
            self.payloads[file] = data
            return PayloadFile(file, data, tree)
        why = _not_text(data)
        if why:
            raise self.ctx.fail(node, path, f"payload {file}:{why}")
        try:
            tree = ast.parse(data, filename=str(file))
        except SyntaxError as exc:
            why = f"payload {file}:{exc.lineno} does not parse: {exc.msg}{newer_grammar(data)}"
            if isinstance(exc, IndentationError) and exc.lineno == _first_code_line(data):
                why += "; payloads are written at column 0 (radpatch indents them where they go)"
            raise self.ctx.fail(node, path, why)
        except ValueError as exc:
            raise self.ctx.fail(node, path, f"payload {file} is not Python source: {exc}")
        except (RecursionError, MemoryError):
            tree = None
        if tree is None or depth_over(tree):
            why = f"nested too deeply (more than {MAX_DEPTH} levels) for radpatch to analyse"
            raise self.ctx.fail(node, path, f"payload {file} is {why}")
        if len(_checked) >= _CHECKED_MAX:
            _checked.pop(next(iter(_checked)))
        _checked[data] = tree
        self.payloads[file] = data
        return PayloadFile(file, data, tree)

    def op(self, kind: str, node: yaml.Node, path: str) -> Operation:
        """Read one operation as its spec declares it (its FIELDS, then its own read and build checks)."""
        ctx = self.ctx
        spec = OPERATIONS[kind]
        fields = {f.key: f for f in spec.FIELDS}
        m = mapping(
            ctx,
            node,
            path,
            {k for k, f in fields.items() if f.required},
            {k for k, f in fields.items() if not f.required},
        )
        get = EveryProblem()
        values: dict[str, object] = {}
        for key, value in m.items():
            values[key] = get(self.read, spec, fields[key], value, f"{path}.{key}")
        for group in spec.ONE_OF:
            if sum(k in m for k in group) != 1:
                get.fail(ctx.fail(node, path, f"give exactly one of {' or '.join(repr(k) for k in group)}"))
        for group in spec.ANY_OF:
            if not any(k in m for k in group):
                get.fail(ctx.fail(node, path, f"give {' or '.join(repr(k) for k in group)}, or both"))
        get.check()

        def fail(key: str, message: str, at: str | None = None) -> Invalid:
            return ctx.fail(m.get(at or key, node), f"{path}.{key}", message)

        return spec.build(kind, {fields[k].name: v for k, v in values.items()}, fail)

    def read(self, spec: type[Operation], f: Field, node: yaml.Node, path: str) -> object:
        if f.kind == "payload":
            value: object = self.payload(node, path)
        elif f.kind == "choice":
            value = choice(self.ctx, node, path, f.choices)
        else:
            value = READERS[f.kind](self.ctx, node, path)
        return spec.read(f.key, value, lambda message: self.ctx.fail(node, path, message))

    def rewrite(self, node: yaml.Node, path: str, index: int, files: set[str]) -> Rewrite:
        ops = set(OPERATIONS)
        m = mapping(self.ctx, node, path, set(), {"id", "versions", "file"} | ops)
        get = EveryProblem()
        kinds = sorted(ops & m.keys())
        if len(kinds) != 1:
            get.fail(
                self.ctx.fail(
                    node, path, f"give exactly one operation of: {', '.join(sorted(ops))} (found {kinds or 'none'})"
                )
            )
        rid = get(string, self.ctx, m["id"], f"{path}.id") if "id" in m else f"{(kinds or ['rewrite'])[0]}#{index + 1}"
        versions = get(specifier, self.ctx, m["versions"], f"{path}.versions") if "versions" in m else None
        file = get(self._file, m.get("file"), node, path, files)
        op = get(self.op, kinds[0], m[kinds[0]], f"{path}.{kinds[0]}") if len(kinds) == 1 else None
        get.check()
        assert op is not None
        return Rewrite(rid, file, versions, op, self.ctx.location(node))

    def _file(self, node: yaml.Node | None, rewrite: yaml.Node, path: str, files: set[str]) -> str:
        if node is not None:
            file = string(self.ctx, node, f"{path}.file")
            if not files:
                raise Invalid()  # `modules` itself is invalid and already reported
            if file not in files:
                raise self.ctx.fail(
                    node,
                    f"{path}.file",
                    f"{file!r} is not declared under 'modules' ({', '.join(sorted(files)) or 'none'})",
                )
            return file
        if len(files) == 1:
            return next(iter(files))
        if not files:
            raise Invalid()  # `modules` itself is invalid and already reported
        raise self.ctx.fail(rewrite, path, "several modules are declared: name one with 'file:'")

    def module_choices(self, node: yaml.Node, path: str) -> tuple[ModuleChoice, ...]:
        if isinstance(node, yaml.ScalarNode):
            return (ModuleChoice(SpecifierSet(""), self.dotted(node, path)),)
        out: list[ModuleChoice] = []

        def one(item: tuple[int, yaml.Node]) -> None:
            p = f"{path}[{item[0]}]"
            m = mapping(self.ctx, item[1], p, {"versions", "module"}, set())
            out.append(
                ModuleChoice(
                    specifier(self.ctx, m["versions"], f"{p}.versions"), self.dotted(m["module"], f"{p}.module")
                )
            )

        items = seq(self.ctx, node, path)
        if not items:
            raise self.ctx.fail(
                node, path, "an empty list names no module; write a module name or a list of {versions, module} choices"
            )
        each(list(enumerate(items)), one)
        return tuple(out)

    def dotted(self, node: yaml.Node, path: str) -> str:
        name = string(self.ctx, node, path)
        if not is_dotted(name):
            raise self.ctx.fail(node, path, f"{name!r} is not a dotted module name like 'pkg.sub.mod'")
        return python_name(name)


def _not_text(data: bytes) -> str | None:
    """What keeps `data` from being Python source text ("LINE:COL ..."): a byte its encoding (its
    coding line's, else UTF-8) does not read, or a coding line naming no encoding Python knows."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # a coding line Python does not know, or a first two lines not UTF-8
        bad = undecodable(data)
        if bad is None:
            return f"1:1 declares an encoding Python does not know ({exc.msg}); save it as UTF-8 without a coding line"
        encoding = "utf-8"
    bad = undecodable(data, encoding)
    if bad is None:
        return None
    line, column, byte = bad
    said = (
        "UTF-8 (the file declares no encoding)"
        if encoding in ("utf-8", "utf-8-sig")
        else f"{encoding} (its coding line)"
    )
    return (
        f"{line}:{column}: byte {byte} is not {said}; save it as UTF-8, or declare its encoding "
        "on its first or second line (# -*- coding: latin-1 -*-)"
    )


def _first_code_line(data: bytes) -> int:
    """The 1-based number of the payload's first line that is neither blank nor a comment."""
    for n, line in enumerate(data.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith(b"#"):
            return n
    return 0
