"""att21b F5: the live-definition proof reads what each later statement binds once, not once per
earlier def: n defs, then n statements (some replacing a def, some in an `if`), cost linear in the
statements, counted by wrapping the real per-statement reader (later_binds._bound). The module itself,
imported in a subprocess, is the oracle for which defs are replaced."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from radpatch.prove.placement import later_binds, live
from tests.lib.def_runs import runs


def _module(n: int) -> str:
    defs = "COND = True\n\n\n" + "".join(f"def _f{i}():\n    return {i}\n\n\n" for i in range(n))
    later = []
    for i in range(n):
        if i % 3 == 0:
            later.append(f"_f{i} = None\n")  # replaces _f{i}
        elif i % 3 == 1:
            later.append(f"if COND:\n    _f{i} = None\n")  # replaces _f{i} on some paths
        else:
            later.append(f"V{i} = {i}\n")
    return defs + "".join(later)


@pytest.mark.parametrize("n", [30, 120])
def test_each_later_statement_is_read_once(tmp_path: Path, n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _module(n)
    calls = 0
    real = later_binds._bound

    def counted(s: ast.stmt, in_class: bool) -> frozenset[str]:
        nonlocal calls
        calls += 1
        return real(s, in_class)

    monkeypatch.setattr(later_binds, "_bound", counted)
    dead = live.dead_definitions(ast.parse(text))
    statements = sum(1 for _ in ast.walk(ast.parse(text)) if isinstance(_, ast.stmt))
    assert calls <= 2 * statements, (calls, statements)
    replaced = {k[1] for k, d in dead.items() if not d.conditional}
    some = {k[1] for k, d in dead.items() if d.conditional}
    assert some == {f"_f{i}" for i in range(n) if i % 3 == 1}, some  # replaced on some paths only
    check = " and ".join(
        f"((getattr(mod, '_f{i}') is None) == {f'_f{i}' in replaced})" for i in range(n) if f"_f{i}" not in some
    )
    found = runs({f"rp_live_{n}": (text, check)}, tmp_path)
    assert found[f"rp_live_{n}"] is True, found
    assert replaced  # the family has replaced defs: the check can fail both ways
