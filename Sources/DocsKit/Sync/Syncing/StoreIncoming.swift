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
      return "d:\(put.id):" + StoreIncoming.hash(document.name.text, document.content)
    }
    if let put = categories.first(where: { $0.name != nil }), let name = put.name {
      return "c:\(put.id):" + StoreIncoming.hash(name.text, "")
    }
    return nil
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
