"""One error root. Every failure radpatch expects is a RadpatchError with an exit code.

Exit codes (documented in the README):
  0  success (including "already applied" / "not applied, nothing to revert")
  1  refused: radpatch could not prove the change safe (version out of range, drift,
     a rewrite that matches zero or several times, a failed proof)
  2  usage: bad command line, unknown patch, invalid registry file
  3  check failed: `status --check` found a patch that is not applied
  4  environment: interpreter, distribution files or the state directory cannot be read/written
  70 internal error (a bug in radpatch; run with --debug for the traceback)
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_CHECK_FAILED = 3
EXIT_ENVIRONMENT = 4
EXIT_INTERNAL = 70


class RadpatchError(Exception):
    """Root of every error radpatch reports to the user (message + hint, no traceback)."""

    exit_code = EXIT_INTERNAL

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        return f"{self.message}\n  hint: {self.hint}" if self.hint else self.message


class UsageError(RadpatchError):
    exit_code = EXIT_USAGE


class RegistryError(UsageError):
    """A registry file is invalid. Carries every problem found in it, not just the first."""

    def __init__(
        self,
        problems: list[str],
        hint: str = "fix the registry file(s) above; the README's 'The registry format' shows a complete entry",
    ) -> None:
        self.problems = problems
        super().__init__("\n".join(problems), hint)


class RefusedError(RadpatchError):
    exit_code = EXIT_REFUSED


class CheckFailed(RadpatchError):
    exit_code = EXIT_CHECK_FAILED


class EnvironmentProblem(RadpatchError):
    exit_code = EXIT_ENVIRONMENT


# --- errors raised and caught inside radpatch (each is turned into one of the above, or into a value,
# before the user sees it); here so that every exception radpatch defines has the one root.


class RequiredPatchMissing(RefusedError, RuntimeError):
    """RADPATCH_REQUIRE named a patch the engine's files do not carry (radpatch.plugin, at engine
    start). Also a RuntimeError, as it always was: vLLM does not catch a general plugin's exception,
    so it stops the engine, and code around an engine that handles a failed start as a RuntimeError
    keeps seeing one."""


class MustComeOff(RefusedError):
    """revert refused: `names`, applied entries not named, cannot stay on without what it takes off
    (they require it: state.requirements; or lie above it and do not go on again without it:
    write.lift). write.revert widens the first one to every entry one revert must name."""

    def __init__(self, message: str, hint: str, names: list[str]) -> None:
        super().__init__(message, hint)
        self.names = list(names)


class PartlyPutBack(RefusedError):
    """apply refused: someone put some of an entry's files back, the rest still carry it
    (state.decide.refused); write.apply words the way back: the revert that must come first, found
    by dry runs (write.revert.way_back), naming only the entries that cannot stay on."""

    def __init__(self, message: str, hint: str, name: str, on: list[str]) -> None:
        super().__init__(message, hint)
        self.name = name
        self.on = list(on)


class SectionRefused(RefusedError):
    """import refused a section of a patch file no entry can say (a binary patch, a link, a rename, a
    file that is not an importable module); `excluded` is the file's name after -p, which the hint's
    --exclude leaves out (importing.patch_series gathers every such section into one refusal)."""

    def __init__(self, message: str, hint: str, excluded: str) -> None:
        super().__init__(message, hint)
        self.excluded = excluded


class Undecodable(RadpatchError, ValueError):
    """Bytes that do not decode as Python source (PEP 263), or do not round-trip through their
    encoding (rewrite.source.decode); a ValueError as before, for callers that catch one."""


class Inexpressible(RadpatchError):
    """A change `radpatch import`/`capture` cannot write as rewrites (importing.rewrites; the caller
    names the file)."""


Position = tuple[int, int]  # (1-based line in the file, column) where a match starts


class Probed(RadpatchError):
    """Raised by an operation's select() inside rewrite.ops.common.match_probe.probe(): the positions of the
    matches it was given, in source order. A signal, not a refusal (not a RefusedError or a
    MatchFailure): nothing catches it on the way out of the operation, and probe() turns it into a
    value."""

    def __init__(self, positions: list[Position]) -> None:
        super().__init__(f"probed {len(positions)} match(es)")
        self.positions = positions
