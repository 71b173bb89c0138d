#if canImport(Glibc)
  import Glibc
#endif

/// A failed system call: which one, and the `errno` it left.
public struct SystemCallError: Error, Sendable, Equatable {
  /// The call, as the user would recognise it ("write", "fsync").
  public var operation: String
  /// The `errno` value.
  public var code: Int32

  /// Makes an error for `operation` failing with `code`.
  public init(_ operation: String, code: Int32) {
    self.operation = operation
    self.code = code
  }
}

/// What the store needs to know of a file: its identity, size, change time and mode.
public struct FileStatus: Hashable, Sendable {
  /// The device and inode: which file this is.
  public var device: UInt64
  /// The inode number.
  public var inode: UInt64
  /// The size in bytes.
  public var size: Int
  /// The last modification time in nanoseconds since the epoch.
  public var modificationNanoseconds: Int64
  /// The last status change time (`st_ctim`) in nanoseconds: no tool can set it, so an
  /// in-place rewrite that restores size and modification time still moves it.
  public var changeNanoseconds: Int64
  /// The permission bits and file type.
  public var mode: UInt32
  /// The user who owns it.
  public var owner: UInt32

  /// Whether the file is a directory.
  public var isDirectory: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }

  init(_ raw: stat) {
    device = UInt64(raw.st_dev)
    inode = UInt64(raw.st_ino)
    size = Int(raw.st_size)
    modificationNanoseconds = Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec)
    changeNanoseconds = Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec)
    mode = UInt32(raw.st_mode)
    owner = UInt32(raw.st_uid)
  }
}

/// Every file-system call the store makes, so tests can swap in one that fails on demand.
///
/// File descriptors are plain `Int32`s. Each method makes exactly one system call (retrying
/// only on `EINTR`) and throws the `errno` it left.
public protocol FileSystem: Sendable {
  /// `open(2)`.
  func open(_ path: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32
  /// `openat(2)` relative to the folder `directory`.
  func open(
    at directory: Int32, _ name: String, flags: Int32, mode: UInt32
  ) throws(SystemCallError) -> Int32
  /// `read(2)`: how many bytes were read, 0 at the end.
  func read(_ file: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError)
    -> Int
  /// `pread(2)` at `offset`.
  func read(
    _ file: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int
  ) throws(SystemCallError) -> Int
  /// `write(2)`: how many bytes were written.
  func write(_ file: Int32, from buffer: UnsafeRawBufferPointer) throws(SystemCallError) -> Int
  /// `pwrite(2)` at `offset`: how many bytes were written.
  func write(
    _ file: Int32, from buffer: UnsafeRawBufferPointer, at offset: Int
  ) throws(SystemCallError) -> Int
  /// `ftruncate(2)`: cuts `file` to `length` bytes.
  func truncate(_ file: Int32, to length: Int) throws(SystemCallError)
  /// Copies up to `count` bytes at `offset` of `source` to the end of `destination` inside
  /// the kernel (`sendfile(2)`); how many were copied.
  func copy(
    from source: Int32, at offset: Int, to destination: Int32, count: Int
  ) throws(SystemCallError) -> Int
  /// `fsync(2)`.
  func synchronize(_ file: Int32) throws(SystemCallError)
  /// `fchmod(2)`.
  func setPermissions(_ file: Int32, _ mode: UInt32) throws(SystemCallError)
  /// `fstat(2)`.
  func status(of file: Int32) throws(SystemCallError) -> FileStatus
  /// `fstatat(2)` following links; `nil` when there is no such file.
  func status(at directory: Int32, _ name: String) throws(SystemCallError) -> FileStatus?
  /// `renameat(2)` within one folder.
  func rename(at directory: Int32, _ source: String, to destination: String) throws(SystemCallError)
  /// `linkat(2)` within one folder.
  func link(at directory: Int32, _ source: String, to destination: String) throws(SystemCallError)
  /// `unlinkat(2)`.
  func unlink(at directory: Int32, _ name: String) throws(SystemCallError)
  /// `mkdir(2)`; an existing folder is not an error.
  func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError)
  /// `flock(2)` exclusive and non-blocking: `false` when another process holds the lock.
  func lockExclusively(_ file: Int32) throws(SystemCallError) -> Bool
  /// `flock(2)` shared and non-blocking: `false` when another process holds it exclusively.
  func lockShared(_ file: Int32) throws(SystemCallError) -> Bool
  /// `flock(2)` `LOCK_UN`: lets go of the lock `file`'s open file description holds, even
  /// while a copy of the descriptor lives on in a child forked and not yet exec'd.
  func unlock(_ file: Int32) throws(SystemCallError)
  /// `close(2)`.
  func close(_ file: Int32) throws(SystemCallError)
  /// `readlink(2)`: what the symbolic link at `path` holds; `nil` when `path` is no link
  /// (`EINVAL`) or nothing (`ENOENT`, `ENOTDIR`).
  func linkTarget(of path: String) throws(SystemCallError) -> String?
  /// The names in the folder `directory` (`readdir(3)` of a duplicate descriptor), without
  /// `.` and `..`, in no particular order.
  func names(in directory: Int32) throws(SystemCallError) -> [String]
  /// `realpath(3)`: the absolute path of `path` with every link and `..` resolved.
  func realPath(_ path: String) throws(SystemCallError) -> String
}

extension FileSystem {
  /// Lets go of the lock on `file`, then closes it. Closing alone releases a `flock` only
  /// once no descriptor refers to the open file description, and a process spawned by
  /// another thread holds a copy from its fork until its exec: the lock would outlive the
  /// close by that long, and a waiter with no retries (another session, a test) would
  /// find it taken.
  public func unlockAndClose(_ file: Int32) {
    try? unlock(file)
    try? close(file)
  }

  /// Makes `folder` and each of its missing parents with `mode`, as `mkdir -p` does;
  /// folders that exist are left as they are.
  /// - Throws: the first failing `mkdir(2)`.
  public func makeDirectories(_ folder: String, mode: UInt32) throws(SystemCallError) {
    var prefix = folder.hasPrefix("/") ? "" : "."
    for component in folder.split(separator: "/") {
      prefix += "/" + component
      try makeDirectory(prefix, mode: mode)
    }
  }

  /// Writes all of `bytes` to `file`, call after call (short writes, EINTR).
  /// - Throws: the first failing `write(2)`; `EPIPE` when the reader of a pipe is gone (with
  ///   SIGPIPE ignored), `EIO` when a write takes nothing.
  public func writeFully(_ file: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
    var done = 0
    while done < bytes.count {
      let count = try write(file, from: UnsafeRawBufferPointer(rebasing: bytes[done...]))
      guard count > 0 else { throw SystemCallError("write", code: EIO) }
      done += count
    }
  }

  /// Writes all of `bytes` to `file` at `offset`, call after call (short writes, EINTR).
  /// - Throws: the first failing `pwrite(2)`; `EIO` when a write takes nothing.
  public func writeFully(
    _ file: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int
  ) throws(SystemCallError) {
    var done = 0
    while done < bytes.count {
      let count = try write(
        file, from: UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + done)
      guard count > 0 else { throw SystemCallError("write", code: EIO) }
      done += count
    }
  }

  /// Writes all of `bytes` to `file` at `offset`; as the buffer form does.
  public func writeFully(_ file: Int32, _ bytes: [UInt8], at offset: Int) throws(SystemCallError) {
    let written = bytes.withUnsafeBytes { buffer in
      Result { () throws(SystemCallError) in try writeFully(file, buffer, at: offset) }
    }
    try written.get()
  }

  /// Writes all of `bytes` to `file`; as the buffer form does.
  public func writeFully(_ file: Int32, _ bytes: [UInt8]) throws(SystemCallError) {
    let written = bytes.withUnsafeBytes { buffer in
      Result { () throws(SystemCallError) in try writeFully(file, buffer) }
    }
    try written.get()
  }

  /// Reads `file` from where it stands to its end (a pipe: until the writer closes it).
  /// - Throws: the first failing `read(2)`.
  public func readToEnd(_ file: Int32) throws(SystemCallError) -> [UInt8] {
    var bytes: [UInt8] = []
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    defer { chunk.deallocate() }
    while true {
      let count = try read(file, into: chunk)
      if count == 0 { return bytes }
      bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
    }
  }

  /// Reads into all of `buffer` from `offset` on, call after call; fewer bytes only at the
  /// end of the file. Returns how many were read.
  func readFully(
    _ file: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int
  ) throws(SystemCallError) -> Int {
    var done = 0
    while done < buffer.count {
      let count = try read(
        file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + done)
      if count == 0 { break }
      done += count
    }
    return done
  }
}

/// The real file system, through Glibc.
public struct SystemFileSystem: FileSystem {
  /// Makes the real file system.
  public init() {}

  public func open(_ path: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32 {
    try retrying("open") { Glibc.open(path, flags, mode_t(mode)) }
  }

  public func open(
    at directory: Int32, _ name: String, flags: Int32, mode: UInt32
  ) throws(SystemCallError) -> Int32 {
    try retrying("open") { Glibc.openat(directory, name, flags, mode_t(mode)) }
  }

  public func read(
    _ file: Int32, into buffer: UnsafeMutableRawBufferPointer
  ) throws(SystemCallError) -> Int {
    try retrying("read") { Glibc.read(file, buffer.baseAddress, buffer.count) }
  }

  public func read(
    _ file: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int
  ) throws(SystemCallError) -> Int {
    try retrying("read") { Glibc.pread(file, buffer.baseAddress, buffer.count, off_t(offset)) }
  }

  public func write(
    _ file: Int32, from buffer: UnsafeRawBufferPointer
  ) throws(SystemCallError) -> Int {
    try retrying("write") { Glibc.write(file, buffer.baseAddress, buffer.count) }
  }

  public func write(
    _ file: Int32, from buffer: UnsafeRawBufferPointer, at offset: Int
  ) throws(SystemCallError) -> Int {
    try retrying("write") { Glibc.pwrite(file, buffer.baseAddress, buffer.count, off_t(offset)) }
  }

  public func truncate(_ file: Int32, to length: Int) throws(SystemCallError) {
    _ = try retrying("truncate") { Glibc.ftruncate(file, off_t(length)) }
  }

  public func copy(
    from source: Int32, at offset: Int, to destination: Int32, count: Int
  ) throws(SystemCallError) -> Int {
    var position = off_t(offset)
    // copy_file_range(2) costs about two thirds of sendfile's system time here (ext4, page
    // cache to page cache) and shares blocks where the file system can (btrfs, XFS). Where
    // it cannot copy between these files at all, sendfile does.
    if let copyFileRange = SystemFileSystem.copyFileRange {
      while true {
        let copied = copyFileRange(source, &position, destination, nil, count, 0)
        if copied >= 0 { return copied }
        if errno == EINTR { continue }
        guard SystemFileSystem.copyFileRangeCannot.contains(errno) else {
          throw SystemCallError("write", code: errno)
        }
        break
      }
      position = off_t(offset)
    }
    return try retrying("write") { Glibc.sendfile(destination, source, &position, count) }
  }

  private typealias CopyFileRange =
    @convention(c) (
      Int32, UnsafeMutablePointer<off_t>?, Int32, UnsafeMutablePointer<off_t>?, Int, UInt32
    ) -> Int

  /// glibc's copy_file_range(2), looked up because the Glibc module leaves out what needs
  /// `_GNU_SOURCE`; `nil` in a C library without it.
  private static let copyFileRange: CopyFileRange? = {
    // RTLD_DEFAULT: the symbol as the program's own libraries define it.
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "copy_file_range") else {
      return nil
    }
    return unsafeBitCast(symbol, to: CopyFileRange.self)
  }()

  /// What copy_file_range(2) says when it cannot copy between two files that sendfile(2)
  /// can: no such call, different file systems (before Linux 5.3 and again since 5.19),
  /// a file system or file kind that does not take part.
  private static let copyFileRangeCannot: Set<Int32> = [ENOSYS, EXDEV, EINVAL, EOPNOTSUPP]

  public func synchronize(_ file: Int32) throws(SystemCallError) {
    // Never retried: after a failed fsync the kernel may have dropped the dirty pages.
    if Glibc.fsync(file) != 0 { throw SystemCallError("fsync", code: errno) }
  }

  public func setPermissions(_ file: Int32, _ mode: UInt32) throws(SystemCallError) {
    _ = try retrying("chmod") { Glibc.fchmod(file, mode_t(mode)) }
  }

  public func status(of file: Int32) throws(SystemCallError) -> FileStatus {
    var raw = stat()
    _ = try retrying("stat") { Glibc.fstat(file, &raw) }
    return FileStatus(raw)
  }

  public func status(at directory: Int32, _ name: String) throws(SystemCallError) -> FileStatus? {
    var raw = stat()
    if Glibc.fstatat(directory, name, &raw, 0) != 0 {
      if errno == ENOENT { return nil }
      throw SystemCallError("stat", code: errno)
    }
    return FileStatus(raw)
  }

  public func rename(
    at directory: Int32, _ source: String, to destination: String
  ) throws(SystemCallError) {
    _ = try retrying("rename") { Glibc.renameat(directory, source, directory, destination) }
  }

  public func link(
    at directory: Int32, _ source: String, to destination: String
  ) throws(SystemCallError) {
    _ = try retrying("link") { Glibc.linkat(directory, source, directory, destination, 0) }
  }

  public func unlink(at directory: Int32, _ name: String) throws(SystemCallError) {
    _ = try retrying("unlink") { Glibc.unlinkat(directory, name, 0) }
  }

  public func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError) {
    if Glibc.mkdir(path, mode_t(mode)) != 0 && errno != EEXIST {
      throw SystemCallError("mkdir", code: errno)
    }
  }

  public func lockExclusively(_ file: Int32) throws(SystemCallError) -> Bool {
    while flock(file, LOCK_EX | LOCK_NB) != 0 {
      if errno == EINTR { continue }
      if errno == EWOULDBLOCK { return false }
      throw SystemCallError("lock", code: errno)
    }
    return true
  }

  public func lockShared(_ file: Int32) throws(SystemCallError) -> Bool {
    while flock(file, LOCK_SH | LOCK_NB) != 0 {
      if errno == EINTR { continue }
      if errno == EWOULDBLOCK { return false }
      throw SystemCallError("lock", code: errno)
    }
    return true
  }

  public func unlock(_ file: Int32) throws(SystemCallError) {
    while flock(file, LOCK_UN) != 0 {
      if errno == EINTR { continue }
      throw SystemCallError("unlock", code: errno)
    }
  }

  public func close(_ file: Int32) throws(SystemCallError) {
    // Not retried on EINTR: on Linux the descriptor is gone either way.
    if Glibc.close(file) != 0 { throw SystemCallError("close", code: errno) }
  }

  public func linkTarget(of path: String) throws(SystemCallError) -> String? {
    let capacity = Int(PATH_MAX) + 1
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    let count = Glibc.readlink(path, buffer, capacity)
    if count < 0 {
      if errno == EINVAL || errno == ENOENT || errno == ENOTDIR { return nil }
      throw SystemCallError("readlink", code: errno)
    }
    guard count < capacity else { throw SystemCallError("readlink", code: ENAMETOOLONG) }
    let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
    guard let target = String(validating: bytes, as: UTF8.self) else {
      throw SystemCallError("readlink", code: EILSEQ)
    }
    return target
  }

  public func names(in directory: Int32) throws(SystemCallError) -> [String] {
    // fdopendir takes the descriptor over: hand it a duplicate, so the caller's stays open.
    let duplicate = try retrying("open") { Glibc.fcntl(directory, F_DUPFD_CLOEXEC, 0) }
    guard let stream = Glibc.fdopendir(duplicate) else {
      let code = errno
      _ = Glibc.close(duplicate)
      throw SystemCallError("open", code: code)
    }
    defer { _ = Glibc.closedir(stream) }
    Glibc.rewinddir(stream)
    var names: [String] = []
    while true {
      errno = 0
      guard let entry = Glibc.readdir(stream) else {
        if errno != 0 { throw SystemCallError("read", code: errno) }
        return names
      }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
  }

  public func realPath(_ path: String) throws(SystemCallError) -> String {
    guard let resolved = Glibc.realpath(path, nil) else {
      throw SystemCallError("realpath", code: errno)
    }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private func retrying<Value: BinaryInteger>(
    _ operation: String, _ call: () -> Value
  ) throws(SystemCallError) -> Value {
    while true {
      let result = call()
      if result >= 0 { return result }
      if errno != EINTR { throw SystemCallError(operation, code: errno) }
    }
  }
}
