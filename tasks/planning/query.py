"""The assistant's search tool: a small typed query language over the sites, answered privately.

    /search vegan options == true, price <= 40, sort_by=distance_to(Rose Garden), limit=3
    Search(fields=[name, price, rating], filters=[type == restaurant, good for kids OR viewpoint], sort_by=[-rating])

Items are separated by commas (brackets group). An item is one of
  filters=[clause, ...]       or a bare clause; every clause must hold (AND)
  clause                      cond OR cond ... (any may hold)
  cond                        field op value  (op: == = != >= <= > <), or a bare boolean feature (== true),
                              `not X` / `no X` (== false), a bare type ("restaurants") or category value ("thai")
  sort_by=[key, ...]          key: a field, `-field` or `field desc` for descending, or distance_to(Site name)
  limit=N                     at most N rows (default 10 rows are shown; the count says how many matched)
  fields=[...] / columns=...  the columns (name, type, price, any feature, distance, info = all features)
Fields: name, type (category), price, and the 17 features (underscores or spaces; short names such as vegan,
kids, parking, wifi, music, outdoor, view, alcohol work). Values are typed: a boolean feature takes true/false,
a category one of its values, price and rating numbers. A site without a feature never matches a condition on it.
Malformed queries raise QueryError with what is wrong and what would be right.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Optional

from tasks.core.numbers import to_int, to_number

from .catalogue import TYPES, canonical_key
from .scoring import miles

ALIASES = {"vegan": "vegan options", "vegetarian": "vegetarian options", "kids": "good for kids",
           "groups": "good for groups", "parking": "has parking", "takeout": "has takeout", "wifi": "has wifi",
           "reservations": "accepts reservations", "reservable": "accepts reservations",
           "outdoor": "outdoor seating", "music": "live music", "alcohol": "alcohol type", "drinks": "alcohol type",
           "view": "viewpoint", "views": "viewpoint", "late": "open late", "stars": "rating"}
BASE = {"name": "name", "type": "type", "category": "type", "etype": "type", "price": "price", "cost": "price",
        "est_price": "price", "distance": "distance", "info": "info"}
OPS = ("==", "!=", ">=", "<=", ">", "<", "=")
DEFAULT_ROWS = 10
TRUE, FALSE = {"true", "yes", "y", "1"}, {"false", "no", "n", "0"}


_OP = re.compile(r"==|!=|>=|<=|=|>|<")


class QueryError(ValueError):
    pass


@dataclass
class Cond:
    field: str
    op: str
    value: object


@dataclass
class Query:
    clauses: list = field(default_factory=list)   # [[Cond, ...] (OR)] (AND)
    sort: list = field(default_factory=list)      # [(key, descending)], key = field or ("distance_to", index)
    limit: Optional[int] = None
    columns: Optional[list] = None


def _split(text: str, sep: str = ",") -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
            if depth < 0:
                raise QueryError("A closing bracket has no opening one.")
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if depth != 0:
        raise QueryError("A bracket is not closed.")
    return [p.strip() for p in out + [cur] if p.strip()]


def _unwrap(text: str) -> str:
    t = text.strip()
    m = re.fullmatch(r"(?is)search\s*\((.*)\)", t)
    t = m.group(1) if m else t
    if t.startswith("[") and t.endswith("]"):
        t = t[1:-1]
    return t.strip()


class Parser:
    def __init__(self, features: dict, sites: list):
        self.features = features
        self.sites = sites
        self.names = {s["name"].lower(): i for i, s in enumerate(sites)}

    def field(self, word: str) -> str:
        w = canonical_key(word.strip().lower())
        w = re.sub(r"\s+", " ", w)
        if w in BASE:
            return BASE[w]
        if w in self.features:
            return w
        if w in ALIASES and ALIASES[w] in self.features:
            return ALIASES[w]
        known = ["name", "type", "price", *sorted(self.features)]  # sorted: the same text live and in replay
        close = difflib.get_close_matches(w, known + list(ALIASES), n=1, cutoff=0.75)
        hint = f" Did you mean {ALIASES.get(close[0], close[0])!r}?" if close else ""
        raise QueryError(f"Unknown field {word.strip()!r}.{hint} Fields: {', '.join(known)}.")

    def site(self, name: str) -> int:
        n = name.strip().strip("'\"").lower()
        if n in self.names:
            return self.names[n]
        close = difflib.get_close_matches(n, list(self.names), n=1, cutoff=0.8)
        if close:
            return self.names[close[0]]
        raise QueryError(f"No site called {name.strip()!r}.")

    def value(self, f: str, op: str, raw: str):
        v = raw.strip().strip("'\"")
        if f in ("price", "rating"):
            num = to_number(v.lstrip("$"))
            if num is None:
                raise QueryError(f"{f} takes a number, not {v!r} (e.g. {f} <= 40).")
            if f == "rating" and op in ("==", "!=") and num not in self.features["rating"]["values"]:
                raise QueryError(f"rating is one of {self.features['rating']['values']}.")
            return num
        if op not in ("==", "!="):
            raise QueryError(f"{f} can only be compared with == or !=, not {op}.")
        if f == "type":
            t = v.lower().rstrip("s") if v.lower().rstrip("s") in TYPES else v.lower()
            if t not in TYPES:
                raise QueryError(f"type is one of {', '.join(TYPES)}, not {v!r}.")
            return t
        if f == "name":
            return self.sites[self.site(v)]["name"]
        spec = self.features[f]
        if spec["type"] == "bool":
            if v.lower() in TRUE:
                return True
            if v.lower() in FALSE:
                return False
            raise QueryError(f"{f} is true or false, not {v!r} (e.g. {f} == true).")
        values = [str(x).lower() for x in spec["values"]]
        if v.lower() not in values:
            raise QueryError(f"{f} is one of {', '.join(values)}, not {v!r}.")
        return spec["values"][values.index(v.lower())]

    def cond(self, text: str) -> Cond:
        t = text.strip()
        # the first operator splits field and value (found by one scan: a lazy `(.*?)\s*` before it costs quadratic
        # time on long runs of spaces)
        m = None if "\n" in t else _OP.search(t)
        if m:
            f, op, raw = t[:m.start()], m.group(0), t[m.end():]
            op = "==" if op == "=" else op
            if not f.strip() or not raw.strip():
                raise QueryError(f"{t!r} needs a field and a value on both sides of {op}.")
            fld = self.field(f)
            if fld in ("distance", "info"):
                raise QueryError(f"{fld} cannot be filtered on; sort by distance_to(Site) instead.")
            return Cond(fld, op, self.value(fld, op, raw))
        neg = re.match(r"^(not|no|!)\s*(.+)$", t, flags=re.I)
        word = neg.group(2) if neg else t
        low = word.lower().strip()
        if low.rstrip("s") in TYPES and not neg:
            return Cond("type", "==", low.rstrip("s"))
        for f, spec in sorted(self.features.items()):
            if spec["type"] == "categorical" and low in [str(x).lower() for x in spec["values"]] and not neg:
                return Cond(f, "==", self.value(f, "==", low))
        fld = self.field(word)
        if fld in self.features and self.features[fld]["type"] == "bool":
            return Cond(fld, "==", not neg)
        raise QueryError(f"{t!r} is not a condition; write e.g. {fld} == <value>.")

    def clause(self, text: str) -> list:
        parts = [p for p in re.split(r"\s+or\s+|\s*\|\|?\s*", text, flags=re.I) if p.strip()]
        if not parts:
            raise QueryError("An empty condition.")
        return [self.cond(p) for p in parts]

    def sort_key(self, text: str):
        t = text.strip()
        m = re.fullmatch(r"(?i)distance_?to\s*\((.+)\)\s*(desc)?", t)
        if m:
            return (("distance_to", self.site(m.group(1))), bool(m.group(2)))
        desc = t.startswith("-") or bool(re.search(r"\s+desc(ending)?$", t, flags=re.I))
        t = re.sub(r"\s+(asc|desc|ascending|descending)$", "", t.lstrip("-"), flags=re.I)
        fld = self.field(t)
        if fld in ("distance", "info"):
            raise QueryError("Sort by distance_to(Site name), e.g. sort_by=distance_to(Rose Garden).")
        return (fld, desc)

    def parse(self, text: str) -> Query:
        body = _unwrap(text or "")
        if not body:
            raise QueryError("Empty search. Example: /search type == cafe, has wifi, sort_by=price, limit=3")
        q = Query()
        for item in _split(body):
            m = re.match(r"^(\w+)\s*=(?!=)\s*(.*)$", item, flags=re.S)
            key = m.group(1).lower() if m else None
            if key in ("filters", "filter", "where"):
                q.clauses += [self.clause(c) for c in _split(_unwrap(m.group(2)))]
            elif key in ("sort_by", "sort", "order_by"):
                q.sort += [self.sort_key(k) for k in _split(_unwrap(m.group(2)))]
            elif key in ("limit", "top"):
                q.limit = to_int(m.group(2).strip())
                if q.limit is None:
                    raise QueryError(f"limit takes a whole number, not {m.group(2).strip()!r}.")
                if q.limit < 1:
                    raise QueryError("limit must be at least 1.")
            elif key in ("fields", "columns", "cols"):
                q.columns = []
                for c in _split(_unwrap(m.group(2))):
                    if re.fullmatch(r"(?i)distance_?to\s*\(.+\)", c.strip()):
                        q.columns.append("distance")
                    else:
                        q.columns.append(self.field(c))
            elif key in ("text_query", "text"):
                q.clauses.append(self.clause(_unwrap(m.group(2))))
            else:
                q.clauses.append(self.clause(item))
        return q


def _holds(site: dict, c: Cond) -> bool:
    if c.field == "name":
        v = site["name"]
    elif c.field == "type":
        v = site["etype"]
    elif c.field == "price":
        v = site["price"]
    else:
        if c.field not in site["features"]:
            return False
        v = site["features"][c.field]
    if c.op == "==":
        return v == c.value and isinstance(v, bool) == isinstance(c.value, bool)
    if c.op == "!=":
        return not (v == c.value and isinstance(v, bool) == isinstance(c.value, bool))
    return {">=": v >= c.value, "<=": v <= c.value, ">": v > c.value, "<": v < c.value}[c.op]


def run(query: Query, sites: list, distance_rule: str = "haversine") -> dict:
    """{columns, rows (list of lists), matched, shown, ids}: the sites that match, sorted, limited."""
    ids = [i for i, s in enumerate(sites) if all(any(_holds(s, c) for c in clause) for clause in query.clauses)]
    dist_to = next((k[1] for k, _ in query.sort if isinstance(k, tuple)), None)

    def cell(i: int, col: str):
        s = sites[i]
        if col == "name":
            return s["name"]
        if col == "type":
            return s["etype"]
        if col == "price":
            return s["price"]
        if col == "distance":
            return None if dist_to is None else miles(s["loc"], sites[dist_to]["loc"], distance_rule)
        if col == "info":
            return "; ".join(f"{k}: {v}" for k, v in sorted(s["features"].items()))
        return s["features"].get(col)

    for key, desc in reversed(query.sort):  # stable sorts, last key first
        if isinstance(key, tuple):
            ids.sort(key=lambda i: miles(sites[i]["loc"], sites[key[1]]["loc"], distance_rule), reverse=desc)
        else:
            present = [i for i in ids if cell(i, key) is not None]
            missing = [i for i in ids if cell(i, key) is None]
            present.sort(key=lambda i: _order(cell(i, key)), reverse=desc)
            ids = present + missing
    cols = list(query.columns) if query.columns else (
        ["name", "type", "price"]
        + [c.field for cl in query.clauses for c in cl if c.field not in ("name", "type", "price")]
        + [k for k, _ in query.sort if isinstance(k, str) and k not in ("name", "type", "price")]
        + (["distance"] if dist_to is not None else []))
    cols = list(dict.fromkeys(cols))
    matched = len(ids)
    shown = ids[:query.limit if query.limit else DEFAULT_ROWS]
    return {"columns": cols, "rows": [[cell(i, c) for c in cols] for i in shown], "matched": matched,
            "shown": len(shown), "ids": shown}


def _order(v) -> tuple:
    """How a column sorts: numbers (price, rating, booleans) by value, text (name, type, a category such as cuisine
    or ambience) alphabetically; numbers before text should a column ever mix them."""
    if isinstance(v, (bool, int, float)):
        return (0, float(v), "")
    return (1, 0.0, str(v).lower())


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def render(result: dict) -> str:
    if not result["matched"]:
        return "Search Results: No results"
    lines = [f"Search Results ({result['matched']}):", " | ".join(result["columns"])]
    lines += [" | ".join(_fmt(v) for v in row) for row in result["rows"]]
    if result["shown"] < result["matched"]:
        lines.append(f"(first {result['shown']} of {result['matched']}; add limit=N to see more)")
    return "\n".join(lines)


def search(text: str, sites: list, features: dict, distance_rule: str = "haversine") -> dict:
    """Parse and run; raises QueryError on a malformed query."""
    return run(Parser(features, sites).parse(text), sites, distance_rule)
