#!/usr/bin/env python3
"""Relevance of docsh's `search` on six judged collections, against SQLite FTS5 and tantivy.

    bench/relevance.py DATA [--docsh PATH] [--only cranfield,cisi] [--or] [--out FILE]

DATA holds a folder per collection: cranfield (cran.all.1400, cran.qry, cranqrel), cisi
(CISI.ALL, CISI.QRY, CISI.REL), cacm (cacm.all, query.text, qrels.text), medline (MED.ALL,
MED.QRY, MED.REL), adi (ADI.ALL, ADI.QRY, ADI.REL), npl (doc-text, query-text, rlv-ass);
see bench/README.md, "Relevance", for where to get them (they are not
committed); a missing one is skipped. For each, the script builds a docsh store (name =
title, or the first line where a collection has no titles; content = abstract) as a generated store.json, runs each judged query as typed
through `docsh -c 'search -n 10 --json …'` (with `--or`, also with its words joined by OR),
and computes nDCG@10; then the same for SQLite FTS5 (`unicode61` and `porter unicode61`,
bm25, the query's words joined with OR, through python's sqlite3) and tantivy (`pip install
tantivy`; English stemmer `en_stem`, BM25; the rows are skipped when the module is missing).
It prints a markdown table and writes it to --out (default bench/results/relevance.md).

Gains: Cranfield's relevance codes 1-4 (1 = a complete answer) give gain 5 - code, so
4, 3, 2, 1; code -1 gives 0; the other collections judge a document relevant or not (gain
1). Unjudged documents give 0. nDCG@10 = DCG@10 / ideal DCG@10 with DCG = sum(gain /
log2(rank + 1)), averaged over the judged queries (a query with no result counts 0).
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


# MARK: - The collections

# Each collection: its folder's files, how its documents are named, and its gains. All four
# are the SMART-format test collections of the Glasgow IR group (see bench/README.md).
COLLECTIONS = {
    "cranfield": {"title": "Cranfield", "documents": "cran.all.1400", "queries": "cran.qry",
                  "judgments": "cranqrel", "about": "aerodynamics abstracts"},
    "cisi": {"title": "CISI", "documents": "CISI.ALL", "queries": "CISI.QRY",
             "judgments": "CISI.REL", "about": "information-science abstracts"},
    "cacm": {"title": "CACM", "documents": "cacm.all", "queries": "query.text",
             "judgments": "qrels.text", "about": "computing titles and abstracts"},
    "medline": {"title": "MEDLINE", "documents": "MED.ALL", "queries": "MED.QRY",
                "judgments": "MED.REL", "about": "medical abstracts"},
    "adi": {"title": "ADI", "documents": "ADI.ALL", "queries": "ADI.QRY",
            "judgments": "ADI.REL", "about": "documentation titles and abstracts"},
    "npl": {"title": "NPL", "documents": "doc-text", "queries": "query-text",
            "judgments": "rlv-ass", "about": "electronics abstracts", "format": "npl"},
}

FIELD = re.compile(r"^\.([A-Z])\s*$")


def read_fields(path):
    """Records of a SMART-format file: a list of {field letter: text}, "I" the .I number."""
    records = []
    current = None
    field = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(".I ") or line.rstrip() == ".I":
                current = {"I": line[2:].strip()}
                records.append(current)
                field = None
            elif current is not None and FIELD.match(line):
                field = FIELD.match(line).group(1)
                current[field] = ""
            elif field is not None:
                current[field] += line
    return records


def read_slashed(path):
    """Records of an NPL-format file: a number on a line of its own, the text, and a line
    holding `/` alone; a list of (number, text)."""
    records = []
    lines = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip() == "/":
                if lines:
                    records.append((int(lines[0]), "".join(lines[1:])))
                lines = []
            elif lines or line.strip():
                lines.append(line)
    return records


def first_line_name(text, number):
    """The name of a document without a title: its first line, as a user who names a note
    by how it starts (the number only when the text is empty)."""
    for line in text.splitlines():
        if line.strip():
            return " ".join(line.split())
    return "document %d" % number


def load(name, folder):
    """Documents ({id, title, abstract}), queries ([(number, text)]) and judgments
    ({query number: {document id: gain}}) of collection `name` in `folder`. A document
    without a title (MEDLINE's, NPL's) is named by its first line; its content is the
    whole text, that line included."""
    spec = COLLECTIONS[name]
    if spec.get("format") == "npl":
        return load_npl(folder, spec)
    documents = []
    for record in read_fields(os.path.join(folder, spec["documents"])):
        number = int(record["I"])
        abstract = record.get("W", "").strip()
        title = " ".join(record.get("T", "").split()) or first_line_name(abstract, number)
        documents.append({"id": number, "title": title, "abstract": abstract})
    records = read_fields(os.path.join(folder, spec["queries"]))
    if name == "cranfield":
        # Queries are numbered 1…225 in file order in cranqrel (their .I numbers have gaps).
        numbers = range(1, len(records) + 1)
    else:
        numbers = [int(r["I"]) for r in records]
    queries = [(n, " ".join((r.get("W") or r.get("T") or "").split()))
               for n, r in zip(numbers, records)]
    judgments = {}
    with open(os.path.join(folder, spec["judgments"])) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2:
                continue
            query, document = int(parts[0]), int(parts[1])
            if name == "cranfield":
                # Codes 1-4 (1 = a complete answer) give 4…1; -1 gives nothing.
                code = int(parts[2])
                gain = 5 - code if 1 <= code <= 4 else 0
            else:
                gain = 1
            if gain > 0:
                judgments.setdefault(query, {})[document] = gain
    # Only judged queries count (CISI judges 76 of its 112).
    queries = [(n, text) for n, text in queries if n in judgments and text]
    return documents, queries, judgments


def load_npl(folder, spec):
    """NPL: doc-text and query-text in the slashed format, rlv-ass a query number, the
    numbers of its relevant documents, and `/`."""
    documents = [{"id": number, "title": first_line_name(text, number),
                  "abstract": text.strip()}
                 for number, text in read_slashed(os.path.join(folder, spec["documents"]))]
    queries = [(number, " ".join(text.split()))
               for number, text in read_slashed(os.path.join(folder, spec["queries"]))]
    judgments = {}
    for number, text in read_slashed(os.path.join(folder, spec["judgments"])):
        judgments[number] = {int(d): 1 for d in text.split()}
    queries = [(n, text) for n, text in queries if judgments.get(n) and text]
    return documents, queries, judgments


def ndcg_at_10(ranked, gains):
    dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(gains.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def evaluate(run, queries, judgments):
    """Mean nDCG@10 of `run(query text) -> [document ids]` over the judged queries."""
    total = 0.0
    empty = 0
    for number, text in queries:
        ranked = run(text)
        empty += not ranked
        total += ndcg_at_10(ranked, judgments.get(number, {}))
    return total / len(queries), empty


def as_plain_words(text):
    """`text` with what docsh's search reads as syntax made plain: quotes and `*` become
    blanks, a leading `-` goes, `OR`/`NOT` are lowered. A pasted abstract is words, not
    operators (CISI's queries quote phrases), and the anchors get the same words."""
    text = text.replace('"', " ").replace("*", " ")
    words = []
    for word in text.split():
        word = word.lstrip("-")
        if word in ("OR", "NOT"):
            word = word.lower()
        if word:
            words.append(word)
    return " ".join(words)


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


def write_store(documents, names, path, category):
    """A docsh store (format v1, as bench/gen_corpus.py writes it): one category."""
    lines = []
    for number, document in enumerate(documents):
        content = document["abstract"]
        lines.append('{"id":"%s","name":%s,"content":%s,"size":%d,"modified":"2026-01-01T00:00:00.000Z"}' % (
            uuid.UUID(int=0x1000 + number), json.dumps(names[document["id"]], ensure_ascii=False),
            json.dumps(content, ensure_ascii=False), len(content.encode("utf-8"))))
    with open(path, "w", encoding="utf-8") as out:
        out.write('{"format":"docsh-store","version":1,"generation":1,"categories":[\n')
        out.write('{"id":"%s","name":"%s","documents":[\n' % (uuid.UUID(int=1), category))
        out.write(",\n".join(lines))
        out.write("\n]}\n]}\n")


def shell_quote(word):
    return "'" + word.replace("'", "'\\''") + "'"


def docsh_run(binary, documents, work, category, joiner=" "):
    """`joiner` between the words: " " (as typed) or " OR " (explicit alternatives)."""
    names = document_names(documents)
    by_name = {name: number for number, name in names.items()}
    folder = os.path.join(work, category)
    os.makedirs(folder, exist_ok=True)
    store = os.path.join(folder, "store.json")
    write_store(documents, names, store, category)
    environment = dict(os.environ, XDG_CACHE_HOME=os.path.join(folder, "cache"))

    def run(text):
        # The query as typed, each word one shell word: no quoting of our own. Joined with
        # OR, the words are the anchors' (punctuation alone is no alternative).
        typed = as_plain_words(text).split() if joiner == " " else re.findall(r"\w+", as_plain_words(text))
        words = joiner.join(shell_quote(w) for w in typed)
        command = "search -n 10 --json -- " + words
        result = subprocess.run([binary, "--no-save", "-s", store, "-c", command],
                                capture_output=True, text=True, env=environment)
        if result.returncode != 0:
            sys.exit("docsh failed on %r: %s" % (text, result.stderr.strip()))
        return [by_name[hit["name"]] for hit in json.loads(result.stdout or "[]")]

    return run


# MARK: - SQLite FTS5 and tantivy

def words_or(text):
    words = re.findall(r"\w+", as_plain_words(text).lower())
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
        words = re.findall(r"\w+", as_plain_words(text).lower())
        query = index.parse_query(" ".join(words), ["name", "content"])
        hits = searcher.search(query, 10).hits
        return [searcher.doc(address)["id"][0] for _, address in hits]

    return run


# MARK: - Main

# What follows this line in the results file is written by hand and kept across runs.
NOTES = "<!-- notes: kept across runs -->"


def short_label(label):
    """An anchor's label, short: `FTS5 plain`, `FTS5 Porter`, `tantivy`."""
    if label.startswith("tantivy"):
        return "tantivy"
    return "FTS5 Porter" if "porter" in label else "FTS5 plain"


def measure(name, folder, docsh, work, with_or):
    """(documents, queries, [(label, nDCG@10 or None, queries with no result)])."""
    documents, queries, judgments = load(name, folder)
    title = COLLECTIONS[name]["title"]
    systems = [
        ("docsh `search`, words as typed", lambda: docsh_run(docsh, documents, work, title)),
    ]
    if with_or:
        systems.append(("docsh `search`, words joined with OR",
                        lambda: docsh_run(docsh, documents, work, title, " OR ")))
    systems += [
        ("SQLite FTS5 `unicode61`, bm25, words joined with OR",
         lambda: fts5_run(documents, "unicode61")),
        ("SQLite FTS5 `porter unicode61`, bm25, words joined with OR",
         lambda: fts5_run(documents, "porter unicode61")),
        ("tantivy, `en_stem`, BM25 (words OR'ed, its default)", lambda: tantivy_run(documents)),
    ]
    rows = []
    for label, make in systems:
        run = make()
        if run is None:
            rows.append((label, None, None))
            print("skipped %s: pip install tantivy" % label, file=sys.stderr)
            continue
        score, empty = evaluate(run, queries, judgments)
        rows.append((label, score, empty))
        print("%-10s %-60s %.4f" % (title, label, score), file=sys.stderr)
    return documents, queries, judgments, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="folder with a subfolder per collection: "
                        + ", ".join(COLLECTIONS) + " (missing ones are skipped)")
    parser.add_argument("--docsh", default=os.path.join(ROOT, ".build", "release", "docsh"),
                        help="the docsh binary (default: .build/release/docsh)")
    parser.add_argument("--only", help="comma-separated collections to measure")
    parser.add_argument("--or", dest="with_or", action="store_true",
                        help="also run docsh with the words joined by OR")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "relevance.md"),
                        help="the table; what follows a line `%s` in it is kept" % NOTES)
    parser.add_argument("--left-out", default=os.path.join(HERE, "results", "relevance_loco.json"),
                        help="relevance_model.py --loco's choices: docsh's left-out scores")
    arguments = parser.parse_args()

    names = [n for n in COLLECTIONS if not arguments.only or n in arguments.only.split(",")]
    measured = []
    work = tempfile.mkdtemp(prefix="docsh-relevance-")
    try:
        for name in names:
            folder = os.path.join(arguments.data, name)
            spec = COLLECTIONS[name]
            if not all(os.path.exists(os.path.join(folder, spec[f]))
                       for f in ("documents", "queries", "judgments")):
                print("skipped %s: no %s in %s" % (name, spec["documents"], folder),
                      file=sys.stderr)
                continue
            measured.append((name,) + measure(name, folder, arguments.docsh, work,
                                              arguments.with_or))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    table = ["# Relevance (nDCG@10)", "",
             "`bench/relevance.py`: each collection a one-category docsh store (name = title, or "
             "the first line where the collection has no titles: MEDLINE, NPL; "
             "content = abstract), each judged query run as typed; gain = 5 − code for "
             "Cranfield's codes 1–4, 1 for every judged document of the others, 0 else.", ""]
    labels = []
    for _, _, _, _, rows in measured:
        for label, _, _ in rows:
            if label not in labels:
                labels.append(label)
    header = "| system | " + " | ".join(
        "%s (%d docs, %d queries)" % (COLLECTIONS[n]["title"], len(d), len(q))
        for n, d, q, _, _ in measured) + " | mean | docsh ÷ best anchor, worst |"
    table += [header, "|---" * (len(measured) + 3) + "|"]
    scores = {label: {} for label in labels}
    for name, _, _, _, rows in measured:
        for label, score, _ in rows:
            scores[label][name] = score
    anchors = [l for l in labels if not l.startswith("docsh")]
    for label in labels:
        values = [scores[label].get(n) for n, *_ in measured]
        cells = ["skipped" if v is None else "%.4f" % v for v in values]
        known = [v for v in values if v is not None]
        mean = "%.4f" % (sum(known) / len(known)) if len(known) == len(values) and known else ""
        ratio = ""
        if label.startswith("docsh") and all(v is not None for v in values):
            ratios = []
            for n, *_ in measured:
                best = max((scores[a].get(n) or 0) for a in anchors) if anchors else 0
                ratios.append(scores[label][n] / best if best else 0)
            ratio = "%.3f" % min(ratios)
        table.append("| %s | %s | %s | %s |" % (label, " | ".join(cells), mean, ratio))
    left_out = {}
    if os.path.exists(arguments.left_out):
        with open(arguments.left_out) as f:
            left_out = json.load(f)["left_out"]
    if left_out and anchors:
        table += ["", "docsh's own numbers: each collection scored with the setting chosen on "
                  "the others (`relevance_model.py --loco`, the model of docsh's ranking), "
                  "against the best anchor:", "",
                  "| collection | docsh, left out | best anchor | ratio | chosen on the others |",
                  "|---|---|---|---|---|"]
        for n, *_ in measured:
            if n not in left_out:
                continue
            best_label = max(anchors, key=lambda a: scores[a].get(n) or 0)
            best = scores[best_label].get(n) or 0
            value = left_out[n]["ndcg10"]
            table.append("| %s | %.4f | %.4f (%s) | %s | %s |" % (
                COLLECTIONS[n]["title"], value, best, short_label(best_label),
                "%.3f" % (value / best) if best else "", left_out[n]["chosen"]))
    empties = [(n, label, e) for n, _, _, _, rows in measured for label, _, e in rows if e]
    if empties:
        table += ["", "Queries with no result: " + "; ".join(
            "%s, %s: %d" % (COLLECTIONS[n]["title"], label, e) for n, label, e in empties) + "."]
    text = "\n".join(table) + "\n"
    print(text)
    if os.path.exists(arguments.out):
        with open(arguments.out) as f:
            kept = f.read()
        if NOTES in kept:
            text += "\n" + kept[kept.index(NOTES):]
    os.makedirs(os.path.dirname(arguments.out), exist_ok=True)
    with open(arguments.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
