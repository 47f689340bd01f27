"""Whether the def a patch changes is the one that runs: each module written as a real package
module, imported in one subprocess (`runs`), and the refusal plan.plan gives the patch (`refusal`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.runner import forward
from tests.lib.rewrites import patch_of

RUNNER = """import importlib, json, sys
sys.path.insert(0, sys.argv[2])
out = {}
for pkg, shows in json.loads(sys.argv[1]).items():
    try:
        mod = importlib.import_module(pkg + ".mod")
        out[pkg] = bool(eval(shows, {"mod": mod}))
    except Exception as exc:
        out[pkg] = repr(exc)
print(json.dumps(out))
"""


def patched(op: Operation, before: str, pkg: str) -> str | None:
    """The module `op` makes of `before`, or None when the rewrite itself refuses it."""
    patch = patch_of(op, distribution=pkg, module=f"{pkg}.mod")
    try:
        return forward(patch, patch.rewrites, before.encode(), f"{pkg}/mod.py").decode()
    except RefusedError:
        return None


def refusal(op: Operation, before: str, pkg: str = "rp_me") -> str | None:
    """The message of the refusal plan.plan gives `op` on `before` as module `pkg.mod`, or None."""
    patch = patch_of(op, distribution=pkg, module=f"{pkg}.mod")
    try:
        plan.plan(patch, patch.rewrites, f"{pkg}.mod", Path(f"{pkg}/mod.py"), before.encode())
    except RefusedError as exc:
        return exc.message
    return None


def runs(modules: dict[str, tuple[str, str]], root: Path, python: str = sys.executable) -> dict[str, object]:
    """Per package name: (module text, expression on `mod`) -> the expression's truth after importing
    the module, or the repr of what importing or evaluating raised."""
    for pkg, (text, _) in modules.items():
        (root / pkg).mkdir()
        (root / pkg / "__init__.py").write_text("")
        (root / pkg / "mod.py").write_text(text)
    asked = json.dumps({pkg: shows for pkg, (_, shows) in modules.items()})
    run = subprocess.run([python, "-I", "-c", RUNNER, asked, str(root)], capture_output=True, text=True, check=True)
    found: dict[str, object] = json.loads(run.stdout)
    return found
