import Testing

@testable import DocsKit

@Suite struct AgeFormatTests {
  static let identity = AgeIdentity.generate()
  static let text = Array("A document: # heading, [[link]], #tag.\n".utf8)

  @Test(arguments: [0, 1, 100, 65535, 65536, 65537, 3 * 65536, 3 * 65536 + 5])
  func whatIsEncryptedToARecipientDecryptsToTheSameBytes(size: Int) throws {
    let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 8)) }
    let file = try Age.encrypt(plaintext, to: [Self.identity.recipient])
    #expect(Age.isAgeFile(file))
    // Header, nonce, then each 64 KiB chunk with its 16-byte tag, and no empty final chunk.
    let chunks = max(1, (size + 65535) / 65536)
    let header = try AgeHeader(parsing: file)
    #expect(file.count == header.payloadStart + 16 + size + 16 * chunks)
    #expect(try Age.decrypt(file, identities: [Self.identity]) == plaintext)
  }

  @Test func twoEncryptionsOfOneTextDiffer() throws {
    let first = try Age.encrypt(Self.text, to: [Self.identity.recipient])
    let second = try Age.encrypt(Self.text, to: [Self.identity.recipient])
    #expect(first != second)
  }

  @Test func theOtherIdentityDoesNotOpenAFile() throws {
    let file = try Age.encrypt(Self.text, to: [Self.identity.recipient])
    #expect(throws: AgeError.noIdentityMatches) {
      try Age.decrypt(file, identities: [AgeIdentity.generate()])
    }
    #expect(throws: AgeError.noIdentityMatches) { try Age.decrypt(file, identities: []) }
    #expect(throws: AgeError.noIdentityMatches) {
      try Age.decrypt(file, passphrase: Array("any".utf8))
    }
  }

  @Test func everyFlippedBitIsRefused() throws {
    let file = try Age.encrypt(Self.text, to: [Self.identity.recipient])
    for index in file.indices {
      var changed = file
      changed[index] ^= 0x01
      #expect(throws: AgeError.self, "byte \(index)") {
        try Age.decrypt(changed, identities: [Self.identity])
      }
    }
  }

  @Test func everyTruncationAndAnyTrailingByteIsRefused() throws {
    let file = try Age.encrypt(Self.text, to: [Self.identity.recipient])
    for count in 0..<file.count {
      #expect(throws: AgeError.self, "first \(count) bytes") {
        try Age.decrypt(Array(file[..<count]), identities: [Self.identity])
      }
    }
    #expect(throws: AgeError.authenticationFailed) {
      try Age.decrypt(file + [0], identities: [Self.identity])
    }
  }

  @Test func aPassphraseFileOpensWithItsPassphraseOnly() throws {
    let file = try Age.encrypt(Self.text, passphrase: Array("pass".utf8), workFactor: 10)
    let header = try AgeHeader(parsing: file)
    #expect(header.stanzas.count == 1)
    #expect(header.stanzas.first?.type == "scrypt")
    #expect(header.stanzas.first?.arguments.last == "10")
    #expect(try Age.decrypt(file, passphrase: Array("pass".utf8)) == Self.text)
    #expect(throws: AgeError.wrongPassphrase) {
      try Age.decrypt(file, passphrase: Array("Pass".utf8))
    }
    #expect(throws: AgeError.noIdentityMatches) {
      try Age.decrypt(file, identities: [Self.identity])
    }
    #expect(throws: AgeError.workFactorTooHigh(10)) {
      try Age.decrypt(file, passphrase: Array("pass".utf8), maxWorkFactor: 9)
    }
  }

  @Test func workFactorsOutsideOneTo22AndEmptyPassphrasesAreNotWritten() {
    #expect(throws: AgeError.workFactorTooHigh(23)) {
      try Age.encrypt(Self.text, passphrase: Array("pass".utf8), workFactor: 23)
    }
    #expect(throws: AgeError.self) {
      try Age.encrypt(Self.text, passphrase: Array("pass".utf8), workFactor: 0)
    }
    #expect(throws: AgeError.self) { try Age.encrypt(Self.text, passphrase: [], workFactor: 10) }
    #expect(throws: AgeError.self) { try Age.encrypt(Self.text, to: []) }
  }

  @Test func aHugeWorkFactorIsRefusedBeforeAnyWorkWhateverTheCallerAllows() throws {
    var file = try Age.encrypt(Self.text, passphrase: Array("pass".utf8), workFactor: 10)
    // Rewrite the work factor in the stanza line ("… 10\n" → "… 64\n"): the check comes
    // before the MAC, so the changed header still reaches it.
    let line = try #require(file.firstRange(of: Array(" 10\n".utf8)))
    file.replaceSubrange(line, with: Array(" 64\n".utf8))
    #expect(throws: AgeError.workFactorTooHigh(64)) {
      try Age.decrypt(file, passphrase: Array("pass".utf8), maxWorkFactor: 99)
    }
  }

  @Test(arguments: [0, 1, 31, 47, 48, 49, 96, 100])
  func stanzaBodiesWrapAt64ColumnsAndEndWithAShortLine(length: Int) throws {
    let body = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
    let stanza = AgeStanza(type: "example.com/test", arguments: ["a", "b"], body: body)
    var file: [UInt8] = []
    AgeHeader.write([stanza], fileKey: [UInt8](repeating: 1, count: 16), into: &file)
    let lines = String(decoding: file, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    let bodyLines = lines.dropFirst(2).prefix { !$0.hasPrefix("---") }
    #expect(bodyLines.dropLast().allSatisfy { $0.count == 64 })
    #expect((bodyLines.last?.count ?? 64) < 64)
    let header = try AgeHeader(parsing: file)
    #expect(header.stanzas.first?.body == body)
    #expect(header.stanzas.first?.arguments == ["a", "b"])
    #expect(header.authenticates(file, fileKey: [UInt8](repeating: 1, count: 16)))
    #expect(!header.authenticates(file, fileKey: [UInt8](repeating: 2, count: 16)))
  }

  @Test func everyErrorIsOneLineSayingWhatWasWrong() {
    let errors: [AgeError] = [
      .malformed("a stanza's body is not canonical unpadded base64"), .noIdentityMatches,
      .wrongPassphrase, .workFactorTooHigh(30), .authenticationFailed,
      .unsupported("age format version v2"), .randomFailure,
    ]
    for error in errors {
      #expect(!error.description.isEmpty && !error.description.contains("\n"))
    }
    #expect(AgeError.workFactorTooHigh(30).description.contains("30"))
    #expect(AgeError.malformed("X").description == "not a valid age file: X")
  }

  @Test func isAgeFileLooksAtTheVersionLineOrTheArmorsFirstLine() {
    #expect(Age.isAgeFile(Array("age-encryption.org/v1\n-> X".utf8)))
    #expect(Age.isAgeFile(Array(" \n-----BEGIN AGE ENCRYPTED FILE-----\n".utf8)))
    #expect(!Age.isAgeFile(Array("-----BEGIN PGP MESSAGE-----\n".utf8)))
    #expect(!Age.isAgeFile(Array("age-encryption.org/v2\n".utf8)))
    #expect(!Age.isAgeFile(Array("age-encryption.org/v1".utf8)))
    #expect(!Age.isAgeFile([]))
    #expect(!Age.isAgeFile(Array("---\ntitle: x\n".utf8)))
  }
}

/// Random edits of real files' headers (a seeded generator, so every run tries the same
/// inputs): each is refused with an AgeError or, when the edit changed nothing that matters,
/// opens to the original text — never a crash, never other plaintext.
@Suite struct AgeHeaderMutationTests {
  /// SplitMix64: a small deterministic generator.
  struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  /// Bytes an edit puts in: the header's own alphabet and a few that break it.
  static let alphabet = Array("-> X25519scrypt1089+/=AZaz\n\r\t\0".utf8) + [0x80, 0xFF, 0x7F]

  @Test(arguments: 0..<4)
  func editedHeadersFailCleanly(seed: UInt64) throws {
    let identity = AgeIdentity.generate()
    let text = Array("the plaintext".utf8)
    let recipientFile = try Age.encrypt(text, to: [identity.recipient, identity.recipient])
    let passphraseFile = try Age.encrypt(text, passphrase: Array("pw".utf8), workFactor: 2)
    var generator = Generator(state: seed)
    for round in 0..<500 {
      let usePassphrase = round % 2 == 1
      var file = usePassphrase ? passphraseFile : recipientFile
      let headerEnd = try AgeHeader(parsing: file).payloadStart
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        let at = Int.random(in: 0..<headerEnd, using: &generator)
        let byte = Self.alphabet.randomElement(using: &generator) ?? 0
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: file[at] = byte
        case 1: file.insert(byte, at: at)
        default: file.remove(at: at)
        }
      }
      do {
        let opened =
          usePassphrase
          ? try Age.decrypt(file, passphrase: Array("pw".utf8), maxWorkFactor: 4)
          : try Age.decrypt(file, identities: [identity])
        #expect(opened == text, "seed \(seed) round \(round)")
      } catch {
        // Any AgeError is a clean refusal (typed throws: nothing else can come out).
        _ = error.description
      }
    }
  }
}
