import Testing

@testable import DocsKit

@Suite struct UndoTests {
  /// Work {Plan, List, Empty} and Home {Keep}, saved, then reopened so contents are faults.
  struct Fixture {
    let harness: Harness
    let context: Context
    let work: Category
    let home: Category
    let documents: [Document]

    init(_ label: String = #function) throws {
      harness = try Harness(label)
      let setup = try harness.openContext()
      work = try setup.createCategory(named: "Work")
      home = try setup.createCategory(named: "Home")
      documents = [
        try setup.createDocument(named: "Plan", in: work.id, content: "plan 👍🏽\nline 2"),
        try setup.createDocument(named: "List", in: work.id, content: "a\tb"),
        try setup.createDocument(named: "Empty", in: work.id, content: ""),
        try setup.createDocument(named: "Keep", in: home.id, content: "kept"),
      ]
      try setup.save()
      context = try harness.openContext()
    }
  }

  // MARK: - Cascade undo

  @Test func undoOfACategoryDeleteRestoresItAndEveryDocumentExactly() throws {
    let fixture = try Fixture()
    let context = fixture.context
    let before = try snapshot(of: context)
    #expect(try context.deleteCategory(fixture.work.id) == 3)
    #expect(context.undoActionName == "rmdir Work")
    #expect(try context.undo() == "rmdir Work")
    #expect(try snapshot(of: context) == before)
    #expect(context.category(withID: fixture.work.id) == fixture.work)
    for document in fixture.documents {
      #expect(try context.document(withID: document.id) == document)
    }
    #expect(try !context.hasChanges)
    #expect(try context.redo() == "rmdir Work")
    #expect(context.category(withID: fixture.work.id) == nil)
    for document in fixture.documents.prefix(3) {
      #expect(try context.document(withID: document.id) == nil)
    }
    #expect(context.documentCount == 1)
  }

  @Test func undoOfACategoryDeleteAfterASaveStillRestoresContents() throws {
    let fixture = try Fixture()
    let context = fixture.context
    let before = try snapshot(of: context)
    try context.deleteCategory(fixture.work.id)
    try context.save()
    try context.undo()
    #expect(try snapshot(of: context) == before)
    try context.save()
    #expect(try snapshot(of: fixture.harness.openContext()) == before)
  }

  // MARK: - Each mutation

  /// Each public mutation, applied to the fixture.
  static let mutations: [(String, @Sendable (Fixture) throws -> Void)] = [
    ("mkdir", { _ = try $0.context.createCategory(named: "Notes") }),
    ("rename category", { _ = try $0.context.renameCategory($0.work.id, to: "Job") }),
    ("rmdir", { _ = try $0.context.deleteCategory($0.home.id) }),
    ("new", { _ = try $0.context.createDocument(named: "New", in: $0.home.id, content: "n") }),
    ("write", { _ = try $0.context.setContent("written", of: $0.documents[0].id) }),
    ("append", { _ = try $0.context.appendContent("+", to: $0.documents[1].id) }),
    ("rename", { _ = try $0.context.renameDocument($0.documents[0].id, to: "Plan 2") }),
    ("move", { _ = try $0.context.moveDocument($0.documents[1].id, to: $0.home.id) }),
    (
      "move+rename",
      {
        _ = try $0.context.moveDocument($0.documents[3].id, to: $0.work.id, renamingTo: "Kept")
      }
    ),
    ("rm", { try $0.context.deleteDocument($0.documents[2].id) }),
  ]

  @Test(arguments: 0..<mutations.count)
  func eachMutationIsUndoneAndRedoneAsOneStep(index: Int) throws {
    let (label, mutate) = UndoTests.mutations[index]
    let fixture = try Fixture(label)
    let context = fixture.context
    let before = try snapshot(of: context)
    try mutate(fixture)
    let after = try snapshot(of: context)
    #expect(after != before, "\(label) must change something")
    #expect(context.canUndo && !context.canRedo)
    try context.undo()
    #expect(try snapshot(of: context) == before, "\(label) undone")
    #expect(try !context.hasChanges)
    #expect(!context.canUndo && context.canRedo)
    try context.redo()
    #expect(try snapshot(of: context) == after, "\(label) redone")
    #expect(context.canUndo && !context.canRedo)
  }

  @Test(arguments: 0..<mutations.count)
  func eachMutationIsUndoneAfterASaveAndTheUndoSaves(index: Int) throws {
    let (label, mutate) = UndoTests.mutations[index]
    let fixture = try Fixture(label)
    let context = fixture.context
    let before = try snapshot(of: context)
    try mutate(fixture)
    try context.save()
    try context.undo()
    #expect(try snapshot(of: context) == before, "\(label) undone after save")
    #expect(try context.hasChanges)
    try context.save()
    #expect(try snapshot(of: fixture.harness.openContext()) == before, "\(label) saved")
  }

  @Test func undoAndRedoWalkTheHistoryInOrder() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "1")
    try context.setContent("2", of: plan.id)
    try context.renameDocument(plan.id, to: "Plan B")
    #expect(try context.undo() == "mv Plan B")
    #expect(try context.undo() == "write Plan")
    #expect(try context.content(of: plan.id) == "1")
    #expect(context.redoActionName == "write Plan")
    #expect(try context.redo() == "write Plan")
    #expect(try context.content(of: plan.id) == "2")
    #expect(try context.document(withID: plan.id)?.name.text == "Plan")
    // A new change forgets what could be redone.
    try context.appendContent("3", to: plan.id)
    #expect(!context.canRedo)
    #expect(throws: ContextError.self) { try context.redo() }
  }

  @Test func nothingToUndoAndNothingToRedoAreReported() throws {
    let (context, _, _) = try makeMemoryContext()
    let undoError = #expect(throws: ContextError.self) { try context.undo() }
    guard case .nothingToUndo? = undoError else {
      Issue.record("expected nothingToUndo, got \(String(describing: undoError))")
      return
    }
    #expect(undoError?.description == "nothing to undo")
    let redoError = #expect(throws: ContextError.self) { try context.redo() }
    guard case .nothingToRedo? = redoError else {
      Issue.record("expected nothingToRedo, got \(String(describing: redoError))")
      return
    }
    #expect(redoError?.description == "nothing to redo")
    #expect(context.undoActionName == nil && context.redoActionName == nil)
  }

  @Test func failedMutationsAreNotUndoSteps() throws {
    let (context, _, _) = try makeMemoryContext()
    try context.createCategory(named: "Work")
    #expect(throws: ContextError.self) { try context.createCategory(named: "work") }
    #expect(try context.undo() == "mkdir Work")
    #expect(!context.canUndo)
  }

  // MARK: - Groups

  struct Failure: Error, Equatable {}

  @Test func aGroupIsUndoneAsOneStep() throws {
    let (context, _, _) = try makeMemoryContext()
    try context.performChanges("setup") {
      let work = try context.createCategory(named: "Work")
      try context.createDocument(named: "a", in: work.id)
      try context.createDocument(named: "b", in: work.id)
    }
    #expect(context.documentCount == 2)
    #expect(try context.undo() == "setup")
    #expect(context.categories().isEmpty && context.documentCount == 0)
    #expect(!context.canUndo)
  }

  @Test func aFailingGroupTakesBackEverythingItDid() throws {
    let fixture = try Fixture()
    let context = fixture.context
    try context.setContent("before the group", of: fixture.documents[3].id)
    let before = try snapshot(of: context)
    let changesBefore = try context.changes().count
    #expect(throws: Failure()) {
      try context.performChanges("batch") { () throws -> Void in
        let notes = try context.createCategory(named: "Notes")
        try context.createDocument(named: "n", in: notes.id, content: "n")
        try context.setContent("x", of: fixture.documents[0].id)
        try context.renameCategory(fixture.home.id, to: "House")
        try context.moveDocument(fixture.documents[1].id, to: notes.id)
        try context.deleteCategory(fixture.work.id)
        throw Failure()
      }
    }
    #expect(try snapshot(of: context) == before)
    #expect(try context.changes().count == changesBefore)
    #expect(context.undoActionName == "write Keep")
    #expect(context.category(named: "Notes") == nil)
  }

  @Test func aFailingNestedGroupTakesBackWhatItDid() throws {
    let (context, _, _) = try makeMemoryContext()
    try context.performChanges("outer") {
      try context.createCategory(named: "Outer")
      do {
        try context.performChanges("inner") { () throws -> Void in
          try context.createCategory(named: "Inner")
          throw Failure()
        }
      } catch {}
    }
    #expect(context.categories().map(\.name.text) == ["Outer"])
    try context.undo()
    #expect(context.categories().isEmpty)
  }

  @Test func aGroupFailingOnAValidationErrorTakesBackItsEarlierSteps() throws {
    let (context, _, _) = try makeMemoryContext()
    #expect(throws: ContextError.self) {
      try context.performChanges("two") {
        try context.createCategory(named: "Work")
        try context.createCategory(named: "WORK")
      }
    }
    #expect(context.categories().isEmpty)
    #expect(!context.canUndo)
    #expect(try !context.hasChanges)
  }

  // MARK: - Rollback

  @Test func rollbackDiscardsEveryKindOfChangeAndTheUndoHistory() throws {
    let fixture = try Fixture()
    let context = fixture.context
    let before = try snapshot(of: context)
    let notes = try context.createCategory(named: "Notes")
    try context.createDocument(named: "n", in: notes.id, content: "n")
    try context.setContent("changed", of: fixture.documents[0].id)
    try context.renameDocument(fixture.documents[1].id, to: "Renamed")
    try context.moveDocument(fixture.documents[2].id, to: fixture.home.id)
    try context.renameCategory(fixture.work.id, to: "Home2")
    try context.deleteCategory(fixture.home.id)
    try context.undo()
    #expect(context.canUndo && context.canRedo)
    context.rollback()
    #expect(try snapshot(of: context) == before)
    #expect(try !context.hasChanges)
    #expect(!context.canUndo && !context.canRedo)
    #expect(context.category(named: "Notes") == nil)
    #expect(context.category(named: "work")?.id == fixture.work.id)
    #expect(context.category(named: "Home2") == nil)
  }

  @Test func rollbackUndoesASwapOfNames() throws {
    let fixture = try Fixture()
    let context = fixture.context
    try context.renameCategory(fixture.work.id, to: "tmp")
    try context.renameCategory(fixture.home.id, to: "Work")
    try context.renameCategory(fixture.work.id, to: "Home")
    context.rollback()
    #expect(context.category(named: "work")?.id == fixture.work.id)
    #expect(context.category(named: "home")?.id == fixture.home.id)
    #expect(context.category(named: "tmp") == nil)
    // The name indexes are right: both names are taken, "tmp" is free.
    #expect(throws: ContextError.self) { try context.createCategory(named: "Work") }
    #expect(throws: ContextError.self) { try context.createCategory(named: "Home") }
    #expect(throws: Never.self) { try context.createCategory(named: "tmp") }
  }

  @Test func rollbackGoesBackToTheLastSaveNotTheLoad() throws {
    let fixture = try Fixture()
    let context = fixture.context
    try context.setContent("saved", of: fixture.documents[0].id)
    try context.save()
    let saved = try snapshot(of: context)
    try context.setContent("unsaved", of: fixture.documents[0].id)
    try context.deleteCategory(fixture.work.id)
    context.rollback()
    #expect(try snapshot(of: context) == saved)
    #expect(try !context.hasChanges)
  }
}
