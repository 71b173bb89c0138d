// libFuzzer entry for the merge by tree: the input drives a random three-way history of a
// store (Tests/DocsKitTests/Support/TreeMergeHistory.swift), merged by StoreMerge and
// written as a commit's files over the base's (with docsh's fan-out limit and with a tiny
// one); a lost document or files that do not read back as the merged store abort. Built by
// fuzz/run.sh with swiftc directly, with all of DocsKit.

#if canImport(Glibc)
  import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTreeMerge(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  // With docsh's fan-out limit, and with a tiny one that the histories cross.
  for limit in [2_000, 3] {
    var history = TreeMergeHistory(input, fanOutLimit: limit)
    let problems = history.problems()
    if !problems.isEmpty {
      print("tree merge (fan-out limit \(limit)): \(problems)")
      abort()
    }
  }
  return 0
}
