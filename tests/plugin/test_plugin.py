"""The engine-start self-check (radpatch/plugin.py) on a fake site-packages; the real-engine
tests (tests/flagship/test_vllm_engine.py) run the same entry point through vLLM's plugin loader."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from radpatch import plugin
from radpatch.plugin import RequiredPatchMissing, Seen
from radpatch.state import engine_start
from tests.lib.fifo import fifo_in_place_of
from tests.lib.hints import hinted, usage_error, without_python
from tests.lib.site import Site


@pytest.fixture
def as_vllm(site: Site, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make `site` the site-packages the (stand-in) vllm package was imported from."""
    module = types.ModuleType("vllm")
    module.__file__ = str(site.root / "toypkg" / "__init__.py")
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.delenv(plugin.REQUIRE_ENV, raising=False)
    monkeypatch.setattr(plugin, "_own_site", lambda root: True)  # the fake site stands for the interpreter's
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
    core.write_text(core.read_text() + "\n# edited\n")  # issue 21: a comment is not code, so not drift
    (check,) = plugin.check(as_vllm)
    assert check.state is Seen.APPLIED, check
    core.write_text(core.read_text() + "EDITED = 1\n")  # a line of code is
    (check,) = plugin.check(as_vllm)
    assert check.state is Seen.DRIFTED and "toypkg/core.py changed since radpatch wrote it" in check.detail


def test_record_left_behind_by_a_reinstall_counts_as_not_applied(
    site: Site, as_vllm: Path, toy: Path, radpatch
) -> None:  # type: ignore[no-untyped-def]
    pristine = {p: (as_vllm / p).read_bytes() for p in ("toypkg/core.py", "toypkg/util.py")}
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    for rel, data in pristine.items():  # what `pip install --force-reinstall` would do
        (as_vllm / rel).write_bytes(data)
    (check,) = plugin.check(as_vllm)
    assert check.state is Seen.NOT_APPLIED and "toypkg/core.py is the pristine file" in check.detail


def test_require_refuses_with_a_clear_message(
    as_vllm: Path, toy: Path, monkeypatch: pytest.MonkeyPatch, radpatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy, toy")
    with pytest.raises(RequiredPatchMissing) as err:
        plugin.register()
    assert str(err.value).startswith("refusing to start: RADPATCH_REQUIRE requires toy, but in ")
    assert "toy is not applied (no record)" in str(err.value)
    (argv,) = hinted(str(err.value))  # the command the refusal names, followed as printed
    assert argv[:3] == ["--python", sys.executable, "apply"] and usage_error(argv) is None, argv
    assert radpatch("--registry", str(toy), *without_python(argv)).code == 0
    plugin.register()  # now satisfied: no exception


def test_a_required_patch_partly_put_back_names_status_and_revert_not_apply(
    as_vllm: Path, toy: Path, monkeypatch: pytest.MonkeyPatch, radpatch
) -> None:  # type: ignore[no-untyped-def]
    """One of toy's two files put back by hand: drifted at engine start and in status, naming that file;
    `apply` refuses it (so the refusal must not say run it), and `revert` takes it off the other file."""
    pristine = {p: (as_vllm / p).read_bytes() for p in ("toypkg/core.py", "toypkg/util.py")}
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    (as_vllm / "toypkg/util.py").write_bytes(pristine["toypkg/util.py"])
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy")
    with pytest.raises(RequiredPatchMissing) as err:
        plugin.register()
    said = str(err.value)
    assert "toy is drifted (toypkg/util.py is the pristine file)" in said
    argv = hinted(said)[0]  # then `radpatch revert`, named as the way to take it off the rest
    assert argv[2:] == ["status", "toy"] and usage_error(argv) is None, argv
    assert "toypkg/util.py" in radpatch("--registry", str(toy), *without_python(argv)).out
    assert "radpatch apply" not in said, said
    applied = radpatch("--registry", str(toy), "apply", "toy")
    assert applied.code == 1 and "toypkg/util.py is the pristine file" in applied.err
    assert "radpatch revert toy` takes it off toypkg/core.py" in applied.err, applied.err
    assert radpatch("--registry", str(toy), "revert", "toy").code == 0
    assert {p: (as_vllm / p).read_bytes() for p in pristine} == pristine
    (check,) = plugin.check(as_vllm, ("toy",))
    assert check.state is Seen.NOT_APPLIED


def test_errors_are_logged_and_swallowed_unless_required(
    as_vllm: Path, toy: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (as_vllm / ".radpatch").mkdir()
    (as_vllm / ".radpatch" / "record.json").write_text("{ not json")
    caplog.set_level(logging.INFO, logger=plugin.LOGGER)
    plugin.register()
    assert _line(caplog).startswith("[radpatch] self-check failed (EnvironmentProblem: ")
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy")
    with pytest.raises(RequiredPatchMissing, match="is set but the self-check failed"):
        plugin.register()


def test_no_vllm_imported_is_an_error_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delitem(sys.modules, "vllm", raising=False)
    monkeypatch.delenv(plugin.REQUIRE_ENV, raising=False)
    caplog.set_level(logging.INFO, logger=plugin.LOGGER)
    plugin.register()
    assert "vllm is not imported in this process" in _line(caplog)


def test_imports_only_hashing_code(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    code = (
        "import sys, types, json; from pathlib import Path; m = types.ModuleType('vllm'); "
        f"m.__file__ = {str(site.root / 'toypkg' / '__init__.py')!r}; sys.modules['vllm'] = m; "
        "import radpatch.plugin as p; p.register(); (c,) = p.check(Path(m.__file__).parent.parent); "
        "print(json.dumps([c.state.value] + [n in sys.modules for n in "
        "('libcst', 'yaml', 'radpatch.prove.plan', 'radpatch.registry.loader', 'radpatch.state.decide', 'click')]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == ["applied", False, False, False, False, False, False]


def test_a_refusal_makes_the_next_engine_in_the_process_check_again(
    as_vllm: Path, toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM sets plugins_loaded before calling plugins: a retry would otherwise skip the check."""
    plugins = types.ModuleType("vllm.plugins")
    plugins.plugins_loaded = True  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm.plugins", plugins)
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy")
    with pytest.raises(RequiredPatchMissing):
        plugin.register()
    assert plugins.plugins_loaded is False  # type: ignore[attr-defined]


def test_an_unknown_required_name_says_what_is_recorded(
    as_vllm: Path, toy: Path, monkeypatch: pytest.MonkeyPatch, radpatch
) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy-patch")
    with pytest.raises(RequiredPatchMissing) as err:
        plugin.register()
    assert "the patches recorded here are toy: a name misspelt in RADPATCH_REQUIRE reads so too" in str(err.value)
    (argv,) = hinted(str(err.value))
    assert argv[2:] == ["apply", "toy-patch"] and usage_error(argv) is None, argv


def test_a_shadowing_copy_is_named_not_patched_over(as_vllm: Path, toy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugin, "_own_site", lambda root: False)  # vllm found through PYTHONPATH / a volume
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy")
    with pytest.raises(RequiredPatchMissing) as err:
        plugin.register()
    assert "outside" in str(err.value) and "PYTHONPATH or a mounted volume" in str(err.value)
    assert "radpatch apply" not in str(err.value)


def test_own_site_knows_this_interpreters_site_packages(tmp_path: Path) -> None:
    import sysconfig

    assert plugin._own_site(Path(sysconfig.get_paths()["purelib"]))
    assert not plugin._own_site(tmp_path)


def test_a_symlinked_package_directory_keeps_its_record_in_site_packages(
    site: Site, as_vllm: Path, toy: Path, tmp_path: Path, radpatch
) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (as_vllm / "toypkg").rename(elsewhere / "toypkg")
    (as_vllm / "toypkg").symlink_to(elsewhere / "toypkg")
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    assert plugin.package_root() == as_vllm
    (check,) = plugin.check(plugin.package_root())
    assert check.state is Seen.APPLIED


def test_two_dist_infos_are_named_as_ambiguous(site: Site, as_vllm: Path, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    """A stale dist-info beside the installed one: status says incompatible (which one is
    installed is not defined), and so does the engine-start check, with status's words."""
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    (stale,) = [d for d in as_vllm.glob("toypkg-*.dist-info")]
    shutil.copytree(stale, as_vllm / "toypkg-0.1.dist-info")
    (check,) = plugin.check(as_vllm)
    (status,) = json.loads(radpatch("--registry", str(toy), "status", "--json", "toy").out)
    assert (status["state"], check.state, check.satisfied) == ("incompatible", Seen.INCOMPATIBLE, False)
    assert check.detail == status["reason"]
    assert "remove the stale one" in check.detail and "toypkg-0.1.dist-info" in check.detail


def test_a_patched_module_that_is_a_fifo_is_drifted_not_a_hang(as_vllm: Path, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    """At engine start a FIFO in place of a recorded module is reported, never read until a
    writer comes (the helper feeds a blocked reader the patched bytes, which would read as applied)."""
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    with fifo_in_place_of(as_vllm / "toypkg" / "core.py"):
        (check,) = plugin.check(as_vllm)
    assert check.state is Seen.DRIFTED and "toypkg/core.py unreadable (not a regular file)" in check.detail, (
        check.detail
    )


def test_a_patch_with_another_stacked_on_its_file_reads_applied_at_engine_start(
    as_vllm: Path,
    toy: Path,
    write_registry,  # type: ignore[no-untyped-def]
    radpatch,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The self-check makes status's hash decision (state.hashes): the lower of two patches on one
    file is applied while the file carries the upper one too, so RADPATCH_REQUIRE lets vLLM start."""
    write_registry(
        "upper",
        """\
        summary: a second patch on toy's file
        description: stacks on toy
        distribution: toypkg
        supported: ">=1.0,<2"
        modules:
          core: toypkg.core
        rewrites:
          - id: cap
            file: core
            replace: {scope: plan, find: "size = 4", with: "size = 5"}
        """,
    )
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    assert radpatch("--registry", str(toy), "apply", "upper").code == 0
    status = json.loads(radpatch("--registry", str(toy), "status", "--json", "toy", "upper").out)
    assert [s["state"] for s in status] == ["applied", "applied"]
    checks = {c.name: c.state for c in plugin.check(as_vllm)}
    assert checks == {"toy": Seen.APPLIED, "upper": Seen.APPLIED}
    monkeypatch.setenv(plugin.REQUIRE_ENV, "toy,upper")
    caplog.set_level(logging.INFO, logger=plugin.LOGGER)
    plugin.register()  # raises RequiredPatchMissing when either reads otherwise
    assert "toy applied" in _line(caplog) and "upper applied" in _line(caplog)
    core = as_vllm / "toypkg" / "core.py"
    core.write_text(core.read_text() + "\n# edited\n")  # issue 21: comments do not count, stacked or not
    assert {c.name: c.state for c in plugin.check(as_vllm)} == {"toy": Seen.APPLIED, "upper": Seen.APPLIED}
    core.write_text(core.read_text() + "EDITED = 1\n")
    assert {c.name: c.state for c in plugin.check(as_vllm)} == {"toy": Seen.DRIFTED, "upper": Seen.DRIFTED}


def test_kv_group_size_on_a_block_outermost_layout_is_reported_as_possibly_not_in_effect(
    as_vllm: Path, toy: Path, radpatch, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """vLLM packs mixed-page-size groups itself on a block-outermost layout (issue 24): the self-check
    says the applied kv_group_size may not be in effect there, and nothing on the default layout.
    The toy patch stands in for it (the shipped registry holds the real name)."""
    monkeypatch.setattr(engine_start, "_IN_EFFECT_ONLY_IF", {"toy": engine_start._IN_EFFECT_ONLY_IF["kv_group_size"]})
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    monkeypatch.delenv("VLLM_KV_CACHE_LAYOUT", raising=False)
    (check,) = plugin.check(as_vllm)
    assert (check.state, check.detail) == (Seen.APPLIED, "")
    monkeypatch.setenv("VLLM_KV_CACHE_LAYOUT", "BLHNC")
    (check,) = plugin.check(as_vllm)
    assert check.state is Seen.APPLIED
    assert "not in effect if this model's layers have mixed page sizes: VLLM_KV_CACHE_LAYOUT=BLHNC" in check.detail


@pytest.mark.parametrize("spelled", ["rpshadow.sub", "rpshadow.sub.__init__"])
def test_an_imported_package_is_followed_whichever_way_the_entry_spells_it(
    spelled: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pkg.sub.__init__` and `pkg.sub` name one file; the process imported it as `pkg.sub`, maybe
    from a shadowing checkout, and the check reads that copy for either spelling."""
    checkout = tmp_path / "checkout" / "rpshadow" / "sub" / "__init__.py"
    checkout.parent.mkdir(parents=True)
    checkout.write_text("X = 1\n")
    module = types.ModuleType("rpshadow.sub")
    module.__file__ = str(checkout)
    monkeypatch.setitem(sys.modules, "rpshadow.sub", module)
    assert engine_start._imported_path(spelled) == checkout.resolve()


OTHER_PYTHON = next(
    (
        p
        for v in ("3.12", "3.13", "3.10")
        for p in sorted(Path("/root/.pyenv/versions").glob(f"{v}*/bin/python{v}"))
        if f"{sys.version_info[0]}.{sys.version_info[1]}" != v
    ),
    None,
)


@pytest.mark.skipif(OTHER_PYTHON is None, reason="needs a second Python besides radpatch's")
def test_a_comment_edit_reads_applied_at_engine_start_on_another_python(tmp_path: Path, write_registry: Any) -> None:
    """radpatch on one Python patches a target on another; a code hash is only compared by the
    Python that computed it, so apply records the target's too, and its self-check follows a
    comment edit as radpatch's own status does."""
    import zipfile

    from tests.lib.toy import ORIGINAL, TOY_PATCH
    from tests.lib.wheels import build_wheel

    assert OTHER_PYTHON is not None
    venv = tmp_path / "target"
    subprocess.run([str(OTHER_PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    with zipfile.ZipFile(build_wheel(tmp_path / "wheels", "toypkg", "1.0", ORIGINAL)) as zf:
        zf.extractall(site)
    reg = write_registry("toy", TOY_PATCH)
    cli = [sys.executable, "-m", "radpatch", "--python", str(venv / "bin" / "python"), "--registry", str(reg)]
    applied = subprocess.run([*cli, "apply", "toy"], capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    core = site / "toypkg" / "core.py"
    core.write_text("# reviewed\n" + core.read_text())
    code = (
        "import sys; from pathlib import Path; from radpatch import plugin; "
        "print([(c.state.value, c.detail) for c in plugin.check(Path(sys.argv[1]), ('toy',))])"
    )
    repo = str(Path(plugin.__file__).resolve().parents[1])
    seen = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code, str(site)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": repo},
    )
    assert seen.returncode == 0, seen.stderr
    assert seen.stdout.strip() == "[('applied', '')]", seen.stdout
    core.write_text(core.read_text() + "EDITED = 1\n")  # a line of code is drift there too
    seen = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code, str(site)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": repo},
    )
    assert "drifted" in seen.stdout, seen.stdout
