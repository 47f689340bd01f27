"""Why `radpatch port` leaves an entry alone, in one bounded line: the releases that fail, grouped
by the check that fails, and which bound of `supported` to move, or which releases to port first."""

from __future__ import annotations

from collections.abc import Iterable

from packaging.version import Version


def summary(
    failing: list[tuple[Version | None, str]],
    claimed: Iterable[Version] = (),
    had: Iterable[Version] = (),
    name: str = "NAME",
) -> str:
    """The failing releases in one bounded line: grouped by the check that fails (each group's count,
    first and last release, and one example), and, when every one lies below (or above) the releases
    asked for, which bound of `supported` to move; failing releases between those the entry claimed
    before (`had`) and those asked for are named with what to do (moving a bound would drop releases
    that pass)."""
    if any(v is None for v, _ in failing):
        return "; ".join(short(e) for v, e in failing if v is None)
    groups: dict[str, list[tuple[Version, str]]] = {}
    for v, e in failing:
        assert v is not None
        groups.setdefault(e.split(":", 1)[0], []).append((v, e))
    parts = []
    for check, items in groups.items():
        vs = sorted(v for v, _ in items)
        span = f"{vs[0]}" if len(vs) == 1 else f"{len(vs)} releases from {vs[0]} to {vs[-1]}"
        parts.append(f"{span} fail {check} (e.g. {vs[-1]}: {short(dict(items)[vs[-1]])})")
    out = "; ".join(parts)
    asked = sorted(claimed)
    bad = sorted(v for v, _ in failing if v is not None)
    own = sorted(had)
    between = [v for v in bad if own and asked and (own[-1] < v < asked[0] or asked[-1] < v < own[0])]
    if between:
        names = ", ".join(map(str, between))
        span = f'">={between[0]},<={between[-1]}"' if len(between) > 1 else str(between[0])
        out += (
            f"; {names} lie{'s' if len(between) == 1 else ''} between the releases the entry claimed and those "
            f"asked for: port {'them' if len(between) > 1 else 'it'} first (`radpatch port {name} --to {span}`) "
            f"to see what each needs, or leave {'them' if len(between) > 1 else 'it'} out of `supported:` "
            f"({', '.join(f'!={v}' for v in between)}) by hand"
        )
    elif asked and bad and bad[-1] < asked[0]:
        out += (
            f"; every one is below {asked[0]}, the releases asked for: raise `supported`'s lower bound, "
            "or port them too"
        )
    elif asked and bad and bad[0] > asked[-1]:
        out += (
            f"; every one is above {asked[-1]}, the releases asked for: lower `supported`'s upper bound, "
            "or port them too"
        )
    return out


def short(text: str, limit: int = 160) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."
