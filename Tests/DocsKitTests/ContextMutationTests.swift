import DocsTestSupport
import Testing

@testable import DocsKit

@Suite struct ContextMutationTests {
  // MARK: - Names through the context

  @Test func storesNamesTrimmedButOtherwiseAsTyped() throws {
    let (context, _, _) = try makeMemoryContext()
    let category = try context.createCategory(named: "  Cafe\u{301} \n")
    #expect(Array(category.name.text.utf8) == Array("Cafe\u{301}".utf8))
    let document = try context.createDocument(named: "\tPlan B ", in: category.id)
    #expect(document.name.text == "Plan B")
    #expect(try context.document(withID: document.id)?.name.text == "Plan B")
  }

  @Test(arguments: ["", "a/b", "x\ny", ".", "..", String(repeating: "n", count: 256)])
  func refusesInvalidNamesEverywhereAndChangesNothing(bad: String) throws {
    let (context, clock, _) = try makeMemoryContext()
    let category = try context.createCategory(named: "Work")
    let document = try context.createDocument(named: "Plan", in: category.id)
    let before = try snapshot(of: context)
    let readings = clock.readings
    let expected: NameError
    do {
      _ = try Name(bad)
      Issue.record("\(bad.debugDescription) should be refused")
      return
    } catch {
      expected = error
    }
    for attempt in [
      { _ = try context.createCategory(named: bad) },
      { _ = try context.renameCategory(category.id, to: bad) },
      { _ = try context.createDocument(named: bad, in: category.id) },
      { _ = try context.renameDocument(document.id, to: bad) },
      { _ = try context.moveDocument(document.id, to: category.id, renamingTo: bad) },
    ] as [() throws -> Void] {
      let error = #expect(throws: ContextError.self) { try attempt() }
      guard case .invalidName(let nameError)? = error else {
        Issue.record("expected invalidName, got \(String(describing: error))")
        continue
      }
      #expect(nameError == expected)
      #expect(error?.description == expected.description)
    }
    #expect(try snapshot(of: context) == before)
    #expect(clock.readings == readings)
  }

  @Test(arguments: [
    ("Work", "Work"), ("work", "Work"), ("WORK", "work"), ("Café", "Cafe\u{301}"),
    ("cafe\u{301}", "CAFÉ"), (" Work ", "Work"),
  ])
  func categoryNamesAreUniqueIgnoringCaseAndNormalization(existing: String, new: String) throws {
    let (context, _, _) = try makeMemoryContext()
    try context.createCategory(named: existing)
    let error = #expect(throws: ContextError.self) { try context.createCategory(named: new) }
    guard case .duplicateCategoryName(let name, let existingName)? = error else {
      Issue.record("expected duplicateCategoryName, got \(String(describing: error))")
      return
    }
    let typed = try Name(new).text
    let kept = try Name(existing).text
    #expect(name == typed)
    #expect(existingName == kept)
    let expectedText =
      typed == kept
      ? "a category named \"\(kept)\" already exists"
      : "a category named \"\(kept)\" already exists (names ignore case): cannot also have \"\(typed)\""
    #expect(error?.description == expectedText)
    #expect(context.categories().count == 1)
  }

  @Test func renamingACategoryOntoAnotherNameIsRefused() throws {
    let (context, _, _) = try makeMemoryContext()
    try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "Home")
    #expect(throws: ContextError.self) { try context.renameCategory(home.id, to: "WORK") }
    #expect(context.category(withID: home.id)?.name.text == "Home")
  }

  @Test(arguments: [("Plan", "plan"), ("Résumé", "Re\u{301}sume\u{301}"), ("notes", "NOTES")])
  func documentNamesAreUniqueWithinACategory(existing: String, new: String) throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    try context.createDocument(named: existing, in: work.id)
    let error = #expect(throws: ContextError.self) {
      try context.createDocument(named: new, in: work.id)
    }
    guard case .duplicateDocumentName(let name, let existingName, let category)? = error else {
      Issue.record("expected duplicateDocumentName, got \(String(describing: error))")
      return
    }
    #expect(name == new && existingName == existing && category == "Work")
    // Spellings that are canonically equivalent are "the same name" in the message.
    let expectedText =
      existing == new
      ? "a document named \"\(existing)\" already exists in \"Work\""
      : "a document named \"\(existing)\" already exists in \"Work\" (names ignore case): cannot also have \"\(new)\""
    #expect(error?.description == expectedText)
    #expect(try context.documents(in: work.id).count == 1)
  }

  @Test func exactDuplicateDocumentNameMessageDoesNotMentionCase() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    try context.createDocument(named: "Plan", in: work.id)
    let error = #expect(throws: ContextError.self) {
      try context.createDocument(named: "Plan", in: work.id)
    }
    #expect(error?.description == "a document named \"Plan\" already exists in \"Work\"")
  }

  @Test func theSameDocumentNameIsAllowedInDifferentCategories() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "Home")
    let a = try context.createDocument(named: "Todo", in: work.id)
    let b = try context.createDocument(named: "todo", in: home.id)
    #expect(try context.document(named: "TODO", in: work.id)?.id == a.id)
    #expect(try context.document(named: "TODO", in: home.id)?.id == b.id)
  }

  @Test func movingOrRenamingOntoATakenNameIsRefused() throws {
    let (context, clock, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "Home")
    let plan = try context.createDocument(named: "Plan", in: work.id)
    try context.createDocument(named: "Other", in: work.id)
    try context.createDocument(named: "plan", in: home.id)
    let readings = clock.readings
    #expect(throws: ContextError.self) { try context.moveDocument(plan.id, to: home.id) }
    #expect(throws: ContextError.self) { try context.renameDocument(plan.id, to: "OTHER") }
    #expect(try context.document(withID: plan.id) == plan)
    #expect(clock.readings == readings)
  }

  @Test func renamingToAnotherCaseOfItsOwnNameIsAllowed() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "work")
    let renamed = try context.renameCategory(work.id, to: "Work")
    #expect(renamed.name.text == "Work")
    #expect(context.category(named: "WORK")?.name.text == "Work")
    let plan = try context.createDocument(named: "plan", in: work.id)
    let document = try context.renameDocument(plan.id, to: "Plan")
    #expect(document.name.text == "Plan")
    #expect(try context.document(named: "plan", in: work.id)?.name.text == "Plan")
    // And to the other normal form of itself.
    let cafe = try context.createDocument(named: "Café", in: work.id)
    #expect(try context.renameDocument(cafe.id, to: "Cafe\u{301}").name.text == "Cafe\u{301}")
  }

  @Test func aNameFreedByRenameOrDeleteCanBeTakenAgain() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    try context.renameCategory(work.id, to: "Job")
    let second = try context.createCategory(named: "work")
    try context.deleteCategory(second.id)
    #expect(try context.createCategory(named: "WORK").name.text == "WORK")
    let plan = try context.createDocument(named: "Plan", in: work.id)
    try context.deleteDocument(plan.id)
    #expect(throws: Never.self) { try context.createDocument(named: "plan", in: work.id) }
  }

  // MARK: - Size and modification date

  @Test(arguments: [
    ("", 0), ("a", 1), ("é", 2), ("e\u{301}", 3), ("€", 3), ("😀", 4), ("👍🏽", 8),
    ("👨‍👩‍👧‍👦", 25), ("line\r\n", 6), ("\u{0}", 1),
  ])
  func sizeIsTheUTF8ByteCount(content: String, bytes: Int) throws {
    #expect(content.utf8.count == bytes)
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let created = try context.createDocument(named: "a", in: work.id, content: content)
    #expect(created.size == bytes)
    let other = try context.createDocument(named: "b", in: work.id, content: "seed")
    #expect(try context.setContent(content, of: other.id).size == bytes)
    #expect(try context.document(withID: other.id)?.size == bytes)
    let appended = try context.appendContent(content, to: other.id)
    #expect(appended.size == 2 * bytes)
  }

  @Test func modifiedIsSetOnCreateAndOnEveryNameContentOrCategoryChange() throws {
    let (context, clock, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "Home")
    let created = try context.createDocument(named: "Plan", in: work.id, content: "x")
    #expect(created.modified == TestClock.reading(clock.readings))
    var last = created.modified
    let steps: [(String, () throws -> Document)] = [
      ("content", { try context.setContent("y", of: created.id) }),
      ("append", { try context.appendContent("z", to: created.id) }),
      ("rename", { try context.renameDocument(created.id, to: "Plan 2") }),
      ("move", { try context.moveDocument(created.id, to: home.id) }),
      ("move+rename", { try context.moveDocument(created.id, to: work.id, renamingTo: "Plan 3") }),
      ("rename case", { try context.renameDocument(created.id, to: "PLAN 3") }),
    ]
    for (label, step) in steps {
      let document = try step()
      #expect(document.modified > last, "\(label) must set modified")
      #expect(document.modified == TestClock.reading(clock.readings), "\(label)")
      #expect(try context.document(withID: created.id)?.modified == document.modified, "\(label)")
      last = document.modified
    }
  }

  @Test func settingIdenticalContentIsANoOp() throws {
    let (context, clock, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "same 👍🏽")
    try context.save()
    let readings = clock.readings
    let again = try context.setContent("same 👍🏽", of: plan.id)
    #expect(again == plan)
    #expect(try !context.hasChanges)
    #expect(context.undoActionName == "new Plan")
    #expect(clock.readings == readings)
    // Appending nothing is the same content too.
    try context.appendContent("", to: plan.id)
    #expect(try !context.hasChanges)
  }

  @Test func noOpRenamesAndMovesDoNotBumpModified() throws {
    let (context, clock, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let plan = try context.createDocument(named: "Plan", in: work.id)
    try context.save()
    let readings = clock.readings
    #expect(try context.renameDocument(plan.id, to: " Plan ") == plan)
    #expect(try context.moveDocument(plan.id, to: work.id) == plan)
    #expect(try context.renameCategory(work.id, to: "Work") == work)
    #expect(clock.readings == readings)
    #expect(try !context.hasChanges)
  }

  @Test func renamingACategoryLeavesItsDocumentsUntouched() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let documents = try (1...3).map { try context.createDocument(named: "d\($0)", in: work.id) }
    try context.renameCategory(work.id, to: "Job")
    #expect(try context.documents(in: work.id) == documents)
    #expect(try context.changes().updatedDocuments.isEmpty)
  }

  // MARK: - Both sides of the relationship

  /// Every document is listed by exactly its own category, and found by name there.
  func expectRelationshipInSync(
    _ context: Context, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    var seen: Set<ObjectID> = []
    for category in context.categories() {
      for document in try context.documents(in: category.id) {
        #expect(document.categoryID == category.id, sourceLocation: sourceLocation)
        #expect(seen.insert(document.id).inserted, sourceLocation: sourceLocation)
        #expect(
          try context.document(withID: document.id) == document, sourceLocation: sourceLocation)
        #expect(
          try context.document(named: document.name.text, in: category.id)?.id == document.id,
          sourceLocation: sourceLocation)
      }
      let summary = context.summary(of: category.id)
      let documents = try context.documents(in: category.id)
      #expect(summary.documentCount == documents.count, sourceLocation: sourceLocation)
      #expect(
        summary.totalSize == documents.map(\.size).reduce(0, +), sourceLocation: sourceLocation)
      #expect(
        summary.latestModification == documents.map(\.modified).max(),
        sourceLocation: sourceLocation)
    }
    #expect(seen.count == context.documentCount, sourceLocation: sourceLocation)
  }

  @Test func bothSidesStayInSyncThroughMoveRenameDeleteAndUndo() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "Home")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "p")
    let list = try context.createDocument(named: "List", in: work.id, content: "l")
    try context.createDocument(named: "Keep", in: home.id)
    try expectRelationshipInSync(context)

    try context.moveDocument(plan.id, to: home.id)
    #expect(try context.documents(in: work.id).map(\.id) == [list.id])
    #expect(try context.document(named: "Plan", in: work.id) == nil)
    #expect(try context.document(named: "plan", in: home.id)?.categoryID == home.id)
    try expectRelationshipInSync(context)

    try context.moveDocument(plan.id, to: work.id, renamingTo: "Plan v2")
    #expect(try context.document(named: "Plan", in: home.id) == nil)
    #expect(try context.document(named: "plan v2", in: work.id)?.id == plan.id)
    try expectRelationshipInSync(context)

    try context.renameCategory(home.id, to: "House")
    try context.deleteDocument(list.id)
    #expect(try context.document(withID: list.id) == nil)
    #expect(try context.document(named: "List", in: work.id) == nil)
    try expectRelationshipInSync(context)

    try context.deleteCategory(work.id)
    #expect(try context.document(withID: plan.id) == nil)
    try expectRelationshipInSync(context)

    while context.canUndo {
      try context.undo()
      try expectRelationshipInSync(context)
    }
    while context.canRedo {
      try context.redo()
      try expectRelationshipInSync(context)
    }
  }

  @Test func operationsOnVanishedObjectsSayWhichIsGone() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let plan = try context.createDocument(named: "Plan", in: work.id)
    let ghost = SequentialIDs.id(999)
    let cases: [(() throws -> Void, String)] = [
      ({ _ = try context.renameCategory(ghost, to: "x") }, "no category with id \(ghost)"),
      ({ _ = try context.deleteCategory(ghost) }, "no category with id \(ghost)"),
      ({ _ = try context.createDocument(named: "x", in: ghost) }, "no category with id \(ghost)"),
      ({ _ = try context.moveDocument(plan.id, to: ghost) }, "no category with id \(ghost)"),
      ({ _ = try context.setContent("x", of: ghost) }, "no document with id \(ghost)"),
      ({ _ = try context.renameDocument(ghost, to: "x") }, "no document with id \(ghost)"),
      ({ try context.deleteDocument(ghost) }, "no document with id \(ghost)"),
      ({ _ = try context.content(of: ghost) }, "no document with id \(ghost)"),
    ]
    for (attempt, message) in cases {
      let error = #expect(throws: ContextError.self) { try attempt() }
      #expect(error?.description == message)
    }
  }

  // MARK: - Cascade

  @Test(arguments: [0, 1, 5])
  func deletingACategoryDeletesItsDocumentsAndReturnsTheCount(count: Int) throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "Home")
    let documents = try (0..<count).map {
      try context.createDocument(named: "d\($0)", in: work.id, content: "needle")
    }
    let kept = try context.createDocument(named: "d0", in: home.id, content: "needle")
    #expect(try context.deleteCategory(work.id) == count)
    #expect(context.category(withID: work.id) == nil)
    #expect(try context.documents(in: work.id).isEmpty)
    for document in documents {
      #expect(try context.document(withID: document.id) == nil)
      #expect(throws: ContextError.self) { try context.content(of: document.id) }
    }
    #expect(context.documentCount == 1)
    #expect(try context.document(withID: kept.id) == kept)
    #expect(try context.documents(nameContaining: "d").map(\.id) == [kept.id])
    #expect(
      try context.searchContents(for: .text("needle", ignoringCase: false)).map(\.document.id) == [
        kept.id
      ])
  }

  // MARK: - Given modification dates

  @Test func createsAndRewritesDocumentsWithAGivenModificationDateThatSurvivesASave() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    let given = Timestamp(millisecondsSince1970: 1_234_567_890_123)
    let readings = harness.clock.readings
    let created = try context.createDocument(
      named: "Old", in: work.id, content: "é\n", modified: given)
    #expect(created.modified == given)
    #expect(created.size == 3)
    #expect(harness.clock.readings == readings, "a given date must not read the clock")

    let later = Timestamp(millisecondsSince1970: 1_300_000_000_007)
    let rewritten = try context.setContent("new", of: created.id, modified: later)
    #expect(rewritten.modified == later)
    #expect(rewritten.size == 3)
    // Without a date, the clock stamps it as before.
    let stamped = try context.setContent("newer", of: created.id)
    #expect(stamped.modified == TestClock.reading(harness.clock.readings))

    try context.setContent("kept", of: created.id, modified: later)
    try context.save()
    let reloaded = try harness.openContext()
    let document = try #require(try reloaded.document(withID: created.id))
    #expect(document.modified == later)
    #expect(try reloaded.content(of: document.id) == "kept")
    // Undo of a dated rewrite brings the earlier date back.
    try context.undo()
    #expect(try context.document(withID: created.id)?.modified == stamped.modified)
  }
}
