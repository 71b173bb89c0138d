import Testing

@testable import DocsKit

/// How the history splits `git log`'s output: records between `0x1E`, fields between
/// `0x1F`, found with `memchr` (a large store's first commit names every document).
@Suite struct LogRecordTests {
  private func pieces(_ text: String, _ separator: Character, maximumCount: Int = .max)
    -> [String]
  {
    let bytes = Array(text.utf8)
    let ranges = StoreHistory.byteRanges(
      of: bytes, separatedBy: separator.asciiValue ?? 0, maximumCount: maximumCount)
    return ranges.map { String(decoding: bytes[$0], as: UTF8.self) }
  }

  @Test func recordsLeaveOutEmptyOnes() {
    #expect(pieces("", "|") == [])
    #expect(pieces("|a||b|", "|") == ["a", "b"])
    #expect(pieces("abc", "|") == ["abc"])
  }

  @Test func fieldsKeepEmptyOnesAndTheLastHoldsTheRest() {
    #expect(
      pieces("h|1||body|with|bars", "|", maximumCount: 4) == ["h", "1", "", "body|with|bars"])
    #expect(pieces("h|1|", "|", maximumCount: 4) == ["h", "1", ""])
  }

  @Test func aRangeInsideTheBytesIsSplitAlone() {
    let bytes = Array("x|a|b|y".utf8)
    let ranges = StoreHistory.byteRanges(
      of: bytes, separatedBy: 0x7C, in: 2..<5, maximumCount: 4)
    #expect(ranges == [2..<3, 4..<5])
  }

  @Test func aNeedleIsFoundAtItsFirstPlace() {
    let body = Array("one\nDocsh-Changed: A 1\nDocsh-Changed: B 2\n".utf8)[4...]
    #expect(StoreHistory.firstIndex(of: Array("\nDocsh-Changed: B ".utf8), in: body) == 22)
    #expect(StoreHistory.firstIndex(of: Array("Docsh".utf8), in: body) == 4)
    #expect(StoreHistory.firstIndex(of: Array("missing".utf8), in: body) == nil)
  }
}
