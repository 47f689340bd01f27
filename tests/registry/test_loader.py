"""The registry loader is strict: every problem of a file, each with file:line:col and key path."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.errors import RegistryError
from radpatch.registry.catalog import Registry, shipped_registry
from radpatch.registry.code import MAX_DEPTH
from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops.add_parameter import AddParameter
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from tests.lib.registry import TOY_ENTRY as VALID
from tests.lib.registry import TOY_PAYLOAD as PAYLOAD
from tests.lib.registry import load_problems as problems
from tests.lib.registry import toy_entry_with
from tests.lib.registry import write_toy as write


def test_a_valid_entry_loads_into_typed_records(tmp_path: Path) -> None:
    patch = load_patch(write(tmp_path, VALID))
    assert patch.name == "toy" and patch.distribution == "toypkg"
    assert Version("1.4") in patch.supported and Version("2.0") not in patch.supported
    assert [k.name for k in patch.knobs] == ["TOY_KNOB"]
    assert [c.module for c in patch.modules[0].choices] == ["toypkg.core", "toypkg.planning"]
    assert patch.modules[0].module_for(Version("1.6")).relpath == "toypkg/planning.py"  # type: ignore[union-attr]
    kinds = [type(r.op) for r in patch.rewrites]
    assert kinds == [InsertDefinitions, AddParameter, Replace, InsertStatements]
    assert [r.id for r in patch.rewrites] == ["inject", "add_parameter#2", "call", "insert_after#4"]
    inject = patch.rewrites[0].op
    assert isinstance(inject, InsertDefinitions) and inject.names == ("_rp_helper", "_RpThing")
    assert [r.id for r in patch.rewrites_for(Version("1.1"))] == ["inject", "add_parameter#2", "insert_after#4"]
    assert patch.rewrites[0].location == f"{tmp_path / 'toy.yaml'}:18:5"


def test_the_shipped_registry_is_valid() -> None:
    registry = Registry.discover()
    assert "kv_group_size" in registry.names()
    patch = registry.load("kv_group_size")
    assert patch.source.name == "kv_group_size.yaml" and patch.source.parent.resolve() == shipped_registry().resolve()
    assert Version("0.11.2") not in patch.supported and Version("0.12.0") in patch.supported


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "summary: Toy patch\n",
            "summary: Toy patch\ncolour: blue\n",
            "toy.yaml:2:1: at <top>: unknown key 'colour'; expected one of: ",
        ),
        (
            "      name: cfg\n",
            "      name: cfg\n      nmae: cfg2\n",
            "toy.yaml:25:7: at rewrites[1].add_parameter: unknown key 'nmae'",
        ),
        ("  - id: call\n", "  - id: call\n    scope: groups\n", "toy.yaml:27:5: at rewrites[2]: unknown key 'scope'"),
        (
            'supported: ">=1.0,<2"\n',
            'supported: "=>1.0"\n',
            "toy.yaml:6:12: at supported: '=>1.0' is not a PEP 440 version range",
        ),
        (
            '    versions: ">=1.2"\n',
            '    versions: "1.2+"\n',
            "toy.yaml:27:15: at rewrites[2].versions: '1.2+' is not a PEP 440 version range",
        ),
        (
            "summary: Toy patch\n",
            "summary: [Toy, patch]\n",
            "toy.yaml:1:10: at summary: expected a string, found a list",
        ),
        (
            "      name: cfg\n",
            "      name: {a: 1}\n",
            "toy.yaml:24:13: at rewrites[1].add_parameter.name: expected a string, found a mapping",
        ),
        (
            "      default: None\n",
            "      default: null\n",
            "toy.yaml:25:16: at rewrites[1].add_parameter.default: expected a string, found nothing (null)",
        ),
        (
            "      payload: payload.py\n",
            "      payload: missing.py\n",
            "toy.yaml:20:16: at rewrites[0].insert_definitions.payload: payload 'missing.py' cannot be read",
        ),
        (
            "      before: plan\n",
            "      before: plan\n      names: [_rp_nope]\n",
            "at rewrites[0].insert_definitions.names: payload payload.py defines no top-level '_rp_nope'",
        ),
        (
            '      find: "size = len(spec)"\n',
            '      find: "size = len(spec"\n',
            "toy.yaml:34:13: at rewrites[3].insert_after.find: is not Python code",
        ),
        (
            "      name: cfg\n",
            "      name: 3cfg\n",
            "toy.yaml:24:13: at rewrites[1].add_parameter.name: '3cfg' is not a Python identifier",
        ),
        (
            "      function: plan\n",
            "      function: plan()\n",
            "toy.yaml:23:17: at rewrites[1].add_parameter.function: 'plan()' is not a qualified name",
        ),
        (
            "      module: toypkg.core\n",
            "      module: toypkg/core.py\n",
            "toy.yaml:14:15: at modules.core[0].module: 'toypkg/core.py' is not a dotted module name",
        ),
        (
            "  - id: call\n",
            "  - id: call\n    file: planner\n",
            "toy.yaml:27:11: at rewrites[2].file: 'planner' is not declared under 'modules'",
        ),
        ("  - id: call\n", "  - id: inject\n", "at rewrites: duplicate rewrite id 'inject'"),
        ("  TOY_KNOB:\n", "  toy-knob:\n", "toy.yaml:8:3: at knobs: 'toy-knob' is not an environment variable name"),
        (
            'supported: ">=1.0,<2"\n',
            'supported: ">=1.0,<1' + "0" * 4400 + '"\n',
            "toy.yaml:6:12: at supported: '>=1.0,<1000",
        ),
        (
            '    versions: ">=1.2"\n',
            '    versions: "~=1.' + "9" * 4400 + '"\n',
            "toy.yaml:27:15: at rewrites[2].versions: '~=1.999",
        ),  # (cut to 40 characters)
    ],
    ids=[
        "unknown-top-key",
        "unknown-op-key",
        "unknown-rewrite-key",
        "bad-supported",
        "bad-rewrite-versions",
        "list-for-string",
        "mapping-for-string",
        "null",
        "missing-payload",
        "name-not-in-payload",
        "find-not-python",
        "not-identifier",
        "not-qualname",
        "not-dotted",
        "undeclared-file",
        "duplicate-id",
        "bad-knob-name",
        "supported-number-too-long",
        "versions-number-too-long",
    ],
)
def test_one_problem_is_reported_with_position_and_key_path(
    tmp_path: Path, old: str, new: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert old in VALID
    found = problems(write(tmp_path, VALID.replace(old, new, 1)))
    assert len(found) == 1, found
    assert expected in found[0]
    assert found[0].startswith(str(tmp_path))

    from radpatch.cli import main

    assert main(["--registry", str(tmp_path), "show", "toy"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"radpatch: error: {found[0]}"
    assert len(lines) == 2 and lines[1].startswith("  hint: ")


def test_payload_that_does_not_parse(tmp_path: Path) -> None:
    found = problems(write(tmp_path, VALID, payload="def _rp_helper(:\n    pass\n"))
    assert found == [
        f"{tmp_path / 'toy.yaml'}:20:16: at rewrites[0].insert_definitions.payload: "
        f"payload {tmp_path / 'payload.py'}:1 does not parse: invalid syntax"
    ]


def test_missing_required_keys_are_each_reported(tmp_path: Path) -> None:
    found = problems(write(tmp_path, "summary: s\ndescription: d\n"))
    missing = sorted(p.split("missing required key ")[1] for p in found)
    assert missing == ["'distribution'", "'modules'", "'rewrites'", "'supported'"]
    assert all(p.startswith(f"{tmp_path / 'toy.yaml'}:1:1: at <top>:") for p in found)


def test_two_operations_in_one_rewrite(tmp_path: Path) -> None:
    text = VALID.replace("  - add_parameter:\n", "  - replace: {scope: f, find: x, with: y}\n    add_parameter:\n")
    found = problems(write(tmp_path, text))
    assert len(found) == 1 and "at rewrites[1]: give exactly one operation of:" in found[0]


def test_empty_and_malformed_yaml(tmp_path: Path) -> None:
    assert problems(write(tmp_path, "")) == [
        f"{tmp_path / 'toy.yaml'}:1:1: the file is empty; expected a mapping with keys "
        "description, distribution, modules, rewrites, summary, supported"
    ]
    found = problems(write(tmp_path, "summary: [unclosed\ndescription: d\n"))
    assert len(found) == 1 and "not valid YAML" in found[0] and found[0].startswith(f"{tmp_path / 'toy.yaml'}:")


def test_a_file_with_three_problems_reports_three_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        VALID.replace("summary: Toy patch\n", "summary: Toy patch\ncolour: blue\n")
        .replace("      name: cfg\n", "      name: 3cfg\n")
        .replace('    versions: ">=1.2"\n', '    versions: "=>1.2"\n')
    )
    f = write(tmp_path, text)
    found = problems(f)
    assert [p.split(": at ")[0] for p in found] == [f"{f}:2:1", f"{f}:25:13", f"{f}:28:15"]

    from radpatch.cli import main

    assert main(["--registry", str(tmp_path), "show", "toy"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert lines[0].startswith(f"radpatch: error: {f}:2:1: at <top>: unknown key 'colour'")
    assert [ln.split(": at ")[0] for ln in lines[1:3]] == [f"{f}:25:13", f"{f}:28:15"]
    assert lines[3].startswith("  hint: ") and len(lines) == 4


def test_every_problem_of_one_rewrite_is_reported(tmp_path: Path) -> None:
    # three bad values in one operation: one must not hide the others
    text = (
        VALID.replace("      function: plan\n", "      function: plan()\n")
        .replace("      name: cfg\n", "      name: 3cfg\n")
        .replace("      default: None\n", "      default: (None\n")
    )
    found = problems(write(tmp_path, text))
    assert sorted(p.split(": at ")[1].split(":")[0] for p in found) == [
        "rewrites[1].add_parameter.default",
        "rewrites[1].add_parameter.function",
        "rewrites[1].add_parameter.name",
    ]


def test_a_bad_rewrite_range_does_not_hide_a_bad_find(tmp_path: Path) -> None:
    text = VALID.replace('    versions: ">=1.2"\n', '    versions: "=>1.2"\n').replace(
        "      find: plan(spec)\n", "      find: plan(spec\n"
    )
    found = problems(write(tmp_path, text))
    assert len(found) == 2, found
    assert "rewrites[2].versions" in found[0] and "rewrites[2].replace.find" in found[1]


def test_problems_in_several_files_are_all_reported(tmp_path: Path) -> None:
    write(tmp_path, VALID.replace("summary: Toy patch\n", "summary: Toy patch\ncolour: blue\n"), name="one")
    write(tmp_path, VALID.replace('supported: ">=1.0,<2"\n', 'supported: "=>1"\n'), name="two")
    with pytest.raises(RegistryError) as info:
        Registry.discover((str(tmp_path),)).load_many(["one", "two"])
    assert [Path(p.split(":")[0]).name for p in info.value.problems] == ["one.yaml", "two.yaml"]


# --- YAML that must never be honoured ----------------------------------------------------------


@pytest.mark.parametrize("where", ["summary", "description", "top"])
def test_python_tags_are_never_honoured(tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    tag = f'!!python/object/apply:os.system ["touch {marker}"]'
    if where == "top":
        text = tag + "\n"
    else:
        text = VALID.replace(f"{where}: ", f"{where}: {tag}\nx_{where}: ", 1)
    f = write(tmp_path, text)
    found = problems(f)
    assert found and all(p.startswith(f"{f}:") for p in found)
    assert not marker.exists()

    from radpatch.cli import main

    assert main(["--registry", str(tmp_path), "show", "toy"]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert not marker.exists()


def test_python_name_tag_is_never_honoured(tmp_path: Path) -> None:
    text = VALID.replace("      with: plan(spec, cfg)\n", "      with: !!python/name:os.system\n")
    found = problems(write(tmp_path, text))
    assert len(found) == 1 and "rewrites[2].replace.with" in found[0]


@pytest.mark.parametrize(
    ("old", "new", "tag"),
    [
        ('supported: ">=1.0,<2"', 'supported: !custom ">=1.0,<2"', "!custom"),
        ("description: |", "description: !!binary |", "binary"),
        ("summary: Toy patch", "summary: !!python/str Toy patch", "python/str"),
    ],
    ids=["local-tag", "binary", "python-str"],
)
def test_an_unsupported_tag_is_named_in_the_error(tmp_path: Path, old: str, new: str, tag: str) -> None:
    # "expected a string, found '>=1.0,<2'" would contradict itself: say which tag is refused
    found = problems(write(tmp_path, VALID.replace(old, new, 1)))
    assert len(found) == 1 and tag in found[0], found


def billion_laughs(levels: int = 9) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("use", ["summary: *l8\n", "rewrites: *l8\n", "modules: {core: *l8}\n", "knobs: {A: *l8}\n"])
def test_alias_bomb_is_refused_fast(tmp_path: Path, use: str) -> None:
    f = write(tmp_path, billion_laughs() + use)
    found = problems(f)  # the node budget bounds the work: a few problems, not 9**9 of them
    assert 0 < len(found) < 100
    assert sum(len(p) for p in found) < 20_000


# --- discovery ---------------------------------------------------------------------------------


def test_duplicate_names_across_registries(tmp_path: Path) -> None:
    a, b = write(tmp_path / "a", VALID), write(tmp_path / "b", VALID)
    with pytest.raises(RegistryError) as info:
        Registry.discover((str(a.parent), str(b.parent)))
    assert info.value.problems == [f"{b}: patch name 'toy' is already defined by {a}; rename one of the files"]


def test_a_registry_cannot_shadow_a_shipped_patch(tmp_path: Path) -> None:
    mine = write(tmp_path, VALID, name="kv_group_size")
    with pytest.raises(RegistryError) as info:
        Registry.discover((str(tmp_path),))
    assert len(info.value.problems) == 1
    assert info.value.problems[0].startswith(f"{mine}: patch name 'kv_group_size' is already defined by ")


def test_registry_option_and_environment_variable_both_add_registries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "opt", VALID, name="from_option")
    write(tmp_path / "env1", VALID, name="from_env_one")
    write(tmp_path / "env2", VALID, name="from_env_two")
    monkeypatch.setenv("RADPATCH_REGISTRY", os.pathsep.join([str(tmp_path / "env1"), "", str(tmp_path / "env2")]))
    registry = Registry.discover((str(tmp_path / "opt"),))
    assert {"from_option", "from_env_one", "from_env_two", "kv_group_size"} <= set(registry.names())
    assert registry.load("from_env_two").source == tmp_path / "env2" / "from_env_two.yaml"
    # the same directory named twice is one registry, not a duplicate
    monkeypatch.setenv("RADPATCH_REGISTRY", str(tmp_path / "opt"))
    assert "from_option" in Registry.discover((str(tmp_path / "opt"),)).names()


def test_a_missing_registry_directory_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from radpatch.cli import main

    assert main(["--registry", str(tmp_path / "nope"), "list"]) == 2
    assert f"registry directory '{tmp_path / 'nope'}' (from --registry) does not exist" in capsys.readouterr().err
    monkeypatch.setenv("RADPATCH_REGISTRY", str(tmp_path / "gone"))
    assert main(["list"]) == 2
    assert "(from RADPATCH_REGISTRY) does not exist" in capsys.readouterr().err


def test_list_shows_patches_of_both_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from radpatch.cli import main

    write(tmp_path / "opt", VALID, name="from_option")
    write(tmp_path / "env", VALID.replace("summary: Toy patch", "summary: Env patch"), name="from_env")
    monkeypatch.setenv("RADPATCH_REGISTRY", str(tmp_path / "env"))
    assert main(["--registry", str(tmp_path / "opt"), "list"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert rows["from_option"].split()[1:3] == ["toypkg", ">=1.0,<2"] and rows["from_option"].endswith("Toy patch")
    assert rows["from_env"].endswith("Env patch")


def test_non_yaml_files_are_ignored(tmp_path: Path) -> None:
    write(tmp_path, VALID)
    (tmp_path / "notes.yaml~").write_text("junk: [")
    (tmp_path / "README.md").write_text("# registry\n")
    names = Registry.discover((str(tmp_path),)).names()
    assert "toy" in names and not any(n.startswith(("notes", "README")) for n in names)


# --- entries as a new user types them ---------------------------------------------------------------


def test_an_empty_with_points_to_delete(tmp_path: Path) -> None:
    f = write(tmp_path, toy_entry_with("- replace: {scope: plan, find: x = 1, with: ''}"))
    assert any("is empty" in p and "`delete`" in p for p in problems(f))


def test_a_payload_statement_that_cannot_move_is_refused_with_its_line(tmp_path: Path) -> None:
    f = write(tmp_path, VALID, payload="import os\n\nregister(os)\n\n\ndef _rp_helper():\n    pass\n")
    assert any("payload.py:3: a top-level Expr statement cannot be inserted" in p for p in problems(f))


# Code nested past MAX_DEPTH is refused at load on every interpreter, whether this Python's parser
# gives up on it (3.11, 3.12 at 3,000 terms) or parses it (3.10, 3.13) and a later walk would recurse.
NESTINGS = {
    "sum chain": lambda n: "1+" * n + "1",
    "nested calls": lambda n: "f(" * min(n, 190) + "1" + ")" * min(n, 190) + " + " + "1+" * max(n - 190, 0) + "1",
    "attribute chain": lambda n: "a" + ".b" * n,
    "not chain": lambda n: "not " * n + "x",
}
FIELDS = {
    "find": lambda code: f"- replace: {{scope: plan, find: '{code}', with: '2'}}",
    "with": lambda code: f"- replace: {{scope: plan, find: x = 1, with: 'x = {code}'}}",
    "set_constant value": lambda code: f"- set_constant: {{name: LIMIT, value: '{code}'}}",
}


@pytest.mark.parametrize("depth", [400, 3000])
@pytest.mark.parametrize("field", list(FIELDS))
@pytest.mark.parametrize("nesting", list(NESTINGS))
def test_code_nested_too_deeply_is_a_registry_error_on_every_interpreter(
    nesting: str, field: str, depth: int, tmp_path: Path
) -> None:
    f = write(tmp_path, toy_entry_with(FIELDS[field](NESTINGS[nesting](depth))))
    found = problems(f)
    assert any("nested too deeply" in p and f"{f}:" in p for p in found), found


@pytest.mark.parametrize("field", list(FIELDS))
@pytest.mark.parametrize("nesting", list(NESTINGS))
def test_code_nested_within_the_bound_loads(nesting: str, field: str, tmp_path: Path) -> None:
    code = NESTINGS[nesting](MAX_DEPTH // 4)
    assert load_patch(write(tmp_path, toy_entry_with(FIELDS[field](code)))).rewrites


@pytest.mark.parametrize("nesting", list(NESTINGS))
def test_a_payload_nested_too_deeply_is_a_registry_error(nesting: str, tmp_path: Path) -> None:
    payload = f"def _rp_helper():\n    return {NESTINGS[nesting](3000)}\n\n\nclass _RpThing:\n    pass\n"
    f = write(tmp_path, VALID, payload=payload)
    found = problems(f)
    assert any("payload" in p and "nested too deeply" in p for p in found), found


# --- payload and registry paths that are not regular files ------------------------------------------


def _feed_fifo(fifo: Path, data: bytes) -> threading.Thread:
    """A writer that hands `data` to whoever opens `fifo` for reading (so an old reader that
    blocks on it gets an answer instead of hanging the test)."""

    def feed() -> None:
        # blocks until a reader opens the FIFO; a reader that closes it unread (refusing it) breaks the pipe
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as fh:
            fh.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


def _release(fifo: Path, thread: threading.Thread) -> None:
    """Open the FIFO for reading ourselves so a writer still waiting on it finishes."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        thread.join()
    finally:
        os.close(fd)


def test_a_payload_that_is_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    file = write(tmp_path, VALID, payload=None)
    os.mkfifo(tmp_path / "payload.py")
    writer = _feed_fifo(tmp_path / "payload.py", PAYLOAD.encode())
    try:
        found = problems(file)
    finally:
        _release(tmp_path / "payload.py", writer)
    assert (
        len(found) == 1
        and "at rewrites[0].insert_definitions.payload: payload 'payload.py' cannot be read (not a regular file)"
        in found[0]
    )


def test_a_payload_that_is_a_device_is_refused_not_read(tmp_path: Path) -> None:
    file = write(tmp_path, VALID, payload=None)
    (tmp_path / "payload.py").symlink_to("/dev/null")  # /dev/zero the same: never read at all
    found = problems(file)
    assert len(found) == 1 and "payload 'payload.py' cannot be read (not a regular file): /dev/null" in found[0]


def test_a_payload_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    from radpatch.registry.loader.nodes import MAX_BYTES

    file = write(tmp_path, VALID, payload=PAYLOAD + "#" * MAX_BYTES + "\n")
    found = problems(file)
    assert len(found) == 1 and f"payload 'payload.py' cannot be read (larger than {MAX_BYTES} bytes)" in found[0]


def test_a_registry_file_that_is_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "toy.yaml"
    os.mkfifo(fifo)
    (tmp_path / "payload.py").write_text(PAYLOAD)
    writer = _feed_fifo(fifo, VALID.encode())
    try:
        found = problems(fifo)
    finally:
        _release(fifo, writer)
    assert found == [f"{fifo}: cannot read registry file (not a regular file)"]


def test_code_of_only_comments_is_a_registry_error_naming_the_key(tmp_path: Path) -> None:
    text = VALID.replace('code: "size = _rp_helper(size)"', 'code: "# size = _rp_helper(size)"')
    assert text != VALID
    (problem,) = problems(write(tmp_path, text))
    assert "rewrites[3].insert_after.code" in problem and "holds only comments" in problem
