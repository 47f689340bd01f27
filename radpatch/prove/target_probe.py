"""Compile and check names with the grammar and builtins of the interpreter the patch is for, when
it is another Python version than radpatch's own (install.target_python.same_grammar says when).

The target is run isolated (`-I -S`: no site-packages, no .pth files, nothing of the target
package imported) with the patched and original source on stdin; it compiles the patched bytes
and runs radpatch's own names and placement packages (standard library only, served from the
request under the names radpatch_names and radpatch_placement) on both. A new import of a module
radpatch's own standard library has but the target's lacks is looked for on the target's import
path (importlib's PathFinder: found, never imported). One answer per (interpreter, original,
patched, module) serves the compile, names and placement steps (prove.analysis.on_target).
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import EnvironmentProblem
from radpatch.install.target_python import TIMEOUT
from radpatch.prove import names, placement, probe_server

_MAX_ANSWER = 16 << 20

_PROBE = r"""
import ast, base64, importlib.machinery, importlib.util, json, marshal, sys
data = json.loads(sys.stdin.buffer.read())
magic = importlib.util.MAGIC_NUMBER.hex()
given = data.get("code") if data.get("magic") == magic else None  # this interpreter's own compile, sent back
compiled = {}

class Served:  # radpatch's own analysis modules, served from the request (never from the target's path)
    def find_spec(self, name, path=None, target=None):
        top, _, sub = name.partition(".")
        if top in data["modules"] and (sub or "__init__") in data["modules"][top]:
            return importlib.util.spec_from_loader(name, self, is_package=not sub)
    def create_module(self, spec):
        return None
    def exec_module(self, mod):
        top, _, sub = mod.__name__.partition(".")
        if given and mod.__name__ in given:
            code = marshal.loads(base64.b64decode(given[mod.__name__]))
        else:
            code = compile(data["modules"][top][sub or "__init__"], "radpatch/" + mod.__name__, "exec")
        compiled[mod.__name__] = code
        exec(code, mod.__dict__)

sys.meta_path.insert(0, Served())
import radpatch_names as mod, radpatch_placement as place
after = base64.b64decode(data["after"])
out = {"radpatch": 1, "version": list(sys.version_info[:2]), "compile": None, "problems": [], "placement": None}
try:
    compile(after, data["filename"], "exec", dont_inherit=True)
except (SyntaxError, ValueError) as exc:
    out["compile"] = {"msg": str(getattr(exc, "msg", exc)), "lineno": getattr(exc, "lineno", None)}
if out["compile"] is None:
    found = mod.introduced(data["before"], data["after_text"], data["filename"], None, data["module"])
    old, new = ast.parse(data["before"]), ast.parse(data["after_text"])
    paths = [p for p in data["paths"] if isinstance(p, str)]

    def installed(name):
        if name == "distutils" and importlib.machinery.PathFinder.find_spec("setuptools", paths) is not None:
            return True  # setuptools' distutils-precedence.pth provides it on 3.12+
        return importlib.machinery.PathFinder.find_spec(name, paths) is not None

    python = "%d.%d" % sys.version_info[:2]
    std = frozenset(getattr(sys, "stdlib_module_names", ()))
    looks = frozenset(data["stdlib"]) | mod.ADDED_SINCE_310
    found += mod.missing_modules(old, new, std, looks, installed, python)
    out["problems"] = [[p.line, p.name, p.scope, p.kind, p.detail, p.local] for p in found]
    me = mod.module_of(data["module"], data["filename"])
    here = tuple(sys.version_info[:2])
    a, b = place.placement(old, data["before"], me, here), place.placement(new, None, me, here)
    out["placement"] = [[check.__name__, msg] for check in (place.shadowed, place.dead_changes,
                        place.unreachable_changes, place.rebound_changes, place.fallback_candidates)
                        for msg in check(a, b)]
if data.get("want_code"):
    out["magic"] = magic
    out["code"] = {name: base64.b64encode(marshal.dumps(code)).decode("ascii") for name, code in compiled.items()}
sys.stdout.write(json.dumps(out))
"""


@dataclass(frozen=True)
class ProbeResult:
    compile_error: str | None  # "message (line N)", or None when it compiles
    problems: tuple[names.Problem, ...]
    placement: tuple[tuple[str, str], ...] = ()  # (check, what it found) of the placement checks, in order


@dataclass(frozen=True)
class Probe:
    """What the probe needs of the target: its interpreter and import path, and the patched module's name."""

    executable: str
    paths: tuple[str, ...] = ()
    module: str | None = None


_memo: dict[tuple[Probe, bytes, bytes], ProbeResult] = {}


def check(target: Probe, before: str, after: bytes, after_text: str, filename: str) -> ProbeResult:
    """Ask the target interpreter to compile `after`, to name what it introduces over `before`, and
    to say where its code lands."""
    key = (target, before.encode("utf-8", "surrogatepass"), after)
    if key not in _memo:
        if len(_memo) >= 8:
            _memo.pop(next(iter(_memo)))
        _memo[key] = _answer(target, before, after, after_text, filename)
    return _memo[key]


# (executable, digest of the served sources) -> the target's magic number and its compiled served
# modules (marshal, base64): the target compiled radpatch's analysis packages (about 250 kB of
# source, most of a probe's time) in every probe; the first probe of a process sends its code back and
# the next ones load it, where the target's magic number is still the one it was compiled by
_code_memo: dict[tuple[str, str], tuple[str, dict[str, str]]] = {}


def _answer(target: Probe, before: str, after: bytes, after_text: str, filename: str) -> ProbeResult:
    """The first probe of a target in this process runs one-shot (_ask); once it has answered (its
    code kept), the next ones are asked of the target's long-lived server (prove.probe_server),
    the probe run one-shot again when the server cannot answer."""
    modules = {"radpatch_names": _package(names.__file__), "radpatch_placement": _package(placement.__file__)}
    served = json.dumps(modules, sort_keys=True)
    key = (target.executable, hashlib.sha256(served.encode()).hexdigest())
    if key not in _code_memo:
        return _ask(target, before, after, after_text, filename)
    magic, code = _code_memo[key]
    first = _request(served, magic, _code_json(key, code), before, after, after_text, filename, target)
    later = _request("{}", None, "null", before, after, after_text, filename, target)
    what = f"the target interpreter {target.executable}"
    try:
        answer = probe_server.ask(target.executable, key[1], _PROBE, first, later, TIMEOUT)
    except probe_server.Hung:
        raise EnvironmentProblem(f"{what} did not answer within {TIMEOUT} s while compiling {filename}")
    if answer is None or len(answer) > _MAX_ANSWER:
        return _ask(target, before, after, after_text, filename)
    return _verdict(answer, what)


def _ask(target: Probe, before: str, after: bytes, after_text: str, filename: str) -> ProbeResult:
    """One probe in a process of its own."""
    modules = {"radpatch_names": _package(names.__file__), "radpatch_placement": _package(placement.__file__)}
    served = json.dumps(modules, sort_keys=True)
    key = (target.executable, hashlib.sha256(served.encode()).hexdigest())
    magic, code = _code_memo.get(key, (None, None))
    request = _request(served, magic, _code_json(key, code), before, after, after_text, filename, target)
    executable = target.executable
    what = f"the target interpreter {executable}"
    try:
        done = subprocess.run(
            [executable, "-I", "-S", "-c", _PROBE], input=request, capture_output=True, timeout=TIMEOUT
        )
    except FileNotFoundError:
        raise EnvironmentProblem(f"{what} does not exist", "give --python the path of an existing interpreter")
    except subprocess.TimeoutExpired:
        raise EnvironmentProblem(f"{what} did not answer within {TIMEOUT} s while compiling {filename}")
    except OSError as exc:
        raise EnvironmentProblem(f"{what} cannot be run ({exc.strerror or exc})")
    if done.returncode != 0 or len(done.stdout) > _MAX_ANSWER:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1][:200]
        raise EnvironmentProblem(
            f"{what} could not compile {filename} for radpatch (exit {done.returncode}: {last})",
            "radpatch needs a Python 3.10 or newer target interpreter",
        )
    verdict = _verdict(done.stdout, what)
    if code is None:
        _keep_code(key, done.stdout)
    return verdict


def _request(
    served: str, magic: str | None, code: str, before: str, after: bytes, after_text: str, filename: str, target: Probe
) -> bytes:
    """The probe's JSON request: the served sources and the kept code spliced in as they were
    serialized once (about 600 kB together; serializing them was a fifth of a probe's time), the
    rest serialized for this probe. The same JSON value as one json.dumps of the whole, in ASCII."""
    rest = json.dumps(
        {
            "magic": magic,
            "want_code": code == "null",
            "before": before,
            "after": base64.b64encode(after).decode("ascii"),
            "after_text": after_text,
            "filename": filename,
            "module": target.module,
            "paths": list(target.paths),
        }
    )
    whole = f'{{"modules": {served}, "code": {code}, "stdlib": {_STDLIB}, {rest[1:]}'
    return whole.encode("utf-8", "surrogatepass")


_STDLIB = json.dumps(sorted(getattr(sys, "stdlib_module_names", ())))  # what looks like standard library

# the _code_memo entry's code dict -> its JSON, kept with the entry it was made from
_code_text: dict[tuple[str, str], tuple[dict[str, str], str]] = {}


def _code_json(key: tuple[str, str], code: dict[str, str] | None) -> str:
    if code is None:
        return "null"
    kept = _code_text.get(key)
    if kept is None or kept[0] is not code:
        kept = _code_text[key] = (code, json.dumps(code))
    return kept[1]


def _keep_code(key: tuple[str, str], stdout: bytes) -> None:
    """The target's compiled analysis modules from its answer, for the next probes (_code_memo)."""
    out = json.loads(stdout)
    magic, code = out.get("magic"), out.get("code")
    if isinstance(magic, str) and isinstance(code, dict) and all(isinstance(v, str) for v in code.values()):
        _code_memo[key] = (magic, code)


def _verdict(stdout: bytes, what: str) -> ProbeResult:
    try:
        out = json.loads(stdout)
        if not isinstance(out, dict) or out.get("radpatch") != 1:
            raise ValueError("not radpatch's answer")
        comp = out["compile"]
        error = (
            None if comp is None else f"{comp['msg']} (line {comp['lineno'] if comp['lineno'] is not None else '?'})"
        )
        found = tuple(
            names.Problem(int(p[0]), str(p[1]), str(p[2]), str(p[3]), str(p[4]), p[5:] == [True])
            for p in out["problems"]
        )
        placed = tuple((str(check), str(m)) for check, m in out.get("placement") or ())
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise EnvironmentProblem(
            f"{what} gave an unexpected answer to radpatch's compile probe ({exc}): {stdout[:120]!r}"
        )
    return ProbeResult(error, found, placed)


def _package(file: str) -> dict[str, str]:
    """The sources the probe serves for one of radpatch's analysis modules: {"__init__": its source}
    for a module, and each of its modules' too for a package (they import each other relatively)."""
    path = Path(file)
    if path.name != "__init__.py":
        return {"__init__": path.read_text(encoding="utf-8")}
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(path.parent.glob("*.py"))}
