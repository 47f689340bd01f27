"""Compile and check names with the grammar and builtins of the interpreter the patch is for.

When the target interpreter is another Python version than radpatch's own, radpatch's
`compile()` would accept syntax the target cannot parse (a PEP 695 `type X = int` for a 3.10
target) and judge names against the wrong builtins. Then the target itself answers: it is run
isolated (`-I -S`: no site-packages, no .pth files, nothing of the target package imported)
with the patched and original source on stdin; it compiles the patched bytes and runs
radpatch's own names.py (standard library only) on both. One answer per (interpreter,
original, patched) serves both proof steps.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import EnvironmentProblem
from radpatch.prove import names

TIMEOUT = 120  # seconds the target may take to answer (a 100k-line module compiles in a few)
_MAX_ANSWER = 16 << 20

_PROBE = r"""
import base64, json, sys, types
data = json.loads(sys.stdin.buffer.read())
mod = types.ModuleType("radpatch_names")
sys.modules[mod.__name__] = mod
exec(compile(data["names"], "radpatch/names.py", "exec"), mod.__dict__)
after = base64.b64decode(data["after"])
out = {"radpatch": 1, "version": list(sys.version_info[:2]), "compile": None, "problems": []}
try:
    compile(after, data["where"], "exec", dont_inherit=True)
except (SyntaxError, ValueError) as exc:
    out["compile"] = {"msg": str(getattr(exc, "msg", exc)), "lineno": getattr(exc, "lineno", None)}
if out["compile"] is None:
    found = mod.introduced(data["before"], data["after_text"], data["where"])
    out["problems"] = [[p.line, p.name, p.scope, p.kind, p.detail] for p in found]
sys.stdout.write(json.dumps(out))
"""


@dataclass(frozen=True)
class Verdict:
    compile_error: str | None  # "message (line N)", or None when it compiles
    problems: tuple[names.Problem, ...]


def same_grammar(executable: str | None, version: tuple[int, int] | None) -> bool:
    return executable is None or version is None or version == sys.version_info[:2]


_memo: dict[tuple[str, bytes, bytes], Verdict] = {}


def check(executable: str, before: str, after: bytes, after_text: str, where: str) -> Verdict:
    """Ask `executable` to compile `after` and to name what it introduces over `before`."""
    key = (executable, before.encode("utf-8", "surrogatepass"), after)
    if key not in _memo:
        if len(_memo) >= 8:
            _memo.pop(next(iter(_memo)))
        _memo[key] = _ask(executable, before, after, after_text, where)
    return _memo[key]


def _ask(executable: str, before: str, after: bytes, after_text: str, where: str) -> Verdict:
    request = json.dumps(
        {
            "names": _names_source(),
            "before": before,
            "after": base64.b64encode(after).decode("ascii"),
            "after_text": after_text,
            "where": where,
        }
    ).encode("utf-8", "surrogatepass")
    what = f"the target interpreter {executable}"
    try:
        done = subprocess.run(
            [executable, "-I", "-S", "-c", _PROBE], input=request, capture_output=True, timeout=TIMEOUT
        )
    except FileNotFoundError:
        raise EnvironmentProblem(f"{what} does not exist", "give --python the path of an existing interpreter")
    except subprocess.TimeoutExpired:
        raise EnvironmentProblem(f"{what} did not answer within {TIMEOUT} s while compiling {where}")
    except OSError as exc:
        raise EnvironmentProblem(f"{what} cannot be run ({exc.strerror or exc})")
    if done.returncode != 0 or len(done.stdout) > _MAX_ANSWER:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1][:200]
        raise EnvironmentProblem(
            f"{what} could not compile {where} for radpatch (exit {done.returncode}: {last})",
            "radpatch needs a Python 3.10 or newer target interpreter",
        )
    return _verdict(done.stdout, what)


def _verdict(stdout: bytes, what: str) -> Verdict:
    try:
        out = json.loads(stdout)
        if not isinstance(out, dict) or out.get("radpatch") != 1:
            raise ValueError("not radpatch's answer")
        comp = out["compile"]
        error = (
            None if comp is None else f"{comp['msg']} (line {comp['lineno'] if comp['lineno'] is not None else '?'})"
        )
        found = tuple(names.Problem(int(p[0]), str(p[1]), str(p[2]), str(p[3]), str(p[4])) for p in out["problems"])
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise EnvironmentProblem(
            f"{what} gave an unexpected answer to radpatch's compile probe ({exc}): {stdout[:120]!r}"
        )
    return Verdict(error, found)


def _names_source() -> str:
    return Path(names.__file__).read_text(encoding="utf-8")
