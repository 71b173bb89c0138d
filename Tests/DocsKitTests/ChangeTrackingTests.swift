import Testing

@testable import DocsKit

@Suite struct ChangeTrackingTests {
  /// A saved store with categories Work {Plan "plan text", List "list text"} and Home {}.
  struct Saved {
    let harness: Harness
    let work: Category
    let home: Category
    let plan: Document
    let list: Document

    init(_ label: String = #function) throws {
      harness = try Harness(label)
      let context = try harness.openContext()
      work = try context.createCategory(named: "Work")
      home = try context.createCategory(named: "Home")
      plan = try context.createDocument(named: "Plan", in: work.id, content: "plan text")
      list = try context.createDocument(named: "List", in: work.id, content: "list text")
      try context.save()
    }

    /// A fresh context on the saved store: every content is a fault, every object has its
    /// place in the file.
    func reopen() throws -> Context { try harness.openContext() }
  }

  @Test func aFreshContextHasNoChanges() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    #expect(try !context.hasChanges)
    #expect(try context.changes().isEmpty)
    // Reading contents is not a change.
    _ = try context.content(of: saved.plan.id)
    _ = try context.searchContents(for: .text("text", ignoringCase: true))
    #expect(try !context.hasChanges)
  }

  @Test func reportsInsertedObjects() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    let notes = try context.createCategory(named: "Notes")
    let draft = try context.createDocument(named: "Draft", in: saved.home.id)
    #expect(try context.hasChanges)
    let changes = try context.changes()
    #expect(changes.insertedCategories == [notes])
    #expect(changes.insertedDocuments == [draft])
    #expect(changes.updatedCategories.isEmpty && changes.updatedDocuments.isEmpty)
    #expect(changes.deletedCategories.isEmpty && changes.deletedDocuments.isEmpty)
    #expect(changes.count == 2)
  }

  @Test(arguments: [
    ([DocumentProperty.name], "rename"),
    ([.content], "content"),
    ([.category], "move"),
    ([.name, .category], "move+rename"),
    ([.name, .content, .category], "all"),
  ])
  func reportsWhichPropertiesOfADocumentChanged(properties: [DocumentProperty], label: String)
    throws
  {
    let saved = try Saved()
    let context = try saved.reopen()
    let id = saved.plan.id
    if properties.contains(.content) { try context.setContent("new text", of: id) }
    if properties.contains(.category) {
      try context.moveDocument(
        id, to: saved.home.id, renamingTo: properties.contains(.name) ? "Renamed" : nil)
    } else if properties.contains(.name) {
      try context.renameDocument(id, to: "Renamed")
    }
    let changes = try context.changes()
    #expect(changes.updatedDocuments.count == 1)
    #expect(try changes.updatedDocuments.first?.object == context.document(withID: id))
    #expect(changes.updatedDocuments.first?.properties == Set(properties))
    #expect(changes.count == 1)
  }

  @Test func reportsRenamedCategoriesButNotTheirDocuments() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    let renamed = try context.renameCategory(saved.work.id, to: "Job")
    let changes = try context.changes()
    #expect(changes.updatedCategories.map(\.object) == [renamed])
    #expect(changes.updatedCategories.first?.properties == [.name])
    #expect(changes.updatedDocuments.isEmpty)
    #expect(changes.count == 1)
  }

  @Test func reportsDeletedObjectsAsTheyWereAtTheLastSave() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.renameDocument(saved.list.id, to: "Renamed first")
    try context.deleteCategory(saved.work.id)
    let changes = try context.changes()
    #expect(changes.deletedCategories == [saved.work])
    #expect(Set(changes.deletedDocuments) == [saved.plan, saved.list])
    #expect(changes.count == 3)
  }

  @Test func insertedThenDeletedLeavesNoTrace() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    let notes = try context.createCategory(named: "Notes")
    let draft = try context.createDocument(named: "Draft", in: notes.id, content: "x")
    try context.setContent("y", of: draft.id)
    try context.moveDocument(draft.id, to: saved.home.id)
    try context.deleteDocument(draft.id)
    try context.deleteCategory(notes.id)
    #expect(try !context.hasChanges)
    #expect(try context.changes().isEmpty)
  }

  @Test func insertedCategoryDeletedByCascadeLeavesNoTrace() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    let notes = try context.createCategory(named: "Notes")
    try context.createDocument(named: "Draft", in: notes.id)
    #expect(try context.deleteCategory(notes.id) == 1)
    #expect(try !context.hasChanges)
  }

  @Test func renameDocumentThenRenameBackIsNoChange() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.renameDocument(saved.plan.id, to: "Other")
    #expect(try context.hasChanges)
    try context.renameDocument(saved.plan.id, to: "Plan")
    #expect(try !context.hasChanges)
    #expect(try context.changes().isEmpty)
  }

  @Test func renameCategoryThenRenameBackIsNoChange() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.renameCategory(saved.work.id, to: "Job")
    #expect(try context.hasChanges)
    try context.renameCategory(saved.work.id, to: "Work")
    #expect(try context.changes().isEmpty)
    #expect(try !context.hasChanges)
  }

  @Test func renameCategoryBackMakesSaveWriteNothing() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    let before = try bytes(at: saved.harness.storePath)
    try context.renameCategory(saved.work.id, to: "Job")
    try context.renameCategory(saved.work.id, to: "Work")
    try context.save()
    #expect(context.generation == 1)
    #expect(try bytes(at: saved.harness.storePath) == before)
  }

  @Test func moveThenMoveBackAndContentThenContentBackAreNoChange() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.moveDocument(saved.plan.id, to: saved.home.id)
    try context.moveDocument(saved.plan.id, to: saved.work.id)
    try context.setContent("changed", of: saved.list.id)
    try context.setContent("list text", of: saved.list.id)
    #expect(try !context.hasChanges)
    #expect(try context.changes().isEmpty)
  }

  @Test func touchIsAChangeOfTheDateAloneThatASaveKeeps() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    let touched = try context.touchDocument(saved.plan.id)
    #expect(touched.modified > saved.plan.modified)
    #expect(touched.name.text == "Plan" && touched.size == saved.plan.size)
    #expect(try context.changes().updatedDocuments.map(\.properties) == [[.modified]])
    try context.save()
    let reopened = try saved.reopen()
    let plan = try #require(try reopened.document(named: "Plan", in: saved.work.id))
    #expect(plan.modified == touched.modified)
    #expect(try reopened.content(of: plan.id) == "plan text")
  }

  @Test func undoingATouchIsNoChange() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.touchDocument(saved.plan.id)
    #expect(try context.hasChanges)
    try context.undo()
    #expect(try !context.hasChanges)
    #expect(try context.document(named: "Plan", in: saved.work.id)?.modified == saved.plan.modified)
  }

  @Test func aTouchAmongOtherChangesIsReportedAsThoseChanges() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.touchDocument(saved.plan.id)
    try context.setContent("new", of: saved.plan.id)
    #expect(try context.changes().updatedDocuments.map(\.properties) == [[.content]])
  }

  @Test func renamingToAnotherCaseIsAChange() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.renameDocument(saved.plan.id, to: "PLAN")
    #expect(try context.changes().updatedDocuments.first?.properties == [.name])
  }

  @Test func saveClearsTheChanges() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.createCategory(named: "Notes")
    try context.setContent("new", of: saved.plan.id)
    try context.deleteDocument(saved.list.id)
    try context.renameCategory(saved.home.id, to: "House")
    #expect(try context.changes().count == 4)
    try context.save()
    #expect(try !context.hasChanges)
    #expect(try context.changes().isEmpty)
    // …and tracking starts again from the saved state.
    try context.setContent("newer", of: saved.plan.id)
    #expect(try context.changes().updatedDocuments.map(\.properties) == [[.content]])
  }

  @Test func undoingBackToTheSavedStateIsNoChange() throws {
    let saved = try Saved()
    let context = try saved.reopen()
    try context.setContent("x", of: saved.plan.id)
    try context.deleteCategory(saved.work.id)
    try context.createCategory(named: "Notes")
    try context.undo()
    try context.undo()
    try context.undo()
    #expect(try !context.hasChanges)
    #expect(try context.changes().isEmpty)
  }

  @Test func changesAreSortedByName() throws {
    let (context, _, _) = try makeMemoryContext()
    for name in ["b", "C", "a"] { try context.createCategory(named: name) }
    #expect(try context.changes().insertedCategories.map(\.name.text) == ["a", "b", "C"])
  }
}
