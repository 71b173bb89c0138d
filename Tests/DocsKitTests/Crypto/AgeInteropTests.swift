import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// The stock `age` program (Debian's age 1.1.1; `make deps` installs it), run on files.
enum StockAge {
  /// The `age` executable on PATH (or Debian's place); a test that needs it fails, with this
  /// message, when it is missing rather than passing without it.
  static func executable(_ name: String = "age") throws -> URL {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":").map(String.init) + ["/usr/bin"] {
      let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    Issue.record("`\(name)` is not installed: run `make deps` (Debian's package age)")
    throw CancellationError()
  }

  struct Result {
    var status: Int32
    var output: [UInt8]
    var errors: String
  }

  /// Runs the program `name` with `arguments` and `input` on standard input, in `folder`.
  static func run(
    _ arguments: [String], program name: String = "age", input: [UInt8] = [],
    in folder: TemporaryFolder
  ) throws -> Result {
    let process = Process()
    process.executableURL = try executable(name)
    process.arguments = arguments
    process.currentDirectoryURL = folder.url
    let stdin = folder.url.appendingPathComponent("stdin")
    let stdout = folder.url.appendingPathComponent("stdout")
    let stderr = folder.url.appendingPathComponent("stderr")
    try Data(input).write(to: stdin)
    _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
    _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
    process.standardInput = try FileHandle(forReadingFrom: stdin)
    process.standardOutput = try FileHandle(forWritingTo: stdout)
    process.standardError = try FileHandle(forWritingTo: stderr)
    try process.run()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, output: [UInt8](try Data(contentsOf: stdout)),
      errors: String(decoding: try Data(contentsOf: stderr), as: UTF8.self))
  }
}

@Suite struct AgeInteropTests {
  /// Sizes around the 64 KiB chunk: empty, one byte, one short of a chunk, exactly one, one
  /// over, and several chunks.
  static let sizes = [0, 1, 65535, 65536, 65537, 200 * 1024]

  /// Plaintext of `count` bytes that differs from chunk to chunk.
  static func plaintext(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 16) }
  }

  @Test(arguments: sizes)
  func stockAgeOpensWhatDocshEncryptsToAnIdentity(size: Int) throws {
    let folder = try TemporaryFolder("age-out")
    let identity = AgeIdentity.generate()
    try Data((identity.encoded + "\n").utf8).write(to: folder.url.appendingPathComponent("key"))
    let plaintext = Self.plaintext(size)
    let file = try Age.encrypt(plaintext, to: [identity.recipient])
    let result = try StockAge.run(["-d", "-i", "key"], input: file, in: folder)
    #expect(result.status == 0, "age -d: \(result.errors)")
    #expect(result.output == plaintext)
  }

  @Test(arguments: sizes)
  func docshOpensWhatStockAgeEncryptsToARecipient(size: Int) throws {
    let folder = try TemporaryFolder("age-in")
    let identity = AgeIdentity.generate()
    let plaintext = Self.plaintext(size)
    let result = try StockAge.run(["-r", identity.recipient.encoded], input: plaintext, in: folder)
    #expect(result.status == 0, "age -r: \(result.errors)")
    #expect(Age.isAgeFile(result.output))
    #expect(try Age.decrypt(result.output, identities: [identity]) == plaintext)
  }

  @Test func docshOpensWhatStockAgeArmors() throws {
    let folder = try TemporaryFolder("age-armor")
    let identity = AgeIdentity.generate()
    let plaintext = Self.plaintext(100_000)
    let result = try StockAge.run(
      ["-a", "-r", identity.recipient.encoded], input: plaintext, in: folder)
    #expect(result.status == 0, "age -a -r: \(result.errors)")
    #expect(result.output.starts(with: Array("-----BEGIN AGE ENCRYPTED FILE-----\n".utf8)))
    #expect(Age.isAgeFile(result.output))
    #expect(try Age.decrypt(result.output, identities: [identity]) == plaintext)
  }

  @Test func aKeyFileOfAgeKeygenParsesToTheRecipientAgeKeygenNames() throws {
    let folder = try TemporaryFolder("age-keygen")
    let generated = try StockAge.run([], program: "age-keygen", in: folder)
    try #require(generated.status == 0, "age-keygen: \(generated.errors)")
    let keyFile = String(decoding: generated.output, as: UTF8.self)
    // age-keygen's file: "# created: …", "# public key: age1…", then the key.
    #expect(keyFile.hasPrefix("#"))
    let identity = try AgeIdentity(parsing: keyFile)
    let recipient = try StockAge.run(
      ["-y"], program: "age-keygen", input: generated.output, in: folder)
    try #require(recipient.status == 0, "age-keygen -y: \(recipient.errors)")
    let named = String(decoding: recipient.output, as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(identity.recipient.encoded == named)
    #expect(try AgeRecipient(parsing: named) == identity.recipient)
    #expect(keyFile.contains(identity.encoded))
  }

  @Test func aFileForTwoRecipientsOpensWithEitherIdentityInStockAge() throws {
    let folder = try TemporaryFolder("age-two")
    let first = AgeIdentity.generate()
    let second = AgeIdentity.generate()
    try Data(second.encoded.utf8).write(to: folder.url.appendingPathComponent("key"))
    let file = try Age.encrypt(Array("two readers".utf8), to: [first.recipient, second.recipient])
    let result = try StockAge.run(["-d", "-i", "key"], input: file, in: folder)
    #expect(result.status == 0, "age -d: \(result.errors)")
    #expect(result.output == Array("two readers".utf8))
    #expect(try Age.decrypt(file, identities: [first]) == Array("two readers".utf8))
  }
}

/// `age -p` reads a passphrase only from its terminal: `script` (util-linux) gives it a
/// pseudo-terminal whose input is what the test writes on script's standard input (lines
/// typed before age turns echo off are still read; only their echo differs).
@Suite struct AgePassphraseInteropTests {
  static let passphrase = "correct horse battery staple"

  /// Runs `command` (a shell command line, in `folder`) under `script` with `typed` as the
  /// terminal's input.
  static func runInTerminal(_ command: String, typed: String, in folder: TemporaryFolder) throws
    -> StockAge.Result
  {
    _ = try StockAge.executable()
    return try StockAge.run(
      ["-q", "-e", "-c", command, "/dev/null"], program: "script", input: Array(typed.utf8),
      in: folder)
  }

  @Test func stockAgeOpensWhatDocshEncryptsToAPassphrase() throws {
    let folder = try TemporaryFolder("age-p-out")
    let plaintext = AgeInteropTests.plaintext(70_000)
    // The default work factor: what the encrypted remote's identity file uses.
    let file = try Age.encrypt(plaintext, passphrase: Array(Self.passphrase.utf8))
    try Data(file).write(to: folder.url.appendingPathComponent("identity.age"))
    let result = try Self.runInTerminal(
      "age -d -o plain identity.age", typed: Self.passphrase + "\n", in: folder)
    #expect(result.status == 0, "age -d: \(String(decoding: result.output, as: UTF8.self))")
    let opened = try Data(contentsOf: folder.url.appendingPathComponent("plain"))
    #expect([UInt8](opened) == plaintext)
  }

  @Test func docshOpensWhatStockAgeEncryptsToAPassphrase() throws {
    let folder = try TemporaryFolder("age-p-in")
    let plaintext = AgeInteropTests.plaintext(70_000)
    try Data(plaintext).write(to: folder.url.appendingPathComponent("plain"))
    let result = try Self.runInTerminal(
      "age -p -o sealed.age plain", typed: Self.passphrase + "\n" + Self.passphrase + "\n",
      in: folder)
    #expect(result.status == 0, "age -p: \(String(decoding: result.output, as: UTF8.self))")
    let file = [UInt8](try Data(contentsOf: folder.url.appendingPathComponent("sealed.age")))
    #expect(try Age.decrypt(file, passphrase: Array(Self.passphrase.utf8)) == plaintext)
    #expect(throws: AgeError.wrongPassphrase) {
      try Age.decrypt(file, passphrase: Array("not it".utf8))
    }
  }
}
