"""att56 F10 (issue 20): import anchors a changed copy of repeated code by the clause that holds it:
an `elif x:`, an `else:`, an `except E:` handler, a `finally:`, a `try:` body, a `match` `case P:`,
as it did by an `if`/`for`/`while`/`with` header; and for every rewrite picked by a count (a
`delete`, an `add_element`, a `set_item` too). The entry was a bare `occurrence: N` that, on the
next release with a copy added above, rewrote another copy (the `if` branch's for the `elif`'s, the
try body's for the handler's). Where the innermost header holds several copies the count is kept
inside it (`within:` with `occurrence:`), which a copy added above the statement does not shift.

Generated: a function whose body repeats statements at two depths, in if/elif/else chains,
try/except/else/finally, for/while with `else:`, match/case and with blocks, with repeated or
unique headers; one copy changed (a keyword's value, a statement inserted after it or deleted, a
string argument, an element added to a call's list, a call's dict item set). Oracles: the entry
gives, on the installed release, what GNU `patch -p1` gives there (AST-equal); on the next release
(copies of the changed statement and others added at the top of the function, above every copy)
the intended result built on that release's own structure. The test's own count says when a header
or clause tells the copy apart (one the copy is in, whose `within:` region over the whole function
holds that copy as the only statement the rewrite matches): there the entry carries no
`occurrence:`. An entry without a count lands as intended or is refused, never elsewhere; one
counted inside a header lands as intended (the copies were added outside every header)."""

from __future__ import annotations

import random
import shutil

import pytest
import yaml

from radpatch.errors import RefusedError
from radpatch.registry.loader import load_bytes
from radpatch.registry.within_keys import key_of
from radpatch.rewrite.runner import forward
from tests.lib.generated import sample
from tests.lib.same_code import copies_above, gnu_patch, imported_entry, same_ast

pytestmark = pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
TAGS, OPTS = "put(x, tags=[10, 20, 30, 40])", "put(x, opts={'a': 1, 'b': 2, 'c': 3})"
POOL = ("emit(x, flush=True)", "emit(total, flush=True)", "total += x", "x = g(x, 'a')", TAGS, OPTS)
KINDS = ("keyword", "insert", "delete", "argument", "element", "item")
# the statements each kind's rewrite matches (an insertion, a deletion: the statement itself)
MATCHES = {"keyword": POOL[:2], "argument": (POOL[3],), "element": (TAGS,), "item": (OPTS,)}
EDITS = {"keyword": ("flush=True", "flush=False"), "argument": ("'a'", "'b'"), "element": ("40]", "40, 50]")}
EDITS["item"] = ("'b': 2", "'b': 7")
# constructs: the clause headers of one statement (a `match`: its header, then its cases)
CHAINS = (
    ("if x > 1:",),
    ("if x > 1:", "else:"),
    ("if x > 1:", "elif total:", "else:"),
    ("if total:", "elif x > 1:"),
    ("try:", "except KeyError:"),
    ("try:", "except (KeyError, ValueError):", "finally:"),
    ("try:", "except KeyError:", "else:"),
    ("for x in items:", "else:"),
    ("while total < 3:", "else:"),
    ("match x:", "case 1:", "case [y]:"),
    ("with lock:",),
)
Body = list["str | tuple[tuple[str, ...], list[Body]]"]
Path_ = tuple[int, ...]  # indexes: item, clause, item, clause, ..., item


def _body(rng: random.Random, depth: int = 0) -> Body:
    out: Body = []
    for _ in range(rng.randint(2, 3)):
        if depth < 2 and rng.random() < 0.45:
            heads = rng.choice(CHAINS)
            clauses = len(heads) - (1 if heads[0].startswith("match") else 0)
            out.append((heads, [_body(rng, depth + 1) for _ in range(clauses)]))
        else:
            out.append(rng.choice(POOL))
    return out


def render(body: Body) -> str:
    lines = ["def f(items, log, lock):", "    total = 0", "    x = 0"]

    def walk(b: Body, indent: str) -> None:
        for item in b:
            if isinstance(item, str):
                lines.append(indent + item)
                continue
            heads, blocks = item
            inner = indent
            if heads[0].startswith("match"):
                lines.append(indent + heads[0])
                heads, inner = heads[1:], indent + "    "
            for head, block in zip(heads, blocks):
                lines.append(inner + head)
                walk(block, inner + "    ")

    walk(body, "    ")
    lines.append("    return total")
    return "\n".join(lines) + "\n"


def _simple(body: Body, at: Path_ = ()) -> list[Path_]:
    out: list[Path_] = []
    for k, item in enumerate(body):
        if isinstance(item, str):
            out.append((*at, k))
        else:
            for c, block in enumerate(item[1]):
                out += _simple(block, (*at, k, c))
    return out


def _at(body: Body, path: Path_) -> str:
    text = _block(body, path)[path[-1]]
    assert isinstance(text, str)
    return text


def _texts(body: Body) -> list[str]:
    return [t for item in body for t in ([item] if isinstance(item, str) else _all(item[1]))]


def _all(blocks: list[Body]) -> list[str]:
    return [t for b in blocks for t in _texts(b)]


def _regions(body: Body, anchor: str) -> list[str]:
    """The statements `within: anchor` covers in `body` (radpatch's reading: a clause's header its
    block; `if x:` its statement from an `if x:` or `elif x:` clause on; other headers the whole
    statement)."""
    out: list[str] = []
    for item in body:
        if isinstance(item, str):
            continue
        heads, blocks = item
        clauses = heads[1:] if heads[0].startswith("match") else heads
        if heads[0] == anchor and not heads[0].startswith(("if ", "try:")):
            out += _all(blocks)
            continue
        for c, (head, block) in enumerate(zip(clauses, blocks)):
            if head.startswith(("if ", "elif ")) and head.split(" ", 1)[1] == anchor[3:] and anchor.startswith("if "):
                out += _all(blocks[c:])
                break
            if head == anchor and (c > 0 or head == "try:" or heads[0].startswith("match")):
                out += _texts(block)
            else:
                out += _regions(block, anchor)
    return out


def _anchors(body: Body, path: Path_) -> list[str]:
    """The headers and clauses enclosing the statement at `path`, as `within:` would spell them."""
    out: list[str] = []
    for k in range(0, len(path) - 1, 2):
        heads, _ = body[path[k]]
        clauses = heads[1:] if heads[0].startswith("match") else heads
        c = path[k + 1]
        out += [] if heads[0] == "try:" else [heads[0]]
        out += [clauses[c]] + ["if " + h[5:] for h in clauses[1 : c + 1] if h.startswith("elif ")]
        body = body[path[k]][1][c]
    return out


def _matched(kind: str, text: str) -> tuple[str, ...]:
    return (text,) if kind in ("insert", "delete") else MATCHES[kind] if text in MATCHES[kind] else ()


def told_apart(body: Body, path: Path_, kind: str) -> bool:
    """A header or clause the copy is in holds it as the only statement the rewrite matches (an
    insertion: the statement it follows, and the one it precedes, which import may name instead)."""
    paths = [path]
    block = _block(body, path)
    if kind == "insert" and path[-1] + 1 < len(block) and isinstance(block[path[-1] + 1], str):
        paths.append((*path[:-1], path[-1] + 1))
    return all(_told(body, p, _matched(kind, _at(body, p))) for p in paths)


def _told(body: Body, path: Path_, wanted: tuple[str, ...]) -> bool:
    return any(sum(t in wanted for t in _regions(body, a)) == 1 for a in _anchors(body, path))


def _block(body: Body, path: Path_) -> Body:
    for k in range(0, len(path) - 1, 2):
        item = body[path[k]]
        assert not isinstance(item, str)
        body = item[1][path[k + 1]]
    return body


def _changed(kind: str, body: Body, path: Path_) -> str:
    """The module with the statement at `path` changed (deleted: a `pass` where it was alone)."""
    lines = render(body).split("\n")
    n = _simple(body).index(path)  # the n-th simple statement of the rendered function (after 2)
    row = [i for i, line in enumerate(lines) if line.strip() in POOL][n]
    indent = lines[row][: len(lines[row]) - len(lines[row].lstrip())]
    if kind == "insert":
        lines.insert(row + 1, indent + "total -= 1")
    elif kind == "delete" and len(_block(body, path)) > 1:
        del lines[row]
    elif kind == "delete":
        lines[row] = indent + "pass"
    else:
        lines[row] = lines[row].replace(*EDITS[kind])
    return "\n".join(lines)


def case(seed: int, kind: str) -> tuple[str, str, str, str, bool] | None:
    """(installed, patched, next release, intended result there, whether a clause tells the copy apart)."""
    rng = random.Random(seed)
    body = _body(rng)
    paths = _simple(body)
    texts = [_at(body, p) for p in paths]
    repeated = [p for p, t in zip(paths, texts) if sum(u in _matched(kind, t) for u in texts) > 1]
    if not repeated:
        return None
    path = rng.choice(repeated)
    target = _at(body, path)
    added = [target if rng.random() < 0.7 else rng.choice(POOL) for _ in range(rng.randint(1, 3))]
    before, after = render(body), _changed(kind, body, path)
    return before, after, copies_above(before, added), copies_above(after, added), told_apart(body, path, kind)


CASES = sample([(seed, kind) for kind in KINDS for seed in range(60)])


def test_a_copy_in_a_clause_is_anchored_by_it_and_lands_on_it_in_the_next_release(tmp_path) -> None:  # type: ignore[no-untyped-def]
    names = ("clause-anchored, lands", "counted inside a header, lands", "still counted", "refused, no count")
    counts = dict.fromkeys((*names, "GNU patch gives the intended result"), 0)
    bad: list[str] = []
    cases = [(c, kind) for c, kind in ((case(s, kind), kind) for s, kind in CASES) if c is not None]
    for (before, after, nxt, intended, told), kind in cases:
        data = imported_entry(before, after)
        patch = load_bytes(tmp_path / "e.yaml", data)
        gnu_here = gnu_patch(before, after, before)
        ours_here = forward(patch, patch.rewrites, before.encode(), "m.py").decode()
        assert gnu_here is not None and same_ast(ours_here, gnu_here), data.decode()
        gnu = gnu_patch(before, after, nxt)
        counts["GNU patch gives the intended result"] += gnu is not None and same_ast(gnu, intended)
        what = f"{kind}:\n{data.decode()}--- installed\n{before}--- next\n{nxt}"
        text = data.decode()
        if "occurrence:" in text and "within:" not in text:
            counts["still counted"] += 1
            if told:
                bad.append(f"a bare occurrence: where a clause tells the copy apart: {what}")
            continue
        if "occurrence:" in text and told:
            bad.append(f"a count inside a header where one tells the copy apart: {what}")
        try:
            ours: str | None = forward(patch, patch.rewrites, nxt.encode(), "m.py").decode()
        except RefusedError:
            ours = None
        if ours is None:
            counts["refused, no count"] += 1
            if "within:" in text:
                bad.append(f"refused on the next release: {what}")
        elif same_ast(ours, intended):
            counts["counted inside a header, lands" if "occurrence:" in text else "clause-anchored, lands"] += 1
        else:
            bad.append(f"lands elsewhere on the next release: {what}--- radpatch\n{ours}")
    print(f"\n{len(cases)} changed copies ({sum(c[4] for c, _ in cases)} told apart): {counts}")
    made = (case(s, kind) for kind in KINDS for s in range(60))
    assert any(c is not None and c[4] for c in made), "no generated case has a clause telling the copy apart"
    assert not bad, f"{len(bad)} of {len(cases)}:\n" + "\n".join(bad[:2])


ELIF = """\
def run(cfg, out):
    out.append(submit("a", timeout=1))
    if cfg.fast:
        out.append(submit("a", timeout=1))
    elif cfg.safe:
        out.append(submit("a", timeout=1))
        out.append(submit("a", timeout=1))
    else:
        out.append(submit("a", timeout=1))
    try:
        out.append(cfg["a"])
        out.append(1)
    except KeyError:
        out.append(1)
    match cfg:
        case "a":
            out.append(1)
        case "b":
            out.append(1)
    if not cfg:
        log(cfg)
        emit(items=[10, 20, 30, 40], opts={"a": 1, "b": 2})
        return out
    log(cfg)
    emit(items=[10, 20, 30, 40], opts={"a": 1, "b": 2})
    return out
"""
# (the line changed, from, to): the `within:` (and `occurrence:`) the entry picks it by
SITES = {
    (6, "timeout=1", "timeout=5"): ("elif cfg.safe:", 1),
    (7, "timeout=1", "timeout=5"): ("elif cfg.safe:", 2),
    (9, "timeout=1", "timeout=5"): ("else:", None),
    (14, "append(1)", "append(9)"): ("except KeyError:", None),
    (19, "append(1)", "append(9)"): ('case "b":', None),
    (21, "        log(cfg)\n", ""): ("if not cfg:", None),
    (22, "40]", "40, 50]"): ("if not cfg:", None),
    (22, '"b": 2', '"b": 7'): ("if not cfg:", None),
}
ABOVE = (
    "def run(cfg, out):\n",
    'def run(cfg, out):\n    if cfg.safe:\n        out.append(submit("a", timeout=1))\n    out.append(1)\n'
    '    log(cfg)\n    emit(items=[10, 20, 30, 40], opts={"a": 1, "b": 2})\n',
)


@pytest.mark.parametrize(("line", "old", "new"), list(SITES))
def test_att56_f10_sites_are_anchored_by_their_clause(tmp_path, line: int, old: str, new: str) -> None:  # type: ignore[no-untyped-def]
    """att56 F10's scripts: the copy in an `elif` (alone, or the second of two), the `else:`, the
    `except KeyError:` handler, the `case "b":`; issue 20: a deletion, an element added and an item
    set in a call. The entry names the clause; on the next release (an `if cfg.safe:` copy and
    others added above) it lands on the intended copy."""
    rows = ELIF.splitlines(True)
    after = "".join(r.replace(old, new) if k == line - 1 else r for k, r in enumerate(rows))
    data = imported_entry(ELIF, after)
    (step,) = yaml.safe_load(data)["rewrites"]
    ((_, keys),) = step.items()
    within, nth = SITES[(line, old, new)]
    assert (keys.get("within"), keys.get("occurrence")) == (within, nth), data.decode()
    patch = load_bytes(tmp_path / "e.yaml", data)
    gnu = gnu_patch(ELIF, after, ELIF)
    assert gnu is not None and same_ast(forward(patch, patch.rewrites, ELIF.encode(), "m.py").decode(), gnu)
    nxt, intended = ELIF.replace(*ABOVE), after.replace(*ABOVE)
    assert same_ast(forward(patch, patch.rewrites, nxt.encode(), "m.py").decode(), intended)


# att57 F5: a clause nested in a clause of the same kind (`@` a copy, `+` where the next release adds
# one: the top of the outer clause). `else:`/`finally:`/`try:` carry no text to tell them apart, and
# the same `except E:`/`case P:` neither; a count inside the key crossed both clauses.
NESTS = {
    "while-else in for-else": ["for x in items:", "    @", "else:", "    +", "    @", "    while not out:", "        @"]
    + ["    else:", "        @"],
    "if-else in else": ["if cfg.a:", "    @", "else:", "    +", "    if cfg.b:", "        @", "    else:", "        @"],
    "finally in finally": ["try:", "    @", "finally:", "    +", "    @", "    try:", "        @", "    finally:"]
    + ["        @"],
    "except in except": ["try:", "    @", "except KeyError:", "    +", "    try:", "        @", "    except KeyError:"]
    + ["        @"],
    "try in try": ["try:", "    +", "    @", "    try:", "        @", "    except ValueError:", "        @"]
    + ["except KeyError:", "    @"],
    "case in case": [
        "match cfg:",
        "    case 1:",
        "        +",
        "        match out:",
        "            case 1:",
        "                @",
    ]
    + ["            case _:", "                @", "    case _:", "        @"],
}
STMT = "out.append(emit(x, flush=True))"
NEST_EDITS = {"keyword": ("flush=True", "flush=False"), "argument": ("emit(x", "emit(total"), "insert": None}
NEST_EDITS["delete"] = None


def nested(name: str, changed: int | None, kind: str, added: bool) -> str:
    """The function with the copies of NESTS[name] (the `changed`-th, from 0, changed the `kind`
    way), a copy at the outer clause's top where `added`."""
    lines, n = ["def f(cfg, out, items):", "    x = total = 0"], 0
    for line in NESTS[name]:
        indent = "    " + line[: len(line) - len(line.lstrip())]
        if line.strip() == "+":
            lines += [indent + STMT] if added else []
            continue
        if line.strip() != "@":
            lines.append("    " + line)
            continue
        edit = NEST_EDITS[kind] if n == changed else ("", "")
        lines.append(indent + (STMT.replace(*edit) if edit else "pass" if kind == "delete" else STMT))
        lines += [indent + "total -= 1"] if n == changed and kind == "insert" else []
        n += 1
    return "\n".join([*lines, "    return out"]) + "\n"


NEST_CASES = sample([(name, kind) for name in NESTS for kind in NEST_EDITS])


@pytest.mark.parametrize(("name", "kind"), NEST_CASES)
def test_a_copy_in_a_clause_nested_in_its_kind_lands_on_it_or_is_refused(tmp_path, name: str, kind: str) -> None:  # type: ignore[no-untyped-def]
    """Each copy changed: the entry gives GNU patch's result on the installed release; on the next
    one (a copy added at the top of the outer clause, or copies above the function) it lands on the
    intended copy or is refused, never on another clause's copy (a bare count, where nothing tells
    the copy apart, is not weighed: it shifts, as in the family above; nor a count inside a header
    on the release that adds a copy inside that header) (att57 F5: `within: 'else:'` with
    `occurrence: 2`, counted in the outer `else:`, rewrote the inner `while`'s body)."""
    bad: list[str] = []
    for changed in range(sum(line.strip() == "@" for line in NESTS[name])):
        before, after = nested(name, None, kind, False), nested(name, changed, kind, False)
        data = imported_entry(before, after)
        patch = load_bytes(tmp_path / "e.yaml", data)
        gnu = gnu_patch(before, after, before)
        assert gnu is not None and same_ast(forward(patch, patch.rewrites, before.encode(), "m.py").decode(), gnu)
        ((_, keys),) = yaml.safe_load(data)["rewrites"][0].items()
        if "occurrence" in keys and "within" not in keys:
            continue  # a bare count (no header or clause tells the copy apart): shifts, as above
        nexts = [(copies_above(before, [STMT, "x += 1"]), copies_above(after, [STMT, "x += 1"]))]
        if "occurrence" not in keys or key_of(keys["within"])[0] == "clause":  # a count in a header: shifts
            nexts.append((nested(name, None, kind, True), nested(name, changed, kind, True)))
        for nxt, intended in nexts:
            try:
                ours = forward(patch, patch.rewrites, nxt.encode(), "m.py").decode()
            except RefusedError:
                continue
            if not same_ast(ours, intended):
                bad.append(f"copy {changed}:\n{data.decode()}--- next\n{nxt}--- radpatch\n{ours}")
    assert not bad, f"{len(bad)} land elsewhere:\n" + "\n".join(bad[:1])
