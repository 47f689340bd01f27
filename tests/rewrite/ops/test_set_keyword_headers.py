"""set_keyword on a call in a `def` statement's header (kw37 F3, attack36; elem39 #2): a decorator's
call or a parameter's default is not in the scope's body, and the refusal said the scope has no such
call; then (kw37) it named the `replace_decorator` or `set_default` to write instead, which takes the
whole decorator or default and breaks when upstream touches another argument of it. Now, when the
scope's body holds no call it changes, set_keyword changes the one call in the headers of the
scope and of the definitions right in it (they run where the definition is made), and undoes it
there. Where several header calls match, the refusal still names the rewrite to write instead,
with the code as set_keyword would have left it; written so, it applies and undoes.

Generated: where the call is (a decorator of the scope, a default of its positional or
keyword-only parameter, a decorator or default of a method of the class scope, of a function of
the module scope, of a function nested in a function) x what set_keyword does (a value changed, a
keyword added, one taken away) x a second header call alike or not."""

from __future__ import annotations

import itertools

import pytest
import yaml

from radpatch.rewrite.ops.decorators import ReplaceDecorator
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
    "nested-decorator": ("def h():\n    @{call}\n    def m():\n        pass\n    return m\n", "h"),
}
# mode: (the call before, after, the operation)
MODES = {
    "change": ("g(1, k=2)", "g(1, k=3)", lambda scope: SetKeyword(scope, "g", "k", "2", "3")),
    "add": ("g(1)", "g(1, k=3)", lambda scope: SetKeyword(scope, "g", "k", None, "3")),
    "take": ("g(1, k=2)", "g(1)", lambda scope: SetKeyword(scope, "g", "k", "2", None)),
}
CASES = sample(list(itertools.product(PLACES, MODES)))


@pytest.mark.parametrize(("place", "mode"), CASES)
def test_the_one_call_in_a_definition_header_is_changed_there(place: str, mode: str) -> None:
    shape, scope = PLACES[place]
    was, now, make = MODES[mode]
    check(shape.format(call=was), make(scope), shape.format(call=now))


TWICE = "@{call}\ndef f(a={call}):\n    return a\n"


@pytest.mark.parametrize("mode", MODES)
def test_several_calls_in_headers_get_the_rewrite_to_write_instead(mode: str) -> None:
    was, now, make = MODES[mode]
    source = TWICE.format(call=was)
    refused = refuse(source, make("f"))
    assert "2 calls in the headers of `f`" in refused.message, refused.message
    assert refused.hint.startswith("write instead: "), refused.hint
    said = yaml.safe_load(refused.hint.removeprefix("write instead: "))
    ((key, keys),) = said.items()
    assert key == "replace_decorator", said
    check(
        source,
        ReplaceDecorator(keys["function"], keys["find"], keys["with"]),
        f"@{now}\ndef f(a={was}):\n    return a\n",
    )


def test_a_call_in_the_body_is_changed_before_one_in_a_header() -> None:
    source = "@g(k=2)\ndef f(a):\n    return g(k=2)\n"
    check(source, SetKeyword("f", "g", "k", "2", "3"), "@g(k=2)\ndef f(a):\n    return g(k=3)\n")
