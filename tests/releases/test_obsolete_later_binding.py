"""verify calls a release obsolete upstream only where the definition holding the change is what
runs (issue 23, rel39 #6): the release has the change's code, but a later definition of the same
name, a re-assignment, an import, a store through `globals()` or a function's `global`, or a
monkeypatch at module end binds the name after it, or a branch that runs instead holds another
binding. Generated: kinds of later binding x where they sit, for a function (the toy `size()`'s
cap) and a method (the toy Engine.configure's timeout); the reference is each release imported in a
fresh interpreter, asked which code runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.lib.generated import sample
from tests.lib.timeout_toy import entry as timeout_entry
from tests.lib.toy_releases import GOOD, PATCHED, entry

PLAIN = "def size(items):\n    return len(items)\n"
WRAP = "def _plain(f):\n    def w(items):\n        return len(items)\n    return w\n"
# (kind, the binding's code with {P} where the patched definition goes); each binding runs
FUNCTION_KINDS = {
    "def again": "{P}\n\n" + PLAIN,
    "assign": "{P}\n\nsize = len\n",
    "tuple assign": "{P}\n\nsize, other = len, 1\n",
    "wrapper": WRAP + "\n\n{P}\n\nsize = _plain(size)\n",
    "import": "{P}\n\nfrom operator import length_hint as size\n",
    "globals()": WRAP + "\n\n{P}\n\nglobals()['size'] = _plain(size)\n",
    "global in a function": "{P}\n\ndef _swap():\n    global size\n    size = len\n\n\n_swap()\n",
    "def in an if": "FLAG = True\n\n{P}\n\nif FLAG:\n" + "".join(f"    {x}\n" for x in PLAIN.splitlines()),
    "for target": "{P}\n\nfor size in (len,):\n    pass\n",
    "walrus": "{P}\n\nif (size := len):\n    pass\n",
    "try body wins": "try:\n    from operator import length_hint as size\nexcept ImportError:\n{PI}",
    "if branch wins": "FLAG = True\nif FLAG:\n    size = len\nelse:\n{PI}",
}
# bindings that do not replace the patched definition: the release is obsolete there
CONTROLS = {
    "none": "{P}",
    "bound before": "size = None\n\n{P}",
    "other name": "{P}\n\nsizes = len\n",
    "used, not bound": "{P}\n\nprint(size)\n",
    "attribute of another object": "{P}\n\nclass K:\n    size = len\n",
    "overloads before": "from typing import overload\n\n\n@overload\ndef size(items: list) -> int: ...\n\n\n"
    "@overload\ndef size(items: tuple) -> int: ...\n\n\n{P}",
}
POSITIONS = {"at the end": "", "then more code": "\n\ndef unrelated():\n    return 1\n"}


def _release(template: str, tail: str) -> str:
    indented = "".join(f"    {x}\n" if x else "\n" for x in PATCHED.splitlines())
    return template.replace("{PI}", indented).replace("{P}", PATCHED.rstrip("\n")) + tail


def _cases() -> list[tuple[str, str]]:
    out = []
    for kinds in (FUNCTION_KINDS, CONTROLS):
        for kind, template in kinds.items():
            for where, tail in POSITIONS.items():
                out.append((f"{kind}, {where}", _release(template, tail)))
    return out


CASES = sample(_cases())


def _runs_patched(tmp: Path, name: str, source: str, probe: str) -> bool:
    """Import the release's module in a fresh interpreter and run `probe` on it: the reference."""
    root = tmp / "oracle" / name.replace(" ", "_").replace(",", "").replace("(", "").replace(")", "")
    (root / "rptoy").mkdir(parents=True)
    (root / "rptoy" / "__init__.py").write_text("")
    (root / "rptoy" / "core.py").write_text(source)
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import rptoy.core as m; print(); print({probe})"
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()[-1] == "True"


def _wheels(base: str, versions: dict[str, tuple[str, str]]) -> dict[str, dict[str, str | bytes]]:
    """1.0 the base the entry is written for, then one release per case."""
    return {"1.0": {"rptoy/core.py": base}, **{v: {"rptoy/core.py": s} for v, (_, s) in versions.items()}}


def _verdicts(radpatch: Any, reg: Path, name: str) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """Each release's result, and the releases verify calls obsolete upstream."""
    report = json.loads(radpatch("--registry", str(reg), "verify", name, "--versions", ">=1.0", "--json").out)
    return {r["version"]: r for r in report["results"]}, set(report["obsolete"])


def test_a_function_is_obsolete_only_where_the_patched_definition_runs(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    versions = {f"1.{i + 1}": case for i, case in enumerate(CASES)}
    loopback(
        "radpatch-toy", {"1.0": {"rptoy/core.py": GOOD}, **{v: {"rptoy/core.py": s} for v, (_, s) in versions.items()}}
    )
    probe = "m.size([1, 2, 3]) == 1"  # the cap makes it 1; the release's own len() says 3
    expected = {v for v, (name, s) in versions.items() if _runs_patched(tmp_path, name, s, probe)}
    # the reference agrees with how the family is built, case by case (a slice may hold no control)
    assert expected == {v for v, (name, _) in versions.items() if name.rsplit(", ", 1)[0] in CONTROLS}
    got, obsolete = _verdicts(radpatch, write_registry("toy", entry("==1.0")), "toy")
    assert {versions[v][0] for v in obsolete} == {versions[v][0] for v in expected}
    for v in set(versions) - expected:  # not obsolete, and verify says which binding runs
        assert "is bound again at line" in got[v]["error"] or "moved: size now lives in" in got[v]["error"], got[v]


ENGINE = "class Engine:\n    def configure(self):\n        self.a = 1\n        self.timeout = {T}\n        self.b = 2\n"
OTHER = "def _other(self):\n    self.a = 2\n"  # stores no timeout: replaced.py's stores do not tell
METHOD_KINDS = {
    "monkeypatch at the end": "{E}\n\n" + OTHER + "\n\nEngine.configure = _other\n",
    "setattr at the end": "{E}\n\n" + OTHER + "\n\nsetattr(Engine, 'configure', _other)\n",
    "monkeypatch in a function": "{E}\n\n"
    + OTHER
    + "\n\ndef _install():\n    Engine.configure = _other\n\n\n_install()\n",
    "class body again": "{E}    configure = lambda self: None\n",
    "class rebound": "{E}\n\nclass Engine:\n    def configure(self):\n        self.a = 3\n",
}
METHOD_CONTROLS = {
    "none": "{E}",
    "another method patched": "{E}\n\ndef _other(self):\n    self.b = 3\n\n\nEngine.other = _other\n",
}


def test_a_method_is_obsolete_only_where_the_patched_definition_runs(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    cases = sample(
        [(k, t.replace("{E}", ENGINE.replace("{T}", "60"))) for k, t in {**METHOD_KINDS, **METHOD_CONTROLS}.items()]
    )
    versions = {f"1.{i + 1}": case for i, case in enumerate(cases)}
    base = ENGINE.replace("{T}", "30")
    loopback(
        "radpatch-toy", {"1.0": {"rptoy/core.py": base}, **{v: {"rptoy/core.py": s} for v, (_, s) in versions.items()}}
    )
    probe = "(lambda e: (e.configure(), getattr(e, 'timeout', None))[1])(m.Engine()) == 60"
    expected = {v for v, (name, s) in versions.items() if _runs_patched(tmp_path, name, s, probe)}
    _, obsolete = _verdicts(radpatch, write_registry("longer", timeout_entry("==1.0")), "longer")
    assert {versions[v][0] for v in obsolete} == {versions[v][0] for v in expected}
    # the reference agrees with how the family is built, case by case (a slice may hold no control)
    assert expected == {v for v, (name, _) in versions.items() if name in METHOD_CONTROLS}
