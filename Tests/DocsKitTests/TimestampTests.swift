import Testing

@testable import DocsKit

@Suite struct TimestampTests {
  @Test(arguments: [
    ("1970-01-01T00:00:00.000Z", Int64(0)),
    ("2026-11-29T14:53:00.123Z", Int64(1_795_963_980_123)),
    ("2000-02-29T23:59:59.999Z", Int64(951_868_799_999)),
    ("1969-12-31T23:59:59.500Z", Int64(-500)),
  ])
  func formatsAndParsesTheStoreShape(text: String, millis: Int64) throws {
    let parsed = try #require(Timestamp(iso8601: text))
    #expect(parsed.millisecondsSince1970 == millis)
    #expect(Timestamp(millisecondsSince1970: millis).iso8601 == text)
  }

  @Test func acceptsOffsetsAndShortFractionsFromOtherTools() throws {
    #expect(Timestamp(iso8601: "2026-11-29T15:53:00+01:00")?.iso8601 == "2026-11-29T14:53:00.000Z")
    #expect(
      Timestamp(iso8601: "2026-11-29T14:53:00.5Z")?.millisecondsSince1970 == 1_795_963_980_500)
  }

  @Test(arguments: [
    "", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-29 14:53:00Z",
    "2026-11-29T14:53:00", "2026-11-29T14:53:00.Z", "2026-11-29T14:53:00Zjunk",
  ])
  func rejectsMalformedTimestamps(text: String) {
    #expect(Timestamp(iso8601: text) == nil)
  }
}
