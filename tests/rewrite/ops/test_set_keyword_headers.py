"""set_keyword on a call in a `def` statement's header (kw37 F3, attack36): a decorator's call or a
parameter's default is not in the scope's body, which set_keyword searches, and the refusal said the
scope has no such call. Those run where the definition is made; `replace_decorator` and
`set_default` change them. The refusal now names where the call is and the rewrite to write
instead, with the code as set_keyword would have left it; written so, it applies and undoes.

Generated: where the call is (a decorator of the scope, a default of its positional or
keyword-only parameter, a decorator or default of a method of the class scope, of a function of
the module scope) x what set_keyword does (a value changed, a keyword added, one taken away)."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import yaml

from radpatch.rewrite.ops.decorators import ReplaceDecorator
from radpatch.rewrite.ops.set_default import SetDefault
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.rewrites import check, refuse

# where: (module source with {call} where the call is, the scope set_keyword names)
PLACES = {
    "decorator": ("@{call}\ndef f(a):\n    return a\n", "f"),
    "default": ("def f(a={call}):\n    return a\n", "f"),
    "kwonly-default": ("def f(*, a=[{call}]):\n    return a\n", "f"),
    "method-decorator": ("class C:\n    @{call}\n    def m(self):\n        pass\n", "C"),
    "method-default": ("class C:\n    def m(self, a={call}):\n        pass\n", "C"),
    "function-default": ("def f(a={call}):\n    return a\n", "<module>"),
    # another call to the callee in the same header: `header:` could not tell them apart
    "decorator-beside-another": ("@{call}\n@g(0)\ndef f(a):\n    return a\n", "f"),
    "default-beside-another": ("def f(a={call}, b=g(0)):\n    return a\n", "f"),
}
# mode: (the call before, after, the operation)
MODES = {
    "change": ("g(1, k=2)", "g(1, k=3)", lambda scope: SetKeyword(scope, "g", "k", "2", "3")),
    "add": ("g(1)", "g(1, k=3)", lambda scope: SetKeyword(scope, "g", "k", None, "3")),
    "take": ("g(1, k=2)", "g(1)", lambda scope: SetKeyword(scope, "g", "k", "2", None)),
}
CASES = sample(list(itertools.product(PLACES, MODES)))


@pytest.mark.parametrize(("place", "mode"), CASES)
def test_a_call_in_a_definition_header_gets_the_rewrite_to_write_instead(place: str, mode: str) -> None:
    shape, scope = PLACES[place]
    was, now, make = MODES[mode]
    source, after = shape.format(call=was), shape.format(call=now)
    refused = refuse(source, make(scope))
    assert refused.hint.startswith("write instead: "), refused.hint
    said = yaml.safe_load(refused.hint.removeprefix("write instead: "))
    ((key, keys),) = said.items()
    header = "decorators" if "decorator" in place else "defaults"
    assert f"searches only with `header: {header}`" in refused.message, refused.message
    op: ReplaceDecorator | SetDefault | SetKeyword
    if "another" not in place:  # the call alone of its callee there: the same set_keyword, with header:
        assert key == "set_keyword" and keys["header"] == header, said
        op = SetKeyword(keys["scope"], keys["call"], keys["keyword"], keys.get("from"), keys.get("to"), header=header)
        assert dataclasses.replace(op, scope=scope, header=None) == make(scope) or scope != keys["scope"], said
    elif header == "decorators":
        assert key == "replace_decorator", said
        op = ReplaceDecorator(keys["function"], keys["find"], keys["with"])
    else:
        assert key == "set_default", said
        op = SetDefault(keys["function"], keys["parameter"], keys["from"], keys["to"])
    check(source, op, after)
