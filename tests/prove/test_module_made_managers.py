"""Context managers the module makes itself that swallow (att43 #4): `with M: n = int(a); v = 1` then
`return v` was applied for a="s" (UnboundLocalError) where M was a `@contextmanager` generator whose
`yield` sits in `with contextlib.suppress(E):` or in `try:` with `finally: return`, a generator
wrapped by a call (`quiet = contextlib.contextmanager(_gen)`), a class given `__exit__` after it is
made (`Q.__exit__ = lambda self, *e: True`), or a class made by `type("Q", (contextlib.suppress,), {})`:
only a `@contextmanager` decorator spelled so, over a yield in a `try` with a handler, was known.

Generated, as Python (the oracle runs f on "s" and "1": the names step refuses exactly where one
raises NameError):
- generators: where the `yield` sits (a try with a handler, one whose handler re-raises, a finally
  that returns or breaks, one that does not, a `with` of a swallowing manager or of nullcontext, a
  `yield from` a swallowing generator or a plain one, a yield after a try, a plain yield) x how it is
  made a manager (decorated, under an alias, by the module's own wrapper, a call assigned or inline,
  a method) x where it is defined (the module, the function);
- classes: how `__exit__` is given (assigned after the class, setattr, `type(...)` from a base or
  with a namespace dict or `dict(...)`, `types.new_class`, a decorator that changes what it returns)
  x what it returns (swallowing, or not: nullcontext, a lambda of None) x where. A decorated
  `__exit__` is taken as may swallow (DOUBTED): only the sound side is asked of it.
The plain yields and the non-swallowing classes are the controls: they stay accepted."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

HEADER = "import contextlib\nimport types\nfrom contextlib import contextmanager as cm\n\n\n"
INNER = {  # `_inner`, the generator a `yield from` delegates to
    "swallowing": "def _inner():\n    try:\n        yield\n    except ValueError:\n        pass\n",
    "plain": "def _inner():\n    yield\n",
}
YIELDS = {  # the generator's body: where its yield sits
    "try-except": "try:\n    yield\nexcept ValueError:\n    pass\n",
    "try-except-reraise": "try:\n    yield\nexcept ValueError:\n    raise\n",
    "try-finally-return": "try:\n    yield\nfinally:\n    return\n",
    "loop-finally-break": "for _ in range(1):\n    try:\n        yield\n    finally:\n        break\n",
    "try-finally-plain": "try:\n    yield\nfinally:\n    done = 1\n",
    "with-suppress": "with contextlib.suppress(ValueError):\n    yield\n",
    "with-nullcontext": "with contextlib.nullcontext():\n    yield\n",
    "yield-from-swallowing": "yield from _inner()\n",
    "yield-from-plain": "yield from _inner()\n",
    "after-a-try": "try:\n    pass\nexcept ValueError:\n    pass\nyield\n",
    "plain": "yield\n",
}
WRAPPINGS = {  # (the code making the manager from `{gen}`, a def of the generator; the manager expression)
    "decorator": ("@contextlib.contextmanager\n{gen}", "quiet()"),
    "from-import-alias": ("@cm\n{gen}", "quiet()"),
    "assigned-alias": ("ctx = contextlib.contextmanager\n\n\n@ctx\n{gen}", "quiet()"),
    "own-wrapper": ("def wrap(g):\n    return contextlib.contextmanager(g)\n\n\n@wrap\n{gen}", "quiet()"),
    "call-assigned": ("{gen}\n\nquiet = contextlib.contextmanager(_gen)\n", "quiet()"),
    "call-inline": ("{gen}", "cm(_gen)()"),
    "call-of-alias": ("{gen}\n\n_g2 = _gen\nquiet = contextlib.contextmanager(_g2)\n", "quiet()"),
    "wrapper-keyword": ("def wrap(g):\n    return cm(g)\n\n\n{gen}\n\nquiet = wrap(g=_gen)\n", "quiet()"),
    "method": ("class H:\n{method}", "H().quiet()"),
}
CLASSES = {  # how a class gets its `__exit__`; {r} is True, or None; {base} suppress, or nullcontext
    "exit-after": "class Q:\n{plain}\n\nQ.__exit__ = lambda self, *e: {r}\n",
    "setattr-exit": "class Q:\n{plain}\n\nsetattr(Q, '__exit__', lambda self, *e: {r})\n",
    "type-base": 'Q = type("Q", (contextlib.{base},), {{}})\n',
    "type-namespace": 'Q = type("Q", (), {{"__enter__": lambda self: self, "__exit__": lambda self, *e: {r}}})\n',
    "type-dict": 'Q = type("Q", (), dict(__enter__=lambda self: self, __exit__=lambda self, *e: {r}))\n',
    "new-class": 'Q = types.new_class("Q", (contextlib.{base},))\n',
    "decorated-exit": "def _returns(f):\n    return lambda *e: {r}\n\n\nclass Q:\n{decorated}",
}
# a decorator may change what `__exit__` returns: the walk takes a decorated one as may swallow, so
# for these only the sound side is asked (a refusal wherever a run raises), not an acceptance
DOUBTED = ("decorated-exit",)
PLAIN_CLASS = indent("def __enter__(self):\n    return self\n\ndef __exit__(self, *e):\n    return None\n")
DECORATED = PLAIN_CLASS.replace("    def __exit__", "    @_returns\n    def __exit__")


def generator(shape: str, wrapping: str) -> tuple[str, str]:
    """The code making a generator manager (its `_inner` first), and the manager expression."""
    make, expr = WRAPPINGS[wrapping]
    name = "_gen" if wrapping.startswith(("call", "wrapper")) else "quiet"
    body = indent(YIELDS[shape])
    if wrapping == "method":
        code = make.format(method=indent(f"@contextlib.contextmanager\ndef quiet(self):\n{body}"))
    else:
        code = make.format(gen=f"def {name}():\n{body}")
    inner = INNER["plain" if shape == "yield-from-plain" else "swallowing"]
    return inner + "\n\n" + code, expr


def klass(kind: str, swallows: bool) -> tuple[str, str]:
    """The code making a class manager, and the manager expression."""
    code = CLASSES[kind].format(
        plain=PLAIN_CLASS, decorated=DECORATED, r=swallows, base="suppress" if swallows else "nullcontext"
    )
    return code, "Q(ValueError)" if kind in ("type-base", "new-class") else "Q()"


def function(make: str, expr: str, where: str, read: str) -> str:
    body = f"with {expr}:\n    n = int(a)\n    v = 1\n{read}return -1\n"
    if where == "function":
        return HEADER + "def f(a):\n" + indent(make + "\n" + body)
    return HEADER + make + "\n\ndef f(a):\n" + indent(body)


def runs_unbound(source: str) -> bool:
    return f_raises_name_error(source, [("s",), ("1",)], (ValueError,))


def judged_as_run(make: str, expr: str, where: str, doubted: bool = False) -> None:
    after = function(make, expr, where, "return v\n")
    found = introduced(function(make, expr, where, "").encode(), after.encode())
    assert found is not None, after
    if doubted:
        assert found or not runs_unbound(after), after
        return
    assert bool(found) == runs_unbound(after), (after, [p.describe() for p in found])


GENERATORS = sample(list(itertools.product(YIELDS, WRAPPINGS, ("module", "function"))))
MADE_CLASSES = sample(list(itertools.product(CLASSES, (True, False), ("module", "function"))))


@pytest.mark.parametrize(("shape", "wrapping", "where"), GENERATORS, ids=["-".join(c) for c in GENERATORS])
def test_a_generator_manager_is_judged_as_it_runs(shape: str, wrapping: str, where: str) -> None:
    judged_as_run(*generator(shape, wrapping), where)


@pytest.mark.parametrize(("kind", "swallows", "where"), MADE_CLASSES, ids=[f"{k}-{s}-{w}" for k, s, w in MADE_CLASSES])
def test_a_class_given_its_exit_is_judged_as_it_runs(kind: str, swallows: bool, where: str) -> None:
    judged_as_run(*klass(kind, swallows), where, kind in DOUBTED)
