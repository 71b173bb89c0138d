#if canImport(Glibc)
  import Glibc
#endif

/// What a sync changes in the local store: the difference between this side's version of
/// the categories it read and the merged one, by id, applied with one save.
struct StoreIncoming {
  /// A category to create or rename (`name`), or to delete (`nil`).
  var categories: [(id: ObjectID, name: Name?)] = []
  /// A document to create or change, or to delete (`nil`), with its category.
  var documents: [(id: ObjectID, document: SnapshotDocument?, categoryID: ObjectID?)] = []

  /// A mark of this write, found in a store that holds it: `d:ID:HASH` for its first
  /// document put (its name and content hashed), `c:ID:HASH` for its first category put;
  /// `nil` when it only deletes.
  var witness: String? {
    if let put = documents.first(where: { $0.document != nil }), let document = put.document {
      return StoreIncoming.witness(of: put.id, document)
    }
    if let put = categories.first(where: { $0.name != nil }), let name = put.name {
      return StoreIncoming.witness(ofCategory: put.id, name)
    }
    return nil
  }

  /// The witness of a write that puts `document` (of id `id`).
  static func witness(of id: ObjectID, _ document: SnapshotDocument) -> String {
    "d:\(id):" + hash(document.name.text, document.content)
  }

  /// The witness of a write that puts the category `id` named `name`.
  static func witness(ofCategory id: ObjectID, _ name: Name) -> String {
    "c:\(id):" + hash(name.text, "")
  }

  /// Whether `store` holds the write `witness` marks.
  static func isWitnessed(_ witness: String, in store: ParsedStore) -> Bool {
    let parts = witness.split(separator: ":")
    guard parts.count == 3, let id = ObjectID(String(parts[1])) else { return false }
    if parts[0] == "c" {
      return store.graph.categories.contains {
        $0.id == id && hash($0.name.text, "") == parts[2]
      }
    }
    guard let document = store.graph.documents.first(where: { $0.id == id }),
      let content = try? store.decodedContent(of: document)  // undecodable: not this write's
    else { return false }
    return hash(document.name.text, content) == parts[2]
  }

  /// Whether `store` (a reader of the store), its save log included, holds the write
  /// `witness` marks; a store that does not load witnesses nothing.
  static func isWitnessed(_ witness: String, inStore store: any StoreReading) -> Bool {
    let parts = witness.split(separator: ":")
    guard parts.count == 3, let id = ObjectID(String(parts[1])) else { return false }
    guard let graph = try? store.load() else { return false }
    if parts[0] == "c" {
      return graph.categories.contains { $0.id == id && hash($0.name.text, "") == parts[2] }
    }
    guard let document = graph.documents.first(where: { $0.id == id }),
      let content = try? store.readContent(at: document.contentLocation)
    else { return false }
    return hash(document.name.text, content) == parts[2]
  }

  private static func hash(_ name: String, _ content: String) -> String {
    var hash = StableHash()
    hash.combine(Array(name.utf8))
    hash.combine([0])
    hash.combine(Array(content.utf8))
    return String(hash.value, radix: 16)
  }

  /// How many objects change.
  var count: Int { categories.count + documents.count }
  var isEmpty: Bool { count == 0 }

  /// The changes from `local` to `merged` (``SnapshotDifference``).
  init(from local: StoreSnapshot, to merged: StoreSnapshot) {
    let difference = SnapshotDifference(from: local, to: merged)
    categories = difference.categories.map { ($0.id, $0.after) }
    documents = difference.documents.map { ($0.id, $0.after?.document, $0.after?.category.id) }
  }

  /// Applies the changes to the store at `path` with one save (merging, as every save does,
  /// with what another session saved since), and returns the generation written.
  /// - Throws: ``SyncError/store(_:)`` when the store cannot be read or written.
  ///
  /// With `context` (the caller's, its changes saved), the changes go through it — no second
  /// load of the store, and the context holds the merged graph after; else through a
  /// context of its own on `store`, the store the sync was handed.
  func save(
    toStoreAt path: String, through given: (any IncomingWriter)?, store: any DocumentStore
  ) throws(SyncError) -> (generation: Int, isClean: Bool) {
    do throws(ContextError) {
      let context: any IncomingWriter
      if let given {
        context = given
      } else {
        do {
          context = try Context(store: store)
        } catch {
          throw ContextError.store(error)
        }
      }
      let loaded = context.generation
      let delta = try context.writeIncoming(self)
      let isClean = delta.map { $0.generationBefore == loaded } ?? true
      return (context.generation, isClean)
    } catch {
      switch error {
      case .store(let failure): throw .store(failure)
      default: throw .store(.invalidStore(path, reason: error.description))
      }
    }
  }
}

/// A whole store written from a commit's tree a category at a time (a machine's first
/// sync): each category goes to the new store file as it is read, so that no more than one
/// is held in memory, and the file replaces the store only at ``commit()`` — through the
/// syncing session's context, which loads the new file then, or without one through the
/// store file itself. Let go of uncommitted, it leaves the store as it was.
final class StoreIncomingStream {
  private let replacement: StoreReplacement
  private let context: Context?
  private let path: String
  /// Every id written: a tree that holds one twice (in two category folders) cannot be a
  /// store, whichever copy were taken the other would be lost.
  private var ids = Set<ObjectID>()
  private var documentWitness: String?
  private var categoryWitness: String?
  /// The mark of this write (``StoreIncoming/witness``): its first document, else its first
  /// category.
  var witness: String? { documentWitness ?? categoryWitness }
  /// How many objects (categories and documents) were written.
  private(set) var count = 0

  private init(replacement: StoreReplacement, context: Context?, path: String) {
    self.replacement = replacement
    self.context = context
    self.path = path
  }

  /// Begins writing the store at `path` anew, through `context` when given (whose store
  /// this is, its changes saved); `nil` when another session saved since the store was
  /// loaded (nothing begun: the sync starts again).
  /// - Throws: ``SyncError/store(_:)`` when the store cannot be read or locked.
  static func begin(
    storeAt path: String, through context: Context?, store: any DocumentStore
  ) throws(SyncError) -> StoreIncomingStream? {
    do throws(StoreError) {
      let replacement: StoreReplacement
      if let context {
        do {
          replacement = try context.beginReplacement()
        } catch {
          guard case .store(let failure) = error else {
            throw StoreError.invalidStore(path, reason: error.description)
          }
          throw failure
        }
      } else {
        _ = try store.load()
        replacement = try store.beginReplacement()
      }
      return StoreIncomingStream(replacement: replacement, context: context, path: path)
    } catch {
      switch error {
      case .modifiedElsewhere, .deletedElsewhere: return nil
      default: throw .store(error)
      }
    }
  }

  /// Writes `category` with its documents after those written before; the id of an object
  /// it holds that was written before, when one was (nothing is written then).
  /// - Throws: ``SyncError/store(_:)`` when the new file cannot be written.
  func append(_ category: SnapshotCategory) throws(SyncError) -> ObjectID? {
    if ids.contains(category.id) { return category.id }
    var seen = Set<ObjectID>()
    for document in category.documents {
      guard !ids.contains(document.id), seen.insert(document.id).inserted,
        document.id != category.id
      else { return document.id }
    }
    ids.insert(category.id)
    ids.formUnion(seen)
    if documentWitness == nil, let first = category.documents.first {
      documentWitness = StoreIncoming.witness(of: first.id, first)
    }
    if categoryWitness == nil {
      categoryWitness = StoreIncoming.witness(ofCategory: category.id, category.name)
    }
    count += 1 + category.documents.count
    do {
      try replacement.append(
        Category(id: category.id, name: category.name),
        documents: category.documents.map { document in
          (
            Document(
              id: document.id, name: document.name, categoryID: category.id,
              size: document.content.utf8.count, modified: document.modified,
              tags: document.tags),
            document.content
          )
        })
    } catch {
      throw .store(error)
    }
    return nil
  }

  /// Puts the new file in place of the store (the context, when there is one, loads it).
  /// - Returns: the generation of the new file.
  /// - Throws: ``SyncError/store(_:)``; the store is then as it was.
  func commit() throws(SyncError) -> Int {
    // Nothing more is appended: the ids go, and with the tree's reading over, the freed
    // pages go back before the graph is loaded anew.
    ids = []
    Allocator.returnFreedMemory()
    do throws(ContextError) {
      guard let context else {
        do {
          return try replacement.commit()
        } catch {
          throw ContextError.store(error)
        }
      }
      return try context.finishReplacement(replacement)
    } catch {
      switch error {
      case .store(let failure): throw .store(failure)
      default: throw .store(.invalidStore(path, reason: error.description))
      }
    }
  }

  /// Abandons the new file: the store stays as it was.
  func discard() { replacement.discard() }
}
