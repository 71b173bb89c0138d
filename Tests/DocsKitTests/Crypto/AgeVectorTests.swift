import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// One CCTV age test vector: what decrypting it must give.
struct AgeVector: CustomStringConvertible, Sendable {
  var name: String
  var expect: String
  var payloadHash: String?
  var identities: [String]
  var passphrases: [String]
  var armored: Bool
  var file: [UInt8]

  var description: String { name }

  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("AgeVectors")

  /// Every vector file of the folder (its README aside), by name.
  static let names: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0 != "README.md" }.sorted()
  }()

  /// The vector in the file `name`, inflated when it is compressed.
  static func load(_ name: String) throws -> AgeVector {
    let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    let separator = Array("\n\n".utf8)
    let split = try #require(
      (0..<(bytes.count - 1)).first { bytes[$0..<($0 + 2)].elementsEqual(separator) },
      "\(name) has no blank line after its header")
    var vector = AgeVector(
      name: name, expect: "", payloadHash: nil, identities: [], passphrases: [], armored: false,
      file: Array(bytes[(split + 2)...]))
    var compressed = false
    for line in String(decoding: bytes[..<split], as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 1).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard parts.count == 2 else { continue }
      switch parts[0] {
      case "expect": vector.expect = parts[1]
      case "payload": vector.payloadHash = parts[1]
      case "identity": vector.identities.append(parts[1])
      case "passphrase": vector.passphrases.append(parts[1])
      case "armored": vector.armored = parts[1] == "yes"
      case "compressed": compressed = parts[1] == "zlib"
      default: break
      }
    }
    if compressed { vector.file = try inflate(vector.file) }
    return vector
  }

  /// zlib's inflate, through Python's zlib module (the tests' python3: `make deps`).
  static func inflate(_ bytes: [UInt8]) throws -> [UInt8] {
    let scratch = try TemporaryFolder()
    let input = scratch.url.appendingPathComponent("in")
    let output = scratch.url.appendingPathComponent("out")
    try Data(bytes).write(to: input)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c",
      "import sys, zlib; open(sys.argv[2], 'wb').write(zlib.decompress(open(sys.argv[1], 'rb').read()))",
      input.path, output.path,
    ]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "python3 could not inflate a vector")
    return [UInt8](try Data(contentsOf: output))
  }

  /// Decrypts with the vector's passphrases (each in turn, as age tries every identity) or
  /// its identities.
  func decrypt() throws(AgeError) -> [UInt8] {
    if !passphrases.isEmpty {
      var lastError = AgeError.wrongPassphrase
      for passphrase in passphrases {
        do {
          return try Age.decrypt(file, passphrase: Array(passphrase.utf8))
        } catch .wrongPassphrase {
          lastError = .wrongPassphrase
        }
      }
      throw lastError
    }
    var parsed: [AgeIdentity] = []
    for identity in identities {
      do {
        parsed.append(try AgeIdentity(parsing: identity))
      } catch .unsupported {
        continue  // a post-quantum identity: see `unsupported`
      }
    }
    return try Age.decrypt(file, identities: parsed)
  }
}

@Suite struct AgeVectorTests {
  /// Vectors of features docsh leaves out, and why. Each must still fail cleanly: an
  /// AgeError, no crash, no plaintext.
  static let unsupported: [String: String] = {
    var reasons: [String: String] = [:]
    for name in AgeVector.names where name.contains("hybrid") {
      reasons[name] =
        "post-quantum mlkem768x25519 (X-Wing) recipients: libsodium 1.0.18 has no ML-KEM"
    }
    return reasons
  }()

  @Test func theFolderHoldsEveryVector() {
    // CCTV's age/testdata at the commit named in the README holds 143 vectors.
    #expect(AgeVector.names.count == 143)
  }

  @Test(arguments: AgeVector.names)
  func vectorDecryptsAsExpected(name: String) throws {
    let vector = try AgeVector.load(name)
    if let reason = Self.unsupported[name] {
      #expect(throws: AgeError.self, "\(name) is unsupported (\(reason)) and must fail cleanly") {
        try vector.decrypt()
      }
      return
    }
    switch vector.expect {
    case "success":
      let plaintext = try vector.decrypt()
      let hash = try Sodium.sha256(plaintext).map { String(format: "%02x", $0) }.joined()
      #expect(hash == vector.payloadHash)
    case let expect:
      do {
        let plaintext = try vector.decrypt()
        Issue.record("\(name) (\(expect)) decrypted to \(plaintext.count) bytes")
      } catch {
        #expect(Self.error(error, is: expect), "\(name): \(expect), got \(error)")
      }
    }
  }

  /// Whether `error` is of the class of failure a vector expects.
  static func error(_ error: AgeError, is expect: String) -> Bool {
    switch (expect, error) {
    case ("header failure", .malformed), ("header failure", .unsupported),
      ("header failure", .workFactorTooHigh):
      true
    case ("no match", .noIdentityMatches), ("no match", .wrongPassphrase): true
    case ("HMAC failure", .authenticationFailed): true
    case ("payload failure", .authenticationFailed), ("payload failure", .malformed): true
    // Armor that is not strict PEM, or that is no armor at all (another label, lower case).
    case ("armor failure", .malformed): true
    default: false
    }
  }
}
