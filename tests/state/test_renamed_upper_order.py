"""The upper of a stacked pair renamed, its `requires:` kept or dropped (att41 #8): status said "its
code is applied here as up ... `radpatch apply up2` records it under this name" whenever up2 writes
what up wrote, and apply then refused it when up2, no longer ordered after the lower entry, overlaps
it. Status now says what apply does, by apply's own overlap rule on what the takeover leaves
(write.takeover.refusal): records it, or is refused and why, with apply's own message.

Generated: requires kept or dropped x the upper inserting at the lower's own anchor (which applies
first decides the file), rewriting the line the lower writes (stacked: apply lets it be), inserting
in the gap the lower inserts into (either order writes the same file), or elsewhere (no overlap).
The reference is apply itself, run after status."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

from tests.lib.installed import DEMO_PATCH, Env
from tests.lib.registry import write_entry

UPPER = (
    'summary: s\ndescription: d\ndistribution: rphard-demo\nsupported: ">=1.0,<2"\n{requires}'
    "modules:\n  m: {module}\nrewrites:\n  - id: r\n    file: m\n    {op}\n"
)
AT = {  # where the upper entry writes, against the lower's rewrites (module, op)
    "same anchor": ("rphard_demo.alpha", 'insert_after: {scope: compute, find: "y = x + 1", code: "y = y - 1"}'),
    "stacked on the lower's code": (
        "rphard_demo.sub.beta",
        'replace: {scope: limit, find: "cap = 20", with: "cap = 30"}',
    ),
    "the lower's gap": (
        "rphard_demo.alpha",
        'insert_before: {scope: compute, find: "if os.environ.get(\\"RPHARD_VERBOSE\\"):\\n    print(y)", '
        'code: "y = y - 1"}',
    ),
    "elsewhere": ("rphard_demo.sub.beta", 'replace: {scope: limit, find: "return min(n, cap)", with: "return 0"}'),
}
CASES = list(itertools.product(list(AT), [True, False]))


def _upper(tmp: Path, name: str, at: str, requires: bool) -> Path:
    d = tmp / f"reg-{name}-{requires}"
    shutil.rmtree(d, ignore_errors=True)
    module, op = AT[at]
    text = UPPER.format(requires=f"requires: [{DEMO_PATCH}]\n" if requires else "", module=module, op=op)
    write_entry(d, name, text, dedent=False)
    return d


@pytest.mark.parametrize(("at", "kept"), CASES, ids=[f"{a}-{'kept' if k else 'dropped'}" for a, k in CASES])
def test_status_offers_the_takeover_exactly_when_apply_takes_it_over(
    demo_env: Env, tmp_path: Path, at: str, kept: bool
) -> None:
    env = demo_env
    lower = env.registries[0]
    env.registries = (lower, _upper(tmp_path, "up", at, True))
    out = env.run("apply", DEMO_PATCH, "up")
    assert out.returncode == 0, out.stdout + out.stderr
    record = env.record()

    env.registries = (lower, _upper(tmp_path, "up2", at, kept))  # renamed; its requires: kept or dropped
    st = env.run("status", "--json", "up2")
    reason = str(json.loads(st.stdout)[0]["reason"])
    assert "its code is applied here as up" in reason, reason
    offered = "records it under this name" in reason

    out = env.run("apply", "up2")  # the reference: what apply does
    assert offered is (out.returncode == 0), (reason, out.stdout + out.stderr)
    if offered:
        assert "took over the record of up" in out.stdout, out.stdout
    else:
        first = out.stderr.removeprefix("radpatch: error: ").splitlines()[0]
        assert f"is refused: {first}" in reason, (reason, out.stderr)
        assert env.record() == record  # nothing of the refused run stays: up's record given back
