import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Where text goes: a file descriptor (buffered, flushed after each command) or, in tests,
/// a string.
final class TextOutput {
  /// The descriptor written to; `nil` captures into ``captured``.
  let fileDescriptor: Int32?
  /// Whether the descriptor is a terminal.
  let isTerminal: Bool
  /// Everything written, when capturing.
  private(set) var captured = ""
  private var buffer: [UInt8] = []

  /// Whether every write goes out at once (standard error).
  private let isUnbuffered: Bool
  /// Output kept back by ``hold()`` until ``releaseHeld()``; `nil` when not holding.
  private var held: [UInt8]?
  /// Set once the reader went away (a closed pipe): what comes after is dropped.
  private var readerIsGone = false
  /// Asked before every write; while it asks to stop (Ctrl-C during a command), what is
  /// written is dropped.
  private let interruption: (any Interruption)?
  /// Whether something was dropped because of the interruption since ``takeWasCut()``.
  private var wasCut = false

  /// Output to `fileDescriptor`, buffered until ``flush()`` unless `unbuffered`; writes stop
  /// (are dropped) while `interruption` asks to stop.
  init(fileDescriptor: Int32, unbuffered: Bool = false, interruption: (any Interruption)? = nil) {
    self.fileDescriptor = fileDescriptor
    isTerminal = isatty(fileDescriptor) == 1
    isUnbuffered = unbuffered
    self.interruption = interruption
  }

  /// Output captured in memory, as if to a terminal or not; writes are dropped while
  /// `interruption` asks to stop.
  init(capturingAsTerminal isTerminal: Bool = false, interruption: (any Interruption)? = nil) {
    fileDescriptor = nil
    self.isTerminal = isTerminal
    isUnbuffered = false
    self.interruption = interruption
  }

  /// Writes `text` as it is.
  func write(_ text: String) {
    write(text, endingLine: false)
  }

  /// Writes `text` and a newline.
  func writeLine(_ text: String) {
    write(text, endingLine: true)
  }

  /// Writes `text`, and a newline when `endingLine`: its bytes copied at once (`ls` of a
  /// large category writes thousands of lines).
  private func write(_ text: String, endingLine: Bool) {
    if isCut() { return }
    var text = text
    if held != nil {
      text.withUTF8 { held?.append(contentsOf: $0) }
      if endingLine { held?.append(UInt8(ascii: "\n")) }
      return
    }
    guard fileDescriptor != nil else {
      captured += text
      if endingLine { captured += "\n" }
      return
    }
    text.withUTF8 { buffer.append(contentsOf: $0) }
    if endingLine { buffer.append(UInt8(ascii: "\n")) }
    if isUnbuffered || buffer.count >= 1 << 16 { flush() }
  }

  /// Writes `bytes` as they are (output that was held, then not paged).
  func write(bytes: [UInt8]) {
    if isCut() { return }
    guard fileDescriptor != nil, held == nil else {
      write(String(decoding: bytes, as: UTF8.self))
      return
    }
    buffer.append(contentsOf: bytes)
    if isUnbuffered || buffer.count >= 1 << 16 { flush() }
  }

  /// Keeps everything written from now on back, however long, until ``releaseHeld()``:
  /// the REPL decides afterwards whether a command's output goes through the pager.
  func hold() {
    flush()
    held = held ?? []
  }

  /// Stops holding and returns what was held.
  func releaseHeld() -> [UInt8] {
    defer { held = nil }
    return held ?? []
  }

  /// Sends what is buffered to the descriptor (nothing while holding). When the reader is
  /// gone (EPIPE, SIGPIPE being ignored) the rest is dropped: nobody is there to read it.
  func flush() {
    guard held == nil, let fileDescriptor, !buffer.isEmpty else { return }
    if !readerIsGone && !isCut() {
      do {
        try SystemFileSystem().writeFully(fileDescriptor, buffer)
      } catch {
        readerIsGone = true
      }
    }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Whether output was dropped because of the interruption since the last call; clears it.
  func takeWasCut() -> Bool {
    defer { wasCut = false }
    return wasCut
  }

  /// Whether the interruption asks to stop now: then what is buffered or held is dropped.
  private func isCut() -> Bool {
    guard let interruption, interruption.isRequested(during: .output) else { return false }
    wasCut = true
    buffer.removeAll(keepingCapacity: true)
    if held != nil { held = [] }
    return true
  }

  /// Clears what was captured (tests).
  func takeCaptured() -> String {
    defer { captured = "" }
    return captured
  }
}
