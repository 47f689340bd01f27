"""rpagree: a small distribution pip-installed from its wheel into a venv, with three entries over
it, for the tests that compare `radpatch status` with the engine-start self-check
(tests/plugin/test_agreement.py): `a` rewrites two files, `b` rewrites a function of `a`'s first
file (stacked on `a` when applied after it), `c` creates a module. radpatch runs in this process
(cli.main, `--python` the venv's interpreter); the self-check is radpatch.plugin, as vLLM calls it.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

from radpatch import plugin
from radpatch.cli import main
from tests.lib.registry import write_entry
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import build_wheel

DIST = "rpagree"
CORE = "rpagree/core.py"
UTIL = "rpagree/util.py"
CREATED = "rpagree/made.py"
FILES: dict[str, str | bytes] = {
    "rpagree/__init__.py": "",
    CORE: "def plan(spec):\n    size = len(spec)\n    return size\n\n\ndef scale(x):\n    return x * 2\n",
    UTIL: "def factor(n):\n    return n * 2\n",
}
ENTRY = """\
summary: s
description: d
distribution: rpagree
supported: ">=1.0,<2"
modules:
{modules}
rewrites:
{rewrites}
"""
ENTRIES = {
    "a": ENTRY.format(
        modules="  core: rpagree.core\n  util: rpagree.util",
        rewrites=(
            '  - id: plan\n    file: core\n    replace: {scope: plan, find: "len(spec)", with: "len(spec) + 1"}\n'
            '  - id: factor\n    file: util\n    replace: {scope: factor, find: "n * 2", with: "n * 3"}'
        ),
    ),
    "b": ENTRY.format(
        modules="  core: rpagree.core",
        rewrites='  - id: scale\n    file: core\n    replace: {scope: scale, find: "x * 2", with: "x * 5"}',
    ),
    "c": ENTRY.format(
        modules="  made: rpagree.made",
        rewrites="  - id: made\n    file: made\n    create_module: {content: made.py}",
    ),
}
PATCHES = tuple(ENTRIES)


@dataclass(frozen=True)
class Template:
    """The wheel, a venv it was pip-installed into (never patched), and the registry."""

    wheels: Path
    venv: Path
    registry: Path


def make_template(base: Path) -> Template:
    wheel = build_wheel(base / "wheels", DIST, "1.0", FILES)
    venv = base / "template"
    template = Target(venv, base / "registry", wheel.parent)
    make_venv(venv)
    template.reinstall()  # by name, as a reinstall does: the same RECORD each time
    registry = base / "registry"
    for name, text in ENTRIES.items():
        write_entry(registry, name, text, {"made.py": "def made():\n    return 1\n"} if name == "c" else None)
    return Template(wheel.parent, venv, registry)


@dataclass
class Target:
    """A private copy of the template venv, and radpatch and the self-check aimed at it."""

    venv: Path
    registry: Path
    wheels: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def site(self) -> Path:
        return site_packages(self.venv)

    def radpatch(self, *argv: str) -> tuple[int, str, str]:
        """cli.main (the real error handler), in this process: exit code, stdout, stderr."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--python", str(self.python), "--registry", str(self.registry), *argv])
        return code, out.getvalue(), err.getvalue()

    def status(self, *names: str) -> dict[str, dict[str, object]]:
        code, out, err = self.radpatch("status", "--json", *names)
        assert code == 0, err
        return {s["patch"]: s for s in json.loads(out)}

    def check_passes(self, name: str) -> bool:
        code, _, err = self.radpatch("status", "--check", name)
        assert code in (0, 3), err  # 3: the check failed; anything else is no answer
        assert "Traceback" not in err
        return code == 0

    def engine(self, *required: str) -> dict[str, plugin.PatchCheck]:
        return {c.name: c for c in plugin.check(self.site, required, DIST)}

    def reinstall(self, version: str = "1.0") -> None:
        """What `pip install --force-reinstall` of the wheel does (radpatch's .radpatch/ stays)."""
        pip(
            self.python,
            "install",
            "--force-reinstall",
            "--no-deps",
            "--no-index",
            "--no-compile",
            "--quiet",
            "--find-links",
            str(self.wheels),
            f"{DIST}=={version}",
        )

    def stale_dist_info(self, present: bool) -> None:
        """A leftover dist-info of an older version beside the installed one (or none)."""
        stale = self.site / f"{DIST}-0.9.dist-info"
        if not present:
            shutil.rmtree(stale, ignore_errors=True)
            return
        if stale.exists():
            return
        (current,) = self.site.glob(f"{DIST}-1.*.dist-info")
        shutil.copytree(current, stale)
        meta = stale / "METADATA"
        meta.write_text(meta.read_text().replace("Version: 1.", "Version: 0.9.", 1))


def fresh(template: Template, dest: Path) -> Target:
    shutil.copytree(template.venv, dest, symlinks=True)
    return Target(dest, template.registry, template.wheels)


def engine_starts(site: Path, required: str, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether radpatch.plugin.register, as vLLM calls it, lets an engine whose vLLM (the
    stand-in: rpagree) is imported from `site` start with RADPATCH_REQUIRE=`required`."""
    module = types.ModuleType("vllm")
    module.__file__ = str(site / "rpagree" / "__init__.py")
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "vllm", module)
        m.setattr(plugin, "_own_site", lambda root: True)  # the venv's site-packages stands for the engine's
        m.setenv(plugin.REQUIRE_ENV, required)
        try:
            plugin.register()
        except plugin.RequiredPatchMissing:
            return False
    return True


def same_state(seen: plugin.PatchCheck, status: dict[str, object]) -> bool:
    """The self-check's state is status's (`not applied` is `not-applied`, and so on)."""
    return seen.state.value.replace(" ", "-") == status["state"]
