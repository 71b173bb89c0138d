import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// The real binary with a fan-out limit of 3 (`DOCSH_TEST_FAN_OUT_LIMIT`): a category of
/// four documents is committed in bucket folders, and `log`, `diff` and `restore` follow a
/// document across the crossing.
@Suite struct FanOutCommandTests {
  let machines: TwoMachines
  let tiny = ["DOCSH_TEST_FAN_OUT_LIMIT": "3"]

  init() throws { machines = try TwoMachines("shellfanout") }

  @Test func aCategoryOverTheLimitIsCommittedInBucketsAndHistoryFollowsItsDocuments() throws {
    let laptop = machines.laptop
    try laptop.succeed("mkdir Work; new Work/A one; new Work/B b; new Work/C c", extra: tiny)
    #expect(try laptop.run("sync '\(machines.remote)'", extra: tiny).status == 0)
    let flat = try laptop.gitText(["rev-parse", "HEAD"])
    #expect(try laptop.gitText(["ls-tree", "--name-only", "HEAD:Work"]).contains("\nA.md\n"))
    try laptop.succeed("new Work/D d; write Work/A two; save", extra: tiny)
    let paths = try laptop.gitText(["ls-tree", "-r", "--name-only", "HEAD"])
      .split(separator: "\n").map(String.init)
    let documents = paths.filter { $0.hasPrefix("Work/") && $0 != "Work/.docsh-category" }
    #expect(documents.count == 4)
    #expect(documents.allSatisfy { $0.wholeMatch(of: /Work\/[0-9a-f]{2}\/[A-D]\.md/) != nil })
    #expect(Set(documents.map { $0.dropLast(3).suffix(1) }) == ["A", "B", "C", "D"])
    let record = try laptop.gitText(["cat-file", "-p", "HEAD:Work/.docsh-category"])
    #expect(record.contains("\nfan-out: 256\n"))
    let log = try laptop.succeed("log Work/A", extra: tiny).split(separator: "\n")
    #expect(log.count == 2)
    #expect(try laptop.succeed("diff Work/A \(flat)", extra: tiny).contains("-one"))
    try laptop.succeed("restore Work/A \(flat); save", extra: tiny)
    let restored = try laptop.succeed("cat Work/A", extra: tiny)
    #expect(restored == "one")
    // A docsh without the seam reads the fanned-out tree as it is.
    #expect(try laptop.succeed("log Work/A").split(separator: "\n").count == 3)
  }
}
