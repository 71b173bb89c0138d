import Foundation
import Testing

@testable import DocsKit

/// Two sessions see each other: one with nothing unsaved shows what the other saved, one
/// with changes is told the store moved on, and a save conflict is settled by the user's
/// choice without losing an unrelated unsaved change.
@Suite struct OtherSessionsTests {
  /// A store with `Work/Plan` ("Ship on Monday"), and two sessions on it.
  static func twoSessions(_ harness: Harness) throws -> (Context, Context, ObjectID) {
    let seed = try harness.openContext()
    let work = try seed.createCategory(named: "Work")
    try seed.createDocument(named: "Plan", in: work.id, content: "Ship on Monday\n")
    try seed.save()
    return (try harness.openContext(), try harness.openContext(), work.id)
  }

  static func plan(_ context: Context, _ work: ObjectID) throws -> Document {
    try #require(try context.document(named: "Plan", in: work))
  }

  @Test func aSessionWithNothingUnsavedShowsWhatAnotherSaved() throws {
    let harness = try Harness()
    let (reader, writer, work) = try OtherSessionsTests.twoSessions(harness)
    #expect(try reader.catchUpWithStore() == .current)
    _ = try writer.setContent("Ship on Tuesday\n", of: try OtherSessionsTests.plan(writer, work).id)
    try writer.createDocument(named: "Other", in: work, content: "x")
    try writer.save()
    #expect(reader.storeMovement == .saves(1))
    #expect(try reader.catchUpWithStore() == .refreshed(droppedUndo: false))
    #expect(
      try reader.content(of: try OtherSessionsTests.plan(reader, work).id) == "Ship on Tuesday\n")
    #expect(try reader.document(named: "Other", in: work) != nil)
    #expect(try reader.catchUpWithStore() == .current)
  }

  @Test func anUndoHistoryOfTheOldViewIsDroppedAndSaid() throws {
    let harness = try Harness()
    let (reader, writer, work) = try OtherSessionsTests.twoSessions(harness)
    try reader.createDocument(named: "Mine", in: work, content: "m")
    try reader.save()  // an undo history, nothing unsaved
    try writer.reload()
    try writer.createDocument(named: "Theirs", in: work, content: "t")
    try writer.save()
    #expect(try reader.catchUpWithStore() == .refreshed(droppedUndo: true))
    #expect(try reader.document(named: "Theirs", in: work) != nil)
  }

  @Test func aSessionWithChangesIsToldHowManySavesCameInAndKeepsItsChanges() throws {
    let harness = try Harness()
    let (reader, writer, work) = try OtherSessionsTests.twoSessions(harness)
    try reader.createDocument(named: "Draft", in: work, content: "d")
    for name in ["One", "Two"] {
      try writer.createDocument(named: name, in: work, content: name)
      try writer.save()
    }
    #expect(try reader.catchUpWithStore() == .behind(saves: 2))
    #expect(try reader.hasChanges)
    try reader.save()
    #expect(reader.storeMovement == .none)
    let names = try reader.documents(in: work).map(\.name.text).sorted()
    #expect(names == ["Draft", "One", "Plan", "Two"])
  }

  /// Both sessions changed Plan's first line; `mine` also made an unrelated `Notes`.
  static func conflict(_ harness: Harness) throws -> (Context, ObjectID) {
    let (mine, theirs, work) = try twoSessions(harness)
    _ = try theirs.setContent("Ship on Tuesday\n", of: try plan(theirs, work).id)
    try theirs.save()
    _ = try mine.setContent("Ship on Friday\n", of: try plan(mine, work).id)
    try mine.createDocument(named: "Notes", in: work, content: "unrelated")
    #expect {
      try mine.save()
    } throws: { error in
      guard case .conflicts(let found) = error as? ContextError else { return false }
      return found.map(\.path) == ["Work/Plan"] && "\(error)".contains("save --both")
    }
    return (mine, work)
  }

  static func savedContents(_ harness: Harness, _ work: ObjectID) throws -> [String: String] {
    let fresh = try harness.openContext()
    var contents: [String: String] = [:]
    for document in try fresh.documents(in: work) {
      contents[document.name.text] = try fresh.content(of: document.id)
    }
    return contents
  }

  @Test func diffShowsBothVersionsAndWritesNothing() throws {
    let harness = try Harness()
    let (mine, work) = try OtherSessionsTests.conflict(harness)
    let versions = try mine.conflictVersions()
    #expect(versions.count == 1)
    #expect(versions.first?.theirs == "Ship on Tuesday\n")
    #expect(versions.first?.mine == "Ship on Friday\n")
    #expect(try OtherSessionsTests.savedContents(harness, work)["Notes"] == nil)
  }

  @Test(arguments: [
    (ConflictResolution.mine, "Ship on Friday\n", false),
    (.theirs, "Ship on Tuesday\n", false),
    (.theirsWhole, "Ship on Tuesday\n", false),
    (.both, "Ship on Friday\n", true),
  ])
  func eachResolutionKeepsTheUnrelatedChange(
    resolution: ConflictResolution, plan: String, sibling: Bool
  ) throws {
    let harness = try Harness()
    let (mine, work) = try OtherSessionsTests.conflict(harness)
    try mine.save(resolving: resolution)
    let saved = try OtherSessionsTests.savedContents(harness, work)
    #expect(saved["Plan"] == plan)
    #expect(saved["Notes"] == "unrelated", "the unrelated unsaved change is saved")
    let siblings = saved.filter { $0.key.hasPrefix("Plan (conflict ") }
    #expect(siblings.count == (sibling ? 1 : 0), "\(saved.keys.sorted())")
    if sibling { #expect(siblings.first?.value == "Ship on Tuesday\n") }
  }

  @Test func theirsTakesOnlyTheConflictingPropertyAndKeepsMyRename() throws {
    let harness = try Harness()
    let (mine, theirs, work) = try OtherSessionsTests.twoSessions(harness)
    _ = try theirs.setContent("Ship on Tuesday\n", of: try OtherSessionsTests.plan(theirs, work).id)
    try theirs.save()
    let plan = try OtherSessionsTests.plan(mine, work)
    _ = try mine.setContent("Ship on Friday\n", of: plan.id)
    _ = try mine.renameDocument(plan.id, to: "Roadmap")
    try mine.save(resolving: .theirs)
    #expect(try OtherSessionsTests.savedContents(harness, work) == ["Roadmap": "Ship on Tuesday\n"])
  }
}
