import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One file held in memory behind the ``FileSystem`` seam, so that the store's reader and
/// writer work on bytes that never were a file (a version read from git, a merged store
/// about to be written). It has one descriptor, ``descriptor``; reading starts at the start,
/// writing appends. Every other call fails with `ENOTSUP`.
final class InMemoryFile: FileSystem {
  /// The one descriptor this file system hands out.
  static let descriptor: Int32 = 3

  private struct State {
    var bytes: [UInt8]
    var position = 0
  }

  private let state: Mutex<State>

  /// A file holding `bytes`.
  init(_ bytes: [UInt8] = []) {
    state = Mutex(State(bytes: bytes))
  }

  /// What the file holds now.
  var bytes: [UInt8] { state.withLock { $0.bytes } }

  func open(_ path: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32 {
    InMemoryFile.descriptor
  }

  func open(
    at directory: Int32, _ name: String, flags: Int32, mode: UInt32
  ) throws(SystemCallError) -> Int32 {
    throw SystemCallError("open", code: ENOTSUP)
  }

  func read(
    _ file: Int32, into buffer: UnsafeMutableRawBufferPointer
  ) throws(SystemCallError) -> Int {
    state.withLock { state in
      let count = copy(state.bytes, from: state.position, into: buffer)
      state.position += count
      return count
    }
  }

  func read(
    _ file: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int
  ) throws(SystemCallError) -> Int {
    state.withLock { copy($0.bytes, from: offset, into: buffer) }
  }

  func write(_ file: Int32, from buffer: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
    state.withLock { $0.bytes.append(contentsOf: buffer) }
    return buffer.count
  }

  func write(
    _ file: Int32, from buffer: UnsafeRawBufferPointer, at offset: Int
  ) throws(SystemCallError) -> Int {
    throw SystemCallError("write", code: ENOTSUP)
  }

  func truncate(_ file: Int32, to length: Int) throws(SystemCallError) {
    throw SystemCallError("truncate", code: ENOTSUP)
  }

  func copy(
    from source: Int32, at offset: Int, to destination: Int32, count: Int
  ) throws(SystemCallError) -> Int {
    throw SystemCallError("write", code: ENOTSUP)
  }

  func synchronize(_ file: Int32) throws(SystemCallError) {}

  func setPermissions(_ file: Int32, _ mode: UInt32) throws(SystemCallError) {}

  func status(of file: Int32) throws(SystemCallError) -> FileStatus {
    var raw = stat()
    raw.st_mode = mode_t(S_IFREG | 0o600)
    raw.st_size = off_t(state.withLock { $0.bytes.count })
    return FileStatus(raw)
  }

  func status(at directory: Int32, _ name: String) throws(SystemCallError) -> FileStatus? {
    throw SystemCallError("stat", code: ENOTSUP)
  }

  func rename(
    at directory: Int32, _ source: String, to destination: String
  ) throws(SystemCallError) {
    throw SystemCallError("rename", code: ENOTSUP)
  }

  func link(
    at directory: Int32, _ source: String, to destination: String
  ) throws(SystemCallError) {
    throw SystemCallError("link", code: ENOTSUP)
  }

  func unlink(at directory: Int32, _ name: String) throws(SystemCallError) {
    throw SystemCallError("unlink", code: ENOTSUP)
  }

  func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError) {
    throw SystemCallError("mkdir", code: ENOTSUP)
  }

  func lockExclusively(_ file: Int32) throws(SystemCallError) -> Bool { true }

  func lockShared(_ file: Int32) throws(SystemCallError) -> Bool { true }

  func unlock(_ file: Int32) throws(SystemCallError) {}

  func close(_ file: Int32) throws(SystemCallError) {}

  func linkTarget(of path: String) throws(SystemCallError) -> String? { nil }

  func names(in directory: Int32) throws(SystemCallError) -> [String] {
    throw SystemCallError("read", code: ENOTSUP)
  }

  func realPath(_ path: String) throws(SystemCallError) -> String {
    throw SystemCallError("realpath", code: ENOTSUP)
  }

  private func copy(
    _ bytes: [UInt8], from offset: Int, into buffer: UnsafeMutableRawBufferPointer
  ) -> Int {
    guard offset < bytes.count else { return 0 }
    let count = min(buffer.count, bytes.count - offset)
    bytes.withUnsafeBytes { source in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
    }
    return count
  }
}
