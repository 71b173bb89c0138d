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
  /// upstream branch follows in the first ``sync(_:observer:progress:)``, once the remote's
  /// branches are known. Nothing in the repository's config names a program.
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
      try Git(runner: runner, folder: folder).run("create a git repository", ["init", "--quiet"])
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
    try git.run("set up the repository", ["config", "--local", "docsh.layout", "files"])
    try git.run("set up the repository", ["config", "--local", "core.bare", "true"])
    try git.run(
      "set up the repository", ["config", "--local", "--remove-section", "merge.docsh"],
      accepting: [0, 1, 128])
    try? removeFile(atPath: gitDirectory + "/index")  // none after `git init`: nothing to remove
  }

  /// Sets `origin` to `url`.
  private func setRemote(_ url: String) throws(SyncError) {
    let current = try git.run(
      "read the remote", ["remote", "get-url", "origin"], accepting: [0, 2, 128])
    if !current.succeeded {
      try git.run("add the remote origin", ["remote", "add", "origin", url])
    } else if current.lines.first.map(String.init) != url {
      try git.run("set the remote origin", ["remote", "set-url", "origin", url])
    }
  }

  /// Whether the repository has a remote `origin`.
  func hasOrigin() throws(SyncError) -> Bool {
    try git.run("read the remote", ["remote", "get-url", "origin"], accepting: [0, 2, 128])
      .succeeded
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
