import DocsTestSupport
import Testing

@testable import DocsKit

/// The three-way store merge, rule by rule, on small stores written as values.
@Suite struct StoreMergeTests {
  static let date = MergeDate(year: 2026, month: 5, day: 1)

  /// Work: Plan (id 11), Notes (id 12); Home: List (id 21).
  static func base() throws -> StoreSnapshot {
    try makeStore(
      4,
      [
        TestCategory(
          id: 1, name: "Work",
          documents: [
            TestDocument(id: 11, name: "Plan", content: "plan 0\n"),
            TestDocument(id: 12, name: "Notes", content: "notes 0\n"),
          ]),
        TestCategory(
          id: 2, name: "Home", documents: [TestDocument(id: 21, name: "List", content: "list 0\n")]
        ),
      ])
  }

  func merge(
    _ base: StoreSnapshot, _ current: StoreSnapshot, _ other: StoreSnapshot
  ) -> StoreMerge {
    StoreMerge(base: base, current: current, other: other, date: StoreMergeTests.date)
  }

  /// Edits `store` in place with `change`.
  func edited(
    _ store: StoreSnapshot, generation: Int? = nil, _ change: (inout StoreSnapshot) throws -> Void
  ) rethrows -> StoreSnapshot {
    var copy = store
    try change(&copy)
    if let generation { copy.generation = generation }
    return copy
  }

  @Test func changesToDifferentPropertiesAndObjectsCombine() throws {
    let base = try Self.base()
    let current = try edited(base) {
      $0.categories[0].documents[0].content = "plan mine\n"  // Plan's content
      $0.categories[1].documents.append(
        SnapshotDocument(
          id: SequentialIDs.id(22), name: try Name("Shop"), size: 4,
          modified: TestClock.reading(5), content: "milk"))
    }
    let other = try edited(base) {
      $0.categories[0].documents[0].name = try Name("Plan B")  // Plan's name
      $0.categories[0].documents.remove(at: 1)  // Notes deleted
    }
    let result = merge(base, current, other)
    #expect(result.conflicts.isEmpty)
    #expect(
      result.merged.contentsByPath == [
        "Work/Plan B": "plan mine\n", "Home/List": "list 0\n", "Home/Shop": "milk",
      ])
  }

  @Test(arguments: [true, false])
  func aTouchOnEitherSideGivesTheLaterDate(touchedHere: Bool) throws {
    let base = try Self.base()
    let touched = edited(base) { $0.categories[0].documents[0].modified = TestClock.reading(50) }
    let result = touchedHere ? merge(base, touched, base) : merge(base, base, touched)
    #expect(result.conflicts.isEmpty)
    #expect(
      result.merged.document(SequentialIDs.id(11))?.document.modified == TestClock.reading(50))
    #expect(result.merged.contentsByPath["Work/Plan"] == "plan 0\n")
  }

  @Test func theSameChangeOnBothSidesIsTakenOnce() throws {
    let base = try Self.base()
    let both = try edited(base) {
      $0.categories[0].documents[0].content = "same\n"
      $0.categories[1].name = try Name("House")
    }
    let result = merge(base, both, both)
    #expect(result.conflicts.isEmpty)
    #expect(result.merged.contentsByPath["Work/Plan"] == "same\n")
    #expect(result.merged.category(named: "House") != nil)
    #expect(result.merged.documentCount == 3)
  }

  @Test func contentChangedOnBothSidesKeepsCurrentsAndMakesASiblingOfOthers() throws {
    let base = try Self.base()
    let current = edited(base) { $0.categories[0].documents[0].content = "plan mine\n" }
    let other = edited(base) { $0.categories[0].documents[0].content = "plan theirs\n" }
    let result = merge(base, current, other)
    #expect(result.merged.document(SequentialIDs.id(11))?.document.content == "plan mine\n")
    #expect(result.merged.contentsByPath["Work/Plan (conflict 2026-05-01)"] == "plan theirs\n")
    #expect(
      result.conflicts.map(\.description) == [
        "Work/Plan: content changed on both sides; the other side's version is Work/Plan (conflict 2026-05-01)"
      ])
  }

  static let paragraphs = "Intro.\n\nMiddle one.\nMiddle two.\n\nThe end.\n"

  @Test func editsOfDifferentParagraphsMergeByLinesWithoutASibling() throws {
    let base = try edited(Self.base()) { $0.categories[0].documents[0].content = Self.paragraphs }
    let current = edited(base) {
      $0.categories[0].documents[0].content =
        "Intro, mine.\n\nMiddle one.\nMiddle two.\n\nThe end.\n"
    }
    let other = edited(base) {
      $0.categories[0].documents[0].content =
        "Intro.\n\nMiddle one.\nMiddle two.\n\nThe end, theirs.\n"
    }
    let result = merge(base, current, other)
    #expect(result.conflicts.isEmpty)
    let merged = "Intro, mine.\n\nMiddle one.\nMiddle two.\n\nThe end, theirs.\n"
    #expect(
      result.merged.contentsByPath == [
        "Work/Plan": merged, "Work/Notes": "notes 0\n", "Home/List": "list 0\n",
      ])
    #expect(result.merged.document(SequentialIDs.id(11))?.document.size == merged.utf8.count)
  }

  @Test func linesAppendedOnBothSidesAreAllKeptCurrentsFirst() throws {
    let base = try Self.base()
    let current = edited(base) {
      $0.categories[0].documents[0].content = "plan 0\nmine 1\nmine 2\n"
    }
    let other = edited(base) { $0.categories[0].documents[0].content = "plan 0\ntheirs 1\n" }
    let result = merge(base, current, other)
    #expect(result.conflicts.isEmpty)
    #expect(result.merged.contentsByPath["Work/Plan"] == "plan 0\nmine 1\nmine 2\ntheirs 1\n")
    #expect(result.merged.documentCount == 3)
  }

  @Test func editsOfOneLineStillMakeASiblingWhenTheOtherEditsCombine() throws {
    // Two paragraphs edited on both sides, one of them the same line both ways: a conflict,
    // the whole of OTHER's version as the sibling.
    let base = try edited(Self.base()) { $0.categories[0].documents[0].content = Self.paragraphs }
    let current = edited(base) {
      $0.categories[0].documents[0].content = "Intro.\n\nMiddle mine.\nMiddle two.\n\nThe end.\n"
    }
    let theirs = "Intro, theirs.\n\nMiddle theirs.\nMiddle two.\n\nThe end.\n"
    let other = edited(base) { $0.categories[0].documents[0].content = theirs }
    let result = merge(base, current, other)
    #expect(
      result.merged.document(SequentialIDs.id(11))?.document.content
        == current.document(SequentialIDs.id(11))?.document.content)
    #expect(result.merged.contentsByPath["Work/Plan (conflict 2026-05-01)"] == theirs)
    #expect(
      result.conflicts.first?.kind
        == .changedOnBothSides([.content], otherVersion: "Work/Plan (conflict 2026-05-01)"))
  }

  @Test func aTakenSiblingNameCountsUp() throws {
    let base = try edited(Self.base()) {
      $0.categories[0].documents.append(
        SnapshotDocument(
          id: SequentialIDs.id(13), name: try Name("Plan (conflict 2026-05-01)"), size: 3,
          modified: TestClock.reading(2), content: "old"))
    }
    let current = edited(base) { $0.categories[0].documents[0].content = "mine" }
    let other = edited(base) { $0.categories[0].documents[0].content = "theirs" }
    let result = merge(base, current, other)
    #expect(result.merged.contentsByPath["Work/Plan (conflict 2026-05-01 2)"] == "theirs")
    #expect(result.merged.contentsByPath["Work/Plan (conflict 2026-05-01)"] == "old")
  }

  @Test func aDocumentRenamedBothWaysKeepsCurrentsNameAndOthersAsSibling() throws {
    let base = try Self.base()
    let current = try edited(base) { $0.categories[0].documents[0].name = try Name("Plan A") }
    let other = try edited(base) { $0.categories[0].documents[0].name = try Name("Plan B") }
    let result = merge(base, current, other)
    #expect(result.merged.document(SequentialIDs.id(11))?.document.name.text == "Plan A")
    #expect(result.merged.contentsByPath["Work/Plan B (conflict 2026-05-01)"] == "plan 0\n")
    #expect(
      result.conflicts.first?.kind
        == .changedOnBothSides([.name], otherVersion: "Work/Plan B (conflict 2026-05-01)"))
  }

  @Test func aDocumentMovedBothWaysStaysInCurrentsCategoryAndOthersVersionGoesToItsOwn() throws {
    let base = try edited(Self.base()) {
      $0.categories.append(
        SnapshotCategory(id: SequentialIDs.id(3), name: try Name("Later"), documents: []))
    }
    let current = edited(base) {
      let plan = $0.categories[0].documents.remove(at: 0)
      $0.categories[1].documents.append(plan)  // to Home
    }
    let other = edited(base) {
      let plan = $0.categories[0].documents.remove(at: 0)
      $0.categories[2].documents.append(plan)  // to Later
    }
    let result = merge(base, current, other)
    #expect(result.merged.document(SequentialIDs.id(11))?.category.name.text == "Home")
    #expect(result.merged.contentsByPath["Later/Plan (conflict 2026-05-01)"] == "plan 0\n")
    #expect(
      result.conflicts.first?.kind
        == .changedOnBothSides([.category], otherVersion: "Later/Plan (conflict 2026-05-01)"))
  }

  @Test func aMoveOnOneSideAndAnEditOnTheOtherBothHold() throws {
    let base = try Self.base()
    let current = edited(base) {
      let plan = $0.categories[0].documents.remove(at: 0)
      $0.categories[1].documents.append(plan)
    }
    let other = edited(base) { $0.categories[0].documents[0].content = "edited there\n" }
    let result = merge(base, current, other)
    #expect(result.conflicts.isEmpty)
    #expect(result.merged.contentsByPath["Home/Plan"] == "edited there\n")
    #expect(result.merged.contentsByPath["Work/Plan"] == nil)
  }

  @Test(arguments: [true, false])
  func anEditAgainstADeletionKeepsTheEditedDocument(editedHere: Bool) throws {
    let base = try Self.base()
    let edit = edited(base) { $0.categories[0].documents[1].content = "notes edited\n" }
    let deletion = edited(base) { _ = $0.categories[0].documents.remove(at: 1) }
    let result = editedHere ? merge(base, edit, deletion) : merge(base, deletion, edit)
    #expect(result.merged.contentsByPath["Work/Notes"] == "notes edited\n")
    #expect(
      result.conflicts.map(\.description) == [
        editedHere
          ? "Work/Notes: changed here, deleted on the other side; kept"
          : "Work/Notes: deleted here, changed on the other side; kept"
      ])
  }

  @Test func aDeletionOfAnUntouchedDocumentHolds() throws {
    let base = try Self.base()
    let deletion = edited(base) { _ = $0.categories[0].documents.remove(at: 1) }
    let result = merge(base, base, deletion)
    #expect(result.merged.contentsByPath["Work/Notes"] == nil)
    #expect(result.conflicts.isEmpty)
  }

  @Test func twoDocumentsCreatedWithOneNameAreBothKept() throws {
    let base = try Self.base()
    func adding(_ id: UInt64, _ content: String) throws -> StoreSnapshot {
      try edited(base) {
        $0.categories[1].documents.append(
          SnapshotDocument(
            id: SequentialIDs.id(id), name: try Name("Ideas"), size: content.utf8.count,
            modified: TestClock.reading(3), content: content))
      }
    }
    let result = merge(base, try adding(30, "mine"), try adding(31, "theirs"))
    #expect(result.merged.contentsByPath["Home/Ideas"] == "mine")
    #expect(result.merged.contentsByPath["Home/Ideas (conflict 2026-05-01)"] == "theirs")
    #expect(
      result.conflicts.map(\.description) == [
        "Home/Ideas: created on both sides; the other side's is Home/Ideas (conflict 2026-05-01)"
      ])
  }

  @Test func aCategoryRenamedBothWaysKeepsCurrentsName() throws {
    let base = try Self.base()
    let current = try edited(base) { $0.categories[1].name = try Name("House") }
    let other = try edited(base) { $0.categories[1].name = try Name("Flat") }
    let result = merge(base, current, other)
    #expect(result.merged.categories.map(\.name.text) == ["Work", "House"])
    #expect(
      result.conflicts.map(\.description) == [
        "House/: renamed on both sides (the other side named it Flat); kept this name"
      ])
  }

  @Test(arguments: [true, false])
  func aCategoryDeletedWhileTheOtherSideAddedToItKeepsJustTheNewDocument(deletedHere: Bool)
    throws
  {
    let base = try Self.base()
    let deletion = edited(base) { _ = $0.categories.remove(at: 0) }
    let addition = try edited(base) {
      $0.categories[0].documents.append(
        SnapshotDocument(
          id: SequentialIDs.id(14), name: try Name("New"), size: 3, modified: TestClock.reading(4),
          content: "new"))
    }
    let result = deletedHere ? merge(base, deletion, addition) : merge(base, addition, deletion)
    #expect(result.merged.category(named: "Work")?.documents.map(\.name.text) == ["New"])
    #expect(
      result.conflicts.map(\.description) == [
        deletedHere
          ? "Work/: deleted here, changed on the other side; kept"
          : "Work/: changed here, deleted on the other side; kept"
      ])
  }

  @Test func aCategoryDeletedOnOneSideAndUntouchedOnTheOtherGoes() throws {
    let base = try Self.base()
    let deletion = edited(base) { _ = $0.categories.remove(at: 1) }
    let result = merge(base, base, deletion)
    #expect(result.merged.categories.map(\.name.text) == ["Work"])
    #expect(result.conflicts.isEmpty)
  }

  @Test func categoriesCreatedOnBothSidesWithOneNameBecomeOne() throws {
    let base = try Self.base()
    func adding(_ category: UInt64, _ name: String, _ document: UInt64, _ title: String) throws
      -> StoreSnapshot
    {
      try edited(base) {
        $0.categories.append(
          SnapshotCategory(
            id: SequentialIDs.id(category), name: try Name(name),
            documents: [
              SnapshotDocument(
                id: SequentialIDs.id(document), name: try Name(title), size: 1,
                modified: TestClock.reading(3), content: title)
            ]))
      }
    }
    let result = merge(
      base, try adding(40, "Travel", 41, "Rome"), try adding(50, "travel", 51, "Oslo"))
    let travel = try #require(result.merged.category(named: "Travel"))
    #expect(travel.id == SequentialIDs.id(40))
    #expect(travel.name.text == "Travel")
    #expect(travel.documents.map(\.name.text) == ["Rome", "Oslo"])
    #expect(result.merged.categories.count == 3)
  }

  @Test func aNameTakenByTheOtherSidesRenameRenamesTheOther() throws {
    let base = try Self.base()
    let current = try edited(base) {
      $0.categories[0].documents.append(
        SnapshotDocument(
          id: SequentialIDs.id(15), name: try Name("Agenda"), size: 1,
          modified: TestClock.reading(3), content: "a"))
    }
    let other = try edited(base) { $0.categories[0].documents[1].name = try Name("agenda") }
    let result = merge(base, current, other)
    #expect(result.merged.contentsByPath["Work/Agenda"] == "a")
    #expect(result.merged.contentsByPath["Work/agenda (conflict 2026-05-01)"] == "notes 0\n")
    #expect(
      result.conflicts.map(\.description) == [
        "Work/agenda: the name is taken in the merged store; renamed Work/agenda (conflict 2026-05-01)"
      ])
  }

  @Test func theGenerationIsOneMoreThanTheLarger() throws {
    let base = try Self.base()
    #expect(merge(base, base.at(generation: 9), base.at(generation: 5)).merged.generation == 10)
    #expect(merge(base, base.at(generation: 5), base.at(generation: 12)).merged.generation == 13)
  }

  @Test func mergingTheSameConflictAgainMakesNoSecondSibling() throws {
    let base = try Self.base()
    let current = edited(base) { $0.categories[0].documents[0].content = "mine" }
    let other = edited(base) { $0.categories[0].documents[0].content = "theirs" }
    let first = merge(base, current, other).merged
    // The merged store was never committed; its changes meet the other side's again.
    let again = merge(base, first, other)
    #expect(again.merged.documentCount == first.documentCount)
    #expect(again.merged.contentsByPath == first.contentsByPath)
    #expect(
      again.conflicts.first?.kind
        == .changedOnBothSides([.content], otherVersion: "Work/Plan (conflict 2026-05-01)"))
  }

  @Test func aLongNameIsShortenedToMakeRoomForTheSuffix() throws {
    let long = String(repeating: "é", count: 127)  // 254 bytes
    let base = try makeStore(
      1,
      [TestCategory(id: 1, name: "W", documents: [TestDocument(id: 2, name: long, content: "0")])])
    let current = edited(base) { $0.categories[0].documents[0].content = "1" }
    let other = edited(base) { $0.categories[0].documents[0].content = "2" }
    let result = merge(base, current, other)
    let sibling = try #require(
      result.merged.categories[0].documents.first { $0.content == "2" })
    #expect(sibling.name.text.utf8.count <= Name.maximumByteCount)
    #expect(sibling.name.text.hasSuffix(" (conflict 2026-05-01)"))
    #expect(sibling.name.text.hasPrefix("ééé"))
  }

  @Test func theMergedFileKeepsCurrentsOrderWithOthersAdditionsAfter() throws {
    let base = try Self.base()
    let current = try edited(base) {
      $0.categories[0].documents.insert(
        SnapshotDocument(
          id: SequentialIDs.id(16), name: try Name("First"), size: 1,
          modified: TestClock.reading(2), content: "f"), at: 0)
    }
    let other = try edited(base) {
      $0.categories[0].documents.insert(
        SnapshotDocument(
          id: SequentialIDs.id(17), name: try Name("Zeroth"), size: 1,
          modified: TestClock.reading(2), content: "z"), at: 0)
    }
    let result = merge(base, current, other)
    #expect(
      result.merged.categories[0].documents.map(\.name.text) == [
        "First", "Plan", "Notes", "Zeroth",
      ])
  }
}
