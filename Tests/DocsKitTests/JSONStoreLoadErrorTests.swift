import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

@Suite struct JSONStoreLoadErrorTests {
  static let categoryID = idText(1)
  static let documentID = idText(2)
  static let date = "2026-11-29T14:53:00.123Z"

  /// A valid store around one document, with pieces replaceable for each case.
  static func store(
    categoryName: String = "\"Work\"", documentName: String = "\"Plan\"",
    content: String = "\"text\"", size: String = "4", modified: String = "\"\(date)\"",
    id: String = "\"\(documentID)\"", categories: String? = nil
  ) -> String {
    let document =
      "{\"id\":\(id),\"name\":\(documentName),\"content\":\(content),\"size\":\(size),\"modified\":\(modified)}"
    let list =
      categories
      ?? "[\n  {\"id\":\"\(categoryID)\",\"name\":\(categoryName),\"documents\":[\n    \(document)\n  ]}\n]"
    return "{\"format\":\"docsh-store\",\"version\":1,\"generation\":3,\n\"categories\":\(list)}\n"
  }

  /// Where the marker "¶" stands in `text` (line and byte column, from 1), and the text
  /// without it.
  static func locate(_ marked: String) -> (text: String, line: Int, column: Int) {
    let bytes = Array(marked.utf8)
    let marker = Array("¶".utf8)
    var offset = 0
    while offset + marker.count <= bytes.count,
      Array(bytes[offset..<(offset + marker.count)]) != marker
    {
      offset += 1
    }
    let before = bytes[..<offset]
    let line = before.filter { $0 == 0x0A }.count + 1
    let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
    var text = bytes
    text.removeSubrange(offset..<(offset + marker.count))
    return (String(decoding: text, as: UTF8.self), line, offset - lineStart + 1)
  }

  static let malformedCases: [(String, String, String)] = [
    (
      "missing comma",
      "{\"format\":\"docsh-store\",\"version\":1,\n\"generation\":1 ¶\"categories\":[]}",
      "expected ',' or '}' in an object"
    ),
    ("not JSON", "¶hello", "expected '{' at the start of the store"),
    ("empty", "¶", "the file is empty"),
    (
      "trailing data",
      "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":[]}\n\n  ¶x",
      "unexpected data after the end of the store"
    ),
    (
      "generation a word",
      "{\"format\":\"docsh-store\",\"version\":1,\"generation\":¶tru,\"categories\":[]}",
      "\"generation\" is not a whole number of 0 or more"
    ),
    (
      "version a string",
      "{\"format\":\"docsh-store\",\n\"version\":¶\"1\",\"generation\":1,\"categories\":[]}",
      "\"version\" is not a whole number of 0 or more"
    ),
    (
      "version 0", "¶{\"format\":\"docsh-store\",\"version\":0,\"generation\":1,\"categories\":[]}",
      "unknown version 0"
    ),
    (
      "missing version", "¶{\"format\":\"docsh-store\",\"generation\":1,\"categories\":[]}",
      "missing \"version\""
    ),
    (
      "missing generation", "¶{\"format\":\"docsh-store\",\"version\":1,\"categories\":[]}",
      "missing \"generation\""
    ),
    (
      "missing categories", "¶{\"format\":\"docsh-store\",\"version\":1,\"generation\":1}",
      "missing \"categories\""
    ),
    (
      "categories an object",
      "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":¶{}}",
      "\"categories\" is not an array"
    ),
    ("size a string", store(size: "¶\"4\""), "\"size\" is not a whole number of 0 or more"),
    (
      "size 1.5", store(size: "¶1.5"), "\"size\" is not a whole number of 0 or more in plain digits"
    ),
    ("size -1", store(size: "¶-1"), "\"size\" is not a whole number of 0 or more in plain digits"),
    (
      "size 1e3", store(size: "¶1e3"), "\"size\" is not a whole number of 0 or more in plain digits"
    ),
    ("size null", store(size: "¶null"), "\"size\" is not a whole number of 0 or more"),
    ("name a number", store(documentName: "¶42"), "expected a string"),
    ("category name null", store(categoryName: "¶null"), "expected a string"),
    ("bad UUID", store(id: "¶\"not-a-uuid\""), "an \"id\" is not a UUID"),
    ("UUID too long", store(id: "¶\"\(documentID)0\""), "an \"id\" is not a UUID"),
    (
      "bad date", store(modified: "¶\"2026-13-01T00:00:00Z\""),
      "\"modified\" is not an ISO 8601 date: \"2026-13-01T00:00:00Z\""
    ),
    ("date a number", store(modified: "¶1700000000"), "expected a string"),
    (
      "name with a slash", store(documentName: "¶\"a/b\""),
      "invalid name: a name cannot contain \"/\": \"a/b\""
    ),
    ("empty name", store(categoryName: "¶\"\""), "invalid name: a name cannot be empty"),
    (
      "name ..", store(categoryName: "¶\"..\""),
      "invalid name: \"..\" is reserved and cannot be a name"
    ),
    (
      "name with a newline escape", store(documentName: "¶\"a\\nb\""),
      "invalid name: a name cannot contain the control character U+000A"
    ),
    (
      "name with bidi override", store(documentName: "¶\"a\\u202eb\""),
      "invalid name: a name cannot contain the control character U+202E"
    ),
    (
      "name with white space around", store(documentName: "¶\" Plan\""),
      "the name \" Plan\" has white space around it"
    ),
    ("bad escape in a name", store(documentName: "\"a\\¶q\""), "invalid escape \\q"),
    (
      "raw tab in a name", store(documentName: "\"a¶\tb\""),
      "unescaped control character in a string"
    ),
    (
      "missing comma in documents",
      store(
        categories:
          "[{\"id\":\"\(categoryID)\",\"name\":\"W\",\"documents\":[{\"id\":\"\(documentID)\",\"name\":\"a\",\"content\":\"\",\"size\":0,\"modified\":\"\(date)\"}¶{}]}]"
      ),
      "expected ',' or ']' in an array"
    ),
    (
      "document without id",
      store(
        categories:
          "[{\"id\":\"\(categoryID)\",\"name\":\"W\",\"documents\":[\n¶{\"name\":\"a\",\"content\":\"\",\"size\":0,\"modified\":\"\(date)\"}]}]"
      ),
      "a document has no \"id\""
    ),
    (
      "document without content",
      store(
        categories:
          "[{\"id\":\"\(categoryID)\",\"name\":\"W\",\"documents\":[\n¶{\"id\":\"\(documentID)\",\"name\":\"a\",\"size\":0,\"modified\":\"\(date)\"}]}]"
      ),
      "a document has no \"content\""
    ),
    (
      "category without documents",
      store(categories: "[\n  ¶{\"id\":\"\(categoryID)\",\"name\":\"W\"}]"),
      "category \"W\" has no \"documents\""
    ),
    ("content not a string", store(content: "¶[\"text\"]"), "expected a string"),
  ]

  @Test(arguments: 0..<malformedCases.count)
  func malformedFilesAreReportedAtTheRealSpot(index: Int) throws {
    let (label, marked, reason) = JSONStoreLoadErrorTests.malformedCases[index]
    let (text, line, column) = JSONStoreLoadErrorTests.locate(marked)
    let harness = try Harness("malformed\(index)")
    try write(text, to: harness.storePath)
    let error = #expect(throws: StoreError.self, "\(label)") { try harness.openContext() }
    #expect(
      error == .malformed(harness.storePath, line: line, column: column, reason: reason), "\(label)"
    )
    #expect(
      error?.description
        == "\(harness.storePath):\(line):\(column): not a valid docsh store: \(reason)")
  }

  @Test func invalidUTF8InANameIsReported() throws {
    let harness = try Harness()
    var data = Array(JSONStoreLoadErrorTests.store(documentName: "\"P\u{1}\"").utf8)
    // Replace the placeholder byte 0x01 with a lone continuation byte.
    let index = try #require(data.firstIndex(of: 0x01))
    data[index] = 0x80
    try Data(data).write(to: URL(fileURLWithPath: harness.storePath))
    let error = #expect(throws: StoreError.self) { try harness.openContext() }
    guard case .malformed(let path, _, _, let reason)? = error else {
      Issue.record("expected malformed, got \(String(describing: error))")
      return
    }
    #expect(path == harness.storePath)
    #expect(reason == "a string is not valid UTF-8")
  }

  @Test(arguments: [
    ("bad escape", "\"ab\\¶x\"", "invalid escape \\x"),
    ("lone high surrogate", "\"x\\ud83d¶\"", "unpaired surrogate in \\u escape"),
    ("lone low surrogate", "\"x¶\\ude00\"", "unpaired surrogate in \\u escape"),
    ("bad hex", "\"\\u00¶g0\"", "bad hex digit in \\u escape"),
    ("raw newline", "\"line¶\nbreak\"", "unescaped control character in a string"),
  ])
  func aBadContentLoadsButFailsWhenReadAtTheRealSpot(label: String, content: String, reason: String)
    throws
  {
    let (text, line, column) = JSONStoreLoadErrorTests.locate(
      JSONStoreLoadErrorTests.store(content: content))
    let harness = try Harness()
    try write(text, to: harness.storePath)
    let context = try harness.openContext()  // contents are not decoded on load
    let id = try #require(ObjectID(JSONStoreLoadErrorTests.documentID))
    let error = #expect(throws: ContextError.self, "\(label)") { try context.content(of: id) }
    guard case .store(let storeError)? = error else {
      Issue.record("\(label): expected a store error, got \(String(describing: error))")
      return
    }
    #expect(
      storeError == .malformed(harness.storePath, line: line, column: column, reason: reason),
      "\(label)")
  }

  @Test func everyTruncationOfAStoreIsAClearError() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let work = try setup.createCategory(named: "Work \"é\"")
    try setup.createDocument(named: "Plan", in: work.id, content: "a \"quoted\" \\ line\nnext 👍🏽")
    try setup.createDocument(named: "Other", in: work.id, content: "")
    try setup.createCategory(named: "Empty")
    try setup.save()
    var full = try bytes(at: harness.storePath)
    while full.last == 0x0A { full.removeLast() }
    for length in 0..<full.count {
      try Data(full[..<length]).write(to: URL(fileURLWithPath: harness.storePath))
      let error = #expect(throws: StoreError.self, "cut at \(length)") { try harness.openContext() }
      guard case .malformed(let path, let line, let column, let reason)? = error else {
        Issue.record("cut at \(length): expected malformed, got \(String(describing: error))")
        continue
      }
      #expect(path == harness.storePath && line >= 1 && column >= 1 && !reason.isEmpty)
    }
    try Data(full).write(to: URL(fileURLWithPath: harness.storePath))
    #expect(try harness.openContext().documentCount == 2)
  }

  // MARK: - Not a store, or a newer one

  @Test func anotherFormatIsNotAStore() throws {
    let harness = try Harness()
    try write(
      "{\"format\":\"other-tool\",\"version\":1,\"generation\":1,\"categories\":[]}",
      to: harness.storePath)
    let error = #expect(throws: StoreError.self) { try harness.openContext() }
    #expect(error == .notAStore(harness.storePath, format: "other-tool"))
    #expect(
      error?.description
        == "\(harness.storePath): not a docsh store (its format is \"other-tool\", expected \"docsh-store\")"
    )
  }

  @Test(arguments: [
    "{\"version\":1,\"generation\":1,\"categories\":[]}", "{}", "{\"name\":\"x\",\"items\":[1,2]}",
  ])
  func aMissingFormatIsNotAStore(text: String) throws {
    let harness = try Harness()
    try write(text, to: harness.storePath)
    let error = #expect(throws: StoreError.self) { try harness.openContext() }
    #expect(error == .notAStore(harness.storePath, format: nil))
    #expect(
      error?.description
        == "\(harness.storePath): not a docsh store (no \"format\": \"docsh-store\")")
  }

  @Test func aNewerVersionIsRefusedNamingIt() throws {
    let harness = try Harness()
    try write(
      "{\"format\":\"docsh-store\",\"version\":3,\"generation\":1,\"categories\":[{\"new\":true}]}",
      to: harness.storePath)
    let error = #expect(throws: StoreError.self) { try harness.openContext() }
    #expect(error == .newerVersion(harness.storePath, version: 3, supported: 2))
    #expect(
      error?.description
        == "\(harness.storePath): written by a newer docsh (format version 3; this docsh reads up to 2)"
    )
  }

  // MARK: - Rules of the format

  static func doc(_ id: UInt64, _ name: String) -> RawDocument {
    RawDocument(id: idText(id), name: name, content: "", size: 0, modified: date)
  }

  @Test(arguments: [
    ("two categories", [(idText(1), "A", [RawDocument]()), (idText(1), "B", [])]),
    ("two documents", [(idText(1), "A", [doc(5, "x")]), (idText(2), "B", [doc(5, "y")])]),
    ("a document and a category", [(idText(1), "A", [doc(2, "x")]), (idText(2), "B", [])]),
    ("a category and a document", [(idText(1), "A", [doc(1, "x")])]),
  ])
  func duplicateIdsAreRefused(
    label: String, categories: [(id: String, name: String, documents: [RawDocument])]
  ) throws {
    let harness = try Harness()
    try write(try storeText(categories: categories), to: harness.storePath)
    let error = #expect(throws: StoreError.self, "\(label)") { try harness.openContext() }
    guard case .invalidStore(let path, let reason)? = error else {
      Issue.record("\(label): expected invalidStore, got \(String(describing: error))")
      return
    }
    #expect(path == harness.storePath)
    #expect(
      reason.hasPrefix("the id ") && reason.hasSuffix(" is used twice"), "\(label): \(reason)")
  }

  @Test(arguments: [
    ("Work", "Work"), ("Work", "work"), ("Café", "Cafe\u{301}"), ("ÉTÉ", "e\u{301}te\u{301}"),
  ])
  func duplicateCategoryNamesAreRefused(first: String, second: String) throws {
    let harness = try Harness()
    try write(
      try storeText(categories: [(idText(1), first, []), (idText(2), second, [])]),
      to: harness.storePath)
    let error = #expect(throws: StoreError.self) { try harness.openContext() }
    #expect(
      error
        == .invalidStore(
          harness.storePath, reason: "two categories are named \"\(first)\" and \"\(second)\""))
  }

  @Test(arguments: [("Plan", "Plan"), ("Plan", "PLAN"), ("Résumé", "Re\u{301}sume\u{301}")])
  func duplicateDocumentNamesInACategoryAreRefused(first: String, second: String) throws {
    let harness = try Harness()
    try write(
      try storeText(categories: [
        (
          idText(1), "Work",
          [JSONStoreLoadErrorTests.doc(2, first), JSONStoreLoadErrorTests.doc(3, second)]
        )
      ]),
      to: harness.storePath)
    let error = #expect(throws: StoreError.self) { try harness.openContext() }
    #expect(
      error
        == .invalidStore(
          harness.storePath,
          reason: "two documents of \"Work\" are named \"\(first)\" and \"\(second)\""))
  }

  @Test func theSameDocumentNameInTwoCategoriesLoads() throws {
    let harness = try Harness()
    try write(
      try storeText(categories: [
        (idText(1), "Work", [JSONStoreLoadErrorTests.doc(3, "Plan")]),
        (idText(2), "Home", [JSONStoreLoadErrorTests.doc(4, "plan")]),
      ]), to: harness.storePath)
    #expect(try harness.openContext().documentCount == 2)
  }

  @Test func aSizeThatDisagreesWithTheContentLoadsAndShowsTheStoredSize() throws {
    let harness = try Harness()
    try write(
      try storeText(categories: [
        (
          idText(1), "Work",
          [
            RawDocument(
              id: idText(2), name: "Plan", content: "four", size: 1234,
              modified: JSONStoreLoadErrorTests.date)
          ]
        )
      ]),
      to: harness.storePath)
    let context = try harness.openContext()
    let id = SequentialIDs.id(2)
    #expect(try context.document(withID: id)?.size == 1234)
    #expect(try context.content(of: id) == "four")
    #expect(context.summary(of: SequentialIDs.id(1)).totalSize == 1234)
  }

  // MARK: - Files written by other tools

  /// The store every variant below encodes.
  static let expectedOtherToolGraph = GraphSnapshot(categories: [
    GraphSnapshot.Cat(
      id: SequentialIDs.id(1), name: "Café",
      documents: [
        GraphSnapshot.Doc(
          id: SequentialIDs.id(2), name: "Plan 😀", categoryID: SequentialIDs.id(1), size: 22,
          modified: Timestamp(millisecondsSince1970: 1_795_963_980_123),
          content: Array("é😀 \"q\" \\ / \n\t\u{0}end".utf8)),
        GraphSnapshot.Doc(
          id: SequentialIDs.id(3), name: "Empty", categoryID: SequentialIDs.id(1), size: 0,
          modified: Timestamp(millisecondsSince1970: 1_795_963_980_000), content: []),
      ]),
    GraphSnapshot.Cat(id: SequentialIDs.id(4), name: "Nothing", documents: []),
  ])

  static func otherToolObject() -> [String: Any] {
    [
      "generation": 7, "version": 1, "format": "docsh-store",
      "comment": ["written by": "another tool", "numbers": [1, 2.5, -3e2, true, NSNull()]],
      "categories": [
        [
          "documents": [
            [
              "size": 22, "content": "é😀 \"q\" \\ / \n\t\u{0}end",
              "modified": "2026-11-29T15:53:00.123+01:00",
              "name": "Plan 😀", "id": idText(2).uppercased(), "tags": ["x", ["nested": [:]]],
            ],
            [
              "modified": "2026-11-29T14:53:00Z", "id": idText(3), "content": "", "name": "Empty",
              "size": 0,
            ],
          ],
          "name": "Café", "id": idText(1), "color": NSNull(),
        ],
        ["id": idText(4), "documents": [], "name": "Nothing"],
      ],
    ]
  }

  @Test(
    arguments: [
      ("pretty", JSONSerialization.WritingOptions.prettyPrinted),
      ("minified", []),
      ("sorted keys", .sortedKeys),
      ("pretty sorted", [.prettyPrinted, .sortedKeys]),
      ("slashes unescaped", .withoutEscapingSlashes),
    ] as [(String, JSONSerialization.WritingOptions)])
  func filesWrittenByJSONSerializationLoadTheSame(
    label: String, options: JSONSerialization.WritingOptions
  ) throws {
    let harness = try Harness()
    let data = try JSONSerialization.data(
      withJSONObject: JSONStoreLoadErrorTests.otherToolObject(), options: options)
    try data.write(to: URL(fileURLWithPath: harness.storePath))
    let context = try harness.openContext()
    #expect(try snapshot(of: context) == JSONStoreLoadErrorTests.expectedOtherToolGraph, "\(label)")
    #expect(context.generation == 7)
  }

  @Test func escapesOfEveryKindAndOddWhiteSpaceLoadTheSame() throws {
    // \u escapes for plain letters and é, a surrogate pair for 😀, \/ for a slash, tabs and
    // CRLF between tokens, and the members in an unusual order.
    let text = """
      {\r
      \t"categories" : [ { "documents":[{"name":"\\u0050lan \\ud83d\\ude00","content":"\\u00e9\\uD83D\\uDE00 \\"q\\" \\\\ \\/ \\n\\t\\u0000end","size":22,"modified":"2026-11-29T14:53:00.123Z","id":"\(idText(2))"} ,
      \t\t{"size":0,"content":"","modified":"2026-11-29T14:53:00.000Z","name":"Empty","id":"\(idText(3))","extra":{"a":[[],{}]}}],
      "name":"Caf\\u00E9","id":"\(idText(1))"},{"name":"Nothing","documents":[ ],"id":"\(idText(4))"}],
      "generation":7,"version":1,"format":"\\u0064ocsh-store","unknown":null}\r

      """
    let harness = try Harness()
    try write(text, to: harness.storePath)
    let context = try harness.openContext()
    #expect(try snapshot(of: context) == JSONStoreLoadErrorTests.expectedOtherToolGraph)
  }

  @Test func aFileFromAnotherToolCanBeEditedAndSavedAndStaysReadable() throws {
    let harness = try Harness()
    let data = try JSONSerialization.data(
      withJSONObject: JSONStoreLoadErrorTests.otherToolObject(), options: [.prettyPrinted])
    try data.write(to: URL(fileURLWithPath: harness.storePath))
    // Identities for new objects well clear of the ones in the file.
    let ids = SequentialIDs(after: 100)
    let context = try Context(
      store: JSONStore(path: harness.storePath), clock: harness.clock.now, makeID: ids.make)
    try context.createDocument(named: "New", in: SequentialIDs.id(4), content: "n")
    try context.renameDocument(SequentialIDs.id(3), to: "Empty 2")
    try context.save()
    let reloaded = try snapshot(of: harness.openContext())
    #expect(reloaded == (try snapshot(of: context)))
    #expect(try ReferenceReader.snapshot(at: harness.storePath) == reloaded)
    #expect(try jsonObject(at: harness.storePath)["generation"] as? Int == 8)
  }

  // MARK: - A damaged store is never overwritten

  static let damagedStores: [(String, String)] = [
    ("not JSON", "this is not a store"),
    (
      "truncated",
      "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":[{\"id\":"
    ),
    ("newer", "{\"format\":\"docsh-store\",\"version\":9,\"generation\":1,\"categories\":[]}"),
    ("other format", "{\"format\":\"other\"}"),
    (
      "duplicate ids",
      "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":[{\"id\":\"\(idText(1))\",\"name\":\"a\",\"documents\":[]},{\"id\":\"\(idText(1))\",\"name\":\"b\",\"documents\":[]}]}"
    ),
    (
      "duplicate names",
      "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":[{\"id\":\"\(idText(1))\",\"name\":\"a\",\"documents\":[]},{\"id\":\"\(idText(2))\",\"name\":\"A\",\"documents\":[]}]}"
    ),
  ]

  @Test(arguments: 0..<damagedStores.count)
  func aStoreThatFailedToLoadIsNeverOverwritten(index: Int) throws {
    let (label, text) = JSONStoreLoadErrorTests.damagedStores[index]
    let harness = try Harness("damaged\(index)")
    try write(text, to: harness.storePath)
    let store = JSONStore(path: harness.storePath)
    #expect(throws: StoreError.self, "\(label)") { try harness.openContext(on: store) }
    let error = #expect(throws: StoreError.self, "\(label)") { try store.save([]) }
    #expect(error == .refusedToOverwriteDamagedStore(harness.storePath), "\(label)")
    #expect(
      error?.description
        == "\(harness.storePath): the store could not be read, so it will not be overwritten")
    #expect(try String(contentsOfFile: harness.storePath, encoding: .utf8) == text, "\(label)")
    #expect(try harness.folder.entries() == ["store.json"], "\(label)")
  }

  @Test func aStoreNeverLoadedIsNotSaved() throws {
    let harness = try Harness()
    try write(
      "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":[]}",
      to: harness.storePath)
    let store = JSONStore(path: harness.storePath)
    #expect(throws: StoreError.refusedToOverwriteDamagedStore(harness.storePath)) {
      try store.save([])
    }
  }

  @Test func aFolderInPlaceOfTheStoreIsAnError() throws {
    let harness = try Harness()
    try FileManager.default.createDirectory(
      atPath: harness.storePath, withIntermediateDirectories: false)
    let error = #expect(throws: StoreError.self) { try harness.openContext() }
    #expect(error == .system(harness.storePath, operation: "read", errno: EISDIR))
  }
}
