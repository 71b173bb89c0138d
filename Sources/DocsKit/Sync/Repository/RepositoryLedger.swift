#if canImport(Glibc)
  import Glibc
#endif

/// docsh's facts about its repository, in one versioned file: `.git/docsh/ledger`. Each fact
/// is a section of its own, named, with what it depends on:
///
///     docsh-ledger 1
///     committed 3f2a…c1 42            what docsh last committed: HEAD and the store's generation
///     committed 3f2a…c1 unknown       (saves may have followed it: the next commit compares)
///     committed 3f2a…c1 42 layout-2   …and its tree is of layout 2 (``RepositoryLayout``);
///                                     without it, of layout 1 or not known
///     moving - 9c1e…07 41 WITNESS     a move of HEAD a sync began: OLD (`-`: none), NEW, the
///                                     store's generation before, a witness of the write (`-`)
///     set-up DEV INODE SIZE MTIME CTIME   git said the folder's `.git` is docsh's and set up,
///                                         as of `.git/config` with this status
///     identity KEY NAME <EMAIL>       the committer git named, as of what KEY hashes (the config
///                                     files' status, the variables, the host)
///
/// The moving note must be kept or the write reported; the others only spare git processes.
/// Sections a reader does not know are kept as they are; a ledger of a newer version is read
/// as empty (no shortcut, no note) and rewritten only by a write that needs to.
struct RepositoryLedger: Equatable, Sendable {
  /// A generation docsh knows, or does not (a save may have followed).
  enum Generation: Equatable, Sendable {
    case known(Int)
    case unknown
  }

  /// What docsh last committed.
  struct Committed: Equatable, Sendable {
    /// The commit.
    var head: CommitID
    /// The store's generation it holds.
    var generation: Generation
    /// The layout its tree holds, when known to be one after 1; `1` otherwise (a ledger of
    /// docsh before layout 2, or a commit docsh did not make): the next commit then compares
    /// the whole store, converting the tree if it is of layout 1.
    var layoutVersion = RepositoryLayout.currentVersion
  }

  /// A move of HEAD a sync noted just before writing the store.
  struct Move: Equatable, Sendable {
    /// Where HEAD was; `nil` for a branch with no commit yet.
    var old: CommitID?
    /// Where it goes.
    var new: CommitID
    /// The store's generation before the write.
    var generation: Int
    /// What the written store holds that the one before did not; `nil` when the write
    /// changes nothing.
    var witness: String?
  }

  /// A cached answer of git's, with the key it holds for.
  struct Cached: Equatable, Sendable {
    /// What the answer depends on.
    var key: String
    /// The answer.
    var value: String
  }

  /// The ledger's folder in the git folder, and its file and lock there.
  static let folderName = "docsh"
  static let fileName = "ledger"
  static let lockName = "ledger.lock"
  /// The version this docsh reads and writes.
  static let version = 1

  /// What docsh last committed.
  var committed: Committed?
  /// A move of HEAD left half done.
  var move: Move?
  /// That the repository is docsh's and set up, as of `.git/config`'s status (the key).
  var setUp: String?
  /// The committer git named, keyed by a hash of what it depends on.
  var identity: Cached?
  /// Lines of sections this docsh does not know, kept.
  var otherLines: [String] = []
  /// Whether the file was written by a newer docsh (read as empty).
  var isNewer = false

  init() {}

  /// The ledger `bytes` hold; empty for no file, one of a newer docsh, or one that does not
  /// start as a ledger.
  init(parsing bytes: [UInt8]) {
    let lines = String(decoding: bytes, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: true)
    guard let first = lines.first, first.hasPrefix("docsh-ledger ") else { return }
    guard first == "docsh-ledger \(RepositoryLedger.version)" else {
      isNewer = true
      return
    }
    for line in lines.dropFirst() {
      let fields = line.split(separator: " ", omittingEmptySubsequences: false)
      switch fields.first {
      case "committed" where fields.count == 3 || fields.count == 4:
        let generation: Generation? =
          fields[2] == "unknown" ? .unknown : Int(fields[2]).map { .known($0) }
        let layout = fields.count == 4 ? Int(fields[3].dropFirst("layout-".count)) : 1
        if let generation, let layout, fields.count == 3 || fields[3].hasPrefix("layout-") {
          committed = Committed(
            head: CommitID(fields[1]), generation: generation, layoutVersion: layout)
        }
      case "moving" where fields.count == 5:
        guard let generation = Int(fields[3]) else { continue }
        move = Move(
          old: fields[1] == "-" ? nil : CommitID(fields[1]), new: CommitID(fields[2]),
          generation: generation, witness: fields[4] == "-" ? nil : String(fields[4]))
      case "set-up" where fields.count > 1:
        setUp = fields.dropFirst().joined(separator: " ")
      case "identity" where fields.count > 2:
        identity = Cached(key: String(fields[1]), value: fields.dropFirst(2).joined(separator: " "))
      default:
        otherLines.append(String(line))
      }
    }
  }

  /// The file's bytes.
  var bytes: [UInt8] {
    var text = "docsh-ledger \(RepositoryLedger.version)\n"
    if let committed {
      let generation: String
      switch committed.generation {
      case .known(let value): generation = String(value)
      case .unknown: generation = "unknown"
      }
      let layout = committed.layoutVersion > 1 ? " layout-\(committed.layoutVersion)" : ""
      text += "committed \(committed.head.hex) \(generation)\(layout)\n"
    }
    if let move {
      text +=
        "moving \(move.old?.hex ?? "-") \(move.new.hex) \(move.generation) \(move.witness ?? "-")\n"
    }
    if let setUp { text += "set-up \(setUp)\n" }
    if let identity { text += "identity \(identity.key) \(identity.value)\n" }
    for line in otherLines { text += line + "\n" }
    return Array(text.utf8)
  }

  /// The key of a cached answer: a hash of all it depends on (any text).
  static func key(of text: String) -> String {
    var hash = SHA1()
    hash.update(Array(text.utf8))
    return hash.finalHex()
  }

  // MARK: - The file

  /// The ledger in the git folder `gitDirectory`; empty when there is none or it cannot be
  /// read (then nothing is known: git is asked, the next commit compares the whole store).
  static func read(in gitDirectory: String, fileSystem: any FileSystem) -> RepositoryLedger {
    let path = gitDirectory + "/" + folderName + "/" + fileName
    guard let bytes = try? fileSystem.contents(ifPresentAt: path) else {
      return RepositoryLedger()
    }
    return RepositoryLedger(parsing: bytes)
  }

  /// Changes the ledger in `gitDirectory` with `change`, under its lock so that two
  /// processes recording different facts keep both, and writes it whole (a temporary file
  /// synced and renamed over it). A newer docsh's ledger is left as it is.
  /// - Throws: ``SystemCallError`` when the folder, the lock or the file cannot be had or
  ///   written; the ledger is then as it was.
  static func update(
    in gitDirectory: String, fileSystem: any FileSystem, _ change: (inout RepositoryLedger) -> Void
  ) throws(SystemCallError) {
    let folder = gitDirectory + "/" + folderName
    do {
      try fileSystem.makeDirectory(folder, mode: 0o700)
    } catch  where error.code == EEXIST {}
    let directory = try fileSystem.open(folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    defer { try? fileSystem.close(directory) }  // read-only: nothing to lose
    let lock = try fileSystem.open(
      at: directory, lockName, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
    defer { fileSystem.unlockAndClose(lock) }
    // Held for a read and a small write: wait for another process's, as long as it takes.
    while try !fileSystem.lockExclusively(lock) { usleep(1_000) }
    var ledger = read(in: gitDirectory, fileSystem: fileSystem)
    guard !ledger.isNewer else { return }
    let before = ledger
    change(&ledger)
    guard ledger != before else { return }
    try AtomicFile.replace(
      fileName, in: directory, with: ledger.bytes, keepingBackup: false, fileSystem: fileSystem)
  }
}
