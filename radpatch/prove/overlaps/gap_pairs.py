"""Two insertions that go into one gap of a file although the registry text says no shared anchor
(prove.overlaps.gaps): an `add_import` (or a new `set_constant`) and an insertion at the imports' end, and
two that radpatch places after the imports, which commute when each binds names the other leaves
alone (prove.overlaps.commute); and `module_of`, the module a rewrite changes on a release. Asked by
prove.overlaps.pairs (list, verify) and prove.overlaps.apply_check (apply)."""

from __future__ import annotations

from packaging.version import Version

from radpatch.prove.overlaps import commute, gaps
from radpatch.prove.overlaps.installed_files import InstalledTexts
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.registry.touch import Touch
from radpatch.registry.versions import allows


def module_of(p: Patch, rw: Rewrite, v: Version) -> str | None:
    """The module the rewrite changes on release `v`; None where it changes nothing there (out of
    the entry's range or its own, or the entry declared `obsolete:` there: apply does nothing)."""
    if not allows(p.supported, v) or not rw.applies_to(v) or (p.obsolete is not None and allows(p.obsolete, v)):
        return None
    choice = p.module(rw.file).module_for(v)
    # one file, however it is spelled: a package is its `__init__` (`radpatch import` writes `pkg.__init__`)
    return choice.module.removesuffix(".__init__") if choice else None


def import_gap(
    a: Patch, ra: Rewrite, b: Patch, rb: Rewrite, probe: list[Version], texts: gaps.Texts
) -> tuple[str, dict[str, list[Version]]]:
    """`add_import` (or a new `set_constant`) and an insertion that go into one gap of the file: the
    imports' end (prove.overlaps.gaps); they say no anchor the touches could compare."""
    where: dict[str, list[Version]] = {}
    for v in probe:
        m = module_of(a, ra, v)
        if m is not None and m == module_of(b, rb, v) and one_place(a, ra, b, rb, v, texts):
            if not _commute_on(a, ra, b, rb, v, texts):
                where.setdefault(m, []).append(v)
    what = f"insert at the same place ({ra.op.describe()} and {rb.op.describe()} go into one gap on the file)"
    return what, where


def one_place(a: Patch, ra: Rewrite, b: Patch, rb: Rewrite, v: Version, texts: gaps.Texts | None) -> bool:
    text = text_of(a, ra, b, v, texts)
    return text is not None and gaps.same_place(ra.op, rb.op, text)


def text_of(a: Patch, ra: Rewrite, b: Patch, v: Version, texts: gaps.Texts | None) -> str | None:
    if isinstance(texts, InstalledTexts):  # apply: the file before either of the two, as a one-stage apply reads it
        return texts.before(a, ra, b.name)
    return texts(a, ra, v) if texts is not None else None


def _commute_on(a: Patch, ra: Rewrite, b: Patch, rb: Rewrite, v: Version, texts: gaps.Texts) -> bool:
    """Two that radpatch places after the imports commute on the release's file (prove.overlaps.commute)."""
    text = text_of(a, ra, b, v, texts)
    return text is not None and commute_after_imports(ra.op, rb.op, text)


def commute_after_imports(a: Operation, b: Operation, text: str) -> bool:
    """Both placed after the imports by radpatch (no anchor an author chose), both orders apply,
    and each adds only bindings of names the other leaves alone (prove.overlaps.commute)."""
    if not (gaps.at_imports(a) and gaps.at_imports(b)):
        return False
    one, two = commute.forward(a, text), commute.forward(b, text)
    return (
        one is not None
        and two is not None
        and gaps.in_order(a, b, text) is not None
        and gaps.in_order(b, a, text) is not None
        and commute.independent(text, one, two)
    )


def gap_words(a: Touch, b: Touch) -> str:
    """Two insertions at one gap, in words: where each anchors."""
    where = [
        t.key if t.key.startswith("definitions ") else f"{t.key.split()[0]} a statement of {t.scope}" for t in (a, b)
    ]
    return f"insert at the same place ({where[0]} and {where[1]} are one gap on the file)"
