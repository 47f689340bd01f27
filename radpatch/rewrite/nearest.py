"""The closest candidate a no-match refusal shows: the most similar code of the scope, when it is
plausibly what `find` meant, or a statement assigning the same target."""

from __future__ import annotations

import ast
import difflib
import textwrap
from collections.abc import Sequence

import libcst as cst

from radpatch.rewrite.matching import code_of, line_of
from radpatch.rewrite.patterns import pretty

PLAUSIBLE = 0.75  # similarity from which a candidate is shown as probably the intended code

_CLOSEST: list[tuple[cst.Module, Sequence[cst.CSTNode], str, int, tuple[str, bool]]] = []  # the last few answers


def closest(module: cst.Module, candidates: Sequence[cst.CSTNode], pattern: str, offset: int = 0) -> tuple[str, bool]:
    """('closest candidate (line N, 80% similar): <code>', plausible) for a no-match message;
    the candidate is shown only when it is plausibly what `find` meant (PLAUSIBLE). The last
    few answers are kept (with the nodes they concern, so an identity is never reused): a
    drifted file's status asks the same of the same tree when undoing and when applying."""
    for m, nodes, pat, off, answer in _CLOSEST:
        if (
            m is module
            and pat == pattern
            and off == offset
            and len(nodes) == len(candidates)
            and all(a is b for a, b in zip(nodes, candidates))
        ):
            return answer
    answer = _closest(module, candidates, pattern, offset)
    _CLOSEST[:] = [(module, tuple(candidates), pattern, offset, answer), *_CLOSEST[:1]]
    return answer


def _closest(module: cst.Module, candidates: Sequence[cst.CSTNode], pattern: str, offset: int) -> tuple[str, bool]:
    if not candidates:
        return "nothing in the scope is similar to it", False
    want = pretty(pattern)
    best: tuple[float, str, cst.CSTNode] | None = None  # the first candidate of the highest ratio
    for node in candidates:
        text = code_of(module, node).strip()
        try:
            norm = pretty(text)
        except (SyntaxError, RecursionError):
            norm = text
        sm = difflib.SequenceMatcher(None, want, norm)
        # the quick ratios bound ratio() from above: a candidate they rule out cannot win (a tie
        # does not win either: the first of equal candidates is shown)
        if (
            sm.real_quick_ratio() < PLAUSIBLE
            or sm.quick_ratio() < PLAUSIBLE
            or best is not None
            and sm.quick_ratio() <= best[0]
        ):
            continue
        ratio = sm.ratio()
        if ratio >= PLAUSIBLE and (best is None or ratio > best[0]):
            best = (ratio, norm, node)
    if best is None:
        same = _same_target(module, candidates, pattern)
        if same is not None:
            node, text = same
            shown = text if len(text) < 400 else text[:400] + " ..."
            line = line_of(module, node) + offset
            return f"the code assigns the same target at line {line}:\n{textwrap.indent(shown, '      ')}", True
        return "nothing in the scope is similar to it", False
    ratio, norm, node = best
    line = line_of(module, node) + offset
    shown = norm if len(norm) < 400 else norm[:400] + " ..."
    return f"closest candidate (line {line}, {ratio:.0%} similar):\n{textwrap.indent(shown, '      ')}", True


def _targets(code: str) -> set[str]:
    """The targets `code` assigns when it is one assignment (`x = 1`, `x: T = 1`, `x += 1`), else none."""
    try:
        body = ast.parse(textwrap.dedent(code)).body
    except (SyntaxError, ValueError, RecursionError):
        return set()
    if len(body) != 1:
        return set()
    node = body[0]
    if isinstance(node, ast.Assign):
        return {ast.unparse(t) for t in node.targets}
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return {ast.unparse(node.target)}
    return set()


def _same_target(module: cst.Module, candidates: Sequence[cst.CSTNode], pattern: str) -> tuple[cst.CSTNode, str] | None:
    """The first candidate statement assigning what the pattern assigns (`x = True` against the
    code's `x: ClassVar[bool] = True`): a `find` that missed an annotation or the operator."""
    want = _targets(pattern)
    if not want:
        return None
    for node in candidates:
        if isinstance(node, cst.SimpleStatementLine):
            text = code_of(module, node).strip()
            if _targets(text) & want:
                return node, text
    return None
