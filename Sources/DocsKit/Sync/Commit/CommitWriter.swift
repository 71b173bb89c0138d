#if canImport(Glibc)
  import Glibc
#endif

extension StoreRepository {
  /// Writes this repository's commits (``CommitWriter``).
  var commitWriter: CommitWriter { CommitWriter(repository: self) }
}

/// Writes commits: each through one `git fast-import` (its blobs first, in a stream begun by
/// ``makeInput()``), on docsh's own ref or on HEAD's branch, and moves HEAD's branch to them
/// only from the commit it was at. What the store's commits, a sync's merges and the
/// encrypted remote's translation all write with; it knows nothing of the store or a sync.
///
/// It holds the repository only for the session's committer identity and the ledger's
/// shortcut to it (``knownCommitter(environment:)``).
struct CommitWriter {
  /// The repository written to.
  let repository: StoreRepository
  /// Its git.
  let git: Git

  /// Writes commits of `repository`.
  init(repository: StoreRepository) {
    self.repository = repository
    git = repository.git
  }

  private var fileSystem: any FileSystem { repository.fileSystem }

  /// The ref each commit is built on before HEAD's branch moves to it.
  static let buildRef = "refs/docsh/commit"

  /// Where a commit is written, and how its ref may move.
  enum CommitDestination {
    /// docsh's own ref (``buildRef``), moved from anywhere; HEAD's branch is moved after it
    /// (``moveHead(to:from:reason:)``), from the commit it was at.
    case buildRef
    /// HEAD's branch itself, which fast-import moves only from an ancestor of the commit
    /// (without `--force`).
    case branch(String)
  }

  /// Writes a commit of `parent`'s tree, `mergedParents` as its other parents, with
  /// `changes`, through one `git fast-import`: the one way docsh writes a commit.
  /// - Parameters:
  ///   - blobs: a stream begun by ``makeInput()`` holding the blobs `changes` name; the
  ///     commit follows them there and fast-import reads it all from that file.
  ///   - destination: the ref it is written on.
  /// - Returns: the commit; `nil` only when `destination` is a branch that fast-import
  ///   refused to move, the branch being somewhere else.
  ///   - committer: `Name <email> SECONDS ZONE` of the author and committer; git's (now)
  ///     when `nil`.
  ///   - pack: how the pack is written (``FastImportPack``).
  func makeCommit(
    parent: CommitID?, mergedParents: [CommitID] = [], changes: [FastImportCommit.Change],
    message: String, after blobs: GitInputFile? = nil,
    on destination: CommitDestination = .buildRef, committer: String? = nil,
    pack: FastImportPack = .standard
  ) throws(SyncError) -> CommitID? {
    let ref: String
    switch destination {
    case .buildRef: ref = CommitWriter.buildRef
    case .branch(let branch): ref = branch
    }
    let line: String
    if let committer { line = committer } else { line = try committerLine() }
    let commit = FastImportCommit(
      ref: ref, committer: line, message: message, parent: parent,
      mergedParents: mergedParents, changes: changes)
    guard case .branch = destination else {
      return try fastImport(commit, after: blobs, pack: pack)
    }
    return try fastImport(commit, forcing: false, after: blobs)
  }

  /// The commit ``makeCommit(parent:mergedParents:changes:message:after:on:)`` writes on
  /// docsh's own ref, which fast-import always writes.
  func makeBuildCommit(
    parent: CommitID?, mergedParents: [CommitID] = [], changes: [FastImportCommit.Change],
    message: String, after blobs: GitInputFile? = nil, committer: String? = nil,
    pack: FastImportPack = .standard
  ) throws(SyncError) -> CommitID {
    guard
      let commit = try makeCommit(
        parent: parent, mergedParents: mergedParents, changes: changes, message: message,
        after: blobs, committer: committer, pack: pack)
    else { throw .gitFailed(step: "commit the store", message: "git fast-import wrote no commit") }
    return commit
  }

  /// Runs `git fast-import` on a stream written to its end (``finishInput(_:after:)``) whose
  /// commit is on docsh's own ref; the caller closes `input`.
  /// - Returns: the commit.
  func makeBuildCommit(reading input: Int32, pack: FastImportPack = .standard) throws(SyncError)
    -> CommitID
  {
    guard let commit = try git.fastImport(.file(input), forcing: true, pack: pack) else {
      throw .gitFailed(step: "commit the store", message: "git fast-import wrote no commit")
    }
    return commit
  }

  /// Runs `git fast-import` on `commit`'s stream, after the blobs of `blobs` when given.
  /// - Parameter forcing: whether fast-import may move `commit`'s ref from anywhere; without
  ///   it, a ref it refuses to move is `nil`.
  private func fastImport(
    _ commit: FastImportCommit, forcing: Bool = true, after blobs: GitInputFile? = nil,
    pack: FastImportPack = .standard
  ) throws(SyncError) -> CommitID? {
    guard let blobs else {
      return try git.fastImport(.bytes(commit.stream()), forcing: forcing, pack: pack)
    }
    let input = try finishInput(commit, after: blobs)
    defer { try? fileSystem.close(input) }  // read-only
    return try git.fastImport(.file(input), forcing: forcing, pack: pack)
  }

  /// Writes `commit` into `blobs` after the blobs it names, `leading` before its changes
  /// (``FastImportCommit/write(afterHeader:piecesOf:leading:to:)``); a descriptor reading the
  /// whole stream from its start, which the caller closes.
  func finishInput(
    _ commit: FastImportCommit, after blobs: GitInputFile,
    leading: some Sequence<FastImportCommit.Change> = EmptyCollection()
  ) throws(SyncError) -> Int32 {
    do {
      // In pieces: the commit of a whole store names every document's file.
      try commit.write(afterHeader: true, leading: leading) {
        (piece: [UInt8]) throws(SystemCallError) -> Void in
        try blobs.append(piece)
      }
      return try blobs.finish()
    } catch {
      throw .store(.system("git's input", operation: error.operation, errno: error.code))
    }
  }

  /// A fast-import stream to write blobs into before the commit that names them.
  func makeInput() throws(SyncError) -> GitInputFile {
    do {
      let input = try GitInputFile(fileSystem: fileSystem)
      try input.append(FastImportCommit.streamHeader)
      return input
    } catch {
      throw .store(.system("git's input", operation: error.operation, errno: error.code))
    }
  }

  // MARK: - Moving HEAD and the committer

  /// Moves HEAD's branch from `old` (`nil`: it must not exist yet) to `new`, and only from
  /// there: a commit made meanwhile by someone else makes it fail rather than be lost.
  func moveHead(to new: CommitID, from old: CommitID?, reason: String) throws(SyncError) {
    try git.updateRef("HEAD", to: new, expecting: old.map { .at($0) } ?? .absent, reason: reason)
  }

  /// `Name <email> SECONDS ZONE` for a commit now, as git gives it (honouring the
  /// configuration and `GIT_COMMITTER_DATE`); where git has no identity configured,
  /// `docsh` and `docsh@HOST` for what is missing, supplied for the one command without
  /// writing any config (found once).
  func committerLine() throws(SyncError) -> String {
    let environment = StoreRepository.gitEnvironment(of: git.runner)
    let isDated = environment["GIT_COMMITTER_DATE"] != nil
    if !isDated, let known = knownCommitter(environment: environment) {
      return known + " " + CommitWriter.gitDateNow()
    }
    let line = try committerLineFromGit()
    if !isDated { recordCommitter(line, environment: environment) }
    return line
  }

  /// ``committerLine()`` as git gives it.
  private func committerLineFromGit() throws(SyncError) -> String {
    if repository.identity == nil {
      if let line = try git.configuredCommitter() {
        repository.identity = Git.IdentityFallback()
        return line
      }
      let configured = try git.configEntries(
        matching: "^user\\.(name|email)$", localOnly: false)
      let keys = Set(configured.map(\.key))
      repository.identity = Git.IdentityFallback(
        name: keys.contains("user.name") ? nil : "docsh",
        email: keys.contains("user.email") ? nil : "docsh@" + StoreRepository.hostName())
    }
    return try git.committer(supplying: repository.identity ?? Git.IdentityFallback())
  }

  // MARK: - The committer, remembered

  /// Variables git's committer identity depends on, besides the config files.
  static let identityVariables = [
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL",
    "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
  ]

  /// `Name <email>` as git last gave it for this repository, when nothing it came from has
  /// changed since; `nil` when git must be asked.
  func knownCommitter(environment: [String: String]) -> String? {
    guard let cached = repository.ledger().identity,
      cached.key == RepositoryLedger.key(of: identityKey(environment: environment)),
      cached.value.contains("<")
    else { return nil }
    return cached.value
  }

  /// Keeps `committer` (`Name <email> SECONDS ZONE`, as git gave it) for the next commits,
  /// unless a config file it may come from includes others.
  func recordCommitter(_ committer: String, environment: [String: String]) {
    let fields = committer.split(separator: " ")
    guard fields.count >= 3 else { return }
    let identity = fields.dropLast(2).joined(separator: " ")
    for path in identityConfigFiles(environment: environment) {
      guard let bytes = try? fileSystem.contents(ifPresentAt: path) else {
        continue
      }
      if String(decoding: bytes, as: UTF8.self).lowercased().contains("include") { return }
    }
    let key = RepositoryLedger.key(of: identityKey(environment: environment))
    repository.recordShortcut { $0.identity = RepositoryLedger.Cached(key: key, value: identity) }
  }

  /// ` SECONDS ZONE` of now, as git writes a commit's date (`1764633600 +0100`).
  static func gitDateNow() -> String {
    var now = time(nil)
    var local = tm()
    localtime_r(&now, &local)
    let offset = local.tm_gmtoff / 60
    let minutes = Int(abs(offset))
    return "\(now) " + (offset < 0 ? "-" : "+") + pad(minutes / 60, 2) + pad(minutes % 60, 2)
  }

  /// The config files git reads an identity from, as the variables place them.
  private func identityConfigFiles(environment: [String: String]) -> [String] {
    git.files.configFiles(environment: environment)
  }

  /// What the identity depends on, one line each: the config files' status, the variables'
  /// values and the host's name (docsh's own fallback names it).
  private func identityKey(environment: [String: String]) -> String {
    var key = "docsh-identity 1\n"
    for path in identityConfigFiles(environment: environment) {
      key +=
        "file " + StoreRepository.signature(of: path, fileSystem: fileSystem) + " " + path + "\n"
    }
    for name in CommitWriter.identityVariables {
      key += "variable " + name + (environment[name].map { "=" + $0 } ?? "") + "\n"
    }
    return key + "host " + StoreRepository.hostName() + "\n"
  }
}
