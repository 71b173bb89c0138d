/// An X25519 identity of age: the secret key that opens files encrypted to its recipient.
public struct AgeIdentity: Sendable, Equatable {
  /// The 32-byte secret scalar.
  let secret: [UInt8]
  /// The recipient (public key) that files for this identity are encrypted to.
  public let recipient: AgeRecipient

  private static let hrp = "AGE-SECRET-KEY-"

  init(secret: [UInt8]) {
    precondition(secret.count == Sodium.keyLength)
    self.secret = secret
    self.recipient = AgeRecipient(key: Sodium.x25519Base(secret))
  }

  /// A new identity from the system's CSPRNG.
  public static func generate() -> AgeIdentity {
    AgeIdentity(secret: Sodium.randomKeyBytes(Sodium.keyLength))
  }

  /// The identity in `text`: an `AGE-SECRET-KEY-1…` line (Bech32, upper case), alone or in
  /// an identity file as `age-keygen` writes it (lines starting with `#` and blank lines are
  /// skipped; spaces around a line are ignored).
  /// - Throws: `AgeError.malformed` when the text holds no key, more than one, or a key that
  ///   is not a valid X25519 identity; `AgeError.unsupported` for a post-quantum identity.
  public init(parsing text: String) throws(AgeError) {
    let keys = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      .map { $0.trimmingWhitespace() }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    guard let key = keys.first else { throw .malformed("no identity (AGE-SECRET-KEY-1…) found") }
    guard keys.count == 1 else { throw .malformed("more than one identity found") }
    if key.hasPrefix("AGE-SECRET-KEY-PQ-") {
      throw .unsupported("post-quantum (ML-KEM) identities")
    }
    let (hrp, data) = try Bech32.decode(String(key))
    guard hrp == Self.hrp else {
      throw .malformed("an identity starts with AGE-SECRET-KEY-1 (upper case)")
    }
    guard data.count == Sodium.keyLength else {
      throw .malformed("an identity holds 32 bytes, not \(data.count)")
    }
    self.init(secret: data)
  }

  /// The identity as `AGE-SECRET-KEY-1…`, as `age-keygen` writes it.
  public var encoded: String { Bech32.encode(hrp: Self.hrp, data: secret) }

  /// Compares in constant time.
  public static func == (lhs: AgeIdentity, rhs: AgeIdentity) -> Bool {
    Sodium.constantTimeEqual(lhs.secret, rhs.secret)
  }
}

/// An X25519 recipient of age (`age1…`): the public key files are encrypted to.
public struct AgeRecipient: Sendable, Equatable, Hashable {
  /// The 32-byte Curve25519 point.
  let key: [UInt8]

  private static let hrp = "age"

  init(key: [UInt8]) {
    self.key = key
  }

  /// The recipient in `text`, `age1…` (Bech32, lower case; spaces around it are ignored).
  /// - Throws: `AgeError.malformed` when it is not a valid X25519 recipient (a low-order
  ///   point included, to which nothing could be encrypted safely).
  public init(parsing text: String) throws(AgeError) {
    let trimmed = Substring(text).trimmingWhitespace()
    let (hrp, data) = try Bech32.decode(String(trimmed))
    guard hrp == Self.hrp else { throw .malformed("a recipient starts with age1 (lower case)") }
    guard data.count == Sodium.keyLength else {
      throw .malformed("a recipient holds 32 bytes, not \(data.count)")
    }
    // Any clamped scalar times a low-order point is zero: such a recipient is refused here
    // rather than when a file is encrypted to it.
    guard try Sodium.x25519(Self.probe, data) != nil else {
      throw .malformed("the recipient is a low-order point")
    }
    self.init(key: data)
  }

  /// A fixed scalar that exposes low-order points.
  private static let probe = [UInt8](repeating: 0x5A, count: Sodium.keyLength)

  /// The recipient as `age1…`.
  public var encoded: String { Bech32.encode(hrp: Self.hrp, data: key) }
}

extension Substring {
  /// The text without spaces, tabs and carriage returns at either end.
  fileprivate func trimmingWhitespace() -> Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    guard let first = firstIndex(where: { !isSpace($0) }),
      let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return self[first...last]
  }
}
