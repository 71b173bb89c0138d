/// What one save changes in the store, object by object (by id), before and after, and the
/// generation it produced.
///
/// Built once, inside the context's commit, from the difference its change tracking made
/// (``ChangeSet``: the state each touched object had at the last save and the state it has
/// now): the save log appends it, the index applies it, a git commit renders it and its
/// message describes it. It is not all a save leaves to ask about: a save written whole
/// writes the graph (``Context/graphToSave()``), the delta then only telling observers what
/// changed, and a sync that wrote what came in through the context asks it afterwards (its
/// generation) and reads the store file it saved.
public struct StoreDelta: Sendable {
  /// A category created (`before` is `nil`), renamed, or deleted (`after` is `nil`).
  public struct CategoryChange: Sendable, Equatable {
    /// The category.
    public var id: ObjectID
    /// Its name before the save; `nil` when the save creates it.
    public var before: Name?
    /// Its name after; `nil` when the save deletes it.
    public var after: Name?
  }

  /// Where a document was before the save.
  public struct Place: Sendable, Equatable {
    /// Its category.
    public var categoryID: ObjectID
    /// That category's name then.
    public var category: Name
    /// The document's name then.
    public var name: Name
  }

  /// A document created (`before` is `nil`), changed or moved, or deleted (`after` is `nil`).
  public struct DocumentChange: Sendable {
    /// The document.
    public var id: ObjectID
    /// Where it was before the save; `nil` when the save creates it.
    public var before: Place?
    /// What it is after; `nil` when the save deletes it.
    public var after: Document?
    /// Its category's name after the save.
    public var categoryName: Name?
    /// Its content after the save; `nil` when it is deleted.
    public var content: String?
    /// Whether its content is another than before (always, for a document created).
    public var contentChanged: Bool

    /// The document as the save left it, with its content; `nil` when it is deleted.
    public var saved: SavedDocument? {
      guard let after, let content else { return nil }
      return SavedDocument(
        id: id, name: after.name.text, categoryID: after.categoryID,
        categoryName: categoryName?.text ?? "?", content: content, size: after.size,
        modified: after.modified, tags: after.tags)
    }
  }

  /// How many documents a category the save touches held before it and after.
  public struct CategoryCount: Sendable, Equatable {
    /// Its name after the save.
    public var name: Name
    /// Its documents before the save.
    public var before: Int
    /// Its documents after.
    public var after: Int
  }

  /// The generation of the store the save starts from.
  public var generationBefore: Int
  /// The generation it produced (set by the store as it writes).
  public var generation: Int
  /// The categories that change, in the store's order (those deleted last).
  public var categories: [CategoryChange]
  /// The documents that change, in the store's order (those deleted last).
  public var documents: [DocumentChange]
  /// The counts of the categories that hold a changed document or held one, and of those
  /// created or renamed, by id (a category deleted has none).
  public var counts: [ObjectID: CategoryCount]

  /// Whether the save changes nothing.
  public var isEmpty: Bool { categories.isEmpty && documents.isEmpty }
}

/// Where a save comes from, as its observers hear it (GRDB's `TransactionObserver` sees
/// every transaction, whoever made it).
public enum SaveOrigin: Sendable, Equatable {
  /// The session's own changes: a command, a script, the shell's save.
  case user
  /// What a sync brought in from the remote, written through the session syncing: the sync
  /// records it in the repository itself (HEAD moves to the merge), so a commit observer
  /// must not commit it again as a change made here.
  case sync
}

/// What follows every save of a ``Context`` that wrote its store: given at `init`, told
/// each save's delta and origin while the store's save lock is still held, so that
/// observers hear the saves of every session in the order they were made (as GRDB's
/// `TransactionObserver` hears a commit). Every save takes the one path that tells them:
/// a sync's incoming save too, marked ``SaveOrigin/sync``. The one docsh uses,
/// ``GitCommitOnSave``, commits each save of the user's.
///
/// Rules: an observer is told after the store is written (the save stands whatever it
/// does), under the lock, which it is handed (``LockedStore``) for what it does under it;
/// it must not save through the context.
public protocol SaveObserver: AnyObject {
  /// Whether the observer will follow up the user's save about to be written, asked under
  /// the save lock before it is: when it will not, a save written whole need not make its
  /// delta. (A sync's save always makes one: the sync asks it.)
  var followsUpSaves: Bool { get }

  /// Follows up the save of `delta`, made by `origin`; `lock` is the store's save lock,
  /// still held.
  /// - Returns: a warning when the follow-up failed (the save itself stands), else `nil`.
  func storeDidSave(_ delta: StoreDelta, origin: SaveOrigin, lock: LockedStore) -> String?
}
