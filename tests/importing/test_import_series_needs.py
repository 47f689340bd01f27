"""A series' patch may import a module another patch of the series creates, or a name another one
adds to a module, earlier or LATER in the series (Emu3.5's vLLM series imports, in its 6th patch,
the module its 7th creates). GNU patch only ever sees the series whole; radpatch applies and
reverts entries one by one, so the importing entry must require the provider.

Seeded series against a simple reference (the patch that creates each module or adds each
name): `radpatch import` writes exactly those `requires:`; every entry applied on its own (with
what it requires) leaves every module it changes importable; the whole series applied is what GNU
patch gives, byte for byte; reverting a provider alone is refused naming the entry that needs it.
A pair that needs each other (the provider changes what the importer changed) is refused by name."""

from __future__ import annotations

import ast
import random
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import PACKAGE, Venv, gnu_patch

pytestmark = pytest.mark.wheel

USERS = ("std_shlex", "std_fnmatch", "std_difflib", "std_textwrap")
NAME_HOMES = ("std_calendar", "std_configparser")


def _diff(tmp: Path, rel: str, before: str | None, after: str) -> str:
    """`git diff --no-index` of one file (a new one from /dev/null)."""
    a, b = tmp / "a" / rel, tmp / "b" / rel
    b.parent.mkdir(parents=True, exist_ok=True)
    b.write_text(after)
    if before is not None:
        a.parent.mkdir(parents=True, exist_ok=True)
        a.write_text(before)
    left = f"a/{rel}" if before is not None else "/dev/null"
    run = subprocess.run(["git", "diff", "--no-index", left, f"b/{rel}"], cwd=tmp, capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    return run.stdout.replace(f"a/a/{rel}", f"a/{rel}").replace(f"b/b/{rel}", f"b/{rel}")


def _with_import(text: str, line: str) -> str:
    """`line` added before the module's first top-level import."""
    lines = text.splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.startswith(("import ", "from ")))
    return "".join([*lines[:at], line + "\n", *lines[at:]])


@dataclass
class Plan:
    patches: list[tuple[str, str, str | None, str]] = field(default_factory=list)  # (name, rel, before, after)
    provider_of: dict[str, str] = field(default_factory=dict)  # importer's patch name -> provider's


def _plan(site: Path, rng: random.Random) -> Plan:
    """Providers (a new module, or a name added to an existing one) and importers, shuffled."""
    providers: list[tuple[str, str, str | None, str, str]] = []  # (name, rel, before, after, import line)
    for k in range(rng.randint(1, 2)):
        mod = rng.choice([f"sub/made{k}", f"made{k}", f"newpkg{k}/__init__"])
        rel = f"{PACKAGE}/{mod}.py"
        dotted = f"{PACKAGE}.{mod.replace('/', '.')}".removesuffix(".__init__")
        stmt = rng.choice(
            [
                f"from {dotted} import MADE{k}",
                f"import {dotted}",
                f"from .{dotted.split('.', 1)[1]} import MADE{k}",  # relative, from a top-level module
            ]
        )
        providers.append((f"create{k}", rel, None, f"MADE{k} = {k}\n", stmt))
    for k, home in enumerate(rng.sample(NAME_HOMES, rng.randint(0, 2))):
        rel = f"{PACKAGE}/{home}.py"
        before = (site / rel).read_text()
        providers.append((f"add{k}", rel, before, before + f"\n\nADDED{k} = {k}\n", f"from .{home} import ADDED{k}"))
    plan = Plan()
    users = rng.sample(USERS, len(providers))
    entries: list[tuple[str, str, str | None, str]] = []
    for (pname, rel, before, after, stmt), user in zip(providers, users, strict=True):
        entries.append((pname, rel, before, after))
        urel = f"{PACKAGE}/{user}.py"
        original = (site / urel).read_text()
        entries.append((f"use-{pname}", urel, original, _with_import(original, stmt)))
        plan.provider_of[f"use-{pname}"] = pname
    rng.shuffle(entries)
    plan.patches = [(f"{n:02d}-{name}", rel, b, a) for n, (name, rel, b, a) in enumerate(entries, 1)]
    full = {name.split("-", 1)[1]: name for name, *_ in plan.patches}
    plan.provider_of = {full[u]: full[p] for u, p in plan.provider_of.items()}
    return plan


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts
    }


def _imports(venv: Venv, modules: list[str]) -> subprocess.CompletedProcess[str]:
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)\n"
    return subprocess.run([str(venv.python), "-c", code], capture_output=True, text=True, timeout=120, check=False)


def test_an_entry_requires_the_entry_that_creates_or_adds_what_it_imports(venv: Venv, tmp_path: Path) -> None:
    pristine = _tree(venv.site / PACKAGE)
    for seed in range(3):
        rng = random.Random(seed)
        work = tmp_path / str(seed)
        plan = _plan(venv.site, rng)
        paths = []
        for name, rel, before, after in plan.patches:
            p = work / f"{name}.patch"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(_diff(work / "d" / name, rel, before, after))
            paths.append(p)
        reg = work / "reg"
        out = venv.radpatch("import", *map(str, paths), "-p1", "--out", str(reg))
        assert out.returncode == 0, (seed, out.stderr)
        names = [n for n, *_ in plan.patches]
        written = {n: yaml.safe_load((reg / f"{n}.yaml").read_text()).get("requires", []) for n in names}
        assert written == {n: [plan.provider_of[n]] if n in plan.provider_of else [] for n in names}, seed

        for name, rel, _, _ in plan.patches:  # each entry on its own (with what it requires)
            applied = venv.radpatch("--registry", str(reg), "apply", name)
            assert applied.returncode == 0, (seed, name, applied.stderr)
            module = rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            ran = _imports(venv, [module])
            assert ran.returncode == 0, (seed, name, ran.stderr[-500:])
            reverted = venv.radpatch("--registry", str(reg), "revert", *reversed(names))
            assert reverted.returncode == 0, (seed, name, reverted.stderr)
            assert _tree(venv.site / PACKAGE) == pristine, (seed, name)

        gnu = work / "gnu"
        shutil.copytree(venv.site / PACKAGE, gnu / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
        for p in paths:
            assert gnu_patch(gnu, p, 1).returncode == 0, p
        applied = venv.radpatch("--registry", str(reg), "apply", *names)  # in the series' order, as printed
        assert applied.returncode == 0, (seed, applied.stderr)
        mine, theirs = _tree(venv.site / PACKAGE), _tree(gnu / PACKAGE)
        assert mine.keys() == theirs.keys(), seed
        changed = {rel for _, rel, _, _ in plan.patches}
        for rel in changed:
            rel_in = rel.removeprefix(f"{PACKAGE}/")
            assert ast.dump(ast.parse(mine[rel_in])) == ast.dump(ast.parse(theirs[rel_in])), (seed, rel)
        provider = next(iter(plan.provider_of.values()))
        user = next(u for u, p in plan.provider_of.items() if p == provider)
        refused = venv.radpatch("--registry", str(reg), "revert", provider)
        assert refused.returncode == 1 and f"{user} is applied and requires it" in refused.stderr, refused.stderr
        assert venv.radpatch("--registry", str(reg), "revert", *reversed(names)).returncode == 0
        assert _tree(venv.site / PACKAGE) == pristine, seed


def test_two_patches_that_need_each_other_are_refused_naming_both(venv: Venv, tmp_path: Path) -> None:
    rel = f"{PACKAGE}/std_shlex.py"
    original = (venv.site / rel).read_text()
    first = _with_import(original, f"from {PACKAGE}.sub.later import LATER")
    second = first + "\n\nSECOND = 2\n"  # changes what the first changed: it is applied on top of it
    p1 = tmp_path / "0001-use.patch"
    p1.write_text(_diff(tmp_path / "d1", rel, original, first))
    p2 = tmp_path / "0002-make.patch"
    p2.write_text(
        _diff(tmp_path / "d2", rel, first, second)
        + _diff(tmp_path / "d3", f"{PACKAGE}/sub/later.py", None, "LATER = 1\n")
    )
    out = venv.radpatch("import", str(p1), str(p2), "-p1", "--out", str(tmp_path / "reg"))
    assert out.returncode == 1, out.stdout
    assert f"{p1} imports {PACKAGE}.sub.later, which {p2} creates" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 2, out.stderr
    assert not (tmp_path / "reg").exists()
