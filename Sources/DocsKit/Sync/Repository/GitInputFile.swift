#if canImport(Glibc)
  import Glibc
#endif

/// What a git process will read on its standard input, written as it is made into a file of
/// its own rather than held in memory: the blobs of a whole-store commit are as large as the
/// store. The file is unlinked as soon as it is made (in `TMPDIR`), one descriptor writing
/// it and another reading it from its start, so that a docsh killed half way leaves nothing
/// behind.
final class GitInputFile {
  private let fileSystem: any FileSystem
  private var writer: Int32?
  private var reader: Int32?
  private var buffer: [UInt8] = []

  /// An empty input file.
  /// - Throws: the system call that failed.
  init(fileSystem: any FileSystem) throws(SystemCallError) {
    self.fileSystem = fileSystem
    let directory = try fileSystem.open(
      SystemGitRunner.temporaryFolder(), flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    defer { try? fileSystem.close(directory) }
    let (name, writer) = try AtomicFile.createUniqueFile(
      prefix: ".docsh-git-input.", in: directory, access: O_WRONLY, fileSystem: fileSystem)
    self.writer = writer
    // Gone from the folder at once, whatever happens next; the descriptors keep it.
    defer { try? fileSystem.unlink(at: directory, name) }
    reader = try fileSystem.open(
      at: directory, name, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
  }

  deinit {
    if let writer { try? fileSystem.close(writer) }
    if let reader { try? fileSystem.close(reader) }
  }

  /// Adds `bytes` at the end.
  /// - Throws: the system call that failed.
  func append(_ bytes: [UInt8]) throws(SystemCallError) {
    if bytes.count >= GitInputFile.bufferSize, let writer {
      // Already as large as the buffer: written as it is, not copied into it first.
      try flush()
      try fileSystem.writeFully(writer, bytes)
      return
    }
    buffer += bytes
    if buffer.count >= GitInputFile.bufferSize { try flush() }
  }

  /// How many bytes wait in memory before they are written.
  private static let bufferSize = 1 << 20

  /// A descriptor reading everything written, from its start, which the caller closes (the
  /// bytes go with it); nothing can be added after.
  /// - Throws: the system call that failed.
  func finish() throws(SystemCallError) -> Int32 {
    try flush()
    if let writer {
      self.writer = nil
      try fileSystem.close(writer)
    }
    guard let reader else { throw SystemCallError("read", code: EBADF) }
    self.reader = nil
    return reader
  }

  private func flush() throws(SystemCallError) {
    guard !buffer.isEmpty, let writer else { return }
    try fileSystem.writeFully(writer, buffer)
    buffer.removeAll(keepingCapacity: true)
  }
}
