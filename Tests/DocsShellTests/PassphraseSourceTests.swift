import DocsTestSupport
import Foundation
import Synchronization
import Testing

@testable import DocsShell

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct PassphraseSourceTests {
  static let noTerminal = "/nonexistent/tty"

  /// A source reading the file `contents` is written to.
  static func source(
    file contents: [UInt8], in folder: TemporaryFolder, caching: Bool = false
  ) throws -> (PassphraseSource, String) {
    let path = folder.path("passphrase")
    try Data(contents).write(to: URL(fileURLWithPath: path))
    let source = PassphraseSource(
      environment: ["DOCSH_PASSPHRASE_FILE": path], terminalPath: noTerminal, caching: caching)
    return (source, path)
  }

  @Test(arguments: [
    ("hunter2\n", "hunter2"), ("hunter2", "hunter2"), ("hunter2\r\n", "hunter2"),
    ("two\n\n", "two\n"), (" spaced words \n", " spaced words "), ("ünïcödé\n", "ünïcödé"),
  ])
  func theFileGivesItsWholeTextWithoutOneTrailingNewline(contents: String, expected: String)
    throws
  {
    let folder = try TemporaryFolder("passphrase")
    let (source, _) = try Self.source(file: Array(contents.utf8), in: folder)
    #expect(try source.passphrase(prompt: "Passphrase: ", confirm: false) == Array(expected.utf8))
    // A new passphrase from a file is the file: nothing to type twice.
    #expect(try source.passphrase(prompt: "Passphrase: ", confirm: true) == Array(expected.utf8))
  }

  @Test(arguments: ["", "\n", "\r\n"])
  func anEmptyPassphraseInTheFileIsAnError(contents: String) throws {
    let folder = try TemporaryFolder("passphrase")
    let (source, path) = try Self.source(file: Array(contents.utf8), in: folder)
    #expect(throws: PassphraseError.empty(source: "in \(path)")) {
      try source.passphrase(prompt: "Passphrase: ", confirm: false)
    }
  }

  @Test func aMissingFileIsAOneLineErrorNamingIt() throws {
    let folder = try TemporaryFolder("passphrase")
    let path = folder.path("missing")
    let source = PassphraseSource(
      environment: ["DOCSH_PASSPHRASE_FILE": path], terminalPath: Self.noTerminal)
    #expect(throws: PassphraseError.unreadableFile(path: path, errno: ENOENT)) {
      try source.passphrase(prompt: "Passphrase: ", confirm: false)
    }
    let message = PassphraseError.unreadableFile(path: path, errno: ENOENT).description
    #expect(message == "DOCSH_PASSPHRASE_FILE: \(path): No such file or directory")
  }

  @Test func aFolderIsNotAPassphraseFile() throws {
    let folder = try TemporaryFolder("passphrase")
    let source = PassphraseSource(
      environment: ["DOCSH_PASSPHRASE_FILE": folder.path], terminalPath: Self.noTerminal)
    #expect(throws: PassphraseError.unreadableFile(path: folder.path, errno: EISDIR)) {
      try source.passphrase(prompt: "Passphrase: ", confirm: false)
    }
  }

  @Test func aHugeFileIsRefused() throws {
    let folder = try TemporaryFolder("passphrase")
    let huge = [UInt8](repeating: UInt8(ascii: "x"), count: PassphraseSource.limit + 3)
    let (source, path) = try Self.source(file: huge, in: folder)
    #expect(throws: PassphraseError.fileTooLong(path: path, limit: PassphraseSource.limit)) {
      try source.passphrase(prompt: "Passphrase: ", confirm: false)
    }
  }

  @Test func theValueOfAnEnvironmentVariableIsNeverThePassphrase() {
    // Only a file's name comes from the environment; an empty name counts as unset, and
    // without a terminal there is nothing else to ask.
    for environment in [
      ["DOCSH_PASSPHRASE": "hunter2"], ["DOCSH_PASSPHRASE_FILE": "", "PASSPHRASE": "hunter2"],
    ] {
      let source = PassphraseSource(environment: environment, terminalPath: Self.noTerminal)
      #expect(throws: PassphraseError.noTerminal(errno: ENOENT)) {
        try source.passphrase(prompt: "Passphrase: ", confirm: false)
      }
    }
  }

  @Test func aCachingSourceAsksOnceUntilItForgetsOrANewPassphraseIsAsked() throws {
    let folder = try TemporaryFolder("passphrase")
    let (source, path) = try Self.source(file: Array("first\n".utf8), in: folder, caching: true)
    #expect(try source.passphrase(prompt: "P: ", confirm: false) == Array("first".utf8))
    try Data("second\n".utf8).write(to: URL(fileURLWithPath: path))
    #expect(try source.passphrase(prompt: "P: ", confirm: false) == Array("first".utf8))
    #expect(try source.passphrase(prompt: "P: ", confirm: true) == Array("second".utf8))
    try Data("third\n".utf8).write(to: URL(fileURLWithPath: path))
    #expect(try source.passphrase(prompt: "P: ", confirm: false) == Array("second".utf8))
    source.forget()
    #expect(try source.passphrase(prompt: "P: ", confirm: false) == Array("third".utf8))
  }

  @Test func aSourceThatDoesNotCacheReadsEveryTime() throws {
    let folder = try TemporaryFolder("passphrase")
    let (source, path) = try Self.source(file: Array("first\n".utf8), in: folder)
    #expect(try source.passphrase(prompt: "P: ", confirm: false) == Array("first".utf8))
    try Data("second\n".utf8).write(to: URL(fileURLWithPath: path))
    #expect(try source.passphrase(prompt: "P: ", confirm: false) == Array("second".utf8))
  }
}

/// A pseudo-terminal the test types into: the source under test opens its slave side as its
/// terminal, the test reads what it shows and types on the master side.
final class PseudoTerminal {
  let master: Int32
  let slavePath: String
  /// The slave kept open by the test, to read the terminal's settings.
  let slave: Int32
  private(set) var shown: [UInt8] = []

  init() throws {
    // posix_openpt, grantpt and unlockpt are not in Swift's Glibc module: their Linux
    // equivalent is /dev/ptmx and two ioctls (TIOCSPTLCK, TIOCGPTN; generic encodings, the
    // same on every Linux architecture Swift runs on).
    master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    try #require(master >= 0, "/dev/ptmx: \(errno)")
    var unlock: Int32 = 0
    try #require(ioctl(master, 0x4004_5431, &unlock) == 0, "TIOCSPTLCK: \(errno)")
    var number: UInt32 = 0
    try #require(ioctl(master, 0x8004_5430, &number) == 0, "TIOCGPTN: \(errno)")
    slavePath = "/dev/pts/\(number)"
    slave = open(slavePath, O_RDWR | O_NOCTTY)
    try #require(slave >= 0)
  }

  deinit {
    close(slave)
    close(master)
  }

  /// Reads what the terminal shows until `text` appears or `done` holds (60 s at most: a
  /// deadline for a hang, not a measure of speed).
  func read(until text: String? = nil, or done: () -> Bool = { false }) throws {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      if let text, String(decoding: shown, as: UTF8.self).contains(text) { return }
      if done() { return }
      var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 50) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 1024)
      let count = Glibc.read(master, &buffer, buffer.count)
      if count > 0 { shown += buffer[..<count] }
    }
    Issue.record(
      "the terminal never showed \(text ?? "the end"): \(String(decoding: shown, as: UTF8.self))")
    throw CancellationError()
  }

  /// Types `text` on the keyboard.
  func type(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
  }

  /// The local flags the terminal has now.
  func localFlags() -> tcflag_t {
    var settings = termios()
    _ = tcgetattr(slave, &settings)
    return settings.c_lflag
  }
}

/// What the background ask ended with.
final class AskOutcome: Sendable {
  let value = Mutex<Result<[UInt8], any Error>?>(nil)
  var isDone: Bool { value.withLock { $0 != nil } }
}

@Suite struct PassphraseTerminalTests {
  /// Asks on `terminal` on another thread (as docsh would, blocked in `read`), while the test
  /// plays the user.
  static func ask(on terminal: PseudoTerminal, confirm: Bool) -> AskOutcome {
    let outcome = AskOutcome()
    let path = terminal.slavePath
    let thread = Thread {
      let source = PassphraseSource(environment: [:], terminalPath: path)
      let result = Result { try source.passphrase(prompt: "Passphrase: ", confirm: confirm) }
      outcome.value.withLock { $0 = result }
    }
    thread.start()
    return outcome
  }

  @Test func typedCharactersDoNotAppearAndTheTerminalEchoesAgainAfter() throws {
    let terminal = try PseudoTerminal()
    let before = terminal.localFlags()
    #expect(before & tcflag_t(ECHO) != 0)
    let outcome = Self.ask(on: terminal, confirm: false)
    try terminal.read(until: "Passphrase: ")
    terminal.type("s3cr\u{7F}et w0rds\r")
    try terminal.read(or: { outcome.isDone })
    let result = try #require(outcome.value.withLock { $0 })
    #expect(try result.get() == Array("s3cet w0rds".utf8))
    let shown = String(decoding: terminal.shown, as: UTF8.self)
    #expect(!shown.contains("s3c") && !shown.contains("w0rds"), "echoed: \(shown)")
    #expect(terminal.localFlags() == before)
  }

  @Test func ctrlCStopsAndPutsTheTerminalBack() throws {
    let terminal = try PseudoTerminal()
    let before = terminal.localFlags()
    let outcome = Self.ask(on: terminal, confirm: false)
    try terminal.read(until: "Passphrase: ")
    terminal.type("half typed\u{03}")
    try terminal.read(or: { outcome.isDone })
    let result = try #require(outcome.value.withLock { $0 })
    #expect(throws: ShellError.self) { try result.get() }
    if case .failure(let error) = result, let shell = error as? ShellError {
      #expect(shell.description == "interrupted")
    }
    #expect(!String(decoding: terminal.shown, as: UTF8.self).contains("half"))
    #expect(terminal.localFlags() == before)
  }

  /// What asking for a new passphrase gives when the user types `first`, then `second`.
  static func newPassphrase(typing first: String, then second: String) throws -> Result<
    [UInt8], any Error
  > {
    let terminal = try PseudoTerminal()
    let outcome = Self.ask(on: terminal, confirm: true)
    try terminal.read(until: "Passphrase: ")
    terminal.type(first + "\r")
    try terminal.read(until: "Type it again: ")
    terminal.type(second + "\r")
    try terminal.read(or: { outcome.isDone })
    return try #require(outcome.value.withLock { $0 })
  }

  @Test func aNewPassphraseIsTypedTwiceAndMustMatch() throws {
    #expect(
      try Self.newPassphrase(typing: "new one", then: "new one").get() == Array("new one".utf8))
    let differing = try Self.newPassphrase(typing: "new one", then: "new two")
    #expect(throws: PassphraseError.mismatch) { try differing.get() }
  }

  @Test func anEmptyTypedPassphraseIsAnError() throws {
    let terminal = try PseudoTerminal()
    let outcome = Self.ask(on: terminal, confirm: false)
    try terminal.read(until: "Passphrase: ")
    terminal.type("\r")
    try terminal.read(or: { outcome.isDone })
    let result = try #require(outcome.value.withLock { $0 })
    #expect(throws: PassphraseError.empty(source: "typed")) { try result.get() }
  }
}
