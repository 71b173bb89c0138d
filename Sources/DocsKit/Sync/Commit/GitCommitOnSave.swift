/// Commits the store after every save of the user's, when its folder is a docsh
/// repository, with a one-line message saying what changed; so that history holds every
/// saved version even between syncs. It hears each save's delta while the store's lock is
/// still held, so the commits follow the saves in their order. A sync's incoming save is
/// left alone: the sync moves HEAD to the commit it merged, and what came from the remote
/// is never committed again as a change made here. A failing commit never fails the save:
/// it is a warning, and the next save or sync commits.
public final class GitCommitOnSave: SaveObserver {
  /// The repository the store is committed to.
  public let repository: StoreRepository

  /// Commits to `repository`, which should be set up for docsh
  /// (``StoreRepository/isSetUp()``).
  public init(repository: StoreRepository) {
    self.repository = repository
  }

  /// Every save is committed.
  public var followsUpSaves: Bool { true }

  public func storeDidSave(_ delta: StoreDelta, origin: SaveOrigin, lock: LockedStore) -> String? {
    guard origin == .user else { return nil }
    do {
      try repository.committer.commitStore(saved: delta, holding: lock)
      return nil
    } catch {
      return "saved, but not committed (\(error)); the next save or sync commits it"
    }
  }
}
