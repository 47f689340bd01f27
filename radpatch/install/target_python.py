"""What the target interpreter is, where radpatch's own cannot stand in for it: whether its grammar
is radpatch's own (same_grammar), and what its standard library binds (stdlib_binds).

When the target interpreter is another Python version than radpatch's own, radpatch's
`compile()` would accept syntax the target cannot parse (a PEP 695 `type X = int` for a 3.10
target), judge names against the wrong builtins and the wrong standard library (`import tomllib`
on 3.10), and could not parse a module written in a newer grammar than its own at all. Then the
target itself answers: prove.target_probe runs radpatch's compile, names and placement analyses
there. When the target is radpatch's own Python version none of this runs: the grammar, the
builtins and sys.stdlib_module_names are the same, so a plain apply starts no subprocess.

One question goes to the target whatever its version (stdlib_binds), and only when a patch adds an
unguarded `from` import from the standard library, or an unguarded read of an imported
standard-library module's attribute (`enum.StrEnum`): does the target's module bind that name
(`from typing import Self` on 3.10, `from typing import override` on 3.11)? The files cannot tell:
the standard library binds names through C modules' star imports and `enum.global_enum`. The target
answers isolated (`-I -S`: its standard library only), importing just those standard-library modules.
"""

from __future__ import annotations

import json
import subprocess
import sys

TIMEOUT = 120  # seconds the target may take to answer (a 100k-line module compiles in a few)

_BINDS_PROBE = r"""
import importlib, importlib.util, io, json, sys
asked = json.loads(sys.stdin.buffer.read())
answer, sys.stdout = sys.stdout, io.StringIO()  # a module that prints on import (`this`) stays out of the answer
out = []
for module, name in asked:
    try:
        if module.split(".")[0] not in sys.stdlib_module_names:
            out.append(None)
            continue
        m = importlib.import_module(module)
        sub = hasattr(m, "__path__") and importlib.util.find_spec(module + "." + name) is not None
        out.append(hasattr(m, name) or sub)
    except BaseException:
        out.append(None)
answer.write(json.dumps({"radpatch": 1, "binds": out}))
"""

# Keyed by the whole list asked, not per (module, name): the probe answers every pair in one process,
# after importing the modules asked before it, and an import (or a module `__getattr__` that hasattr
# runs: concurrent.futures', unittest's) may import or change other modules, so one pair's answer is not
# shown to be independent of the others asked with it. Measured (issue 22, the fast tier): 75 of these
# processes in 6,341 tests, about 0.5% of its time; a per-pair cache would save less than that.
_binds_memo: dict[tuple[str, tuple[tuple[str, str], ...]], list[bool | None]] = {}


def stdlib_binds(executable: str, asked: list[tuple[str, str]]) -> list[bool | None]:
    """Per (standard-library module, name): whether the target interpreter's module binds the name
    or has that submodule; None when the target cannot tell (the module is not in its standard
    library, or does not import) or does not answer (then the names step cannot tell either)."""
    key = (executable, tuple(asked))
    if key not in _binds_memo:
        unknown: list[bool | None] = [None] * len(asked)
        try:
            done = subprocess.run(
                [executable, "-I", "-S", "-c", _BINDS_PROBE],
                input=json.dumps(asked).encode(),
                capture_output=True,
                timeout=TIMEOUT,
            )
            out = json.loads(done.stdout) if done.returncode == 0 else {}
            binds = out.get("binds") if isinstance(out, dict) and out.get("radpatch") == 1 else None
            ok = isinstance(binds, list) and len(binds) == len(asked) and all(b in (True, False, None) for b in binds)
            _binds_memo[key] = list(binds) if ok and isinstance(binds, list) else unknown
        except (OSError, subprocess.TimeoutExpired, ValueError):
            _binds_memo[key] = unknown
    return _binds_memo[key]


def same_grammar(executable: str | None, version: tuple[int, int] | None) -> bool:
    return executable is None or version is None or version == sys.version_info[:2]
