import Foundation
import Testing

@testable import DocsKit

/// The pieces of an encrypted remote's layout: where files lie, what they hold, and the
/// local settings — each read back exactly, and anything else refused.
@Suite struct EncryptedLayoutTests {
  let identity = AgeIdentity.generate()
  var names: OpaqueNames { OpaqueNames(identity: identity) }

  @Test func namesAreStableOpaqueAndPlacedWhereTheLayoutReadsThem() throws {
    let id = try #require(ObjectID("6f1c0a52-8a7e-4b3e-9d0c-2b1f5e8a9c41"))
    let path = names.documentPath(id)
    #expect(path == OpaqueNames(identity: identity).documentPath(id))
    #expect(!path.contains(id.description) && !path.contains("6f1c0a52"))
    guard case .document = EncryptedLayout.classify(path) else {
      Issue.record("\(path) is not a document's place")
      return
    }
    guard case .category = EncryptedLayout.classify(names.categoryPath(id)) else {
      Issue.record("\(names.categoryPath(id)) is not a category's place")
      return
    }
    // Another identity names the same id otherwise; a document and a category differ.
    #expect(OpaqueNames(identity: AgeIdentity.generate()).documentPath(id) != path)
    #expect(names.categoryPath(id).split(separator: "/").last != path.split(separator: "/").last)
  }

  @Test(arguments: [
    "notes.txt", "documents/ab/cd" + String(repeating: "0", count: 30),
    "documents/ab/AB" + String(repeating: "0", count: 30), "documents/ab",
    "categories/short", ".docsh/other", "documents/ab/ab" + String(repeating: "0", count: 31),
  ])
  func pathsOutsideTheLayoutAreUnknown(_ path: String) {
    #expect(EncryptedLayout.classify(path) == .unknown)
  }

  @Test func recordsReadBackExactly() throws {
    let document = SnapshotDocument(
      id: ObjectID(high: 1, low: 2), name: try Name("Plan: the next one"), size: 13,
      modified: Timestamp(millisecondsSince1970: 1_764_990_000_123), content: "---\nline\n",
      tags: [try Tag("work")])
    let category = ObjectID(high: 3, low: 4)
    let bytes = EncryptedRecord.document(document, categoryID: category)
    let read = try #require(EncryptedRecord.parseDocument(bytes))
    #expect(read.document.id == document.id && read.document.name == document.name)
    #expect(read.document.content == document.content && read.document.tags == document.tags)
    #expect(read.document.modified == document.modified && read.categoryID == category)
    #expect(EncryptedRecord.parseDocument(Array("docsh document\ncategory: x\n".utf8)) == nil)
    let record = EncryptedRecord.category(id: category, name: try Name("Work"))
    #expect(EncryptedRecord.parseCategory(record)?.id == category)
    #expect(EncryptedRecord.parseCategory(bytes) == nil)
  }

  @Test func theMarkerNamesItsVersion() {
    #expect(EncryptedLayout.markerVersion(EncryptedLayout.markerBytes) == EncryptedLayout.version)
    #expect(EncryptedLayout.markerVersion(Array("docsh encrypted remote\nversion: 7\n".utf8)) == 7)
    #expect(EncryptedLayout.markerVersion(Array("something else\n".utf8)) == nil)
  }

  @Test func settingsReadBackAndDamageIsNoSettings() {
    let settings = EncryptionSettings(
      recipient: identity.recipient, names: names,
      identityBlob: GitBlobID(hex: String(repeating: "a", count: 40)))
    #expect(EncryptionSettings(parsing: settings.bytes) == settings)
    #expect(EncryptionSettings(parsing: Array(settings.bytes.dropLast(30))) == nil)
    #expect(EncryptionSettings(parsing: Array("docsh encryption 2\n".utf8)) == nil)
  }

  @Test func theCommitMapReadsBothWaysAndItsLastLineWins() {
    var map = EncryptedCommitMap(parsing: Array("a b\nc d\na e\n".utf8))
    #expect(map.encrypted(for: CommitID("a")) == CommitID("e"))
    #expect(map.local(for: CommitID("b")) == CommitID("a"))
    map.record(local: CommitID("f"), encrypted: CommitID("g"))
    #expect(map.addedBytes == Array("f g\n".utf8))
    #expect(map.local(for: CommitID("g")) == CommitID("f"))
  }
}
