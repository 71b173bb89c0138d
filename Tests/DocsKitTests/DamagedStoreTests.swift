import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A store cut short or with flipped bytes always fails to load with a clear error — never a
/// crash, never a partial graph — and is never overwritten.
@Suite struct DamagedStoreTests {
  /// A valid store with awkward contents, as bytes.
  static let validStore: [UInt8] = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "docsh-damage-\(UUID())")
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("store.json").path
    do {
      let context = try Context(store: JSONStore(path: path))
      let work = try context.createCategory(named: "Work")
      let home = try context.createCategory(named: "Home é")
      try context.createDocument(named: "Plan", in: work.id, content: "line \"one\"\n\ttab \\ 👍🏽")
      try context.createDocument(named: "Empty", in: work.id, content: "")
      try context.createDocument(named: "日本", in: home.id, content: "\u{1}control\u{7f}")
      try context.save()
      return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      return []
    }
  }()

  func withStore(_ bytes: [UInt8], _ body: (String) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "docsh-damaged-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("store.json").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    try body(path)
  }

  @Test func theValidStoreLoads() throws {
    #expect(!DamagedStoreTests.validStore.isEmpty)
    try withStore(DamagedStoreTests.validStore) { path in
      let context = try Context(store: JSONStore(path: path))
      #expect(context.documentCount == 3)
    }
  }

  @Test func everyTruncationFailsCleanly() throws {
    let bytes = DamagedStoreTests.validStore
    // Every offset but the trailing newline, which is white space.
    for length in 0..<(bytes.count - 1) {
      try withStore(Array(bytes[..<length])) { path in
        let store = JSONStore(path: path)
        do {
          let context = try Context(store: store)
          Issue.record(
            "a store cut at \(length) of \(bytes.count) bytes loaded \(context.documentCount) documents"
          )
        } catch {
          #expect("\(error)".hasPrefix(path), "cut at \(length): \(error)")
        }
        #expect(throws: StoreError.refusedToOverwriteDamagedStore(path)) {
          try store.save([])
        }
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(after == Data(bytes[..<length]))
      }
    }
  }

  @Test func flippedBytesNeverCrashAndAreCaughtByLoadOrCheck() throws {
    let bytes = DamagedStoreTests.validStore
    var generator = SeededGenerator(seed: 42)
    for _ in 0..<400 {
      var damaged = bytes
      let offset = Int.random(in: 0..<damaged.count, using: &generator)
      let flip = UInt8.random(in: 1...255, using: &generator)
      damaged[offset] ^= flip
      try withStore(damaged) { path in
        let store = JSONStore(path: path)
        guard let context = try? Context(store: store) else {
          // Refused whole: nothing partial to look at.
          #expect(!store.check().isSound, "load refused what check calls sound at \(offset)")
          return
        }
        // It loaded: the damage is inside a string or a number. Reading every content either
        // works or fails with an error; check reports it when the sizes or encoding broke.
        var unreadable = false
        for category in context.categories() {
          for document in try context.documents(in: category.id) {
            do {
              let content = try context.content(of: document.id)
              if content.utf8.count != document.size { unreadable = true }
            } catch {
              unreadable = true
            }
          }
        }
        if unreadable { #expect(!store.check().isSound, "check missed damage at \(offset)") }
      }
    }
  }
}
