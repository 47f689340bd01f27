"""New unguarded imports of what the target does not have: a top-level module not on the target's
import path, a submodule that is not there, a name a module does not bind (`from pkg import nope`).

Looked up on the target's path without importing anything (importlib's PathFinder finds the file;
a `.py` module is parsed with ast for its module-level bindings). A name taken from a module of the
standard library (`from typing import Self` on 3.10), or read as an attribute of the imported module (`typing.Self`:
stdlib_attributes), is the target interpreter's to tell (`Ask`):
its own standard library binds names the files do not show (star imports from C modules,
`enum.global_enum`), so the files never decide it. What cannot be told from the files is unknown
and passes: an extension module, a module that binds names dynamically (a star
import, a module `__getattr__`, `globals()`, `sys.modules`, `__path__` edits), a name an import
hook may provide (an editable install's finder, a .pth that names it), and the modules the patch
itself changes or creates (their planned text is not the file on disk).

introduced_missing is what the names step asks: the new missing imports less those that are not the
patch's failure (a module the install already expects, a name or module of the patched package's
own that entries applied before it in the same run may add).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib.machinery
import os
import re
import sys
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

from .import_order import absolute, imported_before
from .package_scan import completed_only, imports_top, init_binds, package_imported
from .problem import MISSING_ATTRIBUTE, MISSING_MODULE, MISSING_NAME, UNIMPORTED_SUBMODULE, Problem
from .scope_bindings import Collector
from .stdlib_attributes import attribute_reads
from .target_stdlib import ADDED_SINCE_310, unguarded_imports

# (module, None): is there such a module?  (module, name): does it bind `name` or have that submodule?
# True / False, or None when the files cannot tell.
Lookup = Callable[[str, "str | None"], "bool | None"]
# [(standard-library module, name), ...] -> per pair: does the target's module bind `name` (or have
# that submodule)? None when it cannot tell.
Ask = Callable[[list[tuple[str, str]]], "list[bool | None]"]

_UNKNOWN = object()
_BRANCH = "branch"  # an attribute read under an `if` (stdlib_attributes' branches): only its submodule is asked
_MAX_SOURCE = 4 << 20


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
) -> list[Problem]:
    """New unguarded imports `lookup` says the target lacks; a standard-library-looking top-level
    module the target's stdlib lacks is missing_modules' to report. `skip`: modules whose planned
    text is not on disk (the patch's own), never judged by their files. `ask`: the target, for the
    names a `from` import takes from its standard library (without it they pass). `fresh`: the target,
    for an attribute read it says a module has: does a fresh `import module` bind it? (`xml.dom` after
    `import xml` is a submodule nothing imports, unless the module imports it itself.) `init`: the
    same question for a package outside the standard library, told by its `__init__` file
    (package_scan.init_binds: `import toyx` then `toyx.sub`)."""
    had: dict[tuple[str, str, str], int] = {}
    for key, _, _ in _uses(before, module, version):
        had[key] = had.get(key, 0) + 1
    out: list[Problem] = []
    asked: list[tuple[str, str, int, str, str]] = []  # (module, name, line, scope, kind) for the target to tell
    chains: list[tuple[str, int, str]] = []  # (dotted submodule, line, scope) of the standard library's
    dotted: dict[int, list[list[str]]] | None = None
    for key, line, qual in _uses(after, module, version):
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
                dotted = _chains(after) if dotted is None else dotted
                fix = _fix(dotted.get(line, []), base, name, lookup)
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
                dotted = _chains(after) if dotted is None else dotted
                fix = _fix(dotted.get(line, []), base, name, lookup)
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
        out.extend(_missing_submodules(chains, ask))
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


def _chains(tree: ast.Module) -> dict[int, list[list[str]]]:
    """Per line: the dotted chains read there (`xml.dom.minidom.parseString`: [xml, dom, minidom,
    parseString]), each Attribute's own, so every prefix of two or more parts is there too."""
    out: dict[int, list[list[str]]] = {}
    for n in ast.walk(tree):
        if not isinstance(n, ast.Attribute):
            continue
        parts: list[str] = []
        x: ast.expr = n
        while isinstance(x, ast.Attribute):
            parts.append(x.attr)
            x = x.value
        if isinstance(x, ast.Name):
            out.setdefault(n.lineno, []).append([x.id, *reversed(parts)])
    return out


def _fix(chains: list[list[str]], base: str, name: str, lookup: Lookup) -> str:
    """The import that binds what a read of base.name goes through, of its line's `chains`: the
    longest module of a chain on the target's path (`xml.dom.minidom.parseString` -> xml.dom.minidom),
    at least base.name."""
    best = f"{base}.{name}"
    for chain in chains:
        if len(chain) < 3 or chain[1] != name:
            continue
        full = [base, *chain[1:]]
        for i in range(len(full), 2, -1):
            if len(".".join(full[:i])) > len(best) and lookup(".".join(full[:i]), None):
                best = ".".join(full[:i])
                break
    return best


def _missing_submodules(chains: list[tuple[str, int, str]], ask: Ask) -> list[Problem]:
    """`import a.b.c` of the standard library, each step asked of the target (does `a` have `b`,
    does `a.b` have `c`): the first it says no to is missing; one it cannot tell passes."""
    steps = sorted(
        {(".".join(p[: i - 1]), p[i - 1]) for d, _, _ in chains for p in [d.split(".")] for i in range(2, len(p) + 1)}
    )
    told = dict(zip(steps, ask(steps)))
    out = []
    for dotted, line, qual in chains:
        parts = dotted.split(".")
        for i in range(2, len(parts) + 1):
            answer = told.get((".".join(parts[: i - 1]), parts[i - 1]))
            if answer is None:
                break
            if answer is False:
                out.append(Problem(line, dotted, qual, MISSING_MODULE, f" (no {'.'.join(parts[:i])} there)"))
                break
    return out


def path_lookup(paths: list[str]) -> Lookup:
    """A Lookup over the target's import path `paths`, finding files without importing them."""
    specs: dict[str, Any] = {}
    bound: dict[str, Any] = {}
    facts: dict[str, tuple[Any, bool]] = {}  # a module file -> what it binds, whether it finds submodules itself

    def read(origin: object) -> tuple[Any, bool]:
        """(_bindings, _finds_submodules_itself) of a spec's origin, its file parsed once per lookup."""
        if not isinstance(origin, str) or not origin.endswith(".py"):
            return _UNKNOWN, origin not in (None, "namespace")
        if origin not in facts:
            facts[origin] = _module_facts(origin)
        return facts[origin]

    def spec(dotted: str) -> Any:
        if dotted in specs:
            return specs[dotted]
        parent, _, _ = dotted.rpartition(".")
        result: Any
        try:
            if not parent:
                result = importlib.machinery.PathFinder.find_spec(dotted, paths)
                if result is None and _hooked(dotted, paths):
                    result = _UNKNOWN
            else:
                p = spec(parent)
                if p is None or p is _UNKNOWN:
                    result = p
                elif read(getattr(p, "origin", None))[1]:
                    result = _UNKNOWN  # six.moves: a module that installs an import hook serves its own
                elif not p.submodule_search_locations:
                    result = None
                else:
                    result = _find(dotted, _locations(p))
        except (ImportError, OSError, ValueError):
            result = _UNKNOWN
        specs[dotted] = result
        return result

    def binds(dotted: str) -> Any:
        if dotted in bound:
            return bound[dotted]
        s = spec(dotted)
        names: Any = _UNKNOWN
        origin = getattr(s, "origin", None)
        if s is not None and s is not _UNKNOWN and origin in (None, "namespace"):
            names = frozenset()  # a namespace package binds nothing of its own
        elif isinstance(origin, str) and origin.endswith(".py"):
            names = read(origin)[0]
        bound[dotted] = names
        return names

    def lookup(dotted: str, name: str | None) -> bool | None:
        s = spec(dotted)
        if s is _UNKNOWN:
            return None
        if name is None:
            return s is not None
        if s is None:
            return None
        names = binds(dotted)
        if names is _UNKNOWN:
            return None
        if name in names:
            return True
        if s.submodule_search_locations:
            sub = spec(f"{dotted}.{name}")
            return None if sub is _UNKNOWN else sub is not None
        return False

    return lookup


def _hooked(name: str, paths: list[str]) -> bool:
    """Could an import hook provide top-level `name`: a .pth file or an editable install's finder naming it?"""
    for d in paths:
        try:
            entries = os.listdir(d)
        except OSError:
            continue
        for e in entries:
            if e.endswith(".pth") or (e.startswith("__editable__") and e.endswith(".py")):
                try:
                    with open(os.path.join(d, e), "rb") as fh:
                        if name.encode() in fh.read(_MAX_SOURCE):
                            return True
                except OSError:
                    return True
    return False


# sha256 of a module file's bytes -> what _module_facts tells of them, for the whole process: every
# lookup (a new path_lookup per proof) read and parsed the same standard-library and installed files
# again. The answer is a function of the bytes alone (this interpreter's ast.parse of them, then two
# walks of the tree), so their digest is the whole key; the file itself is read on every lookup, so
# an edited file (whatever its size and mtime) is a new key. A parse that ran out of memory or stack
# is not kept: it may pass another time.
_FACTS: dict[bytes, tuple[Any, bool]] = {}
_FACTS_MAX = 4096


def _module_facts(path: str) -> tuple[Any, bool]:
    """What module `path` binds (_bindings) and whether it finds its submodules itself
    (_finds_submodules_itself), from one read; (_UNKNOWN, True) when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_SOURCE + 1)
    except OSError:
        return _UNKNOWN, True
    if len(data) > _MAX_SOURCE:
        return _UNKNOWN, True
    key = hashlib.sha256(data).digest()
    if key in _FACTS:
        return _FACTS[key]
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        facts: tuple[Any, bool] = (_UNKNOWN, True)
    except (RecursionError, MemoryError):
        return _UNKNOWN, True
    else:
        facts = (_bindings(tree), _finds_submodules_itself(tree))
    if len(_FACTS) >= _FACTS_MAX:
        _FACTS.pop(next(iter(_FACTS)))
    _FACTS[key] = facts
    return facts


def _finds_submodules_itself(tree: ast.Module) -> bool:
    """Whether a module (a package's `__init__`, or a plain module like six) may change where its
    submodules are found (`__path__`, `sys.modules`, the import system's hooks). A module
    `__getattr__` or `globals()` binds attributes, never a submodule: `import pkg.sub` searches
    `pkg.__path__`."""
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            return True  # it may bind __path__
        if isinstance(n, ast.Name) and n.id in ("__path__", "extend_path"):
            return True
        if isinstance(n, ast.Attribute) and n.attr in ("modules", "__path__", "meta_path", "path_hooks", "extend_path"):
            return True
    return False


def _bindings(tree: ast.Module) -> Any:
    """The names a module binds at module level (or declares `global` in a function); _UNKNOWN
    when it binds names dynamically. A module `__getattr__` (PEP 562: a module-level `def`, an
    assignment or import of that name, a `global __getattr__`) answers any attribute; one in a class
    or a function's own scope is that object's, not the module's."""
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            return _UNKNOWN
        if isinstance(n, ast.Name) and n.id in ("globals", "vars", "__path__"):
            return _UNKNOWN
        if isinstance(n, ast.Attribute) and n.attr in ("modules", "__dict__", "__path__"):
            return _UNKNOWN
    scopes = Collector(tree).scopes
    names = set(scopes[id(tree)].bound)
    for s in scopes.values():
        names |= s.globals_
    return _UNKNOWN if "__getattr__" in names else frozenset(names)


def introduced_missing(
    before: bytes,
    after: bytes,
    module: tuple[str, bool] | None,
    paths: list[str],
    version: tuple[int, int],
    own: Collection[str],
    follows: bool,
    read_head: Callable[[Path], Iterable[str]],
    ask: Ask | None = None,
    fresh: Ask | None = None,
) -> list[Problem]:
    """New unguarded imports of what the target's import path `paths` lacks (missing_imports), looked
        up without importing, that are the patch's failure. `own`: the modules whose planned text is not
        on disk (the patch's own), never judged by their files. `follows`: the patch requires entries
        applied before it in the same run, which may add names (no `from` import's names are judged) and
        modules of its package. `read_head`: the lines of a metadata file from its start (a regular file
        only), for the requirements installed distributions declare. `ask`: the target, for the names a
    `from` import takes from its standard library. `fresh`: the target, for a fresh import's bindings
    (missing_imports); a submodule read passes when a module of the package that surely runs before
    it imports it (the process imported it before the read runs: _run_imports)."""
    if before == after:
        return []
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lookup = path_lookup(paths)
    if follows:
        lookup = _modules_only(lookup)
    stdlib = frozenset(getattr(sys, "stdlib_module_names", ()))
    found = missing_imports(
        old, new, module, stdlib, stdlib | ADDED_SINCE_310, lookup, version, own, ask, fresh, init_binds(paths)
    )
    package = module[0].split(".")[0] if module else None
    if module and package and any(p.kind == UNIMPORTED_SUBMODULE for p in found):
        found = [p for p in found if p.kind != UNIMPORTED_SUBMODULE or not _run_imports(new, module, package, paths, p)]
    if package:  # the package's own modules may be changed by the entries applied before it in the same run
        found = [p for p in found if p.kind != MISSING_NAME or _top(p.detail) != package.lower()]
    if not any(p.kind == MISSING_MODULE for p in found):
        return found
    shared = _expected_modules(old, paths, read_head)
    # only a missing top-level module (a dotted name is a submodule or package the files can tell)
    found = [p for p in found if p.kind != MISSING_MODULE or "." in p.name or _top(p.name) not in shared]
    if follows and package:  # its requirements may create modules of its own package: not told by files
        found = [p for p in found if p.kind != MISSING_MODULE or _top(p.name) != package.lower()]
    if package:  # what the distribution's own modules already import, it already needs
        found = [
            p for p in found if p.kind != MISSING_MODULE or "." in p.name or not imports_top(paths, package, p.name)
        ]
    return found


def _run_imports(tree: ast.Module, module: tuple[str, bool], package: str, paths: list[str], problem: Problem) -> bool:
    """Whether a module of the package that surely runs before the read imports its submodule
    (package_scan.package_imported): from the module's parent packages, and the modules of the
    package its own imports surely ran before the read's line (import_order)."""
    here = module[0] if module[1] else module[0].rpartition(".")[0]
    mine: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            mine.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom) and (base := absolute(n, here)):
            mine.update([base, *(f"{base}.{a.name}" for a in n.names)])
    ran = completed_only(copy.deepcopy(tree), problem.line)  # a module imported under a swallowing `try` may stop early
    first = [m for m in mine if m.split(".")[0] == package and imported_before(ran, problem.line, m, here)]
    wanted = _submodule(problem)
    return wanted in package_imported(paths, package, {wanted}, module[0], first)


def _modules_only(lookup: Lookup) -> Lookup:
    return lambda module, name: lookup(module, None) if name is None else None


def _top(dotted: str) -> str:
    return dotted.split(".")[0].lower().replace("-", "_")


_REQUIRES = re.compile(r"^Requires-Dist:\s*([A-Za-z0-9][A-Za-z0-9._-]*)", re.MULTILINE)


def _expected_modules(
    before: ast.Module, paths: list[str], read_head: Callable[[Path], Iterable[str]]
) -> frozenset[str]:
    """Top-level modules whose absence is the install's failure, not the patch's: those the unpatched
    module already imports, and those an installed distribution declares it requires (Requires-Dist;
    a target installed without its dependencies fails to import them patched or not)."""
    out = {_top(a.name) for n in ast.walk(before) if isinstance(n, ast.Import) for a in n.names}
    out |= {_top(n.module) for n in ast.walk(before) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    for root in paths:
        try:
            metas = [*Path(root).glob("*.dist-info/METADATA"), *Path(root).glob("*.egg-info/PKG-INFO")]
        except OSError:
            continue
        for meta in metas:
            try:
                head = "".join(read_head(meta))
            except OSError:
                continue
            out |= {_top(m) for m in _REQUIRES.findall(head)}
    return frozenset(out)


def _submodule(problem: Problem) -> str:
    """The module an unimported-submodule read needs imported (`xml.dom.minidom`); its detail is
    "parent module" (`xml xml.dom.minidom`)."""
    return problem.detail.split(" ")[-1]


def _locations(spec: Any) -> list[str]:
    """A package spec's search locations. A namespace package's (`_NamespacePath`) recomputes itself
    from its parent in sys.modules when read, and the parent was never imported here (nothing is):
    its own list of directories is read instead (att40b #5: KeyError, exit 70)."""
    locations = spec.submodule_search_locations
    try:
        return list(locations)
    except KeyError:
        return [str(p) for p in getattr(locations, "_path", [])]


def _find(dotted: str, locations: list[str]) -> Any:
    """PathFinder's spec of the submodule `dotted` in `locations`. A namespace portion makes it build a
    `_NamespacePath`, which reads the parent from sys.modules (never imported here): KeyError. Then
    the spec is a namespace package's, its directories those of `locations` that hold it."""
    try:
        return importlib.machinery.PathFinder.find_spec(dotted, locations)
    except KeyError:
        last = dotted.rpartition(".")[2]
        dirs = [os.path.join(loc, last) for loc in locations if os.path.isdir(os.path.join(loc, last))]
        if not dirs:
            return None
        spec = importlib.machinery.ModuleSpec(dotted, None, is_package=True)
        spec.submodule_search_locations = dirs
        return spec
