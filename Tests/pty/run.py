#!/usr/bin/env python3
"""docsh through a pseudo-terminal: what only a terminal shows.

    DOCSH=$(swift build --show-bin-path)/docsh /usr/bin/python3 Tests/pty/run.py [NAME…]

Every `test_*` function runs in its own temporary folder (HOME, store, history, TMPDIR)
with a fixed environment and window. Prints `ok NAME` or `FAIL NAME: reason` per test,
then `N passed, M failed`; the exit status is 1 when any failed. Standard library and
pexpect only (Debian: python3-pexpect).

Screens are not compared exactly: libedit redraws with cursor moves (`\\r\\x1b[13G`),
clears lines and rings the bell on completion. Output is matched by regular expressions
on a cleaned copy (escape sequences, `\\r`, `\\a` and backspaces removed); the raw bytes
are kept for the tests about escape sequences.
"""

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import pexpect

DOCSH = os.environ.get("DOCSH", "")
# How long any wait lasts before it fails: a deadline for a hang, never a bet on speed. Every
# wait returns as soon as what it waits for comes, so a fast machine never waits this long
# and a slow or loaded one (a debug binary, two cores shared with other builds) still passes.
TIMEOUT = 60.0
DIMENSIONS = (24, 200)

# What libedit and terminals add around text: CSI sequences, OSC titles, charset and keypad
# switches, the bell, carriage returns and backspaces.
NOISE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[()][0-9A-Za-z]"
    r"|\x1b[=>78]"
    r"|[\x07\r\x08]"
)


def clean(text):
    """`text` without the escape sequences and control bytes of line editing."""
    return NOISE.sub("", text)


class Failure(Exception):
    """A check that did not hold; its message is the test's one-line reason."""


def check(condition, reason):
    if not condition:
        raise Failure(reason)


def tail(text, count=240):
    return repr(text[-count:])


# MARK: - A terminal session


class Match:
    """What `Terminal.expect` found: the pattern's index, the match, the cleaned text before it."""

    def __init__(self, index, match, before):
        self.index = index
        self.match = match
        self.before = before


class Terminal:
    """docsh in a pseudo-terminal, with its output matched on a cleaned copy."""

    def __init__(self, child):
        self.child = child
        self.pending = ""  # output not yet consumed by a match, cleaned when searched
        self.raw = ""  # raw output read since the last match
        self.last_match_raw = ""  # the raw output read by the last expect, escapes included
        self.ended = False

    def send(self, text):
        self.child.send(text)

    def line(self, text):
        """Types `text` and Enter (a carriage return, as a terminal sends it)."""
        self.child.send(text + "\r")

    def _read(self, timeout):
        try:
            data = self.child.read_nonblocking(65536, timeout)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            self.ended = True
            return
        self.pending += data
        self.raw += data

    def expect(self, *patterns, timeout=TIMEOUT, what=None):
        """Waits for the first of `patterns` (regular expressions) in the cleaned output;
        fails naming `what` and showing the tail of what was seen when none comes."""
        regexes = [re.compile(pattern) for pattern in patterns]
        deadline = time.monotonic() + timeout
        while True:
            text = clean(self.pending)
            found = None
            for index, regex in enumerate(regexes):
                match = regex.search(text)
                if match and (found is None or match.start() < found[1].start()):
                    found = (index, match)
            if found:
                index, match = found
                result = Match(index, match, text[: match.start()])
                self.pending = text[match.end():]
                self.last_match_raw = self.raw
                self.raw = ""
                return result
            if self.ended or time.monotonic() >= deadline:
                state = "docsh ended" if self.ended else f"nothing within {timeout:g} s"
                raise Failure(
                    f"expected {what or ' or '.join(map(repr, patterns))}: {state}; "
                    f"saw {tail(text)}"
                )
            self._read(min(0.1, max(0.01, deadline - time.monotonic())))

    def prompt(self, path="/", dirty=False, what=None):
        """Waits for `docsh:PATH> ` (or `docsh:PATH*> `) and returns what came before it."""
        text = prompt_text(path, dirty)
        return self.expect(re.escape(text), what=what or f"the prompt {text!r}").before

    def run(self, command, path="/", dirty=False):
        """Types `command`, waits for the prompt, and returns the output: the cleaned text
        after the echoed line up to the prompt."""
        self.line(command)
        before = self.prompt(path, dirty, what=f"the prompt {prompt_text(path, dirty)!r} after {command!r}")
        _, _, output = before.partition("\n")
        return output

    def exit_status(self, timeout=TIMEOUT):
        """Waits for docsh to end; its exit status (128+N when killed by signal N)."""
        deadline = time.monotonic() + timeout
        while not self.ended and time.monotonic() < deadline:
            self._read(0.1)
        check(self.ended, f"docsh did not end within {timeout:g} s; saw {tail(clean(self.pending))}")
        self.child.close()
        if self.child.signalstatus is not None:
            return 128 + self.child.signalstatus
        return self.child.exitstatus

    def close(self):
        if self.child.isalive():
            self.child.close(force=True)


def prompt_text(path="/", dirty=False):
    """The prompt: `docsh:/Work> `, or `docsh:/Work*> ` with unsaved changes."""
    return f"docsh:{path}{'*' if dirty else ''}> "


# MARK: - A sandbox per test


class Sandbox:
    """A temporary folder holding HOME, the store, the history and TMPDIR of one test."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="docsh-pty-")
        self.home = self.path("home")
        self.tmp = self.path("tmp")
        os.mkdir(self.home)
        os.mkdir(self.tmp)
        self.store = self.path("store.json")
        self.history = self.path("state/history")
        self.terminals = []

    def path(self, name):
        return os.path.join(self.root, name)

    def environment(self, **changes):
        """The fixed environment: no VISUAL or EDITOR, no colors, UTC, UTF-8; a change of
        None removes the variable."""
        environment = {
            "PATH": "/usr/bin:/bin",
            "HOME": self.home,
            "TMPDIR": self.tmp,
            "DOCSH_STORE": self.store,
            "DOCSH_HISTORY": self.history,
            "TERM": "xterm",
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            # A -c run folds the save log before it ends (the background fold has tests of
            # its own), so that what a test reads of the store file is whole at once.
            "DOCSH_FOLD": "foreground",
            "TZ": "UTC",
        }
        for key, value in changes.items():
            if value is None:
                environment.pop(key, None)
            else:
                environment[key] = value
        return environment

    def spawn(self, *arguments, dimensions=DIMENSIONS, **changes):
        """docsh in a pseudo-terminal of `dimensions` (rows, columns); waits for nothing."""
        child = pexpect.spawn(
            DOCSH,
            list(arguments),
            env=self.environment(**changes),
            dimensions=dimensions,
            encoding="utf-8",
            codec_errors="replace",
            timeout=TIMEOUT,
            cwd=self.root,
        )
        terminal = Terminal(child)
        self.terminals.append(terminal)
        return terminal

    def start(self, *arguments, dimensions=DIMENSIONS, **changes):
        """docsh in a pseudo-terminal, once its first prompt is shown."""
        terminal = self.spawn(*arguments, dimensions=dimensions, **changes)
        terminal.prompt()
        return terminal

    def docsh(self, *arguments, input=None, **changes):
        """docsh without a terminal (standard input a pipe or /dev/null); returns the
        completed process with its output as bytes."""
        return subprocess.run(
            [DOCSH, *arguments],
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            capture_output=True,
            env=self.environment(**changes),
            cwd=self.root,
            timeout=TIMEOUT,
        )

    def setup(self, script):
        """Runs `script` non-interactively (saved at the end); fails the test if it fails."""
        result = self.docsh("-c", script)
        check(
            result.returncode == 0,
            f"setup {script!r} failed ({result.returncode}): {result.stderr.decode(errors='replace')!r}",
        )

    def listing(self, *arguments):
        """`ls` of a fresh non-interactive run, without saving."""
        result = self.docsh("--no-save", "-c", " ".join(["ls", *arguments]))
        check(result.returncode == 0, f"docsh -c 'ls' failed: {result.stderr!r}")
        return result.stdout.decode(errors="replace")

    def close(self):
        for terminal in self.terminals:
            terminal.close()
        shutil.rmtree(self.root, ignore_errors=True)


def sandboxed(test):
    """Gives the test a sandbox and always cleans it up."""

    def run():
        sandbox = Sandbox()
        try:
            test(sandbox)
        finally:
            sandbox.close()

    run.__name__ = test.__name__
    run.__doc__ = test.__doc__
    return run


# Where completion happens libedit may ring the bell, even on a unique match: the cleaned text
# has no `\a`, so the patterns below never mention it.


def complete(terminal, typed, inserted, what):
    """Types `typed` then Tab, and waits for `inserted` (plain text) on the line."""
    terminal.send(typed)
    terminal.expect(re.escape(typed), what=f"the echo of {typed!r}")
    terminal.send("\t")
    terminal.expect(re.escape(inserted), what=f"{what}: Tab after {typed!r} inserting {inserted!r}")


# MARK: - 1. The prompt


@sandboxed
def test_prompt_shows_location_and_unsaved_changes(sandbox):
    sandbox.setup("mkdir Work")
    terminal = sandbox.spawn()
    terminal.prompt("/", what="the prompt 'docsh:/> ' at the start")
    terminal.run("cd Work", "/Work")
    terminal.run("new Plan Ship it", "/Work", dirty=True)
    terminal.run("save", "/Work")
    terminal.run("cd ..", "/")
    # The clean prompt after save must really be clean: a change makes the star come back.
    terminal.run("mkdir Later", "/", dirty=True)


# MARK: - 2. Tab completion


@sandboxed
def test_completion_of_command_name(sandbox):
    terminal = sandbox.start()
    complete(terminal, "mk", "dir ", "a command name")
    terminal.run("Done", dirty=True)
    output = terminal.run("ls", dirty=True)
    check(re.search(r"^Done/", output, re.M), f"'mk<TAB>Done' did not create Done; ls shows {output!r}")


@sandboxed
def test_completion_of_category_name_with_spaces(sandbox):
    terminal = sandbox.start()
    terminal.run('mkdir "Meeting Notes" Plans', dirty=True)
    terminal.run("save")
    complete(terminal, "cd Mee", "ting\\ Notes/", "a category name with a space")
    terminal.line("")
    terminal.prompt("/Meeting Notes", what="the prompt 'docsh:/Meeting Notes> ' after cd Mee<TAB>")


@sandboxed
def test_completion_of_half_typed_escaped_name(sandbox):
    sandbox.setup('mkdir "Meeting Notes" Plans')
    terminal = sandbox.start()
    complete(terminal, "cd Meeting\\ N", "otes/", "a half-typed escaped name")
    terminal.line("")
    terminal.prompt("/Meeting Notes", what="the prompt 'docsh:/Meeting Notes> ' after cd Meeting\\ N<TAB>")


@sandboxed
def test_completion_of_document_name(sandbox):
    # A category "Plans" beside: completing categories instead of documents would give "ans/".
    sandbox.setup("mkdir Work Plans\ncd Work\nnew Plan Ship it on Friday")
    terminal = sandbox.start()
    terminal.run("cd Work", "/Work")
    complete(terminal, "cat Pl", "an ", "a document name")
    output = terminal.run("", "/Work")
    check("Ship it on Friday" in output, f"cat Pl<TAB> did not show Plan; saw {output!r}")


@sandboxed
def test_completion_after_help(sandbox):
    terminal = sandbox.start()
    complete(terminal, "help mk", "dir ", "a command name after help")
    output = terminal.run("")
    check("usage: mkdir" in output, f"help mk<TAB> did not show mkdir's help; saw {output!r}")


@sandboxed
def test_completion_for_import_and_export(sandbox):
    sandbox.setup("mkdir Work Plans")
    with open(sandbox.path("notes-file.txt"), "w") as file:
        file.write("from a file\n")
    terminal = sandbox.start()
    terminal.run("cd Work", "/Work")
    # import takes file paths (docsh runs in the sandbox's root folder).
    complete(terminal, "import notes-f", "ile.txt ", "a file path after import")
    terminal.run("", "/Work", dirty=True)
    output = terminal.run("cat notes-file.txt", "/Work", dirty=True)
    check(output == "from a file\n", f"import notes-f<TAB> did not import the file; cat shows {output!r}")
    # export takes a file path, then categories.
    complete(terminal, "export out Wo", "rk/", "a category after export's folder")
    terminal.run("", "/Work", dirty=True)
    check(os.path.exists(sandbox.path("out/Work/notes-file.txt.md")), "export out Wo<TAB> did not export Work")


@sandboxed
def test_completion_of_tag_names(sandbox):
    # A document named "project-plan" beside: completing documents instead of tags would
    # give "ject-plan ", not the tag.
    sandbox.setup(
        "mkdir Work\ncd Work\nnew project-plan p\nnew Notes n\n"
        "tag project-plan project/docsh Urgent"
    )
    terminal = sandbox.start()
    terminal.run("cd Work", "/Work")
    complete(terminal, "tag Notes pro", "ject/docsh ", "a tag name after tag NAME")
    terminal.run("", "/Work", dirty=True)
    complete(terminal, "find --tag URG", "ent ", "a tag name after --tag, ignoring case")
    output = terminal.run("", "/Work", dirty=True)
    check("Work/project-plan" in output, f"find --tag URG<TAB> did not find; saw {output!r}")
    complete(terminal, "untag Notes pro", "ject/docsh ", "a tag name after untag NAME")
    # Untagged again, Notes is as saved: nothing is left unsaved.
    terminal.run("", "/Work")
    output = terminal.run("tags", "/Work")
    check(re.search(r"^project/docsh\s+1$", output, re.M), f"untag did not take it off; tags shows {output!r}")


@sandboxed
def test_completion_of_link_targets_after_double_brackets(sandbox):
    # Roadmap is the only one of its name: offered bare. Two categories hold a Shop:
    # offered as Category/Name, so that the link names one.
    sandbox.setup(
        "mkdir Work Home Garden\nnew Home/Roadmap r\nnew Home/Shop s\nnew Garden/Shop g\n"
        "new Work/Plan p"
    )
    terminal = sandbox.start()
    terminal.run("cd Work", "/Work")
    complete(terminal, "append Plan 'see [[Road", "map]]", "a unique name after [[")
    terminal.send("'")
    terminal.run("", "/Work", dirty=True)
    output = terminal.run("links Plan", "/Work", dirty=True)
    check("[[Roadmap]] -> Home/Roadmap" in output, f"[[Road<TAB> did not link Roadmap; links shows {output!r}")
    terminal.send("append Plan '[[Sh")
    terminal.expect(re.escape("[[Sh"), what="the echo of [[Sh")
    terminal.send("\t\t")
    terminal.expect(
        r"Garden/Shop\]\]\s+\[\[Home/Shop\]\]\s+\S*docsh:/Work\*> append Plan '\[\[Sh",
        what="both Category/Name candidates listed, and [[Sh kept",
    )
    # Backspace twice, then a category: its documents.
    terminal.send("\x7f\x7fGarden/S\t")
    terminal.expect(re.escape("hop]]"), what="Tab after [[Garden/S completing Garden/Shop")
    terminal.send("'")
    terminal.run("", "/Work", dirty=True)
    output = terminal.run("links Plan", "/Work", dirty=True)
    check("[[Garden/Shop]] -> Garden/Shop" in output, f"[[Ga<TAB> did not link Garden/Shop; links shows {output!r}")


@sandboxed
def test_multibyte_keys_are_read_as_characters(sandbox):
    # Each key arrives as several bytes: one Backspace must remove the whole character,
    # and completion must hand over and insert whole characters.
    terminal = sandbox.start()
    terminal.send("mkdir é東京X")
    terminal.expect("mkdir é東京X", what="the echo of 'mkdir é東京X'")
    terminal.send("\x7f")
    terminal.run("", dirty=True)
    terminal.send("mkdir Ελλάδα東")
    terminal.expect("mkdir Ελλάδα東", what="the echo of 'mkdir Ελλάδα東'")
    terminal.send("\x7f\x7f")
    terminal.run("", dirty=True)
    output = terminal.run("ls", dirty=True)
    check(re.search(r"^é東京/", output, re.M), f"Backspace after X did not leave 'é東京'; ls shows {output!r}")
    check(re.search(r"^Ελλάδ/", output, re.M), f"two Backspaces did not remove '東' and 'α'; ls shows {output!r}")
    complete(terminal, "cd é", "東京/", "a name of several-byte characters")
    terminal.line("")
    terminal.prompt("/é東京", dirty=True, what="the prompt 'docsh:/é東京*> ' after cd é<TAB>")


# MARK: - 3. History


@sandboxed
def test_history_across_sessions(sandbox):
    command = "ls -r -s date"
    first = sandbox.start()
    first.run(command)
    first.send("\x04")
    status = first.exit_status()
    check(status == 0, f"the first session ended with {status}")
    check(os.path.exists(sandbox.history), f"no history file at {sandbox.history}")

    second = sandbox.start()
    second.send("\x1b[A")
    second.expect(re.escape(command), what=f"{command!r} on the line after Up arrow")
    second.line("")
    second.prompt(what=f"the prompt after running {command!r} from history")
    output = second.run("history")
    first_entry = r"^\s*1  " + re.escape(command) + r"$"
    check(re.search(first_entry, output, re.M), f"history should start with '1  {command}'; saw {output!r}")


# MARK: - 4. Ctrl-C


@sandboxed
def test_ctrl_c_drops_the_line_and_keeps_running(sandbox):
    terminal = sandbox.start()
    terminal.send("mkdir Half")
    terminal.expect("mkdir Half", what="the echo of 'mkdir Half'")
    terminal.child.sendintr()
    terminal.prompt(what="a fresh prompt after Ctrl-C (no '*': nothing ran)")
    check(terminal.child.isalive(), "docsh ended on Ctrl-C")
    # Were the half-typed line kept, Enter would run 'mkdir Halfpwd'.
    output = terminal.run("pwd")
    check(output.strip() == "/", f"pwd after Ctrl-C printed {output!r}, not '/'")
    output = terminal.run("ls")
    check("Half" not in output, f"the dropped line ran: ls shows {output!r}")


CTRL_C_ROUNDS = 120
BUSY_LOOPS = 2


class BusyLoops:
    """`count` processes spinning on the CPU while the block runs, so that docsh is often
    descheduled between two keys or in the middle of a redraw when Ctrl-C lands."""

    def __init__(self, count):
        self.count = count
        self.processes = []

    def __enter__(self):
        for _ in range(self.count):
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-c", "while True: pass"],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
            )
        return self

    def __exit__(self, *exception):
        for process in self.processes:
            process.kill()
        for process in self.processes:
            process.wait()
        return False


@sandboxed
def test_ctrl_c_right_after_typing_always_gives_a_fresh_prompt_under_load(sandbox):
    # Ctrl-C that lands while libedit is between two reads (handling a key, redrawing) must
    # still end the line: a fresh prompt every round, the half-typed line never kept.
    terminal = sandbox.start()
    # Seeded, so every run spreads the Ctrl-Cs the same way over the typing.
    pause = __import__("random").Random(20261129)
    with BusyLoops(BUSY_LOOPS):
        for round_number in range(1, CTRL_C_ROUNDS + 1):
            terminal.send("mkdir Never")
            # Mostly at once; now and then after part of the echo, so the signal also
            # lands while libedit redraws.
            if pause.random() < 0.3:
                time.sleep(pause.uniform(0, 0.003))
            terminal.child.sendintr()
            terminal.prompt(what=f"a fresh prompt after Ctrl-C in round {round_number}")
            # Were the half-typed line kept, this would run 'mkdir Neverpwd' (or 'mkpwd').
            output = terminal.run("pwd")
            check(
                output.strip() == "/",
                f"round {round_number}: pwd after Ctrl-C printed {output!r}, not '/'",
            )
    check(terminal.child.isalive(), "docsh ended during the Ctrl-C rounds")
    output = terminal.run("ls")
    check("Never" not in output, f"a dropped line ran: ls shows {output!r}")


# Ctrl-C during a command. DOCSH_TEST_PAUSE_AT=WORK holds that work at its first check for
# Ctrl-C (saying so on standard error) until Ctrl-C comes, so Ctrl-C is sent when docsh is
# provably inside the command, however fast the machine.


def pause_message(work):
    return re.escape(f"docsh: test pause: {work} waits for Ctrl-C")


def unsaved_session(sandbox, work):
    """docsh holding `work` at its first check, with an unsaved document R/Unsaved."""
    terminal = sandbox.start(DOCSH_TEST_PAUSE_AT=work)
    terminal.run("mkdir R", dirty=True)
    terminal.run("new R/Unsaved important", dirty=True)
    return terminal


def interrupt(terminal, command, work, path="/"):
    """Runs `command`, waits until it is held in `work`, then sends Ctrl-C twice (a second
    one while the first is handled must not end docsh); returns what docsh printed up to
    the prompt that follows."""
    terminal.line(command)
    terminal.expect(pause_message(work), what=f"{command!r} held in {work}")
    # Both in one write, so that the terminal takes them together: each Ctrl-C also makes
    # the terminal flush output not yet read (no NOFLSH), and a second one sent on its own
    # could land after docsh wrote its "interrupted" and discard it before it was read.
    terminal.send("\x03\x03")
    output = terminal.prompt(path, dirty=True, what=f"the prompt, still with '*', after Ctrl-C in {command!r}")
    check(terminal.child.isalive(), f"docsh ended on Ctrl-C during {command!r}")
    # The second Ctrl-C may have landed at the prompt and drawn another: wait for pwd's own
    # output, so that what follows reads from a settled terminal.
    terminal.line("pwd")
    settled = terminal.expect(
        re.escape("pwd\n") + r"((?:.*\n)*?)" + re.escape(f"{path}\n{prompt_text(path, dirty=True)}"),
        what="pwd after the Ctrl-Cs",
    )
    return output + settled.match.group(1)


def check_unsaved_kept(terminal, path="/"):
    """Checks that R/Unsaved is still there and unsaved; returns what docsh printed."""
    shown = terminal.run("cat /R/Unsaved", path, dirty=True)
    check(shown.strip().endswith("important"), f"cat R/Unsaved after Ctrl-C printed {shown!r}")
    output = terminal.run("status", path, dirty=True)
    check("R/Unsaved" in output, f"status after Ctrl-C does not show R/Unsaved: {output!r}")
    return shown + output


@sandboxed
def test_ctrl_c_stops_a_long_grep_and_keeps_unsaved_changes(sandbox):
    sandbox.setup("mkdir Saved; new Saved/Plan an important plan")
    terminal = unsaved_session(sandbox, "grep")
    output = interrupt(terminal, "grep important", "grep")
    check("error: interrupted" in output, f"grep stopped by Ctrl-C printed {output!r}")
    check("Saved/Plan" not in output, f"the stopped grep still showed its hits: {output!r}")
    check_unsaved_kept(terminal)
    output = terminal.run("grep important", dirty=True)
    check(
        "Saved/Plan:1:" in output and "R/Unsaved:1:" in output,
        f"grep after the stopped one printed {output!r}",
    )


@sandboxed
def test_ctrl_c_stops_a_first_search_building_its_index(sandbox):
    sandbox.setup("mkdir Saved; new Saved/Apple a red apple; new Saved/Pear a green pear")
    terminal = unsaved_session(sandbox, "index")
    output = interrupt(terminal, "search apple", "index")
    check("error: interrupted" in output, f"search stopped by Ctrl-C printed {output!r}")
    check("Saved/Apple" not in output, f"the stopped search still showed its hits: {output!r}")
    shown = output + check_unsaved_kept(terminal)
    # The stopped build was no damage: the index stays in use (docsh warns once when it
    # puts its index out of use), and the next search builds it.
    output = terminal.run("search apple", dirty=True)
    check("Saved/Apple" in output, f"search after the stopped one printed {output!r}")
    shown += output
    check("warning" not in shown, f"the stopped build put the index out of use: {shown!r}")


@sandboxed
def test_ctrl_c_stops_an_import_which_then_imports_nothing(sandbox):
    folder = sandbox.path("files")
    os.mkdir(folder)
    for name in ("one.txt", "two.txt", "three.txt"):
        with open(os.path.join(folder, name), "w") as file:
            file.write(f"text of {name}\n")
    terminal = unsaved_session(sandbox, "import")
    terminal.run("cd R", "/R", dirty=True)
    # The first check comes after the first document is made: the undo group takes it back.
    output = interrupt(
        terminal, f"import {folder}/one.txt {folder}/two.txt {folder}/three.txt", "import", "/R"
    )
    check("error: interrupted" in output, f"import stopped by Ctrl-C printed {output!r}")
    check_unsaved_kept(terminal, "/R")
    output = terminal.run("ls", "/R", dirty=True)
    check(".txt" not in output, f"the stopped import left documents: ls shows {output!r}")
    check("Unsaved" in output, f"ls after the stopped import shows {output!r}")


@sandboxed
def test_ctrl_c_stops_a_sourced_script_between_its_lines(sandbox):
    script = sandbox.path("long.docsh")
    with open(script, "w") as file:
        file.write("new R/First from the script\nnew R/Never not reached\n")
    terminal = unsaved_session(sandbox, "source")
    # Held after its first line, as a long script is between two of its commands.
    output = interrupt(terminal, f"source {script}", "source")
    check(
        f"error: {script}:2: interrupted" in output,
        f"the sourced script stopped by Ctrl-C printed {output!r}",
    )
    check_unsaved_kept(terminal)
    output = terminal.run("ls R", dirty=True)
    # As when a line of it fails: the lines before stand, nothing after runs.
    check("First" in output, f"the line that ran before Ctrl-C was lost: ls R shows {output!r}")
    check("Never" not in output, f"the script went on after Ctrl-C: ls R shows {output!r}")


@sandboxed
def test_ctrl_c_ends_a_non_interactive_run_with_130_and_saves_nothing(sandbox):
    # No handler outside the REPL: Ctrl-C ends docsh -c as it ends a bash script, before the
    # save at the end.
    sandbox.setup("mkdir Saved; new Saved/Plan an important plan")
    terminal = sandbox.spawn("-c", "mkdir Never; grep important", DOCSH_TEST_PAUSE_AT="grep")
    terminal.expect(pause_message("grep"), what="grep of docsh -c held")
    terminal.child.sendintr()
    status = terminal.exit_status()
    check(status == 130, f"docsh -c ended by Ctrl-C with status {status}, not 130")
    listing = sandbox.listing()
    check("Never" not in listing, f"the run ended by Ctrl-C saved its changes: ls shows {listing!r}")


# MARK: - 5. Ctrl-D


SAVE_QUESTION = re.escape("Save 1 unsaved change before leaving? [Y/n/c] ")


@sandboxed
def test_ctrl_d_without_changes_exits_with_zero(sandbox):
    terminal = sandbox.start()
    terminal.send("\x04")
    status = terminal.exit_status()
    check(status == 0, f"Ctrl-D on an empty line ended with status {status}")
    check(not os.path.exists(sandbox.store), "leaving without changes created the store file")


@sandboxed
def test_ctrl_d_with_changes_cancel_then_leave_without_saving(sandbox):
    terminal = sandbox.start()
    terminal.run("mkdir Work", dirty=True)
    terminal.send("\x04")
    terminal.expect(SAVE_QUESTION, what="the save question after Ctrl-D")
    terminal.line("c")
    terminal.prompt(dirty=True, what="the prompt 'docsh:/*> ' after answering c")
    check(terminal.child.isalive(), "docsh ended after answering c")
    terminal.send("\x04")
    terminal.expect(SAVE_QUESTION, what="the save question after the second Ctrl-D")
    terminal.line("n")
    status = terminal.exit_status()
    check(status == 0, f"leaving without saving ended with status {status}")
    check(not os.path.exists(sandbox.store), "answering n still wrote the store file")


@sandboxed
def test_ctrl_d_with_changes_answer_y_saves(sandbox):
    terminal = sandbox.start()
    terminal.run("mkdir Work", dirty=True)
    terminal.send("\x04")
    terminal.expect(SAVE_QUESTION, what="the save question after Ctrl-D")
    terminal.line("y")
    status = terminal.exit_status()
    check(status == 0, f"saving and leaving ended with status {status}")
    listing = sandbox.listing()
    check(re.search(r"^Work/", listing, re.M), f"answering y did not save Work; ls shows {listing!r}")


@sandboxed
def test_ctrl_d_with_changes_enter_saves(sandbox):
    terminal = sandbox.start()
    terminal.run("mkdir Home", dirty=True)
    terminal.send("\x04")
    terminal.expect(SAVE_QUESTION, what="the save question after Ctrl-D")
    terminal.line("")
    status = terminal.exit_status()
    check(status == 0, f"saving and leaving ended with status {status}")
    listing = sandbox.listing()
    check(re.search(r"^Home/", listing, re.M), f"Enter (default Y) did not save Home; ls shows {listing!r}")


# MARK: - 6. exit and quit


@sandboxed
def test_exit_and_quit_ask_before_leaving_unsaved_changes(sandbox):
    terminal = sandbox.start()
    terminal.run("mkdir Work", dirty=True)
    terminal.line("exit")
    terminal.expect(SAVE_QUESTION, what="the save question after exit")
    terminal.line("c")
    terminal.prompt(dirty=True, what="the prompt 'docsh:/*> ' after answering c to exit")
    terminal.line("quit")
    terminal.expect(SAVE_QUESTION, what="the save question after quit")
    terminal.line("n")
    status = terminal.exit_status()
    check(status == 0, f"quit, n ended with status {status}")
    check(not os.path.exists(sandbox.store), "quit, n still wrote the store file")


@sandboxed
def test_quit_answer_y_saves(sandbox):
    terminal = sandbox.start()
    terminal.run("mkdir Work", dirty=True)
    terminal.line("quit")
    terminal.expect(SAVE_QUESTION, what="the save question after quit")
    terminal.line("y")
    status = terminal.exit_status()
    check(status == 0, f"quit, y ended with status {status}")
    listing = sandbox.listing()
    check(re.search(r"^Work/", listing, re.M), f"quit, y did not save Work; ls shows {listing!r}")


# MARK: - 7. rmdir's question


@sandboxed
def test_rmdir_asks_before_deleting_documents(sandbox):
    sandbox.setup("mkdir Work Empty\ncd Work\nnew A first\nnew B second")
    terminal = sandbox.start()
    question = re.escape('Delete category "Work" and its 2 documents? [y/N] ')

    terminal.line("rmdir Work")
    terminal.expect(question, what="rmdir's question for a category with 2 documents")
    terminal.line("n")
    terminal.prompt(what="the clean prompt after answering n (nothing deleted)")
    output = terminal.run("ls")
    check(re.search(r"^Work/", output, re.M), f"answering n deleted Work anyway; ls shows {output!r}")

    terminal.line("rmdir Work")
    terminal.expect(question, what="rmdir's question, asked again")
    terminal.line("y")
    terminal.prompt(dirty=True, what="the prompt 'docsh:/*> ' after answering y")
    output = terminal.run("ls", dirty=True)
    check(not re.search(r"^Work/", output, re.M), f"answering y kept Work; ls shows {output!r}")

    terminal.line("rmdir Empty")
    found = terminal.expect(
        re.escape(prompt_text(dirty=True)), r"\[y/N\]", what="the prompt right after rmdir Empty"
    )
    check(found.index == 0, f"an empty category was asked about: {found.before!r}")
    _, _, output = found.before.partition("\n")
    check(output == "", f"rmdir of an empty category printed {output!r} before the prompt")
    output = terminal.run("ls", dirty=True)
    check(not re.search(r"^Empty/", output, re.M), f"rmdir Empty kept it; ls shows {output!r}")


# MARK: - 8. and 9. Content typed at the terminal


@sandboxed
def test_here_document_typed_interactively(sandbox):
    sandbox.setup("mkdir Work")
    terminal = sandbox.start()
    terminal.run("cd Work", "/Work")
    terminal.line("new Notes <<END")
    for text in ["first line", "  second, indented", "END"]:
        terminal.expect(r"(?:^|\n)> ", what=f"the continuation prompt '> ' before {text!r}")
        terminal.line(text)
    terminal.prompt("/Work", dirty=True, what="the prompt after the closing END")
    output = terminal.run("cat Notes", "/Work", dirty=True)
    check(
        output == "first line\n  second, indented\n",
        f"cat Notes after a typed here-document gave {output!r}",
    )


@sandboxed
def test_typed_content_without_editor(sandbox):
    sandbox.setup("mkdir Work")
    terminal = sandbox.start()
    terminal.run("cd Work", "/Work")
    terminal.line("new Typed")
    terminal.expect(re.escape("end with a line holding a single '.'"), what="the hint for typed content")
    for text in ["alpha", "beta gamma", "."]:
        terminal.expect(r"(?:^|\n)… ", what=f"the content prompt '… ' before {text!r}")
        terminal.line(text)
    terminal.prompt("/Work", dirty=True, what="the prompt after the line '.'")
    output = terminal.run("cat Typed", "/Work", dirty=True)
    check(output == "alpha\nbeta gamma\n", f"cat Typed gave {output!r}")


# MARK: - 10. The editor


EDITOR_SCRIPT = """#!/bin/sh
printf '%s\\n' "$1" > "{log}/path"
ls -ld "$(dirname "$1")" > "{log}/folder"
cp "$1" "{log}/before"
printf 'edited by script\\n' > "$1"
"""


@sandboxed
def test_edit_with_editor_script(sandbox):
    log = sandbox.path("editor-log")
    os.mkdir(log)
    editor = sandbox.path("editor.sh")
    with open(editor, "w") as file:
        file.write(EDITOR_SCRIPT.format(log=log))
    os.chmod(editor, 0o755)
    sandbox.setup("mkdir Work\ncd Work\nnew Plan <<END\noriginal text\nEND")

    terminal = sandbox.start(EDITOR=editor)
    terminal.run("cd Work", "/Work")
    terminal.run("edit Plan", "/Work", dirty=True)
    output = terminal.run("cat Plan", "/Work", dirty=True)
    check(output == "edited by script\n", f"cat Plan after edit gave {output!r}")

    with open(os.path.join(log, "before")) as file:
        before = file.read()
    check(before == "original text\n", f"the editor got {before!r}, not the document's text")
    with open(os.path.join(log, "path")) as file:
        path = file.read().strip()
    with open(os.path.join(log, "folder")) as file:
        listing = file.read()
    check(listing.startswith("drwx------"), f"the editor's file was in a folder listed as {listing.strip()!r}")
    check(not os.path.exists(path), f"the edited file {path} is still there")
    check(not os.path.exists(os.path.dirname(path)), f"the private folder {os.path.dirname(path)} is still there")


# MARK: - 11. Colors


@sandboxed
def test_color_always_colors_errors(sandbox):
    terminal = sandbox.start("--color", "always")
    terminal.line("cd Nowhere")
    terminal.prompt(what="the prompt after a failing command")
    raw = output_between(last_raw(terminal), "cd Nowhere", "docsh:")
    check("error:" in clean(raw), f"no error message for cd Nowhere: {raw!r}")
    check("\x1b[" in raw, f"with --color always the error has no escape sequence: {raw!r}")


@sandboxed
def test_term_dumb_means_no_escape_sequences(sandbox):
    sandbox.setup("mkdir Work")
    terminal = sandbox.start(NO_COLOR=None, TERM="dumb")
    terminal.line("ls")
    terminal.prompt()
    raw = output_between(last_raw(terminal), "ls", "docsh:")
    check("Work/" in raw, f"ls shows no Work/: {raw!r}")
    check("\x1b[" not in raw, f"with TERM=dumb and auto, ls wrote escape sequences: {raw!r}")


@sandboxed
def test_no_color_and_auto_mean_no_escape_sequences(sandbox):
    sandbox.setup("mkdir Work")
    # Control: without NO_COLOR, auto colors category names on a terminal.
    terminal = sandbox.start(NO_COLOR=None)
    terminal.line("ls")
    terminal.prompt()
    raw = output_between(last_raw(terminal), "ls", "docsh:")
    check("\x1b[" in raw and "Work/" in clean(raw), f"control failed: without NO_COLOR ls shows {raw!r}")

    terminal = sandbox.start()
    terminal.line("ls")
    terminal.prompt()
    raw = output_between(last_raw(terminal), "ls", "docsh:")
    check("Work/" in raw, f"ls shows no Work/: {raw!r}")
    check("\x1b[" not in raw, f"with NO_COLOR=1 and auto, ls wrote escape sequences: {raw!r}")


@sandboxed
def test_status_colors_are_colors_not_text(sandbox):
    sandbox.setup("mkdir Work")
    for arguments, colored in ((("--color", "always"), True), (("--color", "never"), False)):
        # Closing the terminal with a change pending journals it, and the next start would ask
        # to recover it: this test is about colors, so it keeps no journal.
        terminal = sandbox.start(*arguments, DOCSH_JOURNAL_DELAY_MS="off")
        terminal.line("new Work/Plan x")
        terminal.prompt(dirty=True)
        terminal.line("status")
        terminal.prompt(dirty=True, what="the prompt after status")
        raw = output_between(last_raw(terminal), "status", "docsh:")
        check("new:" in clean(raw) and "Work/Plan" in clean(raw), f"status shows no new document: {raw!r}")
        check("\\e[" not in raw, f"status with {arguments} shows color codes as text: {raw!r}")
        check(("\x1b[" in raw) == colored, f"status with {arguments}: escape sequences {raw!r}")
        terminal.close()


def write_large_store(path, documents=5_000, categories=10):
    """A valid store of many small documents (640 KB), written directly: reading and indexing
    it reports its progress some ten times, usually all within the half second a person
    would wait for the line."""
    per_category = documents // categories
    with open(path, "w") as file:
        file.write('{"format":"docsh-store","version":1,"generation":1,"categories":[')
        number = 0
        for category in range(categories):
            file.write(("," if category else "") + '\n{"id":"00000000-0000-4000-8000-%012x","name":"C%d","documents":[' % (number, category))
            number += 1
            for document in range(per_category):
                file.write(("," if document else "") + '\n{"id":"00000000-0000-4000-8000-%012x","name":"D%d","content":"note %d","size":%d,"modified":"2026-11-29T14:53:00.000Z"}' % (number, document, document, len("note %d" % document)))
                number += 1
            file.write("\n]}")
        file.write("\n]}\n")


# The progress line shows at once with this, however fast the machine opens the store: no
# test depends on the work outlasting the half second a person would wait.
NO_PROGRESS_DELAY = {"DOCSH_PROGRESS_DELAY_MS": "0"}


@sandboxed
def test_progress_shows_on_a_terminal_and_never_in_a_pipe(sandbox):
    write_large_store(sandbox.store)
    # Not a terminal: the index is built silently (and the next run has it), even with no delay.
    result = sandbox.docsh("--no-save", "-c", "ls", **NO_PROGRESS_DELAY)
    check(result.returncode == 0, f"ls failed: {result.stderr!r}")
    check(b"indexing" not in result.stderr and b"\x1b" not in result.stderr,
          f"progress went to a pipe: {result.stderr[:200]!r}")
    check(b"indexing" not in result.stdout, "progress went to standard output")
    shutil.rmtree(os.path.join(sandbox.home, ".cache"), ignore_errors=True)
    # A terminal: the first open draws a progress line, then clears it for the prompt.
    terminal = sandbox.spawn(**NO_PROGRESS_DELAY)
    terminal.expect(re.escape("indexing the store"), what="the progress line of the first open")
    terminal.expect(r"\d+%", what="how far the opening is")
    terminal.expect(re.escape(prompt_text()), what="the prompt after indexing")
    terminal.line("info C3/D499")
    terminal.expect(re.escape("size:      8 bytes"), what="a document of C3 after indexing")


def last_raw(terminal):
    """The raw output read by the last `expect`."""
    return terminal.last_match_raw


def output_between(raw, echoed, prompt):
    """The raw bytes after the echoed command's line and before the next prompt."""
    start = raw.find(echoed)
    start = raw.find("\n", start) + 1 if start >= 0 else 0
    end = raw.find(prompt, start)
    return raw[start : end if end >= 0 else len(raw)]


# MARK: - 12. Escape sequences in content


CONTENT_WITH_ESCAPE = "before \x1b[31mRED\x1b[0m after\n"


@sandboxed
def test_cat_escapes_control_characters_on_a_terminal(sandbox):
    sandbox.setup("mkdir Work\ncd Work\nnew X <<END\n" + CONTENT_WITH_ESCAPE + "END")

    piped = sandbox.docsh("--no-save", "-c", "cat Work/X")
    check(piped.returncode == 0, f"docsh -c 'cat Work/X' failed: {piped.stderr!r}")
    check(
        piped.stdout == CONTENT_WITH_ESCAPE.encode(),
        f"cat to a pipe should give the raw bytes {CONTENT_WITH_ESCAPE.encode()!r}, gave {piped.stdout!r}",
    )
    dumped = subprocess.run(
        f"'{DOCSH}' --no-save -c 'cat Work/X' | od -c",
        shell=True, capture_output=True, text=True, env=sandbox.environment(), cwd=sandbox.root,
        timeout=TIMEOUT,
    ).stdout
    check(re.search(r"033\s+\[\s+3\s+1\s+m", dumped), f"od -c shows no raw ESC: {dumped!r}")

    terminal = sandbox.start()
    terminal.line("cat Work/X")
    found = terminal.prompt(what="the prompt after cat Work/X")
    raw = output_between(last_raw(terminal), "cat Work/X", "docsh:")
    check("\x1b[31m" not in raw, f"cat wrote the raw escape sequence to the terminal: {raw!r}")
    check(
        "before \\e[31mRED\\e[0m after" in found,
        f"cat on a terminal should show 'before \\e[31mRED\\e[0m after'; saw {found!r}",
    )


@sandboxed
def test_head_and_tail_escape_control_characters_on_a_terminal(sandbox):
    # Like cat: raw bytes to a pipe, escaped on a terminal, headers and all.
    sandbox.setup("mkdir Work\ncd Work\nnew X <<END\n" + CONTENT_WITH_ESCAPE + "END\nnew Y plain")
    piped = sandbox.docsh("--no-save", "-c", "head Work/X Work/Y")
    expected = ("==> Work/X <==\n" + CONTENT_WITH_ESCAPE + "\n==> Work/Y <==\nplain").encode()
    check(piped.stdout == expected, f"head to a pipe should give {expected!r}, gave {piped.stdout!r}")

    terminal = sandbox.start()
    terminal.line("tail -n 1 Work/X")
    found = terminal.prompt(what="the prompt after tail -n 1 Work/X")
    raw = output_between(last_raw(terminal), "tail -n 1 Work/X", "docsh:")
    check("\x1b[31m" not in raw, f"tail wrote the raw escape sequence to the terminal: {raw!r}")
    check(
        "before \\e[31mRED\\e[0m after" in found,
        f"tail on a terminal should show 'before \\e[31mRED\\e[0m after'; saw {found!r}",
    )


# MARK: - 13. The pager


SMALL_WINDOW = (10, 80)
LONG_DOCUMENT = "".join(f"line {number}\n" for number in range(1, 51))


def setup_long_and_short(sandbox):
    sandbox.setup(
        "mkdir Work\ncd Work\nnew Long <<END\n" + LONG_DOCUMENT + "END\nnew Short <<END\none\ntwo\nthree\nEND"
    )


@sandboxed
def test_pager_shows_long_output(sandbox):
    setup_long_and_short(sandbox)
    # DOCSH_PAGER wins over PAGER; the test pager prints the number of lines it was given.
    terminal = sandbox.start(dimensions=SMALL_WINDOW, DOCSH_PAGER="wc -l", PAGER="wc -c")
    output = terminal.run("cat Work/Long")
    check(output.strip() == "50", f"cat of 50 lines in a 10-row window should go through 'wc -l'; saw {output!r}")
    check("line 1" not in output, f"the lines were printed as well as paged: {output!r}")
    # Commands that page: ls, help and grep too.
    output = terminal.run("help")
    check(re.fullmatch(r"\s*\d+\s*", output) and int(output) > 10, f"help in 10 rows was not paged: {output!r}")
    output = terminal.run("grep line Work")
    check(output.strip() == "50", f"grep of 50 lines was not paged: {output!r}")


@sandboxed
def test_pager_quit_early_leaves_docsh_running(sandbox):
    # More than a pipe holds (64 KiB): docsh is still writing when the pager quits.
    big = "".join(f"line {number}\n" for number in range(1, 20001))
    result = sandbox.docsh(input=("mkdir Work\ncd Work\nnew Big <<END\n" + big + "END\n").encode())
    check(result.returncode == 0, f"setup of a big document failed: {result.stderr!r}")
    terminal = sandbox.start(dimensions=SMALL_WINDOW, DOCSH_PAGER="head -n 2")
    output = terminal.run("cat Work/Big")
    check(output == "line 1\nline 2\n", f"'head -n 2' as pager should show two lines; saw {tail(output)}")
    check(terminal.child.isalive(), "docsh ended when the pager quit early (SIGPIPE?)")
    output = terminal.run("pwd")
    check(output.strip() == "/", f"pwd after the pager quit printed {output!r}")


@sandboxed
def test_pager_falls_back_to_pager_variable(sandbox):
    setup_long_and_short(sandbox)
    terminal = sandbox.start(dimensions=SMALL_WINDOW, PAGER="wc -l")
    output = terminal.run("cat Work/Long")
    check(output.strip() == "50", f"with only PAGER='wc -l' set, cat of 50 lines gave {output!r}")


@sandboxed
def test_pager_skips_short_output(sandbox):
    setup_long_and_short(sandbox)
    terminal = sandbox.start(dimensions=SMALL_WINDOW, DOCSH_PAGER="wc -l")
    output = terminal.run("cat Work/Short")
    check(output == "one\ntwo\nthree\n", f"a 3-line cat in a 10-row window should print as it is; saw {output!r}")
    output = terminal.run("ls Work")
    check(re.search(r"^Long ", output, re.M), f"a short ls was paged: {output!r}")


@sandboxed
def test_no_pager_option_turns_it_off(sandbox):
    setup_long_and_short(sandbox)
    terminal = sandbox.start("--no-pager", dimensions=SMALL_WINDOW, DOCSH_PAGER="wc -l")
    output = terminal.run("cat Work/Long")
    check(output == LONG_DOCUMENT, f"with --no-pager cat should print all 50 lines; saw {tail(output)}")


@sandboxed
def test_no_pager_when_output_is_not_a_terminal(sandbox):
    setup_long_and_short(sandbox)
    captured = sandbox.path("captured")
    # Standard input a terminal (so a REPL), standard output a file: nothing to page.
    child = pexpect.spawn(
        "/bin/sh", ["-c", f"exec '{DOCSH}' > '{captured}'"], env=sandbox.environment(DOCSH_PAGER="wc -l"),
        dimensions=SMALL_WINDOW, encoding="utf-8", timeout=TIMEOUT, cwd=sandbox.root,
    )
    terminal = Terminal(child)
    sandbox.terminals.append(terminal)
    terminal.line("cat Work/Long")
    terminal.line("exit")
    status = terminal.exit_status()
    check(status == 0, f"docsh > file ended with {status}")
    with open(captured) as file:
        text = file.read()
    check(LONG_DOCUMENT in text, f"with standard output a file, cat should write the 50 lines there; got {tail(text)}")


# MARK: - 14. The startup file


def write_startup_file(folder, text):
    os.makedirs(os.path.join(folder, "docsh"), exist_ok=True)
    path = os.path.join(folder, "docsh", "docshrc")
    with open(path, "w") as file:
        file.write(text)
    return path


@sandboxed
def test_startup_file_runs_before_the_first_prompt(sandbox):
    sandbox.setup("mkdir Work")
    config = sandbox.path("config")
    write_startup_file(config, "# go to work\ncd Work\n")
    terminal = sandbox.spawn(XDG_CONFIG_HOME=config)
    terminal.prompt("/Work", what="the first prompt 'docsh:/Work> ' after an rc with 'cd Work'")
    output = terminal.run("pwd", "/Work")
    check(output.strip() == "/Work", f"pwd after the rc printed {output!r}")


@sandboxed
def test_startup_file_in_home_config_without_xdg(sandbox):
    sandbox.setup("mkdir Work")
    write_startup_file(os.path.join(sandbox.home, ".config"), "cd Work\n")
    terminal = sandbox.spawn(XDG_CONFIG_HOME=None)
    terminal.prompt("/Work", what="the first prompt 'docsh:/Work> ' from ~/.config/docsh/docshrc")


@sandboxed
def test_startup_file_error_is_reported_and_the_repl_starts(sandbox):
    sandbox.setup("mkdir Work")
    config = sandbox.path("config")
    path = write_startup_file(config, "cd Work\ncd Nowhere\nmkdir Skipped\n")
    terminal = sandbox.spawn(XDG_CONFIG_HOME=config)
    found = terminal.expect(
        re.escape(f"{path}:2: error: ") + r'no category named "Nowhere"',
        what="FILE:LINE: error: for the rc's second line",
    )
    # The lines before the error ran; the rest of the file was skipped; a prompt came anyway.
    terminal.prompt("/Work", what="a clean prompt 'docsh:/Work> ' after the rc's error")
    output = terminal.run("ls /", "/Work")
    check("Skipped" not in output, f"the line after the error ran: ls / shows {output!r}")
    check(terminal.child.isalive(), "docsh ended after an error in the rc")


@sandboxed
def test_no_rc_skips_the_startup_file(sandbox):
    sandbox.setup("mkdir Work")
    config = sandbox.path("config")
    write_startup_file(config, "cd Work\n")
    terminal = sandbox.spawn("--no-rc", XDG_CONFIG_HOME=config)
    terminal.prompt("/", what="the first prompt 'docsh:/> ' with --no-rc")
    output = terminal.run("pwd")
    check(output.strip() == "/", f"with --no-rc pwd printed {output!r}")


@sandboxed
def test_startup_file_is_not_run_for_commands_or_piped_input(sandbox):
    sandbox.setup("mkdir Work")
    config = sandbox.path("config")
    write_startup_file(config, "cd Work\n")
    result = sandbox.docsh("-c", "pwd", XDG_CONFIG_HOME=config)
    check(result.stdout == b"/\n", f"docsh -c pwd ran the rc: {result.stdout!r} {result.stderr!r}")
    result = sandbox.docsh(input=b"pwd\n", XDG_CONFIG_HOME=config)
    check(result.stdout == b"/\n", f"piped 'pwd' ran the rc: {result.stdout!r} {result.stderr!r}")


# MARK: - Sync


def git_sandbox(sandbox):
    """git inside the sandbox: its own global config (a user, `main` as the first branch),
    no system config, and a bare remote on local disk; returns the environment and the remote."""
    config = sandbox.path("gitconfig")
    with open(config, "w") as file:
        file.write("[init]\n\tdefaultBranch = main\n[user]\n\tname = Test\n\temail = test@example.com\n")
    environment = {"GIT_CONFIG_GLOBAL": config, "GIT_CONFIG_NOSYSTEM": "1"}
    remote = sandbox.path("remote.git")
    subprocess.run(
        ["git", "init", "--quiet", "--bare", remote],
        env=sandbox.environment(**environment), check=True, timeout=TIMEOUT,
    )
    return environment, remote


def remote_subjects(sandbox, environment, remote):
    """The subjects of the remote's commits on main, newest first."""
    result = subprocess.run(
        ["git", "--git-dir", remote, "log", "--format=%s", "main"],
        env=sandbox.environment(**environment), capture_output=True, timeout=TIMEOUT,
    )
    return result.stdout.decode().splitlines()


@sandboxed
def test_sync_asks_before_saving_answer_n_then_y(sandbox):
    environment, remote = git_sandbox(sandbox)
    environment["DOCSH_STORE"] = sandbox.path("notes/store.json")
    result = sandbox.docsh("-c", f"mkdir Work; sync '{remote}'", **environment)
    check(result.returncode == 0, f"the first sync failed: {result.stderr!r}")
    terminal = sandbox.spawn(**environment)
    terminal.prompt("/", what="the first prompt")
    terminal.run("new Work/Plan Ship it", dirty=True)
    question = re.escape("Save 1 unsaved change before syncing? [Y/n] ")
    terminal.line("sync")
    terminal.expect(question, what="sync asking before it saves")
    terminal.line("n")
    output = terminal.prompt("/", dirty=True, what="the prompt, still with unsaved changes, after n")
    check("error: nothing changed" in output, f"after n sync printed {output!r}")
    check(remote_subjects(sandbox, environment, remote) == ["1 new: Work/"], "n synced anyway")
    terminal.line("sync")
    terminal.expect(question, what="sync asking again")
    terminal.line("y")
    output = terminal.prompt("/", what="the clean prompt after y")
    check("Synced: 0 changes in, 1 out." in output, f"after y sync printed {output!r}")
    subjects = remote_subjects(sandbox, environment, remote)
    check(subjects == ["1 new: Work/Plan", "1 new: Work/"], f"the remote holds {subjects!r}")
    terminal.line("exit")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")


@sandboxed
def test_an_encrypted_remote_asks_the_passphrase_once_a_session_without_echo(sandbox):
    environment, remote = git_sandbox(sandbox)
    secret = "tr0ub4dor and 3 horses"
    passphrase = sandbox.path("passphrase")
    with open(passphrase, "w") as file:
        file.write(secret + "\n")
    laptop = dict(environment, DOCSH_STORE=sandbox.path("laptop/store.json"),
                  DOCSH_PASSPHRASE_FILE=passphrase)
    result = sandbox.docsh("-c", f"mkdir Work; new Work/Plan plan; sync --encrypt '{remote}'",
                           **laptop)
    check(result.returncode == 0, f"sync --encrypt failed: {result.stderr!r}")
    environment["DOCSH_STORE"] = sandbox.path("desktop/store.json")
    terminal = sandbox.spawn(**environment)
    terminal.prompt("/", what="the first prompt")
    terminal.line(f"sync {remote}")
    terminal.expect(re.escape("Passphrase of the encrypted remote: "), what="the question")
    terminal.line(secret)
    output = terminal.prompt("/", what="the prompt after the first sync")
    check("Synced: 2 changes in, 0 out." in output, f"the first sync printed {output!r}")
    check(secret not in output, "the passphrase was echoed")
    result = sandbox.docsh("-c", "append Work/Plan from the laptop; sync", **laptop)
    check(result.returncode == 0, f"the laptop's sync failed: {result.stderr!r}")
    # Bringing that in decrypts again: the identity opened once serves the session.
    terminal.line("sync")
    output = terminal.prompt("/", what="the prompt after the second sync")
    check("Synced: 1 change in, 0 out." in output, f"the second sync printed {output!r}")
    check("Passphrase" not in output, "the second sync asked the passphrase again")
    terminal.line("exit")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")


@sandboxed
def test_a_kill_at_the_passphrase_question_leaves_the_terminal_echoing(sandbox):
    environment, remote = git_sandbox(sandbox)
    passphrase = sandbox.path("passphrase")
    with open(passphrase, "w") as file:
        file.write("correct horse\n")
    laptop = dict(environment, DOCSH_STORE=sandbox.path("laptop/store.json"),
                  DOCSH_PASSPHRASE_FILE=passphrase)
    result = sandbox.docsh("-c", f"mkdir Work; sync --encrypt '{remote}'", **laptop)
    check(result.returncode == 0, f"sync --encrypt failed: {result.stderr!r}")
    environment["DOCSH_STORE"] = sandbox.path("desktop/store.json")
    for name in ("SIGTERM", "SIGHUP", "SIGQUIT"):
        terminal = sandbox.spawn("-c", f"sync '{remote}'", **environment)
        terminal.expect(re.escape("Passphrase of the encrypted remote: "), what="the question")
        check(not terminal.child.getecho(), "echo was on at the question")
        terminal.child.kill(getattr(signal, name))
        terminal.child.expect(pexpect.EOF)
        # The pseudo-terminal outlives docsh: its settings are what a shell would find.
        check(terminal.child.getecho(), f"{name} at the question left echo off")
        terminal.child.close()
        check(terminal.child.signalstatus == getattr(signal, name)
              or terminal.child.exitstatus not in (0, None),
              f"{name} at the question did not end docsh")
    check(not os.path.exists(sandbox.path("desktop/store.json")),
          "a killed first sync wrote a store")


FETCH_HELD_GIT = """#!/bin/sh
# git, except that a fetch waits for Ctrl-C (ended by it, as a real fetch on a slow network
# is) while the file $DOCSH_TEST_HOLD exists.
for word in "$@"; do
  if [ "$word" = fetch ] && [ -e "$DOCSH_TEST_HOLD" ]; then
    echo "fake git: fetch waits for Ctrl-C" > /dev/tty
    exec sleep 600
  fi
done
exec {git} "$@"
"""


@sandboxed
def test_ctrl_c_during_sync_ends_git_and_the_next_sync_finishes(sandbox):
    environment, remote = git_sandbox(sandbox)
    environment["DOCSH_STORE"] = sandbox.path("notes/store.json")
    result = sandbox.docsh("-c", f"mkdir Work; sync '{remote}'", **environment)
    check(result.returncode == 0, f"the first sync failed: {result.stderr!r}")
    folder = sandbox.path("bin")
    os.mkdir(folder)
    with open(os.path.join(folder, "git"), "w") as file:
        file.write(FETCH_HELD_GIT.format(git=shutil.which("git", path="/usr/bin:/bin")))
    os.chmod(os.path.join(folder, "git"), 0o755)
    hold = sandbox.path("hold")
    open(hold, "w").close()
    terminal = sandbox.spawn(PATH=f"{folder}:/usr/bin:/bin", DOCSH_TEST_HOLD=hold, **environment)
    terminal.prompt("/", what="the first prompt")
    terminal.run("new Work/Plan Ship it", dirty=True)
    terminal.line("sync")
    terminal.expect(re.escape("Save 1 unsaved change before syncing? [Y/n] "), what="sync asking")
    terminal.line("y")
    terminal.expect(re.escape("fake git: fetch waits for Ctrl-C"), what="the fetch held")
    # The terminal sends SIGINT to docsh and git alike: git ends, docsh stays.
    terminal.child.sendintr()
    output = terminal.prompt("/", what="the prompt after Ctrl-C during sync")
    check("error: interrupted" in output, f"sync stopped by Ctrl-C printed {output!r}")
    check(terminal.child.isalive(), "docsh ended on Ctrl-C during sync")
    os.unlink(hold)
    output = terminal.run("cat Work/Plan")
    check(output.strip() == "Ship it", f"after the stopped sync cat printed {output!r}")
    output = terminal.run("sync")
    check("Synced: 0 changes in, 1 out." in output, f"the next sync printed {output!r}")
    subjects = remote_subjects(sandbox, environment, remote)
    check(subjects == ["1 new: Work/Plan", "1 new: Work/"], f"the remote holds {subjects!r}")
# MARK: - 11. Unsaved work survives a closed terminal, a kill and a power cut

RECOVER_QUESTION = (
    r"Recover (\d+) unsaved changes? from a session that ended "
    r"(\d{4}-\d\d-\d\d \d\d:\d\d)\? \[Y/n/show\] "
)


def journal_files(sandbox, kind="unsaved"):
    """The recovery files beside the sandbox's store (`store.json.unsaved-PID`, or with
    `kind="recovered"` the ones kept aside)."""
    return sorted(name for name in os.listdir(sandbox.root) if name.startswith(f"store.json.{kind}-"))


def wait_for(condition, what, timeout=10.0):
    """Waits until `condition()` holds, failing naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        check(time.monotonic() < deadline, f"{what}: not within {timeout:g} s")
        time.sleep(0.01)


def journal_holds(sandbox, text):
    """Whether a recovery file of the sandbox's store holds `text`."""
    for name in journal_files(sandbox):
        try:
            with open(sandbox.path(name), encoding="utf-8") as file:
                if text in file.read():
                    return True
        except OSError:
            pass
    return False


def precious_session(sandbox, **environment):
    """A session with unsaved changes: `Work/` and `Work/Precious`, in /Work."""
    terminal = sandbox.start(**environment)
    terminal.run("mkdir Work", dirty=True)
    terminal.run("cd Work", "/Work", dirty=True)
    terminal.run("new Precious three hours of writing", "/Work", dirty=True)
    return terminal


def recover_and_save(sandbox, count=2):
    """Starts docsh, answers y to the recovery question, saves and leaves; checks that
    Work/Precious is in the store and no recovery file is left."""
    terminal = sandbox.spawn()
    found = terminal.expect(RECOVER_QUESTION, what="the recovery question at the start")
    check(found.match.group(1) == str(count), f"offered {found.match.group(1)} changes, not {count}")
    terminal.line("y")
    output = terminal.prompt(dirty=True, what="the prompt with the recovered, unsaved changes")
    check("Recovered: " in output, f"after y docsh said {output!r}")
    content = terminal.run("cat Work/Precious", dirty=True)
    check("three hours of writing" in content, f"cat Work/Precious shows {content!r}")
    terminal.run("save")
    terminal.line("exit")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")
    check("Precious" in sandbox.listing("Work"), "Work/Precious is not in the saved store")
    check(not journal_files(sandbox), f"recovery files left: {journal_files(sandbox)}")


@sandboxed
def test_closing_the_terminal_keeps_unsaved_work_for_the_next_start(sandbox):
    # A delay no test waits for: only the hangup can have written the journal.
    terminal = precious_session(sandbox, DOCSH_JOURNAL_DELAY_MS="600000")
    check(not journal_files(sandbox), "the journal was written before the delay")
    terminal.child.close(force=False)  # the terminal window closes: SIGHUP
    check(terminal.child.signalstatus == signal.SIGHUP,
          f"docsh ended with {terminal.child.exitstatus}/{terminal.child.signalstatus}, not by SIGHUP")
    check(len(journal_files(sandbox)) == 1, f"recovery files after the hangup: {journal_files(sandbox)}")
    check(not os.path.exists(sandbox.store), "the hangup saved the store")
    mode = os.stat(sandbox.path(journal_files(sandbox)[0])).st_mode & 0o777
    check(mode == 0o600, f"the recovery file has mode {mode:o}")
    recover_and_save(sandbox)


@sandboxed
def test_sighup_and_sigterm_write_the_journal_and_exit_as_a_shell_would(sandbox):
    for number, expected in ((signal.SIGHUP, 129), (signal.SIGTERM, 143)):
        terminal = precious_session(sandbox, DOCSH_JOURNAL_DELAY_MS="600000")
        terminal.child.kill(number)
        status = terminal.exit_status()
        check(status == expected, f"after signal {number} docsh ended with {status}, not {expected}")
        check(journal_holds(sandbox, "three hours of writing"), f"no journal after signal {number}")
        recover_and_save(sandbox)
        os.unlink(sandbox.store)


@sandboxed
def test_sigkill_loses_only_what_the_journal_delay_had_not_written(sandbox):
    terminal = precious_session(sandbox, DOCSH_JOURNAL_DELAY_MS="200")
    # The idle timer writes it: wait for that, then kill without a chance to write again.
    wait_for(lambda: journal_holds(sandbox, "three hours of writing"), "the journal of the idle timer")
    terminal.child.kill(signal.SIGKILL)
    check(terminal.exit_status() == 128 + signal.SIGKILL, "docsh was not killed")
    recover_and_save(sandbox)


@sandboxed
def test_sigkill_after_the_default_delay_loses_nothing(sandbox):
    # No delay given: the binary's own (two seconds of an idle terminal). Nothing but the idle
    # timer writes the journal while docsh waits at the prompt, so the file appearing proves
    # the timer fired; the wait is a deadline for a hang, not a bet on how soon.
    terminal = precious_session(sandbox)
    wait_for(lambda: journal_holds(sandbox, "three hours of writing"),
             "the journal of the idle timer, with the default delay", timeout=TIMEOUT)
    terminal.child.kill(signal.SIGKILL)
    check(terminal.exit_status() == 128 + signal.SIGKILL, "docsh was not killed")
    recover_and_save(sandbox)


@sandboxed
def test_declining_a_recovery_keeps_the_file_aside(sandbox):
    terminal = precious_session(sandbox, DOCSH_JOURNAL_DELAY_MS="0")
    terminal.child.kill(signal.SIGKILL)
    terminal.exit_status()
    terminal = sandbox.spawn()
    terminal.expect(RECOVER_QUESTION, what="the recovery question")
    terminal.line("show")
    found = terminal.expect(RECOVER_QUESTION, what="the question again after show")
    check(re.search(r"new category:\s+Work/", found.before) and re.search(r"new:\s+Work/Precious", found.before),
          f"show listed {found.before!r}")
    terminal.line("n")
    output = terminal.prompt(what="a clean prompt after n")
    aside = journal_files(sandbox, "recovered")
    check(len(aside) == 1 and re.fullmatch(r"store\.json\.recovered-\d{4}-\d\d-\d\dT\d{4}", aside[0]),
          f"kept aside as {aside}")
    check(aside[0] in output, f"docsh did not say where: {output!r}")
    check(not journal_files(sandbox), "the recovery file is still offered")
    with open(sandbox.path(aside[0]), encoding="utf-8") as file:
        check("three hours of writing" in file.read(), "the file kept aside lost the changes")
    terminal.line("exit")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")
    again = sandbox.start()  # the first thing is the prompt: nothing offered
    again.line("exit")


@sandboxed
def test_recovery_over_a_store_another_session_changed_keeps_both(sandbox):
    sandbox.setup("mkdir Work; new Work/Plan v1")
    terminal = sandbox.start(DOCSH_JOURNAL_DELAY_MS="0")
    terminal.run("new Work/Precious three hours of writing", dirty=True)
    terminal.run("write Work/Plan v2 mine", dirty=True)
    terminal.child.kill(signal.SIGKILL)
    terminal.exit_status()
    # Another session saves meanwhile; not interactive, it only mentions the file.
    result = sandbox.docsh("-c", "new Work/Theirs from the other session")
    check(result.returncode == 0, f"the other session failed: {result.stderr!r}")
    check(b"start docsh interactively to recover them" in result.stderr,
          f"the other session said {result.stderr!r}")
    check(len(journal_files(sandbox)) == 1, "the non-interactive run touched the recovery file")
    terminal = sandbox.spawn()
    terminal.expect(RECOVER_QUESTION, what="the recovery question")
    terminal.line("y")
    output = terminal.prompt(dirty=True, what="the prompt after recovering")
    check("merged with what was saved since" in output, f"after y docsh said {output!r}")
    terminal.run("save")
    terminal.line("exit")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")
    listing = sandbox.listing("Work")
    for name in ("Plan", "Precious", "Theirs"):
        check(name in listing, f"Work/{name} is missing after the merge: {listing!r}")
    result = sandbox.docsh("--no-save", "-c", "cat Work/Plan")
    check(result.stdout.decode().strip() == "v2 mine", f"Work/Plan holds {result.stdout!r}")


@sandboxed
def test_bad_recovery_files_are_reported_and_never_applied(sandbox):
    sandbox.setup("mkdir Work")
    with open(sandbox.path("store.json.unsaved-1"), "w") as file:
        file.write('{"format":"docsh-unsaved-changes","version":1,"length":400,"checksum":"0"}\n{"cut')
    with open(sandbox.path("store.json.unsaved-2"), "w") as file:
        file.write('{"format":"docsh-unsaved-changes","version":9,"length":2}\n{}')
    terminal = sandbox.spawn()
    output = terminal.prompt(what="a clean prompt: nothing to recover")
    check(re.search(r"store\.json\.unsaved-1: it is cut short .*kept as .*store\.json\.recovered-", output),
          f"the cut short file was reported as {output!r}")
    check(re.search(r"store\.json\.unsaved-2: a newer docsh wrote it .*left as it is", output),
          f"the newer file was reported as {output!r}")
    check(journal_files(sandbox) == ["store.json.unsaved-2"], f"files left: {journal_files(sandbox)}")
    terminal.run("status")
    terminal.line("exit")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")


@sandboxed
def test_saving_reverting_and_leaving_remove_the_journal(sandbox):
    terminal = sandbox.start(DOCSH_JOURNAL_DELAY_MS="0")
    terminal.run("mkdir Work", dirty=True)
    check(journal_files(sandbox), "no journal after a change with no delay")
    terminal.run("save")
    check(not journal_files(sandbox), "the journal survived save")
    terminal.run("mkdir Later", dirty=True)
    check(journal_files(sandbox), "no journal after the second change")
    terminal.line("revert")
    terminal.expect(r"\[y/N\] ", what="revert asking")
    terminal.line("y")
    terminal.prompt(what="a clean prompt after revert")
    check(not journal_files(sandbox), "the journal survived revert")
    terminal.run("mkdir Again", dirty=True)
    terminal.line("exit")
    terminal.expect(re.escape("Save 1 unsaved change before leaving? [Y/n/c] "), what="the save question")
    terminal.line("n")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")
    check(not journal_files(sandbox), "the journal survived leaving without saving")


@sandboxed
def test_a_folder_that_cannot_hold_the_journal_warns_once(sandbox):
    store = "/proc/docsh-pty-test-store.json"  # a folder nobody can create files in
    terminal = sandbox.start(DOCSH_STORE=store, DOCSH_JOURNAL_DELAY_MS="0")
    output = terminal.run("mkdir Work", dirty=True)
    check("warning: cannot keep the unsaved changes in a recovery file" in output,
          f"the first change said {output!r}")
    output = terminal.run("mkdir Later", dirty=True)
    check("warning" not in output, f"the second change warned again: {output!r}")
    listing = terminal.run("ls", dirty=True)
    check("Later/" in listing and "Work/" in listing, f"ls shows {listing!r}")
    terminal.line("exit")
    terminal.expect(r"before leaving\? \[Y/n/c\] ", what="the save question")
    terminal.line("n")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")


@sandboxed
def test_crash_random_kills_lose_nothing_the_journal_had(sandbox):
    """Sessions killed with SIGKILL at random points (seeded: DOCSH_CRASH_SEED, rounds:
    DOCSH_CRASH_ROUNDS); with no journal delay every change whose prompt came back is
    saved or recoverable at the next start, and no recovery file is ever found damaged."""
    seed = int(os.environ.get("DOCSH_CRASH_SEED", "18"))
    rounds = int(os.environ.get("DOCSH_CRASH_ROUNDS", "12"))
    generator = random.Random(seed)
    sandbox.setup("mkdir Work")
    confirmed = {}  # name -> content of every change whose prompt came back
    counter = 0
    for round_number in range(rounds):
        terminal = sandbox.spawn("--no-pager", DOCSH_JOURNAL_DELAY_MS="0")
        found = terminal.expect(RECOVER_QUESTION, re.escape("docsh:/> "), what=f"round {round_number}: the start")
        check("damaged" not in found.before and "cut short" not in found.before,
              f"round {round_number} (seed {seed}): {found.before!r}")
        dirty = False
        if found.index == 0:
            terminal.line("y")
            terminal.prompt(dirty=True, what=f"round {round_number}: the prompt after recovering")
            dirty = True
        listing = terminal.run("ls Work", dirty=dirty)
        for name in confirmed:
            check(re.search(rf"\b{name}\b", listing),
                  f"round {round_number} (seed {seed}): {name} is neither saved nor recovered; ls shows {listing!r}")
        for _ in range(generator.randint(0, 6)):
            if generator.random() < 0.2:
                terminal.run("save")
                dirty = False
                continue
            counter += 1
            name = f"d{counter}"
            terminal.run(f"new Work/{name} content {counter}", dirty=True)
            confirmed[name] = f"content {counter}"
            dirty = True
        if generator.random() < 0.5:
            counter += 1
            terminal.line(f"new Work/d{counter} in flight")  # may or may not survive
            time.sleep(generator.random() * 0.03)  # lands anywhere in that command or its write
        terminal.child.kill(signal.SIGKILL)  # else right after the last prompt came back
        terminal.exit_status()
    terminal = sandbox.spawn()
    found = terminal.expect(RECOVER_QUESTION, re.escape("docsh:/> "), what="the last start")
    if found.index == 0:
        terminal.line("y")
        terminal.prompt(dirty=True)
    terminal.run("save")
    terminal.line("exit")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")
    for name, content in confirmed.items():
        result = sandbox.docsh("--no-save", "-c", f"cat Work/{name}")
        check(result.stdout.decode().strip() == content, f"Work/{name} holds {result.stdout!r} (seed {seed})")


# MARK: - 20. A note-taker's first hour (issue 40)


def setup_many_documents(sandbox, count=30):
    """Work/d1 … Work/dN, each tagged tK and linking to the next, and a category Archive."""
    lines = ["mkdir Work Archive", "cd Work"]
    for number in range(1, count + 1):
        lines.append(f"new d{number} see [[d{number % count + 1}]]")
        lines.append(f"tag d{number} t{number}")
    sandbox.setup("\n".join(lines))


@sandboxed
def test_every_command_whose_output_passes_a_screen_pages(sandbox):
    setup_many_documents(sandbox)
    terminal = sandbox.start(dimensions=SMALL_WINDOW, DOCSH_PAGER="wc -l")
    # The test pager prints how many lines it was given: a number alone means it paged.
    for command, lines in [
        ("find d", 30), ("ls Work", 30), ("tags", 30), ("wc Work/d*", 31), ("tree", 35),
    ]:
        output = terminal.run(command)
        check(output.strip() == str(lines), f"{command} in a 10-row window was not paged: {tail(output)}")
    terminal.run("cd Work", "/Work")
    output = terminal.run("rm d*", "/Work", dirty=True)
    output = terminal.run("status", "/Work", dirty=True)
    check(re.fullmatch(r"\s*\d+\s*", output) and int(output) > 10, f"a long status was not paged: {tail(output)}")


@sandboxed
def test_clear_clears_the_screen_and_writes_nothing_to_a_pipe(sandbox):
    terminal = sandbox.start()
    terminal.line("clear")
    terminal.prompt(what="the prompt after clear")
    raw = output_between(last_raw(terminal), "clear", "docsh:")
    check("\x1b[H\x1b[2J" in raw, f"clear wrote no clear-screen sequence: {raw!r}")
    result = sandbox.docsh("-c", "clear")
    check(result.returncode == 0 and result.stdout == b"", f"clear to a pipe wrote {result.stdout!r}")


@sandboxed
def test_exit_answered_y_says_what_it_saved(sandbox):
    terminal = sandbox.start()
    terminal.run("mkdir Work", dirty=True)
    terminal.run("mkdir Home", dirty=True)
    terminal.line("exit")
    terminal.expect(re.escape("Save 2 unsaved changes before leaving? [Y/n/c] "), what="the save question")
    terminal.line("y")
    terminal.expect(r"Saved 2 changes \(generation \d+\)\.", what="the save's report after answering y")
    check(terminal.exit_status() == 0, "docsh did not exit with 0")


@sandboxed
def test_ctrl_d_at_the_save_question_puts_the_prompt_on_a_new_line(sandbox):
    terminal = sandbox.start()
    terminal.run("mkdir Work", dirty=True)
    terminal.line("exit")
    terminal.expect(SAVE_QUESTION, what="the save question")
    terminal.send("\x04")
    found = terminal.expect(r"\n" + re.escape(prompt_text("/", True)), re.escape(prompt_text("/", True)),
                            what="the prompt after Ctrl-D at the question")
    check(found.index == 0, f"the prompt after Ctrl-D is glued to the question: {found.before!r}")
    output = terminal.run("pwd", dirty=True)
    check(output.strip() == "/", f"pwd after Ctrl-D at the question printed {output!r}")


@sandboxed
def test_ctrl_d_at_a_yes_no_question_answers_no_on_a_line_of_its_own(sandbox):
    terminal = sandbox.start()
    terminal.run("mkdir Work", dirty=True)
    terminal.line("revert")
    terminal.expect(r"\[y/N\] ", what="revert's question")
    terminal.send("\x04")
    found = terminal.expect(r"^(\^D)?\n[^\n]*nothing changed", r"nothing changed", what="the answer no")
    check(found.index == 0, f"the error after Ctrl-D is glued to the question: {found.before!r}")
    terminal.prompt(dirty=True, what="the prompt after declining")
    listing = terminal.run("ls", dirty=True)
    check("Work/" in listing, f"Ctrl-D at revert's question reverted: {listing!r}")


@sandboxed
def test_a_warning_while_the_prompt_waits_redraws_the_prompt(sandbox):
    store = "/proc/docsh-pty-test-store.json"  # a folder nobody can create files in
    terminal = sandbox.start(DOCSH_STORE=store, DOCSH_JOURNAL_DELAY_MS="200")
    terminal.line("mkdir Work")
    terminal.prompt(dirty=True, what="the prompt after mkdir")
    # The journal is written once the terminal was idle: its warning comes while the prompt waits.
    terminal.expect(r"warning: cannot keep the unsaved changes in a recovery file[^\n]*\n",
                    what="the journal's warning")
    terminal.prompt(dirty=True, what="the prompt drawn again below the warning")
    output = terminal.run("pwd", dirty=True)
    check(output.strip() == "/", f"the command typed after the warning gave {output!r}")


@sandboxed
def test_a_comment_after_text_is_noted_and_a_usage_error_names_it(sandbox):
    sandbox.setup("mkdir Work\ncd Work\nnew Plan a")
    terminal = sandbox.start()
    terminal.run("cd Work", "/Work")
    output = terminal.run("append Plan hello #inline", "/Work", dirty=True)
    check('"#inline" began a comment' in output, f"append with a comment said {output!r}")
    output = terminal.run("tag Plan #hash", "/Work", dirty=True)
    check("\"#hash\" began a comment (quote it: '#hash')" in output, f"tag Plan #hash said {output!r}")


@sandboxed
def test_wildcard_errors_are_colored_only_when_colors_are_on(sandbox):
    sandbox.setup("mkdir Work")
    for arguments, colored in [(("--color", "always"), True), (("--color", "never"), False)]:
        terminal = sandbox.start(*arguments)
        terminal.line("cat Work/Q*")
        terminal.prompt(what=f"the prompt after cat Work/Q* with {arguments}")
        raw = output_between(last_raw(terminal), "cat Work/Q*", "docsh:")
        check('nothing matches "Q*"' in clean(raw), f"cat Work/Q* said {raw!r}")
        check(("\x1b[" in raw) == colored, f"with {arguments} the error was {raw!r}")
        terminal.line("exit")
        terminal.exit_status()


# MARK: - 21. Two sessions see each other (issue 36)


@sandboxed
def test_a_session_with_nothing_unsaved_shows_what_another_session_saved(sandbox):
    sandbox.setup("mkdir Work; new Work/Plan Ship on Monday")
    reader = sandbox.start()
    writer = sandbox.start()
    check("Ship on Monday" in reader.run("cat Work/Plan"), "the reader sees the plan")
    writer.run("write Work/Plan Ship on Tuesday", dirty=True)
    writer.run("new Work/Other hello", dirty=True)
    writer.run("save")
    # No unsaved changes: the next command shows the store as the other session saved it.
    check("Ship on Tuesday" in reader.run("cat Work/Plan"), "the reader sees the new text")
    check("Other" in reader.run("ls Work"), "the reader sees the new document")
    check("No unsaved changes." in reader.run("status"), "nothing unsaved in the reader")
    # And beside a -c run too; an undo history of the old view goes, with a note.
    reader.run("new Work/Mine mine", dirty=True)
    reader.run("save")
    sandbox.setup("new Work/FromScript made by -c")
    listing = reader.run("ls Work")
    check("FromScript" in listing, "the reader sees what -c saved")
    check("the undo history of the old view is gone" in listing, f"the note: {listing!r}")
    check("nothing to undo" in reader.run("undo").lower(), "the old undo history is gone")


@sandboxed
def test_a_session_with_changes_is_told_the_store_moved_on_and_save_merges(sandbox):
    sandbox.setup("mkdir Work; new Work/Plan Ship on Monday")
    mine = sandbox.start()
    mine.run("new Work/Draft my draft", dirty=True)
    sandbox.setup("new Work/One one")
    sandbox.setup("new Work/Two two")
    # The prompt says two saves came in under the unsaved change, as git's says "behind".
    mine.line("status")
    before = mine.expect(re.escape("docsh:/*↓2> "), what="the prompt with *↓2").before
    check("2 saves by other sessions came in" in before, f"status says so: {before!r}")
    mine.run("save")
    listing = mine.run("ls Work")
    for name in ("Draft", "One", "Two", "Plan"):
        check(name in listing, f"{name} after the merge: {listing!r}")


@sandboxed
def test_a_conflict_is_settled_by_keeping_both_and_the_unrelated_change_stays(sandbox):
    sandbox.setup("mkdir Work; new Work/Plan Ship on Monday")
    mine = sandbox.start()
    mine.run("write Work/Plan Ship on Friday", dirty=True)
    mine.run("new Work/Notes unrelated", dirty=True)
    sandbox.setup("write Work/Plan Ship on Tuesday")
    mine.line("save")
    refused = mine.expect(re.escape("docsh:/*"), what="the prompt after the refused save").before
    check("Work/Plan: content changed here and in the other session" in refused, f"names it: {refused!r}")
    check("save --both" in refused and "save --theirs" in refused, f"offers the options: {refused!r}")
    mine.expect(re.escape("> "), what="the end of the prompt")
    shown = mine.run("save --diff", dirty=True)
    check("-Ship on Tuesday" in shown and "+Ship on Friday" in shown, f"both versions: {shown!r}")
    mine.run("save --both")
    listing = sandbox.listing("Work")
    check("Plan (conflict " in listing and "Notes" in listing, f"both kept: {listing!r}")


@sandboxed
def test_each_save_option_settles_a_conflict_and_keeps_the_unrelated_change(sandbox):
    expected = {
        "--mine": ("Ship on Friday", False),
        "--theirs": ("Ship on Tuesday", False),
        "--theirs-whole": ("Ship on Tuesday", False),
    }
    for option, (plan, sibling) in expected.items():
        store = sandbox.path(f"store{option}.json")
        result = sandbox.docsh("-s", store, "-c", "mkdir Work; new Work/Plan Ship on Monday")
        check(result.returncode == 0, f"{option}: setup failed: {result.stderr!r}")
        mine = sandbox.start("-s", store)
        mine.run("write Work/Plan Ship on Friday", dirty=True)
        mine.run("new Work/Notes unrelated", dirty=True)
        result = sandbox.docsh("-s", store, "-c", "write Work/Plan Ship on Tuesday")
        check(result.returncode == 0, f"{option}: the other session's save failed")
        mine.line("save")
        mine.expect(re.escape("save --theirs-whole"), what=f"{option}: the options in the message")
        mine.run(f"save {option}")
        result = sandbox.docsh("-s", store, "--no-save", "-c", "cat Work/Plan; cat Work/Notes")
        out = result.stdout.decode(errors="replace")
        check(plan in out and "unrelated" in out, f"{option}: saved {out!r}")
        listing = sandbox.docsh("-s", store, "--no-save", "-c", "ls Work").stdout.decode()
        check(("Plan (conflict " in listing) == sibling, f"{option}: {listing!r}")
        mine.line("exit")
        mine.exit_status()


@sandboxed
def test_recovery_show_lists_every_change_it_offers(sandbox):
    sandbox.setup("mkdir Work; new Work/Plan plan; new Work/Old old")
    terminal = sandbox.start(DOCSH_JOURNAL_DELAY_MS="0")
    terminal.run("tag Work/Plan urgent", dirty=True)
    terminal.run("mv Work/Old Work/Renamed", dirty=True)
    terminal.run("new Work/Fresh fresh", dirty=True)
    wait_for(lambda: journal_holds(sandbox, "fresh"), "the journal of the changes")
    terminal.child.kill(signal.SIGKILL)
    terminal.exit_status()
    terminal = sandbox.spawn()
    terminal.expect(RECOVER_QUESTION, what="the recovery question")
    terminal.line("show")
    found = terminal.expect(RECOVER_QUESTION, what="the question again after show").before
    for pattern in (r"changed:\s+Work/Plan \(tags\)", r"changed:\s+Work/Renamed \(name\)",
                    r"new:\s+Work/Fresh"):
        check(re.search(pattern, found), f"show lacks {pattern}: {found!r}")


# MARK: - Running


def main(selected):
    if not DOCSH or not os.access(DOCSH, os.X_OK):
        print(f"set DOCSH to the docsh binary (got {DOCSH!r})", file=sys.stderr)
        return 2
    tests = [
        (name, function)
        for name, function in globals().items()
        if name.startswith("test_") and callable(function) and (not selected or name in selected)
    ]
    unknown = set(selected) - {name for name, _ in tests}
    if unknown:
        print(f"no such test: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    passed = failed = 0
    started = time.monotonic()
    for name, function in tests:
        try:
            function()
        except Failure as failure:
            failed += 1
            print(f"FAIL {name}: {failure}", flush=True)
        except Exception:  # a bug in the test itself, or pexpect trouble
            failed += 1
            reason = traceback.format_exc().strip().splitlines()[-1]
            print(f"FAIL {name}: {reason}", flush=True)
        else:
            passed += 1
            print(f"ok {name}", flush=True)
    sys.stdout.flush()
    print(f"({time.monotonic() - started:.1f} s)", file=sys.stderr, flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
