#if canImport(Glibc)
  import Glibc
#endif

// Making a store's folder a docsh repository: git init when needed, the merge driver in the
// repository's config, the remote, and the files that tell git how to treat the store.
extension StoreRepository {
  /// Makes the store's folder a docsh repository syncing with `remote`: creates the folder
  /// and `git init`s it when it is in no work tree, registers the merge driver in the
  /// repository's config (``registerMergeDriver(executable:)``), sets `remote` as `origin`
  /// (replacing another URL) and makes a plain `git pull` merge (``makePlainPullMerge()``).
  /// The upstream branch, `.gitattributes` and `.gitignore` follow in the first ``sync(_:)``,
  /// once the remote's branches are known.
  /// - Parameters:
  ///   - remote: any git remote: a path, `ssh://`, `https://`, `user@host:path`.
  ///   - driverExecutable: the absolute path of the docsh binary git runs as the driver.
  /// - Returns: the repository, set up.
  /// - Throws: ``SyncError`` naming the git step that failed.
  public static func setUp(
    storePath: String, remote: String, driverExecutable: String, runner: any GitRunner,
    fileSystem: any FileSystem = SystemFileSystem()
  ) throws(SyncError) -> StoreRepository {
    let absolute = absolutePath(storePath)
    let folder = AtomicFile.splitPath(absolute).folder
    try makeFolders(folder, fileSystem: fileSystem)
    var found = try locate(storePath: absolute, runner: runner, fileSystem: fileSystem)
    if found == nil {
      try Git(runner: runner, folder: folder).run("create a git repository", ["init", "--quiet"])
      found = try locate(storePath: absolute, runner: runner, fileSystem: fileSystem)
    }
    guard let repository = found else { throw .notARepository(folder: folder) }
    try repository.withRepositoryLock { () throws(SyncError) in
      try repository.registerMergeDriver(executable: driverExecutable)
      try repository.setRemote(remote)
      try repository.makePlainPullMerge()
    }
    return repository
  }

  /// Makes a plain `git pull` merge (and so run the driver) when the branches have diverged,
  /// where the user chose no way of settling that: since 2.33 git refuses such a pull until
  /// `pull.rebase` or `pull.ff` says what to do. A choice the user made, in any config, stands.
  /// - Throws: ``SyncError`` when git fails.
  func makePlainPullMerge() throws(SyncError) {
    for key in ["pull.rebase", "pull.ff"] {
      let chosen = try git.run(
        "read the repository's config", ["config", "--get", key], accepting: [0, 1])
      if chosen.succeeded { return }
    }
    try git.run("make git pull merge", ["config", "--local", "pull.rebase", "false"])
  }

  /// Registers (or refreshes) the merge driver in the repository's config:
  /// `merge.docsh.driver = 'EXECUTABLE' --merge-file %O %A %B %P`. The absolute path of the
  /// running binary works however docsh was installed; every sync refreshes it, so a docsh
  /// moved or upgraded is found again.
  /// - Throws: ``SyncError`` when git fails.
  public func registerMergeDriver(executable: String) throws(SyncError) {
    let command = StoreRepository.driverCommand(executable: executable)
    let current = try git.run(
      "read the repository's config", ["config", "--local", "--get", "merge.docsh.driver"],
      accepting: [0, 1])
    guard !current.succeeded || current.lines.first.map(String.init) != command else { return }
    try git.run(
      "register the merge driver",
      ["config", "--local", "merge.docsh.name", "docsh store: three-way merge by meaning"])
    try git.run(
      "register the merge driver", ["config", "--local", "merge.docsh.driver", command])
  }

  /// The driver command for `executable`, quoted for the shell git runs it with.
  static func driverCommand(executable: String) -> String {
    "'" + executable.replacingOccurrences(of: "'", with: "'\\''") + "' --merge-file %O %A %B %P"
  }

  /// The absolute path of the running program (`/proc/self/exe`), what the driver runs.
  public static func currentExecutablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
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

  // MARK: - The files that tell git how to treat the store

  /// The files of the store's folder docsh keeps lines in, and those lines: the merge
  /// driver for the store, and the lock, backup, temporary and recovery files git must not
  /// track (a recovery journal holds one session's unsaved work, for this machine only).
  var supportFiles: [(name: String, lines: [String])] {
    let name = storeFileName
    return [
      (".gitattributes", ["\(name) merge=docsh"]),
      (
        ".gitignore",
        ["\(name).lock", "\(name).bak", ".\(name).*", "\(name).unsaved-*", "\(name).recovered-*"]
      ),
    ]
  }

  /// Adds docsh's lines to `.gitattributes` and `.gitignore` where they are missing,
  /// keeping every other line; writes each file atomically, only when it changes.
  /// - Throws: ``SyncError/store(_:)`` when a file cannot be read or written.
  func ensureSupportFiles() throws(SyncError) {
    for (name, wanted) in supportFiles {
      let bytes = try folderFileBytes(name) ?? []
      let text = String(decoding: bytes, as: UTF8.self)
      let present = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: " \t\r") })
      let missing = wanted.filter { !present.contains(Substring($0)) }
      guard !missing.isEmpty else { continue }
      var updated = text
      if !updated.isEmpty && !updated.hasSuffix("\n") { updated += "\n" }
      updated += missing.map { $0 + "\n" }.joined()
      try writeFile(name, Array(updated.utf8))
    }
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

extension String {
  /// The string with every `target` replaced by `replacement` (DocsKit keeps Foundation out).
  func replacingOccurrences(of target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var result = ""
    var rest = Substring(self)
    while let range = rest.firstRange(of: target) {
      result += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return result + rest
  }
}
