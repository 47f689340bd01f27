"""A deletion of `self.timeout = 30` is not carried by a release that still ends with `timeout`
set another way the module's bindings do not spell as an assignment (att23f F1): `setattr` passed
as a value (`map(setattr, [self], ...)`), or a property / cached_property named like the attribute.
The reference is the release's own code, run: upstream carries the change exactly when an Engine
has no `timeout` after `configure()`, as the patched base has none.
"""

from __future__ import annotations

import functools

from radpatch.releases import carried
from radpatch.releases.compared import Compared

BASE = """\
import functools

TIMEOUT = 30


class Engine:
    def configure(self):
        self.a = 1
        self.timeout = 30
        self.b = 2

    def stop(self):
        self.a = 0
        return 0
"""
AFTER = BASE.replace("        self.timeout = 30\n", "")


def _in_configure(line: str) -> str:
    return AFTER.replace("        self.b = 2\n", f"        {line}\n        self.b = 2\n")


def _method(decorator: str, name: str) -> str:
    method = f"    {decorator}\n" if decorator else ""
    method += f"    def {name}(self):\n        return TIMEOUT\n\n"
    return AFTER.replace("    def stop(self):", method + "    def stop(self):")


RELEASES = {
    "dropped": AFTER,
    "map-setattr": _in_configure('list(map(setattr, [self], ["timeout"], [30]))'),
    "setattr-alias": _in_configure('put = setattr\n        put(self, "timeout", 30)'),
    "cached-property": _method("@functools.cached_property", "timeout"),
    "property": _method("@property", "timeout"),
    "other-method": _method("", "pause"),
}


def runs_like_the_patch(source: str) -> bool:
    space: dict[str, object] = {"functools": functools}
    exec(compile(source, "release", "exec"), space)  # noqa: S102 - the release's own code decides
    engine = space["Engine"]()  # type: ignore[operator]
    engine.configure()
    return not hasattr(engine, "timeout")


def test_a_deletion_is_carried_only_where_running_the_release_leaves_the_attribute_unset() -> None:
    seen = {True: 0, False: 0}
    for name, source in RELEASES.items():
        expected = runs_like_the_patch(source)
        assert carried.carries(Compared(BASE.encode(), AFTER.encode(), source.encode())) is expected, name
        seen[expected] += 1
    assert seen[True] == 2 and seen[False] == 4  # the reference is not one answer
