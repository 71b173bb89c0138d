#if canImport(Glibc)
  import Glibc
#endif

/// The store as committed at HEAD: the commit, and the bytes of the store file it holds.
struct LocalState {
  /// HEAD, `nil` while the branch has no commit.
  var head: CommitID?
  /// The store file's bytes (also the store at `head`); `nil` when there is no file.
  var bytes: [UInt8]?
  /// Those bytes parsed.
  var store: ParsedStore?
}

// Committing the store with git's plumbing: the blob hashed from bytes docsh read under the
// store's lock, a tree built in a temporary index, commit-tree, update-ref with the expected
// old value, then the repository's index — git never writes the store file.
extension StoreRepository {
  /// Commits the store file (and docsh's lines in `.gitattributes` and `.gitignore`) when it
  /// differs from HEAD, with a one-line message saying what changed (`2 new, 1 changed:
  /// Work/Plan, …`) and trailers that let history find each document's versions. Nothing is
  /// committed when nothing changed; either way the repository's index then matches, so
  /// `git status` is clean for the store. Where git has no identity configured, the commit
  /// is made as `docsh <docsh@HOST>` without writing any config.
  /// - Returns: the new commit, or `nil` when there was nothing to commit.
  /// - Throws: ``SyncError``: the store file and HEAD are then as they were (at worst the
  ///   commit is made and the index not yet updated, which the next commit does).
  @discardableResult
  public func commitStore() throws(SyncError) -> CommitID? {
    try withRepositoryLock { () throws(SyncError) -> CommitID? in
      let before = try git.commit("HEAD")
      let after = try commitLocked().head
      return after == before ? nil : after
    }
  }

  /// Commits the store when it changed; the repository lock is held.
  /// - Parameter messagePrefix: put before the subject (`Sync: `).
  func commitLocked(messagePrefix: String = "") throws(SyncError) -> LocalState {
    try withStoreLock { () throws(SyncError) -> LocalState in
      // What a sync stopped half way brought in stays the remote's, never a local change.
      try finishInterruptedMove()
      let head = try git.commit("HEAD")
      let bytes = try storeFileBytes()
      var parsed: ParsedStore?
      if let bytes {
        do throws(StoreError) {
          parsed = try ParsedStore(bytes: bytes, name: storePath)
        } catch {
          if let head, try git.object(head.hex + ":" + pathInRepository) != nil {
            throw .storeDamaged(path: storePath, reason: error.description, commit: head.short)
          }
          throw .store(error)
        }
      } else if let head, try git.object(head.hex + ":" + pathInRepository) != nil {
        // Never commit the store's disappearance: git may have lost it half way.
        throw .storeMissing(path: storePath, commit: head.short)
      }

      var entries: [(path: String, blob: String)] = []
      if let bytes {
        entries.append((pathInRepository, try hashObject(bytes, path: pathInRepository)))
      }
      for (name, _) in supportFiles {
        guard let fileBytes = try folderFileBytes(name) else { continue }
        entries.append((prefix + name, try hashObject(fileBytes, path: prefix + name)))
      }
      let committed =
        try head.map { head throws(SyncError) in
          try blobs(at: head, paths: entries.map(\.path))
        } ?? [:]
      let changed = entries.filter { committed[$0.path] != $0.blob }
      guard !changed.isEmpty else {
        try refreshIndex(paths: entries.map(\.path), head: head)
        return LocalState(head: head, bytes: bytes, store: parsed)
      }

      var old = parsed  // unless the store changed, only the other files did
      if changed.contains(where: { $0.path == pathInRepository }) {
        old = try head.flatMap { head throws(SyncError) in try storeAt(head) }
      }
      let changes = StoreChanges(from: old, to: parsed)
      let message =
        changes.count == 0
        ? messagePrefix + "docsh: merge driver and ignored files\n\n" + HistoryTrailer.storeKey
          + ": " + pathInRepository + "\n"
        : changes.message(prefix: messagePrefix, storePath: pathInRepository)
      let tree = try makeTree(base: head.map(\.hex), entries: changed)
      let commit = try commitTree(tree, parents: head.map { [$0] } ?? [], message: message)
      try moveHead(to: commit, from: head, reason: changes.subject(prefix: messagePrefix))
      try updateIndex(paths: entries.map(\.path))
      return LocalState(head: commit, bytes: bytes, store: parsed)
    }
  }

  // MARK: - Plumbing

  /// Writes `bytes` as a blob (as `git add` would for `path`) and returns its name.
  func hashObject(_ bytes: [UInt8], path: String) throws(SyncError) -> String {
    try git.text(
      "store \(path) in the repository", ["hash-object", "-w", "--stdin", "--path=" + path],
      input: bytes)
  }

  /// The blobs `paths` have at `commit`, by path (absent paths are left out).
  func blobs(at commit: CommitID, paths: [String]) throws(SyncError) -> [String: String] {
    let output = try git.run(
      "read the last commit", ["ls-tree", "-z", commit.hex, "--"] + paths)
    var blobs: [String: String] = [:]
    for record in output.output.split(separator: 0, omittingEmptySubsequences: true) {
      // "MODE TYPE NAME\tPATH"
      guard let tab = record.firstIndex(of: 0x09) else { continue }
      let fields = String(decoding: record[..<tab], as: UTF8.self).split(separator: " ")
      let path = String(decoding: record[(tab + 1)...], as: UTF8.self)
      if fields.count == 3 { blobs[path] = String(fields[2]) }
    }
    return blobs
  }

  /// The store at `commit` parsed, `nil` when the commit holds none or one that does not
  /// parse (for describing changes only).
  func storeAt(_ commit: CommitID) throws(SyncError) -> ParsedStore? {
    guard
      let bytes = try git.blobs([commit.hex + ":" + pathInRepository], step: "read the store")
        .first ?? nil
    else { return nil }
    return try? ParsedStore(bytes: bytes, name: "\(commit.short):\(pathInRepository)")
  }

  /// A tree: `base`'s (or an empty one) with `entries` put in, built in docsh's own
  /// temporary index so that the repository's index is not touched.
  func makeTree(base: String?, entries: [(path: String, blob: String)]) throws(SyncError)
    -> String
  {
    let indexPath = gitDirectory + "/docsh-index"
    let environment = ["GIT_INDEX_FILE": indexPath]
    removeTemporaryIndex()
    defer { removeTemporaryIndex() }
    try git.run(
      "build the commit", ["read-tree"] + (base.map { [$0] } ?? ["--empty"]),
      environment: environment)
    if !entries.isEmpty {
      try git.run(
        "build the commit",
        ["update-index", "--add"]
          + entries.flatMap { ["--cacheinfo", "100644,\($0.blob),\($0.path)"] },
        environment: environment)
    }
    return try git.text("build the commit", ["write-tree"], environment: environment)
  }

  func removeTemporaryIndex() {
    let path = gitDirectory + "/docsh-index"
    for name in [path, path + ".lock"] { try? removeFile(atPath: name) }
  }

  /// Makes a commit of `tree` with `parents` and `message`, supplying an identity where
  /// git has none configured.
  func commitTree(_ tree: String, parents: [CommitID], message: String) throws(SyncError)
    -> CommitID
  {
    let arguments =
      try identity() + ["commit-tree", tree] + parents.flatMap { ["-p", $0.hex] } + ["-F", "-"]
    return CommitID(try git.text("commit the store", arguments, input: Array(message.utf8)))
  }

  /// Moves HEAD's branch from `old` (`nil`: it must not exist yet) to `new`, and only from
  /// there: a commit made meanwhile by someone else makes it fail rather than be lost.
  func moveHead(to new: CommitID, from old: CommitID?, reason: String) throws(SyncError) {
    try git.run(
      "update the branch",
      ["update-ref", "-m", "docsh: " + reason, "HEAD", new.hex, old?.hex ?? ""])
  }

  /// Records the work-tree files `paths` in the repository's index (git reads them; it
  /// writes nothing but the index).
  func updateIndex(paths: [String]) throws(SyncError) {
    guard !paths.isEmpty else { return }
    try git.run("update the index", ["update-index", "--add", "--"] + paths)
  }

  /// Makes the index match HEAD for `paths` when it does not (after a step that failed
  /// between moving HEAD and updating the index, or a merge left half done).
  private func refreshIndex(paths: [String], head: CommitID?) throws(SyncError) {
    guard let head, !paths.isEmpty else { return }
    let differs = try git.run(
      "compare the index", ["diff-index", "--cached", "--quiet", head.hex, "--"] + paths,
      accepting: [0, 1])
    if !differs.succeeded { try updateIndex(paths: paths) }
  }

  /// `-c user.name=… -c user.email=…` for what git has no value of; found once.
  func identity() throws(SyncError) -> [String] {
    if let identityArguments { return identityArguments }
    let output = try git.run(
      "read the identity", ["config", "--get-regexp", "^user\\.(name|email)$"],
      accepting: [0, 1])
    let keys = Set(output.lines.compactMap { $0.split(separator: " ").first.map(String.init) })
    var arguments: [String] = []
    if !keys.contains("user.name") { arguments += ["-c", "user.name=docsh"] }
    if !keys.contains("user.email") {
      arguments += ["-c", "user.email=docsh@" + StoreRepository.hostName()]
    }
    identityArguments = arguments
    return arguments
  }

  /// The machine's host name (`localhost` when it has none).
  static func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
    let name = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? "localhost" : name
  }
}
