"""Whether a guarded import (`try: from fast import f` / `except ImportError: ...`) succeeds on the
target: asked of the target interpreter in a subprocess, on the target's import path, never in
radpatch's own process. Asked only for a try whose handler a patch changes (placement's
`fallbacks`), so a plain apply runs no subprocess for it.

The subprocess runs the try body's import statements, relative ones made absolute from the patched
module's name, after the module's own bindings the body reads (placement's `given`), and answers with
the exception's class names when one fails. A try that runs while the module is imported is run as
Python runs it then: the module itself is imported (`import_module`), a finder serving it by a loader
that runs only the module's top-level statements before the try (placement's `prefix`: Python has
run them then, and a `sys.path.insert` there changes what the try finds) and the try's statements,
in the module's namespace, partly initialised; so its parent packages are imported first, and
where a parent's `__init__` imports the module (vLLM's do), the try runs while that `__init__` is
partly done, seeing what it bound so far and no more (fb38 #1); a guarded module that imports it
back, a cycle, sees that module, as it does on the target (attack36 F6). When such a module reads back a
name the patched module binds before the try, which the stand-in cannot hold, the answer is
undecided. The handler runs where the failure is one it catches; the answer is None (undecided) when
the interpreter could not be run, gave no answer or did not finish in time. One answer per
(interpreter, import path, question) in a process: a hanging import costs one limit, not one per step.

What it runs is the target's code (the package's `__init__`, what the try imports), so it runs as
the import check's imports do (import_runner.run): from a temporary copy of the module's top-level
package first on the path, the install read-only (import_overlay), its site step run once the hook
is in place (so the code sees its venv's prefix and sysconfig paths, not the base interpreter's,
and its .pth files have run), under the subreaper launcher
(import_reaper), and a SIGTERM or SIGINT meanwhile ends radpatch as Ctrl-C does once they are
cleaned up; so a dry run leaves the install as it was and no process behind. A try whose imports
fail on a write the read-only install refused is undecided, saying so; a write the read-only hook
cannot stop (Python run with -I, -S or -E, compiled code, another program) is found after the fact,
as the import check's is (import_watch.py), and refuses the run.
"""

from __future__ import annotations

import json
from pathlib import Path

from radpatch.errors import EnvironmentProblem
from radpatch.install.environment import PythonEnv
from radpatch.prove import import_runner, import_watch
from radpatch.prove.import_failures import READ_ONLY_SAID
from radpatch.prove.placement import Fallback

TIMEOUT = 120.0  # seconds: what an import of a large library may take on a loaded machine

_SCRIPT = (
    import_runner.QUESTION
    + r"""
import importlib.abc, importlib.machinery, importlib.util, types
name = request["module"]
before = set(request["before"])
read_back = []


def run(namespace, prefix=""):
    a = {"ok": True}
    try:
        exec(prefix, namespace)  # what the module runs before the try (placement's `prefix`)
    except BaseException as exc:
        answer({"ok": None, "prefix": repr(exc)[:300]})
    try:
        for statement in request["imports"]:
            exec(statement, namespace)
    except BaseException as exc:
        a = {"ok": False, "types": [c.__name__ for c in type(exc).__mro__], "error": repr(exc)[:300]}
    answer({"ok": None, "read_back": sorted(set(read_back))} if read_back else a)


class Partial(types.ModuleType):
    def __getattr__(self, attr):
        if attr in before:
            read_back.append(attr)
        raise AttributeError(f"partially initialized module {name!r} has no attribute {attr!r}")


class TryOnly(importlib.abc.Loader):  # runs the module's try where Python runs it, then answers
    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__class__ = Partial
        run(module.__dict__, request["prefix"])


class Finder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname != name:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or spec.origin is None:
            return None
        spec.loader = TryOnly(spec.loader)
        return spec


if name:  # imported as Python imports it: its parent packages first, whose __init__ may import it, partly done
    sys.meta_path.insert(0, Finder)
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            answer({"ok": None, "parent": name.rpartition(".")[0], "error": repr(exc)[:300]})
    except BaseException as exc:
        answer({"ok": None, "parent": name.rpartition(".")[0], "error": repr(exc)[:300]})
run({"__name__": "radpatch_guarded_import"})  # a def's try, or a module no finder of the path finds
"""
)


def absolute(f: Fallback, module: tuple[str, bool] | None) -> tuple[str, ...] | None:
    """The try body's imports with relative ones made absolute (None when a relative one cannot be)."""
    out = []
    for text, (level, name) in zip(f.imports, f.levels):
        if not level:
            out.append(text)
            continue
        if module is None:
            return None
        dotted, package = module
        parts = dotted.split(".") if package else dotted.split(".")[:-1]
        if level - 1 > len(parts):
            return None
        base = ".".join([*parts[: len(parts) - (level - 1)], *([name] if name else [])])
        out.append(f"from {base} import {text.split(' import ', 1)[1]}")  # ast.unparse's spelling
    return tuple(out)


_answers: dict[tuple[str, bytes], tuple[bool | None, str]] = {}


def handler_runs(python: PythonEnv, f: Fallback, module: tuple[str, bool] | None) -> tuple[bool | None, str]:
    """(whether the handler runs on the target, what the target said). None: undecided."""
    if f.untold:
        return None, f.untold
    imports = absolute(f, module)
    if imports is None:
        return None, "a relative import the module's name does not resolve"
    partial = module[0] if module is not None and f.at_import else None
    request = json.dumps(
        {
            "paths": [str(p) for p in python.paths],
            "imports": list(imports),
            "module": partial,
            "before": list(f.bound_before),
            "prefix": f.prefix if partial else "",
        }
    ).encode()
    key = (str(python.executable), request)
    if key not in _answers:
        _answers[key] = _ask(python, f, request, partial, top_entry(python, module[0] if module else ""))
    return _answers[key]


def _ask(
    python: PythonEnv, f: Fallback, request: bytes, partial: str | None, top: tuple[str, str] | None
) -> tuple[bool | None, str]:
    try:
        paths = [str(p) for p in python.paths]
        out, finished = import_runner.asked(
            python.executable, paths, _SCRIPT, request, top, TIMEOUT, import_watch.GUARDED_IMPORT
        )
    except EnvironmentProblem as exc:
        return None, exc.message
    timed_out = not finished
    try:
        answer = json.loads(out) if out else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        if timed_out:
            return None, f"the target interpreter did not finish the import within {TIMEOUT:g} s (killed)"
        return None, "the target interpreter gave no answer"
    blocked = [str(b) for b in answer.get("blocked", ()) if isinstance(b, str)]
    if blocked and answer.get("ok") is not True and READ_ONLY_SAID in str(answer.get("error", "")):
        return None, (
            f"it tried to write into the install ({', '.join(blocked)}), which radpatch keeps read-only "
            "while it asks, and failed"
        )
    if answer.get("ok") is True:
        return False, "it succeeds"
    if answer.get("ok") is None and "prefix" in answer:
        return None, f"the module's code before the try fails there ({answer['prefix']})"
    if answer.get("ok") is None and "parent" in answer:
        return None, f"its package {answer['parent']} does not import there ({answer.get('error', '')})"
    if answer.get("ok") is None and partial:
        back = ", ".join(f"`{n}`" for n in answer.get("read_back", ()))
        return None, f"what it imports reads {back} back from {partial}, partly imported then (a cycle)"
    types = [str(t) for t in answer.get("types", ())]
    said = str(answer.get("error", ""))
    if f.caught and not set(types) & set(f.caught):
        return None, f"it raises {said}, which the handler does not catch"
    return True, f"it raises {said}"


def top_entry(python: PythonEnv, dotted: str) -> tuple[str, str] | None:
    """(the import path's directory, the top-level entry) `dotted`'s package is found at, as the path
    finder finds it (a package directory before a module file); None when it is not found."""
    name = dotted.split(".")[0]
    for root in python.paths:
        if not name:
            return None
        if (Path(root) / name / "__init__.py").is_file():
            return str(root), name
        if (Path(root) / f"{name}.py").is_file():
            return str(root), f"{name}.py"
    return None
