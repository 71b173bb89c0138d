import Testing

@testable import DocsKit

@Suite struct NameTests {
  // MARK: - Trimming

  @Test(arguments: [
    ("  Work  ", "Work"),
    ("\nWork\n", "Work"),
    ("\t \r\nPlan B \n\t", "Plan B"),
    ("\u{A0}Notes\u{3000}", "Notes"),
    ("a  b", "a  b"),
    ("Café", "Café"),
  ])
  func trimsSurroundingWhiteSpaceAndNewlinesOnly(raw: String, expected: String) throws {
    let name = try Name(raw)
    #expect(Array(name.text.unicodeScalars) == Array(expected.unicodeScalars))
  }

  @Test func keepsTheSpellingAsTyped() throws {
    let nfd = "Cafe\u{301}"
    let name = try Name(nfd)
    #expect(Array(name.text.utf8) == Array(nfd.utf8))
    #expect(try Name("WoRk").text == "WoRk")
  }

  // MARK: - What is refused, and what the message says

  @Test(arguments: ["", " ", "\n\t \r\n", "\u{A0}"])
  func refusesEmptyNames(raw: String) {
    #expect(throws: NameError.empty) { try Name(raw) }
    #expect(NameError.empty.description == "a name cannot be empty")
  }

  @Test func acceptsExactly255BytesAndRefuses256() throws {
    let ascii255 = String(repeating: "a", count: 255)
    #expect(try Name(ascii255).text == ascii255)
    // 127 two-byte letters plus one byte: 255 bytes; one more byte makes 256.
    let mixed255 = String(repeating: "é", count: 127) + "x"
    #expect(mixed255.utf8.count == 255)
    #expect(try Name(mixed255).text == mixed255)
    let tooLong = mixed255 + "y"
    let error = #expect(throws: NameError.self) { try Name(tooLong) }
    #expect(error == .tooLong(tooLong, byteCount: 256))
    #expect(error?.description == "a name may hold at most 255 bytes of UTF-8, this one has 256")
  }

  @Test func countsBytesAfterTrimming() throws {
    let name = "  " + String(repeating: "b", count: 255) + "  "
    #expect(try Name(name).text.utf8.count == 255)
  }

  @Test func countsBytesNotCharacters() {
    // 64 four-byte emoji: 64 characters, 256 bytes.
    let emoji = String(repeating: "😀", count: 64)
    #expect(throws: NameError.tooLong(emoji, byteCount: 256)) { try Name(emoji) }
  }

  @Test(arguments: ["a/b", "/", "/leading", "trailing/", "a/b/c"])
  func refusesSlashes(raw: String) {
    let error = #expect(throws: NameError.self) { try Name(raw) }
    #expect(error == .containsSlash(raw))
    #expect(error?.description == "a name cannot contain \"/\": \"\(raw)\"")
  }

  @Test(
    arguments: [
      ("line\nbreak", 0x0A, "U+000A"),
      ("nul\u{0}", 0x00, "U+0000"),
      ("bell\u{7}", 0x07, "U+0007"),
      ("tab\tinside", 0x09, "U+0009"),
      ("cr\rinside", 0x0D, "U+000D"),
      ("esc\u{1B}[31m", 0x1B, "U+001B"),
      ("unit\u{1F}sep", 0x1F, "U+001F"),
      ("del\u{7F}", 0x7F, "U+007F"),
      ("c1\u{80}x", 0x80, "U+0080"),
      ("csi\u{9B}x", 0x9B, "U+009B"),
      ("apc\u{9F}x", 0x9F, "U+009F"),
      ("line\u{2028}sep", 0x2028, "U+2028"),
      ("para\u{2029}sep", 0x2029, "U+2029"),
      ("lre\u{202A}x", 0x202A, "U+202A"),
      ("rle\u{202B}x", 0x202B, "U+202B"),
      ("pdf\u{202C}x", 0x202C, "U+202C"),
      ("lro\u{202D}x", 0x202D, "U+202D"),
      ("txt.\u{202E}exe", 0x202E, "U+202E"),
      ("lri\u{2066}x", 0x2066, "U+2066"),
      ("rli\u{2067}x", 0x2067, "U+2067"),
      ("fsi\u{2068}x", 0x2068, "U+2068"),
      ("pdi\u{2069}x", 0x2069, "U+2069"),
    ] as [(String, UInt32, String)])
  func refusesControlAndBidiCharactersNamingThem(raw: String, scalar: UInt32, shown: String) {
    let error = #expect(throws: NameError.self) { try Name(raw) }
    #expect(error == .containsControlCharacter(raw, scalar))
    #expect(error?.description == "a name cannot contain the control character \(shown)")
  }

  @Test(arguments: [
    "\u{200F}rlm", "zero\u{200B}width", "\u{A0}inner\u{A0}nbsp x", "emoji 👨‍👩‍👧", "日本",
    "x\u{2065}", "x\u{2070}", "x\u{A0}y", "a\u{202F}b",
  ])
  func acceptsCharactersJustOutsideTheForbiddenRanges(raw: String) throws {
    #expect(throws: Never.self) { try Name(raw) }
  }

  @Test(arguments: [".", "..", " . ", "\n..\n"])
  func refusesDotAndDotDot(raw: String) {
    let trimmed = raw.trimmingCharactersForTest()
    let error = #expect(throws: NameError.self) { try Name(raw) }
    #expect(error == .reserved(trimmed))
    #expect(error?.description == "\"\(trimmed)\" is reserved and cannot be a name")
  }

  @Test(arguments: ["...", ".hidden", "a.", ".. x"])
  func acceptsOtherNamesWithDots(raw: String) throws {
    #expect(try Name(raw).text == raw)
  }

  // MARK: - Keys: what uniqueness compares

  @Test(arguments: [
    ("work", "Work"), ("WORK", "work"), ("Café", "Cafe\u{301}"), ("CAFÉ", "cafe\u{301}"),
    ("Ångström", "A\u{30A}ngstro\u{308}m"), ("ΣΟΦΙΑ", "σοφια"),
  ])
  func keysIgnoreCaseAndNormalization(lhs: String, rhs: String) throws {
    #expect(try Name(lhs).key == Name(rhs).key)
    // …while the names themselves stay as typed.
    #expect(try Array(Name(lhs).text.unicodeScalars) == Array(lhs.unicodeScalars))
    #expect(try Array(Name(rhs).text.unicodeScalars) == Array(rhs.unicodeScalars))
  }

  /// A key is the name lowercased, whichever path made it: plain ASCII with capitals or
  /// without, ASCII with a control-free tab-less run, or any other text.
  @Test(arguments: [
    "Document 00042", "document 00042", "ABC XYZ [1]", "a@Z", "Zürich Notes", "ÉTÉ 2024",
  ])
  func keysAreTheNameLowercased(raw: String) throws {
    #expect(try Name(raw).key.folded == raw.lowercased())
  }

  @Test(arguments: [("work", "works"), ("Cafe", "Café"), ("a b", "ab"), ("1", "l")])
  func keysTellDifferentNamesApart(lhs: String, rhs: String) throws {
    #expect(try Name(lhs).key != Name(rhs).key)
  }
}

extension String {
  /// Trimming as the rule states it, written independently of `Name`.
  fileprivate func trimmingCharactersForTest() -> String {
    var scalars = Substring(self).unicodeScalars[...]
    while let first = scalars.first, first.properties.isWhitespace { scalars = scalars.dropFirst() }
    while let last = scalars.last, last.properties.isWhitespace { scalars = scalars.dropLast() }
    return String(String.UnicodeScalarView(scalars))
  }
}
