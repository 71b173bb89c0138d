#if canImport(Glibc)
  import Glibc
#endif

// Making a store's folder a docsh repository: `git init` of the folder, its config saying
// that docsh keeps one file per document in it with no work tree, and the remote.
extension StoreRepository {
  /// Makes the store's folder a docsh repository syncing with `remote`: creates the folder
  /// and `git init`s it when it is not the top of a repository of its own (a store inside
  /// another work tree gets a repository of its own folder), sets it up
  /// (``configureLayout()``) and sets `remote` as `origin` (replacing another URL). The
  /// upstream branch follows in the first sync (``StoreSyncer``), once the remote's branches
  /// are known. Nothing in the repository's config names a program.
  /// - Parameter remote: any git remote: a path, `ssh://`, `https://`, `user@host:path`.
  /// - Returns: the repository, set up.
  /// - Throws: ``SyncError`` naming the git step that failed.
  public static func setUp(
    storePath: String, remote: String, runner: any GitRunner,
    fileSystem: any FileSystem = SystemFileSystem()
  ) throws(SyncError) -> StoreRepository {
    let absolute = absolutePath(storePath)
    let folder = splitPath(absolute).folder
    try makeFolders(folder, fileSystem: fileSystem)
    var found = try locate(storePath: absolute, runner: runner, fileSystem: fileSystem)
    if let existing = found, existing.topLevel != folder || !existing.prefix.isEmpty {
      found = nil  // the folder lies in another repository's work tree
    }
    if found == nil {
      try Git(runner: runner, folder: folder, fileSystem: fileSystem).createRepository()
      found = try locate(storePath: absolute, runner: runner, fileSystem: fileSystem)
    }
    guard let repository = found, repository.prefix.isEmpty else {
      throw .notARepository(folder: folder)
    }
    try repository.withRepositoryLock { () throws(SyncError) in
      try repository.configureLayout()
      try repository.setRemote(remote)
    }
    return repository
  }

  /// Sets the repository up for one file per document: `docsh.layout = files`, no work tree
  /// (`core.bare`, the index removed: git never writes into the store's folder, and `git
  /// status` there has no documents to show as deleted), and the old layout's merge driver
  /// and pull setting gone.
  /// - Throws: ``SyncError`` when git fails.
  func configureLayout() throws(SyncError) {
    try git.setLocalConfig("docsh.layout", to: "files")
    try git.setLocalConfig("core.bare", to: "true")
    try git.removeLocalConfigSection("merge.docsh")
    try git.files.dropIndex()
  }

  /// Sets `origin` to `url`.
  private func setRemote(_ url: String) throws(SyncError) {
    let current = try git.remoteURL("origin")
    if current == nil {
      try git.addRemote("origin", url: url)
    } else if current != url {
      try git.setRemoteURL("origin", to: url)
    }
  }

  /// Whether the repository has a remote `origin`.
  func hasOrigin() throws(SyncError) -> Bool {
    try git.remoteURL("origin") != nil
  }

  /// Creates `folder` and its missing parents (0700).
  static func makeFolders(_ folder: String, fileSystem: any FileSystem) throws(SyncError) {
    guard !isFolder(folder, fileSystem: fileSystem) else { return }
    do {
      try fileSystem.makeDirectories(folder, mode: 0o700)
    } catch {
      throw .store(.system(folder, operation: error.operation, errno: error.code))
    }
  }
}
