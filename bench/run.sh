#!/usr/bin/env bash
# docsh benchmark suite.            usage: bench/run.sh full|quick [--rows N,M…]
#
# Called by `make bench` (full) and `make bench-quick` (quick) after a release
# build. Uses $DOCSH if set, else $(swift build -c release --show-bin-path)/docsh.
# See bench/README.md for the rows, the anchors and how ratios are computed.
#
# EXIT STATUS -- a deliberate choice:
#   0  the harness worked: every row ran and the table was written, even when
#      docsh was slow, missed a target, or failed a row (non-zero exit, e.g. a
#      command it does not support yet). Such rows read `failed: <first line of
#      stderr>` in the table and are listed at the end of the output.
#   2  harness error: a missing tool, the docsh binary not found, the corpus
#      generator crashing, an anchor command (cat, sqlite3, dd, grep) failing,
#      hyperfine failing on an anchor.
# So `make bench-quick` in CI proves that the harness works; it is not a
# performance gate. Whether docsh meets its targets is read from the table.
set -euo pipefail

mode=${1:-}
shift || true
case "$mode" in
  full | quick) ;;
  *) echo "usage: bench/run.sh full|quick" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

die() { echo "bench: harness error: $*" >&2; exit 2; }

if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=python3; fi
missing=""
for tool in hyperfine sqlite3 grep dd cat cp mktemp bash "$py"; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -x /usr/bin/time ] || missing="$missing /usr/bin/time(Debian package 'time')"
[ -z "$missing" ] || die "missing tool(s):$missing -- try 'make bench-deps'"

if [ -z "${DOCSH:-}" ]; then
  bin=$(cd "$root" && swift build -c release --show-bin-path) || die "swift build --show-bin-path failed"
  DOCSH="$bin/docsh"
fi
[ -x "$DOCSH" ] || die "no docsh binary at $DOCSH -- build it with 'make release' or set DOCSH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/docsh-bench.XXXXXX") || die "mktemp -d failed"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

rc=0
"$py" "$here/harness.py" "$mode" --docsh "$DOCSH" --tmp "$tmp" "$@" || rc=$?
# The harness exits 0 (ran), 2 (harness error) or something else on a crash.
[ "$rc" = 0 ] || echo "bench: harness error (exit $rc)" >&2
[ "$rc" = 0 ] || exit 2
