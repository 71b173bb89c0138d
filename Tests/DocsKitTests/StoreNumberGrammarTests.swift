import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Every number in a store follows JSON's grammar exactly (RFC 8259:
/// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`); `size`, `generation` and
/// `version` are besides written as digits alone. What breaks either rule is refused at
/// load, at the line and column where the number starts.
@Suite struct StoreNumberGrammarTests {
  typealias Store = JSONStoreLoadErrorTests

  /// A store with `number` as the value of `key` (size, generation, version, or an unknown
  /// key of the document), the spot marked with "¶".
  static func store(_ key: String, _ number: String) -> String {
    switch key {
    case "size": return Store.store(size: "¶" + number)
    case "generation":
      return Store.store().replacingOccurrences(
        of: "\"generation\":3", with: "\"generation\":¶" + number)
    case "version":
      return Store.store().replacingOccurrences(of: "\"version\":1", with: "\"version\":¶" + number)
    default:
      return Store.store(size: "4,\n\"\(key)\":¶" + number)
    }
  }

  /// Not JSON at all: refused wherever they stand, known key or not.
  static let notJSON: [(number: String, reason: String)] = [
    ("012", "invalid number: a leading 0 before other digits"),
    ("00", "invalid number: a leading 0 before other digits"),
    ("-012", "invalid number: a leading 0 before other digits"),
    ("0123.5", "invalid number: a leading 0 before other digits"),
    ("1.", "invalid number: no digit after '.'"),
    ("1.e3", "invalid number: no digit after '.'"),
    ("-", "invalid number: no digit after '-'"),
    ("-x", "invalid number: no digit after '-'"),
    ("1e", "invalid number: no digit in the exponent"),
    ("1E+", "invalid number: no digit in the exponent"),
    ("2e-x", "invalid number: no digit in the exponent"),
  ]

  @Test(arguments: ["size", "generation", "version", "extra"], notJSON)
  func numbersJSONDoesNotAllowAreRefusedWhereTheyStart(
    key: String, bad: (number: String, reason: String)
  ) throws {
    try expectRefusal(Self.store(key, bad.number), reason: bad.reason, "\(key): \(bad.number)")
  }

  /// Valid JSON numbers whose spelling is not digits alone, even when their value is whole.
  static let notPlainDigits = [
    "1.0", "1e2", "1E2", "-0", "0.0", "4e0", "-1", "1.5", "1e-2", "0E+0",
  ]

  @Test(arguments: ["size", "generation", "version"], notPlainDigits)
  func wholeNumberFieldsTakeDigitsAlone(key: String, number: String) throws {
    try expectRefusal(
      Self.store(key, number),
      reason: "\"\(key)\" is not a whole number of 0 or more in plain digits",
      "\(key): \(number)")
  }

  @Test(arguments: ["size", "generation"], [".5", "+1", "\"4\"", "null", "true"])
  func wholeNumberFieldsRefuseWhatIsNoNumber(key: String, value: String) throws {
    try expectRefusal(
      Self.store(key, value), reason: "\"\(key)\" is not a whole number of 0 or more",
      "\(key): \(value)")
  }

  @Test(arguments: [".5", "+1", "Infinity", "NaN"])
  func unknownKeysRefuseWhatIsNoValue(value: String) throws {
    try expectRefusal(Self.store("extra", value), reason: "expected a value", "extra: \(value)")
  }

  @Test func aWholeNumberTooLargeForAnIntegerIsRefused() throws {
    try expectRefusal(
      Self.store("size", "9223372036854775808"), reason: "\"size\" is too large", "size")
  }

  @Test(arguments: ["0", "4", "10", "1000000", "9223372036854775807"])
  func plainDigitsLoadAsTheirValue(number: String) throws {
    let harness = try Harness()
    try write(
      Self.store("size", number).replacingOccurrences(of: "¶", with: ""), to: harness.storePath)
    let context = try harness.openContext()
    let id = try #require(ObjectID(Store.documentID))
    #expect(try context.document(withID: id)?.size == Int(number))

    let generation = try Harness()
    try write(
      Self.store("generation", number).replacingOccurrences(of: "¶", with: ""),
      to: generation.storePath)
    #expect(try generation.openContext().generation == Int(number))
  }

  /// Every spelling JSON allows is skipped in a key the format does not know, nested or not.
  static let validJSON = [
    "0", "-0", "7", "-7", "0.5", "-0.0", "10.25", "1e5", "1E5", "1e+5", "1e-5", "-1.5e-3",
    "3.0E+2", "0e0", "12345678901234567890", "123.456e789",
  ]

  @Test(arguments: validJSON)
  func unknownKeysTakeEveryValidNumber(number: String) throws {
    for text in [
      Self.store("extra", number), Self.store("extra", "[\(number),{\"n\":\(number)}]"),
    ] {
      let harness = try Harness()
      try write(text.replacingOccurrences(of: "¶", with: ""), to: harness.storePath)
      #expect(try harness.openContext().documentCount == 1, "\(number)")
    }
  }

  /// Valid JSON that Foundation refuses for its range (a `Double` cannot hold it), not its
  /// grammar; docsh skips it like any other number it does not keep.
  static let beyondDouble: Set = ["123.456e789"]

  /// The tables agree with another JSON parser: Foundation refuses what is not JSON and
  /// takes the rest, so the tables test the grammar, not a reading of it.
  @Test func theTablesAgreeWithFoundation() {
    func parses(_ number: String) -> Bool {
      (try? JSONSerialization.jsonObject(
        with: Data("[\(number)]".utf8), options: [])) != nil
    }
    for (number, _) in Self.notJSON {
      #expect(!parses(number), "\(number)")
    }
    for number in Self.validJSON + Self.notPlainDigits where !Self.beyondDouble.contains(number) {
      #expect(parses(number), "\(number)")
    }
  }

  private func expectRefusal(
    _ marked: String, reason: String, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let (text, line, column) = Store.locate(marked)
    let harness = try Harness()
    try write(text, to: harness.storePath)
    let error = #expect(throws: StoreError.self, "\(label)", sourceLocation: sourceLocation) {
      try harness.openContext()
    }
    #expect(
      error == .malformed(harness.storePath, line: line, column: column, reason: reason),
      "\(label)", sourceLocation: sourceLocation)
  }
}
