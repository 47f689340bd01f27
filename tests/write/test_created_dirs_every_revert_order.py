"""Directories radpatch made for created modules go with the last entry reverted, in every order
(att51 #5): `apply pa; apply pb; revert pa; revert pb`, pb creating a module in the subpackage pa's
module made, left toy/newpkg/sub/__pycache__ behind, and `import toy.newpkg` succeeded (a namespace
package) where the pristine install raised ModuleNotFoundError.

Generated: three entries (two modules in one new subpackage, one a level up in the new package) x
the order they are applied in x the order they are reverted in, one entry per run; the modules
imported (their bytecode written) while applied. The oracle is the pristine install: after the
last revert every path under the package (directories included) is what it was, and Python itself
cannot import the new package."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.toy import ORIGINAL

ENTRIES = {"pa": "toypkg.newpkg.sub.a", "pb": "toypkg.newpkg.sub.b", "pc": "toypkg.newpkg.c"}


def entry(module: str) -> str:
    return f"""\
    summary: create {module}
    description: d
    distribution: toypkg
    supported: ">=1.0,<2"
    modules:
      m: {module}
    rewrites:
      - create_module: {{content: {module.rsplit(".", 1)[-1]}.py}}
    """


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / "toypkg").rglob("*"))


def run(site: Site, code: str) -> str:
    """What Python prints on stderr running `code` against the site (its bytecode beside the sources)."""
    env = {"PYTHONPATH": str(site.root), "PYTHONDONTWRITEBYTECODE": ""}
    return subprocess.run([sys.executable, "-c", code], cwd=site.root, capture_output=True, text=True, env=env).stderr


CASES = sample(list(itertools.product(itertools.permutations(ENTRIES), itertools.permutations(ENTRIES))))


@pytest.mark.parametrize(("applied", "reverted"), CASES, ids=[f"{'-'.join(a)}_then_{'-'.join(r)}" for a, r in CASES])
def test_every_order_of_reverts_leaves_no_directory_radpatch_made(
    site: Site,
    write_registry: Callable[..., Path],
    radpatch: Any,
    monkeypatch: pytest.MonkeyPatch,
    applied: tuple[str, ...],
    reverted: tuple[str, ...],
) -> None:
    monkeypatch.setattr(sys, "pycache_prefix", None)  # bytecode beside the sources, where it is looked for
    site.install("toypkg", "1.0", {k: v.decode() for k, v in ORIGINAL.items()})
    assert "ModuleNotFoundError" in run(site, "import toypkg, toypkg.core, toypkg.util, toypkg.newpkg")
    pristine = tree(site.root)  # with the installed modules' own bytecode
    registry = Path()
    for name, module in ENTRIES.items():
        leaf = module.rsplit(".", 1)[-1]
        registry = write_registry(name, entry(module), {f"{leaf}.py": f"{leaf.upper()} = 1\n"})
    for name in applied:
        r = radpatch("--registry", str(registry), "apply", name)
        assert r.code == 0, r.err
    assert run(site, "import toypkg.newpkg.sub.a, toypkg.newpkg.sub.b, toypkg.newpkg.c") == ""
    assert any(p.name == "__pycache__" for p in (site.root / "toypkg/newpkg").rglob("*"))
    for name in reverted:
        r = radpatch("--registry", str(registry), "revert", name)
        assert r.code == 0, r.err
    assert tree(site.root) == pristine
    assert "ModuleNotFoundError" in run(site, "import toypkg.newpkg")


HAND = sample(
    list(
        itertools.product([s for n in (1, 2, 3) for s in itertools.combinations(ENTRIES, n)], ("pa-pb-pc", "pc-pb-pa"))
    )
)


@pytest.mark.parametrize(("by_hand", "order"), HAND, ids=[f"{'-'.join(h)}_deleted_then_{o}" for h, o in HAND])
def test_created_modules_deleted_by_hand_leave_no_directory_after_the_reverts(
    site: Site,
    write_registry: Callable[..., Path],
    radpatch: Any,
    monkeypatch: pytest.MonkeyPatch,
    by_hand: tuple[str, ...],
    order: str,
) -> None:
    """att51 #5's second case: a created file deleted by hand reads not applied ("nothing to
    revert"), and its directories and bytecode stayed."""
    monkeypatch.setattr(sys, "pycache_prefix", None)
    site.install("toypkg", "1.0", {k: v.decode() for k, v in ORIGINAL.items()})
    assert "ModuleNotFoundError" in run(site, "import toypkg, toypkg.core, toypkg.util, toypkg.newpkg")
    pristine = tree(site.root)
    registry = Path()
    for name, module in ENTRIES.items():
        leaf = module.rsplit(".", 1)[-1]
        registry = write_registry(name, entry(module), {f"{leaf}.py": f"{leaf.upper()} = 1\n"})
    assert radpatch("--registry", str(registry), "apply", *ENTRIES).code == 0
    assert run(site, "import toypkg.newpkg.sub.a, toypkg.newpkg.sub.b, toypkg.newpkg.c") == ""
    for name in by_hand:
        (site.root / (ENTRIES[name].replace(".", "/") + ".py")).unlink()
    for name in order.split("-"):
        r = radpatch("--registry", str(registry), "revert", name)
        assert r.code == 0, r.err
    assert tree(site.root) == pristine
    assert "ModuleNotFoundError" in run(site, "import toypkg.newpkg")
