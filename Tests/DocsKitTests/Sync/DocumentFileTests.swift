import Foundation
import Testing

@testable import DocsKit

/// The UUID and time most cases use, in the forms docsh writes them.
private let idText = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
private let modifiedText = "2026-12-01T23:29:00.123Z"
private let header = "---\nid: \(idText)\nmodified: \(modifiedText)\n---\n"

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite struct DocumentFileTests {
  let id = ObjectID(high: 0x1b4e_28ba_2fa1_11d2, low: 0x883f_0016_d3cc_a427)
  let modified = Timestamp(millisecondsSince1970: 1_796_167_740_123)

  // MARK: - Rendering

  @Test func rendersTheHeaderThenTheContentExactly() {
    let rendered = DocumentFile.render(id: id, modified: modified, content: "Ship it\n")
    #expect(rendered == bytes(header + "Ship it\n"))
    #expect(modified.iso8601 == modifiedText)
  }

  @Test func rendersEmptyContentAsNothingAfterTheClosingLine() {
    #expect(DocumentFile.render(id: id, modified: modified, content: "") == bytes(header))
  }

  // MARK: - Round trips

  @Test(arguments: [
    "", "one line without a newline", "a final newline\n", "two\nlines\n\n", "\n", "\n\nleading",
    "---", "---\n", "---\nid: \(idText)\n---\n", "---\ntitle: Jekyll\n---\nbody\n",
    "windows\r\nline ends\r\n", "\r\n", "\r", "lone \r in the middle",
    "emoji 😀, accents é e\u{301}",
    "\u{FEFF}a byte order mark in the content", "\0 NUL and \u{7} BEL", "tabs\tand  spaces  ",
  ])
  func contentSurvivesARoundTripByteForByte(content: String) throws {
    let parsed = DocumentFile.parse(
      DocumentFile.render(id: id, modified: modified, content: content))
    guard case .docsh(let parsedID, let parsedModified, let parsedContent, _) = parsed else {
      Issue.record("parsed as \(parsed)")
      return
    }
    #expect(parsedID == id)
    #expect(parsedModified == modified)
    #expect(Array(parsedContent.utf8) == Array(content.utf8))
    #expect(parsedContent.utf8.count == content.utf8.count)
  }

  @Test(arguments: [
    Int64(0), 1, 999, -500, -1, 1_796_167_740_001, 253_402_300_799_999, -62_167_219_200_000,
  ])
  func millisecondsSurviveARoundTrip(milliseconds: Int64) {
    let moment = Timestamp(millisecondsSince1970: milliseconds)
    let parsed = DocumentFile.parse(DocumentFile.render(id: id, modified: moment, content: "x"))
    #expect(parsed == .docsh(id: id, modified: moment, content: "x", tags: []))
  }

  @Test func aLargeContentSurvivesARoundTrip() {
    let content = String(repeating: "line of text ✓\n", count: 20_000)
    let parsed = DocumentFile.parse(
      DocumentFile.render(id: id, modified: modified, content: content))
    guard case .docsh(_, _, let parsedContent, _) = parsed else {
      Issue.record("parsed as \(parsed)")
      return
    }
    #expect(Array(parsedContent.utf8) == Array(content.utf8))
  }

  // MARK: - What else reads as docsh's

  @Test func readsHeaderLinesEndingInCRLFAndKeepsTheContentsLineEnds() {
    let file = "---\r\nid: \(idText)\r\nmodified: \(modifiedText)\r\n---\r\nline one\r\nline two"
    #expect(
      DocumentFile.parse(bytes(file))
        == .docsh(id: id, modified: modified, content: "line one\r\nline two", tags: []))
  }

  @Test func readsHeadersWithMixedLineEnds() {
    let file = "---\nid: \(idText)\r\nmodified: \(modifiedText)\n---\r\n\r\n"
    #expect(DocumentFile.parse(bytes(file)) == .docsh(id: id, modified: modified, content: "\r\n"))
  }

  @Test func readsAClosingLineAtTheEndOfTheFileAsEmptyContent() {
    let file = "---\nid: \(idText)\nmodified: \(modifiedText)\n---"
    #expect(DocumentFile.parse(bytes(file)) == .docsh(id: id, modified: modified, content: ""))
  }

  @Test func readsKeysInEitherOrderAndValuesWithSpacesAroundThem() {
    let file = "---\nmodified:\t\(modifiedText)  \nid:\(idText.uppercased()) \n---\nbody"
    #expect(DocumentFile.parse(bytes(file)) == .docsh(id: id, modified: modified, content: "body"))
  }

  @Test func readsTimesOtherToolsWrite() {
    let file = "---\nid: \(idText)\nmodified: 2026-12-02T00:29:00+01:00\n---\n"
    let expected = Timestamp(millisecondsSince1970: 1_796_167_740_000)
    #expect(DocumentFile.parse(bytes(file)) == .docsh(id: id, modified: expected, content: ""))
  }

  @Test func dropsAByteOrderMarkBeforeADocshHeader() {
    let file = [0xEF, 0xBB, 0xBF] + bytes(header + "text")
    #expect(DocumentFile.parse(file) == .docsh(id: id, modified: modified, content: "text"))
  }

  // MARK: - Plain files

  @Test(arguments: [
    "", "Just text\n", "no final newline", "---", "---\n", "--- \nid: \(idText)\n---\n",
    " ---\nid: \(idText)\n---\n", "text first\n" + header, "---\ntitle: Jekyll\n---\n",
    "---\r\ntitle: x\r\n---\r\nbody",
    "---\nid : \(idText)\n---\n", "---\nID: \(idText)\n---\n", "---\n\n---\n", "---\n---\n",
    "---\ntitle: x\n", "---\nno closing line\nand no id\n", "\u{FEFF}---\ntitle: x\n---\n",
    "\u{FEFF}plain", "---\n# id: \(idText)\n---\n",
  ])
  func aFileWithoutADocshHeaderIsAllContent(file: String) throws {
    let parsed = DocumentFile.parse(bytes(file))
    guard case .plain(let content, _) = parsed else {
      Issue.record("parsed as \(parsed)")
      return
    }
    #expect(Array(content.utf8) == bytes(file))
  }

  // MARK: - Invalid files

  @Test(arguments: [
    ([0xFF], FrontMatterProblem.notUTF8),
    ([0x61, 0xC3], .notUTF8),
    ([0xC0, 0x80], .notUTF8),
    ([0xED, 0xA0, 0x80], .notUTF8),
    (bytes(header) + [0xFE], .notUTF8),
  ])
  func refusesBytesThatAreNotUTF8(file: [UInt8], reason: FrontMatterProblem) {
    #expect(DocumentFile.parse(file) == .invalid(reason: reason))
  }

  @Test(arguments: [
    (
      "---\nid: nope\nmodified: \(modifiedText)\n---\n",
      FrontMatterProblem.malformedID("nope", line: 2)
    ),
    ("---\nid:\nmodified: \(modifiedText)\n---\n", .malformedID("", line: 2)),
    (
      "---\nid: {\(idText)}\nmodified: \(modifiedText)\n---\n", .malformedID("{\(idText)}", line: 2)
    ),
    ("---\nid: \(idText)\nmodified: yesterday\n---\n", .malformedTimestamp("yesterday", line: 3)),
    ("---\nid: \(idText)\nmodified: 2026-12-01\n---\n", .malformedTimestamp("2026-12-01", line: 3)),
    (
      "---\nid: \(idText)\nmodified: 9999-12-31T23:59:59.000-01:00\n---\n",
      .malformedTimestamp("9999-12-31T23:59:59.000-01:00", line: 3)
    ),
    (
      "---\nid: \(idText)\nid: \(idText)\nmodified: \(modifiedText)\n---\n",
      .duplicateKey("id", line: 3)
    ),
    (
      "---\nid: \(idText)\nmodified: \(modifiedText)\nmodified: \(modifiedText)\n---\n",
      .duplicateKey("modified", line: 4)
    ),
    ("---\ntitle: Jekyll\nid: intro\n---\n", .malformedID("intro", line: 3)),
    ("---\nid: \(idText)\nname: Plan\n---\n", .missingKey("modified")),
    // An indented line continues the entry before it: an id is one line.
    ("---\nid: \(idText)\n modified: \(modifiedText)\n---\n", .malformedLine(line: 3)),
    (
      "---\nid: \(idText)\nmodified: \(modifiedText)\ntags: [a, \"b c\"]\n---\n",
      .malformedTags("b c", .invalidCharacter("b c", " "), line: 4)
    ),
    ("---\nid: \(idText)\n---\n", .missingKey("modified")),
    ("---\nid: \(idText)\nmodified: \(modifiedText)\n\n---\n", .malformedLine(line: 4)),
    ("---\nid: \(idText)\njust words\n---\n", .malformedLine(line: 3)),
    ("---\nid: \(idText)\n: value\n---\n", .malformedLine(line: 3)),
    ("---\nid: \(idText)\nmodified: \(modifiedText)\nbody\n", .unclosedHeader),
    ("---\nid: \(idText)\nmodified: \(modifiedText)", .unclosedHeader),
    ("---\ntitle: no closing line\nid: \(idText)\n", .unclosedHeader),
    ("---\r\nid: \(idText)\r\nmodified: \(modifiedText)\r\n--- \r\n", .unclosedHeader),
  ])
  func refusesADocshHeaderItCannotRead(file: String, reason: FrontMatterProblem) {
    #expect(DocumentFile.parse(bytes(file)) == .invalid(reason: reason))
  }

  @Test(arguments: [
    (FrontMatterProblem.notUTF8, "the file is not UTF-8 text"),
    (.unclosedHeader, "the header that starts on line 1 has no closing \"---\" line"),
    (.duplicateKey("id", line: 3), "line 3: \"id\" is given twice"),
    (.unknownKey("title", line: 4), "line 4: unknown key \"title\""),
    (.malformedID("nope", line: 2), "line 2: \"nope\" is not a UUID"),
    (.missingKey("modified"), "the header has no \"modified:\" line"),
    (.invalidName("", .empty, line: 3), "line 3: a name cannot be empty"),
  ])
  func saysWhatIsWrong(problem: FrontMatterProblem, text: String) {
    #expect(problem.description == text)
  }
}

@Suite struct CategoryFileTests {
  let id = ObjectID(high: 0x1b4e_28ba_2fa1_11d2, low: 0x883f_0016_d3cc_a427)

  @Test func rendersTheHeaderAlone() throws {
    let rendered = CategoryFile.render(id: id, name: try Name("Work"))
    #expect(rendered == bytes("---\nid: \(idText)\nname: Work\n---\n"))
    #expect(CategoryFile.fileName == ".docsh-category")
  }

  @Test(arguments: [
    "Work", "Notes: 2026", "Café", "Cafe\u{301}", "a  b", "😀", "100%", ".hidden", "---", "id: x",
    "#hash", "\"quoted\"", String(repeating: "é", count: 127) + "x",
  ])
  func aRecordSurvivesARoundTrip(text: String) throws {
    let name = try Name(text)
    let parsed = CategoryFile.parse(CategoryFile.render(id: id, name: name))
    guard case .category(let parsedID, let parsedName, _) = parsed else {
      Issue.record("parsed as \(parsed)")
      return
    }
    #expect(parsedID == id)
    #expect(Array(parsedName.text.utf8) == Array(name.text.utf8))
  }

  @Test(arguments: [
    "---\r\nid: \(idText)\r\nname: Work\r\n---\r\n", "---\nname: Work\nid: \(idText)\n---\n",
    "---\nid: \(idText)\nname: Work\n---\n\n\r\n  \n", "---\nid: \(idText)\nname: Work\n---",
    "\u{FEFF}---\nid: \(idText)\nname:   Work \n---\n",
  ])
  func readsRecordsAnEditorMayHaveTouched(file: String) throws {
    #expect(CategoryFile.parse(bytes(file)) == .category(id: id, name: try Name("Work")))
  }

  @Test func aFannedOutRecordSaysSoAndReadsBack() throws {
    let name = try Name("Work")
    let rendered = CategoryFile.render(id: id, name: name, fanOut: 256)
    #expect(rendered == bytes("---\nid: \(idText)\nname: Work\nfan-out: 256\n---\n"))
    #expect(CategoryFile.parse(rendered) == .category(id: id, name: name, fanOut: 256))
  }

  @Test(arguments: [
    ("---\nid: \(idText)\nname: Work\n---\n", 0),
    ("---\nid: \(idText)\nname: Work\nfan-out: 256\n---\n", 256),
    ("---\nfan-out:   256 \nid: \(idText)\nname: Work\n---\n", 256),
    ("---\nid: \(idText)\nname: Work\nfan-out: many\n---\n", 0),
    ("---\nid: \(idText)\nname: Work\nfan-out: -4\n---\n", 0),
  ])
  func readsTheFanOutTolerantly(file: String, fanOut: Int) throws {
    #expect(
      CategoryFile.parse(bytes(file)) == .category(id: id, name: try Name("Work"), fanOut: fanOut))
  }

  @Test(arguments: [
    ("", FrontMatterProblem.noHeader),
    ("Work\n", .noHeader),
    ("---\nname: Work\n", .noHeader),
    ("---\nid: \(idText)\nname: Work\n", .unclosedHeader),
    ("---\nname: Work\n---\n", .missingKey("id")),
    ("---\n---\n", .missingKey("id")),
    ("---\nid: \(idText)\n---\n", .missingKey("name")),
    ("---\nid: 42\nname: Work\n---\n", .malformedID("42", line: 2)),
    ("---\nid: \(idText)\nname:\n---\n", .invalidName("", .empty, line: 3)),
    ("---\nid: \(idText)\nname: a/b\n---\n", .invalidName("a/b", .containsSlash("a/b"), line: 3)),
    ("---\nid: \(idText)\nname: ..\n---\n", .invalidName("..", .reserved(".."), line: 3)),
    ("---\nid: \(idText)\nname: A\nname: B\n---\n", .duplicateKey("name", line: 4)),
    (
      "---\nid: \(idText)\nname: A\nmodified: \(modifiedText)\n---\n",
      .unknownKey("modified", line: 4)
    ),
    ("---\nid: \(idText)\nname: A\nwhat\n---\n", .malformedLine(line: 4)),
    ("---\nid: \(idText)\nname: Work\n---\nsome text\n", .contentAfterHeader(line: 5)),
    ("---\nid: \(idText)\nname: Work\n---\n\n\nx", .contentAfterHeader(line: 7)),
  ])
  func refusesARecordItCannotRead(file: String, reason: FrontMatterProblem) {
    #expect(CategoryFile.parse(bytes(file)) == .invalid(reason: reason))
  }

  @Test func refusesARecordThatIsNotUTF8() {
    let file = bytes("---\nid: \(idText)\nname: ") + [0xC3, 0x28] + bytes("\n---\n")
    #expect(CategoryFile.parse(file) == .invalid(reason: .notUTF8))
  }

  @Test func refusesANameWithAControlCharacter() {
    let file = bytes("---\nid: \(idText)\nname: a\u{7}b\n---\n")
    #expect(
      CategoryFile.parse(file)
        == .invalid(
          reason: .invalidName("a\u{7}b", .containsControlCharacter("a\u{7}b", 7), line: 3)))
  }
}

/// Replays every input in `FuzzRegressions/documentfile` — the fuzzer's seeds and whatever it
/// ever found — through the checks `fuzz/DocumentFileFuzzer.swift` makes.
@Suite struct DocumentFileFuzzRegressionTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("FuzzRegressions/documentfile")

  static let inputs: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()

  @Test func theRegressionFolderHasInputs() {
    #expect(DocumentFileFuzzRegressionTests.inputs.count >= 5)
  }

  @Test(arguments: inputs)
  func inputSurvivesARoundTrip(name: String) throws {
    let input = try [UInt8](
      Data(contentsOf: DocumentFileFuzzRegressionTests.folder.appendingPathComponent(name)))
    switch DocumentFile.parse(input) {
    case .docsh(let id, let modified, let content, _):
      let again = DocumentFile.parse(
        DocumentFile.render(id: id, modified: modified, content: content))
      guard case .docsh(id, modified, let contentAgain, _) = again else {
        Issue.record("rendered again, parsed as \(again)")
        return
      }
      #expect(Array(contentAgain.utf8) == Array(content.utf8))
    case .plain(let content, let tags):
      // All of the file, unless its own front matter gave tags.
      #expect(Array(content.utf8) == input || input.starts(with: Array("---".utf8)))
      let id = ObjectID(high: 0x1b4e_28ba_2fa1_41d2, low: 0x883f_0016_d3cc_a427)
      let modified = Timestamp(millisecondsSince1970: 1_796_167_740_123)
      let written = DocumentFile.parse(
        DocumentFile.render(id: id, modified: modified, tags: tags, content: content))
      #expect(written == .docsh(id: id, modified: modified, content: content, tags: tags))
    case .invalid:
      break
    }
    if case .category(let id, let name, let fanOut) = CategoryFile.parse(input) {
      #expect(
        CategoryFile.parse(CategoryFile.render(id: id, name: name, fanOut: fanOut))
          == .category(id: id, name: name, fanOut: fanOut))
    }
    if let name = FileNameEncoding.decode(bytes: input) {
      #expect(
        FileNameEncoding.decode(FileNameEncoding.encode(name))?.text.utf8.elementsEqual(
          name.text.utf8) == true)
    }
  }
}
