import DocsTestSupport
import Testing

@testable import DocsKit

/// Random edits on two sides of a random store, merged: no saved change is lost, merging is
/// deterministic, and merging a store with itself changes nothing but the generation.
@Suite struct StoreMergePropertyTests {
  static let date = MergeDate(year: 2026, month: 5, day: 1)

  /// Random valid edits of a store, names from a small pool so that they clash often.
  struct Editor {
    static let names = ["Plan", "plan", "Notes", "A", "b", "X y", "Zed", "Ideas"]
    static let contents = ["", "same", "x\n", "shared text"]
    var generator: SeededGenerator
    var nextID: UInt64

    mutating func name() -> Name {
      // The pool's names are all valid.
      (try? Name(Editor.names.randomElement(using: &generator) ?? "A")) ?? Name(unchecked: "A")
    }

    mutating func content() -> String {
      if Bool.random(using: &generator) {
        return Editor.contents.randomElement(using: &generator) ?? ""
      }
      nextID += 1
      return "text \(nextID)"
    }

    mutating func id() -> ObjectID {
      nextID += 1
      return SequentialIDs.id(nextID)
    }

    mutating func edit(_ store: inout StoreSnapshot, steps: Int) {
      for _ in 0..<steps { step(&store) }
    }

    mutating func step(_ store: inout StoreSnapshot) {
      let categoryCount = store.categories.count
      let pick = Int.random(in: 0..<8, using: &generator)
      switch pick {
      case 0:
        let name = name()
        guard !store.categories.contains(where: { $0.name.key == name.key }) else { return }
        store.categories.append(SnapshotCategory(id: id(), name: name, documents: []))
      case 1 where categoryCount > 0:
        let index = Int.random(in: 0..<categoryCount, using: &generator)
        let name = name()
        guard !store.categories.contains(where: { $0.name.key == name.key }) else { return }
        store.categories[index].name = name
      case 2 where categoryCount > 0 && Int.random(in: 0..<4, using: &generator) == 0:
        store.categories.remove(at: Int.random(in: 0..<categoryCount, using: &generator))
      case 3 where categoryCount > 0:
        let index = Int.random(in: 0..<categoryCount, using: &generator)
        let name = name()
        guard !store.categories[index].documents.contains(where: { $0.name.key == name.key })
        else { return }
        let text = content()
        store.categories[index].documents.append(
          SnapshotDocument(
            id: id(), name: name, size: text.utf8.count,
            modified: TestClock.reading(Int(nextID)), content: text))
      case 4, 5, 6, 7:
        let places = store.categories.indices.flatMap { c in
          store.categories[c].documents.indices.map { (c, $0) }
        }
        guard let (c, d) = places.randomElement(using: &generator) else { return }
        switch pick {
        case 4:
          let text = content()
          store.categories[c].documents[d].content = text
          store.categories[c].documents[d].size = text.utf8.count
        case 5:
          let name = name()
          guard !store.categories[c].documents.contains(where: { $0.name.key == name.key })
          else { return }
          store.categories[c].documents[d].name = name
        case 6:
          let target = Int.random(in: 0..<categoryCount, using: &generator)
          let document = store.categories[c].documents[d]
          guard target != c,
            !store.categories[target].documents.contains(where: {
              $0.name.key == document.name.key
            })
          else { return }
          store.categories[c].documents.remove(at: d)
          store.categories[target].documents.append(document)
        default:
          store.categories[c].documents.remove(at: d)
        }
      default:
        return
      }
    }
  }

  struct Placed: Equatable {
    var category: ObjectID
    var name: String
    var content: String
  }

  static func documents(_ store: StoreSnapshot) -> [ObjectID: Placed] {
    var result: [ObjectID: Placed] = [:]
    for category in store.categories {
      for document in category.documents {
        result[document.id] = Placed(
          category: category.id, name: document.name.text, content: document.content)
      }
    }
    return result
  }

  static func categoryNames(_ store: StoreSnapshot) -> [ObjectID: String] {
    Dictionary(uniqueKeysWithValues: store.categories.map { ($0.id, $0.name.text) })
  }

  /// The line merge of a content both sides changed, differently, when their edits
  /// combine; `nil` otherwise.
  static func lineMerged(base: Placed?, here: Placed, there: Placed?, hereIsCurrent: Bool)
    -> String?
  {
    guard let base, let there, here.content != base.content, there.content != base.content,
      here.content != there.content
    else { return nil }
    let (mine, theirs) =
      hereIsCurrent ? (here.content, there.content) : (there.content, here.content)
    guard case .merged(let text) = LineMerge.merge(base: base.content, mine: mine, theirs: theirs)
    else { return nil }
    return text
  }

  func merge(_ base: StoreSnapshot, _ current: StoreSnapshot, _ other: StoreSnapshot)
    -> StoreMerge
  {
    StoreMerge(base: base, current: current, other: other, date: Self.date)
  }

  @Test(arguments: 0..<300)
  func noSideLosesASavedChangeAndTheMergeIsAValidDeterministicStore(seed: UInt64) throws {
    var editor = Editor(generator: SeededGenerator(seed: seed), nextID: 0)
    var base = StoreSnapshot.empty
    editor.edit(&base, steps: 12)
    base.generation = 3
    var current = base
    var other = base
    editor.edit(&current, steps: Int.random(in: 0...6, using: &editor.generator))
    editor.edit(&other, steps: Int.random(in: 0...6, using: &editor.generator))
    current.generation = 5
    other.generation = 4

    let result = merge(base, current, other)
    let merged = result.merged
    let bytes = merged.encoded()
    let reread = try StoreSnapshot(bytes: bytes, name: "merged (seed \(seed))")
    #expect(reread == merged, "seed \(seed)")
    #expect(
      merge(base, current, other).merged.encoded() == bytes, "seed \(seed): not deterministic")
    #expect(merged.generation == 6)

    let before = Self.documents(base)
    let after = Self.documents(merged)
    let contents = Set(after.values.map(\.content))
    for (label, side, opposite) in [("CURRENT", current, other), ("OTHER", other, current)] {
      let here = Self.documents(side)
      let there = Self.documents(opposite)
      for (id, document) in here where before[id] != document {
        let original = before[id]
        if let lineMerged = Self.lineMerged(
          base: original, here: document, there: there[id], hereIsCurrent: label == "CURRENT")
        {
          // Both sides changed the content and their edits combine: the merge's content is
          // both, merged by lines.
          #expect(
            after[id]?.content == lineMerged,
            "seed \(seed): \(label)'s \(document.name) is not the line merge of both")
        } else if original?.content != document.content {
          // Created, or its content changed on this side: the content survives, as the
          // document itself or as a sibling.
          #expect(
            contents.contains(document.content),
            "seed \(seed): \(label)'s \(document.name) (\(document.content)) was lost")
        }
        if let original, let theirs = there[id] {
          // A property only this side changed is the merge's (the name perhaps made unique).
          if original.name != document.name && theirs.name == original.name {
            let name = after[id]?.name ?? ""
            #expect(
              name == document.name || name.hasPrefix(document.name + " (conflict "),
              "seed \(seed): \(label)'s rename to \(document.name) became \(name)")
          }
          if original.category != document.category && theirs.category == original.category {
            // Into that category, or the one of its name it became one with (both created).
            let target = after[id]?.category
            let sameName =
              target.flatMap { Self.categoryNames(merged)[$0] }.map(NameKey.init)
              == Self.categoryNames(side)[document.category].map(NameKey.init)
            #expect(
              target == document.category || sameName,
              "seed \(seed): \(label)'s move of \(document.name)")
          }
        }
        if before[id] != nil, there[id] == before[id] {
          // Only this side touched it: the merge has this side's content under its id.
          #expect(
            after[id]?.content == document.content,
            "seed \(seed): \(label)'s edit of \(document.name)")
        }
      }
      for (id, document) in before where here[id] == nil && there[id] == document {
        #expect(
          after[id] == nil, "seed \(seed): \(label)'s deletion of \(document.name) was undone")
      }
    }
    for (id, document) in before
    where Self.documents(current)[id] == document && Self.documents(other)[id] == document {
      #expect(after[id] == document, "seed \(seed): untouched \(document.name) changed")
    }
  }

  @Test(arguments: 0..<100)
  func mergingAStoreWithItselfChangesOnlyTheGeneration(seed: UInt64) {
    var editor = Editor(generator: SeededGenerator(seed: seed), nextID: 0)
    var store = StoreSnapshot.empty
    editor.edit(&store, steps: 20)
    store.generation = 8
    let result = merge(store, store, store)
    #expect(result.merged == store.at(generation: 9), "seed \(seed)")
    #expect(result.conflicts.isEmpty)
  }

  @Test(arguments: 0..<100)
  func aSideThatChangedNothingTakesTheOthersStore(seed: UInt64) {
    var editor = Editor(generator: SeededGenerator(seed: seed), nextID: 0)
    var base = StoreSnapshot.empty
    editor.edit(&base, steps: 12)
    var changed = base
    editor.edit(&changed, steps: 8)
    changed.generation = 2
    let kept = merge(base, changed, base)
    #expect(kept.merged == changed.at(generation: 3), "seed \(seed)")
    #expect(kept.conflicts.isEmpty)
    let taken = merge(base, base, changed)
    #expect(Self.documents(taken.merged) == Self.documents(changed), "seed \(seed)")
    #expect(Self.categoryNames(taken.merged) == Self.categoryNames(changed), "seed \(seed)")
    #expect(taken.conflicts.isEmpty)
  }
}
