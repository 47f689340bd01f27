"""The house in numbers: the largest module, how many modules sit at radpatch/'s top level, and
the walk of `radpatch apply` through the package.

    python tools/house.py [--root DIR] [--entry MODULE:FUNCTION]

The walk starts at the function `apply` runs (default: radpatch.write.apply:apply) and follows, in
source order, every call it can resolve statically (a function of the same module, or a name or
module attribute imported from radpatch; not a method, nor a parameter: which callable is passed
in is not known), each function once. A *stay* is a run of consecutive functions in one module;
a *return* is a stay in a module the walk had already left. Fewer stays and returns mean a reader
follows `apply` down the layers once instead of back and forth. Last, the imports that point up
docs/architecture.md's table of steps: a module of a step's folder importing a step listed after
it (every import statement, a lazy one or one under `if TYPE_CHECKING:` too), by file:line.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path


def modules(pkg: Path) -> dict[str, Path]:
    out = {}
    for f in sorted(pkg.rglob("*.py")):
        parts = list(f.relative_to(pkg.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = f
    return out


class Module:
    def __init__(self, name: str, path: Path, known: set[str]) -> None:
        self.name = name
        self.tree = ast.parse(path.read_text())
        self.defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.names: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attribute or None)
        methods = {
            id(n) for c in ast.walk(self.tree) if isinstance(c, ast.ClassDef) for n in c.body
        }  # a bare name never calls a method: `sha256(x)` is the imported function, not a property
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name not in self.defs and id(node) not in methods:
                    self.defs[node.name] = node
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, name, path)
                if base is None or base.split(".")[0] != "radpatch":
                    continue
                for a in node.names:
                    full = f"{base}.{a.name}"
                    self.names[a.asname or a.name] = (full, None) if full in known else (base, a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "radpatch" and a.asname and a.name in known:
                        self.names[a.asname] = (a.name, None)


def _absolute(node: ast.ImportFrom, module: str, path: Path) -> str | None:
    """The absolute module a `from` import reads: `from .x import y` in radpatch.prove.names (a
    package's __init__) or in radpatch.prove.names.walk both mean radpatch.prove.names.x."""
    if not node.level:
        return node.module
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    if node.level - 1 > len(package):
        return None
    parts = package[: len(package) - (node.level - 1)]
    return ".".join([*parts, *([node.module] if node.module else [])])


STEPS = ("registry", "install", "state", "rewrite", "prove")  # docs/architecture.md's table, top down


def up_the_table(pkg: Path, paths: dict[str, Path]) -> list[str]:
    """file:line of each import statement in a step's folder that imports a step listed after it."""
    found: list[tuple[str, int]] = []
    for name, path in paths.items():
        parts = name.split(".")
        if len(parts) < 2 or parts[1] not in STEPS:
            continue
        later = STEPS[STEPS.index(parts[1]) + 1 :]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = _absolute(node, name, path) or ""
                targets = [f"{base}.{a.name}".split(".") for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name.split(".") for a in node.names]
            else:
                continue
            if any(t[0] == "radpatch" and len(t) > 1 and t[1] in later for t in targets):
                found.append((str(path.relative_to(pkg.parent)), node.lineno))
    return [f"{file}:{line}" for file, line in sorted(found)]


def walk(mods: dict[str, Module], entry: tuple[str, str]) -> list[str]:
    seen: set[tuple[str, str]] = set()
    trail: list[str] = []

    def visit(mod: str, fn: str) -> None:
        if (mod, fn) in seen or mod not in mods or fn not in mods[mod].defs:
            return
        seen.add((mod, fn))
        trail.append(mod)
        m = mods[mod]
        func = m.defs[fn]
        assert isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
        own = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}  # a parameter is never an import
        for node in _calls(func):
            f = node.func
            if isinstance(f, ast.Name) and f.id in own or isinstance(f, ast.Attribute) and _base(f) in own:
                continue  # a callable passed in: the walk does not know which (state.decide's `judge`)
            if isinstance(f, ast.Name):
                if f.id in m.defs:
                    visit(mod, f.id)
                elif f.id in m.names and m.names[f.id][1]:
                    visit(m.names[f.id][0], m.names[f.id][1] or "")
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in m.names:
                target, attr = m.names[f.value.id]
                if attr is None:
                    visit(target, f.attr)

    visit(*entry)
    return trail  # the functions' modules, in the order the walk enters them


def _base(f: ast.Attribute) -> str:
    return f.value.id if isinstance(f.value, ast.Name) else ""


def _calls(fn: ast.AST) -> list[ast.Call]:
    """The calls in a function, in source order (ast.walk alone goes breadth first: a call nested in
    an `if` or a loop would come after every call at the function's top level, wherever it is)."""
    return sorted((n for n in ast.walk(fn) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))


def _stays(trail: list[str]) -> tuple[list[str], int]:
    """Consecutive entries in one place make one stay; a return is a stay in a place already left."""
    stays = [m for i, m in enumerate(trail) if i == 0 or trail[i - 1] != m]
    left: set[str] = set()
    returns = 0
    for i, m in enumerate(stays):
        returns += m in left
        if i:
            left.add(stays[i - 1])
    return stays, returns


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="a checkout of radpatch")
    ap.add_argument("--entry", default="radpatch.write.apply:apply", help="MODULE:FUNCTION the walk starts at")
    args = ap.parse_args()
    pkg = Path(args.root) / "radpatch"
    paths = modules(pkg)
    sizes = {n: len(p.read_text().splitlines()) for n, p in paths.items()}
    top = [n for n, p in paths.items() if p.parent == pkg and p.name != "__init__.py"]
    largest = max(sizes, key=lambda n: sizes[n])
    mods = {n: Module(n, p, set(paths)) for n, p in paths.items()}
    mod, _, fn = args.entry.partition(":")
    trail = walk(mods, (mod, fn))
    print(f"modules: {len(paths)} ({len(top)} at radpatch/'s top level)")
    print(f"largest module: {largest} ({sizes[largest]} lines); median {sorted(sizes.values())[len(sizes) // 2]}")
    for level, key in (("module", lambda m: m), ("package", lambda m: ".".join(m.split(".")[:2]))):
        stays, returns = _stays([key(m) for m in trail])
        print(f"walk of {args.entry} by {level}: {len(stays)} stays in {len(set(stays))} {level}s, {returns} returns")
        print("  " + " > ".join(s.removeprefix("radpatch.") for s in stays))
    up = up_the_table(pkg, paths)
    print(f"imports up the table of steps: {len(up)}" + (f" ({', '.join(up)})" if up else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
