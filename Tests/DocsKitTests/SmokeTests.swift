import Foundation
import Testing

@testable import DocsKit

@Suite struct SmokeTests {
  @Test func savesAndLoadsAGraph() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "docsh-smoke-\(UUID())")
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("sub/store.json").path
    // The first session saves and leaves.
    let plan = try { () throws -> Document in
      let context = try Context(store: JSONStore(path: path))
      let work = try context.createCategory(named: "Work")
      let plan = try context.createDocument(
        named: "Plan", in: work.id, content: "é \"quoted\" \\ tab\t\nline 2 👍🏽")
      try context.createDocument(named: "Other", in: work.id, content: "x")
      try context.save()
      #expect(try !context.hasChanges)
      return plan
    }()
    let reloaded = try Context(store: JSONStore(path: path))
    let category = try #require(reloaded.category(named: "work"))
    let documents = try reloaded.documents(in: category.id)
    #expect(documents.map(\.name.text) == ["Other", "Plan"])
    #expect(try reloaded.content(of: plan.id) == "é \"quoted\" \\ tab\t\nline 2 👍🏽")
    #expect(try reloaded.document(withID: plan.id)?.size == plan.size)
    // change one, keep others raw-copied
    try reloaded.renameDocument(plan.id, to: "Plan B")
    try reloaded.save()
    // Folded, so that the file alone holds the save.
    try reloaded.foldSaveLog()
    let third = try Context(store: JSONStore(path: path))
    #expect(try third.content(of: plan.id) == "é \"quoted\" \\ tab\t\nline 2 👍🏽")
    #expect(try third.document(withID: plan.id)?.name.text == "Plan B")
    #expect(third.generation == 2)
    let other = try #require(try third.document(named: "other", in: category.id))
    #expect(try third.content(of: other.id) == "x")
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    #expect(json?["generation"] as? Int == 2)
    // content after save readable from reloaded context (faults rebased)
    #expect(try reloaded.content(of: other.id) == "x")
    #expect(try reloaded.content(of: plan.id) == "é \"quoted\" \\ tab\t\nline 2 👍🏽")
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(FileManager.default.fileExists(atPath: path + ".bak"))
  }
}
