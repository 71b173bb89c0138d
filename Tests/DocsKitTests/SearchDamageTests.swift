import Foundation
import Testing

@testable import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// What a content search reports when the store cannot hand a content over: each failure is
/// the store's own case, named with the store's path, never a catch-all.
@Suite struct SearchDamageTests {
  /// A store of one category with two documents, saved; the context reopened on it reads
  /// every content from the file.
  private func savedStore(_ harness: Harness, content: String = "needle one\nplain") throws {
    let setup = try harness.openContext()
    let work = try setup.createCategory(named: "Work")
    try setup.createDocument(named: "Plan", in: work.id, content: content)
    try setup.createDocument(named: "List", in: work.id, content: "eggs\nneedle two")
    try setup.save()
  }

  /// The store error `body` threw, or `nil` when it threw something else or nothing.
  private func storeError(_ body: () throws -> Void) -> StoreError? {
    do {
      try body()
    } catch let error as ContextError {
      if case .store(let error) = error { return error }
    } catch {}
    return nil
  }

  @Test func anUndecodableContentIsTheStoresInvalidStoreError() throws {
    let harness = try Harness()
    try savedStore(harness, content: "needle one\nneedle BAD")
    var text = try String(contentsOfFile: harness.storePath, encoding: .utf8)
    text = text.replacingOccurrences(of: "needle BAD", with: "needle \\x")
    try text.write(toFile: harness.storePath, atomically: false, encoding: .utf8)
    let context = try harness.openContext()
    let error = storeError {
      _ = try context.searchContents(for: .text("needle", ignoringCase: false))
    }
    let found = try #require(error)
    guard case .invalidStore(let path, let reason) = found else {
      Issue.record("expected invalidStore, got \(found)")
      return
    }
    #expect(path == harness.storePath)
    #expect(reason.hasPrefix("a content cannot be decoded: "))
    #expect(!found.description.contains("\n"))
  }

  @Test func aFileCutShortUnderTheSearchIsTheStoresInvalidStoreError() throws {
    let harness = try Harness()
    try savedStore(harness)
    let context = try harness.openContext()
    // Another program cuts the file short in place after the load: the contents the load
    // placed are gone from the descriptor the search reads.
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: harness.storePath)[.size] as? Int)
    #expect(truncate(harness.storePath, off_t(size / 4)) == 0)
    let error = storeError {
      _ = try context.searchContents(for: .text("needle", ignoringCase: false))
    }
    #expect(
      error
        == .invalidStore(
          harness.storePath, reason: "the file was cut short (a content ends past its end)"))
  }

  /// The two searches that read contents from the file: listing the matching lines, and
  /// counting them.
  enum Reading: CaseIterable {
    case matchingLines, lineCounts
  }

  @Test(arguments: Reading.allCases)
  func aFailedReadIsTheStoresSystemErrorWithItsErrno(reading: Reading) throws {
    let harness = try Harness()
    try savedStore(harness)
    let fileSystem = FaultInjectingFileSystem()
    let context = try harness.openContext(fileSystem: fileSystem)
    fileSystem.arm(.operation("pread", occurrence: 1), code: EIO)
    defer { fileSystem.disarm() }
    let pattern = ContentPattern.text("needle", ignoringCase: false)
    let error = storeError {
      switch reading {
      case .matchingLines: _ = try context.searchContents(for: pattern)
      case .lineCounts: _ = try context.countMatchingLines(for: pattern)
      }
    }
    #expect(fileSystem.injected != nil)
    #expect(error == .system(harness.storePath, operation: "read", errno: EIO))
  }
}
