"""Helpers of the import tests (their fixtures: tests/importing/conftest.py): a real wheel
pip-installs into a real venv, radpatch and GNU patch run as processes on it.

The corpus is real code: modules of the standard library and the vLLM fixtures of
tests/fixtures/vllm, installed as the modules of one small distribution (`rpimport-corpus`), so
that what `radpatch import` writes is applied by the real engine through its CLI, to files pip
installed and RECORD lists, and compared with what /usr/bin/patch makes of the same diff.
"""

from __future__ import annotations

import ast
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.lib.tier import needs
from tests.lib.wheels import build_wheel

REPO = Path(__file__).resolve().parents[2]
PATCH = shutil.which("patch") or "/usr/bin/patch"
DIST = "rpimport-corpus"
PACKAGE = "rpimport_corpus"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_MODULES = ("textwrap", "shlex", "fnmatch", "calendar", "configparser", "difflib", "argparse", "dataclasses")


def vllm_fixtures() -> list[Path]:
    return sorted((REPO / "tests" / "fixtures" / "vllm").rglob("*.py"))


def corpus_files() -> dict[str, bytes]:
    """Package-relative path -> source, from the stdlib and the vLLM fixtures."""
    files = {f"{PACKAGE}/__init__.py": b'"""Import-test corpus: real modules."""\n'}
    for name in STDLIB_MODULES:
        files[f"{PACKAGE}/std_{name}.py"] = (STDLIB / f"{name}.py").read_bytes()
    for path in vllm_fixtures():
        version = path.relative_to(REPO / "tests" / "fixtures" / "vllm").parts[0].replace(".", "_")
        files[f"{PACKAGE}/vllm_{version}_{path.stem}.py"] = path.read_bytes()
    files[f"{PACKAGE}/sub/__init__.py"] = b""
    files[f"{PACKAGE}/data.txt"] = b"not python\n"
    return files


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RADPATCH_")}


@dataclass
class Venv:
    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def site(self) -> Path:
        return self.root / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"

    def radpatch(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "radpatch", "--python", str(self.python), *args],
            capture_output=True,
            text=True,
            env=clean_env(),
            timeout=600,
            check=False,
        )


def gnu_diff(
    work: Path, rel: str, before: str | bytes, after: str | bytes, context: int = 3
) -> subprocess.CompletedProcess[bytes]:
    """GNU `diff -U<context> a/REL b/REL` of two versions of one file, written under `work`."""
    for side, data in (("a", before), ("b", after)):
        path = work / side / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    return subprocess.run(["diff", f"-U{context}", f"a/{rel}", f"b/{rel}"], cwd=work, capture_output=True, check=False)


def pip_install(root: Path, wheel: Path, *more: Path) -> Venv:
    """A fresh venv at `root` with `wheel` (and `more` wheels) installed by one pip run (real
    dist-info, RECORD written by pip)."""
    needs("wheel", "pip-installs a wheel into a venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, capture_output=True)
    v = Venv(root)
    out = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(v.python), "--disable-pip-version-check", "install"]
        + ["--no-deps", "--no-index", "--no-compile", str(wheel), *map(str, more)],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return v


_MARKERS = re.compile(r"^[ \t]*# radpatch: deleted: .*\n|  # radpatch: added import(?=\n)", re.MULTILINE)


def without_markers(text: str) -> str:
    """The file without the comments radpatch's delete and add_import leave on purpose (revert finds them)."""
    return _MARKERS.sub("", text)


def gnu_patch(directory: Path, patch: Path, strip: int, *extra: str) -> subprocess.CompletedProcess[str]:
    """GNU patch, forced (no questions, no reversed-patch guess), no backups or reject files."""
    return subprocess.run(
        [PATCH, "-f", f"-p{strip}", "--no-backup-if-mismatch", "-r", "-", "-i", str(patch), *extra],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def plain_gnu_patch(directory: Path, patch: Path, strip: int = 1) -> subprocess.CompletedProcess[str]:
    """`patch -p1 -i P` as a Dockerfile runs it: not forced, no terminal to answer its questions (its own
    session: /dev/tty cannot be opened, so each question takes its default)."""
    return subprocess.run(
        [PATCH, f"-p{strip}", "--no-backup-if-mismatch", "-r", "-", "-i", str(patch)],
        cwd=directory,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        start_new_session=True,
    )


def gnu_patched_pair(venv: Venv, tmp: Path, rel: str, pristine: bytes, first: str, second: str) -> Path:
    """An old image's stacked pair: a.patch (`pristine` -> `first`) and b.patch (`first` -> `second`)
    of the installed file `rel`, imported by radpatch (b requires a) into tmp/reg, then put on the
    install by GNU `patch -p1`, as the image's build step did; returns the registry."""
    a, b = tmp / "a.patch", tmp / "b.patch"
    a.write_bytes(gnu_diff(tmp / "da", rel, pristine, first).stdout)
    b.write_bytes(gnu_diff(tmp / "db", rel, first, second).stdout)
    reg = tmp / "reg"
    out = venv.radpatch("import", str(a), str(b), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    assert "requires" in (reg / "b.yaml").read_text()
    for patch in (a, b):
        gnu = gnu_patch(venv.site, patch, 1)
        assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    return reg


# --- seeded, realistic edits of real modules ----------------------------------------------------


def _function_statements(tree: ast.Module, lines: list[str]) -> list[tuple[ast.stmt, list[ast.stmt]]]:
    """Single-line simple statements of function bodies (with their block), whole lines only."""
    out: list[tuple[ast.stmt, list[ast.stmt]]] = []

    def visit(body: list[ast.stmt], in_function: bool) -> None:
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(s.body, True)
            elif isinstance(s, ast.ClassDef):
                visit(s.body, False)
            else:
                for f in ("body", "orelse", "finalbody"):
                    inner = getattr(s, f, None)
                    if (
                        isinstance(inner, list)
                        and inner
                        and isinstance(inner[0], ast.stmt)
                        and inner[0].lineno != s.lineno
                    ):
                        visit(inner, in_function)
                if in_function and s.lineno == s.end_lineno and not hasattr(s, "body"):
                    line = lines[s.lineno - 1]
                    raw = line.encode()
                    if line.strip() == raw[s.col_offset : s.end_col_offset].decode() and ";" not in line:
                        out.append((s, body))

    visit(tree.body, False)
    return out


# a method added to a class is imported as `insert_definitions` with a `Class.method` anchor, which
# the engine does not read yet (issue 20, item 7): tests/importing/test_rewrites.py checks its shape
TODAY = ("literal", "insert", "delete", "function", "import", "keyword", "header", "default", "parameter", "decorator")
KINDS = (*TODAY, "method")


def edit(source: str, rng: random.Random, k: int, kinds: tuple[str, ...] = TODAY) -> str:
    """One seeded, realistic edit of a module: a changed literal, an inserted or deleted statement,
    a new function, method or import."""
    lines = source.split("\n")
    tree = ast.parse(source)
    stmts = _function_statements(tree, lines)
    kind = rng.choice(kinds)
    if kind == "literal":
        cands = [s for s, _ in stmts if re.search(r"(?<![\w.'\"])\d+(?![\w.'\"])", lines[s.lineno - 1])]
        if cands:
            s = rng.choice(cands)
            lines[s.lineno - 1] = re.sub(
                r"(?<![\w.'\"])(\d+)(?![\w.'\"])", lambda m: str(int(m.group(1)) + 7), lines[s.lineno - 1], count=1
            )
            return "\n".join(lines)
    if kind == "delete":
        cands = [
            s
            for s, body in stmts
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and body.index(s) < len(body) - 1
        ]
        if cands:
            s = rng.choice(cands)
            del lines[s.lineno - 1]
            return "\n".join(lines)
    if kind == "function":
        defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef)) and not s.decorator_list]
        if defs:
            d = rng.choice(defs)
            lines[d.lineno - 1 : d.lineno - 1] = [f"def _rp_helper_{k}(x):", f"    return x + {k}", "", ""]
            return "\n".join(lines)
    if kind == "method":
        classes = [
            c
            for c in ast.walk(tree)
            if isinstance(c, ast.ClassDef) and c.col_offset == 0 and any(isinstance(m, ast.FunctionDef) for m in c.body)
        ]
        if classes:
            c = rng.choice(classes)
            m = rng.choice([m for m in c.body if isinstance(m, ast.FunctionDef)])
            at = m.end_lineno or m.lineno
            lines[at:at] = ["", f"    def _rp_method_{k}(self):", f"        return {k}"]
            return "\n".join(lines)
    if kind == "import":
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom)) and s.lineno == s.end_lineno]
        if imports:
            last = imports[-1]
            lines[last.end_lineno : last.end_lineno] = [f"import json as _rp_json_{k}"]  # type: ignore[index]
            return "\n".join(lines)
    if kind == "keyword":
        calls = [
            (s, kw)
            for s, _ in stmts
            for n in ast.walk(s)
            if isinstance(n, ast.Call)
            for kw in n.keywords
            if kw.arg and isinstance(kw.value, ast.Constant) and kw.value.lineno == s.lineno
        ]
        if calls:
            s, kw = rng.choice(calls)
            line = lines[s.lineno - 1].encode()
            new = repr(not kw.value.value) if isinstance(kw.value.value, bool) else repr(f"rp{k}")
            lines[s.lineno - 1] = (
                line[: kw.value.col_offset] + new.encode() + line[kw.value.end_col_offset :]
            ).decode()  # type: ignore[operator]
            return "\n".join(lines)
    if kind == "header":
        heads = [
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.If, ast.While))
            and n.test.lineno == n.test.end_lineno == n.lineno
            and n.body[0].lineno != n.lineno
            and isinstance(n.test, (ast.Name, ast.Attribute, ast.Compare, ast.Call))
        ]
        if heads:
            n = rng.choice(heads)
            line = lines[n.lineno - 1].encode()
            lines[n.lineno - 1] = (
                line[: n.test.col_offset]
                + b"("
                + line[n.test.col_offset : n.test.end_col_offset]
                + f" and {k} > 0)".encode()
                + line[n.test.end_col_offset :]
            ).decode()  # type: ignore[operator]
            return "\n".join(lines)
    if kind in ("default", "parameter", "decorator"):
        funcs = [
            f
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef)
            and f.body[0].lineno > f.lineno
            and ")" in lines[f.lineno - 1]
            and lines[f.lineno - 1].rstrip().endswith(":")
        ]
        if kind == "default":
            cands = [
                (f, d)
                for f in funcs
                for d in f.args.defaults
                if isinstance(d, ast.Constant)
                and d.lineno == f.lineno
                and isinstance(d.value, (int, type(None)))
                and not isinstance(d.value, bool)
            ]
            if cands:
                f, d = rng.choice(cands)
                line = lines[f.lineno - 1].encode()
                lines[f.lineno - 1] = (line[: d.col_offset] + str(k + 2).encode() + line[d.end_col_offset :]).decode()  # type: ignore[operator]
                return "\n".join(lines)
        if kind == "parameter":
            cands = [
                f
                for f in funcs
                if f.args.args
                and not (f.args.vararg or f.args.kwonlyargs or f.args.kwarg or f.returns)
                and lines[f.lineno - 1].rstrip().endswith("):")
            ]
            if cands:
                f = rng.choice(cands)
                lines[f.lineno - 1] = lines[f.lineno - 1].rstrip()[:-2] + f", rp_extra_{k}=None):"
                return "\n".join(lines)
        if kind == "decorator":
            cands = [f for f in funcs if not f.decorator_list]
            if cands:
                f = rng.choice(cands)
                indent = lines[f.lineno - 1][: f.col_offset]
                lines[f.lineno - 1 : f.lineno - 1] = (
                    [f"{indent}@staticmethod"] if f.col_offset else [f"{indent}@functools.cache"]
                )
                if not f.col_offset and "import functools" not in source:
                    return source  # the decorator's name must exist: leave this module alone
                return "\n".join(lines)
    # default: insert a statement after a function statement
    s, _ = rng.choice([(s, b) for s, b in stmts if not isinstance(s, (ast.Return, ast.Raise, ast.Continue, ast.Break))])
    indent = lines[s.lineno - 1][: len(lines[s.lineno - 1]) - len(lines[s.lineno - 1].lstrip())]
    lines[s.lineno : s.lineno] = [f"{indent}_rp_probe_{k} = {k}"]
    return "\n".join(lines)


@dataclass(frozen=True)
class Imported:
    """One module installed by pip as `before`, GNU's diff to `after` cut and put on a copy by GNU
    patch -p1 (`gnu`, its text), and the diff imported by `radpatch import` into `reg` (`text`, the
    entry `change`'s YAML)."""

    venv: Venv
    wheel: Path
    patch: Path
    gnu: str
    reg: Path
    text: str
    stdout: str


def diff_imported(tmp: Path, dist: str, rel: str, before: str, after: str) -> Imported:
    wheel = build_wheel(tmp / "wheel", dist, "1.0.0", {f"{dist}/__init__.py": "", rel: before})
    venv = pip_install(tmp / "venv", wheel)
    patch = tmp / "change.patch"
    patch.write_bytes(gnu_diff(tmp / "d", rel, before, after).stdout)
    expected = tmp / "gnu"
    (expected / rel).parent.mkdir(parents=True)
    (expected / rel).write_text(before)
    gnu = gnu_patch(expected, patch, 1)
    assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    reg = tmp / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    return Imported(
        venv, wheel, patch, (expected / rel).read_text(), reg, (reg / "change.yaml").read_text(), out.stdout
    )


def diff_imported_refused(tmp: Path, before: str, after: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """`radpatch import` of GNU's diff of `rpnarrow/m.py` from `before` (pip-installed) to `after`,
    which GNU patch applies: the run (for a refusal's words) and the --out directory."""
    rel = "rpnarrow/m.py"
    venv = pip_install(
        tmp / "venv", build_wheel(tmp / "wheel", "rpnarrow", "1.0.0", {"rpnarrow/__init__.py": "", rel: before})
    )
    patch = tmp / "change.patch"
    patch.write_bytes(gnu_diff(tmp / "d", rel, before, after).stdout)
    (tmp / "gnu" / rel).parent.mkdir(parents=True)
    (tmp / "gnu" / rel).write_text(before)
    gnu = gnu_patch(tmp / "gnu", patch, 1)
    assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    reg = tmp / "reg"
    return venv.radpatch("import", str(patch), "-p1", "--out", str(reg)), reg


def imported_as_gnu_patch_gives(tmp: Path, before: str, after: str) -> dict[str, object]:
    """One module `rpnarrow/m.py` installed by pip as `before`, the GNU diff to `after` imported, and
    the entry applied by the real engine: the patched module must be AST-identical to what GNU patch
    makes of the diff, `status --check` must pass and `revert` must give the installed bytes back.
    The entry, as read from its YAML (with the import's output under `_stdout`)."""
    rel = "rpnarrow/m.py"
    got = diff_imported(tmp, "rpnarrow", rel, before, after)
    venv, reg, text, out_stdout = got.venv, got.reg, got.text, got.stdout
    applied = venv.radpatch("--registry", str(reg), "apply", "change")
    assert applied.returncode == 0, applied.stderr + text
    mine = (venv.site / rel).read_text()
    assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(got.gnu)), text + mine
    assert venv.radpatch("--registry", str(reg), "status", "--check", "change").returncode == 0, text
    reverted = venv.radpatch("--registry", str(reg), "revert", "change")
    assert reverted.returncode == 0, reverted.stderr + text
    assert (venv.site / rel).read_text() == before
    entry: dict[str, object] = yaml.safe_load(text)
    entry["_stdout"] = out_stdout
    return entry


def imported_as_gnu_patch_give_each(tmp: Path, cases: Sequence[tuple[str, str]]) -> dict[int, dict[str, object]]:
    """imported_as_gnu_patch_gives's checks for many (before, after) cases in few processes: one wheel
    holding case i as `rpnarrow/m{i}.py`, one pip install, each case's diff imported by its own
    `radpatch import` into its own entry `c{i}`, then every imported entry applied, checked with
    `status --check` and reverted by one radpatch run each. Returns, by index, the entries (as
    imported_as_gnu_patch_gives returns them) of the cases that passed every check (AST-equal to GNU
    patch, status --check, the installed bytes back); asserts
    nothing: a caller runs a case missing from it alone, through imported_as_gnu_patch_gives, for its
    message (a failed apply, status or revert of the batch leaves every case out)."""
    rels = [f"rpnarrow/m{i}.py" for i in range(len(cases))]
    files = {"rpnarrow/__init__.py": "", **{rel: before for rel, (before, _) in zip(rels, cases)}}
    venv = pip_install(tmp / "venv", build_wheel(tmp / "wheel", "rpnarrow", "1.0.0", files))
    reg = tmp / "reg"
    imported: dict[int, str] = {}  # index -> the import's output
    for i, (rel, (before, after)) in enumerate(zip(rels, cases)):
        patch = tmp / f"c{i}.patch"
        patch.write_bytes(gnu_diff(tmp / f"d{i}", rel, before, after).stdout)
        expected = tmp / f"gnu{i}"
        (expected / rel).parent.mkdir(parents=True)
        (expected / rel).write_text(before)
        if gnu_patch(expected, patch, 1).returncode == 0:
            out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
            if out.returncode == 0:
                imported[i] = out.stdout
    names = [f"c{i}" for i in imported]
    if not names or venv.radpatch("--registry", str(reg), "apply", *names).returncode != 0:
        return {}
    same = {
        i
        for i in imported
        if ast.dump(ast.parse((venv.site / rels[i]).read_text()))
        == ast.dump(ast.parse((tmp / f"gnu{i}" / rels[i]).read_text()))
    }
    if venv.radpatch("--registry", str(reg), "status", "--check", *names).returncode != 0:
        return {}
    if venv.radpatch("--registry", str(reg), "revert", *names).returncode != 0:
        return {}
    entries: dict[int, dict[str, object]] = {}
    for i in sorted(same):
        if (venv.site / rels[i]).read_text() == cases[i][0]:
            entries[i] = yaml.safe_load((reg / f"c{i}.yaml").read_text())
            entries[i]["_stdout"] = imported[i]
    return entries


def assert_each_imported_as_gnu_patch(tmp: Path, cases: Sequence[tuple[str, str]], labels: Sequence[object]) -> None:
    """Every (before, after) case passes imported_as_gnu_patch_give_each's checks; where some do not,
    the first of them runs alone through imported_as_gnu_patch_gives, for its message, and the
    assertion names every failing case by its label."""
    passed = imported_as_gnu_patch_give_each(tmp, cases)
    failed = [i for i in range(len(cases)) if i not in passed]
    if failed:
        imported_as_gnu_patch_gives(tmp / "alone", *cases[failed[0]])
    assert not failed, [labels[i] for i in failed]


def assert_cases_imported_as_gnu_patch(
    tmp: Path, labels: Sequence[tuple[Any, ...]], case: Callable[..., tuple[str, str]]
) -> None:
    """assert_each_imported_as_gnu_patch for a generated family's cases: `labels` (its CASES, or a
    slice of them), each made into its (before, after) by `case(*label)` and named by its label."""
    assert_each_imported_as_gnu_patch(tmp, [case(*label) for label in labels], labels)


def call_of_h(args: tuple[str, ...], layout: str) -> str:
    """A call of `h` passing `args`, on one line ("line") or one argument per line (the keyword
    import families: tests/importing/test_keyword_added_import.py, test_keywords_added_together.py)."""
    if layout == "line":
        return f"h({', '.join(args)})"
    return "h(\n" + "".join(f"        {a},\n" for a in args) + "    )"
