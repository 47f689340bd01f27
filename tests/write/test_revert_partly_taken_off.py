"""revert of an entry someone took off one of its files by hand (put the file back, or deleted the
module it created) while the others still carry it: every other file is as it was before the
entry, so revert takes it off the rest and forgets it, leaving RECORD's bytes (and no created
module) everywhere (att47 #6: refused as drifted, with hints that went round). A file in neither
state (its code edited) is still refused, one or two lines, nothing written. On a wheel
pip-installed into a venv; the wheel's own bytes are the oracle."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.agree import DIST, Target, fresh
from tests.lib.generated import sample
from tests.lib.registry import write_entry
from tests.lib.venvs import make_venv
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

FILES: dict[str, str | bytes] = {
    "rpagree/__init__.py": "",
    "rpagree/core.py": "def plan(spec):\n    return len(spec)\n",
    "rpagree/util.py": "def factor(n):\n    return n * 2\n",
}
HEAD = 'summary: s\ndescription: d\ndistribution: rpagree\nsupported: ">=1.0,<2"\n'
ENTRIES = {  # each: two files; `made` creates its second
    "two": HEAD
    + "modules:\n  core: rpagree.core\n  util: rpagree.util\nrewrites:\n"
    + '  - id: a\n    file: core\n    replace: {scope: plan, find: "len(spec)", with: "len(spec) + 1"}\n'
    + '  - id: b\n    file: util\n    replace: {scope: factor, find: "n * 2", with: "n * 3"}\n',
    "made": HEAD
    + "modules:\n  core: rpagree.core\n  made: rpagree.made\nrewrites:\n"
    + '  - id: a\n    file: core\n    replace: {scope: plan, find: "len(spec)", with: "len(spec) + 1"}\n'
    + "  - id: b\n    file: made\n    create_module: {content: made.py}\n",
}
SECOND = {"two": "rpagree/util.py", "made": "rpagree/made.py"}
CASES = sample([(e, which, how) for e in ENTRIES for which in ("first", "second") for how in ("back", "edited")])


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Target:
    base = tmp_path_factory.mktemp("rppartly")
    wheel = build_wheel(base / "wheels", DIST, "1.0", FILES)
    t = Target(base / "template", base / "registry", wheel.parent)
    make_venv(t.venv)
    t.reinstall()
    for name, text in ENTRIES.items():
        write_entry(t.registry, name, text, {"made.py": "def made():\n    return 1\n"}, dedent=False)
    return t


@pytest.mark.parametrize(("entry", "which", "how"), CASES)
def test_revert_takes_it_off_the_rest_or_refuses_a_file_in_neither_state(
    template: Target, tmp_path: Path, entry: str, which: str, how: str
) -> None:
    t = fresh(template, tmp_path / "venv")  # type: ignore[arg-type]
    code, _, err = t.radpatch("apply", entry)
    assert code == 0, err
    rel = "rpagree/core.py" if which == "first" else SECOND[entry]
    path = t.site / rel
    if how == "back":  # as before the entry: the wheel's bytes, or no module it creates
        if rel in FILES:
            path.write_text(str(FILES[rel]))
        else:
            path.unlink()
    else:
        path.write_text(path.read_text() + "EXTRA = 1\n")
    before = {p: p.read_bytes() for p in (t.site / "rpagree").glob("*.py")}

    code, out, err = t.radpatch("revert", entry)

    assert "Traceback" not in err
    if how == "edited":
        assert code == 1 and 1 <= len(err.strip().splitlines()) <= 2, err
        assert {p: p.read_bytes() for p in (t.site / "rpagree").glob("*.py")} == before  # nothing written
        return
    assert code == 0, err
    for f, text in FILES.items():
        assert (t.site / f).read_text() == text, f
    assert not (t.site / "rpagree" / "made.py").exists()
    assert t.status(entry)[entry]["state"] == "not-applied"
