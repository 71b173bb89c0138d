import DocsKit

/// The git repository of the session's store, found when first needed and kept: a command
/// that needs no git (almost all of them) starts no git process, and a store in no
/// repository works exactly as it always did.
final class RepositoryAccess {
  /// The store's path as docsh was given it.
  let storePath: String
  /// How git is run: the user's own program, configuration and credentials.
  let runner: any GitRunner
  /// The fan-out limit a test gives the repository (``StoreRepository/fanOutLimit``); `nil`:
  /// docsh's own.
  let fanOutLimit: Int?
  /// Asks the passphrase of an encrypted remote.
  let passphrases: (any PassphraseProviding)?
  private var lookup = Lookup.notYet

  /// Whether the repository was looked for, and what was found.
  private enum Lookup {
    case notYet
    case found(StoreRepository?)
  }

  /// Access to the repository of the store at `storePath`, git run by `runner`.
  init(
    storePath: String, runner: any GitRunner, fanOutLimit: Int? = nil,
    passphrases: (any PassphraseProviding)? = nil
  ) {
    self.storePath = storePath
    self.runner = runner
    self.fanOutLimit = fanOutLimit
    self.passphrases = passphrases
  }

  /// The repository the store's folder is in, if any.
  /// - Throws: ``SyncError`` when git cannot be run in a folder that is in a repository.
  func repository() throws(SyncError) -> StoreRepository? {
    if case .found(let repository) = lookup { return repository }
    let repository = try StoreRepository.locate(storePath: storePath, runner: runner)
    if let fanOutLimit { repository?.fanOutLimit = fanOutLimit }
    repository?.passphrases = passphrases
    lookup = .found(repository)
    return repository
  }

  /// The repository, when it is set up for docsh (its saves commit and `sync` runs).
  /// - Throws: ``SyncError`` when git fails.
  func setUpRepository() throws(SyncError) -> StoreRepository? {
    guard let repository = try repository(), try repository.isSetUp() else { return nil }
    return repository
  }

  /// Makes the store's folder a docsh repository syncing with `remote` (`sync REMOTE`).
  /// - Throws: ``SyncError`` saying which git step failed.
  func setUp(remote: String) throws(SyncError) -> StoreRepository {
    let repository = try StoreRepository.setUp(
      storePath: storePath, remote: remote, runner: runner)
    if let fanOutLimit { repository.fanOutLimit = fanOutLimit }
    repository.passphrases = passphrases
    lookup = .found(repository)
    return repository
  }

  /// Makes the store's folder a docsh repository syncing with the encrypted remote `remote`
  /// (`sync --encrypt REMOTE`).
  /// - Throws: ``SyncError`` saying what failed; the store is then as it was.
  func setUpEncrypted(remote: String) throws(SyncError) -> StoreRepository {
    let repository = try StoreRepository.setUpEncrypted(
      storePath: storePath, remote: remote, runner: runner, passphrases: passphrases)
    if let fanOutLimit { repository.fanOutLimit = fanOutLimit }
    lookup = .found(repository)
    return repository
  }

  /// The repository, which history needs: the store's folder in a git repository.
  /// - Throws: ``SyncError/notARepository(folder:)`` when there is none.
  func requiredRepository() throws(SyncError) -> StoreRepository {
    guard let repository = try repository() else { throw .notARepository(folder: storeFolder) }
    return repository
  }

  /// The folder of the store file.
  var storeFolder: String { splitPath(storePath).folder }

  /// The store, unopened, for a sync that runs with no session on it (the store lost, which
  /// the sync restores): the sync reads and writes it through this one.
  func storeForSync() -> any DocumentStore {
    IndexedStore(path: storePath, cacheFolder: nil)
  }

  /// Why the store cannot be used as it is and how to get it back, when its file is missing
  /// or damaged in a docsh repository whose last commit holds it; `nil` otherwise.
  /// - Parameter loadError: why the store did not load, when it did not.
  /// When git cannot answer in a folder that is in a repository, the answer is that the
  /// store may be lost: it is never opened as empty (a save there, synced later, would
  /// travel as deletions).
  func lostStore(loadError: StoreError?) -> SyncError? {
    do throws(SyncError) {
      guard let repository = try setUpRepository() else { return nil }
      if let loadError { return try repository.recovery.damagedStoreError(for: loadError) }
      return try repository.recovery.missingStoreError()
    } catch {
      return .storeMaybeLost(path: storePath, reason: error.description)
    }
  }
}

/// Commits the store after every save when its repository is set up for docsh; a store in
/// no repository (the common case) costs a few `stat` calls and no git.
final class CommitOnSaveWhenSetUp: SaveObserver {
  let access: RepositoryAccess

  init(access: RepositoryAccess) {
    self.access = access
  }

  /// Whether the store's repository is set up for docsh: then the save is committed.
  var followsUpSaves: Bool {
    do {
      return try access.setUpRepository() != nil
    } catch {
      // Asking again in storeDidSave reports why; making a delta for it costs only time.
      return true
    }
  }

  func storeDidSave(_ delta: StoreDelta, origin: SaveOrigin, lock: LockedStore) -> String? {
    do {
      guard let repository = try access.setUpRepository() else { return nil }
      return GitCommitOnSave(repository: repository).storeDidSave(
        delta, origin: origin, lock: lock)
    } catch {
      return "saved, but not committed (\(error)); the next save or sync commits it"
    }
  }
}

extension Session {
  /// The store's git repository, which `log`, `diff` and `restore` read.
  /// - Throws: ``SyncError/notARepository(folder:)`` when the store is in none.
  func repositoryForHistory() throws(SyncError) -> StoreRepository {
    guard let access = collaborators.repository else { throw .notARepository(folder: ".") }
    return try access.requiredRepository()
  }
}
