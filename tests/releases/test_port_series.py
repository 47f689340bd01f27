"""`port` of a series: the names are ported in the order apply runs them (an entry after those it
requires), each proven on what its requirements' edits leave; and a refusal over many releases is one
bounded line. Real wheels on the loopback index."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from packaging.version import Version

from radpatch.releases import port_failures
from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import DIST, MOVED_WHEELS, first_entry, second_entry
from tests.lib.wheels import Wheels

FIRST = first_entry("Written for 1.0.", "==1.0")
SECOND = second_entry("Written on the first entry's result.", "==1.0")


def test_a_series_ports_whatever_order_the_names_are_given_in(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, MOVED_WHEELS)
    for order in (("second", "first"), ("first", "second")):
        write_registry("first", FIRST)
        reg = write_registry("second", SECOND)
        r = radpatch("--registry", str(reg), "port", *order, "--to", "2.0")
        assert r.code == 0, (order, r.out, r.err)
        for name in ("first", "second"):
            assert "module: rptoy.planning" in (reg / f"{name}.yaml").read_text(), (order, name)
        assert r.out.index("first (") < r.out.index("second (")  # the requirement first


def test_a_series_entry_left_alone_names_the_requirement_to_port_with_it(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, MOVED_WHEELS)
    write_registry("first", FIRST)
    reg = write_registry("second", SECOND)
    r = radpatch("--registry", str(reg), "port", "second", "--to", "2.0")
    assert r.code == 1
    assert "it requires first" in r.out and "`radpatch port first second --to 2.0`" in r.out


def test_a_refusal_over_many_releases_is_one_bounded_line() -> None:
    rng = random.Random(9)
    for n in (1, 3, 40, 300):
        versions = sorted({Version(f"0.{i // 10}.{i % 10}") for i in range(n)})
        failing: list[tuple[Version | None, str]] = [
            (
                v,
                rng.choice(
                    [
                        f"wheel: no wheel of radpatch-toy {v} on the index " + "x" * rng.randrange(400),
                        f"module: the wheel radpatch_toy-{v}-py3-none-any.whl has no rptoy/core.py",
                        "match: rewrite 'cap': `find` not found\n  in size",
                    ]
                ),
            )
            for v in versions
        ]
        line = port_failures.summary(failing, [Version("9.0")])
        assert "\n" not in line and len(line) < 3 * 250 + 200, (n, len(line))  # at most one example per check
        assert "below 9.0, the releases asked for: raise `supported`'s lower bound" in line
        counted = sum(
            int(part.split(" releases")[0]) if " releases from " in part else 1 for part in line.split("; ")[:-1]
        )
        assert counted == len(versions)  # every failing release is counted
