import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// Many rounds of random edits on two machines, each round synced on both sides through the
/// real binary; after every round no saved change is lost and both stores are equal.
/// `DOCSH_SYNC_SEED` replays a seed, `DOCSH_SYNC_ROUNDS` changes the number of rounds.
@Suite struct SyncRandomTests {
  /// A store as the test compares it: categories and documents by id.
  struct Snapshot: Equatable {
    struct Entry: Equatable {
      var categoryID: ObjectID
      var name: String
      var content: String
    }
    var categories: [ObjectID: String] = [:]
    var documents: [ObjectID: Entry] = [:]

    init(_ machine: SyncMachine) throws {
      let context = try Context(store: JSONStore(path: machine.storePath))
      for category in context.categories() {
        categories[category.id] = category.name.text
        for document in try context.documents(in: category.id) {
          documents[document.id] = Entry(
            categoryID: category.id, name: document.name.text,
            content: try context.content(of: document.id))
        }
      }
    }
  }

  /// One machine's view of the store while it edits: categories by name, each with its
  /// documents by name (their id when they were there at the start of the round).
  struct View {
    struct Document {
      var id: ObjectID?
      var content: String
      /// Whether its content, name or category changed in the round.
      var changed = false
      /// Whether its content was written in the round.
      var written = false
    }
    var categories: [String: [String: Document]] = [:]

    init(_ snapshot: Snapshot) {
      for name in snapshot.categories.values { categories[name] = [:] }
      for (id, entry) in snapshot.documents {
        guard let category = snapshot.categories[entry.categoryID] else { continue }
        categories[category, default: [:]][entry.name] = Document(id: id, content: entry.content)
      }
    }
  }

  /// What one machine did in a round.
  struct Edits {
    var script: [String] = []
    /// Documents of the round's start it deleted (alone or with their category).
    var deleted: Set<ObjectID> = []
    /// Documents of the round's start it changed (content, name or category), with their
    /// content at the end.
    var changed: [ObjectID: String] = [:]
    /// Contents it wrote into documents, new ones included, as they stand at the end.
    var written: [String] = []
  }

  static let documentNames = (1...9).map { "n\($0)" } + ["a note", "Plan"]
  static let categoryNames = ["Work", "Home", "Later", "Ideas", "Old"]

  /// A random script of `count` edits for `machine` from `start`, valid in its own view.
  static func makeEdits(
    _ count: Int, from start: Snapshot, label: String, using random: inout SeededGenerator
  ) -> Edits {
    var view = View(start)
    var edits = Edits()
    func quoted(_ text: String) -> String { "'" + text + "'" }
    func freeName(in category: String) -> String? {
      documentNames.filter { view.categories[category]?[$0] == nil }.randomElement(using: &random)
    }
    for step in 0..<count {
      let content = "\(label)-\(step)"
      let categories = view.categories.keys.sorted()
      guard let category = categories.randomElement(using: &random) else { break }
      let names = (view.categories[category] ?? [:]).keys.sorted()
      let roll = Int.random(in: 0..<100, using: &random)
      switch roll {
      case 0..<30 where !names.isEmpty:
        guard let name = names.randomElement(using: &random) else { continue }
        edits.script.append("write \(quoted(category + "/" + name)) \(quoted(content))")
        view.categories[category]?[name]?.content = content
        view.categories[category]?[name]?.changed = true
        view.categories[category]?[name]?.written = true
      case 0..<55:
        guard let name = freeName(in: category) else { continue }
        edits.script.append("new \(quoted(category + "/" + name)) \(quoted(content))")
        view.categories[category]?[name] = View.Document(id: nil, content: content)
      case 55..<65 where !names.isEmpty:
        guard let name = names.randomElement(using: &random), let newName = freeName(in: category),
          let document = view.categories[category]?.removeValue(forKey: name)
        else { continue }
        edits.script.append(
          "mv \(quoted(category + "/" + name)) \(quoted(category + "/" + newName))")
        view.categories[category]?[newName] = View.Document(
          id: document.id, content: document.content, changed: true, written: document.written)
      case 65..<75 where !names.isEmpty && categories.count > 1:
        guard let name = names.randomElement(using: &random),
          let target = categories.filter({ $0 != category }).randomElement(using: &random),
          view.categories[target]?[name] == nil,
          let document = view.categories[category]?.removeValue(forKey: name)
        else { continue }
        edits.script.append("mv \(quoted(category + "/" + name)) \(quoted(target + "/"))")
        view.categories[target]?[name] = View.Document(
          id: document.id, content: document.content, changed: true, written: document.written)
      case 75..<84 where !names.isEmpty:
        guard let name = names.randomElement(using: &random),
          let document = view.categories[category]?.removeValue(forKey: name)
        else { continue }
        edits.script.append("rm \(quoted(category + "/" + name))")
        if let id = document.id { edits.deleted.insert(id) }
      case 84..<90:
        guard
          let name = categoryNames.filter({ view.categories[$0] == nil }).randomElement(
            using: &random)
        else { continue }
        edits.script.append("mkdir \(quoted(name))")
        view.categories[name] = [:]
      case 90..<95:
        guard
          let name = categoryNames.filter({ view.categories[$0] == nil }).randomElement(
            using: &random),
          let documents = view.categories.removeValue(forKey: category)
        else { continue }
        edits.script.append("mv \(quoted(category)) \(quoted(name))")
        view.categories[name] = documents
      default:
        guard categories.count > 2, let documents = view.categories.removeValue(forKey: category)
        else { continue }
        edits.script.append("rmdir -f \(quoted(category))")
        edits.deleted.formUnion(documents.values.compactMap(\.id))
      }
    }
    for documents in view.categories.values {
      for document in documents.values {
        if let id = document.id, document.changed { edits.changed[id] = document.content }
        if document.id == nil || document.written { edits.written.append(document.content) }
      }
    }
    return edits
  }

  @Test func randomEditsAndSyncsOnBothSidesLoseNothingAndConverge() throws {
    let seed = TwoMachines.setting("DOCSH_SYNC_SEED", else: UInt64(0x5EED_5C12))
    let rounds = TwoMachines.setting("DOCSH_SYNC_ROUNDS", else: 8)
    var random = SeededGenerator(seed: seed)
    let machines = try TwoMachines("syncrandom")
    let (remote, laptop, desktop) = (machines.remote, machines.laptop, machines.desktop)
    try laptop.succeed("mkdir Work Home; new Work/Plan start; new Home/n1 list; sync '\(remote)'")
    try desktop.sync(remote)

    for round in 1...rounds {
      let place = "seed \(seed), round \(round)"
      let start = try Snapshot(laptop)
      let order = Bool.random(using: &random) ? [laptop, desktop] : [desktop, laptop]
      var done: [Edits] = []
      // Each side edits and syncs (the script saves first); the first syncs once more to
      // take in what the second merged.
      for machine in order {
        let edits = Self.makeEdits(
          Int.random(in: 0...5, using: &random), from: start, label: "r\(round)-\(machine.name)",
          using: &random)
        done.append(edits)
        var script = edits.script
        if script.count > 1, Bool.random(using: &random) {
          script.insert("save", at: Int.random(in: 1..<script.count, using: &random))
        }
        let result = try machine.run((script + ["sync"]).joined(separator: "\n"))
        guard result.status == 0 else {
          Issue.record("\(place): \(machine.name) exited \(result.status): \(result.errors)")
          return
        }
      }
      try order[0].sync()

      let final = try Snapshot(laptop)
      #expect(try Snapshot(desktop) == final, "\(place): the two stores differ")
      let contents = final.documents.values.map(\.content)
      for (edits, other) in [(done[0], done[1]), (done[1], done[0])] {
        for content in edits.written {
          #expect(contents.contains(content), "\(place): \"\(content)\" was lost")
        }
        for id in edits.deleted where other.changed[id] == nil {
          #expect(final.documents[id] == nil, "\(place): a deleted document came back")
        }
        // A change made on one side only stands, even against the other side's deletion.
        for (id, content) in edits.changed where other.changed[id] == nil {
          #expect(final.documents[id]?.content == content, "\(place): a change was lost")
        }
      }
      // What neither side touched is as it was.
      for (id, entry) in start.documents
      where done.allSatisfy({ !$0.deleted.contains(id) && $0.changed[id] == nil }) {
        #expect(final.documents[id] == entry, "\(place): an untouched document changed")
      }
      #expect(try laptop.headHoldsTheStore(), "\(place)")
      #expect(try desktop.headHoldsTheStore(), "\(place)")
    }
    // Settled: nothing more moves.
    #expect(try laptop.sync() == "Synced: 0 changes in, 0 out.\n")
    #expect(try desktop.sync() == "Synced: 0 changes in, 0 out.\n")
  }
}
