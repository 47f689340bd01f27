"""An entry applied on top must not cancel one already applied (att53 #1): A (`CFG["timeout"]`
1 -> 10) applied, then C inserting `CFG['timeout'] = 2` after it, was applied (status --check
passed) and A had no effect; `apply C; apply A` was refused. The verdict must not depend on the
order: once an entry is planned on a file, the entries under it are proven again on its result
(radpatch.prove.below).

Generated: pairs and triples of one-rewrite entries on one toy module built as a wheel and
unpacked as pip lays it out (set_item, set_constant, add_element, set_keyword, insert_after in a
function, and insert_after statements that do or do not store over the others' names, a `return`
above a line), applied in every order, each entry in its own run, and all in one run. The oracle
is Python importing the module in a subprocess: where every entry was applied, each entry's edit
is in effect (its value read); and an order is refused iff every other order is refused. An
over-refusal (refused, yet the rewrites run without any proof leave every edit in effect in some
order) fails its group in the first test unless listed in OVER_REFUSED (none is). A recorded entry
no loaded registry has is said, not proven again."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from radpatch.registry.loader import load_patch
from radpatch.rewrite.runner import forward
from tests.lib.generated import sample
from tests.lib.overlaps import text, unpack_toy
from tests.lib.registry import write_entry
from tests.lib.site import Site

SRC = """\
import threading

CFG = {"timeout": 1, "retries": 3}
LIMIT = 5
FLAGS = ["a", "b"]
T = threading.Thread(target=print, daemon=True)
_a = 0
_b = 0
_c = 0
_d = 0
_e = 0


def f(x):
    y = x * 2
    z = y + 1
    return z
"""

# name -> (its rewrite, what reads true when its edit is in effect in the imported module `m`)
ENTRIES = {
    "item": (
        "set_item: {scope: <module>, name: CFG, key: '\"timeout\"', from: 1, value: 10}",
        'm.CFG["timeout"] == 10',
    ),
    "const": ("set_constant: {name: LIMIT, from: 5, value: 50}", "m.LIMIT == 50"),
    "elem": ("add_element: {scope: <module>, name: FLAGS, element: '\"c\"'}", '"c" in m.FLAGS'),
    "kw": (
        'set_keyword: {scope: <module>, call: threading.Thread, keyword: daemon, from: "True", to: "False"}',
        "m.T.daemon is False",
    ),
    "deep": ('insert_after: {scope: f, find: "z = y + 1", code: "z = z * 10"}', "m.f(1) == 30"),
    "s_item": (
        'insert_after: {scope: <module>, find: "_a = 0", code: "CFG[\'timeout\'] = 2\\nS1 = 1"}',
        'm.CFG["timeout"] == 2 and m.S1 == 1',
    ),
    "s_const": ('insert_after: {scope: <module>, find: "_b = 0", code: "LIMIT = 6\\nS2 = 1"}', "m.LIMIT == 6"),
    "s_elem": (
        'insert_after: {scope: <module>, find: "_c = 0", code: "FLAGS[:] = [\'a\']\\nS3 = 1"}',
        'm.FLAGS == ["a"] and m.S3 == 1',
    ),
    "s_kw": (
        'insert_after: {scope: <module>, find: "_d = 0", code: "T.daemon = True\\nS4 = 1"}',
        "m.T.daemon is True and m.S4 == 1",
    ),
    "other": ('insert_after: {scope: <module>, find: "_e = 0", code: "OTHER = 7"}', "m.OTHER == 7"),
    "ret": ('insert_after: {scope: f, find: "y = x * 2", code: "return y"}', "m.f(1) == 2"),
}

LOWER = ("item", "const", "elem", "kw", "deep")
PAIRS = list(itertools.combinations(ENTRIES, 2))
UNDOES = {"s_item": "item", "s_const": "const", "s_elem": "elem", "s_kw": "kw", "ret": "deep"}
# two lower entries and one that undoes one of them, or one that touches neither (`other`)
TRIPLES = [
    (a, b, c)
    for a, b in itertools.combinations(LOWER, 2)
    for c in ENTRIES
    if c not in LOWER and UNDOES.get(c, a) in (a, b)
]
GROUPS = sample(PAIRS + TRIPLES)


def in_effect(site: Path, names: tuple[str, ...]) -> dict[str, bool]:
    """Python imports toypkg.core from `site`: each entry's edit read in effect or not."""
    checks = {n: ENTRIES[n][1] for n in names}
    code = (
        f"import sys, json; sys.path.insert(0, {str(site)!r}); import toypkg.core as m; "
        f"print(json.dumps({{n: bool(eval(c)) for n, c in {checks!r}.items()}}))"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def registry(tmp: Path) -> Path:
    reg = tmp / "registry"
    for name, (rewrite, _) in ENTRIES.items():
        write_entry(reg, name, text(f"  - {rewrite}\n"))
    return reg


def run_order(site: Site, radpatch: Any, reg: Path, order: tuple[str, ...], one_run: bool) -> bool:
    """Apply `order` (in one run, or each in its own); True when every entry was applied. A refused
    run leaves the module as it was."""
    core = site.root / "toypkg/core.py"
    for names in [order] if one_run else [(n,) for n in order]:
        kept = core.read_bytes()
        r = radpatch("--registry", str(reg), "apply", *names)
        if r.code != 0:
            assert r.code == 1 and "Traceback" not in r.err, r.out + r.err
            assert core.read_bytes() == kept, names
            return False
        assert "applied" in r.out, r.out
    assert radpatch("--registry", str(reg), "status", "--check", *order).code == 0
    return True


def unproven(tmp: Path, reg: Path, order: tuple[str, ...]) -> dict[str, bool] | None:
    """The rewrites alone (no proof) run in `order` on SRC, imported: each edit in effect (None: one
    does not match)."""
    data = SRC.encode()
    try:
        for n in order:
            p = load_patch(reg / f"{n}.yaml")
            data = forward(p, p.rewrites, data, "core.py")
    except Exception:  # noqa: BLE001 - a rewrite that does not match: no over-refusal to count
        return None
    out = tmp / f"unproven-{'-'.join(order)}"
    (out / "toypkg").mkdir(parents=True)
    (out / "toypkg/__init__.py").write_text("")
    (out / "toypkg/core.py").write_bytes(data)
    return in_effect(out, order)


def verdicts(site: Site, radpatch: Any, tmp: Path, group: tuple[str, ...]) -> dict[tuple[tuple[str, ...], bool], bool]:
    """Each order of `group`, each entry in its own run, and the first and last order all in one
    run: applied (with every edit read in effect: asserted) or refused. Each on a fresh install."""
    reg = registry(tmp)
    out = {}
    orders = list(itertools.permutations(group))
    runs = [*((o, False) for o in orders), (orders[0], True), (orders[-1], True)]  # all in one run: two orders
    for k, (order, one_run) in enumerate(runs):
        if k:
            for p in list(site.root.iterdir()):
                _remove(p)
        unpack_toy(site, tmp / f"w{k}", SRC)
        applied = run_order(site, radpatch, reg, order, one_run)
        if applied:
            seen = in_effect(site.root, group)
            assert all(seen.values()), (order, "one run" if one_run else "one by one", seen)
        out[(order, one_run)] = applied
    return out


def _remove(p: Path) -> None:
    import shutil

    if p.is_dir():
        shutil.rmtree(p)
    else:
        p.unlink()


# groups refused in every order although the rewrites run without any proof leave every edit in
# effect in some order (over-refusals, measured): none is expected
OVER_REFUSED: frozenset[tuple[str, ...]] = frozenset()


@pytest.mark.parametrize("group", GROUPS, ids=["+".join(g) for g in GROUPS])
def test_each_applied_entry_is_in_effect_and_the_verdict_is_the_same_in_every_order(
    site: Site, radpatch: Any, tmp_path: Path, group: tuple[str, ...]
) -> None:
    got = verdicts(site, radpatch, tmp_path, group)
    assert len(set(got.values())) == 1, {" ".join(o) + (" (one run)" if one else ""): v for (o, one), v in got.items()}
    if not any(got.values()):  # refused: would the edits all be in effect without the proof, in some order?
        reg = tmp_path / "registry"
        fine = [o for o in itertools.permutations(group) if all((unproven(tmp_path, reg, o) or {"": False}).values())]
        assert bool(fine) == (group in OVER_REFUSED), f"over-refused: {group}, every edit in effect in order {fine}"


# C with `requires: [A]` (att53: the same as without): applied in one run and one by one, A first
# (the only order `requires:` allows); the oracle: the rewrites alone, A then C, leave both edits in
# effect iff radpatch applies them.
REQUIRING = sample([(a, c) for a in LOWER for c in ENTRIES if c not in LOWER])


@pytest.mark.parametrize(("lower", "upper"), REQUIRING, ids=["+".join(g) for g in REQUIRING])
@pytest.mark.parametrize("one_run", [False, True], ids=["one by one", "one run"])
def test_an_entry_requiring_the_one_it_undoes_is_refused_too(
    site: Site, radpatch: Any, tmp_path: Path, lower: str, upper: str, one_run: bool
) -> None:
    reg = registry(tmp_path)
    write_entry(reg, upper, text(f"  - {ENTRIES[upper][0]}\n", requires=(lower,)))
    unpack_toy(site, tmp_path / "w", SRC)
    applied = run_order(site, radpatch, reg, (lower, upper), one_run)
    seen = unproven(tmp_path, reg, (lower, upper))
    assert applied == all((seen or {"": False}).values()), (applied, seen)
    if applied:
        assert all(in_effect(site.root, (lower, upper)).values())


# A recorded entry no loaded registry has (applied from r1, the entry on top applied with r2 alone):
# not proven again, and said so; no crash, and the entry on top is applied as its own proof allows.
@pytest.mark.parametrize("upper", sample([c for c in ENTRIES if c not in LOWER]))
def test_a_recorded_entry_no_loaded_registry_has_is_said_not_proven_again(
    site: Site, radpatch: Any, tmp_path: Path, upper: str
) -> None:
    reg = registry(tmp_path)
    alone = tmp_path / "alone"
    write_entry(alone, upper, text(f"  - {ENTRIES[upper][0]}\n"))
    unpack_toy(site, tmp_path / "w", SRC)
    lower = UNDOES.get(upper, "item")
    assert radpatch("--registry", str(reg), "apply", lower).code == 0
    r = radpatch("--registry", str(alone), "apply", upper)
    assert r.code == 0 and "Traceback" not in r.err, r.out + r.err
    said = f"{upper}: toypkg/core.py carries {lower} (radpatch's record), whose entry no loaded registry has"
    assert said in r.out + r.err, r.out + r.err
    assert in_effect(site.root, (upper,)) == {upper: True}
