import Foundation
import Testing

@testable import DocsKit

/// A symlink planted where the store keeps its lock is not followed: nothing is written
/// outside the store's folder.
@Suite struct SymlinkSafetyTests {
  @Test func aSymlinkedLockFileIsRefusedAndItsTargetUntouched() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "docsh-symlink-\(UUID())")
    let folder = root.appendingPathComponent("store")
    let elsewhere = root.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let victim = elsewhere.appendingPathComponent("victim")
    try FileManager.default.createSymbolicLink(
      atPath: folder.appendingPathComponent("store.json.lock").path,
      withDestinationPath: victim.path)

    let context = try Context(
      store: JSONStore(path: folder.appendingPathComponent("store.json").path))
    try context.createCategory(named: "Work")
    let error = #expect(throws: ContextError.self) { try context.save() }
    guard case .store(.system(_, let operation, let code))? = error else {
      Issue.record("expected a system error, got \(String(describing: error))")
      return
    }
    #expect(operation == "open" && code == ELOOP)
    #expect(!FileManager.default.fileExists(atPath: victim.path))
    #expect(
      !FileManager.default.fileExists(atPath: folder.appendingPathComponent("store.json").path))
    #expect(try context.hasChanges)
  }
}
