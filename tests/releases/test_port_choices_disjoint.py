"""`port` over a `modules:` list whose choices take turns (the scope in core.py, then planning.py, then
core.py again) keeps each choice's range apart from the others' (rel41, att40b #8): it widened a choice
over the releases another choice holds (core `==1.3` became `>=1.0,<=1.3` over planning's 1.1 and 1.2),
leaving two choices covering one release, decided by the code only. It also claimed, through
`supported:`, a release between those asked for and those the entry claimed that no choice covers.
Generated: choice layouts (the releases the entry claims, each run of one module a choice, listed
either way) x target ranges. The oracle is the toy release itself: per release, the module whose
file defines the scope. A port that writes must leave every release of the new range selected by
exactly one choice, that module's, and proving so; one that refuses leaves the file as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, GOOD, PKG, REWRITES

OTHER = "def unrelated():\n    return 1\n"
HOMES = {"1.0": "core", "1.1": "planning", "1.2": "planning", "1.3": "core", "1.4": "core", "1.5": "planning"}
RELEASES = {
    v: {f"{PKG}/{m}.py": GOOD if m == home else OTHER for m in ("core", "planning")} for v, home in HOMES.items()
}
ORDER = list(HOMES)


def _home(version: str) -> str:
    """The oracle: the module whose file in the toy release defines size()."""
    (module,) = [rel for rel, text in RELEASES[version].items() if "def size" in str(text)]
    return module.removesuffix(".py").replace("/", ".")


def _layout(window: tuple[str, ...]) -> list[tuple[str, str]]:
    """One choice per run of one module over the releases `window`: `==v`, or `>=lo,<=hi`."""
    runs: list[list[str]] = []
    for v in window:
        if runs and HOMES[runs[-1][-1]] == HOMES[v]:
            runs[-1].append(v)
        else:
            runs.append([v])
    return [(_home(r[0]), f"=={r[0]}" if len(r) == 1 else f">={r[0]},<={r[-1]}") for r in runs]


WINDOWS = [tuple(ORDER[i:j]) for i in range(len(ORDER)) for j in range(i + 2, min(i + 4, len(ORDER)) + 1)]
TARGETS = ["==1.0", ">=1.0,<1.2", "<=1.1", ">=1.4", "==1.5", ">=1.0"]
CASES = sample(
    [
        (w, t, order)
        for w in WINDOWS
        for t in TARGETS
        for order in ("forward", "reversed")
        if not all(SpecifierSet(t).contains(v) for v in ORDER if v not in w) or t == ">=1.0"
        if len(_layout(w)) > 1 or order == "forward"
    ]
)


def _entry(choices: list[tuple[str, str]], supported: str) -> str:
    listed = "".join(f"    - module: {m}\n" + f'      versions: "{r}"\n' for m, r in choices)
    return (
        f'summary: Cap the toy\'s size\ndescription: test\ndistribution: {DIST}\nsupported: "{supported}"\n'
        f"modules:\n  planner:\n{listed}{REWRITES}"
    )


@pytest.mark.parametrize(("window", "target", "order"), CASES, ids=["-".join((*c[0], c[1], c[2])) for c in CASES])
def test_port_keeps_each_choice_to_the_releases_its_module_holds(
    window: tuple[str, ...],
    target: str,
    order: str,
    loopback: Any,
    write_registry: Any,
    radpatch: Any,
    no_shipped: None,
) -> None:
    _check(window, target, order, loopback, write_registry, radpatch)


def test_the_reported_case_ports(loopback: Any, write_registry: Any, radpatch: Any, no_shipped: None) -> None:
    """att40b #8: planning ==1.2, core ==1.3, `--to ">=1.0,<1.2"`: written, each choice to its own releases."""
    assert _check(("1.2", "1.3"), ">=1.0,<1.2", "forward", loopback, write_registry, radpatch) == 0


def _check(window: tuple[str, ...], target: str, order: str, loopback: Any, write_registry: Any, radpatch: Any) -> int:
    loopback(DIST, RELEASES)
    choices = _layout(window)
    if order == "reversed":
        choices.reverse()
    reg = str(write_registry("toy", _entry(choices, f">={window[0]},<={window[-1]}")))
    path = Path(reg) / "toy.yaml"
    before = path.read_text()

    ported = radpatch("--registry", reg, "port", "toy", "--to", target)
    if ported.code != 0:  # refused: the file is as it was, and the refusal says why
        assert path.read_text() == before
        assert "Traceback" not in ported.err and ported.code in (1, 2), ported.out + ported.err
        assert "left alone" in ported.out or "not written" in ported.out, ported.out
        return ported.code
    doc = yaml.safe_load(path.read_text())
    supported = SpecifierSet(doc["supported"])
    asked = [v for v in ORDER if SpecifierSet(target).contains(v)]
    assert all(supported.contains(v) for v in asked), (doc, ported.out)
    report = json.loads(radpatch("--registry", reg, "verify", "toy", "--json").out)
    for r in report["results"]:
        if not supported.contains(Version(r["version"])):
            continue
        choices_now = doc["modules"]["planner"]
        covering = [c["module"] for c in choices_now if SpecifierSet(c["versions"]).contains(r["version"])]
        assert covering == [_home(r["version"])], (r["version"], choices_now, ported.out)
        assert r["ok"] and r["chosen"] == [] and r["modules"] == covering, r
    return 0
