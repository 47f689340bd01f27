"""Issue 6.6 — hostile or broken registry input.

Property-based (hypothesis): random text, bytes, mutations of a valid registry file, random YAML
structures, schema-shaped structures with random values — through radpatch.registry.loader.load_patch —
and random rewrite specs (`find`/`with`/`code`/`default`/payloads) through the loader and then the
engine's plan on a small module: only radpatch.errors.RadpatchError may come out.

Plus: alias bombs refused fast, YAML tags constructing Python objects never honoured, payloads
never executed or imported (markers a run would create are absent).
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.version import Version

from radpatch.errors import RadpatchError, RegistryError
from radpatch.prove import plan
from radpatch.registry.loader import load_patch
from radpatch.registry.model import rewrites_by_file
from radpatch.rewrite import runner
from tests.lib import REPO
from tests.lib.generated import examples
from tests.lib.installed import DEMO_PAYLOAD, DEMO_REGISTRY, RADPATCH, Env
from tests.lib.processes import clean_env
from tests.lib.registry import write_entry

FUZZ = settings(
    max_examples=int(os.environ.get("RADPATCH_FUZZ_EXAMPLES", str(examples(250)))),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
WORK = Path(tempfile.mkdtemp(prefix="radpatch-fuzz-"))
atexit.register(shutil.rmtree, WORK, True)
PAYLOAD = REPO / "patches" / "kv_group_size" / "payload.py"
FLAGSHIP = (
    (REPO / "registry" / "kv_group_size.yaml").read_text().replace("../patches/kv_group_size/payload.py", str(PAYLOAD))
)
TOP_KEYS = ["summary", "description", "distribution", "supported", "obsolete", "knobs", "modules", "rewrites"]
OP_KEYS = ["insert_definitions", "add_parameter", "insert_after", "insert_before", "replace"]
FIELD_KEYS = [
    "id",
    "versions",
    "file",
    "scope",
    "find",
    "code",
    "with",
    "function",
    "name",
    "default",
    "payload",
    "before",
    "after",
    "names",
    "module",
]


def _load(text: str | bytes, name: str = "fuzz") -> object:
    """load_patch on this text; only RadpatchError may escape (anything else fails the test)."""
    d = Path(tempfile.mkdtemp(dir=WORK))
    f = d / f"{name}.yaml"
    # bytes, not text, so not through tests/lib/registry's writer: lone surrogates and invalid UTF-8 included
    f.write_bytes(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    try:
        return load_patch(f)
    except RadpatchError as exc:
        assert exc.render(), "an error without a message"
        return exc


# --- the loader ---------------------------------------------------------------------------------------


@FUZZ
@given(st.text(max_size=400))
def test_loader_random_text(text: str) -> None:
    _load(text)


@FUZZ
@given(st.binary(max_size=400))
def test_loader_random_bytes(data: bytes) -> None:
    _load(data)


_INSERTS = st.sampled_from(
    [
        "",
        ":",
        "- ",
        "&a ",
        "*a",
        "!!python/object/apply:os.system ['true']",
        "{",
        "}",
        "[",
        "]",
        "\t",
        "\n",
        "  ",
        "'",
        '"',
        "\\0",
        "\x00",
        "\ufeff",
        "---\n",
        "...\n",
        "? ",
        "|\n",
        ">-\n",
        "!!binary ",
        "!!int ",
        "!!str ",
        "!!map ",
        "!!seq ",
        "~",
        "null",
        "0x",
        "1e9999",
        "<<: *a\n",
        "%YAML 1.1\n",
        "#",
        ",",
        "@",
        "`",
    ]
) | st.text(max_size=8)


@FUZZ
@given(st.data())
def test_loader_mutated_registry_files(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from([FLAGSHIP, DEMO_REGISTRY.replace("rphard_payload.py", str(PAYLOAD))]))
    for _ in range(data.draw(st.integers(1, 6))):
        kind = data.draw(st.sampled_from(["insert", "delete", "swap-lines", "dup-line", "replace-token"]))
        if kind == "insert":
            at = data.draw(st.integers(0, len(text)))
            text = text[:at] + data.draw(_INSERTS) + text[at:]
        elif kind == "delete" and text:
            at = data.draw(st.integers(0, len(text) - 1))
            text = text[:at] + text[at + data.draw(st.integers(1, 40)) :]
        elif kind in ("swap-lines", "dup-line"):
            lines = text.splitlines(keepends=True)
            if len(lines) > 1:
                i, j = data.draw(st.integers(0, len(lines) - 1)), data.draw(st.integers(0, len(lines) - 1))
                if kind == "swap-lines":
                    lines[i], lines[j] = lines[j], lines[i]
                else:
                    lines.insert(j, lines[i])
                text = "".join(lines)
        elif kind == "replace-token":
            words = sorted(set(text.replace(":", " ").split()))
            if words:
                text = text.replace(data.draw(st.sampled_from(words)), data.draw(_INSERTS), 1)
    _load(text)


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=30)
    | st.sampled_from(
        [
            "",
            "f",
            "<module>",
            ">=1",
            "0.33",
            "a.b.c",
            "x = 1",
            "def",
            "..",
            "../x",
            "/dev/null",
            "\x00",
            "a\x00b",
            "payload.py",
            str(PAYLOAD),
            "é",
            "\u2028",
        ]
    )
)
_STRUCT = st.recursive(
    _SCALARS,
    lambda ch: (
        st.lists(ch, max_size=4)
        | st.dictionaries(st.sampled_from(TOP_KEYS + OP_KEYS + FIELD_KEYS) | st.text(max_size=8), ch, max_size=5)
    ),
    max_leaves=25,
)


def _dump(obj: object) -> str:
    return yaml.safe_dump(obj, allow_unicode=True, default_flow_style=False, sort_keys=False)


@FUZZ
@given(_STRUCT)
def test_loader_random_structures(obj: object) -> None:
    _load(_dump(obj))


def _schema_shaped() -> st.SearchStrategy[dict[str, object]]:
    good = {
        "summary": st.just("s"),
        "description": st.just("d"),
        "distribution": st.sampled_from(["vllm", "rphard-demo"]),
        "supported": st.sampled_from([">=0.22.0,<0.34", ">=1", "==1.*", "", "not a range", ">=1,<"]),
        "obsolete": st.sampled_from([">=0.40", "~=1", "bad"]),
        "knobs": st.dictionaries(
            st.sampled_from(["A", "B_1", "1X", "a-b"]),
            st.fixed_dictionaries({"default": _SCALARS, "meaning": _SCALARS}) | _STRUCT,
            max_size=3,
        ),
        "modules": st.dictionaries(
            st.sampled_from(["planner", "m", "1bad"]),
            st.sampled_from(["a.b", "a..b", "vllm.v1.core.kv_cache_planning"])
            | st.lists(st.fixed_dictionaries({"versions": _SCALARS, "module": _SCALARS}), max_size=3)
            | _STRUCT,
            max_size=3,
        ),
    }
    op = st.sampled_from(OP_KEYS).flatmap(
        lambda k: st.fixed_dictionaries(
            {k: st.dictionaries(st.sampled_from(FIELD_KEYS), _SCALARS | _STRUCT, max_size=5)},
            optional={"id": _SCALARS, "versions": _SCALARS, "file": _SCALARS},
        )
    )
    fields = {k: v | _STRUCT for k, v in good.items()}
    fields["rewrites"] = st.lists(op | _STRUCT, max_size=4) | _STRUCT
    return st.fixed_dictionaries({}, optional=fields)


@FUZZ
@given(_schema_shaped())
def test_loader_schema_shaped_structures(obj: dict[str, object]) -> None:
    _load(_dump(obj))


# --- rewrite specs through the engine's plan ------------------------------------------------------------

MODULE = textwrap.dedent('''\
    """A small module to patch."""
    import os


    def f(a, *args, b=1, **kw):
        """doc"""
        x = g(a)  # note
        if x:
            x = g(a)
        return x


    class C:
        def m(self):
            return f(1)


    def h():
        def inner():
            return 2
        return inner()


    async def k(q):
        async with q as r:
            await r
    ''').encode()

_SNIPPETS = st.sampled_from(
    [
        "x = g(a)",
        "g(a)",
        "return x",
        "x",
        "a",
        "1",
        "z = 1",
        "",
        " ",
        "  1",
        "pass",
        "if x:\n    x = g(a)",
        "if a:\n    pass",
        "def hh():\n    pass",
        "lambda: 0",
        "yield x",
        "await r",
        "a if b else c",
        "x: int = 1",
        "del x",
        "global x",
        "import os",
        "print(x)",
        "x = g(a)\nreturn x",
        "\tx",
        "x = g(a)  # c",
        "(g(a))",
        "g(\n a)",
        "f",
        "return",
        "...",
        "x;",
        "# only a comment",
        "'''doc'''",
        "match x:\n    case 1:\n        pass",
        "async def kk(): pass",
        "class D: pass",
        "@d\ndef kk(): pass",
        "with a: pass",
        "f'{x!r}'",
        "(x := 1)",
        "a[1:2, ::3]",
        "not a",
        "x = g(a) \\\n + 1",
        "return inner()",
        "f(1)",
        "*a",
        "**kw",
        "b=1",
        "os",
        "try:\n    pass\nexcept* E:\n    pass",
        "x = 1\n\n\nx = 2",
        "\n\n",
        "g(a)\ng(a)",
        "  x = g(a)",
        "x = g(a)\r\n",
        "x = g(a)\x0c",
        "\\",
        "None",
        "b",
        "r",
        "async with q as r:\n    await r",
    ]
)
_CODE = (
    _SNIPPETS
    | st.text(alphabet=st.sampled_from(list("xga()=:+1 \n\t#'\"[]{},.*\\;rfbN")), max_size=24)
    | st.lists(_SNIPPETS, min_size=1, max_size=3).map("\n".join)
)
_SCOPES = st.sampled_from(["f", "<module>", "C.m", "C", "h", "h.inner", "k", "nope", "f.g", "C.nope", "os"])
_IDENTS = st.sampled_from(["y", "a", "b", "kw", "args", "self", "x", "_new", "vllm_config"])
_PAYLOADS = _SNIPPETS.map(lambda s: s + "\n") | st.sampled_from(
    [
        "def _p():\n    return 1\n",
        "def f():\n    pass\n",
        "class _Q:\n    pass\n",
        "async def _a():\n    pass\n",
        "@dec\ndef _d():\n    pass\n",
        "def _r(x=1):\n    return undefined_name\n",
        "def _s():\n    return os.sep\n",
        "import os\n\ndef _t():\n    return 1\n",
        "def _u():\n  return 1\n\n\ndef _v():\n\treturn 2\n",
        "x = 1\n",
        "def _w(:\n",
        "\x00",
        "def _x():\n    return 1\n\ndef _x():\n    return 2\n",
    ]
)


@st.composite
def _rewrite(draw: st.DrawFn) -> tuple[dict[str, object], str | None]:
    kind = draw(st.sampled_from(OP_KEYS))
    payload = None
    if kind == "insert_definitions":
        payload = draw(_PAYLOADS)
        body: dict[str, object] = {
            "payload": "payload.py",
            draw(st.sampled_from(["before", "after"])): draw(st.sampled_from(["f", "C", "h", "k", "nope", "os"])),
        }
        if draw(st.booleans()):
            body["names"] = draw(
                st.lists(st.sampled_from(["_p", "f", "_Q", "_a", "_d", "_r", "_t", "_u", "_v", "_x", "zz"]), max_size=3)
            )
    elif kind == "add_parameter":
        body = {"function": draw(_SCOPES), "name": draw(_IDENTS), "default": draw(_CODE)}
    elif kind == "replace":
        body = {"scope": draw(_SCOPES), "find": draw(_CODE), "with": draw(_CODE)}
    else:
        body = {"scope": draw(_SCOPES), "find": draw(_CODE), "code": draw(_CODE)}
    return {kind: body}, payload


def _plan(rewrites: list[tuple[dict[str, object], str | None]]) -> None:
    d = Path(tempfile.mkdtemp(dir=WORK))
    payloads = [p for _, p in rewrites if p is not None]
    doc = {
        "summary": "s",
        "description": "d",
        "distribution": "demo",
        "supported": ">=1",
        "modules": {"m": "demo.mod"},
        "rewrites": [r for r, _ in rewrites],
    }
    entry = write_entry(d, "p", _dump(doc), {"payload.py": payloads[0]} if payloads else None, dedent=False)
    where = str(d / "mod.py")
    try:
        patch = load_patch(entry)
        rws = rewrites_by_file(patch, Version("1.0"))["m"]
        change = plan.plan(patch, rws, "demo.mod", Path(where), MODULE)  # forward + compile + names + reverse
        assert runner.backward(patch, rws, change.after, where) == MODULE
        try:
            runner.forward(patch, rws, change.after, where)  # applying on top of the result: no crash
        except RadpatchError:
            pass
    except RadpatchError:
        pass


@FUZZ
@given(st.lists(_rewrite(), min_size=1, max_size=3))
def test_plan_random_rewrite_specs(rewrites: list[tuple[dict[str, object], str | None]]) -> None:
    _plan(rewrites)


# Minimal cases found by the properties above, kept as plain regression tests (each names the
# code path it goes through; each must yield a RadpatchError like any other invalid input).
REGRESSIONS = {
    "add_parameter default is a statement": [
        ({"add_parameter": {"function": "f", "name": "y", "default": "z = 1"}}, None)
    ],
    "add_parameter default with leading blanks": [
        ({"add_parameter": {"function": "f", "name": "y", "default": "  1"}}, None)
    ],
    "replace expression by statements": [({"replace": {"scope": "C.m", "find": "f(1)", "with": "z = 1"}}, None)],
    "expression find with a trailing semicolon": [({"replace": {"scope": "C.m", "find": "x;", "with": "x"}}, None)],
    "find that is one expression only inside parentheses": [
        ({"replace": {"scope": "k", "find": "print(x)\n**kw", "with": "x"}}, None)
    ],
    "payload path with a NUL byte": [({"insert_definitions": {"payload": "a\x00b", "before": "f"}}, None)],
}


@pytest.mark.parametrize("case", list(REGRESSIONS))
def test_rewrite_spec_regressions(case: str) -> None:
    _plan(REGRESSIONS[case])


# --- alias bombs ---------------------------------------------------------------------------------------


def _laughs(levels: int = 9, width: int = 9) -> str:
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines)


def _map_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ["m0: &m0 {default: x, meaning: y}"]
    for i in range(1, levels + 1):
        lines.append(f"m{i}: &m{i} {{" + ", ".join(f"k{j}: *m{i - 1}" for j in range(width)) + "}")
    return "\n".join(lines)


BOMBS = {
    "unknown key": _laughs() + "\n",
    "summary": "x: &x 1\n" + _laughs().replace("a0: ", "lol: ") + "\nsummary: *a9\n",
    "rewrites": _laughs() + "\nrewrites: *a9\n",
    "knobs": _map_laughs() + "\nknobs: *m9\n",
    "modules": _map_laughs() + "\nmodules: *m9\n",
    "merge keys": _map_laughs() + "\nknobs: {<<: [*m9, *m8, *m7]}\n",
    "inline in rewrites": "rewrites: "
    + "".join(f"[&b{i} " for i in range(9))
    + "lol"
    + "".join(", " + ", ".join([f"*b{i}"] * 8) + "]" for i in reversed(range(9)))
    + "\n",
    "valid rewrites, aliased beyond the node budget": "rewrites: [&r {replace: {scope: f, find: x, with: y}}"
    + ", *r" * 5000
    + "]\n",
}


@pytest.mark.parametrize("where", list(BOMBS))
def test_alias_bomb_is_refused_fast(where: str) -> None:
    base = (
        "summary: s\ndescription: d\ndistribution: x\nsupported: '>=1'\nmodules: {m: a.b}\n"
        "rewrites: [{replace: {scope: f, find: x, with: y}}]\n"
    )
    text = BOMBS[where]
    top = {line.split(":")[0] for line in text.splitlines() if line and line[0].isalpha()}
    text = text + "".join(line + "\n" for line in base.splitlines() if line.split(":")[0] not in top)
    out = _load(text)
    assert isinstance(out, RegistryError), f"an alias bomb was accepted: {out!r}"
    message = out.render()
    overflows = message.count("YAML nodes")
    assert overflows <= 1, (
        f"the node budget was exceeded and then reported {overflows} times ({len(message)} characters of "
        f"error): it did not cut the walk off"
    )
    assert len(message) < 100_000, f"the error is {len(message)} characters long"


def test_alias_bomb_through_the_cli(tmp_path: Path) -> None:
    reg = tmp_path / "reg"
    bomb = BOMBS["rewrites"] + "summary: s\ndescription: d\ndistribution: x\nsupported: '>=1'\nmodules: {m: a.b}\n"
    write_entry(reg, "bomb", bomb, dedent=False)
    # the timeout only turns a hang into a failure; the node budget is what bounds the work
    out = subprocess.run(
        [*RADPATCH, "--registry", str(reg), "show", "bomb"],
        capture_output=True,
        text=True,
        timeout=600,
        env=clean_env(),
    )
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
    assert out.stderr.count("YAML nodes") <= 1 and len(out.stderr) < 100_000, out.stderr[:2000]


# --- YAML tags that would construct Python objects ---------------------------------------------------------

DEMO_PAYLOAD_FILE = WORK / "rphard_payload.py"
DEMO_PAYLOAD_FILE.write_text(DEMO_PAYLOAD)


def _tag_cases(marker: Path) -> dict[str, str]:
    sh = f"touch {marker}"
    valid = DEMO_REGISTRY.replace("payload: rphard_payload.py", f"payload: {DEMO_PAYLOAD_FILE}")
    return {
        "summary": f"summary: !!python/object/apply:os.system [{sh!r}]\n" + valid.split("\n", 1)[1],
        "document": f"--- !!python/object/apply:os.system [{sh!r}]\n",
        "new": f"summary: !!python/object/new:subprocess.Popen [[touch, {marker}]]\n" + valid.split("\n", 1)[1],
        "name": "summary: !!python/name:os.system\n" + valid.split("\n", 1)[1],
        "module": "summary: !!python/module:os\n" + valid.split("\n", 1)[1],
        "key": f"? !!python/object/apply:os.system [{sh!r}]\n: x\n" + valid,
        "rewrite mapping": valid.replace(
            "  - id: beta-cap\n", f"  - !!python/object/apply:os.system\n    args: [{sh!r}]\n    id: beta-cap\n"
        ),
        "modules mapping": valid.replace("modules:\n", "modules: !!python/object/apply:os.system\n"),
        "rewrites list": valid.replace("rewrites:\n", "rewrites: !!python/object/apply:os.system\n"),
        "find": valid.replace("find: cap = 10", f"find: !!python/object/apply:os.system [{sh!r}]"),
        "unknown key": valid + f"evil: !!python/object/apply:os.system [{sh!r}]\n",
        "state": valid + "x: !!python/object/new:type\n  args: [X, [], {}]\n"
        f"  state: {{y: !!python/object/apply:os.system [{sh!r}]}}\n",
    }


def test_python_tags_are_never_honoured(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER-tag-executed"
    for name, text in _tag_cases(marker).items():
        _load(text, name="tagged")
        assert not marker.exists(), f"a YAML python tag was executed ({name})"


def test_python_tags_never_honoured_through_the_cli(demo_env: Env, tmp_path: Path) -> None:
    """Every command over a registry full of python tags (some on nodes the schema accepts)."""
    env = demo_env
    marker = tmp_path / "MARKER-tag-executed"
    reg = tmp_path / "reg"
    for name, text in _tag_cases(marker).items():
        write_entry(reg, f"tag_{name.replace(' ', '_')}", text, dedent=False)
    runs = (
        ["list"],
        ["status"],
        ["show", "tag_modules_mapping"],
        ["diff", "tag_rewrites_list"],
        ["apply", "tag_rewrites_list"],
        ["status", "--check"],
        ["revert", "tag_modules_mapping"],  # the same rewrites as tag_rewrites_list: not applied itself
        ["revert", "tag_rewrites_list"],
        ["apply", "tag_find"],
    )
    for args in runs:
        out = subprocess.run(
            [*RADPATCH, "--python", str(env.python), "--registry", str(reg), *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=clean_env(),
            cwd="/",
        )
        assert out.returncode in (0, 1, 2), f"{args}: exit {out.returncode}: {out.stderr}"
        assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
        assert not marker.exists(), f"a YAML python tag was executed by `radpatch {' '.join(args)}`"
        if args[0] in ("apply", "revert") and args[1] != "tag_find":
            assert out.returncode == 0, f"{args}: a tag on an accepted node: {out.stderr}"
    assert env.read() == env.original


# --- payloads are parsed, never executed or imported --------------------------------------------------------


def test_payload_is_never_executed_or_imported(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    top, deftime, imported = tmp_path / "MARKER-top-level", tmp_path / "MARKER-def-time", tmp_path / "MARKER-imported"
    reg = tmp_path / "reg"
    write_entry(reg, "rphard", (env.registries[0] / "rphard.yaml").read_text(), dedent=False)
    definition = textwrap.dedent(f'''\
        def _rphard_double(v, _probe=__import__("pathlib").Path({str(deftime)!r}).write_text("def-time code ran")):
            """Injected by the rphard test patch."""
            return v * 2
        ''')
    env.registries = (reg,)

    def never_ran(args: list[str]) -> None:
        for m in (top, deftime, imported):
            assert not m.exists(), f"`radpatch {' '.join(args)}` executed the payload: {m.read_text()}"
        assert not (reg / "__pycache__").exists(), f"`radpatch {' '.join(args)}` imported the payload"

    # Top-level code in a payload is refused by the loader (exit 2) -- read, never run.
    (reg / "rphard_payload.py").write_text(
        textwrap.dedent(f"""\
        import pathlib
        pathlib.Path({str(top)!r}).write_text("the payload's top level ran")
        if __name__ != "__main__":
            pathlib.Path({str(imported)!r}).write_text("the payload was imported")


        """)
        + definition
    )
    for args in (["show", "rphard"], ["diff", "rphard"], ["apply", "rphard", "--dry-run"], ["apply", "rphard"]):
        out = env.run(*args)
        assert out.returncode == 2 and "rphard_payload.py:2" in out.stderr, f"{args}: {out.stderr}"
        never_ran(args)
    assert env.read() == env.original

    # A valid payload whose definition has def-time code goes through the whole cycle unexecuted.
    (reg / "rphard_payload.py").write_text("import pathlib\n\n\n" + definition)
    for args in (
        ["show", "rphard"],
        ["diff", "rphard"],
        ["apply", "rphard", "--dry-run"],
        ["apply", "rphard"],
        ["status", "rphard"],
        ["status", "--check"],
        ["revert", "rphard"],
    ):
        out = env.run(*args)
        assert out.returncode == 0, f"{args}: {out.stderr}"
        never_ran(args)
    env.patched = {}
    assert env.read() == env.original


def test_payload_side_effects_only_ever_reach_the_target_file(demo_env: Env, tmp_path: Path) -> None:
    """The def-time code of an injected definition is pasted into the target (by design) but
    runs only when the target itself is imported — by the user, not by radpatch."""
    env = demo_env
    deftime = tmp_path / "MARKER-def-time"
    reg = tmp_path / "reg"
    write_entry(reg, "rphard", (env.registries[0] / "rphard.yaml").read_text(), dedent=False)
    (reg / "rphard_payload.py").write_text(
        f"def _rphard_double(v, _probe=__import__('pathlib').Path({str(deftime)!r}).touch()):\n    return v * 2\n"
    )
    env.registries = (reg,)
    assert env.run("apply", "rphard").returncode == 0
    assert not deftime.exists()
    assert env.path("rphard_demo/alpha.py").read_text().count(str(deftime)) == 1
    subprocess.run([str(env.python), "-c", "import rphard_demo.alpha"], check=True, env=clean_env(), cwd="/")
    assert deftime.exists(), "control: importing the patched target does run the injected def-time code"


# --- the same hostile specs through the CLI, against a real install ------------------------------------------

CLI_HOSTILE = {
    "add_parameter default is a statement": "add_parameter:\n        function: compute\n        name: z\n"
    "        default: z = 1\n",
    "replace expression by statements": "replace:\n        scope: caller\n        find: compute(2)\n"
    "        with: z = 1\n",
    "payload path with a NUL byte": 'insert_definitions:\n        payload: "a\\0b"\n        before: compute\n',
}


@pytest.mark.parametrize("case", list(CLI_HOSTILE))
def test_hostile_rewrite_through_the_cli(demo_env: Env, tmp_path: Path, case: str) -> None:
    """radpatch's own error (exit 1 or 2), never an internal error (exit 70); nothing written."""
    env = demo_env
    reg = tmp_path / "reg"
    write_entry(
        reg,
        "evil",
        textwrap.dedent("""\
        summary: hostile
        description: d
        distribution: rphard-demo
        supported: ">=1"
        modules:
          alpha: rphard_demo.alpha
        rewrites:
          - """)
        + CLI_HOSTILE[case],
        dedent=False,
    )
    env.registries = (*env.registries, reg)
    for args in (["show", "evil"], ["diff", "evil"], ["apply", "evil"]):
        out = env.run(*args)
        allowed = (0, 1, 2) if args[0] == "show" else (1, 2)  # show may accept what the loader accepts
        assert out.returncode in allowed, (
            f"`radpatch {' '.join(args)}` ({case}): exit {out.returncode}: {out.stderr.strip()}"
        )
        assert "internal error" not in out.stderr and "Traceback" not in out.stderr
    assert env.read() == env.original
