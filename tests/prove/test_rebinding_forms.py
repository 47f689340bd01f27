"""A name an operation adds or sets (set_constant, add_import, insert_definitions) may be rebound
later at module level by a store radpatch must see through: an assignment expression binding an
alias of the namespace or of the module (`(_g := globals())['X'] = ...`); the module by its literal
name (`sys.modules['pkg.mod'].X = ...`, also through `import sys as _s` or `from sys import
modules`, or `importlib.import_module(__name__)`; `sys.modules['pkg']` is another module); a store
by `mod.__setattr__`, `object.__setattr__`, `builtins.globals()`, `_gl = globals; _gl()` or a
module-level `locals()` (not a function's); an alias of an alias (`_g =
globals(); _h = _g; _h['X'] = ...`, `_m = sys.modules[__name__]; _d = _m.__dict__`, one bound by
unpacking or as the variable of a loop over a literal list); a module-level call of a function that
stores it (`global X; X = ...` or `globals()['X'] = ...` in its body); or the parent package's
attribute (`import pkg; pkg.mod.X = ...`, which raises during the module's own import: it never
rebinds).

Generated: each form times each operation times a value that replaces the name (`7`) or keeps it
(the name itself), unconditionally or under `if COND:`. Every original and patched module is
written as a real package module and imported in one subprocess per test session; plan.plan must
refuse, with the placement step's message, exactly the patches whose change does not show on some
run (COND true or false).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.set_constant import SetConstant
from radpatch.rewrite.runner import forward
from tests.lib.def_runs import RUNNER
from tests.lib.generated import sample
from tests.lib.rewrites import patch_of

HEAD = """import sys

COND = {cond}
X = 5


def f():
    return 1


def g():
    return 2


"""

FORMS = {  # the later statement(s), storing {v} under the name {n}; PKG is the package's name
    "walrus-item": "(_g := globals())['{n}'] = {v}",
    "walrus-update": "(_g := globals()).update({n}={v})",
    "walrus-module-attr": "(_m := sys.modules[__name__]).{n} = {v}",
    "walrus-module-setattr": "setattr((_m := sys.modules[__name__]), '{n}', {v})",
    "walrus-vars-module": "vars(_m := sys.modules[__name__])['{n}'] = {v}",
    "by-name-attr": "sys.modules[__name__].{n} = {v}",
    "literal-attr": "sys.modules['PKG.mod'].{n} = {v}",
    "literal-setattr": "setattr(sys.modules['PKG.mod'], '{n}', {v})",
    "literal-get-attr": "sys.modules.get('PKG.mod').{n} = {v}",
    "literal-dict-item": "sys.modules['PKG.mod'].__dict__['{n}'] = {v}",
    "spec-name-attr": "sys.modules[__spec__.name].{n} = {v}",
    "literal-package-attr": "sys.modules['PKG'].{n} = {v}",  # the package, not this module
    "sys-alias": "import sys as _s\n_s.modules[__name__].{n} = {v}",
    "sys-modules-imported": "from sys import modules as _ms\n_ms['PKG.mod'].{n} = {v}",
    "namespace-alias-of-alias": "_a = globals()\n_b = _a\n_b['{n}'] = {v}",
    "namespace-alias-three-deep": "_a = vars()\n_b = _a\n_c = _b\n_c.update({n}={v})",
    "module-alias-of-alias": "_a = sys.modules[__name__]\n_b = _a\n_b.{n} = {v}",
    "module-alias-of-alias-setattr": "_a = sys.modules[__name__]\n_b = _a\nsetattr(_b, '{n}', {v})",
    "module-alias-dict": "_a = sys.modules[__name__]\n_b = _a.__dict__\n_b['{n}'] = {v}",
    "import-self-alias-of-alias": "from PKG import mod as _me\n_b = _me\n_b.{n} = {v}",
    "namespace-alias-walrus-of-alias": "_a = globals()\nif (_b := _a):\n    _b['{n}'] = {v}",
    "namespace-alias-unpacked": "_a, _z = globals(), 0\n_a['{n}'] = {v}",
    "namespace-loop-variable": "for _a in [globals()]:\n    _a['{n}'] = {v}",
    "module-loop-variable": "for _a in (sys.modules[__name__],):\n    setattr(_a, '{n}', {v})",
    "import-module-by-name": "import importlib\nimportlib.import_module(__name__).{n} = {v}",
    "import-module-literal": "from importlib import import_module\nsetattr(import_module('PKG.mod'), '{n}', {v})",
    "import-module-package": "import importlib\nimportlib.import_module('PKG').{n} = {v}",  # another module
    "module-dunder-setattr": "sys.modules[__name__].__setattr__('{n}', {v})",
    "object-setattr": "object.__setattr__(sys.modules[__name__], '{n}', {v})",
    "builtins-globals": "import builtins\nbuiltins.globals()['{n}'] = {v}",
    "globals-function-alias": "_gl = globals\n_gl()['{n}'] = {v}",
    "vars-function-alias-update": "_v = vars\n_v().update({n}={v})",
    "called-function-global": "def _s():\n    global {n}\n    {n} = {v}\n\n\n_s()",
    "called-function-globals": "def _s():\n    globals()['{n}'] = {v}\n\n\n_s()",
    "called-function-in-expression": "def _s():\n    globals().update({n}={v})\n    return 1\n\n\n_one = _s() + 0",
    "locals-item": "locals()['{n}'] = {v}",  # at module level locals() is globals()
    "locals-update": "locals().update({n}={v})",
    "locals-computed": "for _k in ['{n}']:\n    locals()[_k] = {v}",
    "builtins-locals": "import builtins\nbuiltins.locals()['{n}'] = {v}",
    "called-function-locals": "def _s():\n    locals()['{n}'] = {v}\n\n\n_s()",  # its own locals: no rebinding
    "called-function-vars": "def _s():\n    vars().update({n}={v})\n\n\n_s()",
    "uncalled-function-global": "def _s():\n    global {n}\n    {n} = {v}",  # never runs: no rebinding
    # the parent's attribute for this module is bound only after the module has run: never a store here
    "parent-attribute": "import PKG\ntry:\n    PKG.mod.{n} = {v}\nexcept AttributeError:\n    pass",
    "dotted-import-attribute": "import PKG.mod\ntry:\n    PKG.mod.{n} = {v}\nexcept AttributeError:\n    pass",
    "dotted-import-setattr": "import PKG.mod\ntry:\n    setattr(PKG.mod, '{n}', {v})\nexcept AttributeError:\n    pass",
}


@dataclass(frozen=True)
class Op:
    """An operation, the name it binds, what it binds it to (`shows`: an expression true when the
    patched binding is what the module holds at the end)."""

    op: Operation
    name: str
    shows: str


PAYLOAD = b"def h():\n    return 100\n"
OPS = {
    "set_constant": Op(SetConstant("X", "50", "5"), "X", "mod.X == 50"),
    "add_import": Op(AddImport("from os import sep as Y"), "Y", "getattr(mod, 'Y', None) == __import__('os').sep"),
    "insert_definitions": Op(
        InsertDefinitions(Path("p.py"), PAYLOAD, ("h",), "g", "after"),
        "h",
        "callable(getattr(mod, 'h', None)) and mod.h() == 100",
    ),
}
VALUES = {"replaces": "7", "keeps": "({n} if '{n}' in globals() else None)"}  # keeps: reads the name
WRAPS = ("always", "if-cond")
# a generated family: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py)
CASES = sample(itertools.product(FORMS, OPS, VALUES, WRAPS))


def source(form: str, op: str, value: str, wrap: str, cond: bool, pkg: str) -> str:
    name = OPS[op].name
    tail = FORMS[form].format(n=name, v=VALUES[value].format(n=name)).replace("PKG", pkg)
    if wrap == "if-cond":
        tail = "if COND:\n" + textwrap.indent(tail, "    ") + "\n"
    return HEAD.format(cond=cond) + tail + "\n"


def patched(op: str, before: str, pkg: str) -> str | None:
    """The patched module, or None when the rewrite itself refuses it."""
    patch = patch_of(OPS[op].op, distribution=pkg, module=f"{pkg}.mod")
    try:
        return forward(patch, patch.rewrites, before.encode(), f"{pkg}/mod.py").decode()
    except RefusedError:
        return None


def refusal(op: str, before: str, pkg: str) -> str | None:
    patch = patch_of(OPS[op].op, distribution=pkg, module=f"{pkg}.mod")
    try:
        plan.plan(patch, patch.rewrites, f"{pkg}.mod", Path(f"{pkg}/mod.py"), before.encode())
    except RefusedError as exc:
        return exc.message
    return None


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str, str], list[tuple[object, object]]]:
    """Per case: for each COND, (whether the original shows the change, whether the patch does: None
    when the rewrite refuses it), from importing every module in one subprocess."""
    root = tmp_path_factory.mktemp("forms")
    asked: dict[str, str] = {}
    where: dict[tuple[str, str, str, str], list[tuple[str, str]]] = {}
    count = itertools.count()
    for case in CASES:
        form, op, value, wrap = case
        for cond in (True, False) if wrap == "if-cond" else (True,):
            pair = []
            for kind in ("before", "after"):
                pkg = f"rp_form_{next(count)}"
                before = source(form, op, value, wrap, cond, pkg)
                text = before if kind == "before" else patched(op, before, pkg)
                if text is None:
                    break  # the rewrite refuses it: nothing to run
                (root / pkg).mkdir()
                (root / pkg / "__init__.py").write_text("")
                (root / pkg / "mod.py").write_text(text)
                asked[pkg] = OPS[op].shows
                pair.append(pkg)
            where.setdefault(case, []).append((pair[0], pair[1] if len(pair) == 2 else ""))
    run = subprocess.run(
        [sys.executable, "-I", "-c", RUNNER, json.dumps(asked), str(root)], capture_output=True, text=True, check=True
    )
    found = json.loads(run.stdout)
    return {case: [(found[b], found.get(a)) for b, a in pairs] for case, pairs in where.items()}


@pytest.mark.parametrize(("form", "op", "value", "wrap"), CASES, ids=["-".join(c) for c in CASES])
def test_refused_exactly_when_the_change_does_not_run(
    truth: dict[tuple[str, str, str, str], list[tuple[object, object]]], form: str, op: str, value: str, wrap: str
) -> None:
    runs = truth[form, op, value, wrap]
    assert all(before is False for before, _ in runs), runs  # the original imports and lacks the change
    said = refusal(op, source(form, op, value, wrap, True, "rp_me"), "rp_me")
    if any(after is None for _, after in runs):  # the rewrite itself refused it: a `global`, a store it reads
        assert said is not None and ("global" in said or "rebind" in said), said
        return
    assert all(isinstance(after, bool) for _, after in runs), runs
    shows = all(after for _, after in runs)
    assert (said is not None) == (not shows), (runs, said)
    if said is not None:
        assert f"`{OPS[op].name}`" in said and ("rebind" in said or "module-level store" in said), said
