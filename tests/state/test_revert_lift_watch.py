"""A revert that lifts a patch stacked above the one it takes off puts that patch back on in the same
run, and putting it back proves it again: a patch that changes guarded imports' fallbacks asks the
target interpreter about each (the placement check's children, prove.guarded_imports). Those
children run in one watch of the install (prove.import_watch): walked before the first and after the
last, 2 walks however many children, as apply's are (each child was watched alone: 2 walks each).
Generated over the number of fallbacks the lifted patch changes; a real wheel pip-installed into a
venv. The counter calls the real walk through (read_only.snapshot); the revert's result is checked
on the files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.walks import counted_walks
from tests.lib.wheels import build_wheel

# a real wheel pip-installed into a venv: the real tier (tests/lib/tier.py)
pytestmark = pytest.mark.wheel

CORE = "try:\n    from rpgl.fast{i} import f{i}\nexcept ImportError:\n    def f{i}():\n        return 1\n"
FAILS = "raise ImportError('its native library is missing')\n"


def _install(tmp: Path, fallbacks: int) -> Path:
    venv = tmp / "venv"
    make_venv(venv)
    files = {
        "rpgl/__init__.py": "",
        "rpgl/core.py": "LIMIT = 3\n" + "".join(CORE.format(i=i) for i in range(fallbacks)),
        **{f"rpgl/fast{i}.py": FAILS for i in range(fallbacks)},
    }
    pip(
        venv / "bin" / "python",
        "install",
        "--quiet",
        "--no-index",
        str(build_wheel(tmp / "dist", "rpgl", "1.0", files)),
    )
    return venv


@pytest.mark.parametrize("fallbacks", sample([1, 2, 4]))
def test_a_revert_watches_the_put_back_children_once(
    tmp_path: Path, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch, fallbacks: int
) -> None:
    venv = _install(tmp_path, fallbacks)
    core = site_packages(venv) / "rpgl" / "core.py"
    pristine = core.read_bytes()
    write_registry(
        "low",
        entry_head("low", "rpgl", {"core": "rpgl.core"})
        + "  - id: r\n    file: core\n    replace: {scope: <module>, find: LIMIT = 3, with: LIMIT = 5}\n",
    )
    reg = write_registry(
        "gw",
        entry_head("gw", "rpgl", {"core": "rpgl.core"})
        + "".join(
            f"  - id: r{i}\n    file: core\n    replace: {{scope: f{i}, find: return 1, with: return 2}}\n"
            for i in range(fallbacks)
        ),
    )
    argv = ("--registry", str(reg), "--python", str(venv))
    assert radpatch(*argv, "apply", "low").code == 0
    assert radpatch(*argv, "apply", "gw").code == 0  # stacked above low on core.py, not requiring it
    walks = counted_walks(monkeypatch)
    r = radpatch(*argv, "revert", "low")  # gw comes off, low comes off, gw goes on again: proven again
    assert r.code == 0, r
    assert core.read_bytes() == pristine.replace(b"return 1", b"return 2"), core.read_text()
    assert len(walks) == 2 and len(set(walks)) == 1, walks
    assert str(site_packages(venv).resolve()) in walks[0], walks
