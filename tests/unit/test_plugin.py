"""The engine-start self-check (radpatch/plugin.py) on a fake site-packages; the real-engine
tests (tests/real/test_engine_e2e.py) run the same entry point through vLLM's plugin loader."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from radpatch import plugin
from radpatch.plugin import RequiredPatchMissing, Seen

Site = Any  # tests/conftest.py's Site


@pytest.fixture
def as_vllm(site: Site, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make `site` the site-packages the (stand-in) vllm package was imported from."""
    module = types.ModuleType("vllm")
    module.__file__ = str(site.root / "toypkg" / "__init__.py")
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.delenv(plugin.REQUIRE_ENV, raising=False)
    return Path(site.root)


def _line(caplog: pytest.LogCaptureFixture) -> str:
    (rec,) = [r for r in caplog.records if r.name == plugin.LOGGER]
    return rec.getMessage()


def test_nothing_recorded(as_vllm: Path, toy: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=plugin.LOGGER)
    plugin.register()
    assert _line(caplog).startswith(f"[radpatch] self-check of {as_vllm.resolve()}: no radpatch patch recorded [")


def test_applied_then_drifted(as_vllm: Path, toy: Path, radpatch, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    (check,) = plugin.check(as_vllm)
    digest = json.loads(radpatch("--registry", str(toy), "status", "--json", "toy").out)[0]["registry_digest"]
    assert (check.name, check.state, check.detail) == ("toy", Seen.APPLIED, "")
    assert check.describe() == f"toy applied (registry {digest[:12]}, toypkg 1.0)"
    core = as_vllm / "toypkg" / "core.py"
    core.write_text(core.read_text() + "\n# edited\n")
    (check,) = plugin.check(as_vllm)
    assert check.state is Seen.DRIFTED and "toypkg/core.py changed since radpatch wrote it" in check.detail


def test_record_left_behind_by_a_reinstall_counts_as_not_applied(site: Site, as_vllm: Path, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    pristine = {p: (as_vllm / p).read_bytes() for p in ("toypkg/core.py", "toypkg/util.py")}
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    for rel, data in pristine.items():  # what `pip install --force-reinstall` would do
        (as_vllm / rel).write_bytes(data)
    (check,) = plugin.check(as_vllm)
    assert check.state is Seen.NOT_APPLIED and "toypkg/core.py is the pristine file" in check.detail


def test_require_refuses_with_a_clear_message(as_vllm: Path, toy: Path, monkeypatch: pytest.MonkeyPatch, radpatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy, toy")
    with pytest.raises(RequiredPatchMissing) as err:
        plugin.register()
    assert str(err.value).startswith("refusing to start: RADPATCH_REQUIRE requires toy, but in ")
    assert "toy is not applied (no record)" in str(err.value) and "radpatch apply toy --python " in str(err.value)
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    plugin.register()  # now satisfied: no exception


def test_errors_are_logged_and_swallowed_unless_required(as_vllm: Path, toy: Path, monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    (as_vllm / ".radpatch").mkdir()
    (as_vllm / ".radpatch" / "record.json").write_text("{ not json")
    caplog.set_level(logging.INFO, logger=plugin.LOGGER)
    plugin.register()
    assert _line(caplog).startswith("[radpatch] self-check failed (EnvironmentProblem: ")
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy")
    with pytest.raises(RequiredPatchMissing, match="is set but the self-check failed"):
        plugin.register()


def test_no_vllm_imported_is_an_error_not_a_crash(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delitem(sys.modules, "vllm", raising=False)
    monkeypatch.delenv(plugin.REQUIRE_ENV, raising=False)
    caplog.set_level(logging.INFO, logger=plugin.LOGGER)
    plugin.register()
    assert "vllm is not imported in this process" in _line(caplog)


def test_imports_only_hashing_code(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    code = ("import sys, types, json; from pathlib import Path; m = types.ModuleType('vllm'); "
            f"m.__file__ = {str(site.root / 'toypkg' / '__init__.py')!r}; sys.modules['vllm'] = m; "
            "import radpatch.plugin as p; p.register(); (c,) = p.check(Path(m.__file__).parent.parent); "
            "print(json.dumps([c.state.value] + [n in sys.modules for n in "
            "('libcst', 'yaml', 'radpatch.plan', 'radpatch.schema', 'radpatch.state', 'click')]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == ["applied", False, False, False, False, False, False]
