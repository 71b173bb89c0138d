#!/usr/bin/env python3
"""One interactive docsh session driven through a pseudo-terminal (stdlib only), for row 27.

    repl_session.py DOCSH STORE COUNT JOURNAL_DELAY [COMMAND]

Starts DOCSH on STORE in a pseudo-terminal (so it runs its REPL, with its recovery journal),
types COUNT `write` commands on documents of the personal corpus, each after the prompt of
the one before, then leaves without saving. JOURNAL_DELAY is passed as
DOCSH_JOURNAL_DELAY_MS (`0`: the journal is written after every command; `off`: no journal).
With COMMAND, types COUNT times COMMAND instead (one that changes nothing: each prompt is
the clean one), then `exit` (row 61). Exits 0 when every prompt came back, 1 otherwise.
"""

import os
import pty
import select
import sys
import time

TIMEOUT = 30.0


def main():
    docsh, store, count, delay = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    command = sys.argv[5].encode() if len(sys.argv) > 5 else None
    environment = dict(os.environ)
    environment.update({
        "DOCSH_STORE": store, "DOCSH_HISTORY": "/dev/null", "TERM": "dumb",
        "NO_COLOR": "1", "LANG": "C.UTF-8", "DOCSH_JOURNAL_DELAY_MS": delay,
    })
    pid, master = pty.fork()
    if pid == 0:
        os.execve(docsh, [docsh, "--no-pager", "--no-rc"], environment)
    seen = b""

    def wait_for(text):
        nonlocal seen
        deadline = time.monotonic() + TIMEOUT
        while text not in seen:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([master], [], [], left)[0]:
                raise SystemExit("no %r within %g s; saw %r" % (text, TIMEOUT, seen[-200:]))
            try:
                data = os.read(master, 65536)
            except OSError:
                raise SystemExit("docsh ended; saw %r" % seen[-200:])
            if not data:
                raise SystemExit("docsh ended; saw %r" % seen[-200:])
            seen += data
        seen = seen[seen.index(text) + len(text):]

    wait_for(b"docsh:/> ")
    if command is not None:
        for _ in range(count):
            os.write(master, command + b"\r")
            wait_for(b"docsh:/> ")
        os.write(master, b"exit\r")
        _, status = os.waitpid(pid, 0)
        os.close(master)
        sys.exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1)
    for n in range(count):
        os.write(master, b'write "/Category %03d/Document %05d" edited %d\r'
                 % (n % 20, n % 20 * 50 + n // 20 % 50, n))
        wait_for(b"docsh:/*> ")
    os.write(master, b"exit\r")
    wait_for(b"[Y/n/c] ")
    os.write(master, b"n\r")
    _, status = os.waitpid(pid, 0)
    os.close(master)
    sys.exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1)


if __name__ == "__main__":
    main()
