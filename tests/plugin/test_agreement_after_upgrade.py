"""After `pip install -U` to a release whose file is byte for byte the old one's, radpatch's record of an
entry is from the old install; the entry's change is then made again by hand (or an image step). att63 F2, F3:
`apply c` said "already applied; nothing to do" and exited 0 while `status --check c` failed and the engine
refused to start (the old record's chain kept c from being adopted); `status --check d`, d requiring c, passed
while the engine-start check read d drifted (status counted c, applied without a record, as met).

Generated: whether c was applied on the old install, whether its change is made again by hand, and which
entries apply names then (c, d, both). The reference after each step: `apply` exiting 0 leaves every entry it
names passing `status --check`; and for every entry `status --check` passes exactly when the engine-start
self-check (RADPATCH_REQUIRE) lets the engine start."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.lib.agree import DIST, FILES, UTIL, Target, engine_starts, fresh
from tests.lib.generated import sample
from tests.lib.registry import write_entry
from tests.lib.venvs import make_venv
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel  # real wheels pip-installed into a venv: the real tier

ENTRY = """\
summary: s
description: d
distribution: rpagree
supported: ">=1.0"
{requires}modules:
  m: {module}
rewrites:
  - id: r
    file: m
    replace: {{scope: {scope}, find: "{find}", with: "{to}"}}
"""
NAMES = ("c", "d")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Target, Path]:
    base = tmp_path_factory.mktemp("rpupgrade")
    build_wheel(base / "wheels", DIST, "1.0", FILES)
    newer = build_wheel(base / "wheels", DIST, "2.0", FILES)  # the same files: util.py byte for byte
    t = Target(base / "template", base / "registry", newer.parent)
    make_venv(t.venv)
    t.reinstall("1.0")
    c = ENTRY.format(requires="", module="rpagree.util", scope="factor", find="n * 2", to="n * 4")
    d = ENTRY.format(requires="requires: [c]\n", module="rpagree.core", scope="scale", find="x * 2", to="x * 5")
    write_entry(t.registry, "c", c, dedent=False)
    write_entry(t.registry, "d", d, dedent=False)
    return t, newer


CASES = sample(list(itertools.product((True, False), (True, False), (("c",), ("d",), ("c", "d"), ("d", "c")))))


@pytest.mark.parametrize(("old", "by_hand", "named"), CASES)
def test_after_an_upgrade_apply_status_and_the_engine_agree(
    template: tuple[Target, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    old: bool,
    by_hand: bool,
    named: tuple[str, ...],
) -> None:
    base, newer = template
    t = fresh(base, tmp_path / "venv")  # type: ignore[arg-type]
    if old:
        assert t.radpatch("apply", "c")[0] == 0
    t.reinstall("2.0")
    util = t.site / UTIL
    if by_hand:
        util.write_text(util.read_text().replace("n * 2", "n * 4"))
    code, out, err = t.radpatch("apply", "--wheel", str(newer), *named)
    assert "Traceback" not in err and code in (0, 1), (code, out, err)
    for name in NAMES:
        passes = t.check_passes(name)
        if code == 0 and name in named:
            assert passes, (name, out, t.status(name)[name])
        starts = engine_starts(t.site, name, monkeypatch)
        assert passes == starts, (name, t.status(name)[name], t.engine(name)[name].detail)
