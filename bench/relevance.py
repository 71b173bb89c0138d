#!/usr/bin/env python3
"""Relevance of docsh's `search` on the Cranfield collection, against SQLite FTS5 and tantivy.

    bench/relevance.py CRANFIELD_DIR [--docsh PATH] [--out bench/results/relevance.md]

CRANFIELD_DIR holds cran.all.1400, cran.qry and cranqrel (see bench/README.md, "Relevance",
for where to get them; they are not committed). The script builds a docsh store from the
1,400 abstracts (name = title, content = abstract) as a generated store.json, runs each of
the 225 queries as typed through `docsh -c 'search -n 10 --json …'`, and computes nDCG@10
from the graded judgments; then the same for SQLite FTS5 (`unicode61` and
`porter unicode61`, bm25, the query's words joined with OR, through python's sqlite3) and
tantivy (`pip install tantivy`; English stemmer `en_stem`, BM25; the row is skipped when the
module is missing). It prints a markdown table and writes it to --out.

Gains: Cranfield's relevance codes 1-4 (1 = a complete answer) give gain 5 - code, so
4, 3, 2, 1; code -1 and unjudged documents give 0. nDCG@10 = DCG@10 / ideal DCG@10 with
DCG = sum(gain / log2(rank + 1)), averaged over all 225 queries (a query with no result
counts 0).
"""

import argparse
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# MARK: - The collection

def read_fields(path):
    """Records of a Cranfield file: a list of {field letter: text}, keyed by .I number."""
    records = []
    current = None
    field = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(".I"):
                current = {"I": line[2:].strip()}
                records.append(current)
                field = None
            elif len(line) >= 2 and line[0] == "." and line[1] in "TABW" and line[2:].strip() == "":
                field = line[1]
                current[field] = ""
            elif field is not None:
                current[field] += line
    return records


def load(folder):
    documents = []
    for record in read_fields(os.path.join(folder, "cran.all.1400")):
        title = " ".join(record.get("T", "").split())
        documents.append({"id": int(record["I"]), "title": title,
                          "abstract": record.get("W", "").strip()})
    # Queries are numbered 1…225 in file order in cranqrel (their .I numbers have gaps).
    queries = [" ".join(r.get("W", "").split()) for r in read_fields(os.path.join(folder, "cran.qry"))]
    judgments = {}
    with open(os.path.join(folder, "cranqrel")) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3:
                continue
            query, document, code = int(parts[0]), int(parts[1]), int(parts[2])
            gain = 5 - code if 1 <= code <= 4 else 0
            if gain > 0:
                judgments.setdefault(query, {})[document] = gain
    return documents, queries, judgments


def ndcg_at_10(ranked, gains):
    dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(gains.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def evaluate(run, queries, judgments):
    """Mean nDCG@10 of `run(query text) -> [document ids]` over every query."""
    total = 0.0
    empty = 0
    for number, text in enumerate(queries, start=1):
        ranked = run(text)
        empty += not ranked
        total += ndcg_at_10(ranked, judgments.get(number, {}))
    return total / len(queries), empty


# MARK: - docsh

def document_names(documents):
    """Unique, valid docsh names from the titles: no slash, at most 255 bytes."""
    names = {}
    seen = set()
    for document in documents:
        name = document["title"].replace("/", " ").strip() or "untitled"
        while len(name.encode("utf-8")) > 240:
            name = name[: len(name) - 1]
        name = name.strip()
        if name.lower() in seen:
            name = "%s (%d)" % (name, document["id"])
        seen.add(name.lower())
        names[document["id"]] = name
    return names


def write_store(documents, names, path):
    """A docsh store (format v1, as bench/gen_corpus.py writes it): one category."""
    lines = []
    for number, document in enumerate(documents):
        content = document["abstract"]
        lines.append('{"id":"%s","name":%s,"content":%s,"size":%d,"modified":"2026-01-01T00:00:00.000Z"}' % (
            uuid.UUID(int=0x1000 + number), json.dumps(names[document["id"]], ensure_ascii=False),
            json.dumps(content, ensure_ascii=False), len(content.encode("utf-8"))))
    with open(path, "w", encoding="utf-8") as out:
        out.write('{"format":"docsh-store","version":1,"generation":1,"categories":[\n')
        out.write('{"id":"%s","name":"Cranfield","documents":[\n' % uuid.UUID(int=1))
        out.write(",\n".join(lines))
        out.write("\n]}\n]}\n")


def shell_quote(word):
    return "'" + word.replace("'", "'\\''") + "'"


def docsh_run(binary, documents, work):
    names = document_names(documents)
    by_name = {name: number for number, name in names.items()}
    store = os.path.join(work, "store.json")
    write_store(documents, names, store)
    environment = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))

    def run(text):
        # The query exactly as typed, each word one shell word: no quoting of our own.
        words = " ".join(shell_quote(w) for w in text.split())
        command = "search -n 10 --json -- " + words
        result = subprocess.run([binary, "--no-save", "-s", store, "-c", command],
                                capture_output=True, text=True, env=environment)
        if result.returncode != 0:
            sys.exit("docsh failed on %r: %s" % (text, result.stderr.strip()))
        return [by_name[hit["name"]] for hit in json.loads(result.stdout or "[]")]

    return run


# MARK: - SQLite FTS5 and tantivy

def words_or(text):
    words = re.findall(r"\w+", text.lower())
    return " OR ".join('"%s"' % w for w in words)


def fts5_run(documents, tokenizer):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(name, content, tokenize=%s)" % repr(tokenizer))
    db.executemany("INSERT INTO t(rowid, name, content) VALUES(?, ?, ?)",
                   [(d["id"], d["title"], d["abstract"]) for d in documents])

    def run(text):
        rows = db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10",
                          (words_or(text),))
        return [r[0] for r in rows]

    return run


def tantivy_run(documents):
    try:
        import tantivy
    except ImportError:
        return None
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("id", stored=True, indexed=True)
    builder.add_text_field("name", tokenizer_name="en_stem")
    builder.add_text_field("content", tokenizer_name="en_stem")
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer()
    for d in documents:
        writer.add_document(tantivy.Document(id=d["id"], name=d["title"], content=d["abstract"]))
    writer.commit()
    index.reload()
    searcher = index.searcher()

    def run(text):
        words = re.findall(r"\w+", text.lower())
        query = index.parse_query(" ".join(words), ["name", "content"])
        hits = searcher.search(query, 10).hits
        return [searcher.doc(address)["id"][0] for _, address in hits]

    return run


# MARK: - Main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cranfield", help="folder with cran.all.1400, cran.qry, cranqrel")
    parser.add_argument("--docsh", default=os.path.join(ROOT, ".build", "release", "docsh"),
                        help="the docsh binary (default: .build/release/docsh)")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "relevance.md"))
    arguments = parser.parse_args()

    documents, queries, judgments = load(arguments.cranfield)
    rows = []
    work = tempfile.mkdtemp(prefix="docsh-relevance-")
    try:
        systems = [
            ("docsh `search`, words as typed", lambda: docsh_run(arguments.docsh, documents, work)),
            ("SQLite FTS5 `unicode61`, bm25, words joined with OR",
             lambda: fts5_run(documents, "unicode61")),
            ("SQLite FTS5 `porter unicode61`, bm25, words joined with OR",
             lambda: fts5_run(documents, "porter unicode61")),
            ("tantivy, `en_stem`, BM25 (words OR'ed, its default)", lambda: tantivy_run(documents)),
        ]
        for label, make in systems:
            run = make()
            if run is None:
                rows.append((label, None, None))
                print("skipped %s: pip install tantivy" % label, file=sys.stderr)
                continue
            score, empty = evaluate(run, queries, judgments)
            rows.append((label, score, empty))
            print("%-60s %.4f" % (label, score), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    table = ["# Relevance on Cranfield (nDCG@10)", "",
             "%d documents (name = title, content = abstract), %d queries as typed, graded "
             "judgments (gain = 5 − code for codes 1–4, else 0). `bench/relevance.py`." % (
                 len(documents), len(queries)), "",
             "| system | nDCG@10 | queries with no result |", "|---|---|---|"]
    for label, score, empty in rows:
        if score is None:
            table.append("| %s | skipped (`pip install tantivy`) | |" % label)
        else:
            table.append("| %s | %.4f | %d |" % (label, score, empty))
    text = "\n".join(table) + "\n"
    print(text)
    os.makedirs(os.path.dirname(arguments.out), exist_ok=True)
    with open(arguments.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
