#if canImport(Glibc)
  import Glibc
#endif

/// Reads lines from a file descriptor with its own buffered `read(2)` loop, for scripts and pipes.
///
/// Lines end at `\n` (a `\r` before it is dropped); the last line needs no terminator; a UTF-8
/// byte order mark before the first line is skipped. Lines that are not valid UTF-8, hold a NUL
/// byte, or exceed ``maximumLineLength`` come back as ``LineInput/invalid(reason:)``, and
/// reading goes on with the next line. No prompt is ever printed.
struct PlainLineReader: LineReader {
  /// The longest line accepted, in bytes without the terminator: 1 MiB of text plus room for
  /// the command around it.
  static let defaultMaximumLineLength = 1_048_576 + 65_536

  /// The descriptor lines are read from; it is not closed.
  let fileDescriptor: Int32
  /// The longest line accepted, in bytes without the terminator.
  let maximumLineLength: Int
  /// The number of lines read so far, including rejected ones.
  private(set) var lineNumber = 0

  private let readSize: Int
  private var buffer: [UInt8] = []
  /// Index of the first byte not yet returned.
  private var start = 0
  /// Bytes before this index (from `start`) hold no newline.
  private var scanned = 0
  private var reachedEnd = false
  private var readError: String?
  private var discardingLongLine = false

  /// Makes a reader of `fileDescriptor` (standard input by default); `readSize` is the most
  /// bytes asked of each `read(2)`.
  init(
    fileDescriptor: Int32 = 0, maximumLineLength: Int = defaultMaximumLineLength,
    readSize: Int = 65_536
  ) {
    self.fileDescriptor = fileDescriptor
    self.maximumLineLength = max(0, maximumLineLength)
    self.readSize = max(1, readSize)
  }

  /// Reads the next line; `prompt` is ignored.
  mutating func readLine(prompt: String) -> LineInput {
    while true {
      if let newline = findNewline() {
        let line = buffer[start..<newline]
        start = newline + 1
        scanned = start
        if discardingLongLine {
          discardingLongLine = false
          return tooLong()
        }
        return makeInput(line)
      }
      // No newline in what is buffered.
      if discardingLongLine || buffer.count - start > maximumLineLength + 1 {
        if !discardingLongLine {
          discardingLongLine = true
        }
        start = buffer.count
        scanned = start
      }
      if reachedEnd {
        if discardingLongLine {
          discardingLongLine = false
          return tooLong()
        }
        if let readError {
          self.readError = nil
          return .invalid(reason: readError)
        }
        guard start < buffer.count else { return .endOfInput }
        let line = buffer[start...]
        start = buffer.count
        scanned = start
        return makeInput(line)
      }
      fill()
    }
  }

  // MARK: - Reading

  private func findNewline() -> Int? {
    guard scanned < buffer.count else { return nil }
    return buffer.withUnsafeBufferPointer { bytes -> Int? in
      guard let base = bytes.baseAddress,
        let found = memchr(base + scanned, 0x0A, bytes.count - scanned)
      else { return nil }
      return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }
  }

  private mutating func fill() {
    scanned = buffer.count
    if start > 0 {
      buffer.removeFirst(start)
      scanned -= start
      start = 0
    }
    let oldCount = buffer.count
    buffer.append(contentsOf: repeatElement(0, count: readSize))
    var result = 0
    repeat {
      result = buffer.withUnsafeMutableBufferPointer { bytes in
        read(fileDescriptor, bytes.baseAddress.map { $0 + oldCount }, readSize)
      }
    } while result < 0 && errno == EINTR
    let code = errno
    buffer.removeLast(readSize - max(0, result))
    if result == 0 {
      reachedEnd = true
    } else if result < 0 {
      reachedEnd = true
      readError = "cannot read the input: " + String(cString: strerror(code))
    }
  }

  // MARK: - Checking lines

  private mutating func makeInput(_ raw: ArraySlice<UInt8>) -> LineInput {
    lineNumber += 1
    var line = raw
    if line.last == 0x0D { line.removeLast() }
    if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
    if line.count > maximumLineLength { return tooLong(counted: true) }
    if line.contains(0) { return .invalid(reason: "line \(lineNumber) contains a NUL byte") }
    guard let text = String(validating: line, as: UTF8.self) else {
      return .invalid(reason: "line \(lineNumber) is not valid UTF-8")
    }
    return .line(text)
  }

  private mutating func tooLong(counted: Bool = false) -> LineInput {
    if !counted { lineNumber += 1 }
    return .invalid(reason: "line \(lineNumber) is longer than \(maximumLineLength) bytes")
  }
}
