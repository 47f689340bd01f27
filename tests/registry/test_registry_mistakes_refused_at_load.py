"""Registry mistakes refused where they are written (att54 #1, #2, #10, #11, #12, #13): before, an
empty module list crashed every command (exit 70, IndexError), a payload Python cannot read
crashed show and apply (exit 70, SyntaxError), YAML booleans became code (`with: true` ran as the
name `true`), `binds` and keyword names loaded silently, overlapping variants were told to "fix
find", and a registry file not in UTF-8 got three lines naming no line.

Generated families, each with a real oracle:
- every key whose list must name something x each command: exit 2, at most two lines, file:line:col
  and the key path, no internal error;
- every operation x each of its code fields x each YAML spelling: refused as a boolean exactly when
  YAML itself (yaml.safe_load) reads the spelling as one;
- payload encodings x coding line x text: loaded exactly when Python itself compiles the payload's
  bytes, else refused at the payload's file:line and `.payload`; a latin-1 payload with its coding
  line is applied and runs;
- a bad byte at each place of a registry file: one line at the byte's own line and column, where
  yaml cannot read the file;
- pairs of `versions:` ranges of two variants: refused as overlapping exactly when a release of a
  grid satisfies both (packaging), naming both key paths.
"""

from __future__ import annotations

import codecs
import importlib.util
import itertools
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import jsonschema
import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.cli import main
from radpatch.errors import RegistryError
from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops import OPERATIONS
from tests.lib.generated import sample
from tests.lib.registry import load_problems, schema_validate, write_entry
from tests.lib.site import Site


class Ran(Protocol):
    code: int
    out: str
    err: str


HEAD = 'summary: s\ndescription: d\ndistribution: toypkg\nsupported: ">=1.0"\n'
REPLACE = '  - replace: {scope: f, find: "z = x * 2", with: "z = x * 3"}\n'
MODULE = 'S = "x"\nLIMIT = 5\nFLAGS = ["a", "b"]\n\n\ndef f(x):\n    z = x * 2\n    return z\n'

# --- every list key that must name something, left empty -------------------------------------------

EMPTY = {
    "modules.m": (HEAD + "modules:\n  m: []\nrewrites:\n" + REPLACE, "modules.m"),
    "modules": (HEAD + "modules: {}\nrewrites:\n" + REPLACE, "modules"),
    "rewrites": (HEAD + "modules:\n  m: toypkg.core\nrewrites: []\n", "rewrites"),
    "distribution": (
        HEAD.replace("toypkg", "[]") + "modules:\n  m: toypkg.core\nrewrites:\n" + REPLACE,
        "distribution",
    ),
    "names": (
        HEAD + "modules:\n  m: toypkg.core\nrewrites:\n  - insert_definitions: {payload: p.py, before: f, names: []}\n",
        "rewrites[0].insert_definitions.names",
    ),
}
COMMANDS = (("show", "X"), ("diff", "X"), ("apply", "X"), ("status",), ("status", "--json"))


def _refused_in_two_lines(err: str, file: Path, key: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) <= 2, err
    assert f"{file}:" in lines[0] and f"at {key}:" in lines[0], err
    assert "internal error" not in err and "Traceback" not in err, err


@pytest.mark.parametrize(("case", "command"), sample(list(itertools.product(EMPTY, COMMANDS))))
def test_an_empty_list_is_refused_at_its_key_by_every_command(
    case: str, command: tuple[str, ...], tmp_path: Path, site_with_core: Path, radpatch: Callable[..., Ran]
) -> None:
    text, key = EMPTY[case]
    entry = write_entry(tmp_path / "reg", "X", text, {"p.py": "def _rp_g():\n    return 1\n"}, dedent=False)
    result = radpatch("--registry", str(entry.parent), *command)
    assert result.code == 2, result
    _refused_in_two_lines(result.err, entry, key)
    with pytest.raises(jsonschema.ValidationError):  # the JSON Schema an editor checks agrees
        schema_validate(yaml.safe_load(text))


# --- every code field x YAML spellings: a boolean is refused exactly where YAML reads one ----------

SPELLINGS = ("true", "False", "yes", "No", "on", "OFF", "y", "'true'", "3", "1.5")
CODE_KINDS = {"code", "expression", "within", "import"}
FIELDS = [(kind, f.key) for kind, spec in OPERATIONS.items() for f in spec.FIELDS if f.kind in CODE_KINDS]


def _op_mapping(kind: str) -> dict[str, object]:
    example = yaml.safe_load(OPERATIONS[kind].EXAMPLE)
    assert isinstance(example, dict)
    return {k: v for k, v in example.items()}


@pytest.mark.parametrize(("kind", "key", "spelling"), sample([(*f, s) for f in FIELDS for s in SPELLINGS]))
def test_a_yaml_boolean_in_a_code_field_is_refused_there(kind: str, key: str, spelling: str, tmp_path: Path) -> None:
    fields = {k: v for k, v in _op_mapping(kind).items() if k != key}
    body = "".join(f"      {k}: {yaml.safe_dump(v, default_style=chr(34)).strip()}\n" for k, v in fields.items())
    text = HEAD + f"modules:\n  m: toypkg.core\nrewrites:\n  - {kind}:\n{body}      {key}: {spelling}\n"
    entry = write_entry(tmp_path, "X", text, dedent=False)
    read_by_yaml = yaml.safe_load(f"v: {spelling}")["v"]
    try:
        load_patch(entry)
        problems: list[str] = []
    except RegistryError as exc:
        problems = exc.problems
    path = f"at rewrites[0].{kind}.{key}:"
    said_boolean = [p for p in problems if path in p and "as a boolean, not Python code" in p]
    assert bool(said_boolean) == isinstance(read_by_yaml, bool), problems
    if said_boolean or not problems:  # the JSON Schema an editor checks agrees
        try:
            schema_validate(yaml.safe_load(text))
            schema_refuses = False
        except jsonschema.ValidationError:
            schema_refuses = True
        assert schema_refuses == bool(said_boolean), problems
    if said_boolean:
        python = "True" if read_by_yaml else "False"
        assert f"{entry}:" in said_boolean[0] and f"write Python's {python}" in said_boolean[0], said_boolean


# --- vouched_exec binds and keyword names: refused at load ----------------------------------------

VOUCHED = 'vouched_exec:\n  - {file: toypkg/core.py, scope: f, code: "exec(code, ns)", binds: [BIND]}\n'
BINDS = {
    '"ns ="': False,
    '"parameter"': False,
    '"parameter a, b"': False,
    '"ns"': False,
    '"ns = {}"': True,
    '"parameter code: str"': True,
    '"parameter ns=None"': True,
    '"for ns in x: ..."': True,
    '"import ns"': True,
    '"def ns(): ..."': True,
}


@pytest.mark.parametrize("bind", sorted(BINDS))
def test_a_bind_that_binds_nothing_is_refused_at_load(bind: str, tmp_path: Path) -> None:
    text = HEAD + "modules:\n  m: toypkg.core\n" + VOUCHED.replace("BIND", bind) + "rewrites:\n" + REPLACE
    entry = write_entry(tmp_path, "X", text, dedent=False)
    if BINDS[bind]:
        load_patch(entry)
        return
    problems = load_problems(entry)
    assert len(problems) == 1 and "at vouched_exec[0].binds[0]:" in problems[0], problems


NAME_FIELDS = [
    (kind, f.key) for kind, spec in OPERATIONS.items() for f in spec.FIELDS if f.kind in ("identifier", "names")
]


@pytest.mark.parametrize(("kind", "key", "name"), sample([(*f, n) for f in NAME_FIELDS for n in ("class", "match")]))
def test_a_keyword_is_refused_where_a_python_name_is_written(kind: str, key: str, name: str, tmp_path: Path) -> None:
    import keyword

    fields = {k: v for k, v in _op_mapping(kind).items() if k != key}
    value = f"[{name}]" if key == "names" else name
    body = "".join(f"      {k}: {yaml.safe_dump(v, default_style=chr(34)).strip()}\n" for k, v in fields.items())
    text = HEAD + f"modules:\n  m: toypkg.core\nrewrites:\n  - {kind}:\n{body}      {key}: {value}\n"
    entry = write_entry(tmp_path, "X", text, dedent=False)
    try:
        load_patch(entry)
        problems: list[str] = []
    except RegistryError as exc:
        problems = exc.problems
    said = [p for p in problems if f"at rewrites[0].{kind}.{key}" in p and "is a Python keyword" in p]
    assert bool(said) == keyword.iskeyword(name), problems


# --- payload bytes: loaded exactly when Python compiles them -----------------------------------------

TEXTS = {"ascii": '_RP_S = "e"\n', "accented": '_RP_S = "\u00e9t\u00e9"\n', "comment": '# caf\u00e9\n_RP_S = "e"\n'}
ENCODINGS = ("utf-8", "latin-1", "cp1252", "utf-8-sig")
CODINGS = {
    "none": "",
    "latin-1": "# -*- coding: latin-1 -*-\n",
    "utf-8": "# coding: utf-8\n",
    "bogus": "# coding: nope\n",
}


def _payload(text: str, encoding: str, coding: str) -> bytes:
    return (CODINGS[coding] + TEXTS[text] + "\n\ndef _rp_s():\n    return _RP_S\n").encode(encoding)


def _python_reads(data: bytes) -> bool:
    """Python compiles the bytes and decodes them as source (importlib.util.decode_source: what the
    import system, tracebacks and inspect read; CPython's compiler alone lets a bad byte in a comment by)."""
    try:
        compile(data, "payload.py", "exec")
        importlib.util.decode_source(data)
    except (SyntaxError, ValueError):
        return False
    return True


PAYLOADS = sample(list(itertools.product(TEXTS, ENCODINGS, CODINGS, ("insert_definitions", "create_module"))))


@pytest.mark.parametrize(("text", "encoding", "coding", "kind"), PAYLOADS)
def test_a_payload_loads_exactly_when_python_reads_its_bytes(
    text: str, encoding: str, coding: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _payload(text, encoding, coding)
    (tmp_path / "p.py").write_bytes(data)
    op = (
        "insert_definitions: {payload: p.py, before: f}"
        if kind == "insert_definitions"
        else "create_module: {content: p.py}"
    )
    module = "toypkg.core" if kind == "insert_definitions" else "toypkg.new"
    entry = write_entry(tmp_path, "X", HEAD + f"modules:\n  m: {module}\nrewrites:\n  - {op}\n", dedent=False)
    key = "payload" if kind == "insert_definitions" else "content"
    if _python_reads(data) and not (kind == "create_module" and data.startswith(codecs.BOM_UTF8)):
        load_patch(entry)
        return
    problems = load_problems(entry)
    if _python_reads(data):  # a new module is written without a BOM (docs/registry.md, create_module)
        assert len(problems) == 1 and "byte order mark" in problems[0], problems
        return
    assert len(problems) == 1, problems
    assert f"{entry}:" in problems[0] and f"at rewrites[0].{kind}.{key}:" in problems[0], problems
    assert f"{tmp_path / 'p.py'}:" in problems[0], problems
    capsys.readouterr()
    assert main(["--registry", str(tmp_path), "show", "X"]) == 2
    _refused_in_two_lines(capsys.readouterr().err, entry, f"rewrites[0].{kind}.{key}")


def test_a_latin_1_payload_with_its_coding_line_is_applied_and_runs(
    site_with_core: Path, radpatch: Callable[..., Ran], tmp_path: Path
) -> None:
    data = _payload("accented", "latin-1", "latin-1")
    reg = tmp_path / "reg"
    write_entry(
        reg, "X", HEAD + "modules:\n  m: toypkg.core\nrewrites:\n  - insert_definitions: {payload: p.py, before: f}\n"
    )
    (reg / "p.py").write_bytes(data)
    result = radpatch("--registry", str(reg), "apply", "X")
    assert result.code == 0, result
    namespace: dict[str, object] = {}
    exec(compile((site_with_core / "toypkg" / "core.py").read_bytes(), "core.py", "exec"), namespace)
    assert namespace["_rp_s"]() == "\u00e9t\u00e9"  # type: ignore[operator]


@pytest.fixture
def site_with_core(site: Site) -> Path:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": MODULE})
    return site.root


def test_an_empty_payload_is_reported_at_payload(tmp_path: Path) -> None:
    (tmp_path / "p.py").write_text("# nothing\n")
    entry = write_entry(
        tmp_path,
        "X",
        HEAD + "modules:\n  m: toypkg.core\nrewrites:\n  - insert_definitions: {payload: p.py, before: f}\n",
    )
    problems = load_problems(entry)
    assert len(problems) == 1 and "at rewrites[0].insert_definitions.payload:" in problems[0], problems


# --- a byte that is not UTF-8, at each place of a registry file ------------------------------------

PLACES = ("summary", "description", "comment", "key", "find")
BYTES = (b"\xe9", b"\xff", b"\x80", b"\xc3(")


@pytest.mark.parametrize(("place", "bad"), sample(list(itertools.product(PLACES, BYTES))))
def test_a_registry_file_not_in_utf_8_is_refused_at_its_first_bad_byte(
    place: str, bad: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (HEAD + "# a note\nmodules:\n  m: toypkg.core\nrewrites:\n" + REPLACE).encode()
    anchor = {"summary": b"summary: s", "description": b"description: d", "comment": b"# a note"}.get(place)
    anchor = anchor or {"key": b"  m", "find": b"z = x * 2"}[place]
    at = text.index(anchor) + len(anchor)
    data = text[:at] + bad + text[at:]
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(data)
    entry = tmp_path / "X.yaml"
    entry.write_bytes(data)
    line = data.count(b"\n", 0, at) + 1
    column = len(data[data.rfind(b"\n", 0, at) + 1 : at].decode()) + 1
    problems = load_problems(entry)
    assert problems == [problems[0]] and problems[0].startswith(f"{entry}:{line}:{column}: "), problems
    assert "UTF-8" in problems[0] and "\n" not in problems[0], problems
    capsys.readouterr()
    assert main(["--registry", str(tmp_path), "show", "X"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) <= 2


# --- two variants' ranges: refused as overlapping exactly when a release satisfies both --------------

RANGES = ("==1.0", ">=0.5", "<1.0", ">=1.0,<2", ">=2", "~=1.1", "!=1.0", ">1.0", "<=1.0")
GRID = [Version(f"{a}.{b}") for a in range(4) for b in range(10)] + [Version(v) for v in ("1.0.1", "1.0.post1")]
VARIANT = '  - versions: "{v}"\n    replace: {{scope: f, find: "z = x * 2", with: "z = {n}"}}\n'


@pytest.mark.parametrize(("first", "then"), sample(list(itertools.combinations(RANGES, 2))))
def test_variants_whose_ranges_overlap_are_refused_naming_both(first: str, then: str, tmp_path: Path) -> None:
    text = HEAD + "modules:\n  m: toypkg.core\nrewrites:\n" + VARIANT.format(v=first, n=1) + VARIANT.format(v=then, n=2)
    entry = write_entry(tmp_path, "X", text, dedent=False)
    both = [v for v in GRID if v in SpecifierSet(first, prereleases=True) and v in SpecifierSet(then, prereleases=True)]
    if not both:
        load_patch(entry)
        return
    problems = load_problems(entry)
    assert len(problems) == 1 and "at rewrites[1].versions:" in problems[0], problems
    assert "overlaps rewrites[0].versions" in problems[0] and "find`" in problems[0], problems
    assert "fix `find`" not in problems[0]


def test_variants_of_different_code_may_share_a_range(tmp_path: Path) -> None:
    variant = textwrap.dedent(VARIANT).format(v=">=1.0", n=1)
    other = variant.replace("z = x * 2", "return z").replace("z = 1", "return z + 1")
    entry = write_entry(tmp_path, "X", HEAD + "modules:\n  m: toypkg.core\nrewrites:\n" + variant + other, dedent=False)
    load_patch(entry)
