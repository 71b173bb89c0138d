import Testing

@testable import DocsKit

/// The ranking plan travels to SQLite's `docsh_rank` as text: what it encodes reads back
/// the same, and text that is not a plan reads as none.
@Suite struct RankingPlanEncodingTests {
  @Test func aPlanReadsBackAsEncoded() throws {
    var plan = RankingPlan(groups: [0, 1, 1], weights: [1.5, 0.25, 2], queryCounts: [2, 1])
    plan.documentCounts = [7, 30]
    let read = try #require(RankingPlan(encoded: plan.encoded))
    #expect(read.groups == [0, 1, 1])
    #expect(read.weights == [1.5, 0.25, 2])
    #expect(read.documentCounts == [7, 30])
    #expect(read.queryCounts == [2, 1])
  }

  @Test(arguments: ["", "0:1", "0:1|3", "0:x|1:1", "0:1|1:1.5", "0:1:2|1:1", "0:1|1:1|2:2"])
  func textThatIsNoPlanReadsAsNone(text: String) {
    #expect(RankingPlan(encoded: text) == nil)
  }
}
