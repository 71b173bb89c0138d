import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// What asks for a passphrase: the sync of an encrypted remote holds one of these.
protocol PassphraseAsking {
  /// A passphrase, as bytes; `confirm` asks twice (for a new passphrase) and fails when the
  /// two differ.
  /// - Throws: ``PassphraseError``, or ``ShellError/interrupted`` when the user pressed
  ///   Ctrl-C (or Ctrl-D on an empty line).
  func passphrase(prompt: String, confirm: Bool) throws -> [UInt8]
}

/// Why no passphrase could be had.
enum PassphraseError: Error, Sendable, Equatable {
  /// The file named by DOCSH_PASSPHRASE_FILE could not be read.
  case unreadableFile(path: String, errno: Int32)
  /// The file named by DOCSH_PASSPHRASE_FILE holds more than `limit` bytes.
  case fileTooLong(path: String, limit: Int)
  /// The passphrase (from the file or the terminal) is empty.
  case empty(source: String)
  /// There is no terminal to ask on, and DOCSH_PASSPHRASE_FILE is not set.
  case noTerminal(errno: Int32)
  /// The terminal could not be read or set up.
  case terminal(errno: Int32)
  /// The two passphrases typed for a new one differ.
  case mismatch
}

extension PassphraseError: CustomStringConvertible {
  var description: String {
    switch self {
    case .unreadableFile(let path, let code):
      "DOCSH_PASSPHRASE_FILE: \(path): \(systemMessage(code))"
    case .fileTooLong(let path, let limit):
      "DOCSH_PASSPHRASE_FILE: \(path): longer than \(limit) bytes; is it the right file?"
    case .empty(let source): "the passphrase \(source) is empty"
    case .noTerminal(let code):
      "no terminal to ask for the passphrase on (\(systemMessage(code))); set DOCSH_PASSPHRASE_FILE to a file holding it"
    case .terminal(let code): "cannot read the passphrase from the terminal: \(systemMessage(code))"
    case .mismatch: "the two passphrases differ; nothing changed"
    }
  }
}

/// Passphrases for age's scrypt files: from the file named by `DOCSH_PASSPHRASE_FILE` (for
/// scripts and tests: the whole file, one trailing newline removed), otherwise typed on the
/// terminal (`/dev/tty`) with echo off. Never from the command line or the value of an
/// environment variable, where other users and logs can see it.
///
/// On the terminal the line is read a byte at a time with echo, canonical mode and signals
/// off, so that Ctrl-C is a byte this type handles, and the terminal's settings are put back
/// on every way out (a typed Ctrl-C included). Backspace and Ctrl-U edit the line.
///
/// With `caching` on (a REPL session), the first passphrase had is kept and returned to the
/// next asks that do not confirm; one asked with `confirm` (a new passphrase) replaces it.
/// ``forget()`` drops it (after a wrong passphrase, say) and zeroes its bytes.
final class PassphraseSource: PassphraseAsking {
  /// The variable naming the passphrase file.
  static let fileVariable = "DOCSH_PASSPHRASE_FILE"
  /// The most bytes a passphrase (file or typed) may have.
  static let limit = 64 * 1024

  private let filePath: String?
  private let terminalPath: String
  private let caching: Bool
  private var cached: [UInt8]?

  /// A source reading `environment[DOCSH_PASSPHRASE_FILE]` (an empty value counts as unset),
  /// otherwise the terminal at `terminalPath`.
  init(
    environment: [String: String], terminalPath: String = "/dev/tty", caching: Bool = false
  ) {
    let path = environment[Self.fileVariable]
    self.filePath = path?.isEmpty == false ? path : nil
    self.terminalPath = terminalPath
    self.caching = caching
  }

  deinit {
    forget()
  }

  /// Drops the kept passphrase, zeroing its bytes.
  func forget() {
    if var bytes = cached {
      cached = nil
      Age.wipe(&bytes)
    }
  }

  func passphrase(prompt: String, confirm: Bool) throws -> [UInt8] {
    if caching, !confirm, let cached { return cached }
    let passphrase: [UInt8]
    if let filePath {
      passphrase = try Self.read(file: filePath)
    } else {
      passphrase = try TerminalPrompt(path: terminalPath).ask(prompt: prompt, confirm: confirm)
    }
    if caching {
      forget()
      cached = passphrase
    }
    return passphrase
  }

  /// The passphrase in the file at `path`: all of it, one trailing newline (LF or CRLF)
  /// removed. A pipe works too (`DOCSH_PASSPHRASE_FILE=<(pass show docsh)`).
  static func read(file path: String) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw PassphraseError.unreadableFile(path: path, errno: errno) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    defer { Age.wipe(&buffer) }
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw PassphraseError.unreadableFile(path: path, errno: errno)
      }
      if count == 0 { break }
      bytes += buffer[..<count]
      guard bytes.count <= limit + 2 else {
        throw PassphraseError.fileTooLong(path: path, limit: limit)
      }
    }
    if bytes.last == UInt8(ascii: "\n") {
      bytes.removeLast()
      if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    }
    guard bytes.count <= limit else { throw PassphraseError.fileTooLong(path: path, limit: limit) }
    guard !bytes.isEmpty else { throw PassphraseError.empty(source: "in \(path)") }
    return bytes
  }
}

/// One conversation on a terminal with echo off.
private struct TerminalPrompt {
  let path: String

  /// The line typed after `prompt`; typed twice when `confirm`. A SIGTERM, SIGHUP or
  /// SIGQUIT while it waits ends the question first, so that the terminal's settings are
  /// put back, and is then raised again as it came: it ends docsh (or is recorded by the
  /// REPL's handler) with echo on.
  func ask(prompt: String, confirm: Bool) throws -> [UInt8] {
    let guarding = EndingSignals()
    let answer: Result<[UInt8], any Error>
    do {
      answer = .success(try converse(prompt: prompt, confirm: confirm))
    } catch {
      answer = .failure(error)
    }
    if let signal = guarding.end() {
      if case .success(var typed) = answer { Self.zero(&typed) }
      raise(signal)
      throw ShellError.interrupted
    }
    return try answer.get()
  }

  /// ``ask(prompt:confirm:)`` with the terminal quiet, put back on every way out.
  private func converse(prompt: String, confirm: Bool) throws -> [UInt8] {
    let descriptor = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard descriptor >= 0 else { throw PassphraseError.noTerminal(errno: errno) }
    defer { close(descriptor) }
    var saved = termios()
    guard tcgetattr(descriptor, &saved) == 0 else { throw PassphraseError.terminal(errno: errno) }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
    withUnsafeMutableBytes(of: &quiet.c_cc) { characters in
      characters[Int(VMIN)] = 1  // a read returns as soon as one byte is there
      characters[Int(VTIME)] = 0  // no timer
    }
    // TCSAFLUSH: what was typed before the prompt (and echoed) is not taken as the passphrase.
    guard tcsetattr(descriptor, TCSAFLUSH, &quiet) == 0 else {
      throw PassphraseError.terminal(errno: errno)
    }
    defer { _ = tcsetattr(descriptor, TCSAFLUSH, &saved) }

    var first = try line(descriptor, prompt: prompt)
    defer { Self.zero(&first) }
    guard !first.isEmpty else { throw PassphraseError.empty(source: "typed") }
    if confirm {
      var second = try line(descriptor, prompt: "Type it again: ")
      defer { Self.zero(&second) }
      guard second == first else { throw PassphraseError.mismatch }
    }
    return first
  }

  /// Writes `prompt`, then reads bytes up to Return, editing as a terminal would.
  private func line(_ descriptor: Int32, prompt: String) throws -> [UInt8] {
    write(descriptor, prompt)
    var typed: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = Glibc.read(descriptor, &byte, 1)
      if count < 0 {
        if errno == EINTR, !EndingSignals.arrived { continue }
        Self.zero(&typed)
        throw PassphraseError.terminal(errno: errno)
      }
      if count == 0 {
        Self.zero(&typed)
        throw PassphraseError.terminal(errno: EIO)
      }
      switch byte {
      case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
        write(descriptor, "\n")
        return typed
      case 0x03:  // Ctrl-C
        Self.zero(&typed)
        write(descriptor, "^C\n")
        throw ShellError.interrupted
      case 0x04 where typed.isEmpty:  // Ctrl-D on an empty line
        write(descriptor, "\n")
        throw ShellError.interrupted
      case 0x7F, 0x08:  // Backspace: one UTF-8 character
        while let last = typed.popLast(), last & 0xC0 == 0x80 {}
      case 0x15:  // Ctrl-U
        Self.zero(&typed)
        typed.removeAll()
      case 0x00..<0x20:
        continue  // other control keys are not part of a passphrase
      default:
        guard typed.count < PassphraseSource.limit else { continue }
        typed.append(byte)
      }
    }
  }

  private func write(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes {
        Glibc.write(descriptor, $0.baseAddress, $0.count)
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return }
      offset += count
    }
    bytes.removeAll()
  }

  private static func zero(_ bytes: inout [UInt8]) {
    Age.wipe(&bytes)
  }
}

/// SIGTERM, SIGHUP and SIGQUIT while a question waits on the terminal: each is caught once
/// by a handler that only puts back its default disposition (no state, nothing unsafe in a
/// handler), without SA_RESTART, so that the read fails with EINTR. Which one came is the
/// one whose disposition is the default again. ``end()`` puts back the dispositions there
/// were and answers the signal that came, for the caller to raise again once the terminal
/// is as it was.
private struct EndingSignals {
  static let numbers = [SIGTERM, SIGHUP, SIGQUIT]
  private var previous: [(Int32, sigaction)] = []

  init() {
    for number in Self.numbers {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { number in
        var reset = sigaction()
        reset.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&reset.sa_mask)
        _ = sigaction(number, &reset, nil)
      }
      sigemptyset(&action.sa_mask)
      action.sa_flags = 0
      var old = sigaction()
      if sigaction(number, &action, &old) == 0 { previous.append((number, old)) }
    }
  }

  /// Whether one of the signals came (its handler put its default back).
  static var arrived: Bool {
    numbers.contains { number in
      var current = sigaction()
      return sigaction(number, nil, &current) == 0
        && current.__sigaction_handler.sa_handler == nil  // SIG_DFL
    }
  }

  /// Puts back the dispositions there were; the signal that came, if one did.
  func end() -> Int32? {
    var came: Int32?
    for (number, old) in previous {
      var current = sigaction()
      if came == nil, sigaction(number, nil, &current) == 0,
        current.__sigaction_handler.sa_handler == nil  // SIG_DFL
      {
        came = number
      }
      var restored = old
      _ = sigaction(number, &restored, nil)
    }
    return came
  }
}
