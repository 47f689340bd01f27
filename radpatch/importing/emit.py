"""Write one registry entry per imported patch file, as a person would write it.

Why by hand-shaped YAML: the entry is what a reviewer reads instead of the diff, so code keys are
block literals (`find: |`), keys come in the README's order, ids say what and where
(`replace-f`, `insert-C.m`), and payloads sit beside the entry in a directory named after it.

Beyond the plain rewrites it writes: top-level `requires: [NAME, ...]` along a series,
`create_module: {content: NAME/<path of the module>.py}` for a new module (a new package by its
import name, its content file `__init__.py`), and `insert_definitions` with a `Class.method`
anchor for a method added to a class.
"""

from __future__ import annotations

import ast
import codecs
import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from radpatch import source_lines
from radpatch.errors import Inexpressible, RefusedError, Undecodable
from radpatch.importing import exclude_word
from radpatch.importing.import_steps import DiffFile, ImportStep, Value
from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.source import decode


@dataclass(frozen=True)
class Entry:
    name: str
    yaml: str
    payloads: tuple[tuple[str, str], ...]  # (path relative to the entry's directory, text)
    steps: int
    fallbacks: tuple[str, ...]
    doc: Mapping[str, object] = field(default_factory=dict, compare=False)  # what `yaml` says, as dumped


def supporting(entry: Entry, supported: str) -> Entry:
    """The same entry with another `supported:` (its rewrites as they were chosen, not chosen again)."""
    doc = {**entry.doc, "supported": supported}
    return dataclasses.replace(entry, yaml=_dump(doc), doc=doc)


def _dump(doc: Mapping[str, object]) -> str:
    return yaml.dump(
        dict(doc), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120, default_flow_style=False
    )


@dataclass(frozen=True)
class EntrySpec:
    name: str
    label: str  # the patch file as given
    subject: str
    distribution: str
    supported: str
    requires: tuple[str, ...]
    changes: tuple[DiffFile, ...]
    description: str = ""  # the entry's description; "" for import's (the patch file it came from)
    written_by: str = "radpatch import"  # the command named in payload headers
    leave_out: str = (
        "leave it out with {exclude}"  # a refusal's way out, in the command's own options ({name}: the file)
    )


_YAML_BREAKS = frozenset("\x85\u2028\u2029")


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    # a block only where YAML reads the lines back as they are: NEL, U+2028 and U+2029 are line breaks to
    # YAML (NEL is read back as "\n"), and a line's trailing blank would be lost (lines: Python's)
    lines = source_lines.split(data)
    if "\n" in data and not _YAML_BREAKS & set(data) and all(ln == ln.rstrip() for ln in lines) and "\t" not in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    if _YAML_BREAKS & set(data):  # PyYAML's plain and single-quoted forms lose them: escaped, in double quotes
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _str)


def _module_name(rel: str) -> str:
    """The `modules:` name of a file, as the registry documents it: a package by its import name
    (`vllm/reasoning/__init__.py` is `vllm.reasoning`; a created one too, its content file being
    `__init__.py`)."""
    return rel[:-3].replace("/", ".").removesuffix(".__init__")


def _short_names(rels: list[str]) -> dict[str, str]:
    """A `modules:` key per file: its stem (a package's name for its `__init__.py`), with parent
    directories added where they collide."""
    depth = 1
    while True:
        names = {r: "_".join(_module_name(r).split(".")[-depth:]) for r in rels}
        if len(set(names.values())) == len(rels) or depth > 20:
            return names
        depth += 1


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "-", text).strip("-") or "module"


def build(spec: EntrySpec) -> Entry:
    rels = [c.rel for c in spec.changes]
    keys = _short_names(rels)
    rewrites_out: list[dict[str, object]] = []
    payloads: list[tuple[str, str]] = []
    fallbacks: list[str] = []
    ids: dict[str, int] = {}
    for change in spec.changes:
        for step in _steps(spec.label, change, fallbacks, _leave_out(spec.leave_out, change.name or change.rel)):
            rid = _id(step, ids, keys[change.rel])
            fields: dict[str, Value] = dict(step.keys)
            if step.op == "insert_definitions":
                payload = f"{spec.name}/{rid}.py"
                fields.pop("payload")  # the names it defines: all of the payload, in file order (the default)
                fields = {"payload": payload, **fields}
                where = f"{fields.get('after') or fields.get('before')}"
                header = (
                    f'"""Definitions {_in_docstring(_shown(Path(spec.label).name))} adds next to {where} '
                    f'(written by `{spec.written_by}`)."""\n\n\n'
                )
                payloads.append((f"{rid}.py", header + (step.payload or "")))
            elif step.op == "create_module":
                content = f"{spec.name}/{change.rel}"
                fields = {"content": content}
                payloads.append((change.rel, step.payload or ""))
            item: dict[str, object] = {"id": rid}
            if len(rels) > 1:
                item["file"] = keys[change.rel]
            item[step.op] = fields
            rewrites_out.append(item)
    doc: dict[str, object] = {
        "summary": _shown(spec.subject or f"Imported from {Path(spec.label).name}"),
        "description": _shown(
            spec.description
            or f"Imported by `radpatch import` from {spec.label}" + (f": {spec.subject}" if spec.subject else "") + "\n"
        ),
        "distribution": spec.distribution,
        "supported": spec.supported,
    }
    if spec.requires:
        doc["requires"] = list(spec.requires)
    doc["modules"] = {keys[r]: _module_name(r) for r in rels}
    doc["rewrites"] = rewrites_out
    return Entry(spec.name, _dump(doc), tuple(payloads), len(rewrites_out), tuple(fallbacks), doc)


def as_python(text: str) -> tuple[str, str]:
    """(the module's text as Python reads it, its encoding): the file's bytes (kept in `text` as
    UTF-8 with surrogate escapes, as patch reads bytes) decoded as PEP 263 says, by a coding
    declaration or a UTF-8 byte order mark (dropped). Raises Undecodable."""
    data = text.encode("utf-8", "surrogateescape")
    decoded, encoding = decode(data)
    return decoded.removeprefix("\ufeff"), encoding


def same_code(before: str, after: str) -> bool:
    """Whether two versions of a module are the same code (AST-equal): only comments or layout
    differ. False when either does not decode or parse (the caller's refusal says why)."""
    try:
        return ast.dump(ast.parse(as_python(before)[0])) == ast.dump(ast.parse(as_python(after)[0]))
    except (SyntaxError, ValueError):  # Undecodable is a ValueError
        return False


def _python(label: str, change: DiffFile, side: str, text: str) -> tuple[str, str]:
    try:
        return as_python(text)
    except Undecodable as exc:
        raise RefusedError(
            f"{label}: {change.rel}: the {side} module is not text in the encoding Python reads it in ({exc})",
            "radpatch rewrites Python source: check the file's coding declaration and the patch",
        )


def _shown(text: str) -> str:
    """Text of the patch file (its name, its Subject) as an entry says it: a byte that is not UTF-8 (read
    as a surrogate) as `\\xHH`, which YAML and a payload's docstring can hold (a surrogate is neither)."""
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in text)


def _in_docstring(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _leave_out(template: str, name: str) -> str:
    return template.format(name=name, exclude=exclude_word.option(name))


def _steps(label: str, change: DiffFile, fallbacks: list[str], leave_out: str) -> tuple[ImportStep, ...]:
    if change.after is None:
        raise RefusedError(
            f"{label}: {change.rel}: the patch deletes this module; radpatch cannot express deleting a module",
            f"{leave_out} (and delete the file another way)",
        )
    after, encoding = _python(label, change, "patched", change.after)
    if change.before is None:  # its bytes as they are: decoded (PEP 263) only to parse and prove
        return (ImportStep("create_module", (), payload=after if encoding == "utf-8-sig" else change.after),)
    before, was = _python(label, change, "installed", change.before)
    if codecs.lookup(was).name != codecs.lookup(encoding).name:  # att59 F8: an entry keeps the file's encoding
        raise RefusedError(
            f"{label}: {change.rel}: the patch changes the file's encoding ({was} to {encoding}: its coding "
            "declaration or byte order mark); a registry entry rewrites code and keeps the installed file's encoding",
            f"{leave_out} (and ship it another way), or keep the file's coding line in the patch",
        )
    try:
        found = rewrites(before, after)
    except SyntaxError as exc:
        side = "patched" if _parses(before) else "installed"
        if side == "patched" and isinstance(exc, IndentationError) and "expected an indented block" in exc.msg:
            raise RefusedError(
                f"{label}: {change.rel}: the patch leaves a block empty (in the patched module: {exc.msg}): "
                "GNU patch's result does not compile",
                "keep a statement in the block in the patch (`pass`), or delete the statement that opens it",
            )
        raise RefusedError(
            f"{label}: {change.rel}: the {side} module does not parse ({exc.msg}, line {exc.lineno})",
            "radpatch rewrites Python code it can parse; check the patch",
        )
    except Inexpressible as exc:
        raise RefusedError(f"{label}: {change.rel}: {exc}", "write this change by hand as a registry entry")
    if not found.steps and before == after:
        raise RefusedError(
            f"{label}: no code change in {change.rel}: nothing to import (its hunks remove and add the same lines)",
            leave_out,
        )
    if not found.steps:
        raise RefusedError(
            f"{label}: {change.rel}: the patch changes only comments or layout (the code is the same); radpatch "
            "rewrites code, so an entry could not say this change",
            f"{leave_out}, or make the change another way",
        )
    fallbacks.extend(f"{change.rel}: {f}" for f in found.fallbacks)
    return found.steps


def _parses(text: str) -> bool:
    try:
        compile(text, "<before>", "exec", dont_inherit=True, flags=0x400)  # ast.PyCF_ONLY_AST
    except SyntaxError:
        return False
    return True


def _id(step: ImportStep, ids: dict[str, int], module: str) -> str:
    where = (
        step.get("scope") or step.get("function") or step.get("name") or step.get("after") or step.get("before") or ""
    )
    if step.op == "create_module":
        where = module
    if step.op == "insert_definitions" and step.get("payload"):  # named by what it defines, not its anchor
        scope = str(step.get("after") or step.get("before") or "").rpartition(".")[0]
        first = str(step.get("payload")).split(",")[0].strip()
        where = f"{scope}.{first}" if scope else first
    base = {
        "insert_after": "insert",
        "insert_before": "insert",
        "insert_definitions": "define",
        "add_import": "import",
        "set_constant": "constant",
        "set_default": "default",
        "add_parameter": "parameter",
        "create_module": "create",
        "set_item": "item",
    }.get(step.op, step.op.replace("_", "-"))
    if step.op == "set_item":
        where = step.get("name") or where
    if step.op == "add_import":
        where = str(step.get("import")).split()[1]
    rid = f"{base}-{_slug(str(where).replace('<module>', 'module'))}" if where else base
    ids[rid] = ids.get(rid, 0) + 1
    return rid if ids[rid] == 1 else f"{rid}-{ids[rid]}"
