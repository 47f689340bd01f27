"""The entry `radpatch capture` writes (importing.capture found the edits): built from each file's
before (its pristine bytes, or what radpatch's patches left under a hand edit) and after as
`radpatch import` builds one (importing.emit), with the `requires:` it needs; files whose only
change is comments or layout are left out, said with a reason."""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import RefusedError, Undecodable
from radpatch.files import read_regular
from radpatch.importing import depends, emit
from radpatch.importing.capture import CapturedEdits, Edited, LeftOut
from radpatch.importing.import_steps import DiffFile
from radpatch.install.dist_infos import canonical_name
from radpatch.install.environment import Installed
from radpatch.state.hashes import live
from radpatch.state.record import ABSENT, Store


@dataclass(frozen=True)
class Captured:
    """The entry to write, what it was made from, and the files left out because only comments or
    layout changed."""

    entry: emit.Entry
    changes: tuple[DiffFile, ...]
    layout_only: tuple[LeftOut, ...]
    requires: tuple[str, ...] = ()  # the entry's `requires:`
    stacked: tuple[tuple[str, str], ...] = ()  # (file, the patch its edits went on top of)


LEAVE_OUT = "leave {name} out: name the other files as PATHs (radpatch capture NAME PATH...)"  # no --exclude here


def build(name: str, found: CapturedEdits, pristine: dict[str, bytes], supported: str | None) -> Captured:
    """The entry, built as `radpatch import` builds one, from each file's pristine bytes (before;
    for a file edited on top of radpatch's patches, the bytes they left) and its bytes now (after)."""
    dist = found.dist
    changes: list[DiffFile] = []
    layout: list[LeftOut] = []
    for e in found.edited:
        after = _parsed(e, dist)
        before = pristine[e.relpath].decode("utf-8", "surrogateescape")
        if emit.same_code(before, after):
            layout.append(LeftOut(e.relpath, "only comments or layout changed: no code to capture"))
            continue
        changes.append(DiffFile(e.relpath, before, after, dist.name))
    if not changes:
        raise RefusedError(
            f"no code differs from the wheel in {found.scanned}: " + "; ".join(f"{x.relpath}: {x.why}" for x in layout),
            "capture records code changes; comments and layout need no entry",
        )
    _imports_left_out(found, tuple(changes))
    rels = [c.rel for c in changes]
    shown = rels[0] if len(rels) == 1 else f"{len(rels)} modules of {dist.name}"
    version = str(dist.version)
    on = {e.relpath: e.on.patch for e in found.edited if e.on is not None}
    requires = requirements(found, tuple(changes))
    description = f"Captured by `radpatch capture` from edits made by hand to {dist.name} {version}:\n" + "".join(
        f"- {c.rel}{' (new)' if c.before is None else ''}{f' (on top of {on[c.rel]})' if c.rel in on else ''}\n"
        for c in changes
    )
    spec = emit.EntrySpec(
        name,
        name,
        f"Hand edits to {shown}, captured",
        dist.name,
        supported or f"=={version.split('+')[0]}",
        requires,
        tuple(changes),
        description=description,
        written_by="radpatch capture",
        leave_out=LEAVE_OUT,
    )
    stacked = tuple((c.rel, on[c.rel]) for c in changes if c.rel in on)
    return Captured(emit.build(spec), tuple(changes), tuple(layout), requires, stacked)


def requirements(found: CapturedEdits, changes: tuple[DiffFile, ...]) -> tuple[str, ...]:
    """The entries a capture requires: each whose result a file was edited on top of, and each
    applied entry that created a module, or added a name, that the captured code newly imports."""
    tops = [e.on.patch for e in found.edited if e.on is not None]
    applied = _applied(found.dist)
    needs = depends.needs([*(c for _, c in applied), changes])
    return tuple(dict.fromkeys([*tops, *(applied[n.provider][0] for n in needs if n.needs == len(applied))]))


def _applied(dist: Installed) -> list[tuple[str, tuple[DiffFile, ...]]]:
    """Each entry radpatch recorded for `dist`, oldest first, with the files that carry it as it
    left them (before: its kept original; after: its result), for importing.depends."""
    store = Store(dist.root)
    out = []
    for rec in sorted(store.records().values(), key=lambda r: r.seq):
        if canonical_name(rec.distribution) != canonical_name(dist.name):
            continue
        files = []
        for f in rec.files:
            try:
                data = read_regular(dist.root / f.path)
            except OSError:
                continue
            digest = hashlib.sha256(data).hexdigest()
            walked = live(store, f.path, digest, data)
            if walked is None or f not in (ln.file for ln in walked[0]):
                continue  # not applied any more (or edited since): it provides nothing now
            before = None if f.original_sha256 == ABSENT else store.original(f.original_sha256)
            after = data if digest == f.patched_sha256 else store.original(f.patched_sha256)
            if after is None or before is None and f.original_sha256 != ABSENT:
                continue
            text = before.decode("utf-8", "surrogateescape") if before is not None else None
            files.append(DiffFile(f.path, text, after.decode("utf-8", "surrogateescape"), dist.name))
        if files:
            out.append((rec.patch, tuple(files)))
    return out


def _parsed(e: Edited, dist: Installed) -> str:
    """The edited file's bytes as the text import reads (UTF-8, surrogate escapes), once it is
    checked to be Python source (decoded as Python decodes it: coding declaration, BOM)."""
    text = e.current.decode("utf-8", "surrogateescape")
    try:
        ast.parse(emit.as_python(text)[0])
    except Undecodable as exc:
        raise RefusedError(
            f"{dist.root / e.relpath}: the edited module is not text in the encoding Python reads it in ({exc})",
            "fix the file's coding declaration or its bytes, and capture again",
        )
    except SyntaxError as exc:
        where = f"{dist.root / e.relpath}:{exc.lineno or 1}"
        raise RefusedError(
            f"{where}: the edited module does not parse ({exc.msg}); capture records code it can parse",
            f"fix the edit and capture again, or put the file back: radpatch restore {e.relpath}",
        )
    except ValueError as exc:  # a NUL byte
        raise RefusedError(
            f"{dist.root / e.relpath}: the edited module is not Python source ({exc})", "fix the file and capture again"
        )
    return text


def _imports_left_out(found: CapturedEdits, changes: tuple[DiffFile, ...]) -> None:
    """The captured code may not newly import a module that is on disk but neither RECORD's nor
    captured (a backup left out, a file not named) nor created by one of radpatch's entries: on
    a fresh install of the release, the entry would import what does not exist."""
    root, taken = found.dist.root, {c.rel for c in changes}
    why = {x.relpath: x.why for x in found.left_out}
    store = Store(root)
    bad: list[str] = []
    for c in changes:
        mod = depends.module_of(c.rel)
        if mod is None:
            continue
        had = {m for m, _ in _imported(c.before, mod[1])}
        for module, line in _imported(c.after, mod[1]):
            rel = _file_of(root, module)
            if module in had or rel is None or rel.split("/")[0] not in found.tops:
                continue  # not new, not on disk, or another distribution's (torch)
            if rel in found.listed or rel in taken or store.chain(rel):
                continue
            reason = why.get(rel, "not among the files captured")
            bad.append(f"{root / c.rel}:{line} imports {module}, which is {rel}: left out ({reason})")
    if bad:
        raise RefusedError(
            "; ".join(dict.fromkeys(bad)) + ": the entry would import a module neither the release nor the entry has",
            "rename the file to a module name capture takes in (or name it: radpatch capture NAME PATH...), "
            "or remove the import; then capture again",
        )


def _imported(text: str | None, package: str) -> list[tuple[str, int]]:
    """Each module an import of `text` loads (a `from` import's names too, which may be submodules),
    with its line; relative imports resolved against `package`."""
    if text is None:
        return []
    try:
        tree = ast.parse(emit.as_python(text)[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                out += [(".".join(parts[: k + 1]), node.lineno) for k in range(len(parts))]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".") if package else []
                if node.level - 1 > len(up):
                    continue
                base = ".".join([*up[: len(up) - (node.level - 1)], *([base] if base else [])])
            if not base:
                continue
            parts = base.split(".")
            out += [(".".join(parts[: k + 1]), node.lineno) for k in range(len(parts))]
            out += [(f"{base}.{a.name}", node.lineno) for a in node.names if a.name != "*"]
    return out


def _file_of(root: Path, module: str) -> str | None:
    """The file under `root` that `module` would be imported from (module.py, or a package's
    `__init__.py`), when one exists."""
    path = module.replace(".", "/")
    for rel in (f"{path}/__init__.py", f"{path}.py"):
        if (root / rel).is_file():
            return rel
    return None
