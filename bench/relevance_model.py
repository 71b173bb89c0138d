#!/usr/bin/env python3
"""A model of docsh's ranking in Python, to try ranking rules and constants on every
collection of `relevance.py` in seconds (docsh itself is then measured by relevance.py).

    bench/relevance_model.py DATA [--only cranfield,cisi]
    bench/relevance_model.py DATA --loco CACHE     # choose by leaving each collection out

Tokens are SQLite's own (`unicode61 remove_diacritics 2`, and `porter` on top for stems,
read through `fts5vocab` by position), as docsh's tokenizer makes them, except that docsh
also folds the marks unicode61 leaves (no matter for these English collections). Each
variant in VARIANTS is scored on every collection; the table prints nDCG@10 and the mean.
With --loco, every setting of GRID is scored (per query, cached in CACHE) and each
collection's setting is chosen on the others (see leave_one_out).
"""

import argparse
import json
import math
import os
import sqlite3
import sys

import numpy as np
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import relevance  # noqa: E402

STOPWORDS = {
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with",
}


def tokenize(texts):
    """For each (name, content): the tokens of both columns as lists of (text, stem)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE w USING fts5(name, content, "
               "tokenize='unicode61 remove_diacritics 2')")
    db.execute("CREATE VIRTUAL TABLE p USING fts5(name, content, "
               "tokenize='porter unicode61 remove_diacritics 2')")
    for table in "wp":
        db.executemany("INSERT INTO %s(rowid, name, content) VALUES(?, ?, ?)" % table,
                       [(i, n, c) for i, (n, c) in enumerate(texts)])
    db.execute("CREATE VIRTUAL TABLE wv USING fts5vocab(w, 'instance')")
    db.execute("CREATE VIRTUAL TABLE pv USING fts5vocab(p, 'instance')")
    columns = [({}, {}) for _ in texts]
    for term, doc, col, offset in db.execute("SELECT term, doc, col, offset FROM wv"):
        columns[doc][col == "content"][offset] = [term, None]
    for term, doc, col, offset in db.execute("SELECT term, doc, col, offset FROM pv"):
        token = columns[doc][col == "content"].get(offset)
        if token and token[0] != term and len(token[0]) >= 3 and token[0].isascii():
            token[1] = term
    return [tuple([tuple(t) for _, t in sorted(c.items())] for c in cols) for cols in columns]


class Collection:
    def __init__(self, name, folder):
        documents, queries, self.judgments = relevance.load(name, folder)
        self.queries = queries
        self.ids = [d["id"] for d in documents]
        tokens = tokenize([(d["title"], d["abstract"]) for d in documents])
        # Postings: token -> {doc: [name count, content count, mirrored name count]};
        # marked stems likewise. A name occurrence is *mirrored* when the content holds the
        # same token (stem) at the same position: a name that is the content's first line.
        self.exact = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
        self.stems = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
        self.lengths = []
        for doc, (name, content) in enumerate(tokens):
            for column, column_tokens in enumerate((name, content)):
                for offset, (text, stem) in enumerate(column_tokens):
                    self.exact[text][doc][column] += 1
                    if stem:
                        self.stems[stem][doc][column] += 1
                    if column == 0 and offset < len(content):
                        if content[offset][0] == text:
                            self.exact[text][doc][2] += 1
                        if stem and content[offset][1] == stem:
                            self.stems[stem][doc][2] += 1
            self.lengths.append(len(name) + len(content))
        self.average = sum(self.lengths) / len(self.lengths)
        query_tokens = tokenize([("", relevance.as_plain_words(t)) for _, t in queries])
        self.query_tokens = [content for _, content in query_tokens]
        self.length_array = np.array(self.lengths, dtype=float)
        self.name_lengths = np.array([len(nm) for nm, _ in tokens], dtype=float)
        self.content_lengths = np.array([len(ct) for _, ct in tokens], dtype=float)
        self.name_average = max(self.name_lengths.mean(), 1e-9)
        self.content_average = max(self.content_lengths.mean(), 1e-9)
        self.prepared = [prepare(self, words) for words in self.query_tokens]


def prepare(collection, words):
    """What ranking `words` [(token, stem)] needs, whatever the parameters: per group (a
    stem) its IDF, how often the query holds it, whether a name holding it counts, and the
    documents holding it with their counts of the typed form and of other forms, in name
    and in content (numpy arrays)."""
    c = collection
    groups = {}
    for text, stem in words:
        groups.setdefault(stem or text, []).append((text, stem))
    n = len(c.lengths)
    any_named = any(forms[0][0] not in STOPWORDS for forms in groups.values())
    prepared = []
    for key, forms in groups.items():
        text, stem = forms[0]
        base = stem or text
        exact = c.exact.get(text, {})
        others = defaultdict(lambda: [0, 0, 0])
        for doc, counts in c.stems.get(base, {}).items():
            for i in range(3):
                others[doc][i] += counts[i]
        if stem:
            for doc, counts in c.exact.get(base, {}).items():
                for i in range(3):
                    others[doc][i] += counts[i]
            # Typed occurrences carry the marked stem too: not other forms.
            for doc, counts in exact.items():
                for i in range(3):
                    others[doc][i] -= counts[i]
        hits = len(c.exact.get(base, {})) + len(c.stems.get(base, {}))
        union = len(set(c.exact.get(base, {})) | set(c.stems.get(base, {})))
        idf = math.log((n - hits + 0.5) / (hits + 0.5))
        idf = idf if idf > 0 else 1e-6
        named = text not in STOPWORDS or not any_named
        docs = sorted(set(exact) | {d for d, v in others.items() if v[0] or v[1]})
        if not docs:
            continue
        # Columns: doc, typed in name, in content, other forms in name, in content, then
        # the mirrored name occurrences of the typed form and of other forms.
        array = np.array([(d,) + tuple(exact.get(d, (0, 0, 0))[:2])
                          + tuple(others.get(d, (0, 0, 0))[:2])
                          + (exact.get(d, (0, 0, 0))[2], others.get(d, (0, 0, 0))[2])
                          for d in docs], dtype=float)
        prepared.append(((idf, hits, n, union), len(forms), named, array))
    return prepared


def rank(collection, prepared, p, both_tiers=False):
    """The first 10 document indexes under parameters `p` (with `both_tiers`, a pair: the
    first 10 without the typed tier and with it, from one scoring)."""
    c = collection
    n = len(c.lengths)
    k1, b = p["k1"], p["b"]
    scores = np.zeros(n)
    name_tier = np.zeros(n)
    typed = np.zeros(n)
    norm_all = k1 * (1 - b + b * c.length_array / c.average)
    for (idf, hits, rows, union), q, named, a in prepared:
        if p.get("df") == "union":
            # Documents holding any form, each once (not a sum over the counting phrases).
            idf = math.log((rows - union + 0.5) / (union + 0.5))
            idf = idf if idf > 0 else 1e-6
            hits = union
        if p.get("idf") == "lucene":
            idf = math.log(1 + (rows - hits + 0.5) / (hits + 0.5))
        docs = a[:, 0].astype(int)
        if p.get("mirror"):
            # A name occurrence the content holds at the same place counts as content only.
            a = a.copy()
            a[:, 1] -= a[:, 5]
            a[:, 3] -= a[:, 6]
        tf_exact = p["name"] * a[:, 1] + a[:, 2]
        tf_other = p["name"] * a[:, 3] + a[:, 4]
        norm = norm_all[docs]
        rule = p.get("rule", "sum")
        if rule == "sum":
            tf = tf_exact + p["stem"] * tf_other
        elif rule == "capo":
            tf = np.where(tf_exact > 0, tf_exact + p["stem"] * tf_other,
                          np.minimum(p["stem"] * tf_other, p["cap"]))
        s = idf * tf * (k1 + 1) / (tf + norm)
        if p.get("fields"):
            # BM25 per column (as tantivy, Lucene), summed; other forms at p["stem"].
            tn = a[:, 1] + p["stem"] * a[:, 3]
            tc = a[:, 2] + p["stem"] * a[:, 4]
            bn = p.get("b_name", b)
            nn = k1 * (1 - bn + bn * c.name_lengths[docs] / c.name_average)
            nc = k1 * (1 - b + b * c.content_lengths[docs] / c.content_average)
            s = idf * (p["name"] * tn * (k1 + 1) / (tn + nn) + tc * (k1 + 1) / (tc + nc))
            if p.get("fields") == "bm25f":
                # BM25F (Robertson, Zaragoza): each column's frequency normalized by its
                # own length, weighted, summed, then saturated once.
                t = p["name"] * tn * k1 / nn + tc * k1 / nc
                s = idf * t * (k1 + 1) / (t + k1)
        k3 = p.get("k3")
        if k3 is not None:
            s = s * (q * (k3 + 1) / (q + k3) if k3 > 0 else q)
        np.add.at(scores, docs, s)
        if p.get("name_tier", True) and named:
            held = (a[:, 1] > 0) | ((a[:, 3] > 0) & (not p.get("name_exact")))
            name_tier[docs[held]] = 1
        typed[docs[tf_exact > 0]] = 1
    matched = np.zeros(n, dtype=bool)
    for _, _, _, a in prepared:
        matched[a[:, 0].astype(int)] = True
    candidates = np.nonzero(matched)[0]

    def first_ten(exact_tier):
        if p.get("exact_above_name", True):
            key = exact_tier * 4 + name_tier * 2
        else:
            key = name_tier * 4 + exact_tier * 2
        total = key * 1e6 + scores
        # Best first; ties by document order.
        order = candidates[np.lexsort((candidates, -total[candidates]))]
        return order[:10].tolist()

    if both_tiers:
        return first_ten(np.zeros(n)), first_ten(typed)
    return first_ten(typed if p.get("exact_tier") == "any" else np.zeros(n))


def per_query(collection, p):
    """nDCG@10 of each judged query under parameters `p`."""
    values = []
    for (number, _), prepared in zip(collection.queries, collection.prepared):
        ranked = [collection.ids[d] for d in rank(collection, prepared, p)]
        values.append(relevance.ndcg_at_10(ranked, collection.judgments.get(number, {})))
    return values


def per_query_both_tiers(collection, p):
    """per_query of `p` without the typed tier and with it, from one scoring."""
    without, with_tier = [], []
    for (number, _), prepared in zip(collection.queries, collection.prepared):
        judged = collection.judgments.get(number, {})
        for ranked, out in zip(rank(collection, prepared, p, both_tiers=True),
                               (without, with_tier)):
            out.append(relevance.ndcg_at_10([collection.ids[d] for d in ranked], judged))
    return without, with_tier


def evaluate(collection, p):
    values = per_query(collection, p)
    return sum(values) / len(values)


BASE = {"k1": 2.0, "b": 0.6, "name": 3.0, "stem": 0.8, "rule": "sum"}

# docsh before issue 28, before issue 41, and what it ranks by since (RankingPlan's
# constants, chosen by --loco).
BEFORE = dict(BASE, exact_tier=None, exact_above_name=False)
TIERED = dict(BASE, k1=3.0, b=0.7, name=2.0, stem=0.8, k3=5.0, fields=True, name_tier=False,
              exact_tier="any", exact_above_name=True)
KEPT = dict(BASE, k1=2.0, b=0.75, name=3.0, stem=0.55, k3=2.0, fields="bm25f",
            name_tier=False, exact_tier=None, exact_above_name=True)

VARIANTS = [
    ("docsh before issue 28 (k1 2, b .6, name tier, name x3, other form .8)", BEFORE),
    ("docsh before issue 41 (typed tier, per column, k1 3, b .7, name x2, other .8, k3 5)",
     TIERED),
    ("docsh now (BM25F, k1 2, b .75, name x3, other form .55, k3 2)", KEPT),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--only")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--loco", metavar="CACHE", nargs="?", const="",
                        help="choose the setting by leaving each collection out (GRID), "
                        "caching the grid's per-query scores in CACHE (JSON)")
    parser.add_argument("--loco-out", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results", "relevance_loco.json"),
                        help="where --loco writes its choices and left-out scores")
    arguments = parser.parse_args()
    names = [n for n in relevance.COLLECTIONS
             if not arguments.only or n in arguments.only.split(",")]
    names = [n for n in names
             if os.path.exists(os.path.join(arguments.data, n,
                                            relevance.COLLECTIONS[n]["documents"]))]
    collections = [(n, Collection(n, os.path.join(arguments.data, n))) for n in names]
    if arguments.loco is not None:
        table = scored_grid(collections, arguments.loco)
        table = with_rules(names, table, collections, keeps_promises)
        if arguments.loco:
            with open(arguments.loco, "w") as f:
                json.dump(table, f)
        free = leave_one_out(names, table)
        folds, overall, means = leave_one_out(names, table, keeps_promises)
        for title, (f, o, m) in (("Every setting of the grid", free),
                                 ("Settings that keep docsh's promises (no tier; README's "
                                  "example)", (folds, overall, means))):
            print("%s (%d):\n" % (title, len(m)))
            print("| left out | chosen on the others | its nDCG@10 there | best there (fit) |")
            print("|---|---|---|---|")
            for n, chosen, score, fit, fit_score in f:
                print("| %s | %s | %.4f | %.4f (%s) |" % (n, chosen, score, fit_score, fit))
            print()
            print("chosen on all: %s: %s\n" % (o, " ".join(
                "%s %.4f" % (n, m[o][n]) for n in names)))
        if arguments.loco_out:
            with open(arguments.loco_out, "w") as f:
                json.dump({"grid": {k: list(v) for k, v in GRID.items()},
                           "settings": len(means),
                           "unconstrained": {
                               "left_out": {n: {"chosen": c, "ndcg10": round(v, 4)}
                                            for n, c, v, _, _ in free[0]},
                               "chosen_on_all": free[1]},
                           "left_out": {n: {"chosen": chosen, "ndcg10": round(score, 4),
                                            "fit": fit, "fit_ndcg10": round(fit_score, 4)}
                                        for n, chosen, score, fit, fit_score in folds},
                           "chosen_on_all": overall,
                           "chosen_on_all_ndcg10": {n: round(means[overall][n], 4)
                                                    for n in names}},
                          f, indent=1)
                f.write("\n")
        return
    variants = VARIANTS
    if arguments.sweep:
        variants = sweep()
    print("| variant | " + " | ".join(n for n, _ in collections) + " | mean |")
    print("|---" * (len(collections) + 2) + "|")
    for label, p in variants:
        values = [evaluate(c, p) for _, c in collections]
        print("| %s | %s | %.4f |" % (label, " | ".join("%.4f" % v for v in values),
                                     sum(values) / len(values)), flush=True)


# MARK: - Leave one collection out

# Every rule and constant chosen by leaving each collection out: the grid below is scored
# on every collection once (per query, cached), then for each collection the setting with
# the best mean over the *others* is chosen and scored on it. Those left-out scores are
# docsh's numbers; the setting docsh ships is the best mean over all of them.
GRID = {
    # BM25 per column, summed (name and content each saturating apart); BM25F (each column's
    # frequency normalized by its own length, weighted, summed, saturated once); or one
    # length for both (FTS5's bm25 with the name's occurrences weighted).
    "fields": ("per-column", "bm25f", "one-length"),
    "k1": (1.2, 2.0, 3.0),
    "b": (0.5, 0.75),
    "name": (0.5, 1.0, 2.0, 3.0),  # the name's weight against 1 for the content
    "stem": (0.4, 0.55, 0.7, 0.85, 1.0),  # another form of a word against 1 for the typed
    "tier": (True, False),         # documents holding a typed form first (a wall), or not
    "k3": (2.0, 8.0, 0.0),         # a repeated query word saturating; 0: counting linearly
}


def grid():
    """Every setting of GRID as (label, parameters)."""
    import itertools
    keys = list(GRID)
    out = []
    for values in itertools.product(*(GRID[k] for k in keys)):
        v = dict(zip(keys, values))
        fields = {"per-column": True, "bm25f": "bm25f", "one-length": False}[v["fields"]]
        p = dict(BASE, rule="sum", name_tier=False, exact_above_name=True, fields=fields,
                 k1=v["k1"], b=v["b"], name=v["name"], stem=v["stem"], k3=v["k3"],
                 exact_tier="any" if v["tier"] else None)
        out.append((label(v), p))
    return out


def label(v):
    return "%s k1 %g b %g name %g other %g %s k3 %s" % (
        v["fields"], v["k1"], v["b"], v["name"], v["stem"],
        "tier" if v["tier"] else "no-tier", "%g" % v["k3"] if v["k3"] else "linear")


def scored_grid(collections, cache):
    """{label: {collection: [nDCG@10 per query]}} for every setting of the grid, read from
    `cache` (JSON) where it holds them."""
    table = {}
    if cache and os.path.exists(cache):
        with open(cache) as f:
            table = json.load(f)
    settings = grid()
    for index, (name_, p) in enumerate(settings):
        row = table.setdefault(name_, {})
        missing = [n for n, _ in collections if n not in row]
        # A setting with the tier is scored with its twin without it, in one pass.
        twin = name_.replace(" tier ", " no-tier ") if p.get("exact_tier") == "any" else None
        for n, c in collections:
            if n in missing:
                if twin:
                    table.setdefault(twin, {})[n], row[n] = per_query_both_tiers(c, p)
                else:
                    row[n] = per_query(c, p)
        if missing and cache and index % 50 == 49:
            with open(cache, "w") as f:
                json.dump(table, f)
            print("%d/%d settings" % (index + 1, len(settings)), file=sys.stderr, flush=True)
    if cache:
        with open(cache, "w") as f:
            json.dump(table, f)
    known = dict(settings)
    return {k: v for k, v in table.items()
            if k in known or any(k.endswith(suffix) and k[:-len(suffix)] in known
                                 for suffix, _ in RULES)}


# Rules tried on top of the grid's best settings (each fold's ten best on the others), as
# a label suffix and the parameters they add: the grid times these would take too long.
RULES = [
    # A word's document count taken once per document holding any form, not summed over
    # the counting phrases (a document holding both the stem as a token and a marked stem
    # counted twice).
    (" df-once", {"df": "union"}),
    # Names not normalized by their length (BM25F's b for the name 0), or half as much.
    (" b-name-0", {"b_name": 0.0}),
    (" b-name-half", {"b_name": 0.375}),
    # Lucene's IDF, log(1 + (N - n + 0.5) / (n + 0.5)), never below 0.
    (" idf-lucene", {"idf": "lucene"}),
]


def with_rules(names, table, collections, allowed, top=10):
    """`table` with RULES scored on each fold's `top` best allowed settings."""
    settings = dict(grid())
    means = {k: {n: sum(v[n]) / len(v[n]) for n in names} for k, v in table.items()
             if allowed(k) and k in settings}
    wanted = set()
    for left in names:
        others = [n for n in names if n != left]
        ranked = sorted(means, key=lambda k: -sum(means[k][n] for n in others))
        wanted.update(ranked[:top])
    for setting in sorted(wanted):
        for suffix, extra in RULES:
            row = table.setdefault(setting + suffix, {})
            for n, c in collections:
                if n not in row:
                    row[n] = per_query(c, dict(settings[setting], **extra))
    return table


def keeps_promises(setting):
    """Whether a setting keeps what docsh promises, whatever the scores: no tier (a short
    document holding other forms of every word may outrank a long one holding one typed
    word), and README's example: `search planning` puts "We are planning the release for
    Friday" (7 tokens) before "The plans for next year, planned in May" (8). One word, no
    name matching: the order is that of the frequency over the normalized length, for every
    form of BM25 in the grid (content lengths 7 and 8; name and content, 8 and 9, for one
    length)."""
    words = setting.split()
    value = dict(zip(words[1::2], words[2::2]))
    if "tier" in words:
        return False
    b, other = float(value["b"]), float(value["other"])
    short, long_, mean = (8, 9, 8.5) if words[0] == "one-length" else (7, 8, 7.5)
    return 1 / (1 - b + b * short / mean) > 2 * other / (1 - b + b * long_ / mean)


def leave_one_out(names, table, allowed=lambda setting: True):
    """For each collection: the setting with the best mean over the others, its score on
    the one left out, and the best setting over all; then the setting chosen on all. Only
    settings `allowed` are chosen."""
    means = {k: {n: sum(v[n]) / len(v[n]) for n in names} for k, v in table.items()
             if allowed(k)}

    def best(over):
        return max(means, key=lambda k: (sum(means[k][n] for n in over) / len(over), k))

    folds = []
    for n in names:
        chosen = best([m for m in names if m != n])
        folds.append((n, chosen, means[chosen][n], best([n]), means[best([n])][n]))
    return folds, best(names), means


def sweep():
    out = []
    X = dict(BASE, rule="sum", k3=0, name_tier=False, exact_tier="any", exact_above_name=True,
             fields=True, name=2.0, stem=0.8)
    for k3 in (1.0, 2.0, 3.0, 5.0, 8.0):
        for k1 in (2.0, 2.5, 3.0):
            for b in (0.6, 0.7):
                out.append(("k3 %.0f k1 %.1f b %.2f" % (k3, k1, b), dict(X, k1=k1, b=b, k3=k3)))
    return out


if __name__ == "__main__":
    main()
