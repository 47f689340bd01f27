"""Path facts: what a path has learned from simple tests and constant assignments about a function's
own locals (a name, `not name`, `name is None` / `is not None`, `name == c` / `!= c`, and `and`/`or`
of them), so that bound-on-some-paths (flow) can tell apart paths a walk that does not follow values
joins: a branch whose test a path's facts decide is not taken on that path (`if x is None: raise` ...
`if x is not None: v = 1` ... `return v`), and a claim remembers the facts of the paths that leave
its name unbound (`except ValueError: ok = False` ... `if not ok: v = 0` binds it on exactly those;
`if not ok: return 0` ends the others). A flag assigned a test (`d = a and b`, `d = x is None`, `d = not
a`) is true exactly where the test is: where the path tests it, it tells the test's facts too (vLLM
0.33.0's `dequant_k_out = return_kv and is_fp8_cache` / `if is_fp8_cache: fp8_dtype = ...` / `if
dequant_k_out: ... fp8_dtype`). A fact is dropped when its name (or a name a flag's test reads) is
bound again, and at anything that may change what it states (stable: a call, `await`, `yield`, a
store through an object, an augmented assignment; att40b #2); at most CAP are kept; what they cannot
tell stays as the walk without them judged it.
"""

from __future__ import annotations

import ast

Key = tuple[str, str, object]  # (name, "truth" | "none" | "eq" | "gt" | "ge" | "same", the constant compared with)
# "same": the name holds the truth of a test, the key's object (the test, the names it reads)
Facts = dict[Key, bool]
CAP = 16


_MIRRORED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.Gt,
    ast.LtE: ast.GtE,
    ast.Gt: ast.Lt,
    ast.GtE: ast.LtE,
    ast.Eq: ast.Eq,
    ast.NotEq: ast.NotEq,
}


def simple(test: ast.expr) -> tuple[Key, bool] | None:
    """The fact a simple test states, and whether it holds when the test is true."""
    holds = True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, holds = test.operand, not holds
    if subject(test) is not None:
        return (subject(test), "truth", None), holds  # type: ignore[return-value]
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Constant)
        and subject(test.comparators[0]) is not None
        and type(test.ops[0]) in _MIRRORED
    ):  # `0 < n` is `n > 0`
        test = ast.Compare(test.comparators[0], [_MIRRORED[type(test.ops[0])]()], [test.left])
    name = subject(test.left) if isinstance(test, ast.Compare) and len(test.ops) == 1 else None
    if isinstance(test, ast.Compare) and name is not None:
        op, right = test.ops[0], test.comparators[0]
        if not isinstance(right, ast.Constant) or isinstance(right.value, (list, dict)):
            return None
        if isinstance(op, (ast.Is, ast.IsNot)) and right.value is None:
            return (name, "none", None), isinstance(op, ast.Is) == holds
        if isinstance(op, (ast.Eq, ast.NotEq)) and type(right.value) in (int, str, bool, bytes):
            return (name, "eq", (type(right.value).__name__, right.value)), isinstance(op, ast.Eq) == holds
        if type(right.value) is int and isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)):  # `n < c`: not `n >= c`
            kind = "gt" if isinstance(op, (ast.Gt, ast.LtE)) else "ge"
            return (name, kind, right.value), isinstance(op, (ast.Gt, ast.GtE)) == holds
    return None


def subject(e: ast.expr) -> str | None:
    """What a simple test tests: a name (`a`), or an attribute path from one (`self.cfg.on`: "self.cfg.on"),
    read again as the same value where nothing rebinds its first name, and no call, `await`, `yield` or
    store through an object runs between (flow.forget, Flow.changed: stable). A call or a subscript in
    it is not a subject: a test of one tells no fact."""
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    return ".".join([e.id, *reversed(parts)]) if isinstance(e, ast.Name) else None


def root(key: Key) -> str:
    """The name a fact's subject starts from (`self` of `self.cfg.on`)."""
    return key[0].partition(".")[0]


def of_test(test: ast.expr, outcome: bool, path: Facts | None = None) -> Facts:
    """The facts that hold where `test` came out `outcome` (both operands of a true `and`, ...);
    `path`: the facts where it is tested, whose flags (`d = a and b`) tell their tests' facts."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, outcome = test.operand, not outcome
    if isinstance(test, ast.NamedExpr):  # `(w := a)`: w's truth, and a's facts (w's value is a's)
        own: Facts = {(test.target.id, "truth", None): outcome}
        return own if rebinds(test) else of_test(test.value, outcome, path) | own
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) == outcome:
        out: Facts = {}
        for value in test.values:  # a later operand's call may change what an earlier one told
            out = changed_by(out, value) | of_test(value, outcome, path)
        return out
    found = simple(test)
    if found is None:
        return {}
    key, holds = found
    out = {key: holds == outcome}
    for flag in [k for k in path or () if k[0] == key[0] and k[1] == "same"] if key[1] == "truth" else ():
        rest = {k: v for k, v in (path or {}).items() if k != flag}  # a flag's test read once
        out |= of_test(flag[2][0], holds == outcome, rest)  # type: ignore[index]
    return out


def rebinds(test: ast.NamedExpr) -> bool:
    """`(a := not a)`: a walrus whose value reads the name it binds tells nothing of the name's new value."""
    return any(isinstance(n, ast.Name) and n.id == test.target.id for n in ast.walk(test.value))


def exact(test: ast.expr, outcome: bool) -> bool:
    """Do of_test's facts for `test` coming out `outcome` say all it says (`a and b` true: a, b), so
    that a path where they all hold is one where it came out so (not `a and g(x)`, nor `a and b` false)?"""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, outcome = test.operand, not outcome
    if isinstance(test, ast.NamedExpr):
        return rebinds(test) or exact(test.value, outcome)
    if isinstance(test, ast.BoolOp):
        return isinstance(test.op, ast.And) == outcome and all(exact(v, outcome) for v in test.values)
    return simple(test) is not None


def entails(facts: Facts, sure: Facts) -> bool:
    """Do `facts` tell every fact of `sure`?"""
    return bool(sure) and all(told(facts, k) == v for k, v in sure.items())


def of_flag(name: str, value: ast.expr) -> Facts:
    """`name = <test>`: name is true exactly where the test is (a test of and/or/not/comparisons)."""
    if not isinstance(value, (ast.BoolOp, ast.UnaryOp, ast.Compare)) or (
        isinstance(value, ast.UnaryOp) and not isinstance(value.op, ast.Not)
    ):
        return {}
    reads = frozenset(n.id for n in ast.walk(value) if isinstance(n, ast.Name))
    return {} if name in reads else {(name, "same", (value, reads)): True}


def of_constant(name: str, value: ast.expr) -> Facts:
    """The facts `name = <constant>` states."""
    if not isinstance(value, ast.Constant) or isinstance(value.value, (list, dict)):
        return {}
    c = value.value
    out: Facts = {(name, "truth", None): bool(c), (name, "none", None): c is None}
    if type(c) in (int, str, bool, bytes):
        out[(name, "eq", (type(c).__name__, c))] = True
    return out


def told(facts: Facts, key: Key) -> bool | None:
    """What `facts` tell of `key`, directly or through another fact of the same name (`x == 1` tells
    `x == 2` false, `x` true and `x is None` false)."""
    if key in facts:
        return facts[key]
    name, kind, const = key
    for (other, okind, oconst), holds in facts.items():
        if other != name or not holds or okind not in ("eq", "truth"):
            continue
        if okind == "eq" and kind == "eq":  # equal to another constant: not to this one (1 == True is)
            return None if oconst[1] == const[1] else False  # type: ignore[index]
        if okind == "eq" and kind == "truth":
            return bool(oconst[1])  # type: ignore[index]
        if kind == "none":  # a true value, or one equal to a constant: not None
            return False
    return _ordered(facts, key)


def _ordered(facts: Facts, key: Key) -> bool | None:
    """What the order facts of key's name (`n > c`, `n >= c`, true or false) tell of key: `n > 0`
    tells `n == 0` false and `n` true, `n == 2` tells `n > 0` true, `n >= 1` false tells `n > 0`
    false; a compared value is not None. n is taken as a whole number (a count: `n < 1` is `n <= 0`)."""
    name, kind, const = key
    for (other, okind, c), holds in facts.items():
        if other != name or okind not in ("gt", "ge", "eq"):
            continue
        if okind == "eq":
            k = c[1] if holds else None  # type: ignore[index]
            if kind in ("gt", "ge") and type(k) is int and isinstance(const, int):
                return k > const if kind == "gt" else k >= const
            continue
        assert isinstance(c, int)
        if kind == "none":  # compared with a number: not None (None > 0 raises)
            return False
        low = c if okind == "gt" else c - 1  # holds: n > low (for a whole number)
        k = const[1] if kind == "eq" else None  # type: ignore[index]
        if type(k) is int and (k <= low if holds else k > low):
            return False
        if kind == "truth" and holds and low >= 0:
            return True
        if kind in ("gt", "ge") and isinstance(const, int):  # both as `n > q` of a whole number
            q = const if kind == "gt" else const - 1
            if holds and low >= q:
                return True
            if not holds and low <= q:
                return False
    return None


def outcome(facts: Facts, test: ast.expr) -> bool | None:
    """Is `test` sure to be true (false) where `facts` hold? None: not told."""
    if not facts:
        return None
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = outcome(facts, test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.NamedExpr):
        return None if rebinds(test) else outcome(facts, test.value)
    if isinstance(test, ast.BoolOp):
        values = [outcome(facts, v) for v in test.values]
        short = not isinstance(test.op, ast.And)  # the value that decides the whole: False for `and`
        if short in values:
            return short
        return (not short) if all(v is not None for v in values) else None
    found = simple(test)
    if found is None:
        return None
    key, holds = found
    value = told(facts, key)
    if value is None and key[1] == "truth":  # a flag: what facts tell of its test
        for flag in [k for k in facts if k[0] == key[0] and k[1] == "same"]:
            value = outcome({k: v for k, v in facts.items() if k != flag}, flag[2][0])  # type: ignore[index]
            if value is not None:
                break
    return None if value is None else value == holds


def contradicts(facts: Facts, cond: Facts) -> bool:
    """Can no path hold both? (each side tells the other's facts, through told)"""
    if not facts or not cond:
        return False
    return any(told(facts, key) not in (None, value) for key, value in cond.items()) or any(
        told(cond, key) not in (None, value) for key, value in facts.items()
    )


def meet(all_facts: list[Facts]) -> Facts:
    """What every one of `all_facts` holds."""
    if not all_facts:
        return {}
    first, rest = all_facts[0], all_facts[1:]
    return {k: v for k, v in first.items() if all(f.get(k) == v for f in rest)}


def capped(facts: Facts) -> Facts:
    return facts if len(facts) <= CAP else dict(list(facts.items())[-CAP:])


def stable(facts: Facts, immutable: frozenset[str] = frozenset()) -> Facts:
    """`facts` but what a call, a store through any object (an alias: `o = self` / `o.x = 1`,
    `setattr`, `a[0] = 1`) or an in-place change (`a.append(1)`, `b += [1]` on an alias of `a`) may
    make false: every fact of an attribute path, and a local's truth or value unless it holds a
    number, a string or None (told by an `==`, order or `is None` fact, or `immutable`: the locals
    fixed_values finds hold such values only); what `is None` tells of a local stays (no call rebinds
    it), and so does a flag assigned a test of such facts only, or of `immutable` names only."""
    if not facts:
        return facts
    fixed = {k[0] for k, v in facts.items() if (v and k[1] in ("eq", "none")) or k[1] in ("gt", "ge")} | immutable
    return {
        k: v
        for k, v in facts.items()
        if "." not in k[0]
        and ((k[1] == "none" or k[0] in fixed) if k[1] != "same" else _identity_only(k[2][0], immutable))  # type: ignore[index]
    }


def _identity_only(test: ast.expr, immutable: frozenset[str]) -> bool:
    """Is a flag's test (and/or/not of simple tests) made of `name is None` / `is not None` only, or
    of simple tests of `immutable` names?"""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.BoolOp):
        return all(_identity_only(v, immutable) for v in test.values)
    found = simple(test)
    return found is not None and (found[0][1] == "none" or found[0][0] in immutable) and "." not in found[0][0]


def changes(nodes: list[ast.stmt] | ast.AST) -> bool:
    """May running `nodes` change what facts state: a call, an `await` or `yield` (other code runs),
    a store or `del` through an object (`o.x = 1`, `a[0] = 1`), an augmented assignment (in place)?"""
    for top in nodes if isinstance(nodes, list) else [nodes]:
        for n in ast.walk(top):
            if isinstance(n, EFFECTS) or isinstance(n, ast.AugAssign):
                return True
            if isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load):
                return True
    return False


def changed_by(facts: Facts, nodes: list[ast.stmt] | ast.AST, immutable: frozenset[str] = frozenset()) -> Facts:
    """`facts` as they hold after `nodes` ran (or stopped partway): stable ones only where they may change them."""
    return stable(facts, immutable) if facts and changes(nodes) else facts


EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)  # evaluating one runs code that may store anywhere
