#!/usr/bin/env python3
"""Deterministic corpus generator for the docsh benchmarks (stdlib only).

    gen_corpus.py corpus OUTDIR --categories N --docs M [--factor F] [--seed S] [--text lines] [--lean]
    gen_corpus.py check OUTDIR
    gen_corpus.py new-script CORPUSDIR OUTDIR [--count N] [--seed S]

`corpus` writes the same documents three ways into OUTDIR:

    store.json   docsh store format v1, one document per line
    store.db     SQLite (categories, documents, index documents_category)
    tree/<Category>/<Document>   plain files, mtime = modified

(`--lean`: store.json alone, for the million-document corpus) plus STAMP (JSON: the parameters, a hash of this file, and statistics). When
OUTDIR/STAMP already holds the same parameters and generator hash nothing is
done. Output is built in a sibling temporary folder and renamed into place,
so an interrupted run never leaves a half corpus with a valid stamp.

Everything random comes from one random.Random seeded with the seed and the
shape (categories x docs); --factor multiplies every content length but draws
the same random numbers, so `--factor 10` gives the same ids, names, times
and document order with contents ten times larger.

`--text lines` cuts the contents from another pool instead: lines of about 90 bytes of
lorem-ipsum words (LINE_WORDS), most documents holding `tempor` on many lines (the grep
row that measures the cost of each matching line).

`check` re-reads a corpus and verifies that the three forms agree (JSON
parses, sizes are UTF-8 byte counts, SQLite rows and tree files match, file
mtimes equal `modified`).

`new-script` writes OUTDIR/new.docsh (cd "Category 000", then N `new` lines)
and OUTDIR/new.sql (the same N documents as INSERTs inside BEGIN/COMMIT) for
the store in CORPUSDIR.
"""

import argparse
import datetime
import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import sys
import uuid

GENERATOR_VERSION = 3
MEAN_BYTES = 2048  # mean content size before --factor
CAP_BYTES = 64 * 1024  # per-document cap before --factor
MARKER = "quokka"  # the word row 5 greps for
MARKER_RATE = 0.03  # fraction of documents that contain MARKER
# Rare words for the grep rows, ASCII and not, each put in about RARE_RATE of the documents.
# The pool's own words (résumé, 東京, Ελλάδα …) are common; these are in no pool. They are drawn
# from a random stream of their own, so every other draw stays as it was: a document without
# one is the same as before they were added. Case folds the same in Swift and glibc for them.
RARE_WORDS = ["Þórshöfn", "Θεσσαλονίκη", "札幌"]
RARE_RATE = 0.01
# The word a selective `search` looks for, in about SEARCH_RATE of the documents, from a
# random stream of its own as well.
SEARCH_WORD = "zyzzyva"
SEARCH_RATE = 0.001
POOL_CHARS = 3_000_000  # size of the text pool documents are cut from
# The `lines` pool: ASCII words, lines of about LINE_BYTES; LINE_WORD (`tempor`) is one word
# in LINE_WORDS drawn twice as often as the others, so that about 30 % of the lines hold it.
LINE_WORDS = (
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt "
    "ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco "
    "laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate "
    "velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident "
    "sunt culpa qui officia deserunt mollit anim id est laborum").split()
LINE_WORD = "tempor"
LINE_BYTES = 90
TIME_FROM = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
TIME_TO = datetime.datetime(2027, 1, 1, tzinfo=datetime.timezone.utc)

ASCII_WORDS = """
the of and to in is was for on that with as by at from this be are or it an
have not which but all were when there can been has one more their if will
other about out many them these some would so into time only new use two may
then first any work now such like our over man even most made after also did
where through back years much your way well down should because each just
those people how too little state good very make world still own see men long
here get both between life being under never day same another know while last
might us great old year off come since against go came right used take three
document store shell category folder note draft letter invoice receipt recipe
list summary report plan budget meeting garden travel kitchen library window
river mountain harbour engine signal pattern method version record archive
paper pencil coffee morning evening winter summer autumn spring weather cloud
""".split()

ACCENTED = """
café naïve façade résumé crème brûlée déjà vu élève Ærøskøbing señor mañana
Straße Größe Übermut coöperate Œuvre Dvořák Łódź Ångström smörgåsbord
piñata jalapeño São Paulo Kraków Zürich Malmö Tromsø Ísafjörður Čapek
Škoda ğüzel İstanbul Ελλάδα Москва
""".split()

CJK = """
日本語 中文 漢字 東京 北京 上海 文書 分類 保存 検索 書類 記録 図書館 会議 予算
한국어 서울 문서 ひらがな カタカナ ｶﾀｶﾅ 〜 「引用」 『書名』 。、
""".split()

EMOJI = [
    "😀", "🎉", "📄", "🗂️", "✅", "❤️", "🙂", "🚀", "☕", "🌍",
    "👍🏽", "👋🏻", "🧑🏿‍🚀", "👩🏾‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "🇯🇵",
    "🏴‍☠️", "👁️‍🗨️", "🤷‍♀️", "1️⃣", "#️⃣",
]

QUOTED = [
    '"quoted"', "'single'", "“curly”", "‘curly’", "«guillemets»", "„low“",
    'he said "hi"', '""', "'", '"',
]

BACKSLASHED = [
    "C:\\Users\\docs\\file.txt", "\\n", "\\t", "\\\\", "regex \\d+\\.\\w*",
    "\\u00e9", "back\\slash", "\\", "a\\\"b",
]


def make_pool(rng):
    """One long string of sentences mixing every kind of text."""
    kinds = [
        (ASCII_WORDS, 74),
        (ACCENTED, 8),
        (CJK, 7),
        (EMOJI, 4),
        (QUOTED, 3),
        (BACKSLASHED, 4),
    ]
    lists = [k for k, _ in kinds]
    weights = [w for _, w in kinds]
    endings = [". ", ". ", ". ", ".\n", "\n", "\n\n", "\t", "! ", "? ", ".\r\n", ";\t"]
    parts = []
    total = 0
    while total < POOL_CHARS:
        n = rng.randint(4, 16)
        chosen = rng.choices(lists, weights, k=n)
        words = [rng.choice(lst) for lst in chosen]
        seps = rng.choices([" ", " ", " ", " ", " ", " ", " ", "\t"], k=n - 1)
        s = words[0].capitalize()
        for sep, w in zip(seps, words[1:]):
            s += sep + w
        s += rng.choice(endings)
        parts.append(s)
        total += len(s)
    pool = "".join(parts)
    assert MARKER not in pool
    assert not any(w.casefold() in pool.casefold() for w in RARE_WORDS + [SEARCH_WORD])
    return pool


def make_line_pool(rng):
    """One long string of lines of about LINE_BYTES bytes of LINE_WORDS, capitalized and
    punctuated as sentences."""
    weights = [2 if w == LINE_WORD else 1 for w in LINE_WORDS]
    parts = []
    total = 0
    while total < POOL_CHARS:
        words = []
        while sum(len(w) + 1 for w in words) < LINE_BYTES - 6:
            words.append(rng.choices(LINE_WORDS, weights)[0])
        line = " ".join(words).capitalize() + rng.choice([".", ",", ";", ""]) + "\n"
        parts.append(line)
        total += len(line)
    return "".join(parts)


def add_rare_words(content, rare_rng, words=RARE_WORDS, rate=RARE_RATE):
    """`content` with each of `words` put in, before a space, with probability `rate`.
    Always draws two numbers per word, whatever it puts in."""
    for word in words:
        put, where = rare_rng.random(), rare_rng.random()
        if put < rate:
            k = content.find(" ", int(where * len(content)))
            k = len(content) if k < 0 else k
            content = content[:k] + " " + word + content[k:]
    return content


def iso_ms(ms):
    t = datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


def uuid4(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def file_hash():
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def read_stamp(outdir):
    try:
        with open(os.path.join(outdir, "STAMP"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def generate(outdir, ncat, ndocs, factor, seed, text="mixed", lean=False):
    """lean: store.json alone (no tree, no store.db), for the million-document corpus, whose
    anchors read the JSON file."""
    params = {
        "generator_version": GENERATOR_VERSION,
        "generator_sha": file_hash(),
        "seed": seed,
        "categories": ncat,
        "docs_per_category": ndocs,
        "factor": factor,
        "mean_bytes": MEAN_BYTES * factor,
        "cap_bytes": CAP_BYTES * factor,
        "marker": MARKER,
        "marker_rate": MARKER_RATE,
        "rare_words": RARE_WORDS,
        "rare_rate": RARE_RATE,
        "search_word": SEARCH_WORD,
        "search_rate": SEARCH_RATE,
    }
    if text != "mixed":
        params["text"] = text
    if lean:
        params["lean"] = True
    old = read_stamp(outdir)
    if old is not None and old.get("params") == params:
        print("corpus %s: up to date" % os.path.basename(outdir), file=sys.stderr)
        return old

    parent = os.path.dirname(os.path.abspath(outdir)) or "."
    os.makedirs(parent, exist_ok=True)
    prefix = ".%s.tmp-" % os.path.basename(outdir)
    for stale in os.listdir(parent):  # left by an interrupted run
        if stale.startswith(prefix):
            shutil.rmtree(os.path.join(parent, stale), ignore_errors=True)
    tmp = os.path.join(parent, prefix + str(os.getpid()))
    os.makedirs(os.path.join(tmp, "tree"))
    if lean:
        os.rmdir(os.path.join(tmp, "tree"))

    # The pool does not depend on the shape, so every corpus shares its text.
    if text == "lines":
        pool = make_line_pool(random.Random("docsh-bench-lines:%d" % seed))
    else:
        pool = make_pool(random.Random("docsh-bench-pool:%d" % seed))
    pool_bytes = len(pool.encode("utf-8"))
    bytes_per_char = pool_bytes / len(pool)
    cap_bytes = CAP_BYTES * factor
    cap_chars = int(cap_bytes / bytes_per_char * 1.2) + 16
    wrapped = pool + pool[:cap_chars]
    t_from = int(TIME_FROM.timestamp() * 1000)
    t_to = int(TIME_TO.timestamp() * 1000)

    rng = random.Random("docsh-bench:%d:%dx%d" % (seed, ncat, ndocs))
    rare_rng = random.Random("docsh-bench-rare:%d:%dx%d" % (seed, ncat, ndocs))
    search_rng = random.Random("docsh-bench-search:%d:%dx%d" % (seed, ncat, ndocs))
    db = sqlite3.connect(":memory:" if lean else os.path.join(tmp, "store.db"),
                         isolation_level=None)
    db.executescript(
        """
        PRAGMA journal_mode=OFF;
        PRAGMA synchronous=OFF;
        CREATE TABLE categories(id TEXT PRIMARY KEY, name TEXT UNIQUE NOT NULL);
        CREATE TABLE documents(
            id TEXT PRIMARY KEY,
            category_id TEXT NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            content TEXT NOT NULL,
            size INTEGER NOT NULL,
            modified TEXT NOT NULL);
        BEGIN;
        """
    )
    stats = {"documents": 0, "content_bytes": 0, "max_bytes": 0, "empty": 0,
             "with_marker": 0, "with_rare": {w: 0 for w in RARE_WORDS}, "with_search_word": 0}
    dumps = json.dumps
    jpath = os.path.join(tmp, "store.json")
    with open(jpath, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as out:
        out.write('{"format":"docsh-store","version":1,"generation":1,"categories":[\n')
        for c in range(ncat):
            cat_id = uuid4(rng)
            cat_name = "Category %03d" % c
            if not lean:
                db.execute("INSERT INTO categories VALUES(?,?)", (cat_id, cat_name))
            cat_dir = os.path.join(tmp, "tree", cat_name)
            if not lean:
                os.mkdir(cat_dir)
            out.write('{"id":%s,"name":%s,"documents":[\n' % (dumps(cat_id), dumps(cat_name)))
            rows = []
            for d in range(ndocs):
                # Always draw the same numbers in the same order (see --factor).
                doc_id = uuid4(rng)
                ms = rng.randrange(t_from, t_to)
                want = rng.expovariate(1.0 / MEAN_BYTES)
                offset = rng.randrange(len(pool))
                has_marker = rng.random() < MARKER_RATE
                marker_at = rng.random()

                n = min(int(want * factor / bytes_per_char), cap_chars)
                content = wrapped[offset:offset + n]
                if has_marker:
                    k = int(marker_at * len(content))
                    content = content[:k] + " " + MARKER + " " + content[k:]
                content = add_rare_words(content, rare_rng)
                content = add_rare_words(content, search_rng, [SEARCH_WORD], SEARCH_RATE)
                data = content.encode("utf-8")
                while len(data) > cap_bytes:
                    content = content[: len(content) * 15 // 16]
                    data = content.encode("utf-8")
                has_marker = MARKER in content
                size = len(data)
                modified = iso_ms(ms)
                doc_name = "Document %05d" % d

                out.write('{"id":"%s","name":"%s","content":%s,"size":%d,"modified":"%s"}%s\n' % (
                    doc_id, doc_name, dumps(content, ensure_ascii=False), size, modified,
                    "," if d < ndocs - 1 else ""))
                if not lean:
                    rows.append((doc_id, cat_id, doc_name, content, size, modified))
                    p = os.path.join(cat_dir, doc_name)
                    with open(p, "wb") as f:
                        f.write(data)
                    ns = ms * 1_000_000
                    os.utime(p, ns=(ns, ns))

                stats["documents"] += 1
                stats["content_bytes"] += size
                stats["max_bytes"] = max(stats["max_bytes"], size)
                stats["empty"] += size == 0
                stats["with_marker"] += has_marker
                for w in RARE_WORDS:
                    stats["with_rare"][w] += w in content
                stats["with_search_word"] += SEARCH_WORD in content
            db.executemany("INSERT INTO documents VALUES(?,?,?,?,?,?)", rows)
            out.write("]}%s\n" % ("," if c < ncat - 1 else ""))
        out.write("]}\n")
    db.execute("COMMIT")
    db.execute("CREATE INDEX documents_category ON documents(category_id)")
    db.close()

    stats["json_bytes"] = os.path.getsize(jpath)
    stats["db_bytes"] = 0 if lean else os.path.getsize(os.path.join(tmp, "store.db"))
    stamp = {"params": params, "stats": stats}
    with open(os.path.join(tmp, "STAMP"), "w", encoding="utf-8") as f:
        json.dump(stamp, f, indent=1)
        f.write("\n")
    if os.path.exists(outdir):
        shutil.rmtree(outdir)
    os.rename(tmp, outdir)
    print("corpus %s: %d documents, %.1f MB of content, store.json %.1f MB"
          % (os.path.basename(outdir), stats["documents"], stats["content_bytes"] / 1e6,
             stats["json_bytes"] / 1e6), file=sys.stderr)
    return stamp


def new_script(corpus, outdir, count, seed):
    """The row-4 workload: `count` new documents in Category 000, two ways."""
    db = sqlite3.connect(os.path.join(corpus, "store.db"))
    (cat_id,) = db.execute("SELECT id FROM categories WHERE name='Category 000'").fetchone()
    db.close()
    rng = random.Random("docsh-bench-new:%d" % seed)
    modified = "2026-11-29T12:00:00.000Z"
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "new.docsh"), "w", encoding="utf-8", newline="\n") as sh, \
            open(os.path.join(outdir, "new.sql"), "w", encoding="utf-8", newline="\n") as sql:
        sh.write('cd "Category 000"\n')
        sql.write("BEGIN;\n")
        for i in range(1, count + 1):
            name = "Bench %05d" % i
            words = []
            while sum(len(w) + 1 for w in words) < 80:
                words.append(rng.choice(ASCII_WORDS))
            text = " ".join(words)
            sh.write('new "%s" %s\n' % (name, text))
            sql.write("INSERT INTO documents(id,category_id,name,content,size,modified) "
                      "VALUES('%s','%s','%s','%s',%d,'%s');\n"
                      % (uuid4(rng), cat_id, name, text, len(text.encode()), modified))
        sql.write("COMMIT;\n")


def check(outdir):
    """Cross-check the three forms of a corpus; raises on any mismatch."""
    stamp = read_stamp(outdir)
    assert stamp is not None, "no STAMP in %s" % outdir
    p = stamp["params"]
    jpath = os.path.join(outdir, "store.json")
    with open(jpath, "rb") as f:
        raw = f.read()
    assert not raw.startswith(b"\xef\xbb\xbf"), "BOM"
    text = raw.decode("utf-8")
    lines = text.split("\n")
    assert lines[0] == '{"format":"docsh-store","version":1,"generation":1,"categories":[', lines[0]
    store = json.loads(text)
    assert store["format"] == "docsh-store" and store["version"] == 1
    assert len(store["categories"]) == p["categories"]
    ndocs = sum(len(c["documents"]) for c in store["categories"])
    assert ndocs == p["categories"] * p["docs_per_category"] == stamp["stats"]["documents"]
    # one category header or one document per line, plus header, closers and final newline
    assert len(lines) == 1 + p["categories"] * 2 + ndocs + 1 + 1, len(lines)
    db = sqlite3.connect(os.path.join(outdir, "store.db"))
    cats = dict(db.execute("SELECT name, id FROM categories"))
    assert len(cats) == p["categories"]
    total = 0
    for c in store["categories"]:
        assert uuid.UUID(c["id"]).version == 4 and c["id"] == str(uuid.UUID(c["id"]))
        assert cats[c["name"]] == c["id"]
        rows = {r[0]: r[1:] for r in db.execute(
            "SELECT name, id, content, size, modified FROM documents WHERE category_id=?",
            (c["id"],))}
        assert len(rows) == len(c["documents"])
        for d in c["documents"]:
            data = d["content"].encode("utf-8")
            assert d["size"] == len(data) <= p["cap_bytes"], d["name"]
            assert rows[d["name"]] == (d["id"], d["content"], d["size"], d["modified"]), d["name"]
            assert re.fullmatch(r"202[456]-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", d["modified"])
            fp = os.path.join(outdir, "tree", c["name"], d["name"])
            with open(fp, "rb") as f:
                assert f.read() == data, fp
            ms = int(datetime.datetime.strptime(d["modified"], "%Y-%m-%dT%H:%M:%S.%fZ")
                     .replace(tzinfo=datetime.timezone.utc).timestamp() * 1000 + 0.5)
            assert os.stat(fp).st_mtime_ns == ms * 1_000_000, fp
            total += len(data)
    assert total == stamp["stats"]["content_bytes"]
    print("corpus %s: ok (%d documents, mean %.0f bytes)"
          % (os.path.basename(outdir), ndocs, total / max(ndocs, 1)), file=sys.stderr)


# ---------------------------------------------------------------- tags and links (issue 29)

LINK_TARGET = ("Category 007", "Document 00042")  # rows 45 and 47: linked from LINK_SOURCES
LINK_SOURCES = 100
BENCH_TAG = "project/bench"  # row 46: on about BENCH_TAG_RATE of the documents
BENCH_TAG_RATE = 0.01
TAG_POOL = 500  # other tags, topic-000 … topic-499


def linked(src, outdir, seed):
    """A copy of the corpus in SRC with tags and [[links]]: store.json (each document's
    `tags`, and a last line holding its links), store.db (the same documents, plus tables
    tags(document_id, tag) and links(source_id, line, target_category, target_name, text:
    the line), indexed
    as an index would be) and the scripts of row 47. Deterministic: the same SRC and seed
    give the same bytes; done again only when SRC's STAMP or this file changed."""
    src_stamp = read_stamp(src)
    assert src_stamp is not None, "no STAMP in %s" % src
    params = {"source": src_stamp, "seed": seed, "generator": file_hash(), "kind": "linked"}
    old = read_stamp(outdir)
    if old is not None and old.get("params") == params:
        return
    rng = random.Random("docsh-bench-linked:%d" % seed)
    tmp = outdir + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # Every document's place, to pick link targets and the sources of LINK_TARGET.
    places = []
    with open(os.path.join(src, "store.json"), encoding="utf-8") as f:
        category = None
        for line in f:
            if line.startswith('{"id"') and line.rstrip().endswith('"documents":['):
                category = json.loads(line.rstrip()[:-len(',"documents":[')] + "}")["name"]
            elif line.startswith('{"id"'):
                name = json.loads(line.rstrip().rstrip(","))["name"]
                places.append((category, name))
    by_category = {}
    for category, name in places:
        by_category.setdefault(category, []).append(name)
    sources = set(rng.sample([p for p in places if p != LINK_TARGET], LINK_SOURCES))
    db = sqlite3.connect(os.path.join(tmp, "store.db"), isolation_level=None)
    db.executescript(
        """
        PRAGMA journal_mode=OFF;
        PRAGMA synchronous=OFF;
        CREATE TABLE categories(id TEXT PRIMARY KEY, name TEXT UNIQUE NOT NULL);
        CREATE TABLE documents(
            id TEXT PRIMARY KEY, category_id TEXT NOT NULL, name TEXT NOT NULL,
            content TEXT NOT NULL, size INTEGER NOT NULL, modified TEXT NOT NULL);
        CREATE TABLE tags(document_id TEXT NOT NULL, tag TEXT NOT NULL);
        CREATE TABLE links(
            source_id TEXT NOT NULL, line INTEGER NOT NULL, target_category TEXT,
            target_name TEXT NOT NULL, text TEXT NOT NULL);
        BEGIN;
        """)
    stats = {"documents": 0, "tagged": 0, "with_bench_tag": 0, "links": 0, "link_sources": 0}
    out_path = os.path.join(tmp, "store.json")
    with open(os.path.join(src, "store.json"), encoding="utf-8") as f, \
            open(out_path, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as out:
        category = category_id = None
        for line in f:
            stripped = line.rstrip("\n")
            if stripped.startswith('{"format":"docsh-store","version":1,'):
                # Tags are a key of format 2 (in a version-1 file they are another tool's,
                # and ignored): the header a docsh of format 2 writes, its epoch derived.
                epoch = "%032x" % random.Random("docsh-bench-linked-epoch:%d" % seed).getrandbits(128)
                out.write(stripped.replace('"version":1,"generation":1,',
                                           '"version":2,"generation":1,"epoch":"%s",' % epoch) + "\n")
                continue
            if not stripped.startswith('{"id"'):
                out.write(line)
                continue
            if stripped.endswith('"documents":['):
                head = json.loads(stripped[:-len(',"documents":[')] + "}")
                category, category_id = head["name"], head["id"]
                db.execute("INSERT INTO categories VALUES(?,?)", (category_id, category))
                out.write(line)
                continue
            comma = stripped.endswith(",")
            doc = json.loads(stripped.rstrip(","))
            content = doc["content"]
            links = []
            if (category, doc["name"]) in sources:
                links.append(LINK_TARGET)
            draw = rng.random()
            if draw < 0.3:
                links.append((None, rng.choice(by_category[category])))
            elif draw < 0.4:
                other = rng.choice(sorted(by_category))
                links.append((other, rng.choice(by_category[other])))
            if links:
                prefix = content + ("\n" if content and not content.endswith("\n") else "")
                number = prefix.count("\n") + 1
                text = " ".join(
                    "[[%s]]" % (name if c is None or c == category else c + "/" + name)
                    for c, name in links)
                line_text = "See " + text + "."
                content = prefix + line_text + "\n"
                for c, name in links:
                    db.execute("INSERT INTO links VALUES(?,?,?,?,?)",
                               (doc["id"], number, c if c is not None else category, name,
                                line_text))
                stats["links"] += len(links)
                stats["link_sources"] += 1
            k = rng.choices([0, 1, 2, 3], weights=[50, 30, 15, 5])[0]
            tags = sorted({"topic-%03d" % rng.randrange(TAG_POOL) for _ in range(k)})
            if rng.random() < BENCH_TAG_RATE:
                tags.append(BENCH_TAG)
                stats["with_bench_tag"] += 1
            tags.sort(key=str.lower)
            stats["tagged"] += bool(tags)
            db.executemany("INSERT INTO tags VALUES(?,?)", [(doc["id"], t) for t in tags])
            size = len(content.encode("utf-8"))
            db.execute("INSERT INTO documents VALUES(?,?,?,?,?,?)",
                       (doc["id"], category_id, doc["name"], content, size, doc["modified"]))
            tail = ',"tags":%s' % json.dumps(tags, separators=(",", ":")) if tags else ""
            out.write('{"id":"%s","name":%s,"content":%s,"size":%d,"modified":"%s"%s}%s\n' % (
                doc["id"], json.dumps(doc["name"], ensure_ascii=False),
                json.dumps(content, ensure_ascii=False), size, doc["modified"], tail,
                "," if comma else ""))
            stats["documents"] += 1
    db.execute("COMMIT")
    db.executescript(
        """
        CREATE INDEX documents_category ON documents(category_id);
        CREATE INDEX tags_by_tag ON tags(tag, document_id);
        CREATE INDEX links_by_target ON links(target_name, target_category);
        """)
    db.close()
    # Row 47: the rename that rewrites the links, and a save of the same documents.
    with open(os.path.join(tmp, "append-sources.docsh"), "w", encoding="utf-8") as f:
        for category, name in sorted(sources):
            f.write('append "/%s/%s" edited by the benchmark\n' % (category, name))
    stats["json_bytes"] = os.path.getsize(out_path)
    with open(os.path.join(tmp, "STAMP"), "w", encoding="utf-8") as f:
        json.dump({"params": params, "stats": stats}, f, indent=1, sort_keys=True)
    shutil.rmtree(outdir, ignore_errors=True)
    os.rename(tmp, outdir)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("outdir")
    c.add_argument("--categories", type=int, required=True)
    c.add_argument("--docs", type=int, required=True)
    c.add_argument("--factor", type=int, default=1)
    c.add_argument("--seed", type=int, default=20261129)
    c.add_argument("--text", choices=["mixed", "lines"], default="mixed")
    c.add_argument("--lean", action="store_true",
                   help="store.json alone: no tree of files, no store.db")
    k = sub.add_parser("check")
    k.add_argument("outdir")
    n = sub.add_parser("new-script")
    n.add_argument("corpus")
    n.add_argument("outdir")
    n.add_argument("--count", type=int, default=10000)
    n.add_argument("--seed", type=int, default=20261129)
    l = sub.add_parser("linked")
    l.add_argument("source")
    l.add_argument("outdir")
    l.add_argument("--seed", type=int, default=20261203)
    a = ap.parse_args()
    if a.cmd == "linked":
        linked(a.source, a.outdir, a.seed)
    elif a.cmd == "corpus":
        generate(a.outdir, a.categories, a.docs, a.factor, a.seed, a.text, a.lean)
    elif a.cmd == "check":
        check(a.outdir)
    else:
        new_script(a.corpus, a.outdir, a.count, a.seed)


if __name__ == "__main__":
    main()
