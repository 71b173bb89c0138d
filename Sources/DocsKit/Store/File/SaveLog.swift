#if canImport(Glibc)
  import Glibc
#endif

// The save log (`NAME.wal`): the write-ahead log of saves beside the store file. A save
// appends what it changed as one record and syncs it; the store file is written whole only
// when the log is folded into it (a checkpoint). Not to be confused with the recovery
// journal (`NAME.unsaved-PID`), which keeps a session's *unsaved* changes.
// docs/store-format.md, "The save log", describes the format.

/// The name of one version of the store file written whole: 128 random bits, as 32
/// lower-case hexadecimal digits. A save log names the epoch it extends, so that it is never
/// applied to another file (a backup put back, a copy, another machine's version).
public struct StoreEpoch: Hashable, Sendable, CustomStringConvertible {
  /// The 32 digits.
  public let text: String

  /// The epoch spelled `text`; `nil` unless it is 32 hexadecimal digits (lower case).
  init?(_ text: some StringProtocol) {
    guard text.utf8.count == 32,
      text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
    else { return nil }
    self.text = String(text)
  }

  /// A new epoch, from the system's random source.
  static func random() -> StoreEpoch {
    var generator = SystemRandomNumberGenerator()
    let digits = [generator.next(), generator.next()].map { (value: UInt64) -> String in
      let hex = String(value, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }
    return StoreEpoch(unchecked: digits.joined())
  }

  private init(unchecked text: String) {
    self.text = text
  }

  public var description: String { text }
}

/// One whole record of a save log: where its frame lies, and what its header says.
struct SaveLogFrame: Equatable, Sendable {
  /// The offset of its header line.
  var start: Int
  /// The offset of its body, just past the header line.
  var bodyStart: Int
  /// The body's length in bytes, without the newline that ends it.
  var bodyLength: Int
  /// The CRC-32C of the body.
  var checksum: UInt32
  /// The generation the record's save produced.
  var generation: Int

  /// The offset just past the record (its body's newline).
  var end: Int { bodyStart + bodyLength + 1 }
}

/// The save log's file: its header, its records' frames, appending one.
final class SaveLog {
  /// The `format` of a save log's header.
  static let format = "docsh-save-log"
  /// The newest version of the log this docsh reads and the one it writes.
  static let version = 1

  /// The smallest log a save folds into the store file by itself.
  static let foldFloor = 8 << 20

  /// How large the log may grow beside a store file of `storeSize` bytes before a save
  /// folds it (when no other session has the store open): a quarter of the file, and never
  /// less than 8 MiB (as Redis rewrites its append-only file past a percentage of its size,
  /// with a floor). Each fold costs one whole write of the file, so a save costs what it
  /// changed plus, spread over the saves since the last fold, a quarter of that again.
  static func foldsPast(storeSize: Int) -> Int { max(foldFloor, storeSize / 4) }

  /// The log's file name beside the store file `storeName`.
  static func fileName(forStore storeName: String) -> String { storeName + ".wal" }

  /// What the first line of the file says: the store file it extends.
  struct Header: Equatable, Sendable {
    /// The epoch of the store file the log extends.
    var epoch: StoreEpoch
    /// That file's generation: the first record's is one more.
    var generation: Int

    /// The line, newline included.
    var line: [UInt8] {
      Array(
        "{\"format\":\"\(SaveLog.format)\",\"version\":\(SaveLog.version),\"epoch\":\"\(epoch.text)\",\"generation\":\(generation)}\n"
          .utf8)
    }
  }

  /// What the first line of a log file turned out to be.
  enum HeaderState: Equatable {
    /// A header of this version.
    case valid(Header)
    /// A log of a newer docsh, of this version.
    case newer(version: Int)
    /// No whole header: the file was being created when its writer stopped (no record can
    /// follow a header that never reached the disk), or it is not a save log at all.
    case unreadable
  }

  let fileSystem: any FileSystem
  /// The open log file.
  let descriptor: Int32
  /// Its first line.
  let header: HeaderState
  /// Where the first record starts.
  let headerLength: Int
  /// Its `fstat` when opened.
  let status: FileStatus

  private init(
    descriptor: Int32, header: HeaderState, headerLength: Int, status: FileStatus,
    fileSystem: any FileSystem
  ) {
    self.descriptor = descriptor
    self.header = header
    self.headerLength = headerLength
    self.status = status
    self.fileSystem = fileSystem
  }

  deinit {
    // A descriptor opened for reading and appending: everything written was synced already.
    try? fileSystem.close(descriptor)
  }

  /// The log named `name` in the folder `directory`, opened for reading and appending (for
  /// reading alone where it cannot be written: a save then fails on it); `nil` when there is
  /// none.
  /// - Throws: ``SystemCallError`` when it cannot be opened or read.
  static func open(
    at directory: Int32, _ name: String, fileSystem: any FileSystem
  ) throws(SystemCallError) -> SaveLog? {
    let descriptor: Int32
    do {
      descriptor = try fileSystem.open(
        at: directory, name, flags: O_RDWR | O_NOFOLLOW | O_CLOEXEC, mode: 0)
    } catch {
      if error.code == ENOENT { return nil }
      guard [EACCES, EPERM, EROFS].contains(error.code) else { throw error }
      do {
        descriptor = try fileSystem.open(
          at: directory, name, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
      } catch {
        if error.code == ENOENT { return nil }
        throw error
      }
    }
    do {
      let status = try fileSystem.status(of: descriptor)
      let (header, length) = try readHeader(of: descriptor, fileSystem: fileSystem)
      return SaveLog(
        descriptor: descriptor, header: header, headerLength: length, status: status,
        fileSystem: fileSystem)
    } catch {
      try? fileSystem.close(descriptor)  // failing already: the read's error is the one to report
      throw error
    }
  }

  /// Creates the log `name` in `directory` extending `header`, with `mode`, synced with its
  /// folder: from its return on, records appended to it survive a crash.
  /// - Throws: ``SystemCallError``; the file is then removed again.
  static func create(
    at directory: Int32, _ name: String, header: Header, mode: UInt32, fileSystem: any FileSystem
  ) throws(SystemCallError) -> SaveLog {
    let descriptor = try fileSystem.open(
      at: directory, name, flags: O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: mode)
    do {
      try fileSystem.setPermissions(descriptor, mode)
      let line = header.line
      try fileSystem.writeFully(descriptor, line, at: 0)
      try fileSystem.synchronize(descriptor)
      try fileSystem.synchronize(directory)
      let status = try fileSystem.status(of: descriptor)
      return SaveLog(
        descriptor: descriptor, header: .valid(header), headerLength: line.count, status: status,
        fileSystem: fileSystem)
    } catch {
      // Failing already: a log left half made has no header and is replaced next time.
      try? fileSystem.close(descriptor)
      try? fileSystem.unlink(at: directory, name)
      throw error
    }
  }

  /// The longest header line docsh reads.
  private static let headerLimit = 512

  private static func readHeader(
    of descriptor: Int32, fileSystem: any FileSystem
  ) throws(SystemCallError) -> (HeaderState, Int) {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: headerLimit, alignment: 1)
    defer { bytes.deallocate() }
    let count = try fileSystem.readFully(descriptor, into: bytes, at: 0)
    guard let newline = bytes[..<count].firstIndex(of: 0x0A) else { return (.unreadable, 0) }
    let line = String(decoding: bytes[..<newline], as: UTF8.self)
    return (parseHeader(line), newline + 1)
  }

  /// The header a line holds: exactly the line docsh writes, or a newer version's.
  static func parseHeader(_ line: String) -> HeaderState {
    let prefix = "{\"format\":\"\(format)\",\"version\":"
    guard line.hasPrefix(prefix) else { return .unreadable }
    let rest = line.dropFirst(prefix.count)
    let digits = rest.prefix { $0.isASCII && $0.isNumber }
    guard let version = Int(digits) else { return .unreadable }
    if version > SaveLog.version { return .newer(version: version) }
    guard version == SaveLog.version else { return .unreadable }
    let fields = rest.dropFirst(digits.count)
    let epochKey = ",\"epoch\":\""
    guard fields.hasPrefix(epochKey) else { return .unreadable }
    let afterKey = fields.dropFirst(epochKey.count)
    guard let epoch = StoreEpoch(afterKey.prefix(32)) else { return .unreadable }
    let generationKey = "\",\"generation\":"
    let afterEpoch = afterKey.dropFirst(32)
    guard afterEpoch.hasPrefix(generationKey), afterEpoch.hasSuffix("}") else { return .unreadable }
    let number = afterEpoch.dropFirst(generationKey.count).dropLast()
    guard !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }),
      number.count == 1 || number.first != "0", let generation = Int(number)
    else { return .unreadable }
    return .valid(Header(epoch: epoch, generation: generation))
  }

  // MARK: - Records

  /// Visits the whole records from `offset` on, in order, and stops at the first that is not
  /// whole: cut short by a crash, or damaged. Returns where the whole records end.
  /// - Throws: ``SystemCallError`` when the log cannot be read, or what `visit` throws.
  func scan(from offset: Int, _ visit: (SaveLogFrame) throws -> Void) throws -> Int {
    let size = try fileSystem.status(of: descriptor).size
    var at = max(offset, headerLength)
    while at < size, let frame = try frame(at: at, size: size) {
      try visit(frame)
      at = frame.end
    }
    return at
  }

  /// The whole record starting at `offset` of a file of `size` bytes; `nil` when there is
  /// none there.
  /// - Throws: ``SystemCallError`` when the log cannot be read.
  func frame(at offset: Int, size: Int) throws(SystemCallError) -> SaveLogFrame? {
    let headBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 128, alignment: 1)
    defer { headBytes.deallocate() }
    let count = try fileSystem.readFully(descriptor, into: headBytes, at: offset)
    guard let newline = headBytes[..<count].firstIndex(of: 0x0A),
      let head = SaveLog.parseFrameHead(UnsafeRawBufferPointer(rebasing: headBytes[..<newline]))
    else { return nil }
    let bodyStart = offset + newline + 1
    guard head.length >= 2, bodyStart + head.length + 1 <= size else { return nil }
    guard try checksum(from: bodyStart, length: head.length + 1) == head.checksumWithNewline
    else { return nil }
    return SaveLogFrame(
      start: offset, bodyStart: bodyStart, bodyLength: head.length, checksum: head.checksum,
      generation: head.generation)
  }

  /// The checksum of `length` bytes from `offset`, read a megabyte at a time; the body's
  /// newline is read with it and must be one.
  private func checksum(from offset: Int, length: Int) throws(SystemCallError) -> (UInt32, Bool) {
    let window = UnsafeMutableRawBufferPointer.allocate(
      byteCount: min(length, 1 << 20), alignment: 16)
    defer { window.deallocate() }
    var crc: UInt32 = 0
    var done = 0
    var last: UInt8 = 0
    while done < length {
      let wanted = min(window.count, length - done)
      let count = try fileSystem.readFully(
        descriptor, into: UnsafeMutableRawBufferPointer(rebasing: window[..<wanted]),
        at: offset + done)
      guard count == wanted else { return (0, false) }
      let isLast = done + count == length
      let counted = isLast ? count - 1 : count
      crc = CRC32C.update(crc, with: UnsafeRawBufferPointer(rebasing: window[..<counted]))
      if isLast { last = window[count - 1] }
      done += count
    }
    return (crc, last == 0x0A)
  }

  /// What a record's header line says.
  struct FrameHead: Equatable {
    var generation: Int
    var length: Int
    var checksum: UInt32

    /// What ``SaveLog/checksum(from:length:)`` gives for a whole record's body and newline.
    var checksumWithNewline: (UInt32, Bool) { (checksum, true) }

    /// The line docsh writes, newline included.
    var line: [UInt8] {
      let hex = String(checksum, radix: 16)
      let digits = String(repeating: "0", count: 8 - hex.count) + hex
      return Array(
        "{\"record\":\(generation),\"length\":\(length),\"crc32c\":\"\(digits)\"}\n".utf8)
    }
  }

  /// Parses a record's header line (without its newline): exactly the line docsh writes.
  static func parseFrameHead(_ bytes: UnsafeRawBufferPointer) -> FrameHead? {
    var index = 0
    func literal(_ text: StaticString) -> Bool {
      let count = text.utf8CodeUnitCount
      guard index + count <= bytes.count,
        memcmp(bytes.baseAddress.unsafelyUnwrapped + index, text.utf8Start, count) == 0
      else { return false }
      index += count
      return true
    }
    func number() -> Int? {
      let start = index
      var value = 0
      while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
        let (product, overflow) = value.multipliedReportingOverflow(by: 10)
        guard !overflow, index - start < 18 else { return nil }
        value = product + Int(bytes[index] - 0x30)
        index += 1
      }
      guard index > start, index - start == 1 || bytes[start] != 0x30 else { return nil }
      return value
    }
    guard literal("{\"record\":"), let generation = number(), literal(",\"length\":"),
      let length = number(), literal(",\"crc32c\":\""), index + 8 <= bytes.count
    else { return nil }
    let hex = String(
      decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + 8)]), as: UTF8.self)
    guard hex.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
      let checksum = UInt32(hex, radix: 16)
    else { return nil }
    index += 8
    guard literal("\"}"), index == bytes.count else { return nil }
    return FrameHead(generation: generation, length: length, checksum: checksum)
  }

  /// Appends a record holding `body` (a JSON object on one line) at `offset` (where the
  /// whole records end), and syncs it: once this returns, the save survives a crash.
  /// - Throws: ``SystemCallError``; the log is then cut back to `offset`, as it was.
  func append(
    body: [UInt8], generation: Int, at offset: Int
  ) throws(SystemCallError) -> SaveLogFrame {
    let head = FrameHead(
      generation: generation, length: body.count, checksum: CRC32C.checksum(body))
    var record = head.line
    let bodyStart = offset + record.count
    record.reserveCapacity(record.count + body.count + 1)
    record.append(contentsOf: body)
    record.append(0x0A)
    do {
      try fileSystem.writeFully(descriptor, record, at: offset)
      try fileSystem.synchronize(descriptor)
    } catch {
      // What reached the file is a record cut short: readers stop before it whatever this
      // leaves, and the next save cuts it again before appending.
      try? fileSystem.truncate(descriptor, to: offset)
      throw error
    }
    return SaveLogFrame(
      start: offset, bodyStart: bodyStart, bodyLength: body.count, checksum: head.checksum,
      generation: generation)
  }

  /// Cuts the log to `length` (past its whole records: what a crash left of a record) and
  /// syncs it.
  /// - Throws: ``SystemCallError``.
  func truncate(to length: Int) throws(SystemCallError) {
    try fileSystem.truncate(descriptor, to: length)
    try fileSystem.synchronize(descriptor)
  }
}
