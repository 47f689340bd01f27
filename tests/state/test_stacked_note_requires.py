"""An entry whose code builds on a lower entry's (the lower one does not come off its result) is
applied with a note that the lower one is not proven again there. The note asks for `requires:` only
where the entry does not already require the lower one, directly or through another entry it
requires (att59 F4: every apply of an imported series asked for the `requires:` it had)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.site import Site


def _entry(name: str, find: str, with_: str, requires: tuple[str, ...]) -> str:
    needs = f"requires: [{', '.join(requires)}]\n" if requires else ""
    return (
        f'summary: {name}\ndescription: d\ndistribution: stk\nsupported: ">=1.0"\n{needs}'
        "modules:\n  core: stk.core\nrewrites:\n"
        f'  - {{id: r, replace: {{scope: f, find: "{find}", with: "{with_}"}}}}\n'
    )


CHAINS = {  # top's requires -> whether the note may ask for `requires: [a]` on the top entry
    "direct": ({"b": ("a",)}, False),
    "through-b": ({"b": ("a",), "c": ("b",)}, False),
    "undeclared": ({"b": (), "c": ()}, True),
}


@pytest.mark.parametrize("chain", list(CHAINS))
def test_the_note_asks_for_requires_only_where_it_is_missing(
    chain: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    requires, asks = CHAINS[chain]
    site.install("stk", "1.0", {"stk/__init__.py": "", "stk/core.py": "def f(x):\n    b = x * 2\n    return b\n"})
    write_registry("a", _entry("a", "b = x * 2", "b = x * 3", ()))
    write_registry("b", _entry("b", "b = x * 3", "b = x * 3 + 1", requires["b"]))
    top = ("c", _entry("c", "b = x * 3 + 1", "b = x * 3 + 2", requires["c"])) if chain != "direct" else None
    if chain == "direct":
        reg = write_registry("b", _entry("b", "b = x * 3", "b = x * 3 + 1", ("a",)))
        names = ["a", "b"]
    else:
        assert top is not None
        reg = write_registry(*top)
        names = ["a", "b", "c"]
    r = radpatch("--registry", str(reg), "apply", *names)
    assert r.code == 0, r.err
    said = r.out + r.err
    assert "does not come off" in said, said  # the note is there
    asked = [ln for ln in said.splitlines() if "declare `requires: [a]`" in ln]
    assert bool(asked) is asks, said
    if not asks:
        assert "as its `requires:` says" in said, said
