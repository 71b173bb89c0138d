/// Why an age file could not be written or read, or a key could not be parsed.
public enum AgeError: Error, Equatable, Sendable {
  /// The bytes break a rule of the format (the header, a stanza, the payload, a key's text);
  /// the text says which.
  case malformed(String)
  /// No identity given opens any stanza of the file (or the file is not encrypted to a
  /// passphrase when one was given).
  case noIdentityMatches
  /// The file is encrypted to a passphrase, and not to this one.
  case wrongPassphrase
  /// The file's scrypt work factor is above the limit the reader accepts.
  case workFactorTooHigh(Int)
  /// The header's MAC or a payload chunk does not authenticate: the file was changed.
  case authenticationFailed
  /// A valid feature of the format that docsh does not implement (another version, a
  /// post-quantum identity), or a computation the system could not run.
  case unsupported(String)
  /// The system's random number generator could not be used.
  case randomFailure
}

extension AgeError: CustomStringConvertible {
  /// One line for a user.
  public var description: String {
    switch self {
    case .malformed(let reason): "not a valid age file: \(reason)"
    case .noIdentityMatches: "no identity matches the file"
    case .wrongPassphrase: "wrong passphrase"
    case .workFactorTooHigh(let factor):
      "the file's scrypt work factor \(factor) is higher than allowed"
    case .authenticationFailed: "the file is damaged or was changed (authentication failed)"
    case .unsupported(let what): "unsupported: \(what)"
    case .randomFailure: "the system's random number generator is unavailable"
    }
  }
}
