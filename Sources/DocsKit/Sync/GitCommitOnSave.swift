/// Commits the store after every save, when its folder is a docsh repository, with a
/// one-line message saying what changed; so that history holds every saved version even
/// between syncs. A failing commit never fails the save: it is a warning, and the next
/// save or sync commits.
public final class GitCommitOnSave: SaveHook {
  /// The repository the store is committed to.
  public let repository: StoreRepository

  /// Commits to `repository`, which should be set up for docsh
  /// (``StoreRepository/isSetUp()``).
  public init(repository: StoreRepository) {
    self.repository = repository
  }

  public func contextDidSave(_ context: Context) -> String? {
    do {
      // What the save changed lets the commit cost what changed; when it cannot be read the
      // commit compares the whole store instead, which is slower, not wrong.
      try repository.commitStore(
        saved: try? context.changesOfLastSave(fanOutLimit: repository.fanOutLimit))
      return nil
    } catch {
      return "saved, but not committed (\(error)); the next save or sync commits it"
    }
  }
}
