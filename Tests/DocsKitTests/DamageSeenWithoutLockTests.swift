import Foundation
import Testing

@testable import DocsKit

/// A reader sees a save log without the store's lock, so what it takes for damage may be a
/// log another session was beginning anew in place after a fold. Only damage still there
/// under the lock is kept aside and cut: the log of another session's saves never is.
@Suite struct DamageSeenWithoutLockTests {
  @Test func damageSeenHalfWayButGoneUnderTheLockCutsNothing() throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    for name in ["Two", "Three"] {
      try context.createDocument(named: name, in: work, content: "a save of \(name)")
      try context.save()
    }
    let logPath = SaveLogTests.logPath(harness)
    let before = try bytes(at: logPath)

    let reader = JSONStore(path: harness.storePath)
    _ = try reader.load()
    let attached = try #require(reader.attached)
    let last = try #require(attached.last)
    // What a read half-way through another session's rewrite reports: the last record not
    // whole. Under the lock the log reads whole again.
    reader.keepDamagedLogAside(
      attached.log, goodEnd: last.start,
      damage: LogDamage(offset: last.start, reason: "seen half-way", unapplied: 1),
      after: reader.loadedHeader.generation ?? 0)

    #expect(try bytes(at: logPath) == before)
    let entries = try harness.folder.entries()
    #expect(!entries.contains { $0.contains(".damaged-") }, "\(entries)")
    #expect(reader.logWarning == nil)
    let again = try harness.openContext()
    let names = try again.documents(in: work).map(\.name.text).sorted()
    #expect(names == ["Plan", "Three", "Two"])
  }
}
