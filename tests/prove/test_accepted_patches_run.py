"""Property: whatever radpatch accepts imports and behaves as its rewrites say; what would break is refused.

Hypothesis generates small modules (functions over a module constant) and sets of rewrites
through the public model and plan.plan: safe ones (insert a statement, replace an expression,
add a parameter, a payload helper and its call, a local that is assigned before it is read)
and breaking ones (a global turned into a local read before its assignment, an undefined name,
module-level code calling a function defined further down). The patched module runs in a
subprocess of the target interpreter, never in radpatch; its results are compared with what the
generator's own model of the rewrites computes. Derandomized and bounded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet

from radpatch.errors import RefusedError
from radpatch.install.environment import PythonEnv, python_env
from radpatch.prove import plan
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_parameter import AddParameter
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from tests.lib.generated import examples

ARGS = [(0, 1), (3, -2), (7, 5)]
SAFE = ("bump", "tail", "param", "local_limit", "helper")
BREAKING = ("shadow_early", "undefined", "module_later")


@dataclass(frozen=True)
class Fn:
    k1: int
    k2: int


@dataclass(frozen=True)
class Case:
    limit: int
    fns: tuple[Fn, ...]
    edits: tuple[tuple[str, int, int], ...]  # (kind, function index, constant)

    def source(self) -> str:
        out = f"LIMIT = {self.limit}\n"
        for i, f in enumerate(self.fns):
            out += f"\n\ndef f{i}(a, b):\n    x = a + {f.k1}\n    y = x * b + LIMIT\n    return y - {f.k2}\n"
        return out

    def ops(self) -> list[Operation]:
        out: list[Operation] = []
        for kind, i, c in self.edits:
            f, anchor = self.fns[i], f"x = a + {self.fns[i].k1}"
            if kind == "bump":
                out.append(InsertStatements(f"f{i}", anchor, f"x = x + {c}", "after"))
            elif kind == "tail":
                out.append(Replace(f"f{i}", f"y - {f.k2}", f"y - {f.k2} + {c}"))
            elif kind == "param":
                out.append(AddParameter(f"f{i}", "extra", str(c)))
            elif kind == "local_limit":
                out.append(InsertStatements(f"f{i}", anchor, f"LIMIT = {c}", "after"))
            elif kind == "helper":
                payload = f"def _rp_add_{i}(v):\n    return v + {c}\n".encode()
                out.append(InsertDefinitions(Path("payload.py"), payload, (f"_rp_add_{i}",), f"f{i}", "after"))
                out.append(InsertStatements(f"f{i}", anchor, f"x = _rp_add_{i}(x)", "after"))
            elif kind == "shadow_early":
                out.append(InsertStatements(f"f{i}", anchor, f"x = x + LIMIT\nLIMIT = {c}", "after"))
            elif kind == "undefined":
                out.append(InsertStatements(f"f{i}", anchor, "x = x + _rp_nowhere", "after"))
            elif kind == "module_later":
                out.append(
                    InsertStatements(
                        "<module>", f"LIMIT = {self.limit}", f"EARLY = f{len(self.fns) - 1}(1, 2)", "after"
                    )
                )
        return out

    def expected(self) -> dict[str, list[int]]:
        """The model: what each function returns once the rewrites are in."""
        out = {}
        for i, f in enumerate(self.fns):
            mine = [(k, c) for k, j, c in self.edits if j == i]
            bump = sum(c for k, c in mine if k in ("bump", "helper"))
            tail = sum(c for k, c in mine if k == "tail")
            limit = next((c for k, c in mine if k == "local_limit"), self.limit)
            out[f"f{i}"] = [((a + f.k1 + bump) * b + limit) - f.k2 + tail for a, b in ARGS]
        return out

    @property
    def breaking(self) -> bool:
        return any(k in BREAKING for k, _, _ in self.edits)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    n = draw(st.integers(1, 4))
    fns = tuple(
        Fn(draw(st.integers(0, 9)), draw(st.integers(10, 19))) for _ in range(n)
    )  # k1 != k2: each `find` is unique
    which = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))  # one edit per function
    kinds = st.sampled_from(SAFE + BREAKING) if draw(st.booleans()) else st.sampled_from(SAFE)
    edits = tuple((draw(kinds), i, draw(st.integers(20, 29))) for i in which)
    return Case(draw(st.integers(30, 39)), fns, edits)


def target() -> PythonEnv:
    """An interpreter of another version when there is one, so the target's own check runs too."""
    for v in ("3.10", "3.12", "3.13"):
        found = sorted(Path("/root/.pyenv/versions").glob(f"{v}*/bin/python"))
        if found and not str(found[-1]).startswith(sys.prefix):
            return python_env(str(found[-1]))
    return python_env(None)


TARGET = target()
RUNNER = textwrap.dedent("""\
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import gen
    names = sorted(n for n in vars(gen) if n.startswith("f") and n[1:].isdigit())
    out = {n: [getattr(gen, n)(a, b) for a, b in json.loads(sys.argv[2])] for n in names}
    extra = {n: getattr(gen, n)(1, 1, extra=0) for n in json.loads(sys.argv[3])}
    print(json.dumps({"results": out, "extra": extra}))
    """)


def run_in_target(source: bytes, tmp: Path, with_extra: list[str]) -> dict[str, object]:
    (tmp / "gen.py").write_bytes(source)
    done = subprocess.run(
        [TARGET.executable, "-I", "-B", "-c", RUNNER, str(tmp), json.dumps(ARGS), json.dumps(with_extra)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


@settings(
    max_examples=examples(20),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=cases())
def test_accepted_patches_import_and_behave_and_breaking_ones_are_refused(case: Case, tmp_path: Path) -> None:
    ops = case.ops()
    rws = tuple(Rewrite(f"r{i}", "gen", None, op, f"gen.yaml:{i + 1}") for i, op in enumerate(ops))
    patch = Patch("gen", "g", "g", "toypkg", SpecifierSet(""), None, (), (), rws, Path("gen.yaml"), "0")
    try:
        change = plan.plan(patch, rws, "gen", tmp_path / "gen.py", case.source().encode(), TARGET)
    except RefusedError as exc:
        assert case.breaking, f"a safe patch was refused: {exc.message}\n{case.source()}\n{case.edits}"
        return
    assert not case.breaking, f"a breaking patch was accepted:\n{change.after.decode()}"
    got = run_in_target(change.after, tmp_path, [f"f{i}" for k, i, _ in case.edits if k == "param"])
    assert got["results"] == case.expected(), change.after.decode()
    assert runner.backward(patch, rws, change.after, "gen.py") == case.source().encode()
