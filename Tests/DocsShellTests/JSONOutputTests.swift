import Foundation
import Testing

/// `--json` through the real binary: standard output holds one line of JSON and nothing
/// else, whatever standard error says, and it parses with Foundation as any script would.
@Suite struct JSONOutputTests {
  let folder: DocshProcess.Folder
  let store: String

  init() throws {
    folder = try DocshProcess.Folder()
    store = folder.path("store.json")
    let setup = try DocshProcess.run(
      [
        "-s", store, "-c",
        "mkdir Work Empty; cd Work; new Plan <<END\nTODO: ship \"it\"\nEND\nnew Notes x; save; mkdir Unsaved",
      ],
      home: folder.path("home"))
    #expect(setup.status == 0, "\(setup.errors)")
  }

  /// Runs `command` and parses its standard output as JSON.
  func json(_ command: String) throws -> Any {
    let result = try DocshProcess.run(
      ["-s", store, "--no-save", "-c", command], home: folder.path("home"))
    #expect(result.status == 0, "\(command): \(result.errors)")
    #expect(result.errors == "", "\(command) wrote to standard error: \(result.errors)")
    #expect(result.output.hasSuffix("\n"))
    #expect(result.output.dropLast().contains("\n") == false, "one line: \(result.output)")
    return try JSONSerialization.jsonObject(with: Data(result.output.utf8))
  }

  @Test func lsAtTheTopListsCategories() throws {
    let categories = try #require(try json("ls --json /") as? [[String: Any]])
    #expect(categories.compactMap { $0["name"] as? String } == ["Empty", "Unsaved", "Work"])
    let work = try #require(categories.last)
    #expect(work["documents"] as? Int == 2)
    #expect(work["size"] as? Int == 17)
    #expect((work["modified"] as? String)?.hasSuffix("Z") == true)
    #expect(categories.first?["modified"] is NSNull)
  }

  @Test func lsOfACategoryListsDocuments() throws {
    let documents = try #require(try json("ls --json Work") as? [[String: Any]])
    #expect(documents.compactMap { $0["name"] as? String } == ["Notes", "Plan"])
    #expect(documents.compactMap { $0["size"] as? Int } == [1, 16])
  }

  @Test func infoDescribesOneDocument() throws {
    let info = try #require(try json("info --json Work/Plan") as? [String: Any])
    #expect(Set(info.keys) == ["id", "name", "category", "size", "modified"])
    #expect(info["category"] as? String == "Work")
    #expect(info["size"] as? Int == 16)
  }

  @Test func findListsMatchingDocuments() throws {
    let found = try #require(try json("find --json pl") as? [[String: Any]])
    #expect(found.count == 1)
    #expect(found.first?["category"] as? String == "Work")
    #expect(found.first?["name"] as? String == "Plan")
  }

  @Test func grepListsMatchingLines() throws {
    let matches = try #require(try json("grep --json TODO") as? [[String: Any]])
    #expect(matches.count == 1)
    #expect(matches.first?["line"] as? Int == 1)
    #expect(matches.first?["text"] as? String == "TODO: ship \"it\"")
  }

  @Test func statusListsUnsavedChanges() throws {
    let clean = try #require(try json("status --json") as? [String: Any])
    #expect(clean["changes"] as? Int == 0)
    let status = try #require(
      try json("mkdir Fresh; write Work/Notes y; status --json") as? [String: Any])
    #expect(status["changes"] as? Int == 2)
    let categories = try #require(status["categories"] as? [String: Any])
    #expect(categories["new"] as? [String] == ["Fresh"])
    let documents = try #require(status["documents"] as? [String: Any])
    let changed = try #require(documents["changed"] as? [[String: Any]])
    #expect(changed.first?["path"] as? String == "Work/Notes")
    #expect(changed.first?["properties"] as? [String] == ["content"])
  }
}
