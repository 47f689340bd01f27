"""Whose failure it is when the patched module and the pristine one both fail to import (import_check.py).

The patched module failing where the pristine one imports is always a refusal; import_check
decides that without asking here. When both fail, only a failure both share says nothing about the
patch, and is inconclusive. Shared means one of:
- the same failure: the interpreter ended without an answer in the same way (the same exit status
  or signal: `os._exit`, a crash in an extension module), or the same exception type and text,
  raised from the same function of the same file (and line, outside the changed files, whose lines
  move); the text compared normalised, as two processes print the same failure differently:
  object addresses (`at 0x7f...`) masked, and the items of a `{...}` (a set's, a dict's: their
  order follows per-process hash randomisation) sorted;
- the image's: an ImportError raised in the body of an unchanged module (a GPU-only module on a
  CPU image) that, imported on its own from the pristine install, fails the same way, so the
  environment lacks it whatever the patch does. Told by that pristine run, not by the exception's
  kind: a module that fails only because the patch closed an import cycle back into the patched
  module imports on its own (or fails another way), so that failure is the patch's.
Every other failure is the patch's own, whatever line raised it: a line the patch added, code that
line calls, or an unchanged line reading a constant the patch changed or a binding it removed.
Which line the patch added is looked up only to say where.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

READ_ONLY_SAID = "radpatch's import check keeps the install read-only"  # read_only.READ_ONLY's error


@dataclass(frozen=True)
class Frame:
    """One frame of a failed import's traceback, as the target reports it."""

    path: str  # the frame's file name (`<frozen importlib._bootstrap>` for a frozen module)
    line: int
    name: str  # its function's name; `<module>` for a module's body
    module: str = ""  # the `__name__` of the frame's globals: the module whose code it runs


@dataclass(frozen=True)
class Attempt:
    """One import in the target interpreter."""

    ok: bool
    error: str = ""  # the exception's last line, or why there is no answer
    raised_at: str = ""  # "module line N": the innermost frame in a changed file, when there is one
    timed_out: bool = False
    preloaded: bool = False  # the module came from its file on disk, not the served bytes: says nothing
    frames: tuple[Frame, ...] = ()  # the whole traceback, outermost first
    kind: str = ""  # the exception's type, module-qualified ("" when there is no answer)
    missing: bool = False  # an ImportError (any subclass): what an environment lacking a module raises
    ended: str = ""  # no answer: how the interpreter ended ("exit 3", "killed by signal 11")
    reaped: str = ""  # what the import left behind and could not be killed, as a clause (import_reaper)
    blocked: tuple[str, ...] = ()  # installed paths it tried to write, refused (read_only.READ_ONLY)

    @property
    def described(self) -> str:
        return f"{self.error}, raised at {self.raised_at}" if self.raised_at else self.error

    @property
    def on_write(self) -> str:
        """For a failed import that tried to write into the install: why it is not judged ("" else)."""
        if self.ok or not self.blocked or READ_ONLY_SAID not in self.error:
            return ""
        return (
            f"it tried to write into the install ({', '.join(self.blocked[:3])}), which the check keeps "
            f"read-only, and failed: {self.described}; whether it imports where it can write is not told"
        )


ImportPristine = Callable[[str], Attempt]  # imports a module by name with the pristine bytes served


@dataclass(frozen=True)
class Judged:
    refused: bool
    reason: str


def judge(
    after: Attempt,
    before: Attempt,
    patched: Mapping[str, bytes],
    pristine: Mapping[str, bytes],
    names: Mapping[str, str],
    import_pristine: ImportPristine,
) -> Judged:
    """Both imports failed (`after` patched, `before` pristine): refused unless the failure is shared.
    `patched`/`pristine`: the changed files' bytes by path; `names`: their module names by path."""
    shared = same_failure(after, before, patched)
    if not shared:
        image = _image_module(after, patched)
        alone = import_pristine(image) if image is not None else None
        shared = alone is not None and not alone.ok and same_failure(after, alone, patched)
    if shared:
        why = f"the unpatched module does not import either ({before.described})"
        if normalised(after.described) != normalised(before.described):  # not for an address or an order
            why += f"; once patched: {after.described}"
        return Judged(False, why)
    own = added_line_on(after, patched, pristine)
    there = "at the same line, differently" if same_line(after, before, patched, pristine) else "elsewhere"
    if own is None:
        return Judged(True, f"{after.described}; the unpatched module fails {there} ({before.described})")
    if own is after.frames[-1]:
        why = f"{after.described}, a line the patch added; "
    else:
        line = f"{names.get(own.path, own.path)} line {own.line}"
        why = f"{after.described}, in code called from {line}, a line the patch added; "
    return Judged(True, why + f"the unpatched module fails {there} ({before.described})")


def _image_module(after: Attempt, patched: Mapping[str, bytes]) -> str | None:
    """The unchanged module in whose body the patched import's ImportError was raised (the
    innermost module body on the traceback, when it is a real file no patch changes), else None."""
    if not after.missing:
        return None
    for f in reversed(after.frames):
        if f.name == "<module>" and not f.path.startswith("<"):
            return f.module if f.path not in patched and f.module else None
    return None


def same_failure(after: Attempt, before: Attempt, patched: Mapping[str, bytes]) -> bool:
    """Both imports raise the same exception at the same place: the same type and text, from the
    same function of the same file (and line, outside the changed files, whose lines move); the
    texts compared `normalised`. Two imports that both end the interpreter without an answer
    (`os._exit`, a crash in an extension module) fail the same way when they end it alike."""
    if after.ended or before.ended:
        return after.ended == before.ended
    if not (after.frames and before.frames) or after.kind != before.kind:
        return False
    if normalised(after.error) != normalised(before.error):
        return False
    a, b = after.frames[-1], before.frames[-1]
    return (a.path, a.name) == (b.path, b.name) and (a.path in patched or a.line == b.line)


def added_line_on(after: Attempt, patched: Mapping[str, bytes], pristine: Mapping[str, bytes]) -> Frame | None:
    """The innermost frame of the patched import's traceback that is a line the patch added or
    changed (the exception raised there or in what it called), else None: where to say it failed."""
    added: dict[str, frozenset[int]] = {}
    for f in reversed(after.frames):
        if f.path not in patched:
            continue
        if f.path not in added:
            added[f.path] = added_lines(pristine.get(f.path, b""), patched[f.path])
        if f.line in added[f.path]:
            return f
    return None


def added_lines(before: bytes, after: bytes) -> frozenset[int]:
    """The 1-based lines of `after` that are not `before`'s (inserted or changed)."""
    old, new = before.splitlines(), after.splitlines()
    lines: set[int] = set()
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            lines.update(range(j1 + 1, j2 + 1))
    return frozenset(lines)


def same_line(after: Attempt, before: Attempt, patched: Mapping[str, bytes], pristine: Mapping[str, bytes]) -> bool:
    """Both imports raise from the same line: the innermost frames' file and function are the same,
    and the line too, mapped through the patch in a changed file (False for a line the patch changed)."""
    if not (after.frames and before.frames):
        return False
    a, b = after.frames[-1], before.frames[-1]
    if (a.path, a.name) != (b.path, b.name):
        return False
    if a.path not in patched:
        return a.line == b.line
    return _old_line(pristine.get(a.path, b""), patched[a.path], a.line) == b.line


def _old_line(before: bytes, after: bytes, line: int) -> int | None:
    """The line of `before` that `after`'s 1-based `line` is, unchanged; None for a line the patch changed."""
    old, new = before.splitlines(), after.splitlines()
    for tag, i1, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal" and j1 < line <= j2:
            return line - j1 + i1
    return None


_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_BRACES = re.compile(r"\{([^{}]*)\}")


def normalised(error: str) -> str:
    """An exception's text with what varies from one process to the next taken out: object
    addresses (`<_Dev object at 0x7fd3...>`) masked, and each `{...}`'s comma-separated items sorted
    (a set's or a dict's order follows the process's hash seed), innermost first. Items holding a
    comma split at it alike whatever their order, so the same items give the same text."""
    text = _ADDRESS.sub("0x?", error)

    def ordered(m: re.Match[str]) -> str:
        return "\x00(" + "\x01".join(sorted(p.strip() for p in m.group(1).split(","))) + ")\x00"

    while True:
        sorted_text = _BRACES.sub(ordered, text)
        if sorted_text == text:
            return text
        text = sorted_text
