"""What the proof steps share: the rewrites run on a module's bytes, one parse of each version of a
module for the names and placement steps (and the rewrites' index of it), and the target
interpreter asked when it is another Python version than radpatch's own."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from types import CodeType

from radpatch.errors import RefusedError, Undecodable
from radpatch.gcpause import paused
from radpatch.install import target_python
from radpatch.install.environment import PythonEnv
from radpatch.prove import names, placement, target_probe
from radpatch.prove.names.mangling import mangled
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite.source import decode, remember


def forward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, filename: str) -> bytes:
    from radpatch.rewrite import runner  # libcst loads only when a proof runs the rewrites

    return runner.forward(patch, rws, source, filename)


def backward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, filename: str) -> bytes:
    from radpatch.rewrite import runner

    return runner.backward(patch, rws, source, filename)


def short(exc: RefusedError) -> tuple[str, str | None]:
    """The refusal without the patch and file it concerns, and the id of the rewrite it names (if any)."""
    from radpatch.rewrite import refused

    return refused.short(exc), exc.rewrite if isinstance(exc, refused.RewriteRefused) else None


@dataclass(frozen=True)
class Analysis:
    """What the names and placement proofs need of one version of a module, from one parse of
    it, which also gives the rewrites their index of it (source.remember): the tree is freed
    before another version is parsed, so one whole-module tree is alive at a time. compile()
    runs on the bytes, separately (compiled): compiling the tree would hold it and the
    compiler's own copy of it at once."""

    problems: tuple[names.Problem, ...] | None  # None: not parsed, or too deeply nested to walk
    placement: placement.Placement | None  # None: not parsed, or too deeply nested to walk
    unparsed: str = ""  # why radpatch's own Python could not analyse it (the exception's name)


def _why(exc: SyntaxError | ValueError) -> str:
    return f"{getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"


def compiled(data: bytes, filename: str) -> tuple[str | None, CodeType | None]:
    """(why `data` does not compile ("message (line N)"), None), or (None, its code)."""
    try:
        return None, compile(data, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return _why(exc), None
    except (RecursionError, MemoryError):
        return "too deeply nested to compile", None


@functools.lru_cache(maxsize=4)
def analysis_of(data: bytes, module: tuple[str, bool] | None = None) -> Analysis:
    with paused():
        try:
            text: str | None = decode(data)[0]
        except Undecodable:
            text = None  # ast.parse says why
        try:
            tree = ast.parse(data if text is None else text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return Analysis(None, None, type(exc).__name__)
        if text is not None:
            try:
                remember(text, tree)  # the rewrites' own index of this text: no second parse
            except (RecursionError, MemoryError) as exc:  # a tree Python parses but is too deep to walk
                return Analysis(None, None, type(exc).__name__)
        try:
            found: tuple[names.Problem, ...] | None = tuple(
                names.problems_in(mangled(tree, data if text is None else text), None, module, facts=True)
            )
        except (RecursionError, MemoryError):
            found = None
        try:
            return Analysis(found, placement.placement(tree, data, module))
        except (RecursionError, MemoryError) as exc:
            return Analysis(found, None, type(exc).__name__)


def other_python(python: PythonEnv | None) -> bool:
    """Is the target another Python version than radpatch's own (its grammar, builtins, stdlib)?"""
    return python is not None and not target_python.same_grammar(python.executable, python.version)


def on_target(
    python: PythonEnv, before: bytes, after: bytes, filename: str, module: str | None = None
) -> target_probe.ProbeResult:
    target = target_probe.Probe(python.executable, tuple(str(p) for p in python.paths), module)
    return target_probe.check(target, _text(before), after, _text(after), filename)


def for_python(python: PythonEnv | None) -> str:
    return f" for Python {python.version[0]}.{python.version[1]}" if python is not None and other_python(python) else ""


def _text(data: bytes) -> str:
    return decode(data)[0]


def analyse(data: bytes, module: str | None = None, filename: str = "") -> None:
    """Parse `data` once for its proofs and the rewrites' index of it (kept for the next steps)."""
    analysis_of(data, names.module_of(module, filename))
