#if canImport(Glibc)
  import Glibc
#endif

// What a save needs to know of docsh's own repository, known without starting git: a git
// process costs a few milliseconds, as much as the save itself on a small store, and a
// synced save used to start six. What git once told is kept beside the repository with
// what it depends on, in the ledger (``RepositoryLedger``), and trusted only while that is
// unchanged:
// - `set-up`: that the store folder's `.git` is docsh's repository, bare and set up, as of a
//   `.git/config` whose status (device, inode, size, times) it records;
// - `identity`: the committer git named, as of the config files and variables it was read
//   from (a config with an `include` is never cached: what it includes is not watched) —
//   kept and checked by ``CommitWriter``, which writes it into commits;
// - HEAD read from `.git/HEAD` and its branch's loose ref file, when both are plain.
// Anything else — a config changed, a packed or symbolic branch, variables that point git's
// config elsewhere — and docsh asks git, as before. The commit itself then writes the
// branch in its one `fast-import`, which refuses to move it from anything but an ancestor.
extension StoreRepository {
  /// Variables that give git configuration docsh does not watch: with any set, git is asked.
  static let configurationVariables = ["GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"]

  /// The variables git runs with: the process's, the runner's own over them.
  static func gitEnvironment(of runner: any GitRunner) -> [String: String] {
    var variables = SystemGitRunner.currentEnvironment()
    for (name, value) in runner.environment { variables[name] = value }
    return variables
  }

  // MARK: - The repository's facts

  /// docsh's own repository of the store folder `folder`, set up, when the ledger says so
  /// of the config as it is now; `nil` when git must be asked.
  static func knownRepository(
    storePath: String, folder: String, runner: any GitRunner, fileSystem: any FileSystem
  ) -> StoreRepository? {
    let git = Git(runner: runner, folder: folder, fileSystem: fileSystem)
    let gitDirectory = git.directory
    let environment = gitEnvironment(of: runner)
    guard !configurationVariables.contains(where: { environment[$0] != nil }),
      let setUp = RepositoryLedger.read(in: gitDirectory, fileSystem: fileSystem).setUp,
      setUp == signature(of: git.files.configPath, fileSystem: fileSystem)
    else { return nil }
    let repository = StoreRepository(
      storePath: storePath, topLevel: folder, gitDirectory: gitDirectory, prefix: "",
      isBare: true, runner: runner, fileSystem: fileSystem)
    repository.isKnownSetUp = true
    return repository
  }

  /// Records that this repository is docsh's own and set up, as git just said, and knows it
  /// from then on; only for the store folder's bare `.git`, the one
  /// ``knownRepository(storePath:folder:runner:fileSystem:)`` looks for.
  func recordFacts() {
    guard isBare, prefix.isEmpty, gitDirectory == GitFiles.ownDirectory(of: storeFolder) else {
      return
    }
    let config = StoreRepository.signature(of: git.files.configPath, fileSystem: fileSystem)
    guard config != "-" else { return }
    recordShortcut { $0.setUp = config }
    isKnownSetUp = true
  }

  // MARK: - HEAD

  /// HEAD's branch ref and the commit it is at, read from the files git keeps them in, when
  /// the repository is known (``knownRepository(storePath:folder:runner:fileSystem:)``) and
  /// both files are plain: `ref: refs/heads/NAME` and a loose ref. `nil` otherwise.
  func knownHead() -> (branch: String, head: CommitID)? {
    guard isKnownSetUp else { return nil }
    return git.files.headFromFiles()
  }

  /// The commit HEAD is at, read from its branch's file when it can be
  /// (``knownHead()``), else asked of git; `nil` on an unborn branch.
  /// - Throws: when git cannot be run.
  func headCommit() throws(SyncError) -> CommitID? {
    if let known = knownHead() { return known.head }
    return try git.head()
  }

  /// The commit the loose ref `name` (`refs/remotes/origin/main`) holds, read from its file
  /// in a known repository; else, or when it is not a plain loose ref, asked of git.
  /// - Throws: when git cannot be run.
  func refCommit(_ name: String) throws(SyncError) -> CommitID? {
    if isKnownSetUp, let commit = git.files.looseRef(name) { return commit }
    return try git.commit(name)
  }

  /// The machine's host name (`localhost` when it has none).
  static func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
    let name = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? "localhost" : name
  }

  // MARK: - Files

  /// `DEVICE INODE SIZE MTIME CTIME` of the file at `path`, `-` when there is none (or it
  /// cannot be looked at).
  static func signature(of path: String, fileSystem: any FileSystem) -> String {
    guard let status = fileSystem.status(ofPath: path) else { return "-" }
    return "\(status.device) \(status.inode) \(status.size) \(status.modificationNanoseconds) "
      + "\(status.changeNanoseconds)"
  }

  /// Records a shortcut in the ledger. One that cannot be written is not an error of the
  /// work that learnt it, which is done: without it the next run asks git again, which costs
  /// a process, no more. So the failure ends here.
  func recordShortcut(_ change: (inout RepositoryLedger) -> Void) {
    do {
      try updateLedger(change)
    } catch {
      // As said above: the next run asks git.
    }
  }
}
