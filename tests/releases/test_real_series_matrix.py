"""The matrix of a real imported series across vLLM 0.27 to 0.33, from range reads of the real wheels.

The series is vLLM's own change from 0.32.0 to 0.33.0 of four modules (one `diff -u` per module,
as tests/importing/test_real_vllm_upstream_series.py makes it) and one patch stacked on the first
(made on 0.33.0's file: it `requires:` the first). The modules are read from the real release
wheels, installed as a `vllm` 0.32.0 distribution with pip, and imported with `radpatch import`.
Then `verify --all` over every release from 0.27 to 0.33, twice: as imported (each entry claims
0.32.0), and claiming the whole span (so the releases it does not match show their nearest
candidates).

What each cell must be is computed from the same wheels with GNU patch, never typed in: a release
whose module takes the patch in reverse with no fuzz already contains the change (obsolete); one
that takes it forward with no fuzz passes; one whose wheel lacks the module fails there; any other
does not match, and its cell names a rewrite of the entry and the nearest candidate, a line of
that release's module. The stacked entry passes where GNU patch takes the first patch (or the
release contains it) and then the stacked one, and says its requirement fails elsewhere.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.releases.wheels import Releases
from tests.lib.venvs import make_venv, pip
from tests.lib.wheels import build_wheel

pytestmark = [pytest.mark.network]  # the package index's real vLLM wheels

SPAN = ">=0.27,<0.34"
BASE, UPSTREAM = Version("0.32.0"), Version("0.33.0")
MODULES = (
    "vllm/v1/core/sched/output.py",
    "vllm/v1/engine/coordinator.py",
    "vllm/v1/engine/exceptions.py",
    "vllm/v1/engine/output_processor.py",
)
ON_TOP = "0005-on-top"


@pytest.fixture
def real_index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The machine's pip settings and radpatch's shared release cache; --all: only this series."""
    from radpatch.registry import catalog

    monkeypatch.delenv("RADPATCH_CACHE", raising=False)
    (tmp_path / "none").mkdir()
    monkeypatch.setattr(catalog, "shipped_registry", lambda: tmp_path / "none")


def gnu(directory: Path, patch: Path, *extra: str) -> bool:
    """GNU patch takes `patch` on `directory` with no fuzz (a dry run unless told otherwise)."""
    out = subprocess.run(
        ["patch", "-f", "-F0", "-p1", "--no-backup-if-mismatch", "-r", "-", "-i", str(patch), *extra],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return out.returncode == 0


def diff(work: Path, rel: str, before: bytes, after: bytes) -> str:
    for side, data in (("a", before), ("b", after)):
        (work / side / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / side / rel).write_bytes(data)
    out = subprocess.run(["diff", "-u", f"a/{rel}", f"b/{rel}"], cwd=work, capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    return out.stdout


def stacked_edit(source: bytes) -> bytes:
    """The first one-line `return f(...)` of a function, as `result = f(...)` then `return result`."""
    lines = source.decode().splitlines(keepends=True)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) and node.end_lineno == node.lineno:
            line = lines[node.lineno - 1]
            indent = line[: len(line) - len(line.lstrip())]
            expr = line.strip()[len("return ") :]
            lines[node.lineno - 1] = f"{indent}result = {expr}\n{indent}return result\n"
            return "".join(lines).encode()
    raise AssertionError("no one-line `return f(...)` in the module")


@dataclass(frozen=True)
class Facts:
    """What GNU patch says of one entry's patch on one release's module."""

    present: bool  # the wheel has the module
    contains: bool  # the patch applies in reverse: the release already has the change
    applies: bool  # the patch applies forward


def facts_of(tmp: Path, patch: Path, rel: str, data: bytes | None) -> Facts:
    if data is None:
        return Facts(False, False, False)
    (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp / rel).write_bytes(data)
    return Facts(True, gnu(tmp, patch, "-R", "--dry-run"), gnu(tmp, patch, "--dry-run"))


def test_the_matrix_of_a_real_imported_series(real_index: None, radpatch: Any, tmp_path: Path) -> None:
    releases = Releases.from_env()
    versions = [v for v in releases.versions("vllm", SpecifierSet(SPAN)).versions if v in SpecifierSet(SPAN)]
    assert versions[0] < Version("0.28") and versions[-1] == UPSTREAM and BASE in versions
    files = {v: releases.get("vllm", v, frozenset(MODULES)) for v in versions}
    module: dict[tuple[Version, str], bytes | None] = {
        (v, rel): files[v].read(rel) for v in versions for rel in MODULES
    }

    patches: dict[str, tuple[Path, str]] = {}  # entry -> its patch file and module
    for n, rel in enumerate(MODULES, 1):
        before, after = module[(BASE, rel)], module[(UPSTREAM, rel)]
        assert before is not None and after is not None and before != after
        p = tmp_path / f"{n:04d}-{Path(rel).stem}.patch"
        p.write_text(diff(tmp_path / "d" / str(n), rel, before, after))
        patches[p.stem] = (p, rel)
    first = next(iter(patches))
    upstream_output = module[(UPSTREAM, MODULES[0])]
    assert upstream_output is not None
    top = tmp_path / f"{ON_TOP}.patch"
    top.write_text(diff(tmp_path / "d" / "top", MODULES[0], upstream_output, stacked_edit(upstream_output)))

    # vllm 0.32.0's modules, as pip installs them from a wheel, and the series imported on the CLI
    wheel = build_wheel(tmp_path / "wheel", "vllm", str(BASE), {rel: module[(BASE, rel)] or b"" for rel in MODULES})
    python = make_venv(tmp_path / "venv")
    pip(python, "install", "--no-deps", "--no-index", "--no-compile", str(wheel))
    order = [p for p, _ in patches.values()] + [top]
    for reg, extra in (("as-imported", ()), ("whole-span", ("--supported", SPAN))):
        r = radpatch("--python", str(python), "import", *map(str, order), "-p1", "--out", str(tmp_path / reg), *extra)
        assert r.code == 0, r.err
    assert f"requires:\n- {first}\n" in (tmp_path / "as-imported" / f"{ON_TOP}.yaml").read_text()

    # the reference: GNU patch on each release's module
    facts: dict[tuple[str, Version], Facts] = {}
    for name, (p, rel) in patches.items():
        for v in versions:
            facts[(name, v)] = facts_of(tmp_path / "gnu" / name / str(v), p, rel, module[(v, rel)])
    for v in versions:  # the stacked patch: on the release as GNU patch leaves it after the first
        work = tmp_path / "gnu" / ON_TOP / str(v)
        lower = facts[(first, v)]
        data = module[(v, MODULES[0])]
        ok = False
        if data is not None and (lower.applies or lower.contains):
            (work / MODULES[0]).parent.mkdir(parents=True, exist_ok=True)
            (work / MODULES[0]).write_bytes(data)
            ok = lower.contains or gnu(work, patches[first][0])
            ok = ok and gnu(work, top, "--dry-run")
        facts[(ON_TOP, v)] = Facts(data is not None, False, ok)
    assert facts[(first, UPSTREAM)].contains and facts[(first, BASE)].applies  # the reference is not vacuous
    assert any(not f.applies and not f.contains for f in facts.values())

    for reg, claims_all in (("as-imported", False), ("whole-span", True)):
        r = radpatch("--registry", str(tmp_path / reg), "verify", "--all", "--versions", SPAN, "--json")
        data = json.loads(r.out)
        cells = {(m["patch"], Version(c["version"])): c for m in data["matrix"] for c in m["cells"]}
        assert {v for _, v in cells} == set(versions)
        for (name, v), fact in facts.items():
            cell = cells[(name, v)]
            where = f"{reg}: {name} {v}: {cell}"
            in_range = claims_all or v == BASE
            if name == ON_TOP:
                if fact.applies:
                    # out of the range it claims, its requirement (imported for the base alone) claims no
                    # more: apply would refuse the requirement there (port38: a requirement's own range)
                    want = ("pass", None) if in_range else ("out of range", "requires fails")
                    assert (cell["cell"], cell["detail"]) == want, where
                elif in_range:
                    assert cell["cell"] == "fail" and cell["detail"].startswith(f"requires: {first} (required)"), where
                else:
                    assert (cell["cell"], cell["detail"]) == ("out of range", "requires fails"), where
            elif fact.contains:
                assert cell["cell"] == "obsolete", where
            elif not fact.present:
                assert cell["cell"] in (("moved", "fail") if in_range else ("out of range",)), where
            elif fact.applies:
                assert (cell["cell"], cell["detail"]) == (("pass", None) if in_range else ("out of range", "passes")), (
                    where
                )
            elif not in_range:
                assert (cell["cell"], cell["detail"]) == ("out of range", "match fails"), where
            else:
                assert cell["cell"] == "no match", where
                assert_nearest(cell["detail"], name, tmp_path / reg, patches[name][1], module[(v, patches[name][1])])
        failing = {(name, v) for (name, v), f in facts.items() if (claims_all or v == BASE) and not f.applies}
        assert r.code == (1 if failing else 0), r.err
    print(
        f"\nreal series matrix: {len(facts)} cells per registry over {len(versions)} releases; "
        f"obsolete: {sorted(f'{n} {v}' for (n, v), f in facts.items() if f.contains)}"
    )


def assert_nearest(detail: str, name: str, registry: Path, rel: str, data: bytes | None) -> None:
    """A no-match note names a rewrite of the entry and a line of the release's module holding code
    like the one shown."""
    assert data is not None
    found = re.fullmatch(r"rewrite '([^']+)': nearest candidate ([\w.]+):(\d+) \((\d+)% similar\): (.+)", detail, re.S)
    assert found, detail
    rewrite, modname, line, _, code = found.groups()
    assert f"id: {rewrite}\n" in (registry / f"{name}.yaml").read_text(), detail
    assert modname == rel[: -len(".py")].replace("/", "."), detail
    lines = data.decode().splitlines()
    assert 1 <= int(line) <= len(lines), detail
    shown = code.removesuffix("...").split()[0]
    assert any(shown in text for text in lines[int(line) - 1 : int(line) + 3]), (detail, lines[int(line) - 1])
