"""Keep the user docs, the CLI's own help and the shipped registry in agreement.

Docs drift silently: a new option nobody documents, a range copied from last month's registry
(issue 22 found the README saying `>=0.22.0` while the registry said `>=0.12.0`), a link to a page
that moved. Each test here reads what the program or the registry says and compares it with what
README.md and docs/*.md say, both ways where both ways can go wrong.

docs/registry.md's operation reference is generated from the operation specs (the same
declarations the loader and the JSON Schema read): `python -m radpatch.registry.reference` rewrites its
generated blocks, and a test fails while the committed page differs from what the specs render.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from packaging.specifiers import SpecifierSet

from radpatch import errors
from radpatch.cli import cli
from radpatch.registry import json_schema
from radpatch.registry.reference import regenerate
from radpatch.rewrite.ops import OPERATIONS
from tests.lib.registry import write_entry

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CLI_DOC = DOCS / "cli.md"
REGISTRY_DOC = DOCS / "registry.md"
REGISTRY = ROOT / "registry"


def user_docs() -> list[Path]:
    """Every page a user reads: the front page, docs/ and the benchmark notes."""
    pages = [README, *sorted(DOCS.glob("*.md")), ROOT / "benchmarks" / "README.md"]
    return [p for p in pages if p.exists()]


# --- the command line: `radpatch --help` and each command's help against docs/cli.md -----------


def _help(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], prog_name="radpatch")
    assert result.exit_code == 0, result.output
    return result.output


def _help_section(text: str, title: str) -> list[str]:
    """The indented lines of one section (`Options:`, `Commands:`) of click's help text."""
    lines = text.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [line for line in lines if line.startswith("  ")]


def help_commands() -> list[str]:
    return [line.split()[0] for line in _help_section(_help(), "Commands") if not line.startswith("   ")]


def help_options(*command: str) -> set[str]:
    """Long options of `radpatch [COMMAND] --help` (`-h, --help` aside: every command has it)."""
    found: set[str] = set()
    for line in _help_section(_help(*command), "Options"):
        for opt in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", line.split("  ")[1] if line.startswith("  -") else ""):
            found.add(opt)
    return found - {"--help"}


def help_usage(command: str) -> str:
    """`radpatch apply [OPTIONS] NAMES...`: click's usage line for the command."""
    line = _help(command).splitlines()[0]
    assert line.startswith("Usage: "), line
    return line[len("Usage: ") :]


def doc_sections(text: str, level: str = "## ") -> dict[str, str]:
    """Heading -> the text under it, up to the next heading of the same level (code blocks skipped)."""
    out: dict[str, str] = {}
    current: str | None = None
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith(level):
            current = line[len(level) :].strip()
            out[current] = ""
        elif current is not None:
            out[current] += line + "\n"
    return out


def documented_commands() -> dict[str, str]:
    """`## radpatch NAME` sections of docs/cli.md: command name -> its section."""
    sections = doc_sections(CLI_DOC.read_text())
    return {h.split()[1]: body for h, body in sections.items() if re.fullmatch(r"radpatch [a-z][a-z-]*", h)}


def table_options(section: str) -> set[str]:
    """Options a section's option table documents: rows starting `| \\`--name ...\\``."""
    return set(re.findall(r"^\| `(--[a-z][a-z0-9-]*)", section, flags=re.MULTILINE))


def test_every_command_in_the_help_has_a_section_in_cli_md_and_every_section_a_command() -> None:
    commands = help_commands()
    assert commands, "radpatch --help listed no command"
    assert sorted(documented_commands()) == sorted(commands)


@pytest.mark.parametrize("command", help_commands())
def test_each_commands_options_and_usage_match_its_section(command: str) -> None:
    section = documented_commands()[command]
    usage = help_usage(command)
    assert f"`{usage}`" in section, f"docs/cli.md, radpatch {command}: state the usage line as `{usage}`"
    assert table_options(section) == help_options(command), f"docs/cli.md, radpatch {command}: the option table"


def test_the_global_options_match_the_global_options_table() -> None:
    section = doc_sections(CLI_DOC.read_text())["Global options"]
    assert table_options(section) == help_options()
    assert f"`{_help().splitlines()[0][len('Usage: ') :]}`" in section


# --- exit codes ------------------------------------------------------------------------------------


def program_exit_codes() -> set[int]:
    """Every exit code radpatch can end with: errors.py's EXIT_* and the integer literals cli.main returns (Ctrl-C)."""
    codes = {value for name, value in vars(errors).items() if name.startswith("EXIT_") and isinstance(value, int)}
    tree = ast.parse((ROOT / "radpatch" / "cli.py").read_text())
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    codes |= {
        n.value.value
        for n in ast.walk(main)
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, int)
    }
    return codes


def documented_exit_codes(page: Path) -> set[int]:
    section = doc_sections(page.read_text())["Exit codes"]
    return {int(c) for c in re.findall(r"^\| (\d+) \|", section, flags=re.MULTILINE)}


@pytest.mark.parametrize("page", [README, CLI_DOC], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_exit_code_is_documented_and_no_other(page: Path) -> None:
    codes = program_exit_codes()
    assert {0, 1, 2, 3, 4, 70} <= codes  # the reader above found errors.py's codes at all
    assert documented_exit_codes(page) == codes


# --- the shipped registry's range --------------------------------------------------------------

# A PEP 440 range of two or more clauses, e.g. `>=0.12.0,<0.34` (a single clause is a variant's bound).
RANGE = re.compile(r"(?:[<>]=?|[=!~]=)\s*[0-9][\w.*+!]*(?:\s*,\s*(?:[<>]=?|[=!~]=)\s*[0-9][\w.*+!]*)+")
# ... unless "versions" introduces it: a variant's `versions:`, verify's `--versions`, show's `(versions ...`
SELECTS_A_SUBSET = re.compile(r"versions[:=]?\s*[\"'(]?\s*$")


def blocks(text: str) -> Iterator[str]:
    """Paragraphs, tables and whole fenced code blocks: the units a statement of a range lives in."""
    block: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            if block:
                yield "\n".join(block)
            block = []
        else:
            block.append(line)
    if block:
        yield "\n".join(block)


def stated_ranges(text: str, patch: str) -> Iterator[tuple[str, str]]:
    """(range, its block) for each multi-clause range in a block that names `patch`."""
    for block in blocks(text):
        if not re.search(rf"(?<![\w/]){re.escape(patch)}(?![\w])", block):
            continue
        for m in RANGE.finditer(block):
            if not SELECTS_A_SUBSET.search(block[: m.start()]):
                yield m.group(0), block


def shipped_ranges() -> dict[str, str]:
    out = {p.stem: str(yaml.safe_load(p.read_text())["supported"]) for p in sorted(REGISTRY.glob("*.yaml"))}
    assert out, "no shipped registry entry"
    return out


def test_every_range_the_docs_state_for_a_shipped_patch_is_the_registrys() -> None:
    wrong = []
    stated = 0
    for name, supported in shipped_ranges().items():
        for page in user_docs():
            for found, block in stated_ranges(page.read_text(), name):
                stated += 1
                if SpecifierSet(found) != SpecifierSet(supported):
                    wrong.append(
                        f"{page.relative_to(ROOT)}: {found} for {name}, "
                        f"registry/{name}.yaml says {supported}:\n" + textwrap.indent(block, "    | ")
                    )
    assert wrong == []
    assert stated >= 2  # the README and the registry reference state it at least; the check saw them


def test_the_range_check_catches_a_stale_range() -> None:
    """The check above must not pass vacuously: a stale range in a block naming the patch is found,
    a verify --versions selection and a variant's versions are not."""
    text = (
        "kv_group_size supports `>=0.22.0,<0.34`.\n\n"
        'radpatch verify kv_group_size --versions ">=0.32,<0.34"\n\n'
        '- id: choose-size  # kv_group_size\n  versions: ">=0.18.0,<0.27.0"\n'
    )
    assert [r for r, _ in stated_ranges(text, "kv_group_size")] == [">=0.22.0,<0.34"]


# --- links -----------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code, where a [x](y) is not a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to '-'."""
    out: set[str] = set()
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.MULTILINE | re.DOTALL)
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """`page: target: why` for each relative link (and #anchor) of `page` that leads nowhere."""
    broken = []
    for m in LINK.finditer(_prose(page.read_text())):
        target = m.group(1) or m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check offline
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{page.relative_to(root)}: {target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{page.relative_to(root)}: {target}: no heading gives #{anchor}")
    return broken


@pytest.mark.parametrize("page", user_docs(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# There\n\n## Exit codes\n")
    page.write_text(
        "[a](there.md#exit-codes) [b](gone.md) [c](there.md#nowhere) `[d](gone2.md)` [e](https://x.org/y)\n"
        "```\n[f](gone3.md)\n```\n[g](#there)\n"
    )
    assert broken_links(page, tmp_path) == [
        "page.md: gone.md: no such file",
        "page.md: there.md#nowhere: no heading gives #nowhere",
        "page.md: #there: no heading gives #there",
    ]


# --- docs/registry.md: the operation reference, generated from the operation specs ---------------
# (radpatch/registry/reference.py renders it; `python -m radpatch.registry.reference` rewrites it)


def test_the_registry_reference_is_what_the_operation_specs_render() -> None:
    text = REGISTRY_DOC.read_text()
    assert text == regenerate(text), "docs/registry.md is stale: run python -m radpatch.registry.reference"


VARIABLE = re.compile(r"(?<![A-Z_])RADPATCH_[A-Z_]+")


def variables_in(paths: Iterator[Path] | list[Path]) -> set[str]:
    return {v for p in paths for v in VARIABLE.findall(p.read_text(encoding="utf-8"))}


def test_every_environment_variable_radpatch_reads_is_documented() -> None:
    read = variables_in(sorted((ROOT / "radpatch").rglob("*.py")))
    assert read, "the scan found no RADPATCH_ variable in radpatch/"
    assert read - variables_in(user_docs()) == set()


def test_every_documented_environment_variable_is_read_by_radpatch_or_its_tools() -> None:
    code = [*(ROOT / "radpatch").rglob("*.py"), *(ROOT / "harness").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    read = variables_in(code) | variables_in((ROOT / "tools").glob("*.sh"))
    assert variables_in(user_docs()) - read == set()


def test_the_variable_scan_reads_a_variable_and_not_clicks_completion() -> None:
    found = VARIABLE.findall('os.environ.get("RADPATCH_JOBS") or _RADPATCH_COMPLETE=bash_source')
    assert found == ["RADPATCH_JOBS"]


def readme_operations(text: str) -> set[str]:
    """The operations the README's overview paragraph names."""
    paragraph = text[text.index("There are operations for") :].split(":\n", 1)[0]
    return set(re.findall(r"`([a-z_]+)`", paragraph))


def test_the_readme_names_every_operation_and_no_other() -> None:
    assert readme_operations(README.read_text()) == set(OPERATIONS)


def test_the_readme_check_catches_a_missing_operation() -> None:
    text = README.read_text().replace("(`set_keyword`)", "(calls)")
    assert readme_operations(text) == set(OPERATIONS) - {"set_keyword"}


def test_every_operation_has_a_heading_and_an_example_in_the_registry_reference() -> None:
    sections = doc_sections(REGISTRY_DOC.read_text(), "### ")
    for key in OPERATIONS:
        assert f"- {key}:\n" in sections[key], key


def test_every_top_level_key_is_in_the_registry_references_key_table() -> None:
    schema = json_schema.build()
    section = doc_sections(REGISTRY_DOC.read_text())["Top-level keys"]
    documented = set(re.findall(r"^\| `([a-z_]+)`", section, flags=re.MULTILINE))
    assert documented == set(schema["properties"])
    required = set(re.findall(r"^\| `([a-z_]+)` \| required", section, flags=re.MULTILINE))
    assert required == set(schema["required"])


# --- the docs' YAML examples load ------------------------------------------------------------------

PAYLOAD = "../patches/kv_group_size/payload.py"  # the examples' payload path, relative to registry/
HEADER = 'summary: s\ndescription: d\ndistribution: vllm\nsupported: ">=0.1"\nmodules: {core: vllm.core}\nrewrites:\n'


def yaml_examples() -> Iterator[tuple[str, str]]:
    """(where, entry) for each ```yaml block of the docs that is a whole entry or a list of rewrites
    (a rewrite list is put in a minimal entry). Blocks of other shapes (`modules:` alone) are skipped."""
    for page in user_docs():
        text = page.read_text()
        for m in re.finditer(r"^```yaml\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL):
            block = m.group(1)
            where = f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
            if all(re.search(rf"^{key}:", block, flags=re.MULTILINE) for key in ("rewrites", "supported")):
                yield where, block
            elif re.match(r"(\s*#.*\n)*- ", block):
                yield where, HEADER + textwrap.indent(block, "  ")


@functools.cache
def _schema_validator() -> Any:
    """jsonschema.validate's validator for json_schema.build(), the schema checked against its
    metaschema once (validate checks it and builds the validator again on every call)."""
    import jsonschema

    schema = json_schema.build()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def load_problems(entry: str, tmp: Path) -> list[str]:
    """What radpatch's loader and the JSON Schema editors use say about `entry` (nothing: it loads)."""
    import jsonschema

    from radpatch.errors import RegistryError
    from radpatch.registry.loader import load_patch

    if not (tmp / "patches").exists():
        (tmp / "patches").symlink_to(ROOT / "patches")  # payload paths as the shipped registry gives them
    f = write_entry(tmp / "registry", "example", entry, dedent=False)
    try:
        load_patch(f)
    except RegistryError as exc:
        return exc.problems
    # as jsonschema.validate(instance, schema) decides: the best match of the validator's errors
    error = jsonschema.exceptions.best_match(_schema_validator().iter_errors(yaml.safe_load(entry)))
    return [] if error is None else [f"JSON Schema: {error.message}"]


def test_every_yaml_example_in_the_docs_loads(tmp_path: Path) -> None:
    """A reader copies these: each must pass radpatch's own loader and the JSON Schema editors use."""
    examples = list(yaml_examples())
    failures = [f"{where}: {problem}" for where, entry in examples for problem in load_problems(entry, tmp_path)]
    assert failures == []
    assert len(examples) >= 3 + len(OPERATIONS)  # three whole entries at least, and the reference's examples


def test_a_wrong_yaml_example_is_caught(tmp_path: Path) -> None:
    wrong = HEADER + "  - set_default: {function: A.f, parameter: t, to: 900}\n"  # `from` missing
    assert load_problems(wrong, tmp_path) != []


# --- tests/README.md's tier table against the markers tests/conftest.py gives --------------------


def second_tier() -> set[str]:
    """tests/conftest.py's SECOND_TIER, read from its source (a test imports only tests/lib)."""
    tree = ast.parse((ROOT / "tests" / "conftest.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign) and "SECOND_TIER" in ast.unparse(node).split("=")[0]:
            return {ast.literal_eval(e) for e in ast.walk(node.value) if isinstance(e, ast.Constant)}  # type: ignore[arg-type]
    raise AssertionError("tests/conftest.py defines no SECOND_TIER")


def documented_tiers(text: str) -> dict[str, str]:
    rows = re.findall(r"^\| ((?:`[a-z]+`(?:, )?)+) \| .* \| (fast|real) \|$", text, flags=re.MULTILINE)
    return {marker: tier for markers, tier in rows for marker in re.findall(r"`([a-z]+)`", markers)}


def test_the_tests_readme_gives_each_marker_the_tier_conftest_gives_it() -> None:
    tiers = documented_tiers((ROOT / "tests" / "README.md").read_text())
    assert tiers == dict.fromkeys(second_tier(), "real")


def test_the_tier_check_catches_a_marker_in_the_wrong_tier() -> None:
    text = (ROOT / "tests" / "README.md").read_text().replace("offline | real |", "offline | fast |")
    assert documented_tiers(text)["wheel"] == "fast"


def test_the_record_format_state_md_names_is_the_one_radpatch_writes() -> None:
    """docs/state.md says which record format radpatch writes now (att47 #7: it said 4 after 5 came)."""
    from radpatch.state.record_file import FORMAT

    said = re.findall(r"The record carries its `format` \((\d+) now", (DOCS / "state.md").read_text())
    assert said == [str(FORMAT)]
