"""What a typo in a rewrite is told (att54 #3, #8): remove_element of an element the display lacks
and remove_decorator of a decorator the function lacks were refused as "already contains what the
patch adds ... declare it in `obsolete:`" (following the hint made apply a silent no-op); set_constant
of a name the module does not assign got no "closest:", and set_item's unquoted `key: timeout` was
not told that a key is Python.

Generated: display kind x element written (a typo of an element, one far from all, another type) x
whether the display holds it; decorators the function has x the one removed; a constant's name x a
typo of it; a string key x the spelling written. The oracle is Python running the module: whether
the display holds the element (`in`), whether the function carries the decorator (ast), whether the
module binds the name, whether the dict has the string key. Where it does not, apply exits 1 with
what is missing and its closest candidates, and never says `obsolete:`; where it does, apply works.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import pytest

from tests.lib.generated import sample
from tests.lib.registry import write_entry
from tests.lib.site import Site


class Ran(Protocol):
    code: int
    out: str
    err: str


HEAD = 'summary: s\ndescription: d\ndistribution: toypkg\nsupported: ">=1.0"\nmodules:\n  m: toypkg.core\nrewrites:\n'


def _run(site: Site, tmp_path: Path, radpatch: Callable[..., Ran], module: str, rewrite: str) -> tuple[Ran, dict]:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": module})
    reg = tmp_path / "reg"
    write_entry(reg, "X", HEAD + f"  - {rewrite}\n", dedent=False)
    result = radpatch("--registry", str(reg), "apply", "X")
    namespace: dict[str, object] = {}
    exec(compile((site.root / "toypkg" / "core.py").read_bytes(), "core.py", "exec"), namespace)
    return result, namespace


def _refused_as_missing(result: Ran, *said: str) -> None:
    assert result.code == 1, result
    assert "already contains" not in result.err and "obsolete" not in result.err, result.err
    assert "internal error" not in result.err and len(result.err.strip().splitlines()) <= 2, result.err
    for s in said:
        assert s in result.err, result.err


DISPLAYS = {"list": '["alpha", "beta", 3]', "tuple": '("alpha", "beta", 3)', "set": '{"alpha", "beta", 3}'}
ELEMENTS = ('"alpha"', '"alpah"', '"zzz"', "4", "alpha")


@pytest.mark.parametrize(("display", "element"), sample(list(itertools.product(DISPLAYS, ELEMENTS))))
def test_remove_element_of_an_element_the_display_lacks_says_it_is_missing(
    display: str, element: str, site: Site, tmp_path: Path, radpatch: Callable[..., Ran]
) -> None:
    module = f"FLAGS = {DISPLAYS[display]}\n"
    holds = eval(element, {"alpha": object()}) in eval(DISPLAYS[display])  # the oracle: Python's `in`
    quoted = element.replace('"', '\\"')
    place = ", before: '\"beta\"'" if holds else ""  # where it was: undoing puts it back there
    rewrite = f'remove_element: {{scope: <module>, name: FLAGS, element: "{quoted}"{place}}}'
    result, after = _run(site, tmp_path, radpatch, module, rewrite)
    if holds:
        assert result.code == 0, result
        assert eval(element) not in after["FLAGS"]  # type: ignore[operator]
        return
    _refused_as_missing(result, f"has no element {element}", "closest: ")


DECORATED = {"none": "", "cache": "@functools.cache\n", "two": "@functools.cache\n@functools.wraps(print)\n"}
REMOVED = ("functools.cache", "functools.lru_cache", "staticmethod")


@pytest.mark.parametrize(("decorated", "removed"), sample(list(itertools.product(DECORATED, REMOVED))))
def test_remove_decorator_of_a_decorator_the_function_lacks_says_what_it_has(
    decorated: str, removed: str, site: Site, tmp_path: Path, radpatch: Callable[..., Ran]
) -> None:
    module = f"import functools\n\n\n{DECORATED[decorated]}def f(x):\n    return x\n"
    decorators = ast.parse(module).body[1].decorator_list  # type: ignore[attr-defined]
    outer = ast.dump(decorators[0]) if decorators else None
    result, _ = _run(site, tmp_path, radpatch, module, f"remove_decorator: {{function: f, decorator: {removed}}}")
    if outer == ast.dump(ast.parse(removed, mode="eval").body):  # the oracle: the outermost decorator, as ast reads it
        assert result.code == 0, result
        return
    has = ", ".join("@" + ast.unparse(d) for d in decorators)
    _refused_as_missing(result, f"@{removed}", f"(it has: {has})" if decorators else "(it has no decorators)")


NAMES = ("LIMIT", "MAX_TOKENS", "timeout_s")
TYPOS: dict[str, Callable[[str], str]] = {
    "swapped": lambda n: n[:2] + n[3] + n[2] + n[4:],
    "dropped": lambda n: n[:2] + n[3:],
    "case": lambda n: n.swapcase(),
    "same": lambda n: n,
}


@pytest.mark.parametrize(("name", "typo"), sample(list(itertools.product(NAMES, TYPOS))))
def test_set_constant_of_a_name_the_module_lacks_shows_the_closest(
    name: str, typo: str, site: Site, tmp_path: Path, radpatch: Callable[..., Ran]
) -> None:
    module = f"import os\n\n{name} = 5\nOTHER = 1\n"
    written = TYPOS[typo](name)
    result, after = _run(site, tmp_path, radpatch, module, f"set_constant: {{name: {written}, from: 5, value: 6}}")
    if written in after and typo == "same":  # the oracle: the module binds the name written
        assert result.code == 0 and after[written] == 6, result
        return
    assert written not in {k for k in after if k != "__builtins__"} - {name, "OTHER", "os"}
    _refused_as_missing(result, f"does not assign {written}", f"closest: {name}")


KEYS = ("timeout", "max-retries", "a b")


@pytest.mark.parametrize(("key", "quoted"), sample(list(itertools.product(KEYS, (False, True)))))
def test_set_item_with_a_key_written_as_a_name_shows_the_string_key(
    key: str, quoted: bool, site: Site, tmp_path: Path, radpatch: Callable[..., Ran]
) -> None:
    module = f'CFG = {{"{key}": 1, "other": 2}}\n'
    written = f'"{key}"' if quoted else key
    yaml_key = "'" + written + "'"
    result, after = _run(
        site,
        tmp_path,
        radpatch,
        module,
        f"set_item: {{scope: <module>, name: CFG, key: {yaml_key}, from: 1, value: 3}}",
    )
    try:
        found = eval(written, {}) in after["CFG"]  # type: ignore[operator]  # the oracle: Python reads the key written
    except (NameError, SyntaxError):
        found = False
    if found:
        assert result.code == 0 and after["CFG"][key] == 3, result  # type: ignore[index]
        return
    assert result.code in (1, 2), result
    if result.code == 1:  # a key Python reads as an expression the dict lacks (a name): shown as the string
        _refused_as_missing(result, f"'\"{key}\"'")
