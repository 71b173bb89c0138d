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
    let digits = [generator.next(), generator.next()].map { (value: UInt64) in value.hexDigits }
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
  /// The newest version of the log this docsh reads and the one it writes. Version 2 adds
  /// the store file's identity to the header; version 1 logs are still read.
  static let version = 2

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
    /// That file's identity when the log began (`nil` in a version 1 log).
    var file: FileIdentity?

    /// The line, newline included.
    var line: [UInt8] {
      let identity = file.map { ",\"file\":\"\($0.text)\"" } ?? ""
      return Array(
        "{\"format\":\"\(SaveLog.format)\",\"version\":\(file == nil ? 1 : SaveLog.version),\"epoch\":\"\(epoch.text)\",\"generation\":\(generation)\(identity)}\n"
          .utf8)
    }
  }

  /// Which store file a log belongs to beyond its epoch, as git's index knows a file by its
  /// stat data: device, inode, size and modification time. A program that writes the file
  /// in place (`cp` of a backup over it, a sync tool), even byte for byte the same, gives it
  /// a new modification time; docsh never writes the file in place, so a log whose file no
  /// longer has this identity is another file's. The change time is left out, as git's
  /// `core.trustctime=false` leaves it out: docsh's own fold moves it (linking the file as
  /// `NAME.bak`), and so do `chmod` and backup tools, which change no byte.
  struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int
    var modificationNanoseconds: Int64

    init(_ status: FileStatus) {
      device = status.device
      inode = status.inode
      size = status.size
      modificationNanoseconds = status.modificationNanoseconds
    }

    init?(text: some StringProtocol) {
      let parts = text.split(separator: "-", omittingEmptySubsequences: false)
      guard parts.count == 4,
        parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
        let device = UInt64(parts[0]), let inode = UInt64(parts[1]), let size = Int(parts[2]),
        let change = Int64(parts[3])
      else { return nil }
      self.device = device
      self.inode = inode
      self.size = size
      self.modificationNanoseconds = change
    }

    /// `DEVICE-INODE-SIZE-MTIME_NS`, in decimal.
    var text: String { "\(device)-\(inode)-\(size)-\(modificationNanoseconds)" }

    /// Whether `status` is this file, unchanged since.
    func matches(_ status: FileStatus) -> Bool { self == FileIdentity(status) }
  }

  /// What the first line of a log file turned out to be.
  enum HeaderState: Equatable {
    /// A header of this version.
    case valid(Header)
    /// A log of a newer docsh, of this version.
    case newer(version: Int)
    /// No whole header, and what is there is what a crash can leave of one: nothing, zeros
    /// (a block allocated but never written), or the start of a header. A log being created
    /// writes its header and its first record together, so no record can follow: the log
    /// holds nothing.
    case empty
    /// Not a save log docsh can read.
    case unreadable
  }

  let fileSystem: any FileSystem
  /// The open log file.
  let descriptor: Int32
  /// Its first line.
  private(set) var header: HeaderState
  /// Where the first record starts.
  private(set) var headerLength: Int
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

  /// Creates the log `name` in `directory` extending `header`, with `mode`, holding the
  /// record `body` of `generation`, synced with its folder: the save survives a crash once
  /// this returns.
  /// - Throws: ``SystemCallError``; the file is then removed again.
  static func create(
    at directory: Int32, _ name: String, header: Header, mode: UInt32,
    firstRecord body: [UInt8], generation: Int, fileSystem: any FileSystem
  ) throws(SystemCallError) -> (SaveLog, SaveLogFrame) {
    let descriptor = try fileSystem.open(
      at: directory, name, flags: O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: mode)
    do {
      try fileSystem.setPermissions(descriptor, mode)
      let frame = try begin(
        descriptor, header: header, body: body, generation: generation,
        fileSystem: fileSystem)
      try fileSystem.synchronize(directory)
      let status = try fileSystem.status(of: descriptor)
      let log = SaveLog(
        descriptor: descriptor, header: .valid(header), headerLength: frame.start,
        status: status, fileSystem: fileSystem)
      return (log, frame)
    } catch {
      // Failing already: a log left half made holds no save and is replaced next time.
      try? fileSystem.close(descriptor)
      try? fileSystem.unlink(at: directory, name)
      throw error
    }
  }

  /// Starts this log, which holds no record (``HeaderState/empty``, or a log a fold left),
  /// anew: `header` and the record `body` of `generation` written together from its first
  /// byte, and one sync. The folder needs none: the file's name is there already.
  /// - Throws: ``SystemCallError``; the log then holds no record, as before.
  func restart(
    header: Header, body: [UInt8], generation: Int
  ) throws(SystemCallError) -> SaveLogFrame {
    let frame = try SaveLog.begin(
      descriptor, header: header, body: body, generation: generation, fileSystem: fileSystem)
    self.header = .valid(header)
    headerLength = frame.start
    return frame
  }

  /// Writes `header` and the record `body` of `generation` as the whole of `descriptor`'s
  /// file, in one write, and syncs it.
  private static func begin(
    _ descriptor: Int32, header: Header, body: [UInt8], generation: Int,
    fileSystem: any FileSystem
  ) throws(SystemCallError) -> SaveLogFrame {
    let line = header.line
    let head = FrameHead(
      generation: generation, length: body.count, checksum: CRC32C.checksum(body))
    var bytes = line + head.line
    let bodyStart = bytes.count
    bytes.reserveCapacity(bytes.count + body.count + 1)
    bytes.append(contentsOf: body)
    bytes.append(0x0A)
    do {
      try fileSystem.truncate(descriptor, to: 0)
      try fileSystem.writeFully(descriptor, bytes, at: 0)
      try fileSystem.synchronize(descriptor)
    } catch {
      // Whatever reached the file is a header cut short or a torn first record: no save.
      try? fileSystem.truncate(descriptor, to: 0)
      throw error
    }
    return SaveLogFrame(
      start: line.count, bodyStart: bodyStart, bodyLength: body.count, checksum: head.checksum,
      generation: generation)
  }

  /// The longest header line docsh reads.
  private static let headerLimit = 512

  private static func readHeader(
    of descriptor: Int32, fileSystem: any FileSystem
  ) throws(SystemCallError) -> (HeaderState, Int) {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: headerLimit, alignment: 1)
    defer { bytes.deallocate() }
    let count = try fileSystem.readFully(descriptor, into: bytes, at: 0)
    let status = try fileSystem.status(of: descriptor)
    guard let newline = bytes[..<count].firstIndex(of: 0x0A) else {
      let start = Array(bytes[..<count])
      let isRemains = status.size == count && (start.allSatisfy { $0 == 0 } || isHeaderStart(start))
      return (isRemains ? .empty : .unreadable, 0)
    }
    let line = String(decoding: bytes[..<newline], as: UTF8.self)
    return (parseHeader(line), newline + 1)
  }

  /// Whether `bytes` are the start of a header line this docsh writes (or a version 1 one),
  /// cut anywhere before its newline.
  static func isHeaderStart(_ bytes: [UInt8]) -> Bool {
    // `H` stands for a hexadecimal digit, `D` for one or more decimal digits, `F` for the
    // file identity's digits and dashes, `?` for what may end the line instead.
    let template = Array(
      "{\"format\":\"\(format)\",\"version\":D,\"epoch\":\"HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH\",\"generation\":D?,\"file\":\"F\"}"
        .utf8)
    var at = 0
    var index = 0
    func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    while index < bytes.count {
      guard at < template.count else { return false }
      let byte = bytes[index]
      switch template[at] {
      case UInt8(ascii: "H"):
        guard isDigit(byte) || (byte >= 0x61 && byte <= 0x66) else { return false }
        at += 1
        index += 1
      case UInt8(ascii: "D"), UInt8(ascii: "F"):
        let isFile = template[at] == UInt8(ascii: "F")
        guard isDigit(byte) || (isFile && byte == UInt8(ascii: "-")) else { return false }
        index += 1
        while index < bytes.count, isDigit(bytes[index]) || (isFile && bytes[index] == 0x2D) {
          index += 1
        }
        at += 1
      case UInt8(ascii: "?"):
        // A version 1 header ends here with `}`.
        if byte == UInt8(ascii: "}") { return index == bytes.count - 1 }
        at += 1
      default:
        guard byte == template[at] else { return false }
        at += 1
        index += 1
      }
    }
    return true
  }

  /// The header a line holds: exactly the line docsh writes (of this version or version 1),
  /// or a newer version's.
  static func parseHeader(_ line: String) -> HeaderState {
    let prefix = "{\"format\":\"\(format)\",\"version\":"
    guard line.hasPrefix(prefix) else { return .unreadable }
    let rest = line.dropFirst(prefix.count)
    let digits = rest.prefix { $0.isASCII && $0.isNumber }
    guard let version = Int(digits) else { return .unreadable }
    if version > SaveLog.version { return .newer(version: version) }
    guard version == 1 || version == 2 else { return .unreadable }
    let fields = rest.dropFirst(digits.count)
    let epochKey = ",\"epoch\":\""
    guard fields.hasPrefix(epochKey) else { return .unreadable }
    let afterKey = fields.dropFirst(epochKey.count)
    guard let epoch = StoreEpoch(afterKey.prefix(32)) else { return .unreadable }
    let generationKey = "\",\"generation\":"
    let afterEpoch = afterKey.dropFirst(32)
    guard afterEpoch.hasPrefix(generationKey), afterEpoch.hasSuffix("}") else { return .unreadable }
    var number = afterEpoch.dropFirst(generationKey.count).dropLast()
    var file: FileIdentity?
    if version == 2 {
      let fileKey = ",\"file\":\""
      guard let keyStart = number.firstRange(of: fileKey), number.hasSuffix("\"") else {
        return .unreadable
      }
      guard let identity = FileIdentity(text: number[keyStart.upperBound...].dropLast()) else {
        return .unreadable
      }
      file = identity
      number = number[..<keyStart.lowerBound]
    }
    guard !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }),
      number.count == 1 || number.first != "0", let generation = Int(number)
    else { return .unreadable }
    return .valid(Header(epoch: epoch, generation: generation, file: file))
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

  /// How many whole records follow one another from `offset` on, and where they end (at
  /// the first that is not whole).
  /// - Throws: ``SystemCallError`` when the log cannot be read.
  func wholeRun(from offset: Int) throws(SystemCallError) -> (count: Int, end: Int) {
    let size = try fileSystem.status(of: descriptor).size
    var run = (count: 0, end: offset)
    while run.end < size, let frame = try frame(at: run.end, size: size) {
      run = (run.count + 1, frame.end)
    }
    return run
  }

  /// How many whole records start after `offset` (each at the start of a line, found by its
  /// frame line and proven by its checksum), however damaged the bytes between them: what
  /// tells damage inside the log from a torn tail, which no whole record follows.
  /// - Throws: ``SystemCallError`` when the log cannot be read.
  func wholeRecords(after offset: Int) throws(SystemCallError) -> Int {
    try wholeFrames(after: offset).count
  }

  /// The whole records that start after `offset`, in order; see ``wholeRecords(after:)``.
  /// - Throws: ``SystemCallError`` when the log cannot be read.
  func wholeFrames(after offset: Int) throws(SystemCallError) -> [SaveLogFrame] {
    let size = try fileSystem.status(of: descriptor).size
    guard offset + 1 < size else { return [] }
    let count = size - offset - 1
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
    defer { bytes.deallocate() }
    let read = try fileSystem.readFully(descriptor, into: bytes, at: offset + 1)
    let marker = Array("{\"record\":".utf8)
    var found: [SaveLogFrame] = []
    var index = 0
    while index + marker.count <= read {
      let absolute = offset + 1 + index
      // The byte before `index` 0 is the damaged record's own first one, never a newline.
      if index > 0, bytes[index - 1] == 0x0A,
        marker.indices.allSatisfy({ bytes[index + $0] == marker[$0] }),
        let frame = try frame(at: absolute, size: size)
      {
        found.append(frame)
        index = frame.end - offset - 1
        continue
      }
      index += 1
    }
    return found
  }

  /// The whole record starting at `offset` of a file of `size` bytes; `nil` when there is
  /// none there.
  /// - Throws: ``SystemCallError`` when the log cannot be read.
  func frame(at offset: Int, size: Int) throws(SystemCallError) -> SaveLogFrame? {
    guard let frame = try unverifiedFrame(at: offset, size: size), try isWhole(frame) else {
      return nil
    }
    return frame
  }

  /// The record whose frame line starts at `offset` of a file of `size` bytes, as that line
  /// says (its body fits in the file), its checksum not verified yet; `nil` when there is no
  /// frame line there.
  /// - Throws: ``SystemCallError`` when the log cannot be read.
  func unverifiedFrame(at offset: Int, size: Int) throws(SystemCallError)
    -> SaveLogFrame?
  {
    let headBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 128, alignment: 1)
    defer { headBytes.deallocate() }
    let count = try fileSystem.readFully(descriptor, into: headBytes, at: offset)
    guard let newline = headBytes[..<count].firstIndex(of: 0x0A),
      let head = SaveLog.parseFrameHead(UnsafeRawBufferPointer(rebasing: headBytes[..<newline]))
    else { return nil }
    let bodyStart = offset + newline + 1
    guard head.length >= 2, bodyStart + head.length + 1 <= size else { return nil }
    return SaveLogFrame(
      start: offset, bodyStart: bodyStart, bodyLength: head.length, checksum: head.checksum,
      generation: head.generation)
  }

  /// Whether `frame`'s body (and the newline after it) has the checksum its line names.
  func isWhole(_ frame: SaveLogFrame) throws(SystemCallError) -> Bool {
    try checksum(from: frame.bodyStart, length: frame.bodyLength + 1) == (frame.checksum, true)
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
