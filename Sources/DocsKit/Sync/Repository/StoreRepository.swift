#if canImport(Glibc)
  import Glibc
#endif

/// The git repository a store lives in: set up for syncing, committing the store, syncing it
/// with a remote, and its history — all with git's plumbing, so that git never writes the
/// store file (git replaces work-tree files by unlink and create, not atomically; docsh
/// writes the store itself, with its atomic save).
///
/// Commits hold one file per document and a record per category (``RepositoryLayout``), so
/// that a clone of the remote is a folder of notes; the store file itself is not tracked.
/// The repository is the store folder's `.git`, without a work tree (`core.bare`): nothing
/// in the folder stands for the documents but the store file.
///
/// Find one with ``locate(storePath:runner:fileSystem:)``; a store in no repository has none
/// and works as it always did. One is "set up for docsh" when its config says so
/// (``isSetUp()``); only then do saves commit and `sync` run. A repository of docsh before
/// 0.4, which tracked the store file, counts as set up and converts on its next commit.
public final class StoreRepository {
  /// The store file, as an absolute path.
  public let storePath: String
  /// The top of the work tree.
  public let topLevel: String
  /// The repository's git folder (`.git`), absolute.
  let gitDirectory: String
  /// The store's folder, absolute.
  let storeFolder: String
  /// The store's path inside the repository, as git names it (`store.json`, `notes/store.json`).
  let pathInRepository: String
  /// The store folder's path inside the repository (`""` or `notes/`).
  let prefix: String
  let git: Git
  let fileSystem: any FileSystem
  /// What commits need supplied where git has no identity configured (nothing when it has
  /// one), found once.
  var identity: Git.IdentityFallback?
  /// Whether git has no work tree here (the layout of one file per document).
  let isBare: Bool
  /// Whether the repository was found from what git said of it before
  /// (``knownRepository(storePath:folder:runner:fileSystem:)``): docsh's own, set up, its
  /// config unchanged since.
  var isKnownSetUp = false
  /// Asks the passphrase of an encrypted remote when something must be decrypted.
  public var passphrases: (any PassphraseProviding)?
  /// The identity of the encrypted remote, once a passphrase opened it: kept for the
  /// session, never written anywhere.
  var encryptionIdentity: AgeIdentity?

  init(
    storePath: String, topLevel: String, gitDirectory: String, prefix: String, isBare: Bool,
    runner: any GitRunner, fileSystem: any FileSystem
  ) {
    self.isBare = isBare
    self.storePath = storePath
    self.topLevel = topLevel
    self.gitDirectory = gitDirectory
    self.prefix = prefix
    let (folder, name) = splitPath(storePath)
    storeFolder = folder
    pathInRepository = prefix + name
    // Paths given to git are the repository's (`notes/store.json`): git runs at the top.
    git = Git(runner: runner, folder: topLevel, directory: gitDirectory, fileSystem: fileSystem)
    self.fileSystem = fileSystem
  }

  /// The file name of the store (`store.json`).
  var storeFileName: String { splitPath(storePath).name }

  /// Over this many documents a category's files lie in bucket subfolders
  /// (``RepositoryLayout``): 2,000, made smaller only by tests.
  public var fanOutLimit = RepositoryLayout.defaultFanOutLimit

  /// Where the store's objects lie in a commit's tree.
  var layout: RepositoryLayout { RepositoryLayout(prefix: prefix, fanOutLimit: fanOutLimit) }

  // MARK: - Finding the repository

  /// The repository whose work tree holds the store at `storePath`, or `nil` when its
  /// folder is in none (or does not exist yet).
  /// - Throws: ``SyncError`` when git cannot be run, or fails in a folder that is in a
  ///   repository (say, one git refuses as not safe).
  public static func locate(
    storePath: String, runner: any GitRunner, fileSystem: any FileSystem = SystemFileSystem()
  ) throws(SyncError) -> StoreRepository? {
    let absolute = absolutePath(storePath)
    let folder = splitPath(absolute).folder
    // No `.git` at or above the folder: in no repository, and no git process started (the
    // shell asks this of every save).
    guard isFolder(folder, fileSystem: fileSystem),
      hasGitEntry(atOrAbove: folder, fileSystem: fileSystem)
    else { return nil }
    if let known = knownRepository(
      storePath: absolute, folder: folder, runner: runner, fileSystem: fileSystem)
    {
      return known
    }
    let git = Git(runner: runner, folder: folder, fileSystem: fileSystem)
    let lookup = try git.lookUpRepository()
    guard case .found(let gitDirectory, let isBare, let prefix) = lookup else {
      if case .notFound(let reason) = lookup, hasGitEntry(atOrAbove: folder, fileSystem: fileSystem)
      {
        throw .gitFailed(step: "find the repository", message: reason)
      }
      return nil
    }
    if isBare {
      // docsh's own repository has no work tree: it is the store folder's `.git`.
      guard gitDirectory == GitFiles.ownDirectory(of: folder) else { return nil }
      return StoreRepository(
        storePath: absolute, topLevel: folder, gitDirectory: gitDirectory, prefix: "",
        isBare: true, runner: runner, fileSystem: fileSystem)
    }
    let topLevel = try git.topLevel()
    return StoreRepository(
      storePath: absolute, topLevel: topLevel, gitDirectory: gitDirectory,
      prefix: prefix, isBare: false, runner: runner, fileSystem: fileSystem)
  }

  /// Whether the repository is set up for docsh: its config says `docsh.layout = files`,
  /// or (a repository of docsh before 0.4, converted on its next commit) registers the old
  /// merge driver. Saves commit and `sync` runs only then.
  /// - Throws: ``SyncError`` when git cannot be run.
  public func isSetUp() throws(SyncError) -> Bool {
    if isKnownSetUp { return true }
    let settings = try git.configEntries(
      matching: "^(docsh\\.layout|merge\\.docsh\\.driver)$", localOnly: true)
    // Only a repository of one file per document is known from then on: one of the old
    // layout converts on its next commit, which changes the config.
    if settings.contains(Git.ConfigEntry(line: "docsh.layout files")) { recordFacts() }
    return !settings.isEmpty
  }

  /// How many commits of the current branch its upstream does not have yet, as the remote
  /// was last fetched (no network); `nil` when the branch has no upstream.
  /// - Throws: ``SyncError`` when git fails.
  public func unpushedCommitCount() throws(SyncError) -> Int? {
    try git.unpushedCommitCount()
  }

  // MARK: - Locks

  /// Runs `body` holding docsh's own lock on the repository (`.git/docsh.lock`), so that two
  /// docsh processes never commit or sync in one repository at once. Waits about two
  /// seconds for another one.
  /// - Throws: ``SyncError/busy(lock:)`` when another holds it, or what `body` throws.
  func withRepositoryLock<Result>(
    _ body: () throws(SyncError) -> Result
  ) throws(SyncError) -> Result {
    let path = gitDirectory + "/docsh.lock"
    let lock: Int32
    do {
      lock = try fileSystem.open(
        path, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
    } catch {
      throw .store(.system(path, operation: error.operation, errno: error.code))
    }
    defer { fileSystem.unlockAndClose(lock) }
    var held = false
    for attempt in 0..<200 {
      if (try? fileSystem.lockExclusively(lock)) == true {
        held = true
        break
      }
      if attempt < 199 { usleep(10_000) }
    }
    guard held else { throw .busy(lock: path) }
    return try body()
  }

  /// Runs `body` holding `store`'s save lock (`store.json.lock`), handing it the lock, so
  /// that no docsh session saves between what `body` reads of the store file and what it
  /// writes.
  /// - Throws: ``SyncError/store(_:)`` when the lock cannot be taken, or what `body` throws.
  func withStoreLock<Value>(
    _ store: any StoreWriting, _ body: (LockedStore) throws(SyncError) -> Value
  ) throws(SyncError) -> Value {
    let outcome: Result<Value, SyncError>
    do {
      outcome = try store.withSaveLock { lock throws(StoreError) in
        Result { () throws(SyncError) in try body(lock) }
      }
    } catch {
      throw .store(error)
    }
    return try outcome.get()
  }

  // MARK: - The store file

  /// The bytes of the store file, or `nil` when there is none.
  /// - Throws: ``SyncError/store(_:)`` when it cannot be read.
  func storeFileBytes() throws(SyncError) -> [UInt8]? {
    try fileBytes(at: storePath)
  }

  /// The bytes of the file at `path`, or `nil` when there is none.
  /// - Throws: ``SyncError/store(_:)`` when it cannot be read.
  func fileBytes(at path: String) throws(SyncError) -> [UInt8]? {
    do {
      return try fileSystem.contents(ifPresentAt: path)
    } catch {
      throw .store(.system(path, operation: error.operation, errno: error.code))
    }
  }

  /// The first few KiB of the store file, where its header lies; `nil` when there is none.
  /// - Throws: ``SyncError/store(_:)`` when it cannot be read.
  func storeFileHead() throws(SyncError) -> [UInt8]? {
    let file: Int32
    do {
      file = try fileSystem.open(storePath, flags: O_RDONLY | O_CLOEXEC, mode: 0)
    } catch {
      if error.code == ENOENT { return nil }
      throw .store(.system(storePath, operation: "open", errno: error.code))
    }
    defer { try? fileSystem.close(file) }  // read-only: closing cannot lose anything
    var bytes = [UInt8](repeating: 0, count: 4096)
    let count = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(SystemCallError) in try fileSystem.readFully(file, into: buffer, at: 0) }
    }
    switch count {
    case .success(let count): return Array(bytes.prefix(count))
    case .failure(let failure):
      throw .store(.system(storePath, operation: failure.operation, errno: failure.code))
    }
  }

  // MARK: - The ledger

  /// The ledger's file: docsh's facts about this repository (``RepositoryLedger``).
  var ledgerPath: String {
    gitDirectory + "/" + RepositoryLedger.folderName + "/" + RepositoryLedger.fileName
  }

  /// The ledger as it is now.
  func ledger() -> RepositoryLedger {
    RepositoryLedger.read(in: gitDirectory, fileSystem: fileSystem)
  }

  /// Changes the ledger with `change`, under its lock.
  /// - Throws: ``SystemCallError`` when it cannot be written; it is then as it was.
  func updateLedger(_ change: (inout RepositoryLedger) -> Void) throws(SystemCallError) {
    try RepositoryLedger.update(in: gitDirectory, fileSystem: fileSystem, change)
  }

  /// What docsh last committed, as the ledger records it. A save whose store replaced that
  /// generation, with HEAD still at that commit, is committed from its own changes; anything
  /// else (a commit that failed, a save of another session in between, a first commit)
  /// compares the whole store.
  func committed() -> RepositoryLedger.Committed? {
    ledger().committed
  }

  /// Records that `head` holds the store at `generation`.
  ///
  /// A failure to record is not one of the commit's, which has happened: the ledger then
  /// still names an older commit (or none), so the next commit, finding HEAD elsewhere,
  /// compares the whole store, which is slower, not wrong. So the failure ends here.
  /// - Parameter layoutVersion: the layout `head`'s tree holds: every commit docsh writes
  ///   holds the current one; `1` where that is not known.
  func recordCommitted(
    _ head: CommitID, generation: RepositoryLedger.Generation,
    layoutVersion: Int = RepositoryLayout.currentVersion
  ) {
    do {
      try updateLedger {
        $0.committed = RepositoryLedger.Committed(
          head: head, generation: generation, layoutVersion: layoutVersion)
      }
    } catch {
      // As said above: the next commit compares the whole store.
    }
  }

  /// The generation of `store` on disk (``StoreWriting/currentGeneration()``); `nil` when
  /// there is no file or its header does not say.
  /// - Throws: ``SyncError/store(_:)`` when the store cannot be read.
  func storeGeneration(_ store: any StoreWriting) throws(SyncError) -> Int? {
    do {
      return try store.currentGeneration()
    } catch {
      throw .store(error)
    }
  }

  /// Removes the file at `path`.
  /// - Throws: ``SyncError/store(_:)`` when it cannot be removed (or is not there).
  func removeFile(atPath path: String) throws(SyncError) {
    let (folder, name) = splitPath(path)
    do {
      let directory = try fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
      defer { try? fileSystem.close(directory) }
      try fileSystem.unlink(at: directory, name)
    } catch {
      throw .store(.system(path, operation: error.operation, errno: error.code))
    }
  }

  // MARK: - Paths

  /// `path` made absolute against the current folder.
  static func absolutePath(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return path }
    let folder = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var relative = Substring(path)
    while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
    return (folder == "/" ? "" : folder) + "/" + relative
  }

  static func isFolder(_ path: String, fileSystem: any FileSystem) -> Bool {
    guard
      let directory = try? fileSystem.open(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    else { return false }
    try? fileSystem.close(directory)
    return true
  }

  /// Whether `folder` or a folder above it holds a `.git`.
  static func hasGitEntry(atOrAbove folder: String, fileSystem: any FileSystem) -> Bool {
    var current = folder
    while true {
      if let directory = try? fileSystem.open(
        current, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
      {
        defer { try? fileSystem.close(directory) }
        if (try? fileSystem.status(at: directory, ".git")) ?? nil != nil { return true }
      }
      guard current != "/" else { return false }
      current = splitPath(current).folder
    }
  }
}
