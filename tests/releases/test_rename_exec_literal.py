"""Code another module runs with `exec`/`eval` from a string literal, read as code (issue 23, exec51).

A rename is followed only where no other module of the package may store the renamed name. The rules
read an `exec` of a literal by its words (port49): a literal that named the name refused, one that did
not was let through, even where it stores the name without spelling it (`setattr(core, 'si' + 'ze',
...)`, `vars(core)['si' + 'ze'] = ...`), and a literal joined with `+` was no literal at all. Now the
literal (folded as Python folds it) is parsed and read like the rest (radpatch.releases.exec_code).

Generated: the code run (literals that store the old or the new name by each spelling, store it
without spelling it, read it only, store other names) x where it runs (another module; the module
binding the old name; the one defining the new name: there `exec` refused whatever it ran) x the
package's size (read whole, or more modules than verify reads: the store index picks them). The
oracle: Python imports every module of the release and says whether `rptoy.core.size` is still the
renamed definition. The rename is followed only where it is; where the code stores neither name it
is followed (in the two modules of the rename, code that stores one of them is refused even where
the import order happens to undo it: the rules do not follow import order)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, GOOD, RENAME_ENTRY, RENAMED, renamed_intact

ENTRY = RENAME_ENTRY
HEADS = {  # each binds `core` and `planning` for the code run, binding no name of the rename again
    "rptoy/hook.py": "from rptoy import core, planning\n\n",
    "rptoy/core.py": "import sys\n\ncore = sys.modules[__name__]\n",
    "rptoy/planning.py": "import sys\n\nfrom rptoy import core\n\nplanning = sys.modules[__name__]\n",
}
WHERE = {"another module": "rptoy/hook.py", "the old name's": "rptoy/core.py", "the new name's": "rptoy/planning.py"}
RUNS = {
    "attribute stored": "exec('core.size = len')",
    "joined literal": "exec('core.si' + 'ze = len')",
    "f-string without fields": "exec(f'core.size = len')",
    "setattr by a joined name": "exec(\"setattr(core, 'si' + 'ze', len)\")",
    "namespace subscript": "exec(\"vars(core)['si' + 'ze'] = len\")",
    "__dict__ update": "exec(\"core.__dict__.update({'si' + 'ze': len})\")",
    "name stored in its namespace": "exec('size = len', vars(core))",
    "walrus by eval": "eval('(size := len)', vars(core))",
    "nested joined exec": 'exec(\'exec("core.si" + "ze = len")\')',
    "new name redefined": "exec('def size_of(items):\\n    return 0', vars(planning))",
    "old name read only": "exec('def show():\\n    return core.size([1]), planning.size_of')",
    "other attribute": "exec('core.width = 1')",
    "other names bound": "exec('import os\\nx = 1\\ndef helper():\\n    return x')",
    "nothing stored": "eval('1 + 2')",
}
STORE_NOTHING = ("old name read only", "other attribute", "other names bound", "nothing stored")
SIZES = {"small package": 0, "over verify's file budget": 650}  # package_files.MAX_FILES is 600
CASES = sample([(r, w, s) for r in RUNS for w in WHERE for s in SIZES])


def _release(run: str, where: str, size: str) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        "rptoy/__init__.py": "",
        "rptoy/core.py": "from rptoy import planning\n\nsize = planning.size_of\n",
        "rptoy/planning.py": RENAMED,
        "rptoy/hook.py": "",
    }
    rel = WHERE[where]
    files[rel] = f"{files[rel]!s}\n{HEADS[rel]}{RUNS[run]}  # RUN\n"
    if SIZES[size]:
        files["rptoy/fill/__init__.py"] = ""
    for i in range(SIZES[size]):
        files[f"rptoy/fill/m{i:04d}.py"] = f"class C:\n    pass\n\n\nC.width = {i}\n"
    return files


@pytest.mark.parametrize(("run", "where", "size"), CASES, ids=["-".join(c) for c in CASES])
def test_literal_code_run_by_exec_is_read_as_code(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, run: str, where: str, size: str
) -> None:
    second = _release(run, where, size)
    intact = renamed_intact(tmp_path / "oracle", second)
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": second})
    reg = write_registry("cap", ENTRY)
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    error = told["results"][0]["error"] or ""
    assert "cannot be ruled out" not in error, error
    followed = "not followed" not in error and "moved: size is now rptoy.planning.size_of" in error
    assert intact or not followed, error  # never followed where Python's run undoes the rename
    if run in STORE_NOTHING or (intact and where == "another module"):
        assert intact and followed, error
    if not followed:
        rel = WHERE[where]
        line = next(i for i, t in enumerate(str(second[rel]).splitlines(), 1) if "# RUN" in t)
        assert "is not followed as a rename" in error and f"{rel}:{line}" in error, error
        assert "vouched_exec" not in error, error  # literal code is read, never vouched for


# att52 #3c: exec or eval taken out of radpatch's sight, then run: the code it runs is not read where it
# is called, so the rename is never followed (the refusal names the line; the author may vouch for it)
ESCAPES = {
    "held in a name": "_run = exec\n_run('core.size = len')",
    "builtins under an alias": "import builtins as b\nb.exec('core.size = len')",
    "getattr by name": "import builtins\ngetattr(builtins, 'exec')('core.size = len')",
    "passed on": "def call(f, code):\n    f(code)\n\n\ncall(exec, 'core.size = len')",
    "held, storing nothing": "_run = eval\n_run('1 + 2')",
}
ESCAPE_CASES = sample([(e, w) for e in ESCAPES for w in WHERE if w == "another module"])


@pytest.mark.parametrize(("escape", "where"), ESCAPE_CASES, ids=["-".join(c) for c in ESCAPE_CASES])
def test_exec_out_of_sight_is_never_followed(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, escape: str, where: str
) -> None:
    second = _release("nothing stored", where, "small package")
    rel = WHERE[where]
    second[rel] = f"{HEADS[rel]}{ESCAPES[escape]}  # RUN\n"
    intact = renamed_intact(tmp_path / "oracle", second)
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": second})
    reg = write_registry("cap", ENTRY)
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    error = told["results"][0]["error"] or ""
    followed = "not followed" not in error and "moved: size is now rptoy.planning.size_of" in error
    assert not followed, error  # the oracle (`intact`) may say the run left it: radpatch cannot read that
    assert "vouched_exec" in error and f"{rel}:" in error, (intact, error)
