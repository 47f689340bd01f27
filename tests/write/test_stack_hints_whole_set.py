"""A refusal about stacked entries names, in its hint, every entry one command must name: followed
once, as a user would follow it, the command succeeds (att49 #1: re-applying a revised entry under
three others was refused naming one of them at a time, and the hints went round in a loop; a revert
hint left out the entries the user had named).

Entries e1..ek, each changing one function in one or two modules of a wheel pip-installed into a
venv, applied in order, so each lies above the earlier ones on the files they share. Then:
- apply: e_j's entry is revised (its description) and `apply e_j` is run; radpatch re-applies e_j,
  which takes every entry stacked above it, down any chain of shared files, off and on again;
- revert: the entry of one entry above e_j is deleted from the registry (it cannot be put on again
  from it) and `revert e_j` is run.
The reference: the entries that lie above e_j through shared files, found from the layout alone;
for the revert, e_j and the deleted one only: every other entry above changes a function of its own,
so the revert lifts it and puts it back (att50 #4: the hint named them too).
Following the hint once must succeed and leave each file as a fresh apply of what stays applied
gives it, with `status` saying so."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.lib.agree import DIST, Target, fresh
from tests.lib.generated import sample
from tests.lib.registry import write_entry
from tests.lib.venvs import make_venv
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel  # a real wheel pip-installed into a venv: the real tier

MOST = 4
MODULES = ("m", "n")
# which modules each entry changes: every layout of 2..MOST entries over the two modules
LAYOUTS = [
    layout
    for k in range(2, MOST + 1)
    for layout in itertools.product(("m", "n", "mn"), repeat=k)
    if "m" in layout[0]  # e1 on m: every layout stacks something
]


def _source(module: str) -> str:
    return "".join(f"def f{i}():\n    return '{module}{i}'\n\n\n" for i in range(1, MOST + 1))


def _entry(i: int, mods: str, note: str = "d") -> str:
    rewrites = "".join(
        f"  - id: {m}\n    file: {m}\n    replace: {{scope: f{i}, find: \"'{m}{i}'\", with: \"'{m}{i} e{i}'\"}}\n"
        for m in mods
    )
    modules = "".join(f"  {m}: rpagree.{m}\n" for m in mods)
    return (
        f'summary: s\ndescription: {note}\ndistribution: rpagree\nsupported: ">=1.0,<2"\n'
        f"modules:\n{modules}rewrites:\n{rewrites}"
    )


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Target:
    base = tmp_path_factory.mktemp("rpstackhint")
    files: dict[str, str | bytes] = {"rpagree/__init__.py": ""}
    files.update({f"rpagree/{m}.py": _source(m) for m in MODULES})
    wheel = build_wheel(base / "wheels", DIST, "1.0", files)
    t = Target(base / "template", base / "registry", wheel.parent)
    make_venv(t.venv)
    t.reinstall()
    return t


def above(layout: tuple[str, ...], j: int) -> set[int]:
    """The reference: the entries (1-based) stacked above e_j, down any chain of shared modules."""
    out: set[int] = set()
    todo = [j]
    while todo:
        low = todo.pop()
        for up in range(low + 1, len(layout) + 1):
            if up not in out and set(layout[low - 1]) & set(layout[up - 1]):
                out.add(up)
                todo.append(up)
    return out


def expected_files(layout: tuple[str, ...], on: set[int]) -> dict[str, str]:
    text = {m: _source(m) for m in MODULES}
    for i in sorted(on):
        for m in layout[i - 1]:
            text[m] = text[m].replace(f"'{m}{i}'", f"'{m}{i} e{i}'")
    return text


def _setup(template: Target, tmp_path: Path, layout: tuple[str, ...]) -> Target:
    t = fresh(template, tmp_path / "venv")  # type: ignore[arg-type]
    t.registry = tmp_path / "registry"
    names = [f"e{i}" for i in range(1, len(layout) + 1)]
    for i, mods in enumerate(layout, 1):
        write_entry(t.registry, f"e{i}", _entry(i, mods), dedent=False)
    for name in names:  # one at a time: each lies above the earlier ones
        code, _, err = t.radpatch("apply", name)
        assert code == 0, err
    return t


def _hint_names(err: str, verb: str) -> list[str]:
    line = next(ln for ln in err.splitlines() if f"radpatch {verb} " in ln)
    return line.split(f"radpatch {verb} ", 1)[1].split()


def _files(t: Target) -> dict[str, str]:
    return {m: (t.site / "rpagree" / f"{m}.py").read_text() for m in MODULES}


# one in 18 of the 181 (layout, j) pairs with something above e_j: each builds a venv and applies k entries
CASES = sample([(layout, j) for layout in LAYOUTS for j in range(1, len(layout)) if len(above(layout, j)) >= 1][::18])


@pytest.mark.parametrize(("layout", "j"), CASES)
def test_reapply_hint_names_the_whole_stack(template: Target, tmp_path: Path, layout: tuple[str, ...], j: int) -> None:
    t = _setup(template, tmp_path, layout)
    write_entry(t.registry, f"e{j}", _entry(j, layout[j - 1], note="revised"), dedent=False)
    code, _, err = t.radpatch("apply", f"e{j}")
    assert code != 0  # the entries above it are not named
    named = _hint_names(err, "apply")
    assert {int(n[1:]) for n in named} == {j} | above(layout, j), err
    code, _, err = t.radpatch("apply", *named)
    assert code == 0, err
    assert _files(t) == expected_files(layout, set(range(1, len(layout) + 1)))
    assert {s["state"] for name, s in t.status().items() if name.startswith("e")} == {"applied"}


@pytest.mark.parametrize(("layout", "j"), CASES)
def test_revert_hint_names_the_whole_stack(template: Target, tmp_path: Path, layout: tuple[str, ...], j: int) -> None:
    t = _setup(template, tmp_path, layout)
    gone = max(above(layout, j))  # its entry is deleted: it cannot be put on again from the registry
    (t.registry / f"e{gone}.yaml").unlink()
    code, _, err = t.radpatch("revert", f"e{j}")
    assert code != 0
    named = _hint_names(err, "revert")
    assert {int(n[1:]) for n in named} == {j, gone}, err
    code, _, err = t.radpatch("revert", *named)
    assert code == 0, err
    on = set(range(1, len(layout) + 1)) - {j, gone}
    assert _files(t) == expected_files(layout, on)
    states = {name: s["state"] for name, s in t.status().items() if name.startswith("e")}
    assert states == {f"e{i}": "applied" if i in on else "not-applied" for i in range(1, len(layout) + 1) if i != gone}


# An entry that patches m and creates a module, whose created module someone deleted by hand: apply
# refuses it (some of its files are put back), and the hint's revert must name every entry that
# requires it, so that one revert and one apply put it back on (att50 #5), and no entry stacked
# above it that the revert lifts and puts back (rev53: it named those too, and took them off).
UPPERS = {  # how an entry above c0 is on it
    "requires it, on m": ("m", True),
    "stacked on m": ("m", False),
    "on the module it made": ("made", True),
}
MADE = "def made():\n    return 'made'\n"


def _c0() -> str:
    return (
        'summary: s\ndescription: d\ndistribution: rpagree\nsupported: ">=1.0,<2"\n'
        "modules:\n  m: rpagree.m\n  made: rpagree.made\nrewrites:\n"
        "  - id: m\n    file: m\n    replace: {scope: f1, find: \"'m1'\", with: \"'m1 c0'\"}\n"
        "  - id: made\n    file: made\n    create_module: {content: made.py}\n"
    )


def _upper(i: int, kind: str) -> str:
    module, requires = UPPERS[kind]
    find, new = ("'m{i}'", "'m{i} u{i}'") if module == "m" else ("'made'", "'made u{i}'")
    scope = f"f{i}" if module == "m" else "made"
    return (
        'summary: s\ndescription: d\ndistribution: rpagree\nsupported: ">=1.0,<2"\n'
        + ("requires: [c0]\n" if requires else "")
        + f"modules:\n  {module}: rpagree.{module}\nrewrites:\n"
        + f'  - id: u\n    file: {module}\n    replace: {{scope: {scope}, find: "{find.format(i=i)}", '
        + f'with: "{new.format(i=i)}"}}\n'
    )


MADE_CASES = sample(
    [
        kinds
        for k in (1, 2)  # every kind alone and under every other: each case builds a venv and applies k + 1 entries
        for kinds in itertools.product(UPPERS, repeat=k)
        if list(kinds).count("on the module it made") <= 1  # one replace of `made` each: stacked ones differ
    ]
)


@pytest.mark.parametrize("kinds", MADE_CASES, ids=lambda ks: "+".join(k.split(",")[0].replace(" ", "-") for k in ks))
def test_a_deleted_created_module_hint_names_what_requires_or_lies_above(
    template: Target, tmp_path: Path, kinds: tuple[str, ...]
) -> None:
    t = fresh(template, tmp_path / "venv")  # type: ignore[arg-type]
    t.registry = tmp_path / "registry"
    write_entry(t.registry, "c0", _c0(), {"made.py": MADE}, dedent=False)
    for i, kind in enumerate(kinds, 2):
        write_entry(t.registry, f"u{i}", _upper(i, kind), dedent=False)
    for name in ["c0", *(f"u{i}" for i in range(2, len(kinds) + 2))]:
        code, _, err = t.radpatch("apply", name)
        assert code == 0, err
    (t.site / "rpagree" / "made.py").unlink()
    code, _, err = t.radpatch("apply", "c0")
    assert code != 0 and "made.py" in err, err
    hint = err.split("`radpatch revert ", 1)[1].split("`", 1)[0].split()
    # those that require it on m; one stacked on m in a function of its own is lifted and put back, and
    # one on the module it made went with that module (it reads not applied: nothing to take off) (rev53)
    above = {f"u{i}" for i, kind in enumerate(kinds, 2) if kind == "requires it, on m"}
    assert set(hint) == {"c0"} | above, err
    code, _, err = t.radpatch("revert", *hint)
    assert code == 0, err
    code, _, err = t.radpatch("apply", "c0")
    assert code == 0, err
    states = t.status()
    assert states["c0"]["state"] == "applied"
    assert {n for n, s in states.items() if n.startswith("u") and s["state"] == "applied"} == {
        f"u{i}" for i, kind in enumerate(kinds, 2) if kind == "stacked on m"
    }
    assert (t.site / "rpagree" / "made.py").read_text() == MADE
