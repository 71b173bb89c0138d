import Foundation
import Testing

@testable import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Whether `error` is the refusal to fold while another session has the store open.
func isOtherSessionsOpen(_ error: any Error) -> Bool {
  if case .otherSessionsOpen? = error as? ContextError { return true }
  return false
}

/// The save log beside the store file: what a save appends, what a reader makes of a log
/// that is torn, foreign or newer, when it is folded, and what the index does with it.
@Suite struct SaveLogTests {
  /// A store with one category `Work` holding `Plan`, whole in its file, and a context on it.
  static func storeAtRest(_ harness: Harness) throws -> (Context, ObjectID) {
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    try context.createDocument(named: "Plan", in: work.id, content: "first")
    try context.save()
    return (context, work.id)
  }

  static func logPath(_ harness: Harness) -> String { harness.storePath + ".wal" }

  static func contents(_ context: Context, in category: ObjectID) throws -> [String: String] {
    var contents: [String: String] = [:]
    for document in try context.documents(in: category) {
      contents[document.name.text] = try context.content(of: document.id)
    }
    return contents
  }

  @Test func aSaveAppendsOneFramedRecordAndLeavesTheFileAsItWas() throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    let file = try bytes(at: harness.storePath)
    try context.createDocument(named: "Notes", in: work, content: "second")
    try context.save()
    #expect(try bytes(at: harness.storePath) == file)
    let lines = try String(decoding: bytes(at: SaveLogTests.logPath(harness)), as: UTF8.self)
      .split(separator: "\n", omittingEmptySubsequences: false)
    // A header, then a frame line and a body line per record, each line JSON.
    #expect(lines.count == 4 && lines[3].isEmpty, "\(lines)")
    let header = try #require(
      JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    #expect(header["format"] as? String == "docsh-save-log")
    let frame = try #require(
      JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
    #expect(frame["length"] as? Int == lines[2].utf8.count)
    let checksum = String(CRC32C.checksum(Array(lines[2].utf8)), radix: 16)
    #expect(
      frame["crc32c"] as? String == String(repeating: "0", count: 8 - checksum.count) + checksum)
    let body = try #require(
      JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any])
    let documents = try #require(body["documents"] as? [[String: Any]])
    #expect((documents.first?["document"] as? [String: Any])?["content"] as? String == "second")
    // Another session reads the file and its log together.
    let other = try harness.openContext()
    #expect(try SaveLogTests.contents(other, in: work) == ["Plan": "first", "Notes": "second"])
  }

  @Test(arguments: [1, 10, 40])
  func aTornLastRecordIsNeverSavedAndTheNextSaveCutsItOff(bytesCut: Int) throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    try context.createDocument(named: "Kept", in: work, content: "kept")
    try context.save()
    let afterFirst = try bytes(at: SaveLogTests.logPath(harness))
    try context.createDocument(named: "Torn", in: work, content: "torn")
    try context.save()
    // The machine stopped while the second record was being written.
    let full = try bytes(at: SaveLogTests.logPath(harness))
    #expect(full.count - bytesCut > afterFirst.count)
    try Data(full.prefix(full.count - bytesCut)).write(
      to: URL(fileURLWithPath: SaveLogTests.logPath(harness)))

    let reader = try harness.openContext()
    #expect(try SaveLogTests.contents(reader, in: work) == ["Plan": "first", "Kept": "kept"])
    #expect(reader.generation == 2)
    #expect(reader.storeWarning == nil)
    try reader.createDocument(named: "After", in: work, content: "after")
    try reader.save()
    let log = try bytes(at: SaveLogTests.logPath(harness))
    #expect(Array(log.prefix(afterFirst.count)) == afterFirst, "the torn tail was cut off")
    let again = try harness.openContext()
    #expect(
      try SaveLogTests.contents(again, in: work)
        == ["Plan": "first", "Kept": "kept", "After": "after"])
    #expect(again.generation == 3)
  }

  @Test func aRecordWhoseChecksumFailsIsNotApplied() throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    try context.createDocument(named: "Flipped", in: work, content: "abcdef")
    try context.save()
    var log = try bytes(at: SaveLogTests.logPath(harness))
    let index = try #require(
      log.indices.last { log[$0] == UInt8(ascii: "a") && log[$0 + 1] == UInt8(ascii: "b") })
    log[index] = UInt8(ascii: "z")
    try Data(log).write(to: URL(fileURLWithPath: SaveLogTests.logPath(harness)))
    let reader = try harness.openContext()
    #expect(try SaveLogTests.contents(reader, in: work) == ["Plan": "first"])
  }

  @Test func aLogOfAnotherVersionOfTheFileIsSetAsideWithAWarningNeverApplied() throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    // A copy of the store file, as a backup tool takes it, then more saves into the log.
    try context.createDocument(named: "Logged", in: work, content: "in the log")
    try context.save()
    let other = try Harness("aLogOfAnotherVersion-other")
    let (otherContext, _) = try SaveLogTests.storeAtRest(other)
    try otherContext.createCategory(named: "Elsewhere")
    try otherContext.save()
    try otherContext.foldSaveLog()
    // Another machine's file put in its place (a sync by another tool): the log beside it
    // is not its log.
    let foreign = try bytes(at: other.storePath)
    try Data(foreign).write(to: URL(fileURLWithPath: harness.storePath))
    let logBytes = try bytes(at: SaveLogTests.logPath(harness))

    let reader = try harness.openContext()
    let warning = try #require(reader.storeWarning)
    #expect(warning.contains("another version"), "\(warning)")
    #expect(reader.category(named: "Elsewhere") != nil)
    #expect(try reader.documents(in: work).map(\.name.text) == ["Plan"])
    try reader.createDocument(named: "New", in: work, content: "new")
    try reader.save()
    // The save set the foreign log aside, as it was, and started this file's own.
    let kept = try harness.folder.entries().filter { $0.hasPrefix("store.json.wal.ignored-") }
    #expect(kept.count == 1)
    if let name = kept.first {
      #expect(try bytes(at: harness.folder.path(name)) == logBytes)
    }
    let again = try harness.openContext()
    #expect(again.storeWarning == nil)
    #expect(try again.documents(in: work).map(\.name.text).sorted() == ["New", "Plan"])
  }

  @Test func aLogOfANewerDocshIsRefusedAndNothingIsWritten() throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    try context.createDocument(named: "Logged", in: work, content: "x")
    try context.save()
    let path = SaveLogTests.logPath(harness)
    let log = try String(decoding: bytes(at: path), as: UTF8.self)
    let newer = log.replacingOccurrences(of: "\"version\":1,", with: "\"version\":2,")
    #expect(newer != log)
    try write(newer, to: path)
    let file = try bytes(at: harness.storePath)
    #expect {
      _ = try harness.openContext()
    } throws: { error in
      "\(error)".contains("newer") && "\(error)".contains(".wal")
    }
    #expect(try bytes(at: harness.storePath) == file)
    #expect(try String(decoding: bytes(at: path), as: UTF8.self) == newer)
  }

  @Test func aFoldWritesTheFileWholeSoThatItAloneHoldsEverySave() throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    for index in 0..<5 {
      try context.createDocument(named: "Doc \(index)", in: work, content: "content \(index)")
      try context.save()
    }
    let generation = context.generation
    try context.foldSaveLog()
    #expect(!FileManager.default.fileExists(atPath: SaveLogTests.logPath(harness)))
    #expect(context.generation == generation)
    let object = try jsonObject(at: harness.storePath)
    #expect(object["generation"] as? Int == generation)
    let categories = try #require(object["categories"] as? [[String: Any]])
    let documents = try #require(categories.first?["documents"] as? [[String: Any]])
    #expect(documents.count == 6)
    // The session goes on saving into a new log of the new file.
    try context.createDocument(named: "After", in: work, content: "after")
    try context.save()
    #expect(FileManager.default.fileExists(atPath: SaveLogTests.logPath(harness)))
    let reader = try harness.openContext()
    #expect(try reader.documents(in: work).count == 7)
  }

  @Test func aFoldWaitsForTheOtherSessionsToLeave() throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    try context.createDocument(named: "Logged", in: work, content: "x")
    try context.save()
    var other: Context? = try harness.openContext()
    #expect { try context.foldSaveLog() } throws: { isOtherSessionsOpen($0) }
    #expect(FileManager.default.fileExists(atPath: SaveLogTests.logPath(harness)))
    #expect(other?.generation == context.generation)
    other = nil  // the other session leaves
    try context.foldSaveLog()
    #expect(!FileManager.default.fileExists(atPath: SaveLogTests.logPath(harness)))
  }

  @Test func aSaveFoldsTheLogOnceItOutgrowsItsShareOfTheFile() throws {
    let harness = try Harness()
    let (context, work) = try SaveLogTests.storeAtRest(harness)
    let big = String(repeating: "0123456789abcdef", count: 65_536)  // 1 MiB a save
    var folded = false
    for index in 0..<(SaveLog.foldFloor / big.utf8.count + 2) {
      let plan = try #require(try context.document(named: "Plan", in: work))
      _ = try context.setContent(big + "\(index)", of: plan.id)
      try context.save()
      if !FileManager.default.fileExists(atPath: SaveLogTests.logPath(harness)) {
        folded = true
        // Folded right when the log passed the threshold, never before.
        #expect(index >= SaveLog.foldFloor / big.utf8.count - 1, "folded at save \(index)")
        break
      }
    }
    #expect(folded)
    let object = try jsonObject(at: harness.storePath)
    #expect(object["generation"] as? Int == context.generation)
  }

  @Test func theIndexCatchesUpWithARecordItNeverSaw() throws {
    let harness = try Harness()
    let cache = harness.folder.path("cache")
    let first = try Context(store: IndexedStore(path: harness.storePath, cacheFolder: cache))
    let work = try first.createCategory(named: "Work")
    try first.createDocument(named: "Plan", in: work.id, content: "alpha")
    try first.save()
    _ = try first.search(SearchQuery("alpha"))
    // A save by a process whose index update never happened (killed between the two).
    let plain = try harness.openContext()
    try plain.createDocument(named: "Late", in: work.id, content: "omega words")
    try plain.save()
    let indexed = try Context(store: IndexedStore(path: harness.storePath, cacheFolder: cache))
    #expect(try indexed.documents(in: work.id).map(\.name.text).sorted() == ["Late", "Plan"])
    #expect(try indexed.search(SearchQuery("omega")).map(\.document.name.text) == ["Late"])
    let late = try #require(try indexed.document(named: "Late", in: work.id))
    #expect(try indexed.content(of: late.id) == "omega words")
  }
}
