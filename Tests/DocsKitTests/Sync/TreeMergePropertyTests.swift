import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Random three-way histories merged by tree: nothing either side saved is lost, and the
/// merged files read back as the merged store (the seeds `make fuzz` starts from, too).
@Suite struct TreeMergePropertyTests {
  /// With the fan-out limit of docsh, and with one of 3 that many categories cross either
  /// way between the base and the merge (their files moving into buckets or out).
  @Test(arguments: [RepositoryLayout.defaultFanOutLimit, 3])
  func everyDocumentSurvivesAndTheMergedTreeReadsBack(fanOutLimit: Int) {
    var merged = 0
    var crossings = 0
    for seed in 0..<400 {
      var generator = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1)
      let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
      var history = TreeMergeHistory(bytes, fanOutLimit: fanOutLimit)
      let problems = history.problems()
      #expect(problems.isEmpty, "seed \(seed): \(problems)")
      merged += history.mergedDocumentCount
      crossings += history.crossingCount
    }
    // The histories merged real stores, not empty ones.
    #expect(merged > 400)
    // With the tiny limit, merges over fanned-out folders and moves across it happened.
    #expect((crossings > 10) == (fanOutLimit == 3), "\(crossings) crossings")
  }

  /// The inputs `make fuzz` starts from, and any it found: each replayed, with both limits
  /// as the fuzzer runs them.
  @Test func theFuzzersSeedsAndFindingsHoldToo() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("FuzzRegressions/treemerge")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(!names.isEmpty)
    for name in names {
      let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
      for limit in [RepositoryLayout.defaultFanOutLimit, 3] {
        var history = TreeMergeHistory(bytes, fanOutLimit: limit)
        let problems = history.problems()
        #expect(problems.isEmpty, "\(name), fan-out limit \(limit): \(problems)")
      }
    }
  }
}
