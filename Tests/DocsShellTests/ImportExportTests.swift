import DocsKit
import DocsTestSupport
import Foundation
import Testing

@testable import DocsShell

/// A path quoted for a docsh command line (temporary paths hold no single quote).
private func quoted(_ path: String) -> String { "'\(path)'" }

/// The bytes of the file at `path`.
private func fileBytes(_ path: String) throws -> [UInt8] {
  [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The modification time of the file at `path`, in milliseconds, not following a link.
private func modificationMilliseconds(_ path: String) throws -> Int64 {
  var status = stat()
  guard lstat(path, &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
  return Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000
}

/// Writes `bytes` at `path` with the modification time `milliseconds`.
private func makeFile(_ path: String, _ bytes: [UInt8], modified milliseconds: Int64? = nil) throws
{
  try Data(bytes).write(to: URL(fileURLWithPath: path))
  if let milliseconds {
    #expect(setFileTimes(of: path, toNanoseconds: milliseconds * 1_000_000))
  }
}

private func makeFolder(_ path: String) throws {
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
}

/// What a document is, for comparing two stores.
private struct DocumentRecordForTest: Hashable {
  var category: String
  var name: String
  var content: String
  var size: Int
  var modified: Int64
}

private func records(of context: Context) throws -> Set<DocumentRecordForTest> {
  var result: Set<DocumentRecordForTest> = []
  for category in context.categories() {
    for document in try context.documents(in: category.id) {
      result.insert(
        DocumentRecordForTest(
          category: category.name.text, name: document.name.text,
          content: try context.content(of: document.id), size: document.size,
          modified: document.modified.millisecondsSince1970))
    }
  }
  return result
}

@Suite struct ImportExportRoundTripTests {
  /// Awkward names: spaces, accents (NFD too), emoji, leading dots, names that look like
  /// options, shell specials; contents with CRLF, no final newline, NUL, a BOM, nothing.
  static let categories = ["Work", "Réunions été", "🚀 Launch", ".dotted", "-rf", "Empty"]
  static let documents: [(name: String, content: String)] = [
    ("plan.txt", "Ship it\n"),
    ("Notes de re\u{301}union", "Agenda\r\nTODO: room\r\n"),
    ("emoji 🎉.md", "🎉🎉 no newline at the end"),
    (".hidden", ""),
    ("-rf", "looks like an option"),
    ("--json", "{\"a\": 1}\n"),
    ("a  b   c", "\u{FEFF}byte order mark, then a NUL: \u{0}!\n"),
    ("$HOME & *", "shell specials\n"),
  ]

  @Test func exportThenImportIntoAnEmptyStoreGivesTheSameStore() throws {
    let source = try ShellHarness()
    let context = source.session.context
    var millisecond: Int64 = 1_600_000_000_001
    for categoryName in Self.categories {
      let category = try context.createCategory(named: categoryName)
      guard categoryName != "Empty" else { continue }
      for (name, content) in Self.documents {
        millisecond += 86_400_123
        try context.createDocument(
          named: name, in: category.id, content: content,
          modified: Timestamp(millisecondsSince1970: millisecond))
      }
    }
    let expected = try records(of: context)
    #expect(expected.count == (Self.categories.count - 1) * Self.documents.count)

    let destination = source.folder.url.appendingPathComponent("export dest").path
    let exported = source.run("export \(quoted(destination))")
    #expect(exported.errors == "")
    #expect(exported.output == "")

    // On disk: DEST/CATEGORY/NAME.md (`.md` added to every name, one already ending in .md
    // too), byte for byte, dated like the documents.
    for record in expected {
      let path = "\(destination)/\(record.category)/\(record.name).md"
      #expect(try fileBytes(path) == Array(record.content.utf8), "content of \(path)")
      #expect(try modificationMilliseconds(path) == record.modified, "date of \(path)")
    }
    let folders = try FileManager.default.contentsOfDirectory(atPath: destination).sorted()
    #expect(folders == Self.categories.sorted())
    #expect(try FileManager.default.contentsOfDirectory(atPath: "\(destination)/Empty").isEmpty)

    let target = try ShellHarness()
    let folderWords = Self.categories.map { quoted("\(destination)/\($0)") }.joined(separator: " ")
    let imported = target.run("import \(folderWords)")
    #expect(imported.errors == "")
    #expect(try records(of: target.session.context) == expected)
    #expect(
      target.session.context.categories().map(\.name.text).sorted() == Self.categories.sorted())

    // Saved and loaded again, nothing is lost either.
    try target.session.context.save()
    let reloaded = try Context(store: JSONStore(path: target.storePath))
    #expect(try records(of: reloaded) == expected)
  }

  @Test func aGeneratedFileTreeSurvivesImportThenExport() throws {
    let harness = try ShellHarness()
    let tree = harness.folder.url.appendingPathComponent("tree").path
    var expected: [String: ([UInt8], Int64)] = [:]
    var millisecond: Int64 = 1_500_000_000_999
    for folder in ["Notes", "Café crème", "✨"] {
      try makeFolder("\(tree)/\(folder)")
      for (index, (name, content)) in Self.documents.enumerated() {
        millisecond += Int64(index) * 3_600_007
        let path = "\(folder)/\(name)"
        try makeFile("\(tree)/\(path)", Array(content.utf8), modified: millisecond)
        expected[path] = (Array(content.utf8), millisecond)
      }
    }
    let imported = harness.run(
      "import \(quoted(tree + "/Notes")) \(quoted(tree + "/Café crème")) \(quoted(tree + "/✨/"))")
    #expect(imported.errors == "")
    let out = harness.folder.url.appendingPathComponent("out").path
    #expect(harness.run("export \(quoted(out))").errors == "")
    // Import took one .md off (`emoji 🎉.md` is the document `emoji 🎉`), export adds one to
    // every name: a file without .md comes back with it, one with it as it was.
    for (path, (bytes, modified)) in expected {
      let exported = path.hasSuffix(".md") ? path : path + ".md"
      #expect(try fileBytes("\(out)/\(exported)") == bytes, "content of \(exported)")
      #expect(
        try modificationMilliseconds("\(out)/\(exported)") == modified, "date of \(exported)")
    }
  }
}

@Suite struct ImportTests {
  let harness: ShellHarness
  let files: String

  init() throws {
    harness = try ShellHarness()
    files = harness.folder.url.appendingPathComponent("files").path
    try makeFolder(files)
  }

  var context: Context { harness.session.context }

  /// Runs a failing command: one line of error, and the session exactly as before.
  func expectRefused(
    _ line: String, saying message: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let before = try records(of: context)
    let categoriesBefore = context.categories().map(\.name.text)
    let changesBefore = try context.changes().count
    let result = harness.run(line)
    #expect(result.output == "", sourceLocation: sourceLocation)
    #expect(result.errors.hasPrefix("error: "), sourceLocation: sourceLocation)
    #expect(result.errors.contains(message), "\(result.errors)", sourceLocation: sourceLocation)
    #expect(
      result.errors.filter { $0 == "\n" }.count == 1, "one line: \(result.errors)",
      sourceLocation: sourceLocation)
    #expect(try records(of: context) == before, sourceLocation: sourceLocation)
    #expect(
      context.categories().map(\.name.text) == categoriesBefore, sourceLocation: sourceLocation)
    #expect(try context.changes().count == changesBefore, sourceLocation: sourceLocation)
  }

  @Test func importsFilesIntoTheCurrentCategoryWithTheirDates() throws {
    try makeFile("\(files)/plan.txt", Array("Ship it\n".utf8), modified: 1_234_567_890_123)
    try makeFile("\(files)/empty", [])
    harness.run("mkdir Work; cd Work")
    let result = harness.run("import \(quoted(files + "/plan.txt")) \(quoted(files + "/empty"))")
    #expect(result.errors == "")
    let work = try #require(context.category(named: "Work"))
    let plan = try #require(try context.document(named: "plan.txt", in: work.id))
    #expect(plan.size == 8)
    #expect(plan.modified.millisecondsSince1970 == 1_234_567_890_123)
    #expect(try context.content(of: plan.id) == "Ship it\n")
    #expect(try context.document(named: "empty", in: work.id)?.size == 0)
    // One undo group: one undo takes both back.
    #expect(harness.run("undo").errors.hasPrefix("Undid import "))
    #expect(try context.documents(in: work.id).isEmpty)
  }

  @Test func aFolderAtTheTopBecomesACategoryAndSkipsWhatIsNotAFile() throws {
    let folder = "\(files)/Work"
    try makeFolder("\(folder)/sub")
    try makeFile("\(folder)/a", Array("a".utf8))
    try makeFile("\(folder)/sub/deep", Array("deep".utf8))
    try makeFile("\(files)/outside", Array("secret".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: "\(folder)/link", withDestinationPath: "\(files)/outside")
    #expect(mkfifo("\(folder)/fifo", 0o600) == 0)
    let result = harness.run("import \(quoted(folder))")
    #expect(result.output == "")
    #expect(
      result.errors == """
        import: skipped \(folder)/fifo: not a regular file
        import: skipped \(folder)/link: a symbolic link (links inside a folder are not followed)
        import: skipped \(folder)/sub/: a subfolder (only a folder's files are imported)

        """)
    let work = try #require(context.category(named: "Work"))
    #expect(try context.documents(in: work.id).map(\.name.text) == ["a"])
  }

  @Test func aSymbolicLinkNamedByTheUserIsFollowed() throws {
    try makeFile("\(files)/real", Array("real text".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: "\(files)/alias", withDestinationPath: "\(files)/real")
    harness.run("mkdir Work; cd Work")
    #expect(harness.run("import \(quoted(files + "/alias"))").errors == "")
    let work = try #require(context.category(named: "Work"))
    let document = try #require(try context.document(named: "alias", in: work.id))
    #expect(try context.content(of: document.id) == "real text")
  }

  @Test func aLeadingTildeIsTheHomeFolder() throws {
    harness.session.settings.environment["HOME"] = files
    try makeFile("\(files)/note", Array("from home".utf8))
    harness.run("mkdir Work; cd Work")
    #expect(harness.run("import ~/note").errors == "")
    #expect(harness.run("export ~/out").errors == "")
    #expect(try fileBytes("\(files)/out/Work/note.md") == Array("from home".utf8))
  }

  @Test func oneBadFileImportsNothing() throws {
    let folder = "\(files)/Batch"
    try makeFolder(folder)
    for name in ["a", "b", "c"] { try makeFile("\(folder)/\(name)", Array("fine \(name)\n".utf8)) }
    try makeFile("\(folder)/d-latin1", [0x63, 0x61, 0x66, 0xE9])
    try makeFolder("\(files)/Good")
    try makeFile("\(files)/Good/ok", Array("ok".utf8))
    try expectRefused(
      "import \(quoted(files + "/Good")) \(quoted(folder))",
      saying: "import: \(folder)/d-latin1: not valid UTF-8 text")
    #expect(context.categories().isEmpty)
    #expect(try !context.hasChanges)
    #expect(harness.run("undo").errors.contains("error:"), "nothing to undo")

    harness.run("mkdir Work; cd Work")
    try expectRefused(
      "import \(quoted(folder + "/a")) \(quoted(folder + "/d-latin1"))",
      saying: "import: \(folder)/d-latin1: not valid UTF-8 text")
  }

  @Test func anExistingNameIsAnErrorUnlessReplace() throws {
    try makeFile("\(files)/Plan", Array("from the file\n".utf8), modified: 1_111_111_111_111)
    harness.run("mkdir Work; cd Work; new Plan typed; new Other kept")
    try context.save()
    try expectRefused(
      "import \(quoted(files + "/Plan"))",
      saying: "\"Work/Plan\" exists (use --replace to replace it)")
    #expect(harness.run("import --replace \(quoted(files + "/Plan"))").errors == "")
    let work = try #require(context.category(named: "Work"))
    let plan = try #require(try context.document(named: "Plan", in: work.id))
    #expect(try context.content(of: plan.id) == "from the file\n")
    #expect(plan.modified.millisecondsSince1970 == 1_111_111_111_111)
    #expect(try context.changes().updatedDocuments.map(\.object.name.text) == ["Plan"])
    harness.run("undo")
    #expect(try context.content(of: plan.id) == "typed")

    // At the top, a folder whose category exists: an error, or with --replace, into it.
    try makeFolder("\(files)/work")
    try makeFile("\(files)/work/New", Array("new".utf8))
    harness.run("cd /")
    try expectRefused(
      "import \(quoted(files + "/work"))", saying: "a category named \"Work\" exists")
    #expect(harness.run("import --replace \(quoted(files + "/work"))").errors == "")
    #expect(try context.documents(in: work.id).map(\.name.text) == ["New", "Other", "Plan"])
  }

  @Test func refusesBadInputWithOneLineAndChangesNothing() throws {
    try makeFile("\(files)/plain", Array("x".utf8))
    try makeFolder("\(files)/Folder")
    try makeFile("\(files)/ leading space", Array("x".utf8))
    try makeFile("\(files)/bell\u{7}", Array("x".utf8))
    try makeFolder("\(files)/one")
    try makeFolder("\(files)/two")
    try makeFile("\(files)/one/Same", Array("1".utf8))
    try makeFile("\(files)/two/same", Array("2".utf8))
    #expect(mkfifo("\(files)/fifo", 0o600) == 0)
    harness.run("mkdir Existing")

    // At the top: files have no category to go into.
    try expectRefused(
      "import \(quoted(files + "/plain"))",
      saying: "plain is a file; documents live in categories: cd into one first")
    try expectRefused(
      "import \(quoted(files + "/missing"))", saying: "missing: No such file or directory")
    try expectRefused("import \(quoted(files + "/.."))", saying: "name the folder by its own name")

    harness.run("cd Existing")
    try expectRefused(
      "import \(quoted(files + "/missing"))",
      saying: "import: \(files)/missing: No such file or directory")
    try expectRefused(
      "import \(quoted(files + "/Folder"))",
      saying: "is a folder; folders become categories at the top")
    try expectRefused(
      "import \(quoted(files + "/ leading space"))", saying: "cannot begin or end with white space")
    try expectRefused(
      "import \(quoted(files + "/bell\u{7}"))",
      saying: "cannot contain the control character U+0007")
    try expectRefused("import \(quoted(files + "/fifo"))", saying: "fifo: not a regular file")
    try expectRefused(
      "import \(quoted(files + "/one/Same")) \(quoted(files + "/two/same"))",
      saying: "would both be the document \"same\"")
    try expectRefused(
      "import",
      saying: "import: name the files or folders to import (usage: import [--replace] PATH…)")
    try expectRefused("import --bogus x", saying: "unknown option --bogus")
  }

  @Test func refusesAFileNameThatIsNotUTF8() throws {
    let folder = "\(files)/Odd"
    try makeFolder(folder)
    let path = Array(folder.utf8) + Array("/caf".utf8) + [0xE9, 0]
    let file = path.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { characters -> Int32 in
        guard let start = characters.baseAddress else { return -1 }
        return open(start, O_WRONLY | O_CREAT, 0o644)
      }
    }
    #expect(file >= 0)
    close(file)
    try expectRefused("import \(quoted(folder))", saying: "the file name is not valid UTF-8")
  }
}

@Suite struct ExportTests {
  let harness: ShellHarness
  let destination: String
  let outside: String

  init() throws {
    harness = try ShellHarness()
    destination = harness.folder.url.appendingPathComponent("dest").path
    outside = harness.folder.url.appendingPathComponent("outside").path
    try makeFolder(outside)
    harness.run("mkdir Work Home; cd Work; new A alpha; new B beta; cd /Home; new C gamma; cd /")
  }

  func entries(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
  }

  @Test func writesOnlyTheNamedCategories() throws {
    #expect(harness.run("export \(quoted(destination)) Home").errors == "")
    #expect(entries(destination) == ["Home"])
    #expect(try fileBytes("\(destination)/Home/C.md") == Array("gamma".utf8))
  }

  @Test func anExistingFileIsAnErrorAndNothingIsWritten() throws {
    try makeFolder("\(destination)/Work")
    try makeFile("\(destination)/Work/B.md", Array("mine".utf8))
    let result = harness.run("export \(quoted(destination))")
    #expect(
      result.errors
        == "error: export: \(destination)/Work/B.md exists (use --force to replace it)\n")
    #expect(entries(destination) == ["Work"])
    #expect(entries("\(destination)/Work") == ["B.md"])
    #expect(try fileBytes("\(destination)/Work/B.md") == Array("mine".utf8))

    #expect(harness.run("export --force \(quoted(destination))").errors == "")
    #expect(try fileBytes("\(destination)/Work/B.md") == Array("beta".utf8))
    #expect(entries("\(destination)/Work") == ["A.md", "B.md"], "no temporary file left behind")
  }

  @Test func forceReplacesASymbolicLinkWithoutFollowingIt() throws {
    try makeFolder("\(destination)/Work")
    try makeFile("\(outside)/target", Array("untouched".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: "\(destination)/Work/A.md", withDestinationPath: "\(outside)/target")
    #expect(harness.run("export \(quoted(destination))").errors.contains("Work/A.md exists"))
    #expect(harness.run("export --force \(quoted(destination))").errors == "")
    #expect(try fileBytes("\(outside)/target") == Array("untouched".utf8))
    let attributes = try FileManager.default.attributesOfItem(atPath: "\(destination)/Work/A.md")
    #expect(attributes[.type] as? FileAttributeType == .typeRegular)
    #expect(try fileBytes("\(destination)/Work/A.md") == Array("alpha".utf8))
  }

  @Test(arguments: ["", "--force "])
  func neverWritesThroughALinkedCategoryFolder(force: String) throws {
    try makeFolder(destination)
    try FileManager.default.createSymbolicLink(
      atPath: "\(destination)/Work", withDestinationPath: outside)
    let result = harness.run("export \(force)\(quoted(destination))")
    #expect(
      result.errors
        == "error: export: \(destination)/Work is a symbolic link; export does not follow links inside \(destination)\n"
    )
    #expect(entries(outside).isEmpty)
    #expect(entries(destination) == ["Work"])
  }

  @Test func aDestinationThatIsAFileIsRefused() throws {
    try makeFile(destination, Array("a file".utf8))
    let result = harness.run("export \(quoted(destination))")
    #expect(result.errors == "error: export: \(destination) exists and is not a folder\n")
    #expect(try fileBytes(destination) == Array("a file".utf8))
  }

  @Test func refusesBadArguments() throws {
    #expect(harness.run("export").errors.contains("name the folder to export to"))
    #expect(
      harness.run("export \(quoted(destination)) Nowhere").errors
        == "error: no category named \"Nowhere\"\n")
    #expect(
      !FileManager.default.fileExists(atPath: destination), "a failed export leaves no DEST behind")
    let missingParent = harness.folder.url.appendingPathComponent("no/such/dest").path
    #expect(
      harness.run("export \(quoted(missingParent))").errors.contains("No such file or directory"))
  }

  @Test func changesNothingInTheStore() throws {
    let changes = try harness.session.context.changes().count
    harness.run("export \(quoted(destination))")
    #expect(try harness.session.context.changes().count == changes)
    #expect(harness.run("undo").errors == "Undid new C.\n", "export is no undo step")
  }
}

@Suite struct ImportExportCompletionTests {
  @Test func importCompletesFilesAndExportAFileThenCategories() throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work Home")
    let completer = Completer(session: harness.session)
    let folder = harness.folder.path + "/"
    try makeFile(folder + "notes.txt", [])
    #expect(
      completer.candidates(after: ["import"], partial: folder + "no") == [folder + "notes.txt"])
    #expect(
      completer.candidates(after: ["import", "a"], partial: folder + "no") == [folder + "notes.txt"]
    )
    #expect(
      completer.candidates(after: ["export"], partial: folder + "no") == [folder + "notes.txt"])
    #expect(
      completer.candidates(after: ["export", "--force", "/tmp/x"], partial: "W") == ["Work/"])
    #expect(completer.candidates(after: ["export", "/tmp/x", "Work/"], partial: "H") == ["Home/"])
  }
}
