"""A branch that ends in a call ends its path only where the callee surely never returns (attack on
issue 21, F1/F2): `from logging import warning` / `else: warning("no config")` then `return size`
was applied and raised UnboundLocalError (a function imported from the standard library was taken
as maybe never returning); so were a generator or coroutine function of the module's own whose body
raises (calling it raises nothing), a decorated one, and one a later `def` redefines to return.

Generated: the callee (standard-library imports that return, `from sys import exit` that does not,
the module's own helpers: raising, generator, async, decorated, redefined, classmethod) x how the
branch reads it. Oracle: the patched function run with a config and without: the names step
refuses exactly where a run raises UnboundLocalError."""

from __future__ import annotations

import warnings

import pytest

from tests.lib.branch_constructs import refused
from tests.lib.generated import sample

CALLEES = {
    "logging.warning": ("from logging import warning\n", "warning('no config')"),
    "json.dumps": ("from json import dumps\n", "dumps(cfg)"),
    "os.path.join": ("from os.path import join\n", "join('a', 'b')"),
    "aliased": ("from logging import warning as warn\n", "warn('no config')"),
    "sys.exit": ("from sys import exit\n", "exit(2)"),
    "own-raises": ("def boom():\n    raise ValueError('no config')\n\n\n", "boom()"),
    "own-generator": ("def boom():\n    raise ValueError('no config')\n    yield\n\n\n", "boom()"),
    "own-async": ("async def boom():\n    raise ValueError('no config')\n\n\n", "boom().close()"),
    "own-decorated": (
        "import contextlib\n\n\n@contextlib.contextmanager\ndef boom():\n    raise ValueError('x')\n    yield\n\n\n",
        "boom()",
    ),
    "own-redefined": ("def boom():\n    raise ValueError('x')\n\n\ndef boom():\n    return None\n\n\n", "boom()"),
}
CASES = sample(list(CALLEES))

BEFORE = "{head}def pick(cfg):\n    if cfg:\n        size = cfg['size']\n    else:\n        {call}\n    return 16\n"


def runs_unbound(code: str) -> bool:
    space: dict[str, object] = {}
    exec(code, space)
    pick = space["pick"]
    for cfg in ({"size": 3}, {}):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pick(cfg)  # type: ignore[operator]
        except UnboundLocalError:
            return True
        except (ValueError, SystemExit):
            continue
    return False


@pytest.mark.parametrize("callee", CASES)
def test_a_branch_ends_in_a_call_only_where_the_callee_never_returns(callee: str) -> None:
    head, call = CALLEES[callee]
    before = BEFORE.format(head=head, call=call)
    after = before.replace("    return 16\n", "    return size\n")
    assert bool(refused(before, after)) == runs_unbound(after), after
