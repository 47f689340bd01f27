"""New unguarded imports of what the target does not have: a top-level module not on the target's
import path, a submodule that is not there, a name a module does not bind (`from pkg import nope`).

Looked up on the target's path without importing anything (module_files: importlib's PathFinder
finds the file; a `.py` module is parsed with ast for its module-level bindings). A name taken from a
module of the standard library (`from typing import Self` on 3.10), or read as an attribute of the
imported module (`typing.Self`: stdlib_attributes), is the target interpreter's to tell (`Ask`):
its own standard library binds names the files do not show (star imports from C modules,
`enum.global_enum`), so the files never decide it. What cannot be told from the files is unknown
and passes (module_files), and so do the modules the patch itself changes or creates (their planned
text is not the file on disk).

introduced_imports.introduced_missing is what the names step asks: these less those that are not
the patch's failure.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection
from typing import Any

from .import_order import imported_before
from .module_files import Lookup
from .problem import MISSING_ATTRIBUTE, MISSING_MODULE, MISSING_NAME, UNIMPORTED_SUBMODULE, Problem
from .stdlib_attributes import attribute_reads
from .submodule_chains import Ask, import_fix, missing_submodules, read_chains
from .target_stdlib import unguarded_imports

__all__ = ["Ask", "Lookup", "missing_imports", "resolved"]

_BRANCH = "branch"  # an attribute read under an `if` (stdlib_attributes' branches): only its submodule is asked


def resolved(node: ast.ImportFrom, module: tuple[str, bool] | None) -> str | None:
    """The absolute module a `from ... import` reads from (None for a relative one without `module`)."""
    if not node.level:
        return node.module or None
    if module is None:
        return None
    name, package = module
    parts = name.split(".") if package else name.split(".")[:-1]
    if node.level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])]) or None


def _uses(tree: ast.Module, module: tuple[str, bool] | None, version: tuple[int, int] | None) -> list[Any]:
    out: list[tuple[tuple[str, str, str], int, str]] = []
    for node, qual in unguarded_imports(tree, version):
        if isinstance(node, ast.Import):
            out.extend((("import", a.name, ""), node.lineno, qual) for a in node.names)
        else:
            base = resolved(node, module)
            if base is None or base == "__future__":
                continue
            out.extend((("from", base, a.name), node.lineno, qual) for a in node.names if a.name != "*")
    froms = {f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    reads = attribute_reads(tree, version)
    for base, name, line, qual in reads:  # `from xml import dom`: dom.minidom
        out.append((("from-attr" if base in froms else "attr", base, name), line, qual))
    plain = set(reads)
    for base, name, line, qual in attribute_reads(tree, version, branches=True):  # under `if sys.platform ...:`
        if (base, name, line, qual) not in plain:
            out.append((("branch-from-attr" if base in froms else "branch-attr", base, name), line, qual))
    return out


# The last modules' uses, by the exact bytes their tree was parsed from (`texts`): a plan proven again
# on the same result (prove.below) walks it once.
_USES: dict[tuple[bytes, tuple[str, bool] | None, tuple[int, int] | None], tuple[Any, ...]] = {}
_USES_KEEP = 8


def _uses_of(
    tree: ast.Module, data: bytes | None, module: tuple[str, bool] | None, version: tuple[int, int] | None
) -> tuple[Any, ...]:
    """`_uses` of `tree`, kept by `data`, the bytes `tree` is `ast.parse` of, unchanged (None: not kept)."""
    if data is None:
        return tuple(_uses(tree, module, version))
    key = (data, module, version)
    found = _USES.pop(key, None)
    if found is None:
        found = tuple(_uses(tree, module, version))
    _USES[key] = found
    while len(_USES) > _USES_KEEP:
        del _USES[next(iter(_USES))]
    return found


def missing_imports(
    before: ast.Module,
    after: ast.Module,
    module: tuple[str, bool] | None,
    stdlib: Collection[str],
    looks_stdlib: Collection[str],
    lookup: Lookup,
    version: tuple[int, int] | None,
    skip: Collection[str] = (),
    ask: Ask | None = None,
    fresh: Ask | None = None,
    init: Callable[[str, str], bool | None] | None = None,
    texts: tuple[bytes, bytes] | None = None,
) -> list[Problem]:
    """New unguarded imports `lookup` says the target lacks; a standard-library-looking top-level
    module the target's stdlib lacks is missing_modules' to report. `skip`: modules whose planned
    text is not on disk (the patch's own), never judged by their files. `ask`: the target, for the
    names a `from` import takes from its standard library (without it they pass). `fresh`: the target,
    for an attribute read it says a module has: does a fresh `import module` bind it? (`xml.dom` after
    `import xml` is a submodule nothing imports, unless the module imports it itself.) `init`: the
    same question for a package outside the standard library, told by its `__init__` file
    (package_scan.init_binds: `import toyx` then `toyx.sub`). `texts`: the bytes `before` and `after`
    are a fresh `ast.parse` of, which their walk is kept by."""
    had: dict[tuple[str, str, str], int] = {}
    for key, _, _ in _uses_of(before, texts[0] if texts else None, module, version):
        had[key] = had.get(key, 0) + 1
    out: list[Problem] = []
    asked: list[tuple[str, str, int, str, str]] = []  # (module, name, line, scope, kind) for the target to tell
    chains: list[tuple[str, int, str]] = []  # (dotted submodule, line, scope) of the standard library's
    dotted: dict[int, list[list[str]]] | None = None
    for key, line, qual in _uses_of(after, texts[1] if texts else None, module, version):
        if had.get(key, 0):
            had[key] -= 1
            continue
        kind, base, name = key
        branch = kind.startswith("branch-")  # a read under an `if`: only its submodule is asked of
        kind = kind.removeprefix("branch-")
        if kind == "from-attr":  # a name a `from` import binds: read here only when it is a module
            if not lookup(base, None):
                continue
            kind = "attr"
        top = base.split(".")[0]
        if top in looks_stdlib and top not in stdlib:
            continue  # missing_modules' case (`import tomllib` on 3.10)
        if any(m == base or base.startswith(m + ".") or f"{base}.{name}" == m for m in skip):
            continue
        if branch and top not in stdlib and lookup(top, None) is False:
            continue  # an optional module read where it was imported (`if HAS_X:`): not this read's to tell
        if top not in stdlib and lookup(top, None) is False:
            out.append(Problem(line, top, qual, MISSING_MODULE, " on the target's import path"))
            continue
        if kind == "attr":  # `enum.StrEnum`: only the standard library's, asked of the target as a `from` import is
            if top in stdlib and ask is not None:
                asked.append((base, name, line, qual, _BRANCH if branch else MISSING_ATTRIBUTE))
            elif top not in stdlib and init is not None and lookup(f"{base}.{name}", None):
                dotted = read_chains(after) if dotted is None else dotted
                fix = import_fix(dotted.get(line, []), base, name, lookup)
                running = module is not None and (module[0] + ".").startswith(fix + ".")  # itself: imported
                if not running and not imported_before(after, line, fix) and _unbound(base, fix, init):
                    out.append(Problem(line, name, qual, UNIMPORTED_SUBMODULE, f"{base} {fix}"))
            continue
        if kind == "import":
            parts = base.split(".")
            for i in range(2, len(parts) + 1):
                if lookup(".".join(parts[: i - 1]), None) and lookup(".".join(parts[:i]), None) is False:
                    out.append(Problem(line, base, qual, MISSING_MODULE, f" (no {'.'.join(parts[:i])} there)"))
                    break
            else:  # the files cannot tell a standard-library package's submodules (asyncio's star imports)
                if top in stdlib and ask is not None and len(parts) > 1:
                    chains.append((base, line, qual))
            continue
        if top in stdlib and ask is not None:  # the target's standard library: the target tells what it binds
            asked.append((base, name, line, qual, MISSING_NAME))
            continue
        there = lookup(base, None)
        if there is False and top in stdlib:
            continue  # a builtin or frozen module, or a standard library outside `paths`: not told by files
        if there is False:
            out.append(Problem(line, base, qual, MISSING_MODULE, " on the target's import path"))
        elif there and lookup(base, name) is False:
            out.append(Problem(line, name, qual, MISSING_NAME, base))
    if asked and ask is not None:
        answers = ask([(base, name) for base, name, _, _, _ in asked])
        loose: list[tuple[str, str, int, str, str]] = []  # attribute reads the target has: bound by `import base`?
        for (base, name, line, qual, missing), binds in zip(asked, answers):
            if binds is None and lookup(base, None):  # not the target's own (a backport on its path)
                binds = lookup(base, name)
            if binds is False and missing != _BRANCH:
                out.append(Problem(line, name, qual, missing, base))
            elif binds and missing in (MISSING_ATTRIBUTE, _BRANCH):
                dotted = read_chains(after) if dotted is None else dotted
                fix = import_fix(dotted.get(line, []), base, name, lookup)
                if not imported_before(after, line, fix):
                    loose.append((base, name, line, qual, fix))
        if loose and fresh is not None:
            bound = fresh([(base, name) for base, name, _, _, _ in loose])
            out.extend(
                Problem(line, name, qual, UNIMPORTED_SUBMODULE, f"{base} {fix}")
                for (base, name, line, qual, fix), b in zip(loose, bound)
                if b is False
            )
    if chains and ask is not None:
        out.extend(missing_submodules(chains, ask))
    out.sort(key=lambda p: p.line)
    return out


def _unbound(base: str, fix: str, init: Callable[[str, str], bool | None]) -> bool:
    """Whether a fresh `import base` surely leaves a step of submodule `fix` unbound: each step
    (`base.a`, `base.a.b`, ...) bound by its parent's `__init__` or one above it that ran. A step its
    parent cannot tell (a module `__getattr__`) may be bound; the steps below it are still asked."""
    parts = fix.split(".")
    top = len(base.split("."))
    for i in range(top, len(parts)):
        step, parent = ".".join(parts[: i + 1]), ".".join(parts[:i])
        told = init(parent, step)
        if told is False and not any(init(".".join(parts[:j]), step) for j in range(top, i)):
            return True
    return False
