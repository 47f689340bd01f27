"""Apply one file section's hunks to a file's lines exactly as GNU patch 2.7 does (patch.c).

Why a port and not a library: the after-text radpatch derives its rewrites from must be what the
team's `patch -p1` produces, offsets and fuzz included, and a refusal must read like the
`patch --dry-run` line they know ("Hunk #2 FAILED at 120."). The rules:

- a hunk is looked for at its stated line plus the offset the previous hunks needed, then at
  growing distances after and before it, never before the end of the previous hunk's change;
- first with every context line, then with up to 2 (`--fuzz`) context lines ignored at each end
  (fewer at the end with less context); a hunk with less leading than trailing context can only
  match at the start of the file (and the reverse at its end);
- context lines are kept from the file (with fuzz they may differ from the patch's), removed
  lines go, added lines come from the patch;
- a failed hunk does not stop the others; its reported line is the new-side line guessed from
  the previous hunks' growth;
- a hunk found above the lines an earlier hunk already wrote (hunks out of order, or two on one
  line) fails: patch says "misordered hunks! output would be garbled" and writes nothing of it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from radpatch.importing.sections import FilePatch, Hunk, Line, lines_of

MAX_FUZZ = 2  # GNU patch's default --fuzz


@dataclass(frozen=True)
class HunkResult:
    number: int
    applied: bool
    at: int  # the line patch reports: "succeeded at" / "FAILED at"
    fuzz: int
    offset: int
    misordered: bool = False  # located above a previous hunk's change: patch says "misordered hunks!"

    def report(self) -> str:
        """The line `patch` prints for this hunk (None-worthy successes print "" )."""
        if not self.applied:
            return f"Hunk #{self.number} FAILED at {self.at}."
        if not self.fuzz and not self.offset:
            return ""
        fuzz = f" with fuzz {self.fuzz}" if self.fuzz else ""
        offset = f" (offset {self.offset} line{'' if self.offset == 1 else 's'})" if self.offset else ""
        return f"Hunk #{self.number} succeeded at {self.at}{fuzz}{offset}."


@dataclass(frozen=True)
class Outcome:
    lines: tuple[str, ...]  # the patched file (lines with their newlines)
    results: tuple[HunkResult, ...]
    reversed_hint: bool = False  # hunk 1 failed but applies reversed: already applied?
    skipped: bool = False  # patch's "Reversed (or previously applied) patch detected! ... Skipping patch."

    @property
    def failed(self) -> tuple[HunkResult, ...]:
        return tuple(r for r in self.results if not r.applied)

    @property
    def text(self) -> str:
        return "".join(self.lines)


class _State:
    def __init__(self, lines: list[str]) -> None:
        self.input = lines
        self.out: list[str] = []
        self.frozen = 0  # input lines already copied or removed (last_frozen_line)
        self.in_offset = 0
        self.out_offset = 0
        self.after_newline = True

    def line(self, n: int) -> str | None:
        """Input line n (1-based), or None past either end."""
        return self.input[n - 1] if 1 <= n <= len(self.input) else None

    def matches(self, pattern: tuple[str, ...], base: int, prefix_fuzz: int, suffix_fuzz: int) -> bool:
        iline = base + prefix_fuzz
        for pline in range(prefix_fuzz, len(pattern) - suffix_fuzz):
            if self.line(iline) != pattern[pline]:
                return False
            iline += 1
        return True

    def locate(self, hunk: Hunk, pattern: tuple[str, ...], fuzz: int) -> int:
        """patch.c's locate_hunk: the 1-based line the hunk's pattern starts at, or 0."""
        first_guess = hunk.first + self.in_offset
        pat_lines = len(pattern)
        prefix, suffix = hunk.prefix_context, hunk.suffix_context
        context = max(prefix, suffix)
        prefix_fuzz = fuzz + prefix - context
        suffix_fuzz = fuzz + suffix - context
        max_where = len(self.input) - (pat_lines - suffix_fuzz) + 1
        min_where = self.frozen + 1
        max_pos = max_where - first_guess
        max_neg = first_guess - min_where
        max_offset = max(max_pos, max_neg)
        if not pat_lines:
            return first_guess
        if first_guess <= max_neg:
            max_neg = first_guess - 1
        if prefix_fuzz < 0 and hunk.first <= 1:
            if suffix_fuzz < 0 and (pat_lines != len(self.input) or prefix < self.frozen):
                return 0
            offset = 1 - first_guess
            if (
                self.frozen <= prefix
                and offset <= max_pos
                and self.matches(pattern, first_guess + offset, 0, suffix_fuzz)
            ):
                self.in_offset += offset
                return first_guess + offset
            return 0
        prefix_fuzz = max(prefix_fuzz, 0)
        if suffix_fuzz < 0:
            offset = first_guess - (len(self.input) - pat_lines + 1)
            if offset <= max_neg and self.matches(pattern, first_guess - offset, prefix_fuzz, 0):
                self.in_offset -= offset
                return first_guess - offset
            return 0
        min_offset = first_guess - max_where if max_pos < 0 else first_guess - min_where if max_neg < 0 else 0
        for offset in range(min_offset, max_offset + 1):
            if offset <= max_pos and self.matches(pattern, first_guess + offset, prefix_fuzz, suffix_fuzz):
                self.in_offset += offset
                return first_guess + offset
            if offset <= max_neg and self.matches(pattern, first_guess - offset, prefix_fuzz, suffix_fuzz):
                self.in_offset -= offset
                return first_guess - offset
        return 0

    def copy_till(self, last: int) -> None:
        while self.frozen < last:
            self.frozen += 1
            if self.frozen <= len(
                self.input
            ):  # past the end (a fuzzed-away trailing context): nothing, as ifetch gives
                self._write(self.input[self.frozen - 1], check=True)

    def _write(self, text: str, check: bool) -> None:
        if not text:
            return
        if check and not self.after_newline:
            self.out.append("\n")
        self.out.append(text)
        self.after_newline = text.endswith("\n")

    def apply(self, hunk: Hunk, first_line: int) -> bool:
        """patch.c's apply_hunk, walking the hunk's lines in order (same output for any interleaving).
        False, writing nothing, where the hunk's first change lies above lines already written: a hunk
        that patch located before the previous hunk's change ("misordered hunks! output would be
        garbled"), which then FAILS (copy_till's refusal)."""
        pos = first_line  # the input line the next pattern line stands for
        lines = hunk.lines
        leading = next((i for i, ln in enumerate(lines) if ln.kind != " "), len(lines))
        if leading < len(lines) and first_line + leading - 1 < self.frozen:
            return False
        # '+' lines after the hunk's last context line are apply_hunk's tail: only they get patch's
        # "the previous line had no newline" check
        last_context = max((i for i, ln in enumerate(lines) if ln.kind == " "), default=-1)
        for i, ln in enumerate(lines):
            if ln.kind == " ":
                pos += 1
            elif ln.kind == "-":
                self.copy_till(pos - 1)
                self.frozen += 1
                pos += 1
            else:
                self.copy_till(pos - 1)
                self._write(ln.text, check=i > last_context)
        self.out_offset += hunk.new_count - hunk.old_count
        return True


def apply(section: FilePatch, text: str | None, max_fuzz: int = MAX_FUZZ) -> Outcome:
    """Apply `section`'s hunks to `text` (None: the file does not exist)."""
    state = _State(lines_of(text or ""))
    results: list[HunkResult] = []
    hint = False
    for hunk in section.hunks:
        pattern = hunk.pattern
        mymaxfuzz = min(max_fuzz, max(hunk.prefix_context, hunk.suffix_context))
        where = 0
        fuzz = 0
        while True:
            where = state.locate(hunk, pattern, fuzz)
            if (
                not where
                and hunk.number == 1
                and _State(state.input).locate(swapped := _swapped(hunk), swapped.pattern, fuzz)
            ):
                # patch.c: "Reversed (or previously applied) patch detected!"; with no terminal to say -R
                # it answers no, then no to "Apply anyway?": "Skipping patch." (every hunk of the file rejected)
                state.copy_till(len(state.input))
                skipped = (HunkResult(h.number, False, h.first + state.out_offset, 0, 0) for h in section.hunks)
                return Outcome(tuple(state.out), tuple(skipped), True, True)
            if where or fuzz >= mymaxfuzz:
                break
            fuzz += 1
        at = (where or hunk.first) + state.out_offset
        exists_already = where == 1 and section.old_missing == 2 and bool(text)
        if not where or exists_already:
            if hunk.number == 1 and not where and _applies_reversed(state, hunk):
                hint = True
            results.append(HunkResult(hunk.number, False, at, 0, 0))
            continue
        if not state.apply(hunk, where):
            results.append(HunkResult(hunk.number, False, at, 0, 0, misordered=True))
            continue
        results.append(HunkResult(hunk.number, True, at, fuzz, state.in_offset))
    state.copy_till(len(state.input))
    return Outcome(tuple(state.out), tuple(results), hint)


def _swapped(hunk: Hunk) -> Hunk:
    """The hunk as `patch -R` reads it: its old and new sides exchanged (patch.c's pch_swap)."""
    lines = tuple(Line("+" if ln.kind == "-" else "-" if ln.kind == "+" else ln.kind, ln.text) for ln in hunk.lines)
    return replace(
        hunk,
        old_start=hunk.new_start,
        old_count=hunk.new_count,
        new_start=hunk.old_start,
        new_count=hunk.old_count,
        lines=lines,
    )


def _applies_reversed(state: _State, hunk: Hunk) -> bool:
    """Whether the hunk's new side is in the file at its place: `patch` asks "Reversed (or
    previously applied) patch detected!" then."""
    replacement = hunk.replacement
    start = hunk.new_start + (1 if hunk.new_count == 0 else 0)
    for base in range(1, len(state.input) - len(replacement) + 2):
        if state.matches(replacement, base, 0, 0):
            return bool(replacement) and abs(base - start) < 10_000
    return False
