"""A `replace` is obsolete on a release only where its new code takes effect (att23f F2): a release
holding `self.timeout = 60` only under a flag that is off, or storing `timeout = 30` again in a helper
called after it (or a module function rebinding a `global`), still needs the patch. The reference
is the release's own code, run: obsolete exactly where configure() leaves timeout at 60, as the
patched base does.
"""

from __future__ import annotations

import json
from typing import Any

from tests.lib.timeout_toy import entry, takes_effect

BASE = """\
FLAG = False
TIMEOUT = 30


class Engine:
    def configure(self):
        self.a = 1
        self.timeout = 30
        self.b = 2
"""
WITH = BASE.replace("self.timeout = 30", "self.timeout = 60")
RELEASES = {
    "1.0": BASE,
    "1.1": BASE.replace("        self.timeout = 30\n", "        if FLAG:\n            self.timeout = 60\n"),
    "1.2": WITH.replace("        self.b = 2\n", "        self.b = 2\n        self._defaults()\n\n")
    + "    def _defaults(self):\n        self.timeout = 30\n",
    "1.3": WITH.replace("        self.b = 2\n", "        self.b = 2\n        self.extra = 1\n"),  # upstream took it
    "1.4": "class Base:\n    timeout = 30\n\n\n"
    + WITH.replace("class Engine:", "class Engine(Base):").replace(
        "        self.timeout = 60\n", "        if FLAG:\n            self.timeout = 60\n"
    ),
}
ENTRY = entry("==1.0")


def test_a_replace_is_obsolete_only_where_running_the_release_gives_the_new_value(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback("radpatch-toy", {v: {"rptoy/core.py": src} for v, src in RELEASES.items()})
    reg = write_registry("longer", ENTRY)
    out = radpatch("--registry", str(reg), "verify", "longer", "--versions", ">=1.0", "--json").out
    obsolete = set(json.loads(out)["obsolete"])
    expected = {v for v, src in RELEASES.items() if v != "1.0" and takes_effect(src)}
    assert obsolete == expected
    assert expected == {"1.3"}  # the reference is not one answer
