"""Whether the def a patch changes is the one that runs: each module written as a real package
module, imported in one subprocess (`runs`), and the refusal plan.plan gives the patch (`refusal`)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.runner import forward
from tests.lib.generated import sample
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


def runs(
    modules: dict[str, tuple[str, str]],
    root: Path,
    python: str = sys.executable,
    others: Mapping[str, str] | None = None,
) -> dict[str, object]:
    """Per package name: (module text, expression on `mod`) -> the expression's truth after importing
    the module, or the repr of what importing or evaluating raised. `others` (file name: text): more
    modules written beside each package's mod.py."""
    for pkg, (text, _) in modules.items():
        (root / pkg).mkdir()
        (root / pkg / "__init__.py").write_text("")
        (root / pkg / "mod.py").write_text(text)
        for name, other in (others or {}).items():
            (root / pkg / name).write_text(other)
    asked = json.dumps({pkg: shows for pkg, (_, shows) in modules.items()})
    run = subprocess.run([python, "-I", "-c", RUNNER, asked, str(root)], capture_output=True, text=True, check=True)
    found: dict[str, object] = json.loads(run.stdout)
    return found


def wrapped(head: str, tail: str, wrap: str, cond: bool) -> str:
    """A generated module: `head` (formatted with `cond`), then `tail`, under `if COND:` when `wrap`
    is "if-cond" (else "always")."""
    if wrap == "if-cond":
        tail = "if COND:\n" + textwrap.indent(tail, "    ")
    return head.format(cond=cond) + tail + "\n"


def cases_truth(
    op: Operation,
    cases: Iterable[tuple[str, str, str]],
    source: Callable[[str, str, str, bool], str],
    prefix: str,
    root: Path,
) -> dict[tuple[str, str, str], list[object]]:
    """Per (form, value, wrap) case: for each COND (both for "if-cond"), whether the module `op`
    patches, imported in one subprocess (`runs`), has the changed f (`mod.f() == 'new'`)."""
    modules: dict[str, tuple[str, str]] = {}
    where: dict[tuple[str, str, str], list[str]] = {}
    n = itertools.count()
    for case in cases:
        for cond in (True, False) if case[2] == "if-cond" else (True,):
            pkg = f"{prefix}_{next(n)}"
            text = patched(op, source(*case, cond), pkg)
            assert text is not None and "'new'" in text
            modules[pkg] = (text, "mod.f() == 'new'")
            where.setdefault(case, []).append(pkg)
    found = runs(modules, root)
    return {case: [found[p] for p in pkgs] for case, pkgs in where.items()}


# The store families (tests/prove/test_call_stores.py, test_reached.py): f changed by OP, then a form
# that stores VALUES' value under the name f, always or under `if COND:`.
OP = Replace("f", "'old'", "'new'")
VALUES = {"replaces": "g", "keeps": "f"}
WRAPS = ("always", "if-cond")
Case = tuple[str, str, str]


def store_family(head: str, forms: dict[str, str]) -> tuple[list[Case], Callable[[str, str, str, bool], str]]:
    """The (form, value, wrap) cases of a store family, sampled, and its source(form, value, wrap, cond)."""

    def source(form: str, value: str, wrap: str, cond: bool) -> str:
        return wrapped(head, forms[form].replace("V", VALUES[value]), wrap, cond)

    return sample(itertools.product(forms, VALUES, WRAPS)), source


def refused_unless_changed_f_runs(ran: list[object], text: str) -> str | None:
    """plan's refusal of OP on `text`, held to the truth `ran` (cases_truth's runs of the module): refused
    exactly when a run does not end with the changed f."""
    said = refusal(OP, text)
    assert (said is not None) == (not all(r is True for r in ran)), (ran, said)
    return said
