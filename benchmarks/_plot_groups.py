"""What front.png and peers.png draw alike on a panel of KV tokens vs upstream over KV cache groups
(benchmarks/front.py, benchmarks/peers.py): the upstream point, and the log axis of groups with the cap."""

from __future__ import annotations

from typing import Any


def mark_upstream(ax: Any, groups: int, zorder: int, label: str) -> None:
    """Upstream's own plan: a hollow red square at 0% (the panel's reference)."""
    ax.scatter(
        [groups],
        [0.0],
        marker="s",
        s=70,
        facecolors="none",
        edgecolors="#d0402a",
        linewidths=1.6,
        zorder=zorder,
        label=label,
    )


def groups_axis(ax: Any, cap: int, most: int, fontsize: float) -> None:
    """The cap dashed, groups on a log scale ticked in plain numbers up to 1.5 x `most`, both axes named."""
    from matplotlib.ticker import NullFormatter, ScalarFormatter  # type: ignore[import-not-found]

    ax.axvline(cap + 0.5, color="#888888", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_xticks([t for t in (1, 2, 3, 5, 10, 20, 50, 100) if t <= most * 1.5])
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("KV cache groups (log)", fontsize=fontsize)
    ax.set_ylabel("KV tokens vs upstream (%)", fontsize=fontsize)
