import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Random edits, undo, redo, rollback, saves and reopenings checked against a model kept in
/// plain Swift dictionaries. Saves after edits take the store's raw-copy path: unchanged
/// documents are copied from the old file in runs, documents renamed or moved without their
/// content ever being read are re-encoded with their content copied, deleted documents cut
/// runs. Every save is checked three ways: the same context, a fresh context, and a reference
/// reader built on Foundation.
@Suite struct RawCopyModelTests {
  struct ModelDocument: Equatable {
    var name: String
    var category: ObjectID
    var content: String
    var modified: Timestamp
  }

  struct Model: Equatable {
    var categories: [ObjectID: String] = [:]
    var documents: [ObjectID: ModelDocument] = [:]

    /// The same objects, names, memberships and contents, by the context's rule for "no
    /// change" (Swift string equality; modification dates are not a tracked property).
    func isUnchanged(since other: Model) -> Bool {
      guard Set(categories.keys) == Set(other.categories.keys),
        Set(documents.keys) == Set(other.documents.keys)
      else { return false }
      for (id, name) in categories where other.categories[id] != name { return false }
      for (id, document) in documents {
        guard let old = other.documents[id] else { return false }
        if old.name != document.name || old.category != document.category
          || old.content != document.content
        {
          return false
        }
      }
      return true
    }

    var snapshot: GraphSnapshot {
      GraphSnapshot(
        categories: categories.keys.sorted().map { id in
          GraphSnapshot.Cat(
            id: id, name: categories[id] ?? "",
            documents: documents.filter { $0.value.category == id }.sorted { $0.key < $1.key }.map {
              docID, document in
              return GraphSnapshot.Doc(
                id: docID, name: document.name, categoryID: id, size: document.content.utf8.count,
                modified: document.modified, content: Array(document.content.utf8))
            })
        })
    }

    func categoryClash(_ name: String, except id: ObjectID?) -> Bool {
      categories.contains { $0.key != id && $0.value.lowercased() == name.lowercased() }
    }

    func documentClash(_ name: String, in category: ObjectID, except id: ObjectID?) -> Bool {
      documents.contains {
        $0.key != id && $0.value.category == category
          && $0.value.name.lowercased() == name.lowercased()
      }
    }
  }

  static let names = [
    "a", "A", "b", "Café", "Cafe\u{301}", "notes", "Notes", "x y", "日本", "👍🏽", "c", "d",
  ]

  @Test(arguments: 1...10 as ClosedRange<UInt64>)
  func randomEditsAndSavesMatchTheModel(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let harness = try Harness("rawcopy\(seed)")
    var context = try harness.openContext()
    var memory = Model()
    var disk = Model()
    var undoStack: [Model] = []
    var redoStack: [Model] = []
    var ticks = 0
    var generation = 0
    var log: [String] = []

    func content() -> String {
      Int.random(in: 0..<8, using: &random) == 0
        ? String(repeating: AwkwardText.random(using: &random, maxPieces: 4), count: 500)
        : AwkwardText.random(using: &random)
    }
    func pick<T>(_ values: some Collection<T>) -> T? { values.randomElement(using: &random) }
    func tick() -> Timestamp {
      ticks += 1
      return TestClock.reading(ticks)
    }
    /// Runs a context call the model says succeeds or fails, and keeps the undo model.
    func apply(
      _ label: String, succeeds: Bool, changes: Bool, _ body: () throws -> Void,
      model update: () -> Void
    ) throws {
      log.append(label)
      if succeeds {
        try body()
        if changes {
          undoStack.append(memory)
          redoStack.removeAll()
          update()
        }
      } else {
        #expect(throws: ContextError.self, "\(label) should be refused") { try body() }
      }
    }

    func checkSaved(_ moment: String) throws {
      let expected = disk.snapshot
      do {
        let fresh = try harness.openContext()
        #expect(fresh.generation == generation, "\(moment)")
        let loaded = try snapshot(of: fresh)
        #expect(
          loaded == expected, "\(moment): fresh context differs from the model\n\(log.suffix(12))"
        )
      }
      // Now and then the save log is folded (the fresh context gone, the session alone):
      // then the file alone holds every save, as Foundation's own JSON reader sees it, and
      // the session goes on saving into a new log.
      guard Bool.random(using: &random) else { return }
      log.append("fold")
      try context.foldSaveLog()
      let reference = try ReferenceReader.snapshot(at: harness.storePath, using: .decoder)
      #expect(reference == expected, "\(moment): Foundation reads the folded file differently")
    }

    // A first store with several categories, saved and reopened so every content is a fault.
    for c in 0..<4 {
      let category = try context.createCategory(named: "cat \(c)")
      memory.categories[category.id] = "cat \(c)"
      for d in 0..<Int.random(in: 2...7, using: &random) {
        let text = content()
        let document = try context.createDocument(named: "doc \(d)", in: category.id, content: text)
        memory.documents[document.id] = ModelDocument(
          name: "doc \(d)", category: category.id, content: text, modified: tick())
      }
    }
    try context.save()
    generation = 1
    disk = memory
    context = try harness.openContext()
    undoStack = []
    redoStack = []
    try checkSaved("initial")

    for step in 0..<250 {
      let roll = Int.random(in: 0..<100, using: &random)
      let name = pick(RawCopyModelTests.names) ?? "a"
      switch roll {
      case 0..<6:  // create category
        let clash = memory.categoryClash(name, except: nil)
        var made: Category?
        try apply(
          "mkdir \(name)", succeeds: !clash, changes: true,
          { made = try context.createCategory(named: name) }
        ) {
          if let made { memory.categories[made.id] = name }
        }
      case 6..<12:  // rename category
        guard let id = pick(memory.categories.keys) else { continue }
        let clash = memory.categoryClash(name, except: id)
        let same = memory.categories[id] == name
        try apply(
          "rename category \(id.low & 0xff) \(name)", succeeds: !clash, changes: !same,
          {
            _ = try context.renameCategory(id, to: name)
          }
        ) { memory.categories[id] = name }
      case 12..<15:  // delete category
        guard let id = pick(memory.categories.keys) else { continue }
        try apply(
          "rmdir \(id.low & 0xff)", succeeds: true, changes: true,
          {
            let count = try context.deleteCategory(id)
            #expect(count == memory.documents.values.filter { $0.category == id }.count)
          }
        ) {
          memory.categories[id] = nil
          memory.documents = memory.documents.filter { $0.value.category != id }
        }
      case 15..<27:  // create document
        guard let category = pick(memory.categories.keys) else { continue }
        let clash = memory.documentClash(name, in: category, except: nil)
        let text = content()
        var made: Document?
        try apply(
          "new \(name)", succeeds: !clash, changes: true,
          {
            made = try context.createDocument(named: name, in: category, content: text)
          }
        ) {
          if let made {
            memory.documents[made.id] = ModelDocument(
              name: name, category: category, content: text, modified: tick())
          }
        }
      case 27..<42:  // set content, sometimes the same
        guard let id = pick(memory.documents.keys), let document = memory.documents[id] else {
          continue
        }
        let text = Int.random(in: 0..<4, using: &random) == 0 ? document.content : content()
        let same = text.utf8.count == document.content.utf8.count && text == document.content
        try apply(
          "write \(id.low & 0xff)", succeeds: true, changes: !same,
          {
            _ = try context.setContent(text, of: id)
          }
        ) {
          memory.documents[id]?.content = text
          memory.documents[id]?.modified = tick()
        }
      case 42..<55:  // rename document
        guard let id = pick(memory.documents.keys), let document = memory.documents[id] else {
          continue
        }
        let clash = memory.documentClash(name, in: document.category, except: id)
        try apply(
          "rename \(id.low & 0xff) \(name)", succeeds: !clash, changes: document.name != name,
          {
            _ = try context.renameDocument(id, to: name)
          }
        ) {
          memory.documents[id]?.name = name
          memory.documents[id]?.modified = tick()
        }
      case 55..<67:  // move document, sometimes renaming
        guard let id = pick(memory.documents.keys), let document = memory.documents[id],
          let target = pick(memory.categories.keys)
        else { continue }
        let newName = Bool.random(using: &random) ? name : nil
        let finalName = newName ?? document.name
        let clash = memory.documentClash(finalName, in: target, except: id)
        let same = target == document.category && finalName == document.name
        try apply(
          "mv \(id.low & 0xff) \(finalName)", succeeds: !clash, changes: !same,
          {
            _ = try context.moveDocument(id, to: target, renamingTo: newName)
          }
        ) {
          memory.documents[id]?.category = target
          memory.documents[id]?.name = finalName
          memory.documents[id]?.modified = tick()
        }
      case 67..<75:  // delete document
        guard let id = pick(memory.documents.keys) else { continue }
        try apply(
          "rm \(id.low & 0xff)", succeeds: true, changes: true, { try context.deleteDocument(id) }
        ) {
          memory.documents[id] = nil
        }
      case 75..<80:  // undo
        log.append("undo")
        if let previous = undoStack.popLast() {
          try context.undo()
          redoStack.append(memory)
          memory = previous
        } else {
          #expect(throws: ContextError.self) { try context.undo() }
        }
      case 80..<83:  // redo
        log.append("redo")
        if let next = redoStack.popLast() {
          try context.redo()
          undoStack.append(memory)
          memory = next
        } else {
          #expect(throws: ContextError.self) { try context.redo() }
        }
      case 83..<85:  // rollback
        log.append("rollback")
        context.rollback()
        memory = disk
        undoStack = []
        redoStack = []
      case 85..<88:  // read a content: must not change anything
        guard let id = pick(memory.documents.keys) else { continue }
        #expect(try context.content(of: id) == memory.documents[id]?.content)
      case 88..<97:  // save
        log.append("save")
        let expectWrite = !memory.isUnchanged(since: disk)
        try context.save()
        if expectWrite {
          generation += 1
          disk = memory
        }
        #expect(context.generation == generation, "step \(step)")
        try checkSaved("save at step \(step)")
      default:  // reopen from the file: every content a fault again
        log.append("reopen")
        context = try harness.openContext()
        memory = disk
        undoStack = []
        redoStack = []
      }
      // After every step: the context is the model.
      #expect(harness.clock.readings == ticks, "step \(step): clock readings \(log.suffix(3))")
      #expect(
        try context.hasChanges == !memory.isUnchanged(since: disk), "step \(step) \(log.suffix(3))")
      let current = try snapshot(of: context)
      if current != memory.snapshot {
        Issue.record("step \(step): the context differs from the model after \(log.suffix(6))")
        return
      }
      ticks = harness.clock.readings  // keep one failure from cascading into every later step
    }
    try context.save()
    if !memory.isUnchanged(since: disk) {
      generation += 1
      disk = memory
    }
    try checkSaved("final")
  }
}
