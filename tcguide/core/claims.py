"""Statements about measurements that the build checks against the captured data.

A glued figure follows every recapture; the sentence around it does not. So a sentence that
compares or judges a measurement ("compiled is faster", "the ranges overlap", "no
measurable gain", "two graphs") is bound to a condition on captured values, declared once
for the chapter in ``claims/<page>.toml``::

    [compiled-not-faster]
    values = { eager = "profiling/eager_vs_compiled.py:profiles.eager",
               compiled = "profiling/eager_vs_compiled.py:profiles.compiled" }
    holds = "overlap(eager, compiled)"

Every language's page marks the words that state it, around any figures they quote::

    {{claim:compiled-not-faster}}compiled is no faster than eager here{{/claim}}

``holds`` is a Python expression over the named values: numbers, text, true/false, lists and
objects of them, with ``.key`` to reach into an object; comparisons, ``and``/``or``/``not``,
arithmetic, and the functions below (``FUNCTIONS``). The build writes the marked words in a
``<span data-claim="ID">`` whose tooltip gives the condition and the values it was checked
against, in the page's language. A claim that no longer holds after a recapture, an unknown
one, an unclosed mark or a claim the chapter declares but no page states fails ``check`` and
the strict build, with the page and line and the values.
"""

from __future__ import annotations

import ast
import html
import operator
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tcguide.core import directive, glue
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError
from tcguide.core.languages import SOURCE
from tcguide.core.labels import label

FOLDER = "claims"
OPEN = re.compile(r"^claim:(?P<id>[a-z0-9][a-z0-9-]*)$")
CLOSE = "/claim"
SYNTAX = "mark a claim as {{claim:ID}}the words that state it{{/claim}}, with ID declared in claims/PAGE.toml"


# ---- the declarations ------------------------------------------------------------------------

@dataclass(frozen=True)
class Claim:
    id: str
    holds: str
    values: dict[str, str]  # name -> "FILE.py:NAME[.KEY...]"
    source: str  # claims/page.toml
    line: int


def declarations_path(root: Path, page_stem: str) -> Path:
    return root / FOLDER / f"{page_stem}.toml"


def load(root: Path, page_stem: str) -> dict[str, Claim]:
    """The claims a chapter declares (empty if it declares none); GuideError naming file and line."""
    path = declarations_path(root, page_stem)
    if not path.exists():
        return {}
    shown = f"{FOLDER}/{path.name}"
    text = path.read_text(encoding="utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise GuideError(shown, int(line[1]) if line else None, f"is not valid TOML ({exc})",
                         "fix the TOML syntax at the place it names") from None
    lines = text.splitlines()

    def line_of(claim_id: str) -> int | None:
        header = re.compile(r"^\s*\[\s*\"?" + re.escape(claim_id) + r"\"?\s*\]")
        return next((n for n, l in enumerate(lines, 1) if header.match(l)), None)

    found = {}
    for claim_id, body in doc.items():
        where = line_of(claim_id)
        if not OPEN.match(f"claim:{claim_id}") or not isinstance(body, dict):
            raise GuideError(shown, where, f"'{claim_id}' is not a claim: a claim is a table [lower-case-id]",
                             "write it as [compiled-faster] with holds and values below it")
        extra = set(body) - {"holds", "values"}
        if extra or not isinstance(body.get("holds"), str):
            raise GuideError(shown, where, f"claim '{claim_id}' needs holds = \"a condition\" and values = {{...}}"
                             + (f"; it also has {', '.join(sorted(extra))}" if extra else ""),
                             "give it those two keys and no other")
        values = body.get("values", {})
        if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
            raise GuideError(shown, where, f"claim '{claim_id}': values maps names to \"FILE.py:NAME.KEY\"",
                             'write values = {compiled = "topic/file.py:result.compiled.ms"}, say')
        claim = Claim(claim_id, body["holds"], dict(values), shown, where or 1)
        _compile(claim)
        found[claim_id] = claim
    return found


# ---- the condition ----------------------------------------------------------------------------

@dataclass
class _Value:
    """A captured value and the path it was reached by (eager.p90), for the tooltip."""
    path: str
    value: object


@dataclass
class Verdict:
    holds: bool
    used: dict[str, object] = field(default_factory=dict)  # path -> value, in the order read


def _number(v: _Value | object, used: dict) -> object:
    if isinstance(v, _Value):
        if not isinstance(v.value, (dict, list)):
            used.setdefault(v.path, v.value)
        return v.value
    return v


def _overlap(used, a, b):
    """The p10-p90 ranges of two measurements overlap: neither is shown faster than the other."""
    lo_a, hi_a, lo_b, hi_b = (_number(_get(m, k), used) for m in (a, b) for k in ("p10", "p90"))
    return lo_a <= hi_b and lo_b <= hi_a


def _below(used, a, b):
    """Every round of a is below every round of b's p10-p90 range: a's p90 under b's p10."""
    return _number(_get(a, "p90"), used) < _number(_get(b, "p10"), used)


def _ratio(used, a, b):
    """The ratio of two medians (or of two numbers)."""
    def median(v):
        return _number(_get(v, "ms"), used) if isinstance(v, _Value) and isinstance(v.value, dict) else _number(v, used)
    return median(a) / median(b)


FUNCTIONS = {
    "overlap": _overlap,  # overlap(a, b): the p10-p90 ranges of two measurements overlap
    "below": _below,  # below(a, b): a's p90 is under b's p10 (a is faster, beyond the spread)
    "ratio": _ratio,  # ratio(a, b): a's median over b's (or a / b for numbers)
    "abs": lambda used, x: abs(_number(x, used)),
    "min": lambda used, *xs: min(_number(x, used) for x in xs),
    "max": lambda used, *xs: max(_number(x, used) for x in xs),
    "len": lambda used, x: len(_number(x, used)),
}
OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
       ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
       ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def _get(v, key):
    if isinstance(v, _Value) and isinstance(v.value, dict) and key in v.value:
        return _Value(f"{v.path}.{key}", v.value[key])
    if isinstance(v, _Value) and isinstance(v.value, list) and isinstance(key, int) and -len(v.value) <= key < len(v.value):
        return _Value(f"{v.path}[{key}]", v.value[key])
    have = ", ".join(v.value) if isinstance(v, _Value) and isinstance(v.value, dict) else type(
        v.value if isinstance(v, _Value) else v).__name__
    raise ValueError(f"{v.path if isinstance(v, _Value) else v!r} has no '{key}' (it has: {have})")


def _compile(claim: Claim) -> ast.Expression:
    try:
        tree = ast.parse(claim.holds, mode="eval")
    except SyntaxError as exc:
        raise GuideError(claim.source, claim.line, f"claim '{claim.id}': holds is not an expression ({exc.msg})",
                         'write it as Python, such as below(compiled, eager)') from None
    allowed = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.BinOp, ast.Compare,
               ast.Call, ast.Name, ast.Load, ast.Attribute, ast.Subscript, ast.Constant, ast.List, ast.Tuple,
               *OPS)
    for node in ast.walk(tree):
        if not isinstance(node, allowed):
            raise GuideError(claim.source, claim.line,
                             f"claim '{claim.id}': {type(node).__name__} is not allowed in a condition",
                             "use its values, comparisons, and/or/not, and the functions tcguide/core/claims.py lists")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            raise GuideError(claim.source, claim.line, f"claim '{claim.id}': calls only {', '.join(FUNCTIONS)}",
                             "call one of those")
        if isinstance(node, ast.Name) and node.id not in claim.values and node.id not in FUNCTIONS \
                and node.id not in ("True", "False", "None"):
            raise GuideError(claim.source, claim.line,
                             f"claim '{claim.id}': '{node.id}' is not one of its values ({', '.join(claim.values)})",
                             f"add {node.id} to its values, or use one of those names")
    return tree


def _eval(node, names: dict, used: dict):
    match node:
        case ast.Expression(body=body):
            return _eval(body, names, used)
        case ast.Constant(value=value):
            return value
        case ast.Name(id=name):
            return names[name]
        case ast.Attribute(value=inner, attr=attr):
            return _get(_eval(inner, names, used), attr)
        case ast.Subscript(value=inner, slice=key):
            return _get(_eval(inner, names, used), _number(_eval(key, names, used), used))
        case ast.List(elts=elts) | ast.Tuple(elts=elts):
            return [_number(_eval(e, names, used), used) for e in elts]
        case ast.UnaryOp(op=ast.Not(), operand=x):
            return not _number(_eval(x, names, used), used)
        case ast.UnaryOp(op=ast.USub(), operand=x):
            return -_number(_eval(x, names, used), used)
        case ast.BoolOp(op=op, values=values):
            result = isinstance(op, ast.And)
            for v in values:
                result = _number(_eval(v, names, used), used)
                if bool(result) != isinstance(op, ast.And):
                    break
            return result
        case ast.BinOp(left=a, op=op, right=b):
            return OPS[type(op)](_number(_eval(a, names, used), used), _number(_eval(b, names, used), used))
        case ast.Compare(left=left, ops=ops, comparators=rights):
            a = _number(_eval(left, names, used), used)
            for op, right in zip(ops, rights):
                b = _number(_eval(right, names, used), used)
                if not OPS[type(op)](a, b):
                    return False
                a = b
            return True
        case ast.Call(func=ast.Name(id=fn), args=args):
            return FUNCTIONS[fn](used, *(_eval(a, names, used) for a in args))
    raise ValueError(f"cannot evaluate {ast.dump(node)}")


def evaluate(claim: Claim, catalog: Catalog, page: str, line: int) -> Verdict:
    """Whether the claim holds for the captured values; GuideError (page and line) if a value is
    missing, stale, or the condition cannot be evaluated on it."""
    names = {}
    for name, text in claim.values.items():
        ref = glue.parse(text, line, page)
        names[name] = _Value(name, glue.resolve(ref, catalog, page).value)
    used: dict[str, object] = {}
    try:
        result = _number(_eval(_compile(claim), names, used), used)
    except (ValueError, TypeError, ZeroDivisionError, KeyError) as exc:
        raise GuideError(page, line, f"claim '{claim.id}' ({claim.holds}) cannot be checked: {exc}",
                         f"fix it in {claim.source}:{claim.line}") from None
    return Verdict(bool(result), used)


def shown_values(verdict: Verdict, lang: str) -> str:
    def one(value) -> str:
        try:
            return glue.format_value(value, None, lang)
        except ValueError:
            return str(value)
    return label(lang, "list_sep").join(f"{path} = {one(v)}" for path, v in verdict.used.items())


# ---- the pages -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Mark:
    id: str
    line: int  # where it opens
    close_line: int
    column: int = 0  # where it opens on its line (two claims may open on one line)


def find(markdown: str, page: str, start: int = 1) -> tuple[list[Mark], list[GuideError]]:
    """Every claim mark of a page's prose, in order; errors for unclosed, unopened or nested marks."""
    found, errors = [], []
    open_at: tuple[str, int] | None = None
    for number, line, code in directive.lines_with_code_flag(markdown, start):
        if code:
            continue
        if not line.strip() and open_at:  # a claim stays within its paragraph
            errors.append(GuideError(page, open_at[1], f"{{{{claim:{open_at[0]}}}}} is not closed in its paragraph",
                                     SYNTAX))
            open_at = None
        for begin, _, body in glue.tokens(line):
            if opened := OPEN.match(body):
                if open_at:
                    errors.append(GuideError(page, number, "a claim opens inside another one", SYNTAX))
                open_at = (opened["id"], number, begin)
            elif body == CLOSE:
                if not open_at:
                    errors.append(GuideError(page, number, "{{/claim}} closes no claim", SYNTAX))
                    continue
                found.append(Mark(open_at[0], open_at[1], number, open_at[2]))
                open_at = None
            elif body.startswith("claim"):
                errors.append(GuideError(page, number, f"malformed claim mark {{{{{body}}}}}", SYNTAX))
    if open_at:
        errors.append(GuideError(page, open_at[1], f"{{{{claim:{open_at[0]}}}}} is not closed", SYNTAX))
    return found, errors


def page_stem(page: str) -> str:
    return Path(page).stem


def check_page(markdown: str, root: Path, catalog: Catalog, page: str, lang: str, start: int = 1
               ) -> tuple[dict[tuple[int, int], tuple[Claim, Verdict | None]], list[GuideError]]:
    """Every mark of a page checked: (line, column) -> (claim, verdict), and what is wrong (a claim
    that does not hold, an unknown one, a malformed mark), each naming the page and line. On the
    English page, also each claim the chapter declares that the page never states."""
    marks, problems = find(markdown, page, start)
    try:
        book = load(root, page_stem(page))
    except GuideError as exc:
        return {}, problems + [exc]
    checked = {}
    for mark in marks:
        claim = book.get(mark.id)
        if claim is None:
            problems.append(GuideError(page, mark.line, f"claim '{mark.id}' is not declared in "
                                       f"{FOLDER}/{page_stem(page)}.toml",
                                       f"declare it there (known: {', '.join(book) or 'none'})"))
            continue
        try:
            verdict = evaluate(claim, catalog, page, mark.line)
        except GuideError as exc:
            problems.append(exc)
            checked[mark.line, mark.column] = (claim, None)
            continue
        checked[mark.line, mark.column] = (claim, verdict)
        if not verdict.holds:
            problems.append(GuideError(
                page, mark.line,
                f"claim '{claim.id}' no longer holds: {claim.holds} is false for {shown_values(verdict, 'en')}",
                f"say what the data show instead, and change the claim in {claim.source}:{claim.line}"))
    if lang == SOURCE:
        problems.extend(_unstated(book, marks))
    return checked, problems


def _unstated(book: dict[str, Claim], marks: list[Mark]) -> list[GuideError]:
    """Claims a chapter declares that its English page does not state (a declaration nobody checks)."""
    stated = {m.id for m in marks}
    return [GuideError(c.source, c.line, f"claim '{c.id}' is declared but the English page never states it",
                       "mark the sentence that states it, or remove the declaration")
            for c in book.values() if c.id not in stated]


def substitute(markdown: str, checked: dict[tuple[int, int], tuple[Claim, Verdict | None]], lang: str, start: int = 1,
               *, as_text: bool = False) -> str:
    """The page with claim marks replaced: a span with ``data-claim`` and a tooltip, or nothing
    (``as_text``, for notebooks). Lines keep their numbers."""
    lines = markdown.splitlines()
    current: tuple[Claim, Verdict | None] | None = None
    for number, line, code in directive.lines_with_code_flag(markdown, start):
        if code:
            continue
        pieces, last = [], 0
        for begin, end, body in glue.tokens(line):
            if opened := OPEN.match(body):
                current = checked.get((number, begin))
                rendered = "" if as_text else _open_span(opened["id"], current, lang)
            elif body == CLOSE:
                rendered = "" if as_text else "</span>"
                current = None
            else:
                continue
            pieces += [line[last:begin], rendered]
            last = end
        if pieces:
            lines[number - start] = "".join(pieces) + line[last:]
    return "\n".join(lines) + ("\n" if markdown.endswith("\n") else "")


def _open_span(claim_id: str, checked: tuple[Claim, Verdict | None] | None, lang: str) -> str:
    if checked is None or checked[1] is None:
        return f'<span class="tcg-claim tcg-missing" data-claim="{html.escape(claim_id)}">'
    claim, verdict = checked
    key = "claim" if verdict.holds else "claim_false"
    title = label(lang, key).format(holds=claim.holds, values=shown_values(verdict, lang))
    css = "tcg-claim" if verdict.holds else "tcg-claim tcg-missing"
    return (f'<span class="{css}" data-claim="{html.escape(claim.id)}" data-holds="{html.escape(claim.holds)}" '
            f'title="{html.escape(title)}">')
