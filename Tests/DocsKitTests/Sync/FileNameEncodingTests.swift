import DocsTestSupport
import Testing

@testable import DocsKit

@Suite struct FileNameEncodingTests {
  // MARK: - Names and their file names

  @Test(arguments: [
    ("Plan for May", "Plan for May"),
    ("Café", "Café"),
    ("😀 emoji and 日本語", "😀 emoji and 日本語"),
    ("v1.2 notes", "v1.2 notes"),
    ("a  b", "a  b"),
    ("x~y#z&{}[]!@$^()';,=+`", "x~y#z&{}[]!@$^()';,=+`"),
    ("100%", "100%25"),
    ("x%41", "x%2541"),
    ("a:b", "a%3Ab"),
    ("back\\slash", "back%5Cslash"),
    ("star*", "star%2A"),
    ("why?", "why%3F"),
    ("say \"hi\"", "say %22hi%22"),
    ("<tag>", "%3Ctag%3E"),
    ("a|b", "a%7Cb"),
    ("é:é", "é%3Aé"),
    (".gitignore", "%2Egitignore"),
    (".gitattributes", "%2Egitattributes"),
    (".git", "%2Egit"),
    (".docsh-category", "%2Edocsh-category"),
    ("...", "%2E.%2E"),
    ("end.", "end%2E"),
    ("a. .", "a. %2E"),
    ("con", "%63on"),
    ("CON", "%43ON"),
    ("Con.txt", "%43on.txt"),
    ("con.txt", "%63on.txt"),
    ("Nul.tar.gz", "%4Eul.tar.gz"),
    ("aux", "%61ux"),
    ("prn.", "%70rn%2E"),
    ("COM1", "%43OM1"),
    ("com9.log", "%63om9.log"),
    ("lpt1", "%6Cpt1"),
    ("LPT9", "%4CPT9"),
    ("COM¹", "%43OM¹"),
    ("lpt³.txt", "%6Cpt³.txt"),
    ("git~1", "%67it~1"),
    ("GIT~1", "%47IT~1"),
    ("com0", "com0"),
    ("com10", "com10"),
    ("lpt", "lpt"),
    ("console", "console"),
    ("conx.txt", "conx.txt"),
    ("my con", "my con"),
    ("con-notes", "con-notes"),
    ("git~2", "git~2"),
    ("git~1.txt", "git~1.txt"),
  ])
  func encodesTheCharactersFileSystemsRefuse(text: String, fileName: String) throws {
    let name = try Name(text)
    #expect(FileNameEncoding.encode(name) == fileName)
    let decoded = try #require(FileNameEncoding.decode(fileName))
    #expect(Array(decoded.text.utf8) == Array(text.utf8))
  }

  @Test func anEncodedNameMayExceed255Bytes() throws {
    let text = String(repeating: "?", count: 255)
    let fileName = FileNameEncoding.encode(try Name(text))
    #expect(fileName.utf8.count == 765)
    #expect(FileNameEncoding.decode(fileName)?.text == text)
  }

  // MARK: - Decoding what a clone holds

  @Test(arguments: [
    ("Plan for May", "Plan for May"),
    ("what?", "what?"),
    ("a:b", "a:b"),
    ("end.", "end."),
    ("con.txt", "con.txt"),
    ("why%3f", "why?"),
    ("%2e%2Egit", "..git"),
    ("%43af%C3%A9", "Café"),
    ("Cafe\u{301}", "Cafe\u{301}"),
    ("%F0%9F%98%80", "😀"),
  ])
  func decodesNamesTypedInAClone(fileName: String, text: String) throws {
    let name = try #require(FileNameEncoding.decode(fileName))
    #expect(Array(name.text.utf8) == Array(text.utf8))
  }

  @Test(arguments: [
    "", "%", "%4", "100%", "%G1", "%ZZ", "a%2", "%%41",
    "%FF", "%C3", "%C3%28", "%ED%A0%80", "%C0%AF",
    "%2F", "a%2Fb", "%00", "%0A", "a%7Fb", "%E2%80%AE", "%E2%80%A8",
    "%2E", "%2E%2E", ".", "..", ".gitignore", ".docsh-category", ".hidden",
    " leading", "trailing ", "%20x", "x%20", "%09tab", "\u{3000}wide",
    String(repeating: "a", count: 256), String(repeating: "%61", count: 256),
  ])
  func refusesFileNamesThatStandForNoName(fileName: String) {
    #expect(FileNameEncoding.decode(fileName) == nil)
  }

  @Test func refusesFileNameBytesThatAreNotUTF8() {
    #expect(FileNameEncoding.decode(bytes: [0x61, 0xFF]) == nil)
    #expect(FileNameEncoding.decode(bytes: Array("Plan".utf8))?.text == "Plan")
  }

  // MARK: - Paths

  @Test func pathsJoinTheEncodedFolderAndFileNames() throws {
    let work = try Name("Work")
    #expect(
      FileNameEncoding.path(category: work, document: try Name("Plan: May")) == "Work/Plan%3A May")
    #expect(
      FileNameEncoding.path(category: try Name(".config"), document: try Name("con"))
        == "%2Econfig/%63on")
    #expect(FileNameEncoding.recordPath(category: work) == "Work/.docsh-category")
    #expect(FileNameEncoding.recordPath(category: try Name("a?")) == "a%3F/.docsh-category")
  }

  // MARK: - Case

  @Test func namesDocshTakesAsOneKeepTheirCase() throws {
    let upper = try Name("Plan")
    let lower = try Name("plan")
    #expect(upper.key == lower.key)  // docsh refuses the second in one category
    #expect(FileNameEncoding.encode(upper) == "Plan")
    #expect(FileNameEncoding.encode(lower) == "plan")
  }

  @Test(arguments: [
    ("Plan", "Plan?"), ("a%3F", "a?"), ("con", "%63on"), ("Con", "%43on"), ("a:b", "a%3Ab"),
    ("x.", "x%2E"), (".x", "%2Ex"), ("git~1", "%67it~1"), ("é", "e"), ("ß", "ss"),
  ])
  func namesWithDifferentKeysHaveFileNamesDifferentIgnoringCase(first: String, second: String)
    throws
  {
    let a = try Name(first)
    let b = try Name(second)
    #expect(a.key != b.key)
    #expect(FileNameEncoding.encode(a).lowercased() != FileNameEncoding.encode(b).lowercased())
  }

  // MARK: - Properties over random names

  /// Characters the random names are drawn from: every escaped one, letters of several
  /// scripts and cases, combining marks, emoji, spaces.
  static let alphabet: [String] = [
    "%", ":", "\\", "*", "?", "\"", "<", ">", "|", ".", " ", "~", "-", "_", "#", "a", "A", "c",
    "C", "o", "O", "n", "N", "u", "l", "L", "p", "P", "t", "r", "x", "g", "i", "1", "9", "0",
    "¹", "é", "E\u{301}", "ß", "İ", "ı", "Σ", "ς", "日", "本", "😀", "👩‍💻", "🇫🇷", "\u{A0}", "\u{200D}",
    "%41", "%2E", "%2F", "com", "lpt", "con", "git~1",
  ]

  static func randomNames(count: Int, seed: UInt64) -> [Name] {
    var generator = SeededGenerator(seed: seed)
    var names: [Name] = []
    while names.count < count {
      let length = Int.random(in: 1...12, using: &generator)
      var text = ""
      for _ in 0..<length {
        text += alphabet.randomElement(using: &generator) ?? "a"
      }
      if Bool.random(using: &generator) {
        text += [".", ".txt", " .", ".md"].randomElement(using: &generator) ?? ""
      }
      if let name = try? Name(text) { names.append(name) }
    }
    return names
  }

  @Test func everyNameSurvivesARoundTrip() {
    for name in FileNameEncodingTests.randomNames(count: 5_000, seed: 1) {
      let fileName = FileNameEncoding.encode(name)
      let decoded = FileNameEncoding.decode(fileName)
      #expect(
        decoded?.text.utf8.elementsEqual(name.text.utf8) == true, "\(name.text) → \(fileName)")
    }
  }

  @Test func noFileNameHoldsWhatFileSystemsRefuse() {
    let device =
      ["con", "prn", "aux", "nul"]
      + (["1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³"]).flatMap {
        ["com\($0)", "lpt\($0)"]
      }
    for name in FileNameEncodingTests.randomNames(count: 5_000, seed: 2) {
      let fileName = FileNameEncoding.encode(name)
      #expect(!fileName.contains { ":\\*?\"<>|/".contains($0) }, "\(fileName)")
      #expect(!fileName.hasPrefix("."), "\(fileName)")
      #expect(!fileName.hasSuffix(".") && !fileName.hasSuffix(" "), "\(fileName)")
      let stem = String(
        fileName.lowercased().split(separator: ".", omittingEmptySubsequences: false)[0])
      #expect(!device.contains(stem), "\(fileName)")
      #expect(fileName.lowercased() != "git~1", "\(fileName)")
      // Every % starts an escape of two upper-case hex digits.
      let bytes = Array(fileName.utf8)
      for index in bytes.indices where bytes[index] == UInt8(ascii: "%") {
        #expect(index + 2 < bytes.count, "\(fileName)")
        let digits = bytes[(index + 1)...].prefix(2)
        #expect(digits.allSatisfy { "0123456789ABCDEF".utf8.contains($0) }, "\(fileName)")
      }
    }
  }

  @Test func fileNamesEqualIgnoringCaseBelongToNamesWithOneKey() {
    let names = FileNameEncodingTests.randomNames(count: 3_000, seed: 3)
    var byFolded: [String: Name] = [:]
    var clashes = 0
    for name in names {
      let folded = FileNameEncoding.encode(name).lowercased()
      if let other = byFolded[folded] {
        clashes += 1
        #expect(other.key == name.key, "\(other.text) and \(name.text) → \(folded)")
      } else {
        byFolded[folded] = name
      }
    }
    // The alphabet is small enough that some names meet: the check above did run.
    #expect(clashes > 0)
  }
}
