#!/usr/bin/env python3
"""The anchors' database of a lean corpus (stdlib only).

    rows_db.py CORPUSDIR

A lean corpus (the million-document one) is `store.json` alone. Its rows 64-66 compare
docsh's answers from its index with sqlite3 reading the same rows, so this writes
CORPUSDIR/rows.db from store.json: the tables of `gen_corpus.py`'s store.db without the
contents (an index holds none either), an empty `tags(document_id, tag)` table (the corpus
holds no tag) and the index a category's documents are read by. It streams the file (one
document a line, as gen_corpus writes it) and is done again only when store.json is newer.
Kept apart from gen_corpus.py, whose hash is part of every corpus's stamp.
"""

import json
import os
import sqlite3
import sys


def rows_db(corpus):
    source = os.path.join(corpus, "store.json")
    target = os.path.join(corpus, "rows.db")
    if os.path.exists(target) and os.path.getmtime(target) >= os.path.getmtime(source):
        return
    tmp = target + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = sqlite3.connect(tmp, isolation_level=None)
    db.executescript(
        """
        PRAGMA journal_mode=OFF;
        PRAGMA synchronous=OFF;
        CREATE TABLE categories(id TEXT PRIMARY KEY, name TEXT UNIQUE NOT NULL);
        CREATE TABLE documents(
            id TEXT PRIMARY KEY, category_id TEXT NOT NULL, name TEXT NOT NULL,
            size INTEGER NOT NULL, modified TEXT NOT NULL);
        CREATE TABLE tags(document_id TEXT NOT NULL, tag TEXT NOT NULL);
        BEGIN;
        """)
    suffix = ',"documents":['
    category_id = None
    rows = []
    with open(source, encoding="utf-8") as f:
        for line in f:
            stripped = line.rstrip("\n")
            if not stripped.startswith('{"id"'):
                continue
            if stripped.endswith(suffix):
                head = json.loads(stripped[:-len(suffix)] + "}")
                category_id = head["id"]
                db.execute("INSERT INTO categories VALUES(?,?)", (category_id, head["name"]))
                continue
            doc = json.loads(stripped.rstrip(","))
            rows.append((doc["id"], category_id, doc["name"], doc["size"], doc["modified"]))
            if len(rows) >= 10_000:
                db.executemany("INSERT INTO documents VALUES(?,?,?,?,?)", rows)
                rows = []
    db.executemany("INSERT INTO documents VALUES(?,?,?,?,?)", rows)
    db.execute("COMMIT")
    db.execute("CREATE INDEX documents_category ON documents(category_id)")
    db.execute("CREATE INDEX tags_by_tag ON tags(tag)")
    db.close()
    os.rename(tmp, target)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: rows_db.py CORPUSDIR")
    rows_db(sys.argv[1])
