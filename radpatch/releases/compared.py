"""What verify compares to tell whether a release carries an entry's change (radpatch.releases.carried,
bindings, replaced, carried_order): the change, read off a release it was written for (the base) as
its module before the rewrites and after them, and the release's module, with what a decorator
of the release's module is read from; and the scopes of a module, named as all four name them."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

from radpatch.prove.star_exports import ModuleSource


@dataclass(frozen=True)
class Compared:
    """A change and the release it is compared with."""

    before: bytes  # the base's module, before the rewrites
    after: bytes  # the base's module after them: the change's result
    release: bytes  # the release's module
    me: tuple[str, bool] | None = None  # the release's module: (dotted name, is a package)
    sources: tuple[ModuleSource, ...] = ()  # the modules of its package its decorators are imported from


def scope_name(taken: Container[str], scope: str, name: str) -> str:
    """The scope of the definition `name` in `scope` ("" for the module): `Class.method`; a second
    definition of the name in the same scope (a conditional redefinition) is `name#2`, and so on,
    past the names already `taken`."""
    out = f"{scope}.{name}" if scope else name
    n = 2
    while out in taken:
        out = f"{scope}.{name}#{n}" if scope else f"{name}#{n}"
        n += 1
    return out
