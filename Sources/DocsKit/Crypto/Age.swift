/// age v1 files (c2sp.org/age): written in the binary format, read in it or in ASCII armor;
/// encrypted to X25519 recipients or to a passphrase (scrypt), read back with identities or
/// the passphrase. Stock `age` reads what these functions write and the other way round.
///
/// Cost (release build, 2 loaded cores): about 0.1–0.2 ms to encrypt a small document to one
/// recipient and 0.05–0.1 ms to decrypt it, mostly X25519; 200 bytes of overhead per file;
/// about 1 GB/s for the payload. The functions are pure and `Sendable`-safe, so a caller may
/// run them on several threads. scrypt at the default work factor takes about a second and
/// 64 MiB (`Scrypt`: a quarter of its V kept, the rest rebuilt): it is for the identity file
/// only.
///
/// Every rule the spec states is checked on reading: the header's grammar and canonical
/// base64, the stanzas' arguments and body lengths, an scrypt stanza alone in its header,
/// the header's MAC, and the payload's chunks up to a non-empty final one with nothing
/// after it. What a file decrypts to is returned only when all of it authenticates.
public enum Age {
  /// The highest scrypt work factor `encrypt(_:passphrase:workFactor:)` writes: Debian's
  /// `age` 1.1.1 refuses files above it.
  public static let maximumWorkFactor = 22
  static let fileKeyLength = 16

  private static let x25519Type = "X25519"
  private static let x25519Info = Array("age-encryption.org/v1/X25519".utf8)
  private static let scryptType = "scrypt"
  private static let scryptSaltLabel = Array("age-encryption.org/v1/scrypt".utf8)
  private static let scryptSaltLength = 16

  // MARK: - Encrypting

  /// `plaintext` as an age file that any identity of `recipients` opens.
  /// - Throws: `AgeError.malformed` when `recipients` is empty; `.randomFailure`.
  public static func encrypt(_ plaintext: [UInt8], to recipients: [AgeRecipient])
    throws(AgeError) -> [UInt8]
  {
    guard !recipients.isEmpty else { throw .malformed("no recipient to encrypt to") }
    var fileKey = try Sodium.randomBytes(fileKeyLength)
    defer { Sodium.zero(&fileKey) }
    var stanzas: [AgeStanza] = []
    stanzas.reserveCapacity(recipients.count)
    for recipient in recipients {
      var ephemeral = try Sodium.randomBytes(Sodium.keyLength)
      defer { Sodium.zero(&ephemeral) }
      let share = Sodium.x25519Base(ephemeral)
      // Recipients are checked not to be low-order points when they are parsed.
      guard var shared = try Sodium.x25519(ephemeral, recipient.key) else {
        throw .malformed("the recipient is a low-order point")
      }
      defer { Sodium.zero(&shared) }
      var wrapKey = HKDF.derive(ikm: shared, salt: share + recipient.key, info: x25519Info)
      defer { Sodium.zero(&wrapKey) }
      let body = try Sodium.sealWithZeroNonce(fileKey, key: wrapKey)
      stanzas.append(
        AgeStanza(
          type: x25519Type, arguments: [String(decoding: AgeBase64.encode(share), as: UTF8.self)],
          body: body))
    }
    return try assemble(plaintext, stanzas: stanzas, fileKey: fileKey)
  }

  /// `plaintext` as an age file that `passphrase` opens (one scrypt stanza, N = 2^workFactor).
  /// - Throws: `AgeError.workFactorTooHigh` above `maximumWorkFactor`, `.malformed` for a
  ///   work factor below 1 or an empty passphrase; `.randomFailure`; `.unsupported` when
  ///   scrypt cannot get its memory.
  public static func encrypt(_ plaintext: [UInt8], passphrase: [UInt8], workFactor: Int = 18)
    throws(AgeError) -> [UInt8]
  {
    guard workFactor <= maximumWorkFactor else { throw .workFactorTooHigh(workFactor) }
    guard workFactor >= 1 else { throw .malformed("an scrypt work factor is at least 1") }
    guard !passphrase.isEmpty else { throw .malformed("the passphrase is empty") }
    var fileKey = try Sodium.randomBytes(fileKeyLength)
    defer { Sodium.zero(&fileKey) }
    let salt = try Sodium.randomBytes(scryptSaltLength)
    var wrapKey = try Sodium.scrypt(
      passphrase: passphrase, salt: scryptSaltLabel + salt, logN: workFactor)
    defer { Sodium.zero(&wrapKey) }
    let body = try Sodium.sealWithZeroNonce(fileKey, key: wrapKey)
    let stanza = AgeStanza(
      type: scryptType,
      arguments: [String(decoding: AgeBase64.encode(salt), as: UTF8.self), String(workFactor)],
      body: body)
    return try assemble(plaintext, stanzas: [stanza], fileKey: fileKey)
  }

  /// The header for `stanzas` and the payload of `plaintext`, in one buffer sized once.
  private static func assemble(_ plaintext: [UInt8], stanzas: [AgeStanza], fileKey: [UInt8])
    throws(AgeError) -> [UInt8]
  {
    var header: [UInt8] = []
    header.reserveCapacity(64 + stanzas.count * 120)
    AgeHeader.write(stanzas, fileKey: fileKey, into: &header)
    return try AgeStream.seal(plaintext, fileKey: fileKey, after: header)
  }

  // MARK: - Decrypting

  /// The plaintext of `file`, opened by one of `identities`.
  /// - Throws: `AgeError.malformed` or `.unsupported` when the file breaks a rule of the
  ///   format; `.noIdentityMatches` when no identity opens a stanza (an scrypt file
  ///   included); `.authenticationFailed` when the header's MAC or the payload does not
  ///   authenticate.
  public static func decrypt(_ file: [UInt8], identities: [AgeIdentity]) throws(AgeError)
    -> [UInt8]
  {
    try Sodium.start()
    let file = try dearmored(file)
    let header = try AgeHeader(parsing: file)
    try checkScryptIsAlone(header)
    // Every X25519 stanza is checked before any is tried, so that a broken one is found
    // whichever identity matches.
    var candidates: [(share: [UInt8], body: [UInt8])] = []
    for stanza in header.stanzas where stanza.type == x25519Type {
      guard stanza.arguments.count == 1 else {
        throw .malformed("an X25519 stanza has \(stanza.arguments.count + 1) arguments, not 2")
      }
      guard let share = AgeBase64.decode(stanza.arguments[0].utf8), share.count == Sodium.keyLength
      else { throw .malformed("an X25519 stanza's share is not 32 bytes of canonical base64") }
      guard stanza.body.count == fileKeyLength + Sodium.tagLength else {
        throw .malformed("an X25519 stanza's body is not 32 bytes")
      }
      candidates.append((share, stanza.body))
    }
    for identity in identities {
      for candidate in candidates {
        guard var shared = try Sodium.x25519(identity.secret, candidate.share) else {
          throw .malformed("an X25519 stanza's share is a low-order point")
        }
        defer { Sodium.zero(&shared) }
        var wrapKey = HKDF.derive(
          ikm: shared, salt: candidate.share + identity.recipient.key, info: x25519Info)
        defer { Sodium.zero(&wrapKey) }
        if var fileKey = try Sodium.openWithZeroNonce(candidate.body, key: wrapKey) {
          defer { Sodium.zero(&fileKey) }
          return try open(file, header: header, fileKey: fileKey)
        }
      }
    }
    throw .noIdentityMatches
  }

  /// The plaintext of `file`, encrypted to `passphrase`.
  /// - Throws: `AgeError.malformed` or `.unsupported` when the file breaks a rule of the
  ///   format; `.noIdentityMatches` when it is not encrypted to a passphrase;
  ///   `.workFactorTooHigh` above `maxWorkFactor`; `.wrongPassphrase`;
  ///   `.authenticationFailed` when the header's MAC or the payload does not authenticate.
  public static func decrypt(_ file: [UInt8], passphrase: [UInt8], maxWorkFactor: Int = 22)
    throws(AgeError) -> [UInt8]
  {
    try Sodium.start()
    let file = try dearmored(file)
    let header = try AgeHeader(parsing: file)
    try checkScryptIsAlone(header)
    guard let stanza = header.stanzas.first, stanza.type == scryptType else {
      throw .noIdentityMatches
    }
    guard stanza.arguments.count == 2 else {
      throw .malformed("an scrypt stanza has \(stanza.arguments.count + 1) arguments, not 3")
    }
    guard let salt = AgeBase64.decode(stanza.arguments[0].utf8), salt.count == scryptSaltLength
    else { throw .malformed("an scrypt stanza's salt is not 16 bytes of canonical base64") }
    let factorText = stanza.arguments[1]
    guard let first = factorText.utf8.first,
      (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first),
      factorText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
      let workFactor = Int(factorText)
    else { throw .malformed("an scrypt stanza's work factor is not a decimal number") }
    // Scrypt takes work factors up to 40, whatever limit the caller passes.
    guard workFactor <= maxWorkFactor, workFactor <= 40 else {
      throw .workFactorTooHigh(workFactor)
    }
    guard stanza.body.count == fileKeyLength + Sodium.tagLength else {
      throw .malformed("an scrypt stanza's body is not 32 bytes")
    }
    var wrapKey = try Sodium.scrypt(
      passphrase: passphrase, salt: scryptSaltLabel + salt, logN: workFactor)
    defer { Sodium.zero(&wrapKey) }
    guard var fileKey = try Sodium.openWithZeroNonce(stanza.body, key: wrapKey) else {
      throw .wrongPassphrase
    }
    defer { Sodium.zero(&fileKey) }
    return try open(file, header: header, fileKey: fileKey)
  }

  /// True when `bytes` starts as an age v1 file does: its version line (binary format), or
  /// the BEGIN line of ASCII armor after any whitespace.
  public static func isAgeFile(_ bytes: [UInt8]) -> Bool {
    bytes.starts(with: AgeHeader.versionLine) || AgeArmor.isArmored(bytes)
  }

  /// Overwrites `bytes` with zeros (libsodium's `sodium_memzero`, which the compiler does
  /// not remove): for a passphrase or a key once it is no longer needed.
  public static func wipe(_ bytes: inout [UInt8]) {
    Sodium.zero(&bytes)
  }

  /// The binary file: `file` itself, or what its ASCII armor holds.
  private static func dearmored(_ file: [UInt8]) throws(AgeError) -> [UInt8] {
    AgeArmor.isArmored(file) ? try AgeArmor.decode(file) : file
  }

  /// An scrypt stanza must be the only stanza of its header.
  private static func checkScryptIsAlone(_ header: AgeHeader) throws(AgeError) {
    if header.stanzas.count > 1, header.stanzas.contains(where: { $0.type == scryptType }) {
      throw .malformed("an scrypt stanza is not the only stanza of the header")
    }
  }

  /// The payload of `file` once the header's MAC is checked under `fileKey`.
  private static func open(_ file: [UInt8], header: AgeHeader, fileKey: [UInt8])
    throws(AgeError) -> [UInt8]
  {
    guard fileKey.count == fileKeyLength else { throw .malformed("the file key is not 16 bytes") }
    guard header.authenticates(file, fileKey: fileKey) else { throw .authenticationFailed }
    return try AgeStream.open(file, from: header.payloadStart, fileKey: fileKey)
  }
}
