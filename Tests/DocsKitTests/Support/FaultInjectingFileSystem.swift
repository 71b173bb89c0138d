import Synchronization

@testable import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// The real file system, except that while armed it counts every call and fails the one a
/// rule picks with a chosen `errno`. It also watches descriptors: a close of one that is not
/// open (a double close, which in a threaded process can close someone else's file) is
/// recorded and not passed on.
final class FaultInjectingFileSystem: FileSystem {
  enum Rule: Sendable, CustomStringConvertible {
    /// The nth call (from 1) made while armed.
    case call(Int)
    /// The nth call (from 1) of one operation ("fsync", "open" …) made while armed.
    case operation(String, occurrence: Int)

    var description: String {
      switch self {
      case .call(let number): return "call \(number)"
      case .operation(let name, let occurrence): return "\(name) #\(occurrence)"
      }
    }
  }

  struct State {
    var rule: Rule?
    var code: Int32 = EIO
    var armed = false
    /// Every call made while armed: the operation and what it was about.
    var calls: [String] = []
    var counts: [String: Int] = [:]
    /// The call that was failed, if the rule was reached.
    var injected: String?
    /// The bytes the reads made while armed returned.
    var bytesRead = 0
    var openDescriptors: Set<Int32> = []
    var badCloses: [Int32] = []
    /// Whether each lock taken gets a duplicate descriptor, kept open as a child spawned
    /// by another thread keeps its copy between its fork and its exec.
    var copiesLockedDescriptors = false
    var copies: [Int32] = []
  }

  /// The operation names `SystemFileSystem` reports, for the calls logged under another.
  static let realName = [
    "openat": "open", "pread": "read", "copy": "write", "fchmod": "chmod", "fstat": "stat",
    "fstatat": "stat", "flock": "lock", "pwrite": "write", "ftruncate": "truncate",
  ]

  let state = Mutex(State())
  private let real = SystemFileSystem()

  /// Starts counting; the call `rule` picks fails with `code`.
  func arm(_ rule: Rule?, code: Int32 = EIO) {
    state.withLock {
      $0.rule = rule
      $0.code = code
      $0.armed = true
      $0.calls = []
      $0.counts = [:]
      $0.injected = nil
      $0.bytesRead = 0
    }
  }

  /// Stops counting and failing.
  func disarm() {
    state.withLock { $0.armed = false }
  }

  var calls: [String] { state.withLock { $0.calls } }
  var injected: String? { state.withLock { $0.injected } }
  var bytesRead: Int { state.withLock { $0.bytesRead } }

  /// Counts `count` bytes read, while armed.
  private func counted(_ count: Int) -> Int {
    state.withLock { if $0.armed { $0.bytesRead += count } }
    return count
  }
  var openDescriptors: Set<Int32> { state.withLock { $0.openDescriptors } }
  var badCloses: [Int32] { state.withLock { $0.badCloses } }

  /// From now on, keeps a duplicate of every descriptor a lock is taken on (see
  /// ``State/copiesLockedDescriptors``), until ``closeCopies()``.
  func copyLockedDescriptors() {
    state.withLock { $0.copiesLockedDescriptors = true }
  }

  /// Closes the duplicates kept so far.
  func closeCopies() {
    for copy in state.withLock({ state in
      defer { state.copies = [] }
      return state.copies
    }) {
      Glibc.close(copy)
    }
  }

  private func locked(_ file: Int32, _ taken: Bool) -> Bool {
    guard taken else { return false }
    state.withLock { state in
      if state.copiesLockedDescriptors { state.copies.append(dup(file)) }
    }
    return true
  }

  deinit { closeCopies() }

  /// Counts the call and throws if the rule picks it.
  private func check(_ operation: String, _ detail: String = "") throws(SystemCallError) {
    let failure: Int32? = state.withLock { state in
      guard state.armed else { return nil }
      state.calls.append(detail.isEmpty ? operation : "\(operation) \(detail)")
      state.counts[operation, default: 0] += 1
      let hit: Bool
      switch state.rule {
      case .call(let number)?: hit = state.calls.count == number
      case .operation(let name, let occurrence)?:
        hit = name == operation && state.counts[operation] == occurrence
      case nil: hit = false
      }
      guard hit else { return nil }
      state.injected = state.calls.last
      return state.code
    }
    if let failure {
      throw SystemCallError(
        FaultInjectingFileSystem.realName[operation] ?? operation, code: failure)
    }
  }

  private func opened(_ file: Int32) -> Int32 {
    state.withLock { _ = $0.openDescriptors.insert(file) }
    return file
  }

  // MARK: - FileSystem

  func open(_ path: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32 {
    try check("open", path.split(separator: "/").last.map(String.init) ?? path)
    return opened(try real.open(path, flags: flags, mode: mode))
  }

  func open(at directory: Int32, _ name: String, flags: Int32, mode: UInt32) throws(SystemCallError)
    -> Int32
  {
    try check("openat", name)
    return opened(try real.open(at: directory, name, flags: flags, mode: mode))
  }

  func read(_ file: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError)
    -> Int
  {
    try check("read")
    return counted(try real.read(file, into: buffer))
  }

  func read(_ file: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int)
    throws(SystemCallError) -> Int
  {
    try check("pread")
    return counted(try real.read(file, into: buffer, at: offset))
  }

  func write(_ file: Int32, from buffer: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
    try check("write")
    return try real.write(file, from: buffer)
  }

  func write(
    _ file: Int32, from buffer: UnsafeRawBufferPointer, at offset: Int
  ) throws(SystemCallError) -> Int {
    try check("pwrite")
    return try real.write(file, from: buffer, at: offset)
  }

  func truncate(_ file: Int32, to length: Int) throws(SystemCallError) {
    try check("ftruncate")
    try real.truncate(file, to: length)
  }

  func copy(from source: Int32, at offset: Int, to destination: Int32, count: Int)
    throws(SystemCallError) -> Int
  {
    try check("copy")
    return try real.copy(from: source, at: offset, to: destination, count: count)
  }

  func synchronize(_ file: Int32) throws(SystemCallError) {
    try check("fsync")
    try real.synchronize(file)
  }

  func setPermissions(_ file: Int32, _ mode: UInt32) throws(SystemCallError) {
    try check("fchmod")
    try real.setPermissions(file, mode)
  }

  func status(of file: Int32) throws(SystemCallError) -> FileStatus {
    try check("fstat")
    return try real.status(of: file)
  }

  func status(at directory: Int32, _ name: String) throws(SystemCallError) -> FileStatus? {
    try check("fstatat", name)
    return try real.status(at: directory, name)
  }

  func rename(at directory: Int32, _ source: String, to destination: String) throws(SystemCallError)
  {
    try check("rename", "\(source) → \(destination)")
    try real.rename(at: directory, source, to: destination)
  }

  func link(at directory: Int32, _ source: String, to destination: String) throws(SystemCallError) {
    try check("link", "\(source) → \(destination)")
    try real.link(at: directory, source, to: destination)
  }

  func unlink(at directory: Int32, _ name: String) throws(SystemCallError) {
    try check("unlink", name)
    try real.unlink(at: directory, name)
  }

  func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError) {
    try check("mkdir", path)
    try real.makeDirectory(path, mode: mode)
  }

  func lockExclusively(_ file: Int32) throws(SystemCallError) -> Bool {
    try check("flock")
    return locked(file, try real.lockExclusively(file))
  }

  func lockShared(_ file: Int32) throws(SystemCallError) -> Bool {
    try check("flock")
    return locked(file, try real.lockShared(file))
  }

  func unlock(_ file: Int32) throws(SystemCallError) {
    try check("unlock")
    try real.unlock(file)
  }

  func linkTarget(of path: String) throws(SystemCallError) -> String? {
    try check("readlink", path.split(separator: "/").last.map(String.init) ?? path)
    return try real.linkTarget(of: path)
  }

  func close(_ file: Int32) throws(SystemCallError) {
    let known = state.withLock { $0.openDescriptors.remove(file) != nil }
    guard known else {
      state.withLock { $0.badCloses.append(file) }
      throw SystemCallError("close", code: EBADF)
    }
    // As on Linux, a failed close still releases the descriptor.
    do {
      try check("close")
    } catch {
      try? real.close(file)
      throw error
    }
    try real.close(file)
  }

  func names(in directory: Int32) throws(SystemCallError) -> [String] {
    try check("readdir")
    return try real.names(in: directory)
  }

  func realPath(_ path: String) throws(SystemCallError) -> String {
    try check("realpath", path.split(separator: "/").last.map(String.init) ?? path)
    return try real.realPath(path)
  }
}
