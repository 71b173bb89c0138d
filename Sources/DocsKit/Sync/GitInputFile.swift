#if canImport(Glibc)
  import Glibc
#endif

/// What a git process will read on its standard input, written as it is made into a file of
/// its own (in `TMPDIR`, unlinked once read from) rather than held in memory: the blobs of a
/// whole-store commit are as large as the store.
final class GitInputFile {
  private let fileSystem: any FileSystem
  private let directory: Int32
  private let name: String
  private var writer: Int32?
  private var buffer: [UInt8] = []
  private var isLinked = true
  /// How many bytes were written in all.
  private(set) var count = 0

  /// An empty input file.
  /// - Throws: the system call that failed.
  init(fileSystem: any FileSystem) throws(SystemCallError) {
    self.fileSystem = fileSystem
    directory = try fileSystem.open(
      SystemGitRunner.temporaryFolder(), flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    var attempt = 0
    while true {
      let candidate = ".docsh-git-input." + AtomicFile.randomSuffix()
      do {
        writer = try fileSystem.open(
          at: directory, candidate, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
          mode: 0o600)
        name = candidate
        break
      } catch {
        attempt += 1
        if error.code != EEXIST || attempt >= 10 {
          try? fileSystem.close(directory)
          throw error
        }
      }
    }
  }

  deinit {
    if let writer { try? fileSystem.close(writer) }
    if isLinked { try? fileSystem.unlink(at: directory, name) }
    try? fileSystem.close(directory)
  }

  /// Adds `bytes` at the end.
  /// - Throws: the system call that failed.
  func append(_ bytes: [UInt8]) throws(SystemCallError) {
    buffer += bytes
    count += bytes.count
    if buffer.count >= 1 << 20 { try flush() }
  }

  /// A descriptor reading everything written, from its start; the file is unlinked (its
  /// bytes go when the descriptor closes, which the caller does).
  /// - Throws: the system call that failed.
  func finish() throws(SystemCallError) -> Int32 {
    try flush()
    let reader = try fileSystem.open(
      at: directory, name, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
    try? fileSystem.unlink(at: directory, name)  // a name left behind is in TMPDIR, unread
    isLinked = false
    if let writer {
      self.writer = nil
      try? fileSystem.close(writer)  // written and flushed: closing loses nothing
    }
    return reader
  }

  private func flush() throws(SystemCallError) {
    guard !buffer.isEmpty, let writer else { return }
    try fileSystem.writeFully(writer, buffer)
    buffer.removeAll(keepingCapacity: true)
  }
}
