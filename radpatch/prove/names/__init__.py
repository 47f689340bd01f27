"""Names a module would fail to find when it runs: a flow-aware check on `ast`, in one walk.

A patch must not add to this set. `problems(source)` follows Python's own rules:

- scopes: function locals (a name bound anywhere in a function is local to all of it), `global`
  and `nonlocal`, class bodies (not visible from their methods or comprehensions), comprehension
  and lambda scopes, PEP 695 type-parameter scopes;
- order: module-level code and what runs at definition time (decorators, defaults, base classes,
  class bodies, evaluated annotations) must find a name bound *earlier*; a function body runs
  later and sees what the module binds by the end of the import (so a module-level `del` counts);
- binding flow: a local read where no path has assigned it yet (UnboundLocalError), or where some
  path has not (if/else, try/except, loops and `return`/`raise` are followed);
- `if TYPE_CHECKING:` bodies never run: their imports serve annotations only (annotations are not
  evaluated under `from __future__ import annotations`, in function bodies, or on Python 3.14+);
  such a name is compared use by use (PER_USE): a new run-time use is new even where the
  original already had one on an error path;
- `global x` must resolve to a module binding: `x += 1` reads x before binding it, and the
  reading function's own later assignment does not bind it for that read;
- self-imports: a module importing from itself while it is imported (given its dotted name);
- the target's standard library (missing_modules): a new unguarded import of a module
  radpatch's standard library has and the target's lacks, not found on the target's path;
- the target's import path (missing_imports): a new unguarded import of a module not found there,
  of a submodule that is not there, or of a name a parsed module does not bind;
- a star import can provide any public name from its position on, nothing else (`from typing
  import *`: exactly the names in the interpreter's typing.__all__); `globals()`
  (as in `globals().update(...)`) any name;
- a new module-level binding of a builtin the original reads (`def filter`, `len = 5`): the
  original's uses would get it (SHADOWS_BUILTIN, from the FACTS each version records);
- a zero-argument `super()` outside the body of a method defined in a class (in a nested
  function, a lambda, a generator expression), and `__class__` outside any method (METHOD_ONLY).

Conditional bindings at module level count as bindings (`try: import x / except ImportError:`,
`if ...: def f`), so vLLM's modules pass as they are; `introduced()` compares the patched module
with its original and reports only what is new. Each walk is linear in the size of the tree:
one pass collects every scope's bindings, one pass follows the code in evaluation order.

The package, by what each module does: `problem` (the Problem record, its kinds, the Runtime it
is judged for, which problems are new), `scopes` (pass 1: scopes and their bindings),
`flow` (binding flow), `resolve` (resolving a read), `expressions` and `walk` (pass 2),
`typing_only` (`if TYPE_CHECKING:` names), `update_only` (`global x; x += 1`), `self_imports`,
`target_stdlib` (the target's standard library), `imports` (the target's import path).

It only needs the standard library and imports itself only relatively: radpatch runs it inside
the target interpreter when that one's grammar differs from radpatch's own (see
prove/target_probe.py, which serves it there under another package name).
"""

from __future__ import annotations

import ast
import gc

from .import_lookup import Lookup, missing_imports
from .introduced_imports import introduced_missing
from .mangling import mangled
from .module_files import path_lookup
from .problem import (
    CLASS_ATTRIBUTE,
    CYCLE_READ,
    DELETED,
    FACTS,
    FALLBACK_ONLY,
    IMPORTED_ELSEWHERE,
    LATER,
    MAYBE_UNBOUND,
    METHOD_ONLY,
    MISSING_ATTRIBUTE,
    MISSING_MODULE,
    MISSING_NAME,
    PARTIAL_PACKAGE,
    PER_USE,
    SELF_IMPORT,
    SHADOWS_BUILTIN,
    TYPING_ONLY,
    UNBOUND,
    UNDEFINED,
    UNIMPORTED_SUBMODULE,
    Problem,
    Runtime,
    current_runtime,
    new_problems,
)
from .scope_bindings import Collector
from .self_imports import module_of, self_import
from .target_stdlib import ADDED_SINCE_310, imported_modules, missing_modules
from .walk import Walker

__all__ = [
    "ADDED_SINCE_310",
    "CLASS_ATTRIBUTE",
    "CYCLE_READ",
    "DELETED",
    "FACTS",
    "FALLBACK_ONLY",
    "IMPORTED_ELSEWHERE",
    "LATER",
    "Lookup",
    "MAYBE_UNBOUND",
    "METHOD_ONLY",
    "MISSING_ATTRIBUTE",
    "MISSING_MODULE",
    "MISSING_NAME",
    "UNIMPORTED_SUBMODULE",
    "PER_USE",
    "PARTIAL_PACKAGE",
    "SELF_IMPORT",
    "SHADOWS_BUILTIN",
    "TYPING_ONLY",
    "UNBOUND",
    "UNDEFINED",
    "Problem",
    "Runtime",
    "current_runtime",
    "imported_modules",
    "introduced",
    "introduced_missing",
    "missing_imports",
    "missing_modules",
    "module_of",
    "new_problems",
    "path_lookup",
    "problems",
    "problems_in",
    "self_import",
]


def introduced(
    original: str, patched: str, filename: str = "<patched>", runtime: Runtime | None = None, module: str | None = None
) -> list[Problem]:
    """Problems of `patched` whose (scope, name, kind) the original does not already have.
    `module`: the module's dotted name (`pkg.mod`, `pkg` for a package's __init__), for self-imports."""
    return new_problems(
        problems(original, filename, runtime, module, facts=True),
        problems(patched, filename, runtime, module, facts=True),
    )


def problems(
    source: str | bytes,
    filename: str = "<patched>",
    runtime: Runtime | None = None,
    module: str | None = None,
    facts: bool = False,
) -> list[Problem]:
    enabled = gc.isenabled()
    gc.disable()  # the walk makes no cycles; the collector would rescan the whole tree again and again
    try:
        tree = mangled(ast.parse(source, filename), source)
        return problems_in(tree, runtime, module_of(module, filename), facts)
    finally:
        if enabled:
            gc.enable()


def problems_in(
    tree: ast.Module, runtime: Runtime | None = None, module: tuple[str, bool] | None = None, facts: bool = False
) -> list[Problem]:
    """problems() of an already parsed module (the caller keeps the collector paused). `module`:
    its dotted name and whether it is a package (see module_of). `facts`: also what new_problems
    needs to compare two versions (which builtins it reads, which it binds: FACTS)."""
    rt = runtime or current_runtime()
    scopes = Collector(tree).scopes
    found = Walker(tree, scopes, rt, module).run()
    return sorted(found if facts else [p for p in found if p.kind not in FACTS])
