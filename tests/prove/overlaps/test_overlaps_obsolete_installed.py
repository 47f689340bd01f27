"""An entry declared `obsolete:` on the installed release changes nothing there (apply says
"nothing to do"), so it takes no part in apply's overlap refusal (att23c N5): applied together
with an entry inserting at the same anchor, the other entry is applied and the module runs its
code. On a release where it is not obsolete the pair is still refused, naming both."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.lib.site import Site

CORE = "class Engine:\n    def stop(self):\n        return 0\n"
HEAD = 'summary: t\ndescription: t\ndistribution: toypkg\nsupported: ">=0.9"\nmodules:\n  m: toypkg.core\n'
OBS = (
    HEAD
    + 'obsolete: "{obsolete}"\nrewrites:\n  - insert_before: {{scope: Engine.stop, find: return 0, code: self.a = 1}}\n'
)
ST = HEAD + "rewrites:\n  - insert_before: {scope: Engine.stop, find: return 0, code: self.b = 2}\n"


def _stopped(site: Site) -> str:
    """`vars(e)` after `Engine().stop()`, the installed module imported in a fresh interpreter."""
    code = "import toypkg.core as c; e = c.Engine(); e.stop(); print(sorted(vars(e).items()))"
    env = {"PYTHONPATH": str(site.root), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout


@pytest.mark.parametrize("obsolete", [">=1.0", ">=0.9"])
def test_an_entry_obsolete_on_the_installed_release_does_not_refuse_another(
    site: Site, radpatch: Any, write_registry: Any, obsolete: str
) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    write_registry("obs", OBS.format(obsolete=obsolete))
    reg = write_registry("st", ST)
    r = radpatch("--registry", str(reg), "apply", "st", "obs")
    assert r.code == 0, r.out + r.err
    assert _stopped(site).strip() == "[('b', 2)]"


def test_the_pair_is_refused_where_the_entry_is_not_obsolete(site: Site, radpatch: Any, write_registry: Any) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    write_registry("obs", OBS.format(obsolete=">=2.0"))
    reg = write_registry("st", ST)
    before = site.snapshot()
    r = radpatch("--registry", str(reg), "apply", "st", "obs")
    assert r.code == 1, r.out + r.err
    assert "st and obs overlap" in r.err or "obs and st overlap" in r.err
    assert site.snapshot() == before


def test_overlaps_are_found_only_on_releases_where_the_entry_is_not_obsolete(write_registry: Any) -> None:
    from packaging.version import Version

    from radpatch.prove.overlaps import pairs
    from radpatch.registry.loader import load_patch

    reg = write_registry("obs", OBS.format(obsolete=">=1.0"))
    write_registry("st", ST)
    pair = [load_patch(reg / "obs.yaml"), load_patch(reg / "st.yaml")]
    found = pairs.find(pair, [Version("0.9"), Version("1.0"), Version("1.1")])
    assert [o.versions for o in found] == [(Version("0.9"),)]
