#!/usr/bin/env bash
# Fuzzes docsh's command tokenizer, store reader, document-file codec and merge by tree with
# libFuzzer.
#   fuzz/run.sh [SECONDS]   (default 60 seconds per target)
# Built with swiftc directly: SwiftPM renames an executable's entry point, which breaks
# -sanitize=fuzzer (see ../shared/notes/atomic-save.md). Crashing or hanging inputs land in
# fuzz/findings/TARGET/; copy them into the regression folders the tests replay:
#   Tests/DocsShellTests/FuzzRegressions/tokenizer/,  Tests/DocsKitTests/FuzzRegressions/store/
#   Tests/DocsKitTests/FuzzRegressions/documentfile/  and  .../FuzzRegressions/treemerge/
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=.build/fuzz
mkdir -p "$out" fuzz/findings/tokenizer fuzz/findings/store fuzz/findings/documentfile \
  fuzz/findings/treemerge

build() {
  local name=$1; shift
  echo "building the $name fuzzer"
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "Fuzz$name" \
    "$@" -o "$out/$name" 2> "$out/$name.log" || { cat "$out/$name.log"; exit 1; }
}

build tokenizer Sources/DocsShell/REPL/Tokenizer.swift fuzz/TokenizerFuzzer.swift
# DocsKit stands on two C edges: SQLite's module map as it is, and RE2's C functions, which
# SwiftPM compiles from C++ and gives a module map of its own; here both by hand.
mkdir -p "$out/CRE2"
printf 'module CRE2 {\n  header "%s"\n  export *\n}\n' "$PWD/Sources/CRE2/include/cre2_shim.h" \
  > "$out/CRE2/module.modulemap"
c++ -O2 -fPIC -ISources/CRE2/include -c Sources/CRE2/cre2_shim.cpp -o "$out/cre2_shim.o"
build store -ISources/CSQLite -I"$out/CRE2" $(find Sources/DocsKit -name '*.swift' | sort) \
  fuzz/StoreReaderFuzzer.swift "$out/cre2_shim.o" -lsqlite3 -l:libre2.a -lstdc++
# Three-way histories merged by tree: all of DocsKit, and the tests' history generator.
build treemerge -ISources/CSQLite -I"$out/CRE2" $(find Sources/DocsKit -name '*.swift' | sort) \
  Tests/DocsKitTests/Support/TreeMergeHistory.swift fuzz/TreeMergeFuzzer.swift \
  "$out/cre2_shim.o" -lsqlite3 -l:libre2.a -lstdc++
# The files of a clone: the codec stands on the model's Name, ObjectID, Timestamp and Tag
# (with the folding a tag's key is made by) alone.
build documentfile Sources/DocsKit/Model/{Name,ObjectID,Timestamp,Tag}.swift \
  Sources/DocsKit/Search/{TextFolding,FoldingTable}.swift Sources/DocsKit/Context/CaseFolding.swift \
  Sources/DocsKit/Sync/Layout/{FrontMatter,YAMLHeader,DocumentFile,CategoryFile,FileNameEncoding}.swift \
  fuzz/DocumentFileFuzzer.swift

run() {
  local name=$1 seeds=$2 dictionary=$3 maxlen=$4
  local corpus="$out/corpus-$name"
  mkdir -p "$corpus"
  cp "$seeds"/* "$corpus"/ 2>/dev/null || true
  echo "fuzzing $name for $seconds s"
  DOCSH_FUZZ_DIR="$out" "$out/$name" "$corpus" -dict="$dictionary" -max_len="$maxlen" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="fuzz/findings/$name/" -print_final_stats=1 2>&1 | tail -n 12
}

run tokenizer Tests/DocsShellTests/FuzzRegressions/tokenizer fuzz/tokenizer.dict 4096
run store Tests/DocsKitTests/FuzzRegressions/store fuzz/store.dict 8192
run documentfile Tests/DocsKitTests/FuzzRegressions/documentfile fuzz/documentfile.dict 4096
run treemerge Tests/DocsKitTests/FuzzRegressions/treemerge fuzz/treemerge.dict 512
echo "findings (empty is good):"
ls -l fuzz/findings/tokenizer fuzz/findings/store fuzz/findings/documentfile fuzz/findings/treemerge
