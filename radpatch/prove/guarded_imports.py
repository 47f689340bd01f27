"""Whether a guarded import (`try: from fast import f` / `except ImportError: ...`) succeeds on the
target: asked of the target interpreter in a subprocess, on the target's import path, never in
radpatch's own process. Asked only for a try whose handler a patch changes (placement's
`fallbacks`), so a plain apply runs no subprocess for it.

The subprocess runs the try body's import statements, relative ones made absolute from the patched
module's name, and answers with the exception's class names when one fails. The handler runs where
the failure is one it catches; the answer is None (undecided) when the interpreter could not be run,
gave no answer or did not finish in time.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile

from radpatch.install.environment import PythonEnv
from radpatch.prove.placement import Fallback

TIMEOUT = 120.0  # seconds: what an import of a large library may take on a loaded machine

_SCRIPT = r"""
import json, sys, traceback
request = json.loads(sys.stdin.read())
sys.path[:] = request["paths"] + [p for p in sys.path if p not in request["paths"]]  # the target's, then its stdlib
answer = {"ok": True}
namespace = {"__name__": "radpatch_guarded_import"}
try:
    for statement in request["imports"]:
        exec(statement, namespace)
except BaseException as exc:
    answer = {"ok": False, "types": [c.__name__ for c in type(exc).__mro__], "error": repr(exc)[:300]}
sys.stdout.write(json.dumps(answer))
sys.stdout.flush()
"""


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


def handler_runs(python: PythonEnv, f: Fallback, module: tuple[str, bool] | None) -> tuple[bool | None, str]:
    """(whether the handler runs on the target, what the target said). None: undecided."""
    imports = absolute(f, module)
    if imports is None:
        return None, "a relative import the module's name does not resolve"
    request = json.dumps({"paths": [str(p) for p in python.paths], "imports": list(imports)}).encode()
    with tempfile.TemporaryDirectory(prefix="radpatch-guarded-") as cwd:
        try:
            proc = subprocess.Popen(
                [python.executable, "-I", "-S", "-B", "-c", _SCRIPT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=cwd,
                start_new_session=True,  # its own process group: killed with what it started
            )
        except OSError as exc:
            return None, f"the target interpreter could not be run ({exc.strerror or exc})"
        timed_out = False
        try:
            out, _ = proc.communicate(request, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            out, timed_out = b"", True
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    try:
        answer = json.loads(out) if out else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        if timed_out:
            return None, f"the target interpreter did not finish the import within {TIMEOUT:g} s (killed)"
        return None, "the target interpreter gave no answer"
    if answer.get("ok") is True:
        return False, "it succeeds"
    types = [str(t) for t in answer.get("types", ())]
    said = str(answer.get("error", ""))
    if f.caught and not set(types) & set(f.caught):
        return None, f"it raises {said}, which the handler does not catch"
    return True, f"it raises {said}"
