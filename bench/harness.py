#!/usr/bin/env python3
"""The docsh benchmark harness; run it through bench/run.sh, which documents
the exit status. Standard library only.

    harness.py full|quick --docsh PATH --tmp DIR

Generates (or reuses) the corpora, measures the rows with hyperfine
(docsh and its anchor in one invocation), prints one markdown table and
writes it to bench/results/latest.md (full) or bench/results/quick.md (quick).
"""

import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "corpus")
RESULTS = os.path.join(HERE, "results")
GEN = os.path.join(HERE, "gen_corpus.py")

WORD = "quokka"  # gen_corpus.MARKER: in about 3 % of the documents
RARE = "zyzzyva"  # gen_corpus.RARE_WORD: in about 0.1 % of the documents
COMMON = "river signal"  # two words of gen_corpus.ASCII_WORDS, each in most documents
FTS_TABLE = ("CREATE VIRTUAL TABLE fts USING fts5(name, content, content='', "
             "tokenize='unicode61 remove_diacritics 2')")
NEW_COUNT = 10_000  # row 4
EDIT_COUNT = 100  # row 27
LS_REPEAT = 50  # row 7

MODES = {
    "quick": {
        "personal": (20, 50), "large": (20, 200), "wide": 1_000,
        "warmup": 1, "min_runs": 3, "max_runs": 5,
        "budget": 3.0,  # seconds of docsh time a row should take, at most
        # A deadline for a hang, not a measure: an anchor that outlasts it is a harness
        # error, and a loaded machine running the debug binary must never reach it.
        "probe_timeout": 300.0, "mem_runs": 3, "check": True,
    },
    "full": {
        "personal": (20, 50), "large": (100, 1_000), "wide": 10_000,
        "warmup": 2, "min_runs": 3, "max_runs": 10,
        "budget": 40.0,
        "probe_timeout": 300.0, "mem_runs": 5, "check": False,
    },
}


SELECTED = set()  # --rows: the rows to run; empty for all


def skipped(row):
    """Whether `row` is left out of this run (--rows), marking it so."""
    if SELECTED and row["n"] not in SELECTED:
        row["status"] = "skipped"
        return True
    return False


class HarnessError(Exception):
    """Something wrong with the bench itself, not with docsh."""


def sq(s):
    return shlex.quote(s)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- corpora

def corpus(name, ncat, ndocs, factor, check, text="mixed", lean=False):
    d = os.path.join(CORPUS, "%s-%dx%d" % (name, ncat, ndocs))
    cmd = [sys.executable, GEN, "corpus", d, "--categories", str(ncat),
           "--docs", str(ndocs), "--factor", str(factor), "--text", text] + (
               ["--lean"] if lean else [])
    t = time.monotonic()
    if subprocess.run(cmd).returncode != 0:
        raise HarnessError("corpus generator failed: " + " ".join(cmd[1:]))
    if check and subprocess.run([sys.executable, GEN, "check", d]).returncode != 0:
        raise HarnessError("corpus check failed for " + os.path.basename(d))
    with open(os.path.join(d, "STAMP"), encoding="utf-8") as f:
        stamp = json.load(f)
    return {"dir": os.path.basename(d), "name": name, "shape": (ncat, ndocs),
            "stats": stamp["stats"], "seconds": time.monotonic() - t}


# ---------------------------------------------------------------- running

def run_once(cmd, timeout, stdout_path=None, prepare=None):
    """Run a shell command the way hyperfine does (bash -c, cwd = corpus/).
    Returns (exit code or None on timeout, seconds, stderr text)."""
    if prepare:
        p = subprocess.run(["bash", "-c", prepare], cwd=CORPUS,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise HarnessError("prepare step failed: %s: %s"
                               % (prepare, p.stderr.decode(errors="replace").strip()))
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    try:
        t = time.monotonic()
        p = subprocess.Popen(["bash", "-c", cmd], cwd=CORPUS, stdin=subprocess.DEVNULL,
                             stdout=out, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return None, time.monotonic() - t, ""
        return p.returncode, time.monotonic() - t, err.decode("utf-8", errors="replace")
    finally:
        if stdout_path:
            out.close()


def hyperfine(json_path, cmds, runs, warmup, output_pipe=False, shell=True):
    """cmds: list of (name, command, prepare or None). Returns medians etc.

    shell=False runs the commands without a shell (hyperfine -N; its own
    word splitting, stdout to /dev/null or a pipe): needed for commands of a
    few ms, where hyperfine cannot subtract a shell's start-up precisely."""
    argv = ["hyperfine", "--style", "basic", "--shell", "bash" if shell else "none",
            "--warmup", str(warmup), "--runs", str(runs), "--export-json", json_path]
    if output_pipe:
        argv += ["--output", "pipe"]
    if any(p for _, _, p in cmds):
        for _, _, p in cmds:
            argv += ["--prepare", p or "true"]
    for name, cmd, _ in cmds:
        argv += ["--command-name", name, cmd]
    p = subprocess.run(argv, cwd=CORPUS, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.stdout.decode("utf-8", errors="replace")
    with open(LOGFILE, "a", encoding="utf-8") as f:
        f.write("$ " + " ".join(sq(a) for a in argv) + "\n" + text + "\n")
    if p.returncode != 0:
        lines = [l for l in text.splitlines() if l.strip()]
        return None, (lines[-1] if lines else "hyperfine exited %d" % p.returncode)
    with open(json_path, encoding="utf-8") as f:
        res = json.load(f)["results"]
    return [{"median": r["median"], "min": r["min"], "max": r["max"],
             "runs": len(r["times"])} for r in res], None


def first_line(err):
    for line in err.splitlines():
        if line.strip():
            line = line.strip().replace(TMP, "$TMP").replace(ROOT + "/", "").replace(ROOT, ".")
            line = line.replace("|", "\\|").replace("`", "'")
            return line[:140]
    return "(no message on stderr)"


def plan_runs(seconds):
    runs = int(CFG["budget"] / max(seconds, 1e-3))
    return max(CFG["min_runs"], min(CFG["max_runs"], runs))


# ---------------------------------------------------------------- formatting

def fmt_time(s):
    ms = s * 1000
    if ms < 10:
        return "%.2f ms" % ms
    if ms < 100:
        return "%.1f ms" % ms
    return "{:,.0f} ms".format(ms)


def fmt_unit(s):
    """A per-unit time: µs below a millisecond."""
    return "%.2f µs" % (s * 1e6) if s < 1e-3 else fmt_time(s)


def fmt_mb(b):
    return "%.1f MB" % (b / 1e6) if b < 100e6 else "%.0f MB" % (b / 1e6)


def fmt_bytes(b):
    return "%.0f B" % b if b < 10_000 else "%.1f kB" % (b / 1e3)


def fmt_kib(b):
    return "%.1f KiB" % (b / 1024)


def fmt_n(n):
    return "{:,}".format(n)


def shape(c):
    return "%s×%s" % (fmt_n(c["shape"][0]), fmt_n(c["shape"][1]))


# ---------------------------------------------------------------- rows

MILLION_ROWS = (64, 65, 66)


def million_rows(new_row, D, million):
    """Rows 64-66 (issue 37): what a command costs at 1 M documents (1,000 categories) with
    its index warm, against sqlite3 reading the same rows from `rows.db` (`rows_db.py`: the
    documents' rows without contents, an empty tags table). The probe of row 64 builds the
    index (row 51 removed it) that every timed run then finds."""
    if not million:
        for n in MILLION_ROWS:
            new_row(n, "(the million-document corpus: full mode only)", 1)["status"] = "skipped"
        return
    folder = os.path.join(CORPUS, million["dir"])
    if subprocess.run([sys.executable, os.path.join(HERE, "rows_db.py"), folder]).returncode != 0:
        raise HarnessError("could not write the million corpus's rows.db")
    M = sq(million["dir"])
    docs = fmt_n(million["stats"]["documents"])

    def rows(sql):
        return "sqlite3 %s/rows.db %s" % (M, sq(sql))

    # An open reads every category's row: 64 and 65 are shown per category.
    categories = million["shape"][0]
    r = new_row(64, "open + `ls` one category, 1 M store (%s), with its index" % docs, 1.5,
                anchor_label="`sqlite3` same rows")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, M, sq('ls "/Category 007"')),
              rows("SELECT name,size,modified FROM documents WHERE category_id=(SELECT id FROM "
                   "categories WHERE name='Category 007') ORDER BY name"),
              shell=False, expect=contains("Document 00000"))
    r["per_unit"] = (categories, "category")
    r = new_row(65, "`tags` on the 1 M store, which holds no tag", 1.5,
                anchor_label="`sqlite3` reading the tags' rows")
    timed_row(r, "%s --no-save -s %s/store.json -c tags" % (D, M),
              rows("SELECT tag, count(*) FROM tags GROUP BY tag ORDER BY tag"), shell=False)
    r["per_unit"] = (categories, "category")
    r = new_row(66, "`find` a name fragment (1 M store)", 1.5,
                anchor_label="`sqlite3` `LIKE '%…%'`")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, M, sq("find 00142")),
              rows("SELECT c.name, d.name FROM documents d JOIN categories c ON c.id = "
                   "d.category_id WHERE d.name LIKE '%00142%' ORDER BY c.name, d.name"),
              shell=False, expect=contains("Document 00142"))
    r["per_unit"] = (million["stats"]["documents"], "document")


def timed_row(row, docsh_cmd, anchor_cmd, docsh_prep=None, anchor_prep=None,
              output_pipe=False, expect=None, docsh_name="docsh", anchor_name="anchor",
              extra_docsh=None, shell=True):
    """Probe docsh (and the anchor), then time both in one hyperfine call.

    extra_docsh: when the anchor is itself a docsh command (row 7), a failure
    of it is a docsh failure rather than a harness error."""
    if skipped(row):
        return row
    n = row["n"]
    # What a prepare step writes (a 227 MB copy) must be on disk before the timed command
    # starts: its writeback would otherwise be billed to that command, and slow its fsync.
    docsh_prep = docsh_prep and docsh_prep + " && sync"
    anchor_prep = anchor_prep and anchor_prep + " && sync"
    out = os.path.join(TMP, "probe-%d.out" % n)
    # The anchor must work, or the harness is broken (row 7: it is docsh).
    rc, secs_a, err = run_once(anchor_cmd, CFG["probe_timeout"], prepare=anchor_prep,
                               stdout_path=out if extra_docsh else None)
    if rc != 0 and not extra_docsh:
        raise HarnessError("anchor of row %d failed (%s): %s" % (
            n, "timeout" if rc is None else "exit %d" % rc, first_line(err)))
    if extra_docsh and rc != 0:
        return fail(row, rc, err, which=anchor_name)
    if extra_docsh and expect and not expect(out):
        row["notes"].append("%s output lacks the expected lines" % anchor_name)
    rc, secs, err = run_once(docsh_cmd, CFG["probe_timeout"], stdout_path=out,
                             prepare=docsh_prep)
    if rc != 0:
        # Still time the anchor alone, so the table shows it.
        res, herr = hyperfine(os.path.join(RESULTS, "%s-row%d.json" % (MODE, n)),
                              [(anchor_name, anchor_cmd, anchor_prep)],
                              plan_runs(secs_a), CFG["warmup"], output_pipe, shell)
        if res is None and not extra_docsh:
            raise HarnessError("hyperfine failed on the anchor of row %d: %s" % (n, herr))
        if res:
            row["anchor"] = res[0]["median"]
        return fail(row, rc, err)
    if expect and not expect(out):
        row["notes"].append("docsh exited 0 but its output/result looks wrong")
    runs = plan_runs(max(secs, secs_a))
    warmup = CFG["warmup"] if max(secs, secs_a) < 2 else 1
    res, herr = hyperfine(os.path.join(RESULTS, "%s-row%d.json" % (MODE, n)),
                          [(docsh_name, docsh_cmd, docsh_prep),
                           (anchor_name, anchor_cmd, anchor_prep)],
                          runs, warmup, output_pipe, shell)
    if res is None:
        # The probes passed, so a failure here is docsh failing on a later run.
        row["status"] = "failed"
        row["error"] = "failed during timing: " + first_line(herr)
        return row
    row["docsh"], row["anchor"] = res[0]["median"], res[1]["median"]
    row["runs"] = res[0]["runs"]
    row["ratio"] = row["docsh"] / row["anchor"]
    row["status"] = "ok"
    return row


def fail(row, rc, err, which="docsh"):
    row["status"] = "failed"
    if rc is None:
        row["error"] = "timed out after %.0f s" % CFG["probe_timeout"]
    else:
        row["error"] = "failed: " + first_line(err)
        if which != "docsh":
            row["error"] = "failed (%s): %s" % (which, first_line(err))
    return row


def contains(*needles):
    def check(path):
        with open(path, "rb") as f:
            data = f.read()
        return all(n.encode() in data for n in needles)
    return check


# ---------------------------------------------------------------- grep rows
#
# docsh's grep against GNU grep over the exported tree of the same corpus, both printing
# the same lines to a pipe (GNU grep stops reading a file at its first match when its
# output is /dev/null). Plain words use -F (and -Fi), regular expressions -E; GNU grep
# runs with LC_ALL=C.UTF-8 so that -i folds non-ASCII letters. Each row first checks
# that both print the same number of lines.

GREP_FIRST_ROW = 18
# (docsh grep arguments, GNU grep arguments, what the row shows, target ratio)
GREP_ROWS = [
    ("-F garden", "-rF garden", "a common ASCII word", 1),
    ("-i -F garden", "-rFi garden", "a common ASCII word, ignoring case", 1),
    ("-F Ελλάδα", "-rF Ελλάδα", "a common Greek word", 1),
    ("-i -F ελλάδα", "-rFi ελλάδα", "a common Greek word, ignoring case", 1),
    ("-i -F QUOKKA", "-rFi QUOKKA", "a rare ASCII word, ignoring case (row 5 without)", 1),
    ("-F Þórshöfn", "-rF Þórshöfn", "a rare non-ASCII word", 1),
    ("-i -F þórshöfn", "-rFi þórshöfn", "a rare non-ASCII word, ignoring case", 1),
    ("'win(dow|ter) [a-z]+'", "-rE 'win(dow|ter) [a-z]+'", "a regular expression", 2),
    ("-i 'win(dow|ter) [a-z]+'", "-rEi 'win(dow|ter) [a-z]+'",
     "a regular expression, ignoring case", 2),
]


# Row 53: the cost of each matching line, on a corpus of its own (`gen_corpus.py --text
# lines`, the large shape): lines of about 90 bytes, 30 % of them and most documents holding
# the word.
LINES_ROW = 53
LINES_ROWS = [("-F tempor", "-rF tempor", "lines of ~90 bytes, most documents matching", 1)]


def output_lines(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def grep_rows(new_row, D, L, large, first=GREP_FIRST_ROW, table=GREP_ROWS, store="large"):
    """The grep rows, numbered from `first` (kept apart from the other rows)."""
    docs = fmt_n(large["stats"]["documents"])
    for i, (docsh_args, grep_args, what, target) in enumerate(table):
        n = first + i
        r = new_row(n, "`grep %s` (%s) over the %s store (%s documents)"
                    % (docsh_args.replace("'", "").replace("|", "\\|"), what, store, docs),
                    target,
                    anchor_label="`grep %s` on the tree" % grep_args.split(" ")[0])
        if skipped(r):
            continue
        docsh_cmd = "%s --no-save -s %s/store.json -c %s" % (D, L, sq("grep " + docsh_args))
        anchor_cmd = "env LC_ALL=C.UTF-8 grep %s %s/tree" % (grep_args, L)
        anchor_out = os.path.join(TMP, "grep-anchor-%d.out" % n)
        rc, _, err = run_once(anchor_cmd, CFG["probe_timeout"], stdout_path=anchor_out)
        if rc != 0:
            raise HarnessError("anchor of row %d failed (%s): %s" % (
                n, "timeout" if rc is None else "exit %d" % rc, first_line(err)))
        wanted = output_lines(anchor_out)

        def same_lines(path, wanted=wanted):
            return wanted > 0 and output_lines(path) == wanted
        timed_row(r, docsh_cmd, anchor_cmd, output_pipe=True, shell=False, expect=same_lines)
        r["per_unit"] = (wanted, "matching line")
        if r["notes"]:
            r["notes"] = ["printed %s lines, GNU grep %s" % (
                fmt_n(output_lines(os.path.join(TMP, "probe-%d.out" % n))), fmt_n(wanted))]


def memory_row(row, docsh, store_rel, size, prepare=None):
    if skipped(row):
        return row
    argv_tail = [docsh, "--no-save", "-s", store_rel, "-c", 'ls "/Category 007"']
    peaks = []
    for i in range(CFG["mem_runs"]):
        if prepare:
            run_setup(prepare)
        mf = os.path.join(TMP, "mem-%d.txt" % i)
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", mf] + argv_tail, cwd=CORPUS,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = p.communicate(timeout=CFG["probe_timeout"])
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return fail(row, None, "")
        if p.returncode != 0:
            return fail(row, p.returncode, err.decode("utf-8", errors="replace"))
        with open(mf, encoding="utf-8") as f:
            lines = [l for l in f.read().split() if l.strip()]
        try:
            peaks.append(int(lines[-1]) * 1024)
        except (IndexError, ValueError):
            raise HarnessError("could not read /usr/bin/time output: %r" % lines)
    row["docsh"] = statistics.median(peaks)
    row["anchor"] = size
    row["runs"] = len(peaks)
    row["ratio"] = row["docsh"] / size
    row["status"] = "ok"
    return row


# ---------------------------------------------------------------- main

def main():
    global MODE, CFG, TMP, LOGFILE
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=sorted(MODES))
    ap.add_argument("--docsh", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--rows", default="",
                    help="comma-separated row numbers to run alone (the table goes to "
                         "results/<mode>-rows.md, not latest.md)")
    a = ap.parse_args()
    MODE, CFG, TMP = a.mode, MODES[a.mode], os.path.abspath(a.tmp)
    SELECTED.update(int(n) for n in a.rows.split(",") if n.strip())
    # docsh's index cache for the whole run (every row), under the run's own folder.
    os.environ["XDG_CACHE_HOME"] = os.path.join(TMP, "cache")
    # A run of docsh that saved leaves its save log beside the store (the rows measure what
    # a user waits for; a detached fold a second later would land in another row's timing).
    # The rows of the save log (45-52) measure the fold where it is the work.
    os.environ["DOCSH_FOLD"] = "never"
    git_sandbox(TMP)  # every git process of the run, docsh's too (rows 17, 29-44)
    docsh = os.path.abspath(a.docsh)
    D = sq(docsh)
    os.makedirs(RESULTS, exist_ok=True)
    LOGFILE = os.path.join(RESULTS, "%s.log" % MODE)
    with open(LOGFILE, "w", encoding="utf-8") as f:
        f.write("docsh benchmark log, mode %s\n" % MODE)
    started = time.monotonic()

    log("== corpora")
    pc, pd = CFG["personal"]
    lc, ld = CFG["large"]
    personal = corpus("personal", pc, pd, 1, CFG["check"])
    large = corpus("large", lc, ld, 1, CFG["check"])
    wide = corpus("wide", 1, CFG["wide"], 1, CFG["check"])
    wide10 = corpus("wide10x", 1, CFG["wide"], 10, CFG["check"])
    P, L, W, W10 = (sq(c["dir"]) for c in (personal, large, wide, wide10))
    T = sq(TMP)
    if subprocess.run([sys.executable, GEN, "new-script", os.path.join(CORPUS, personal["dir"]),
                       TMP, "--count", str(NEW_COUNT)]).returncode != 0:
        raise HarnessError("could not write the row-4 script")
    gen_seconds = time.monotonic() - started

    last_doc = "Document %05d" % (CFG["wide"] - 1)
    large_json = large["stats"]["json_bytes"]
    rows = []

    def new_row(n, op, target, docsh_label="", anchor_label=""):
        r = {"n": n, "op": op, "target": target, "status": "?", "notes": [],
             "docsh_label": docsh_label, "anchor_label": anchor_label, "per_unit": None}
        rows.append(r)
        ROWS_MADE.append(r)
        log("== row %d: %s" % (n, op))
        return r

    ls7 = 'ls "/Category 007"'
    r = new_row(1, "open the large store (%s, %s), `ls` one category"
                % (shape(large), fmt_mb(large_json)), 3, anchor_label="`cat`")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, L, sq(ls7)),
              "cat %s/store.json" % L, shell=False,
              expect=contains("Document 00000"))

    r = new_row(2, "same on the personal store (%s, %s)"
                % (shape(personal), fmt_mb(personal["stats"]["json_bytes"])), 5,
                anchor_label="`sqlite3`")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, P, sq(ls7)),
              "sqlite3 %s/store.db %s" % (P, sq(
                  "SELECT name,size,modified FROM documents WHERE category_id="
                  "(SELECT id FROM categories WHERE name='Category 007') ORDER BY name")),
              shell=False, expect=contains("Document 00000"))

    r = new_row(3, "open the large store, rewrite one document, save", 2,
                anchor_label="`dd … conv=fsync`")
    timed_row(r, "%s -s %s/r3/store.json -c %s" % (
                  D, T, sq('write "/Category 007/Document 00042" rewritten by the benchmark')),
              "dd if=%s/store.json of=%s/r3dd.json bs=1M conv=fsync status=none" % (L, T),
              docsh_prep="rm -rf %s/r3 && mkdir %s/r3 && cp %s/store.json %s/r3/" % (T, T, L, T),
              anchor_prep="rm -f %s/r3dd.json" % T,
              expect=lambda _: contains("rewritten by the benchmark")(
                  os.path.join(TMP, "r3", "store.json")))
    r["per_unit"] = (large["stats"]["documents"], "document of the store")

    r = new_row(4, "script: %s × `new` in one category, then save (personal)"
                % fmt_n(NEW_COUNT), 1, anchor_label="`sqlite3`, one transaction")
    timed_row(r, "%s -s %s/r4/store.json %s/new.docsh" % (D, T, T),
              "sqlite3 %s/r4db/store.db < %s/new.sql" % (T, T),
              # The copy's index made before the timed run, as a user's store has one: a copy
              # at the same path would otherwise find the last run's index, stale, and rebuild
              # it inside the timing (about 405 M instructions of 1,677 M).
              docsh_prep="rm -rf %s/r4 && mkdir %s/r4 && cp %s/store.json %s/r4/ && "
                         "%s --no-save -s %s/r4/store.json -c pwd >/dev/null"
                         % (T, T, P, T, D, T),
              anchor_prep="rm -rf %s/r4db && mkdir %s/r4db && cp %s/store.db %s/r4db/"
                          % (T, T, P, T),
              expect=lambda _: contains("Bench %05d" % NEW_COUNT)(
                  os.path.join(TMP, "r4", "store.json")))
    r["per_unit"] = (NEW_COUNT, "command")

    r = new_row(5, "grep a word (in %s of %s documents) over the large store"
                % (fmt_n(large["stats"]["with_marker"]), fmt_n(large["stats"]["documents"])), 1,
                anchor_label="`grep -r` on the tree")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, L, sq("grep " + WORD)),
              "grep -r %s %s/tree" % (WORD, L), output_pipe=True, shell=False,
              expect=contains(WORD))

    r = new_row(6, "peak resident memory of row 1", 0.5, docsh_label="peak RSS",
                anchor_label="size of store.json")
    memory_row(r, docsh, os.path.join(large["dir"], "store.json"), large_json)
    if rows[0]["notes"] and r["status"] == "ok":
        r["notes"].append("same command as row 1, whose result looked wrong")

    ls0 = " ; ".join(['ls "/Category 000"'] * LS_REPEAT)
    r = new_row(7, "%d × `ls` of a %s-document category in one session, contents 10× larger"
                % (LS_REPEAT, fmt_n(CFG["wide"])), 1.2,
                docsh_label="on wide10x", anchor_label="docsh on wide")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, W10, sq(ls0)),
              "%s --no-save -s %s/store.json -c %s" % (D, W, sq(ls0)),
              expect=contains(last_doc), docsh_name="docsh wide10x",
              anchor_name="docsh wide", extra_docsh=True, shell=False)

    index_rows(rows, new_row, D, docsh, personal, large, T)
    history_row(new_row, docsh, TMP, personal)
    journal_row(new_row, docsh, TMP, personal)
    grep_rows(new_row, D, L, large)
    if not SELECTED or LINES_ROW in SELECTED:
        lines = corpus("lines", lc, ld, 1, CFG["check"], text="lines")
        grep_rows(new_row, D, sq(lines["dir"]), lines, LINES_ROW, LINES_ROWS, "lines")
    startup_row(new_row, D)
    links_rows(new_row, D, large, T)
    sync_rows(new_row, docsh, personal, SYNC_FIRST_ROW)
    if MODE == "full":  # quick's "large" is not large, and every sync costs seconds
        sync_rows(new_row, docsh, large, SYNC_FIRST_ROW + SYNC_ROW_COUNT)
    million = None
    if MODE == "full" and (not SELECTED or SELECTED & {47, 51, 52} | set(MILLION_ROWS)):
        log("== the million-document corpus")
        million = corpus("million", *MILLION, 1, False, lean=True)
    encrypted_sync_rows(new_row, docsh, large if MODE == "full" else personal)
    savelog_rows(new_row, D, docsh, personal, large, million)
    million_rows(new_row, D, million)
    promise_rows(new_row, D, personal, large)
    catch_up_row(new_row, docsh, large)

    # ------------------------------------------------------------ report
    total = time.monotonic() - started
    version = docsh_version(docsh)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    hf = subprocess.run(["hyperfine", "--version"], stdout=subprocess.PIPE,
                        text=True).stdout.strip()
    lines = [
        "# docsh benchmarks (%s)" % MODE,
        "",
        "Mode **%s**, %s; corpora (categories × documents, store.json size): "
        "personal %s (%s), large %s (%s), wide %s (%s), wide10x %s (%s). "
        "%s, %d cores, %s."
        % (MODE, now,
           shape(personal), fmt_mb(personal["stats"]["json_bytes"]),
           shape(large), fmt_mb(large_json),
           shape(wide), fmt_mb(wide["stats"]["json_bytes"]),
           shape(wide10), fmt_mb(wide10["stats"]["json_bytes"]),
           version, os.cpu_count() or 0, hf),
        "",
        "| # | operation | docsh | anchor | ratio | target | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    failed, suspect = [], []
    for r in rows:
        if r["status"] == "skipped":
            continue
        unit = r.get("unit") or (fmt_mb if r["n"] in (6, 14, 52) else fmt_time)
        anchor = ("%s (%s)" % (unit(r["anchor"]), r["anchor_label"])) \
            if r.get("anchor") is not None else r["anchor_label"]
        if r["status"] == "ok":
            cell = unit(r["docsh"])
            if r["docsh_label"]:
                cell += " (%s)" % r["docsh_label"]
            if r["notes"]:
                cell += " ⚠ " + "; ".join(r["notes"])
            ratio = "%.2f" % r["ratio"]
            # A row whose result looks wrong proves nothing, however fast.
            verdict = "✓" if r["ratio"] <= r["target"] and not r["notes"] else "✗"
            if r["notes"]:
                suspect.append(r["n"])
        else:
            cell, ratio, verdict = r["error"], "—", "✗"
            failed.append(r["n"])
        op = r["op"]
        if r["per_unit"] and r["status"] == "ok":
            # What one unit of the work costs each side: a fast anchor hides nothing here.
            count, noun = r["per_unit"]
            per = fmt_bytes if r.get("unit") else fmt_unit  # memory or time
            op += " — per %s: docsh %s, anchor %s" % (
                noun, per(r["docsh"] / count), per(r["anchor"] / count))
        lines.append("| %d | %s | %s | %s | %s | ≤ %s | %s |"
                     % (r["n"], op, cell, anchor, ratio, r["target"], verdict))
    lines += [
        "",
        "Ratio = median(docsh) / median(anchor), both timed in the same hyperfine call "
        "(%d–%d runs after warm-up; row 6: median peak RSS of %d runs / file size). "
        "Per-run times: `bench/results/%s-row*.json`."
        % (CFG["min_runs"], CFG["max_runs"], CFG["mem_runs"], MODE),
    ]
    if MODE == "quick":
        lines += ["", "Quick mode: the sync rows run on the personal store only (%d–%d), one "
                  "run each; %d–%d (the large store) are for full mode."
                  % (SYNC_FIRST_ROW, SYNC_FIRST_ROW + SYNC_ROW_COUNT - 1,
                     SYNC_FIRST_ROW + SYNC_ROW_COUNT, SYNC_FIRST_ROW + 2 * SYNC_ROW_COUNT - 1)]
        lines += ["", "Quick mode: small corpora, few runs. Fixed costs (process start, runtime "
                  "memory) weigh more than on the full corpora, so these ratios prove the "
                  "harness, not docsh's speed; `make bench` gives the real table."]
    if failed:
        lines.append("")
        lines.append("**docsh failed in row%s %s** (the harness itself worked)."
                     % ("s" if len(failed) > 1 else "", ", ".join(map(str, failed))))
    if suspect:
        lines.append("")
        lines.append("**docsh exited 0 but did not do the work in row%s %s** (⚠; verdict ✗)."
                     % ("s" if len(suspect) > 1 else "", ", ".join(map(str, suspect))))
    relevance = os.path.join(RESULTS, "relevance.md")
    if MODE == "full" and not SELECTED and os.path.exists(relevance):
        # Search quality, measured by bench/relevance.py on a collection of its own (it needs
        # the Cranfield files, which are not in the repository): its last table, as it is.
        with open(relevance, encoding="utf-8") as f:
            text = f.read().strip().splitlines()
        lines += ["", "## Relevance (the last run of `bench/relevance.py`)", ""]
        lines += [l for l in text if not l.startswith("# ")]
    table = "\n".join(lines) + "\n"
    out = os.path.join(RESULTS, "%s-rows.md" % MODE if SELECTED else
                       "latest.md" if MODE == "full" else "quick.md")
    with open(out, "w", encoding="utf-8") as f:
        f.write(table)
    print(table)
    log("wrote %s; corpora %.0f s, total %.0f s" % (os.path.relpath(out, ROOT), gen_seconds, total))
    if failed or suspect:
        log("docsh failed in rows: %s; did not do the work in rows: %s "
            "(exit status stays 0: not a harness error)"
            % (", ".join(map(str, failed)) or "none", ", ".join(map(str, suspect)) or "none"))


# ---------------------------------------------------------------- the index (issue 11)

def index_rows(rows, new_row, D, docsh, personal, large, T):
    """Rows 8-16: the SQLite index. docsh keeps its index in $XDG_CACHE_HOME/docsh (set
    for the whole run to a folder under $TMP); the probe of each row builds what the
    timed runs then find, except in rows 15 and 16, whose prepare step removes it."""
    P, L = sq(personal["dir"]), sq(large["dir"])
    cache = os.environ["XDG_CACHE_HOME"]
    ls7 = 'ls "/Category 007"'
    rows_sql = ("SELECT name,size,modified FROM documents WHERE category_id="
                "(SELECT id FROM categories WHERE name='Category 007') ORDER BY name")
    fts_db = os.path.join(TMP, "fts.db")  # the anchors' full-text database (content kept)
    if subprocess.run(["bash", "-c", "cp %s/store.db %s && sqlite3 %s %s" % (
            L, sq(fts_db), sq(fts_db), sq(
                "CREATE VIRTUAL TABLE fts USING fts5(name, content, tokenize="
                "'unicode61 remove_diacritics 2'); INSERT INTO fts(rowid, name, content) "
                "SELECT rowid, name, content FROM documents"))], cwd=CORPUS).returncode != 0:
        raise HarnessError("could not build the anchors' FTS5 database")

    r = new_row(8, "open + `ls` one category, large store, with its index", 2,
                anchor_label="`sqlite3` same rows")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, L, sq(ls7)),
              "sqlite3 %s/store.db %s" % (L, sq(rows_sql)), shell=False,
              expect=contains("Document 00000"))

    r = new_row(9, "same on the personal store", 2, anchor_label="`sqlite3` same rows")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, P, sq(ls7)),
              "sqlite3 %s/store.db %s" % (P, sq(rows_sql)), shell=False,
              expect=contains("Document 00000"))

    r = new_row(10, "`find` a name fragment (large)", 2, anchor_label="`sqlite3` `LIKE '%…%'`")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, L, sq("find 00142")),
              "sqlite3 %s/store.db %s" % (L, sq(
                  "SELECT c.name, d.name FROM documents d JOIN categories c ON c.id = "
                  "d.category_id WHERE d.name LIKE '%00142%' ORDER BY c.name, d.name")),
              shell=False, expect=contains("Document 00142"))

    for n, words, what in ((11, RARE, "a rare word"), (12, COMMON, "two common words")):
        r = new_row(n, "`search` %s, top 20 (large)" % what, 1.5,
                    anchor_label="`sqlite3` FTS5 `MATCH`, bm25, `snippet()`")
        timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, L, sq("search " + words)),
                  "sqlite3 %s %s" % (sq(fts_db), sq(
                      "SELECT rowid, snippet(fts, 1, '[', ']', '…', 12) FROM fts WHERE fts "
                      "MATCH '%s' ORDER BY bm25(fts) LIMIT 20" % words)),
                  shell=False, expect=contains("Document"))

    r = new_row(13, "open, rewrite one document, save (large, with its index)", 1.5,
                anchor_label="`dd … conv=fsync`")
    timed_row(r, "%s -s %s/r13/store.json -c %s" % (
                  D, T, sq('write "/Category 007/Document 00042" rewritten by the benchmark')),
              "dd if=%s/store.json of=%s/r13dd.json bs=1M conv=fsync status=none" % (L, T),
              docsh_prep="rm -rf %s/r13 && mkdir %s/r13 && cp %s/store.json %s/r13/ && "
                         "%s --no-save -s %s/r13/store.json -c pwd" % (T, T, L, T, D, T),
              anchor_prep="rm -f %s/r13dd.json" % T,
              expect=lambda _: contains("rewritten by the benchmark")(
                  os.path.join(TMP, "r13", "store.json")))

    r = new_row(14, "peak resident memory of open + `ls`, with its index", 0.1,
                docsh_label="peak RSS", anchor_label="size of store.json")
    memory_row(r, docsh, os.path.join(large["dir"], "store.json"), large["stats"]["json_bytes"])

    r = new_row(15, "first open with no index (builds it), `ls` one category", 0.5,
                anchor_label="Python `json.load`")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, L, sq(ls7)),
              "%s -c %s %s/store.json" % (sq(sys.executable), sq(
                  "import json, sys; json.load(open(sys.argv[1], encoding='utf-8'))"), L),
              docsh_prep="rm -rf %s" % sq(cache), expect=contains("Document 00000"))

    r = new_row(16, "first `search` with no index at all (builds every part)", 2,
                anchor_label="`sqlite3` builds the same FTS5 table")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, L, sq("search " + RARE)),
              "sqlite3 %s/r16.db %s" % (T, sq(
                  FTS_TABLE + "; INSERT INTO fts(rowid, name, content) "
                  "SELECT rowid, name, content FROM documents")),
              docsh_prep="rm -rf %s" % sq(cache),
              anchor_prep="rm -f %s/r16.db && cp %s/store.db %s/r16.db" % (T, L, T),
              expect=contains("Document"))


# ---------------------------------------------------------------- rows 54-56: tags and links

LINKS_FIRST_ROW = 54
LINK_TARGET = "/Category 007/Document 00042"  # gen_corpus.LINK_TARGET, linked from 100
BENCH_TAG = "project/bench"  # gen_corpus.BENCH_TAG, on about 1 % of the documents


def links_rows(new_row, D, large, T):
    """Rows 54-56 (issue 29): a copy of the large corpus with tags and [[links]]
    (`gen_corpus.py linked`). 45: `backlinks` of a document 100 others link to, against
    sqlite3 answering from tables of the same rows; 46: `find --tag`, likewise; 47: the
    `mv` that rewrites the links in those 100 documents, against a save of the same 100
    documents (an `append` to each), both on a fresh indexed copy."""
    src = os.path.join(CORPUS, large["dir"])
    out = os.path.join(CORPUS, "linked-%dx%d" % large["shape"])
    if subprocess.run([sys.executable, GEN, "linked", src, out]).returncode != 0:
        raise HarnessError("could not write the linked corpus")
    K = sq(out)
    docs = fmt_n(large["stats"]["documents"])
    category, name = LINK_TARGET[1:].split("/")

    r = new_row(LINKS_FIRST_ROW, "`backlinks` of a document 100 link to (large, %s)" % docs, 1.5,
                anchor_label="`sqlite3` same rows")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, K, sq("backlinks " + sq(LINK_TARGET))),
              "sqlite3 %s/store.db %s" % (K, sq(
                  "SELECT c.name, d.name, l.line, l.text FROM links l JOIN documents d ON d.id = "
                  "l.source_id JOIN categories c ON c.id = d.category_id WHERE l.target_name = "
                  "'%s' AND l.target_category = '%s' ORDER BY c.name, d.name" % (name, category))),
              shell=False, expect=contains("[[Category 007/Document 00042]]"))

    r = new_row(LINKS_FIRST_ROW + 1, "`find --tag` (a tag on ~1 %% of %s)" % docs, 1.5,
                anchor_label="`sqlite3` same rows")
    timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, K, sq("find --tag " + BENCH_TAG)),
              "sqlite3 %s/store.db %s" % (K, sq(
                  "SELECT c.name, d.name FROM tags t JOIN documents d ON d.id = t.document_id "
                  "JOIN categories c ON c.id = d.category_id WHERE t.tag = '%s' "
                  "ORDER BY c.name, d.name" % BENCH_TAG)),
              shell=False, expect=contains("Document"))

    # Each run on a fresh copy, indexed with its links by the prepare step (a `backlinks`).
    def fresh(folder):
        return ("rm -rf %s/%s && mkdir %s/%s && cp %s/store.json %s/%s/ && "
                "%s --no-save -s %s/%s/store.json -c %s >/dev/null" % (
                    T, folder, T, folder, K, T, folder, D, T, folder,
                    sq("backlinks " + sq(LINK_TARGET))))
    r = new_row(LINKS_FIRST_ROW + 2, "`mv` rewriting the links in 100 documents (large)", 2,
                anchor_label="a save of the 100 documents")
    timed_row(r, "%s -s %s/r47/store.json -c %s" % (
                  D, T, sq("mv %s %s" % (sq(LINK_TARGET), sq(LINK_TARGET + " renamed")))),
              "%s -s %s/r47a/store.json %s/append-sources.docsh" % (D, T, K),
              docsh_prep=fresh("r47"), anchor_prep=fresh("r47a"),
              docsh_name="docsh mv", anchor_name="docsh append ×100",
              expect=lambda _: any(
                  os.path.exists(path) and contains("Document 00042 renamed]]")(path)
                  for path in (os.path.join(TMP, "r47", "store.json" + tail)
                               for tail in ("", ".wal"))))


# ---------------------------------------------------------------- row 17: history

HISTORY_COMMITS = {"quick": 50, "full": 500}
HISTORY_TARGET = "/Category 007/Document 00042"


def history_row(new_row, docsh, tmp, corpus_info):
    """Row 17: `log NAME` on a docsh repository of the personal store (1,000 documents)
    with HISTORY_COMMITS saves, each committed by docsh, against `git log --oneline --
    FILE` of the document's own file (commits hold one file per document; the store file is
    not tracked) in the same repository. The history is made by docsh itself (sync to a
    bare remote, then one script of `write` and `save` lines), so that its commits are
    docsh's; a docsh that cannot do this yet fails the row, not the harness."""
    commits = HISTORY_COMMITS[MODE]
    r = new_row(17, "`log NAME` on the personal store with %s commits" % fmt_n(commits), 3,
                anchor_label="`git log --oneline -- FILE` of its file")
    if skipped(r):
        return r
    repo = os.path.join(tmp, "hist")
    remote = os.path.join(tmp, "hist-remote.git")
    store = os.path.join(repo, "store.json")
    shutil.rmtree(repo, ignore_errors=True)
    shutil.rmtree(remote, ignore_errors=True)
    os.makedirs(repo)
    shutil.copyfile(os.path.join(CORPUS, corpus_info["dir"], "store.json"), store)
    if subprocess.run(["git", "init", "--quiet", "--bare", remote]).returncode != 0:
        raise HarnessError("git init --bare failed for row 17")
    script = os.path.join(tmp, "history.docsh")
    with open(script, "w", encoding="utf-8", newline="\n") as f:
        for i in range(commits):
            path = HISTORY_TARGET if i % 50 == 7 else "/Category %03d/Document %05d" % (
                i % 20, (i * 7) % 50)
            f.write('write "%s" version %d of this document\nsave\n' % (path, i))
    for step in (["-c", "sync " + shlex.quote(remote)], [script]):
        p = subprocess.run([docsh, "-s", store] + step, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            return fail(r, p.returncode, p.stderr.decode("utf-8", errors="replace"))
    made = subprocess.run(["git", "-C", repo, "rev-list", "--count", "HEAD"],
                          stdout=subprocess.PIPE, text=True).stdout.strip()
    if not made.isdigit() or int(made) < commits:
        r["notes"].append("only %s commits were made" % (made or "no"))
    return timed_row(r, "%s --no-save -s %s -c %s" % (sq(docsh), sq(store),
                                                      sq('log "%s"' % HISTORY_TARGET)),
                     "git -C %s log --oneline -- %s" % (sq(repo), sq(HISTORY_TARGET[1:])),
                     shell=False,
                     expect=contains("Document 00042"))


# ---------------------------------------------------------------- row 28: start-up

STARTUP_ROW = 28


def startup_row(new_row, D):
    """What a start costs before any work: `docsh --version` against sqlite3 answering a
    constant from an in-memory database (both load, relocate and initialise, then exit)."""
    r = new_row(STARTUP_ROW, "start-up: `docsh --version`", 1.2,
                anchor_label="`sqlite3 :memory: 'select 1'`")
    return timed_row(r, "%s --version" % D, "sqlite3 :memory: 'select 1'", shell=False,
                     expect=contains("docsh"))


def journal_row(new_row, docsh, tmp, corpus_info):
    """Row 27: what the recovery journal costs a typed session. One REPL session in a
    pseudo-terminal (`repl_session.py`) types EDIT_COUNT `write`s into a fresh copy of the
    personal store, each after the prompt of the one before, with the journal as users get it
    (DOCSH_JOURNAL_DELAY_MS=2000), against the same session without a journal (`off`)."""
    r = new_row(27, "REPL: %d typed `write`s with the journal (personal)" % EDIT_COUNT, 1.05,
                anchor_label="the same session without a journal")
    source = sq(os.path.join(CORPUS, corpus_info["dir"], "store.json"))
    session = "%s %s %s %s/r27/store.json %d" % (
        sq(sys.executable), sq(os.path.join(HERE, "repl_session.py")), sq(docsh), sq(tmp),
        EDIT_COUNT)
    prepare = "rm -rf %s/r27 && mkdir %s/r27 && cp %s %s/r27/" % (sq(tmp), sq(tmp), source, sq(tmp))
    return timed_row(r, session + " 2000", session + " off", docsh_prep=prepare,
                     anchor_prep=prepare, extra_docsh=True, anchor_name="docsh, no journal")


# ---------------------------------------------------------------- the save log (issue 27)

MILLION = (1000, 1000)  # the million-document corpus (full mode only): about 2.3 GB
NEW_PROCESSES = {"quick": 100, "full": 2_000}  # row 48
LOG_SAVES = {"quick": 100, "full": 1_000}  # row 50
DOC42 = '"/Category 007/Document 00042"'


def converted_copy(D, source_dir, dest):
    """A copy of a corpus store at `dest` (a folder under TMP), written once by docsh (the
    corpus is format 1, whose first save writes the file whole as format 2, so that later
    saves append) and folded, its index built: a store as a user of this docsh has it."""
    d = sq(dest)
    run_setup("rm -rf %s && mkdir -p %s && cp %s/store.json %s/ && "
              "%s -s %s/store.json -c %s && %s -s %s/store.json --checkpoint >/dev/null"
              % (d, d, sq(source_dir), d, D, d, sq("append %s converted" % DOC42), D, d))
    return dest


def wait_for_rest(store):
    """Returns once no docsh process holds the claim to fold the store's log (a detached
    fold child has finished), as FoldClaim.waitForRest does."""
    import fcntl
    try:
        fd = os.open(store + ".fold", os.O_RDONLY)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def log_bytes(path):
    try:
        return os.path.getsize(path + ".wal")
    except OSError:
        return 0


def append_row(new_row, n, D, label, corpus_info):
    """Append one line to one document and save, in a store with its index warm, against a
    durable append of as many bytes as docsh's record (the record holds the document whole,
    as every record does)."""
    r = new_row(n, "`append` one line + save (%s, %s)"
                % (label, fmt_mb(corpus_info["stats"]["json_bytes"])), 3,
                anchor_label="`dd oflag=append conv=notrunc,fsync` of the record's bytes")
    if skipped(r):
        return r
    store = converted_copy(D, corpus_info["dir"], os.path.join(TMP, "r%d" % n))
    path = os.path.join(store, "store.json")
    command = "%s -s %s -c %s" % (D, sq(path), sq("append %s one more line" % DOC42))
    before = log_bytes(path)
    run_setup(command)
    record = log_bytes(path) - before
    if record <= 0:
        raise HarnessError("row %d: the save appended nothing to the save log" % n)
    with open(os.path.join(TMP, "r%d.record" % n), "wb") as f:
        f.write(b"x" * record)
    timed_row(r, command,
              "dd if=%s/r%d.record of=%s/r%d.dd oflag=append conv=notrunc,fsync status=none"
              % (sq(TMP), n, sq(TMP), n), shell=False,
              expect=lambda _: log_bytes(path) > before + record)
    r["per_unit"] = (record, "byte of the record (%s)" % fmt_bytes(record))
    return r


def savelog_rows(new_row, D, docsh, personal, large, million):
    """Rows 45-52: saves that append to the save log, and the folds (checkpoints). A set-up
    step docsh fails fails its row, not the harness."""
    started = len(ROWS_MADE)
    try:
        savelog_rows_unguarded(new_row, D, docsh, personal, large, million)
    except SetupFailed as e:
        r = ROWS_MADE[-1] if len(ROWS_MADE) > started else new_row(45, "save log", 1)
        fail(r, 1, str(e))


ROWS_MADE = []


def savelog_rows_unguarded(new_row, D, docsh, personal, large, million):
    L = sq(large["dir"])
    T = sq(TMP)
    ls7 = 'ls "/Category 007"'
    append_row(new_row, 45, D, "personal", personal)
    append_row(new_row, 46, D, "large", large)
    if million:
        append_row(new_row, 47, D, "1 M documents", million)

    count = NEW_PROCESSES[MODE]
    r = new_row(48, "%s `docsh -c 'new …'` processes, then the fold, on the large store"
                % fmt_n(count), 2, docsh_label="large", anchor_label="the same on the personal store")
    if not skipped(r):
        for name, info in (("r48l", large), ("r48p", personal)):
            converted_copy(D, info["dir"], os.path.join(TMP, name))

        def loop(name):
            # As users run it: each run hands the fold to a detached child that waits for
            # the store to rest; the loop ends with the fold, so each run pays for it.
            store = "%s/%s/store.json" % (T, name)
            # Names no run has used: the run's start in nanoseconds, then the count.
            return ("export DOCSH_FOLD=; run=$(date +%%s%%N); for i in $(seq %d); do %s -s %s"
                    " -c \"new '/Category 001/Bench $run-$i' x\" || exit 1; done; %s -s %s"
                    " --checkpoint >/dev/null" % (count, D, store, D, store))
        timed_row(r, loop("r48l"), loop("r48p"), extra_docsh=True, anchor_name="docsh personal")
        r["per_unit"] = (count, "command")
        for name in ("r48l", "r48p"):
            wait_for_rest(os.path.join(TMP, name, "store.json"))

    r = new_row(49, "a checkpoint: fold a save log of %d saves into the large store"
                % 10, 1.2, anchor_label="the whole-store save of the same store (format 1's)")
    if not skipped(r):
        template = converted_copy(D, large["dir"], os.path.join(TMP, "r49t"))
        # The log is written in place by each prepare step: a log copied beside a copy of
        # its file is another file's (its header names the file's inode), never applied.
        timed_row(r, "%s -s %s/r49/store.json --checkpoint" % (D, T),
                  "%s -s %s/r49w/store.json -c %s" % (D, T, sq("append %s whole" % DOC42)),
                  docsh_prep="rm -rf %s/r49 && cp -a %s %s/r49 && for i in $(seq 10); do "
                             "%s -s %s/r49/store.json -c %s || exit 1; done"
                             % (T, sq(template), T, D, T, sq("append %s line $i" % DOC42)),
                  anchor_prep="rm -rf %s/r49w && mkdir %s/r49w && cp %s/store.json %s/r49w/ && "
                              "%s --no-save -s %s/r49w/store.json -c pwd" % (T, T, L, T, D, T),
                  expect=contains("Folded"))

    saves = LOG_SAVES[MODE]
    r = new_row(50, "open + `ls` one category of the large store with a save log of %s saves"
                % fmt_n(saves), 1.2, anchor_label="the same store after a checkpoint")
    if not skipped(r):
        logged = converted_copy(D, large["dir"], os.path.join(TMP, "r50a"))
        script = os.path.join(TMP, "r50.docsh")
        with open(script, "w", encoding="utf-8") as f:
            for i in range(saves):
                f.write('append "/Category %03d/Document %05d" saved line %d\nsave\n'
                        % (i % large["shape"][0], i % large["shape"][1], i))
        run_setup("%s -s %s/store.json %s" % (D, sq(logged), sq(script)))
        # The same saves into a copy of its own, then folded (a copied log would be another
        # file's, never applied).
        folded = converted_copy(D, large["dir"], os.path.join(TMP, "r50b"))
        run_setup("%s -s %s/store.json %s && %s -s %s/store.json --checkpoint"
                  % (D, sq(folded), sq(script), D, sq(folded)))
        timed_row(r, "%s --no-save -s %s/r50a/store.json -c %s" % (D, T, sq(ls7)),
                  "%s --no-save -s %s/r50b/store.json -c %s" % (D, T, sq(ls7)), shell=False,
                  extra_docsh=True, anchor_name="docsh after checkpoint",
                  expect=contains("Document 00000"))

    if million:
        M = sq(million["dir"])
        cache = os.environ["XDG_CACHE_HOME"]
        r = new_row(51, "first open of the never-seen 1 M-document store (%s), `ls` one category"
                    % fmt_mb(million["stats"]["json_bytes"]), 1,
                    anchor_label="Python `json.load`")
        timed_row(r, "%s --no-save -s %s/store.json -c %s" % (D, M, sq(ls7)),
                  "%s -c %s %s/store.json" % (sq(sys.executable), sq(
                      "import json, sys; json.load(open(sys.argv[1], encoding='utf-8'))"), M),
                  docsh_prep="rm -rf %s" % sq(cache), expect=contains("Document 00000"))
        r["per_unit"] = (million["stats"]["documents"], "document")
        r = new_row(52, "peak resident memory of row 51", 0.5, docsh_label="peak RSS",
                    anchor_label="size of store.json")
        memory_row(r, docsh, os.path.join(million["dir"], "store.json"),
                   million["stats"]["json_bytes"], prepare="rm -rf %s" % sq(cache))
    else:
        for n in (47, 51, 52):
            new_row(n, "(the million-document corpus: full mode only)", 1)["status"] = "skipped"


def promise_rows(new_row, D, personal, large):
    """Rows 57-60 (issue 34): a one-line `-c` save as users run it (the fold that follows,
    when the store is small enough for one, included) against sqlite3 updating the same
    document in a database of the same documents with its CLI's defaults (rollback journal,
    synchronous FULL); and, counted with strace, the bytes a one-line save writes into the
    store's folder and the fsyncs it makes there."""
    started = len(ROWS_MADE)
    try:
        promise_rows_unguarded(new_row, D, personal, large)
    except SetupFailed as e:
        r = ROWS_MADE[-1] if len(ROWS_MADE) > started else new_row(57, "save log", 2)
        fail(r, 1, str(e))


def doc42_id(db):
    """The id of DOC42 in a corpus's store.db."""
    p = subprocess.run(["sqlite3", db, "SELECT d.id FROM documents d JOIN categories c ON "
                        "c.id = d.category_id WHERE c.name = 'Category 007' AND d.name = "
                        "'Document 00042'"], stdout=subprocess.PIPE, text=True)
    if p.returncode != 0 or not p.stdout.strip():
        raise HarnessError("no Document 00042 in %s" % db)
    return p.stdout.strip()


def strace_store_folder(command, folder):
    """Runs `command` under strace; (bytes written into files of `folder`, fsyncs and
    fdatasyncs of `folder` or files in it)."""
    trace = os.path.join(TMP, "strace.out")
    run_setup("strace -f -y -qq -e trace=write,pwrite64,fsync,fdatasync,copy_file_range,"
              "sendfile -o %s %s" % (sq(trace), command))
    written, syncs = 0, 0
    prefix = os.path.realpath(folder)
    pattern = re.compile(r"^\d+\s+(\w+)\((\d+)<([^>]*)>.*\)\s+=\s+(-?\d+)")
    with open(trace, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = pattern.match(line)
            if not m:
                continue
            call, path, result = m.group(1), m.group(3), int(m.group(4))
            if not (path == prefix or path.startswith(prefix + "/")):
                continue
            if call in ("fsync", "fdatasync"):
                syncs += 1
            elif result > 0 and call in ("write", "pwrite64"):
                written += result
            elif result > 0 and call in ("copy_file_range", "sendfile"):
                written += result
    return written, syncs


def promise_rows_unguarded(new_row, D, personal, large):
    for n, label, info in ((57, "large", large), (58, "personal", personal)):
        r = new_row(n, "one-line `docsh -c 'append …'` save as users run it (%s, %s)%s"
                    % (label, fmt_mb(info["stats"]["json_bytes"]),
                       ", the fold that follows included" if n == 58 else ""),
                    2 if n == 57 else 3,
                    anchor_label="`sqlite3 store.db \"UPDATE … WHERE id = …\"` (CLI defaults)")
        if skipped(r):
            continue
        store = converted_copy(D, info["dir"], os.path.join(TMP, "r%d" % n))
        db = os.path.join(TMP, "r%d.db" % n)
        run_setup("cp %s/store.db %s" % (sq(info["dir"]), sq(db)))
        update = ("UPDATE documents SET content = content || ' one more line' "
                  "WHERE id = '%s'" % doc42_id(db))
        timed_row(r, "DOCSH_FOLD= %s -s %s/store.json -c %s"
                  % (D, sq(store), sq("append %s one more line" % DOC42)),
                  "sqlite3 %s %s" % (sq(db), sq(update)))
        r["per_unit"] = (1, "save")

    store = converted_copy(D, large["dir"], os.path.join(TMP, "r59"))
    command = "env DOCSH_FOLD= %s -s %s/store.json -c %s" % (
        D, sq(store), sq("append %s one more line" % DOC42))
    r = new_row(59, "bytes written to the store's folder per isolated one-line `-c` save "
                "(large, %s), mean of 10" % fmt_mb(large["stats"]["json_bytes"]), 1,
                anchor_label="64 KiB")
    if not skipped(r):
        total = 0
        for _ in range(10):
            written, _ = strace_store_folder(command, store)
            total += written
        r.update(docsh=total / 10, anchor=64 * 1024, unit=fmt_bytes, status="ok", runs=10)
        r["ratio"] = r["docsh"] / r["anchor"]
    r = new_row(60, "fsyncs in the store's folder per one-line save after a fold (large)", 1,
                anchor_label="1")
    if not skipped(r):
        run_setup("%s -s %s/store.json --checkpoint >/dev/null" % (D, sq(store)))
        _, syncs = strace_store_folder(command, store)
        r.update(docsh=syncs, anchor=1, unit=lambda v: "%d" % v, status="ok", runs=1)
        r["ratio"] = r["docsh"] / r["anchor"]


def catch_up_row(new_row, docsh, large):
    """Row 61 (issue 36): 100 `ls` in one REPL session on the large store, no other session,
    against the same with the docsh built before sessions looked for each other's saves
    (DOCSH_BEFORE): what looking costs a command that finds nothing changed."""
    count = 100
    r = new_row(61, "%d `ls \"/Category 007\"` in one REPL session, large store, no other "
                "session" % count, 1.1, anchor_label="the same with the docsh before (DOCSH_BEFORE)")
    if skipped(r):
        return
    before = os.environ.get("DOCSH_BEFORE")
    if not before:
        log("row 61 skipped: DOCSH_BEFORE names no docsh of the commit before issue 36")
        r["status"] = "skipped"
        return
    store = os.path.join(large["dir"], "store.json")
    script = sq(os.path.join(HERE, "repl_session.py"))

    def session(binary):
        return "%s %s %s %s %d off %s" % (sq(sys.executable), script, sq(binary), sq(store),
                                          count, sq('ls "/Category 007"'))
    timed_row(r, session(docsh), session(before), extra_docsh=True, anchor_name="docsh before")
    r["per_unit"] = (count, "command")


def docsh_version(docsh):
    try:
        p = subprocess.run([docsh, "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                           timeout=10, text=True)
        line = p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else ""
    except (OSError, subprocess.TimeoutExpired, UnicodeDecodeError):
        line = ""
    return ("`%s`" % line.replace("|", "/")[:60]) if line else "docsh (no --version)"


# ---------------------------------------------------------------- sync (issue 17)
#
# docsh's sync (one file per document in git, the store folder's own bare `.git`) against
# plain git doing the nearest work, on the personal and the large store. Each store gets
# SYNC_ROW_COUNT rows, the personal store's from SYNC_FIRST_ROW, the large store's after them.
# Every git run of the whole harness sees a sandbox of its own (git_sandbox): HOME, a global
# config naming a user, no system config, no prompts.

SYNC_FIRST_ROW = 29
SYNC_ROW_COUNT = 8
SYNC_DOC = "/Category 007/Document 00042"  # edited on machine A, then listed by `log`
SYNC_FILE = "Category 007/Document 00042.md"  # its file in the repository (layout 2)
INCOMING_DOC = "/Category 003/Document 00017"  # changed on A before each of B's syncs
GROWTH_SAVES = 10
GROWTH_BUDGET = 64 * 1024  # bytes a save may add to the repository
BLOB_SLACK = 4096  # bytes the largest blob may exceed the largest document by
# In full mode, a command whose probe took longer than this is measured by that one run
# (its prepare step untimed, as hyperfine's): three more runs of a 40 s sync cost minutes.
SINGLE_RUN_SECONDS = 8.0
SAMPLE_INTERVAL = 0.02  # seconds between two looks at a sync's processes in /proc


def git_sandbox(tmp):
    """Gives every git process of the run (docsh's too) a HOME and a global config of its
    own, naming a user and making `main` the first branch, and no system config, as
    Tests/DocsTestSupport/GitSandbox.swift does: the user's git config is never read."""
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    config = os.path.join(home, "gitconfig")
    with open(config, "w", encoding="utf-8") as f:
        f.write("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
                "[user]\n\tname = docsh bench\n\temail = bench@example.com\n")
    os.environ.update({"HOME": home, "GIT_CONFIG_GLOBAL": config, "GIT_CONFIG_NOSYSTEM": "1",
                       "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                       "GIT_TERMINAL_PROMPT": "0"})


def git(*args, cwd=None):
    """Runs git for the harness's own set-up; its standard output. A failure is a harness error."""
    p = subprocess.run(["git"] + list(args), cwd=cwd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise HarnessError("git %s failed: %s" % (" ".join(args), first_line(
            p.stderr.decode("utf-8", errors="replace"))))
    return p.stdout.decode("utf-8", errors="replace")


def session_processes(sid, skip=None, page=os.sysconf("SC_PAGE_SIZE")):
    """The processes of session `sid` (docsh and the git processes it started, which stay in
    its session) but the process `skip` (the /usr/bin/time that leads it): {pid: (parent,
    resident bytes, own peak VmHWM in bytes)}. A child not yet past its exec is left out: it
    still shares its parent's memory (posix_spawn's vfork) or a copy of it (git's fork), and
    counting it would count docsh's memory twice."""
    seen = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == skip:
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            # After the command's name: state(3) ppid pgrp session(6) … rss(24).
            if int(fields[3]) != sid:
                continue
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmdline = f.read()
            with open("/proc/%s/status" % entry, "rb") as f:
                hwm = next((int(line.split()[1]) * 1024 for line in f
                            if line.startswith(b"VmHWM:")), 0)
        except (OSError, IndexError, ValueError):
            continue  # it ended meanwhile
        seen[int(entry)] = (int(fields[1]), int(fields[21]) * page, hwm, cmdline)
    processes = {}
    for pid, (parent, rss, hwm, cmdline) in seen.items():
        if parent in seen and seen[parent][3] == cmdline:
            continue  # between fork and exec
        processes[pid] = (parent, rss, hwm)
    return processes


def run_sampled(cmd, timeout, prepare=None):
    """Runs `cmd` as run_once does, watching its processes: returns (exit code or None on
    timeout, seconds, stderr text, memory), memory being a dict of four figures in bytes:
    - "together": the largest sum of the resident sets of the session's processes seen at
      once (every SAMPLE_INTERVAL) — what the machine held; a spike shorter than the
      interval can be missed;
    - "summed": the sum of every process's own peak (its VmHWM, as last seen), as if all had
      run at once — more than the machine ever held when they did not;
    - "largest": the peak RSS of the largest single process, as /usr/bin/time reports it;
    - "docsh": docsh's own peak (the process the command line started)."""
    if prepare:
        p = subprocess.run(["bash", "-c", prepare], cwd=CORPUS,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise HarnessError("prepare step failed: %s: %s"
                               % (prepare, p.stderr.decode(errors="replace").strip()))
    memory_file = os.path.join(TMP, "sampled.mem")
    with open(os.path.join(TMP, "sampled.err"), "w+b") as err:
        t = time.monotonic()
        # /usr/bin/time, not this process's own wait4: a child Python spawns (vfork) takes
        # the harness's high-water RSS with it into exec, and the kernel reports that as the
        # child's. /usr/bin/time is small, so the %M of its child is the command's own: the
        # largest process of the tree (ru_maxrss covers the descendants it reaped), however
        # briefly it lived.
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", memory_file, "bash", "-c", cmd],
                             cwd=CORPUS, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=err, start_new_session=True)
        together = 0
        own = {}  # pid: (parent, the largest VmHWM seen)

        def memory(single=0):
            docsh = max((hwm for parent, hwm in own.values() if parent == p.pid), default=0)
            return {"together": together, "summed": sum(hwm for _, hwm in own.values()),
                    "largest": single, "docsh": docsh}
        while p.poll() is None:
            if time.monotonic() - t > timeout:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                return None, time.monotonic() - t, "", memory()
            processes = session_processes(p.pid, skip=p.pid)
            together = max(together, sum(rss for _, rss, _ in processes.values()))
            for pid, (parent, _, hwm) in processes.items():
                own[pid] = (parent, max(hwm, own.get(pid, (0, 0))[1]))
            time.sleep(SAMPLE_INTERVAL)
        secs = time.monotonic() - t
        err.seek(0)
        text = err.read().decode("utf-8", errors="replace")
    with open(memory_file, encoding="utf-8") as f:
        words = f.read().split()
    # /usr/bin/time writes "Command exited with non-zero status N" before %M on a failure.
    single = int(words[-1]) * 1024 if words and words[-1].isdigit() else 0
    return p.returncode, secs, text, memory(single)


def write_files_tree(store_json, dest):
    """Writes the documents of `store_json` as docsh commits them (RepositoryLayout): a
    folder per category with its `.docsh-category` record, a file NAME.md per document with
    its front-matter header, so that plain git is given the very bytes docsh commits. Reads the
    store a line at a time (the format keeps a category's or a document's head on a line of
    its own), so that the harness does not hold 227 MB of JSON and its objects: that would
    slow the rows it times, and every process it starts inherits its high-water RSS."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    plain = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_")
    category = re.compile(r'^\{"id":"([^"]+)","name":"([^"]+)","documents":\[')
    folder = None
    with open(store_json, encoding="utf-8") as f:
        for line in f:
            m = category.match(line)
            if m:
                cid, name = m.groups()
                if not set(name) <= plain:
                    raise HarnessError("category name %r would need FileNameEncoding" % name)
                folder = os.path.join(dest, name)
                os.makedirs(folder)
                with open(os.path.join(folder, ".docsh-category"), "w", encoding="utf-8",
                          newline="") as out:
                    out.write("---\nid: %s\nname: %s\n---\n" % (cid, name))
                line = line[m.end():]
            line = line.strip().rstrip("]},").rstrip()
            if not line.startswith('{"id":') or '"content":' not in line:
                continue
            d = json.loads(line if line.endswith("}") else line + "}")
            if not set(d["name"]) <= plain:
                raise HarnessError("document name %r would need FileNameEncoding" % d["name"])
            with open(os.path.join(folder, d["name"] + ".md"), "w", encoding="utf-8",
                      newline="") as out:
                out.write("---\nid: %s\nmodified: %s\n---\n%s" % (
                    d["id"], d["modified"], d["content"]))


def repository_bytes(git_dir):
    """What a repository holds before any gc: `git count-objects -v`, size + size-pack."""
    fields = dict(line.split(": ", 1) for line in
                  git("--git-dir", git_dir, "count-objects", "-v").splitlines() if ": " in line)
    return (int(fields["size"]) + int(fields["size-pack"])) * 1024


def largest_document(store_json):
    """The largest content in the store, in bytes (the `size` of each document's line)."""
    largest = 0
    pattern = re.compile(rb'"size":(\d+)')
    with open(store_json, "rb") as f:
        for line in f:
            m = pattern.search(line)
            if m:
                largest = max(largest, int(m.group(1)))
    return largest


def largest_blob(git_dir):
    out = git("--git-dir", git_dir, "cat-file", "--batch-all-objects",
              "--batch-check=%(objecttype) %(objectsize)")
    return max((int(size) for kind, size in (l.split() for l in out.splitlines())
                if kind == "blob"), default=0)


def measured_row(row, docsh_cmd, anchor_cmd, docsh_prep=None, anchor_prep=None, expect=None,
                 peaks=None, what=""):
    """timed_row for a sync: docsh's probe runs under run_sampled (its peak memory goes to
    `peaks`, labelled `what`), and in full mode a pair whose probes are slow
    (SINGLE_RUN_SECONDS) is measured by those probes alone, one run each."""
    if skipped(row):
        return row
    raw_docsh_prep, raw_anchor_prep = docsh_prep, anchor_prep
    docsh_prep = docsh_prep and docsh_prep + " && sync"
    anchor_prep = anchor_prep and anchor_prep + " && sync"
    rc, secs, err, memory = run_sampled(docsh_cmd, CFG["probe_timeout"], prepare=docsh_prep)
    if rc != 0:
        fail(row, rc, err)
        rc_a, secs_a, err_a, _ = run_sampled(anchor_cmd, CFG["probe_timeout"],
                                             prepare=anchor_prep)
        if rc_a == 0:
            row["anchor"] = secs_a
        return row
    if peaks is not None:
        peaks.append((memory, what))
    if expect and not expect(None):
        row["notes"].append("docsh exited 0 but its result looks wrong")
    rc_a, secs_a, err_a, _ = run_sampled(anchor_cmd, CFG["probe_timeout"], prepare=anchor_prep)
    if rc_a != 0:
        raise HarnessError("anchor of row %d failed (%s): %s" % (
            row["n"], "timeout" if rc_a is None else "exit %d" % rc_a, first_line(err_a)))
    # Quick mode proves the harness: one run each is enough, and keeps the rows cheap.
    if MODE == "quick" or max(secs, secs_a) > SINGLE_RUN_SECONDS:
        row["docsh"], row["anchor"], row["runs"] = secs, secs_a, 1
        row["ratio"] = secs / secs_a
        row["status"] = "ok"
        row["docsh_label"] = "one run each"
        return row
    notes = row["notes"]
    # The probes ran; timed_row probes again (cheap: these are the fast pairs) and times both.
    timed_row(row, docsh_cmd, anchor_cmd, docsh_prep=raw_docsh_prep, anchor_prep=raw_anchor_prep)
    row["notes"] = notes + [n for n in row["notes"] if n not in notes]
    return row


def sync_rows(new_row, docsh, info, first):
    """The sync rows of one corpus (sync_block); when docsh fails in a step of their set-up,
    the row being made and those not made yet fail with its message."""
    made = []

    def new_sync_row(n, *args, **kwargs):
        made.append(new_row(n, *args, **kwargs))
        return made[-1]
    try:
        sync_block(new_sync_row, docsh, info, first)
    except SetupFailed as e:
        if made and made[-1]["status"] == "?":
            fail(made[-1], 1, "set-up: " + str(e))
        label = "sync (%s, %s)" % (info["name"], shape(info))
        for n in range(first + len(made), first + SYNC_ROW_COUNT):
            fail(new_sync_row(n, label, 1), 1, "set-up of an earlier row failed: " + str(e))


def sync_block(new_row, docsh, info, first):
    """SYNC_ROW_COUNT rows of sync on the corpus `info`, numbered from `first`. Machine A is a
    copy of the store made a docsh repository by its first `sync REMOTE` (a bare repository
    in a local folder), U an unsynced copy of it, B a second machine (an empty store path)
    whose first `sync REMOTE` builds its store from the remote."""
    D = sq(docsh)
    name = info["name"]
    source = os.path.join(CORPUS, info["dir"], "store.json")
    size = info["stats"]["json_bytes"]
    docs = info["stats"]["documents"]
    base = os.path.join(TMP, "sync-" + name)
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    A, U, B = (os.path.join(base, m, "store.json") for m in ("A", "U", "B"))
    remote = os.path.join(base, "remote.git")
    files = os.path.join(base, "files")  # the documents as files, for the anchors
    anchor_remote = os.path.join(base, "anchor.git")
    clone = os.path.join(base, "clone")
    a_git = os.path.join(base, "A", ".git")
    S = sq

    def docsh_c(store, command, save=True):
        return "%s %s-s %s -c %s" % (D, "" if save else "--no-save ", S(store), S(command))

    def index_copy(store):
        """Copies the store to `store` and opens it once, which builds its index (as in
        daily use, where a store is indexed long before it is synced)."""
        return "rm -rf %s && mkdir -p %s && cp %s %s && %s" % (
            S(os.path.dirname(store)), S(os.path.dirname(store)), S(source), S(store),
            docsh_c(store, "pwd", save=False))

    peaks = []  # (memory, which sync) of every sync whose probe was watched
    label = "%s, %s" % (name, shape(info))
    append_a = docsh_c(A, 'append "%s" one line' % SYNC_DOC)
    rows_here = list(range(first, first + SYNC_ROW_COUNT))
    if SELECTED and not SELECTED & set(rows_here):
        for n in rows_here:
            new_row(n, "sync (%s)" % label, 1)["status"] = "skipped"
        return
    # Every row stands on the ones before (A synced, then B, …): a row left out by --rows
    # still does its set-up, untimed, so that the rows asked for see the same state.
    selected = lambda n: not SELECTED or n in SELECTED

    # --- first sync
    r = new_row(first, "first `sync REMOTE` (%s, %s) — a store becomes a repository, pushed"
                % (label, fmt_mb(size)), 1,
                anchor_label="`git init; add -A; commit; push` of the same files")
    log("   writing the documents as files for the anchors")
    write_files_tree(source, files)
    first_sync = docsh_c(A, "sync " + remote)
    first_prep = "%s && rm -rf %s && git init -q --bare %s" % (index_copy(A), S(remote), S(remote))
    # gc.auto=0: the commit of 100,000 loose objects would start `git gc --auto`, detached,
    # repacking in the background through the rows that follow.
    anchor = ("cd %s && git init -q && git add -A && git -c gc.auto=0 commit -q -m first && "
              "git push -q %s HEAD:main" % (S(files), S(anchor_remote)))
    anchor_prep = "rm -rf %s/.git %s && git init -q --bare %s" % (
        S(files), S(anchor_remote), S(anchor_remote))
    if selected(first):
        measured_row(r, first_sync, anchor, first_prep, anchor_prep, peaks=peaks,
                     what="first sync",
                     expect=lambda _: has_branch(remote))
        r["per_unit"] = (docs, "document of the store")
    else:
        r["status"] = "skipped"
        run_setup(first_prep + " && " + first_sync)
    if not os.path.isdir(a_git):
        for n in rows_here[1:]:
            fail(new_row(n, "sync (%s)" % label, 1), 1, "no repository: the first sync failed")
        return

    # --- a save in a synced store
    r = new_row(first + 1, "`append` one line + save in the synced store (%s)" % label, 1.2,
                anchor_label="the same save in an unsynced copy")
    run_setup(index_copy(U))
    if selected(first + 1):
        before = commit_count(a_git)
        measured_row(r, append_a, docsh_c(U, 'append "%s" one line' % SYNC_DOC))
        if r["status"] == "ok" and commit_count(a_git) <= before:
            r["notes"].append("the saves made no commit")
    else:
        r["status"] = "skipped"

    # --- growth per save
    r = new_row(first + 2, "repository growth per save (`append` + save, %d saves, %s; "
                "`count-objects` size + size-pack, no gc)" % (GROWTH_SAVES, label), 1,
                docsh_label="per save", anchor_label="%d KiB a save" % (GROWTH_BUDGET // 1024))
    r["unit"] = fmt_kib
    if selected(first + 2):
        start = repository_bytes(a_git)
        commits = commit_count(a_git)
        t = time.monotonic()
        for _ in range(GROWTH_SAVES):
            run_setup(append_a)
        secs = time.monotonic() - t
        grown = (repository_bytes(a_git) - start) / GROWTH_SAVES
        r.update(docsh=grown, anchor=GROWTH_BUDGET, ratio=grown / GROWTH_BUDGET, status="ok",
                 runs=GROWTH_SAVES)
        r["op"] += " — %s a save" % fmt_time(secs / GROWTH_SAVES)
        if commit_count(a_git) - commits != GROWTH_SAVES:
            r["notes"].append("%d saves made %d commits" % (
                GROWTH_SAVES, commit_count(a_git) - commits))
    else:
        r["status"] = "skipped"
    run_setup(docsh_c(A, "sync"))  # the remote gets A's saves: B and the clones see them

    # --- a second machine
    r = new_row(first + 3, "a second machine's first `sync REMOTE` (empty store path, %s)"
                % label, 1.5, anchor_label="`git clone file://REMOTE`")
    second = docsh_c(B, "sync " + remote)
    second_prep = "rm -rf %s" % S(os.path.dirname(B))
    if selected(first + 3):
        measured_row(r, second, "git clone -q file://%s %s" % (remote, S(clone)),
                     second_prep, "rm -rf %s" % S(clone), peaks=peaks,
                     what="second machine's first sync",
                     expect=lambda _: same_document(docsh_c, A, B, SYNC_DOC))
        r["per_unit"] = (docs, "document of the store")
    else:
        r["status"] = "skipped"
        run_setup(second_prep + " && " + second)
    if not os.path.isdir(os.path.join(base, "B", ".git")):
        for n in rows_here[4:]:
            fail(new_row(n, "sync (%s)" % label, 1), 1, "no machine B: its first sync failed")
        return

    # --- a sync bringing in one changed document
    r = new_row(first + 4, "`sync` on B bringing in one document changed on A (%s)" % label, 2,
                anchor_label="`git fetch` + `git merge` of the same change in a plain clone")
    # A fresh change every run: the line names the moment the prepare step ran. Each side's
    # prepare step first catches its side up (the other side's runs pushed changes too), so
    # that each timed run, B's and the plain clone's alike, brings in exactly one change.
    change = ('%s -s %s -c "append \\"%s\\" changed on A at $(date +%%s%%N)" && %s'
              % (D, S(A), INCOMING_DOC, docsh_c(A, "sync")))
    plain = os.path.join(base, "plain-clone")
    run_setup("rm -rf %s && git clone -q %s %s" % (S(plain), S(remote), S(plain)))
    fetch_merge = "git -C %s fetch -q && git -C %s merge -q --ff-only '@{u}'" % (S(plain), S(plain))
    if selected(first + 4):
        measured_row(r, docsh_c(B, "sync"), fetch_merge,
                     docsh_prep=docsh_c(B, "sync") + " && " + change,
                     anchor_prep=fetch_merge + " && " + change,
                     peaks=peaks, what="sync bringing in one change",
                     expect=lambda _: same_document(docsh_c, A, B, INCOMING_DOC))
        r["per_unit"] = (1, "changed document")
    else:
        r["status"] = "skipped"

    # --- log
    versions = int(git("--git-dir", a_git, "rev-list", "--count", "HEAD", "--", SYNC_FILE))
    r = new_row(first + 5, "`log NAME` of a document with %d versions (%s, synced store A)"
                % (versions, label), 2, anchor_label="`git log --oneline -- FILE` in a clone")
    if selected(first + 5):
        run_setup("rm -rf %s && git clone -q --no-checkout %s %s" % (S(clone), S(remote), S(clone)))
        wanted = versions

        def same_count(path):
            with open(path, "rb") as f:
                return f.read().count(SYNC_DOC.encode().lstrip(b"/")) == wanted
        timed_row(r, docsh_c(A, 'log "%s"' % SYNC_DOC, save=False),
                  "git -C %s log --oneline -- %s" % (S(clone), S(SYNC_FILE)), shell=False,
                  expect=same_count)
        r["per_unit"] = (versions, "version")
    else:
        r["status"] = "skipped"

    # --- the largest blob
    r = new_row(first + 6, "largest file (blob) in the remote (%s)" % label, 1,
                docsh_label="largest blob",
                anchor_label="largest document + %d KB" % (BLOB_SLACK // 1024))
    r["unit"] = fmt_kib
    if selected(first + 6):
        blob, document = largest_blob(remote), largest_document(A)
        r.update(docsh=blob, anchor=document + BLOB_SLACK, ratio=blob / (document + BLOB_SLACK),
                 status="ok", runs=1)
    else:
        r["status"] = "skipped"

    # --- memory
    r = new_row(first + 7, "peak RSS of any sync, docsh and its git processes (%s)" % label, 0.5,
                docsh_label="peak", anchor_label="size of store.json")
    r["unit"] = fmt_mb
    if selected(first + 7):
        # The same two first syncs with an encrypted remote: every sync the row names.
        peaks += encrypted_sync_peaks(D, source, base, index_copy, r)
        if not peaks:
            fail(r, 1, "no sync ran to completion")
        else:
            # The verdict is on what the machine held at once (or the largest process, if
            # sampling missed its spike), not on the sum of every process's own peak: the
            # processes of a sync run one after another (fast-import, then push's
            # pack-objects, then diff-tree), and the sum counts memory the kernel had
            # already taken back. Both are printed for every sync.
            held = lambda m: max(m["together"], m["largest"])
            memory, what = max(peaks, key=lambda p: held(p[0]))
            peak = held(memory)
            r.update(docsh=peak, anchor=size, ratio=peak / size, status="ok", runs=len(peaks))
            r["docsh_label"] = "%s; verdict on the peak held at once. Each sync: %s" % (
                what, "; ".join(
                    "%s: held at once %s (%.2f×, %.0f B a document), each process's own peak "
                    "summed %s (%.2f×), largest process %s, docsh alone %s" % (
                        each, fmt_mb(held(m)), held(m) / size, held(m) / docs,
                        fmt_mb(m["summed"]), m["summed"] / size, fmt_mb(m["largest"]),
                        fmt_mb(m["docsh"]))
                    for m, each in peaks))
            r["per_unit"] = (docs, "document of the store")
    else:
        r["status"] = "skipped"


def encrypted_sync_peaks(D, source, base, index_copy, row):
    """The peak memory of a first `sync --encrypt REMOTE` of a copy of `source` (machine E)
    and of a second machine's first sync from that remote (F), as run_sampled measures it:
    [(memory, which sync)]. A sync that fails is a note of `row`, and no peak."""
    S = sq
    passphrase = os.path.join(base, "passphrase")
    with open(passphrase, "w", encoding="utf-8") as f:
        f.write("a bench passphrase\n")
    E, F = (os.path.join(base, m, "store.json") for m in ("E", "F"))
    remote = os.path.join(base, "encrypted.git")

    def docsh_c(store, command):
        return "DOCSH_PASSPHRASE_FILE=%s %s -s %s -c %s" % (S(passphrase), D, S(store), S(command))
    peaks = []
    for what, cmd, prep in (
            ("first sync to an encrypted remote", docsh_c(E, "sync --encrypt " + remote),
             "%s && rm -rf %s && git init -q --bare %s && sync" % (
                 index_copy(E), S(remote), S(remote))),
            ("second machine's first sync from an encrypted remote", docsh_c(F, "sync " + remote),
             "rm -rf %s && sync" % S(os.path.dirname(F)))):
        rc, secs, err, memory = run_sampled(cmd, CFG["probe_timeout"], prepare=prep)
        if rc != 0:
            row["notes"].append("%s failed (%s): %s" % (
                what, "timeout" if rc is None else "exit %d" % rc, first_line(err)))
            break
        peaks.append((memory, what))
    return peaks


# ---------------------------------------------------------------- encrypted sync (issue 39)
#
# The same sync to an end-to-end encrypted remote (`sync --encrypt`: every document an age
# file) against a plain remote, in one run: the cost of encrypting, in the first sync and in
# a synced save. The large store in full mode, the personal one in quick mode.

ENCRYPTED_FIRST_ROW = 62


def encrypted_sync_rows(new_row, docsh, info):
    """Rows 62 (first sync, encrypted vs plain) and 63 (`append` + `sync`, encrypted vs
    plain) on the corpus `info`: machine E syncs with an encrypted remote, P with a plain
    one, both copies of the same indexed store."""
    first = ENCRYPTED_FIRST_ROW
    rows_here = [first, first + 1]
    if SELECTED and not SELECTED & set(rows_here):
        for n in rows_here:
            new_row(n, "encrypted sync", 1)["status"] = "skipped"
        return
    D = sq(docsh)
    S = sq
    name = info["name"]
    source = os.path.join(CORPUS, info["dir"], "store.json")
    base = os.path.join(TMP, "encrypted-" + name)
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    passphrase = os.path.join(base, "passphrase")
    with open(passphrase, "w", encoding="utf-8") as f:
        f.write("a bench passphrase\n")
    E, P = (os.path.join(base, m, "store.json") for m in ("E", "P"))
    remote_e, remote_p = (os.path.join(base, r) for r in ("encrypted.git", "plain.git"))
    env = "DOCSH_PASSPHRASE_FILE=%s " % S(passphrase)

    def docsh_c(store, command, save=True):
        return "%s%s %s-s %s -c %s" % (env, D, "" if save else "--no-save ", S(store), S(command))

    def prep(store, remote):
        return ("rm -rf %s %s && mkdir -p %s && cp %s %s && %s && git init -q --bare %s" % (
            S(os.path.dirname(store)), S(remote), S(os.path.dirname(store)), S(source), S(store),
            docsh_c(store, "pwd", save=False), S(remote)))

    label = "%s, %s" % (name, shape(info))
    r = new_row(first, "first `sync --encrypt REMOTE` (%s, %s) — every document an age file"
                % (label, fmt_mb(info["stats"]["json_bytes"])), 1.5,
                anchor_label="first `sync REMOTE` to a plain remote")
    try:
        if selected_row(first):
            measured_row(r, docsh_c(E, "sync --encrypt " + remote_e),
                         docsh_c(P, "sync " + remote_p), prep(E, remote_e), prep(P, remote_p),
                         expect=lambda _: has_branch(remote_e))
            r["per_unit"] = (info["stats"]["documents"], "document of the store")
        else:
            r["status"] = "skipped"
        if not has_branch(remote_e):
            run_setup(prep(E, remote_e) + " && " + docsh_c(E, "sync --encrypt " + remote_e))
        if not has_branch(remote_p):
            run_setup(prep(P, remote_p) + " && " + docsh_c(P, "sync " + remote_p))
    except SetupFailed as e:
        fail(r, 1, "set-up: " + str(e))
        fail(new_row(first + 1, "encrypted sync (%s)" % label, 1.2), 1,
             "set-up of an earlier row failed: " + str(e))
        return

    r = new_row(first + 1, "`append` one line + `sync` with an encrypted remote (%s)" % label,
                1.2, anchor_label="the same with a plain remote")
    if selected_row(first + 1):
        command = 'append "%s" one line' % SYNC_DOC
        measured_row(r, docsh_c(E, command + "; sync"), docsh_c(P, command + "; sync"))
        r["per_unit"] = (1, "synced save")
    else:
        r["status"] = "skipped"


def selected_row(n):
    """Whether row `n` is to be measured (all rows when --rows names none)."""
    return not SELECTED or n in SELECTED


class SetupFailed(Exception):
    """docsh failed in an untimed step that the sync rows after it stand on."""


def run_setup(cmd):
    """An untimed step of a row's set-up. docsh failing here fails the rows that stand on it
    (SetupFailed), not the harness."""
    p = subprocess.run(["bash", "-c", cmd], cwd=CORPUS, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SetupFailed(p.stderr.decode("utf-8", errors="replace"))


def commit_count(git_dir):
    return int(git("--git-dir", git_dir, "rev-list", "--count", "HEAD").strip() or 0)


def same_document(docsh_c, a, b, name):
    """Whether machines A and B hold the same content for the document `name`."""
    texts = []
    for store in (a, b):
        p = subprocess.run(["bash", "-c", docsh_c(store, 'cat "%s"' % name, save=False)],
                           cwd=CORPUS, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        if p.returncode != 0:
            return False
        texts.append(p.stdout)
    return texts[0] == texts[1]


def has_branch(git_dir, branch="main"):
    """Whether the repository has `branch` (the remote, after a push)."""
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "-q", "--verify", branch],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


if __name__ == "__main__":
    try:
        main()
    except HarnessError as e:
        log("harness error: %s" % e)
        sys.exit(2)
