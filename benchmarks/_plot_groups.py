"""What front.png and peers.png draw alike on a panel of KV tokens vs upstream over KV cache groups
(benchmarks/front.py, benchmarks/peers.py): the upstream point, and the log axis of groups with the cap."""

from __future__ import annotations

from typing import Any


def panels(plt: Any, layouts: list[Any], cols: int, width: float, height: float) -> tuple[Any, list[Any]]:
    """The figure and one panel a layout, `cols` to a row (`width` x `height` each): the panels left
    over at the end are blanked. Returns the figure and the layouts' panels, in order."""
    rows = -(-len(layouts) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in list(axes.flat)[len(layouts) :]:
        ax.axis("off")
    return fig, list(axes.flat)[: len(layouts)]


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
