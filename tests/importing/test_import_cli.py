"""`radpatch import` through its command line on a pip-installed wheel: series ordering
(`requires:`), new modules (`create_module`), and every refusal a user can cause, each one or two
lines naming the patch file, the target file and the hunk."""

from __future__ import annotations

import ast
import itertools
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.lib.generated import sample
from tests.lib.importing import PACKAGE, Venv, gnu_patch
from tests.lib.registry import write_entry

pytestmark = pytest.mark.wheel

REL = f"{PACKAGE}/std_textwrap.py"


def _diff(tmp: Path, rel: str, before: str | None, after: str | None) -> str:
    """A git-style diff of one file (new or deleted files with /dev/null), as `git diff --no-index` writes it."""
    a, b = tmp / "a" / rel, tmp / "b" / rel
    for p, t in ((a, before), (b, after)):
        p.parent.mkdir(parents=True, exist_ok=True)
        if t is None:
            p.unlink(missing_ok=True)
        else:
            p.write_text(t)
    left = f"a/{rel}" if before is not None else "/dev/null"
    right = f"b/{rel}" if after is not None else "/dev/null"
    out = subprocess.run(
        ["git", "diff", "--no-index", left, right], cwd=tmp, capture_output=True, text=True, check=False
    )
    assert out.returncode == 1, out.stderr
    return out.stdout.replace(f"a/a/{rel}", f"a/{rel}").replace(f"b/b/{rel}", f"b/{rel}")


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_series_stacks_in_order_and_later_entries_require_earlier_ones(venv: Venv, tmp_path: Path) -> None:
    original = (venv.site / REL).read_text()
    step1 = original.replace(
        "        self.width = width\n", "        self.width = width\n        self.rp_first = 1\n", 1
    )
    step2 = step1.replace("        self.rp_first = 1\n", "        self.rp_first = 2\n", 1)
    new_module = f"{PACKAGE}/sub/helpers.py"
    p1 = _write(
        tmp_path / "0001-first.patch",
        "From x\nSubject: [PATCH 1/3] First change\n\n---\n" + _diff(tmp_path / "d1", REL, original, step1),
    )
    p2 = _write(tmp_path / "0002-new-module.patch", _diff(tmp_path / "d2", new_module, None, "VALUE = 1\n"))
    p3 = _write(
        tmp_path / "0003-second.patch",
        _diff(tmp_path / "d3", REL, step1, step2) + _diff(tmp_path / "d4", new_module, "VALUE = 1\n", "VALUE = 2\n"),
    )
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(p1), str(p2), str(p3), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    first = yaml.safe_load((reg / "0001-first.yaml").read_text())
    created = yaml.safe_load((reg / "0002-new-module.yaml").read_text())
    second = yaml.safe_load((reg / "0003-second.yaml").read_text())
    assert first["summary"] == "First change" and "requires" not in first
    assert first["rewrites"] == [
        {
            "id": "insert-TextWrapper.__init__",
            "insert_after": {
                "scope": "TextWrapper.__init__",
                "find": "self.width = width\n",
                "code": "self.rp_first = 1\n",
            },
        }
    ]
    assert created["modules"] == {"helpers": f"{PACKAGE}.sub.helpers"}
    assert created["rewrites"] == [
        {"id": "create-helpers", "create_module": {"content": f"0002-new-module/{new_module}"}}
    ]
    assert (reg / "0002-new-module" / new_module).read_text() == "VALUE = 1\n"
    assert second["requires"] == ["0001-first", "0002-new-module"]
    # the second entry is computed against what the first left: it changes the first's line
    assert second["rewrites"] == [
        {
            "id": "replace-TextWrapper.__init__",
            "file": "std_textwrap",
            "replace": {"scope": "TextWrapper.__init__", "find": "self.rp_first = 1\n", "with": "self.rp_first = 2\n"},
        },
        {"id": "constant-VALUE", "file": "helpers", "set_constant": {"name": "VALUE", "from": "1", "value": "2"}},
    ]
    assert (venv.site / REL).read_text() == original  # import writes nothing to the installed files


def test_the_first_entry_applies_and_reverts_with_the_engine_of_today(venv: Venv, tmp_path: Path) -> None:
    original = (venv.site / REL).read_text()
    changed = original.replace("_whitespace = '\\t\\n\\x0b\\x0c\\r '", "_whitespace = '\\t\\n\\x0b\\x0c '", 1)
    assert changed != original
    patch = _write(tmp_path / "ws.patch", _diff(tmp_path / "d", REL, original, changed))
    reg = tmp_path / "reg"
    assert (
        venv.radpatch(
            "import", str(patch), "-p1", "--out", str(reg), "--name", "ws", "--supported", ">=1,<2"
        ).returncode
        == 0
    )
    entry = yaml.safe_load((reg / "ws.yaml").read_text())
    assert entry["supported"] == ">=1,<2"
    assert entry["rewrites"] == [
        {
            "id": "constant-_whitespace",
            "set_constant": {"name": "_whitespace", "from": "'\\t\\n\\x0b\\x0c\\r '", "value": "'\\t\\n\\x0b\\x0c '"},
        }
    ]
    assert venv.radpatch("--registry", str(reg), "apply", "ws").returncode == 0
    expected = tmp_path / "gnu"
    (expected / REL).parent.mkdir(parents=True)
    (expected / REL).write_text(original)
    assert gnu_patch(expected, patch, 1).returncode == 0
    assert (venv.site / REL).read_bytes() == (expected / REL).read_bytes()
    assert venv.radpatch("--registry", str(reg), "revert", "ws").returncode == 0
    assert (venv.site / REL).read_text() == original


def _refusal(venv: Venv, tmp_path: Path, patch_text: str, *args: str) -> str:
    patch = _write(tmp_path / "bad.patch", patch_text)
    out = venv.radpatch("import", str(patch), "--out", str(tmp_path / "reg"), *args)
    assert out.returncode in (1, 2), out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 2, out.stderr
    assert not (tmp_path / "reg").exists()  # nothing half-written
    return out.stderr


def test_a_hunk_that_does_not_apply_is_named_as_patch_dry_run_names_it(venv: Venv, tmp_path: Path) -> None:
    original = (venv.site / REL).read_text()
    changed = original.replace("        self.width = width\n", "        self.width = width + 0\n", 1)
    changed = changed.replace("def dedent(text):", "def dedent(text, strict=False):", 1)
    text = _diff(tmp_path / "d", REL, original, changed)
    broken = text.replace("def dedent(text):", "def dedent(txt):")  # hunk 2's old side is not in the file
    (tmp_path / "w" / REL).parent.mkdir(parents=True)
    (tmp_path / "w" / REL).write_text(original)
    (tmp_path / "broken.patch").write_text(broken)
    said = gnu_patch(tmp_path / "w", tmp_path / "broken.patch", 1, "--dry-run").stdout
    failed = next(line for line in said.splitlines() if "FAILED at" in line)
    err = _refusal(venv, tmp_path, broken, "-p1")
    assert f"bad.patch: {REL}: {failed}" in err and "(1 out of 2 hunks FAILED)" in err


def test_a_patch_already_applied_says_so(venv: Venv, tmp_path: Path) -> None:
    original = (venv.site / REL).read_text()
    changed = original.replace("        self.width = width\n", "        self.width = width\n        self.rp = 1\n", 1)
    forward = _diff(tmp_path / "d", REL, original, changed)
    (venv.site / REL).write_text(changed)  # an earlier `patch` step of the image applied it already
    err = _refusal(venv, tmp_path, forward, "-p1")
    assert "Reversed (or previously applied) patch detected! Skipping patch." in err, err  # GNU patch's words
    assert "the installed file already has this change" in err, err


def test_what_radpatch_cannot_express_is_refused_by_name(venv: Venv, tmp_path: Path) -> None:
    err = _refusal(
        venv, tmp_path, _diff(tmp_path / "d1", f"{PACKAGE}/data.txt", "not python\n", "still not python\n"), "-p1"
    )
    assert f"{PACKAGE}/data.txt is not a Python module" in err
    binary = (
        f"diff --git a/{PACKAGE}/x.bin b/{PACKAGE}/x.bin\nindex 1234567..89abcde 100644\n"
        f"Binary files a/{PACKAGE}/x.bin and b/{PACKAGE}/x.bin differ\n"
    )
    assert f"binary patch for {PACKAGE}/x.bin: radpatch (like GNU patch) cannot apply it" in _refusal(
        venv, tmp_path, binary, "-p1"
    )
    deleted = _diff(
        tmp_path / "d2", f"{PACKAGE}/std_fnmatch.py", (venv.site / PACKAGE / "std_fnmatch.py").read_text(), None
    )
    assert "deletes this module" in _refusal(venv, tmp_path, deleted, "-p1")


def test_paths_resolve_as_patch_p_and_d_resolve_them(venv: Venv, tmp_path: Path) -> None:
    original = (venv.site / REL).read_text()
    changed = original.replace("        self.width = width\n", "        self.width = width\n        self.rp = 1\n", 1)
    text = _diff(tmp_path / "d", REL, original, changed)
    err = _refusal(venv, tmp_path, text)  # no -p: patch keeps the base name, which is not in the site directory
    assert "can't find file to patch" in err and "-p" in err
    inside = text.replace(f"a/{REL}", "a/std_textwrap.py").replace(f"b/{REL}", "b/std_textwrap.py")
    out = venv.radpatch(
        "import", str(_write(tmp_path / "in.patch", inside)), "-p1", "-d", PACKAGE, "--out", str(tmp_path / "r2")
    )
    assert out.returncode == 0, out.stderr
    assert yaml.safe_load((tmp_path / "r2" / "in.yaml").read_text())["modules"] == {
        "std_textwrap": f"{PACKAGE}.std_textwrap"
    }
    assert "no such directory" in _refusal(venv, tmp_path, text, "-p1", "-d", "nope")


def test_an_existing_entry_is_never_overwritten(venv: Venv, tmp_path: Path) -> None:
    original = (venv.site / REL).read_text()
    changed = original.replace("        self.width = width\n", "        self.width = width\n        self.rp = 1\n", 1)
    patch = _write(tmp_path / "p.patch", _diff(tmp_path / "d", REL, original, changed))
    reg = tmp_path / "reg"
    write_entry(reg, "p", "mine\n")  # not an entry: any file there already
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 1 and "exists already" in out.stderr
    assert (reg / "p.yaml").read_text() == "mine\n"


def test_creating_a_module_that_exists_is_refused_as_patch_refuses_it(venv: Venv, tmp_path: Path) -> None:
    text = _diff(tmp_path / "d", f"{PACKAGE}/std_shlex.py", None, "X = 1\n")
    err = _refusal(venv, tmp_path, text, "-p1")
    assert f"Patch attempted to create file {PACKAGE}/std_shlex.py, which already exists" in err


def test_a_new_module_given_as_a_plus_zero_hunk_on_a_missing_file_is_created(venv: Venv, tmp_path: Path) -> None:
    # real series write new files both ways: `--- /dev/null`, and `--- a/path` with `@@ -0,0 +1,N @@`
    rel = f"{PACKAGE}/sub/plain_new.py"
    text = f"--- a/{rel}\n+++ b/{rel}\n@@ -0,0 +1,2 @@\n+A = 1\n+B = 2\n"
    patch = _write(tmp_path / "plain.patch", text)
    gnu = tmp_path / "gnu"
    (gnu / PACKAGE / "sub").mkdir(parents=True)
    assert gnu_patch(gnu, patch, 1).returncode == 0
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg"))
    assert out.returncode == 0, out.stderr
    entry = yaml.safe_load((tmp_path / "reg" / "plain.yaml").read_text())
    assert entry["rewrites"] == [{"id": "create-plain_new", "create_module": {"content": f"plain/{rel}"}}]
    assert (tmp_path / "reg" / "plain" / rel).read_bytes() == (gnu / rel).read_bytes()


def test_include_and_exclude_leave_sections_out_and_say_which(venv: Venv, tmp_path: Path) -> None:
    # a Debian-style patch: a module, a doc page and a test outside the package, in one file
    original = (venv.site / REL).read_text()
    changed = original.replace("        self.width = width\n", "        self.width = width\n        self.rp = 1\n", 1)
    text = (
        "Subject: [PATCH] Fix width\n\n---\n"
        + _diff(tmp_path / "d1", REL, original, changed)
        + _diff(tmp_path / "d2", "docs/width.rst", "Width\n", "Width, fixed\n")
        + _diff(tmp_path / "d3", f"{PACKAGE}/data.txt", "not python\n", "still not python\n")
    )
    patch = _write(tmp_path / "0001-fix.patch", text)
    err = _refusal(venv, tmp_path, text, "-p1")
    assert "can't find file to patch" in err and "--exclude" in err  # docs/width.rst is not installed
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", f"--include={PACKAGE}/*.py", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    assert "  left out: b/docs/width.rst (1 hunk)" in out.stdout.splitlines()
    assert f"  left out: b/{PACKAGE}/data.txt (1 hunk)" in out.stdout.splitlines()
    entry = yaml.safe_load((reg / "0001-fix.yaml").read_text())
    assert entry["modules"] == {"std_textwrap": f"{PACKAGE}.std_textwrap"} and len(entry["rewrites"]) == 1
    # --exclude alone: the doc page and the data file named, the module kept
    out = venv.radpatch(
        "import", str(patch), "-p1", "--exclude=docs/*", f"--exclude={PACKAGE}/*.txt", "--out", str(tmp_path / "r2")
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "r2" / "0001-fix.yaml").exists()
    # left out whole: no entry, said so; everything left out: a usage error
    docs_only = _write(tmp_path / "0002-docs.patch", _diff(tmp_path / "d4", "docs/a.rst", "A\n", "B\n"))
    out = venv.radpatch(
        "import", str(patch), str(docs_only), "-p1", f"--include={PACKAGE}/*.py", "--out", str(tmp_path / "r3")
    )
    assert out.returncode == 0, out.stderr
    assert f"{docs_only}: left out (no section is imported)" in out.stdout
    assert not (tmp_path / "r3" / "0002-docs.yaml").exists()
    out = venv.radpatch("import", str(docs_only), "-p1", "--include=nothing/*", "--out", str(tmp_path / "r4"))
    assert out.returncode == 2 and "left out every section" in out.stderr and not (tmp_path / "r4").exists()


def test_refusals_name_the_exclude_that_leaves_the_section_out(venv: Venv, tmp_path: Path) -> None:
    err = _refusal(
        venv, tmp_path, _diff(tmp_path / "d1", f"{PACKAGE}/data.txt", "not python\n", "still not python\n"), "-p1"
    )
    assert f"--exclude '{PACKAGE}/data.txt'" in err
    deleted = _diff(
        tmp_path / "d2", f"{PACKAGE}/std_fnmatch.py", (venv.site / PACKAGE / "std_fnmatch.py").read_text(), None
    )
    assert f"--exclude '{PACKAGE}/std_fnmatch.py'" in _refusal(venv, tmp_path, deleted, "-p1")
    # a change the syntax tree does not see (a comment, a shebang) would be an entry that says nothing
    original = (venv.site / REL).read_text()
    commented = original.replace("        self.width = width\n", "        self.width = width  # columns\n", 1)
    err = _refusal(venv, tmp_path, _diff(tmp_path / "d3", REL, original, commented), "-p1")
    assert "changes only comments or layout" in err and f"--exclude '{REL}'" in err


def test_a_statement_moved_up_is_deleted_before_its_copy_is_inserted(venv: Venv, tmp_path: Path) -> None:
    # found on a real vLLM 0.9.0 series (omni-infer's scheduler patch moves a statement above
    # another): deleted after the insertion, the old statement is the second of two matches, and
    # an `occurrence:` counted in the installed file cannot name it; deleted first, it is unique
    original = (venv.site / REL).read_text()
    moved = original.replace("        self.tabsize = tabsize\n", "", 1).replace(
        "        self.width = width\n", "        self.tabsize = tabsize\n        self.width = width\n", 1
    )
    patch = _write(tmp_path / "move.patch", _diff(tmp_path / "d", REL, original, moved))
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    entry = yaml.safe_load((reg / "move.yaml").read_text())
    assert [next(k for k in r if k not in ("id", "file")) for r in entry["rewrites"]] == ["delete", "insert_before"]
    assert "occurrence" not in entry["rewrites"][0]["delete"]
    gnu = tmp_path / "gnu"
    (gnu / PACKAGE).mkdir(parents=True)
    (gnu / REL).write_text(original)
    assert gnu_patch(gnu, patch, 1).returncode == 0
    applied = venv.radpatch("--registry", str(reg), "apply", "move")
    assert applied.returncode == 0, applied.stderr
    assert ast.dump(ast.parse((venv.site / REL).read_text())) == ast.dump(ast.parse((gnu / REL).read_text()))
    assert venv.radpatch("--registry", str(reg), "revert", "move").returncode == 0
    assert (venv.site / REL).read_text() == original


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_patch_path_that_is_not_a_regular_file_is_refused_without_reading_it(
    venv: Venv, tmp_path: Path, kind: str
) -> None:
    """A named pipe would block a plain read forever (no writer ever comes): it is refused at once."""
    path = tmp_path / "odd.patch"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    r = venv.radpatch("import", str(path), "--out", str(tmp_path / "out"))
    assert r.returncode == 2, (r.returncode, r.stderr)
    said = "cannot read the patch file (not a regular file)" if kind == "fifo" else "is a directory"
    assert str(path) in r.stderr and said in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


def test_patch_files_laid_out_like_the_tree_get_entry_names_from_their_directories(venv: Venv, tmp_path: Path) -> None:
    # a series kept as <path of the module>.patch (Emu3.5's vLLM series): the same file name twice
    names = {}
    for directory, module in (("configs", "std_textwrap"), ("models", "std_shlex")):
        rel = f"{PACKAGE}/{module}.py"
        original = (venv.site / rel).read_text()
        changed = _with_line(original)
        path = tmp_path / "series" / directory / "__init__.py.patch"
        path.parent.mkdir(parents=True)
        names[directory] = _write(path, _diff(tmp_path / directory, rel, original, changed))
    reg = tmp_path / "reg"
    out = venv.radpatch("import", *map(str, names.values()), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in reg.glob("*.yaml")) == ["configs-__init__.py.yaml", "models-__init__.py.yaml"]
    twice = venv.radpatch("import", str(names["configs"]), str(names["configs"]), "-p1", "--out", str(tmp_path / "r2"))
    assert twice.returncode == 2 and f"{names['configs']}: the same patch file is given twice" in twice.stderr, (
        twice.stderr
    )


def _with_line(text: str) -> str:
    """A module with one statement added to its first function's body (after its first line)."""
    lines = text.splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.startswith("def "))
    body = next(
        i
        for i in range(at + 1, len(lines))
        if lines[i].startswith("    ") and lines[i].strip() and not lines[i].strip().startswith(('"', "'", "#"))
    )
    return "".join([*lines[:body], "    rp_added = 1\n", *lines[body:]])


def test_supported_leaving_out_the_installed_version_warns_in_one_line(venv: Venv, tmp_path: Path) -> None:
    original = (venv.site / REL).read_text()
    changed = original.replace("        self.width = width\n", "        self.width = width + 1\n", 1)
    patch = _write(tmp_path / "w.patch", _diff(tmp_path / "d", REL, original, changed))
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg), "--supported", ">=2")
    assert out.returncode == 0, out.stderr
    assert yaml.safe_load((reg / "w.yaml").read_text())["supported"] == ">=2"  # written as asked
    warned = [ln for ln in out.stderr.splitlines() if "warning" in ln]
    assert warned == [
        "radpatch: warning: --supported '>=2' leaves out the installed rpimport-corpus 1.0.0: "
        "w will not apply here (status reads incompatible)"
    ], out.stderr
    status = venv.radpatch("--registry", str(reg), "status", "w")
    assert "incompatible" in status.stdout, status.stdout
    inside = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg2"), "--supported", ">=1,<2")
    assert inside.returncode == 0 and "warning" not in inside.stderr, inside.stderr


def test_a_new_module_that_defines_a_function_twice_imports_applies_and_reverts(venv: Venv, tmp_path: Path) -> None:
    """Python runs a module that defines `f` twice (the second wins); a patch that creates one is
    imported as create_module, and apply creates it as the diff has it."""
    rel = f"{PACKAGE}/sub/twice.py"
    text = "def f():\n    return 1\n\n\ndef f():\n    return 2\n"
    patch = _write(tmp_path / "twice.patch", _diff(tmp_path / "d", rel, None, text))
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    applied = venv.radpatch("--registry", str(reg), "apply", "twice")
    assert applied.returncode == 0, applied.stderr
    assert (venv.site / rel).read_text() == text
    reverted = venv.radpatch("--registry", str(reg), "revert", "twice")
    assert reverted.returncode == 0, reverted.stderr
    assert not (venv.site / rel).exists()


PREFIXES = {"git": ("a/", "b/"), "one-dir": ("src/", "src/"), "two-dirs": ("x/y/", "x/y/")}


def test_a_file_found_with_another_p_is_named_with_that_p(venv: Venv, tmp_path: Path) -> None:
    """The name the patch writes, stripped by another -p, is an installed file: the hint gives that
    -p first (not a series' earlier patches, though the file is numbered as a later one), the one
    GNU patch applies it with, and the message names each candidate once."""
    original = (venv.site / REL).read_text()
    changed = original.replace("        self.width = width\n", "        self.width = width\n        self.rp = 1\n", 1)
    plain = _diff(tmp_path / "d", REL, original, changed)
    cases = sample(itertools.product(PREFIXES, (None, 0, 3), ("0002-fix.patch",)))
    for n, (prefix, given, label) in enumerate(cases):
        old, new = PREFIXES[prefix]
        text = plain.replace(f"a/{REL}", f"{old}{REL}").replace(f"b/{REL}", f"{new}{REL}")
        right = old.count("/")
        if given == right:
            continue
        case = tmp_path / f"case{n}"
        case.mkdir()
        patch = _write(case / label, text)
        out = venv.radpatch(
            "import", str(patch), "--out", str(case / "reg"), *([f"-p{given}"] if given is not None else [])
        )
        assert out.returncode in (1, 2) and "Traceback" not in out.stderr, out.stderr
        assert "can't find file to patch" in out.stderr, out.stderr
        said = re.search(r"the file is there with -p(\d+) \(([^)]*)\): give -p\1", out.stderr)
        assert said is not None and "earlier patches" not in out.stderr, out.stderr
        assert int(said.group(1)) == right and said.group(2) == REL, out.stderr
        names = re.search(r"\(names: ([^)]*)\)", out.stderr)
        assert names is not None and len(set(names.group(1).split(", "))) == len(names.group(1).split(", "))
        gnu = case / "gnu"
        (gnu / PACKAGE).mkdir(parents=True)
        (gnu / REL).write_text(original)
        assert gnu_patch(gnu, patch, int(said.group(1)), "--dry-run").returncode == 0
