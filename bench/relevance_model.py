#!/usr/bin/env python3
"""A model of docsh's ranking in Python, to try ranking rules and constants on every
collection of `relevance.py` in seconds (docsh itself is then measured by relevance.py).

    bench/relevance_model.py DATA [--only cranfield,cisi]

Tokens are SQLite's own (`unicode61 remove_diacritics 2`, and `porter` on top for stems,
read through `fts5vocab` by position), as docsh's tokenizer makes them, except that docsh
also folds the marks unicode61 leaves (no matter for these English collections). Each
variant in VARIANTS is scored on every collection; the table prints nDCG@10 and the mean.
"""

import argparse
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
        # Postings: token -> {doc: [name count, content count]}; marked stems likewise.
        self.exact = defaultdict(lambda: defaultdict(lambda: [0, 0]))
        self.stems = defaultdict(lambda: defaultdict(lambda: [0, 0]))
        self.lengths = []
        for doc, (name, content) in enumerate(tokens):
            for column, column_tokens in enumerate((name, content)):
                for text, stem in column_tokens:
                    self.exact[text][doc][column] += 1
                    if stem:
                        self.stems[stem][doc][column] += 1
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
        others = defaultdict(lambda: [0, 0])
        for doc, counts in c.stems.get(base, {}).items():
            others[doc][0] += counts[0]
            others[doc][1] += counts[1]
        if stem:
            for doc, counts in c.exact.get(base, {}).items():
                others[doc][0] += counts[0]
                others[doc][1] += counts[1]
            # Typed occurrences carry the marked stem too: not other forms.
            for doc, counts in exact.items():
                others[doc][0] -= counts[0]
                others[doc][1] -= counts[1]
        hits = len(c.exact.get(base, {})) + len(c.stems.get(base, {}))
        idf = math.log((n - hits + 0.5) / (hits + 0.5))
        idf = idf if idf > 0 else 1e-6
        named = text not in STOPWORDS or not any_named
        docs = sorted(set(exact) | {d for d, v in others.items() if v[0] or v[1]})
        if not docs:
            continue
        array = np.array([(d,) + tuple(exact.get(d, (0, 0))) + tuple(others.get(d, (0, 0)))
                          for d in docs], dtype=float)
        prepared.append(((idf, hits, n), len(forms), named, array))
    return prepared


def rank(collection, prepared, p):
    """The first 10 document indexes under parameters `p`."""
    c = collection
    n = len(c.lengths)
    k1, b = p["k1"], p["b"]
    scores = np.zeros(n)
    name_tier = np.zeros(n)
    typed = np.zeros(n)
    norm_all = k1 * (1 - b + b * c.length_array / c.average)
    for (idf, hits, rows), q, named, a in prepared:
        if p.get("idf") == "lucene":
            idf = math.log(1 + (rows - hits + 0.5) / (hits + 0.5))
        docs = a[:, 0].astype(int)
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
            nn = k1 * (1 - b + b * c.name_lengths[docs] / c.name_average)
            nc = k1 * (1 - b + b * c.content_lengths[docs] / c.content_average)
            s = idf * (p["name"] * tn * (k1 + 1) / (tn + nn) + tc * (k1 + 1) / (tc + nc))
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
    exact_tier = typed if p.get("exact_tier") == "any" else np.zeros(n)
    if p.get("exact_above_name", True):
        key = exact_tier * 4 + name_tier * 2
    else:
        key = name_tier * 4 + exact_tier * 2
    total = key * 1e6 + scores
    candidates = np.nonzero(matched)[0]
    order = sorted(candidates, key=lambda d: (-total[d], d))
    return order[:10]


def evaluate(collection, p):
    total = 0.0
    for (number, _), prepared in zip(collection.queries, collection.prepared):
        ranked = [collection.ids[d] for d in rank(collection, prepared, p)]
        total += relevance.ndcg_at_10(ranked, collection.judgments.get(number, {}))
    return total / len(collection.queries)


BASE = {"k1": 2.0, "b": 0.6, "name": 3.0, "stem": 0.8, "rule": "sum"}

# docsh before issue 28, and what it ranks by since (RankingPlan's constants).
BEFORE = dict(BASE, exact_tier=None, exact_above_name=False)
KEPT = dict(BASE, k1=3.0, b=0.7, name=2.0, stem=0.8, k3=5.0, fields=True, name_tier=False,
            exact_tier="any", exact_above_name=True)

VARIANTS = [
    ("docsh before (k1 2, b .6, name tier, name x3, other form .8)", BEFORE),
    ("docsh now (typed tier, per column, k1 3, b .7, name x2, other form .8, k3 5)", KEPT),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--only")
    parser.add_argument("--sweep", action="store_true")
    arguments = parser.parse_args()
    names = [n for n in relevance.COLLECTIONS
             if not arguments.only or n in arguments.only.split(",")]
    collections = [(n, Collection(n, os.path.join(arguments.data, n))) for n in names]
    variants = VARIANTS
    if arguments.sweep:
        variants = sweep()
    print("| variant | " + " | ".join(n for n, _ in collections) + " | mean |")
    print("|---" * (len(collections) + 2) + "|")
    for label, p in variants:
        values = [evaluate(c, p) for _, c in collections]
        print("| %s | %s | %.4f |" % (label, " | ".join("%.4f" % v for v in values),
                                     sum(values) / len(values)), flush=True)


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
