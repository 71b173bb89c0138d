// The header of an age v1 file (c2sp.org/age), read strictly and written canonically.
//
// Invariants of a header this file accepts (each is a rule of the spec, checked on reading):
// - It starts with the version line `age-encryption.org/v1` LF; another version is
//   `unsupported`, anything else `malformed`.
// - One or more stanzas follow. A stanza is `-> ` and one or more arguments separated by
//   single spaces (each 1*VCHAR), LF, then body lines of canonical unpadded base64: full
//   lines of exactly 64 columns, ended by one line of fewer (possibly none), each with LF.
// - The MAC line is exactly `--- ` and 43 base64 characters (32 bytes) and LF. The MAC
//   covers the bytes from the start of the file up to and including `---`.
// - The payload starts right after the MAC line's LF.
// Every line ends with LF; a CR, a tab or a byte outside printable ASCII anywhere in the
// header is malformed. Nothing here knows any stanza type: that is Age.swift's.

/// One recipient stanza: its type (the first argument), the other arguments and the body.
struct AgeStanza: Sendable {
  var type: String
  var arguments: [String]
  var body: [UInt8]
}

/// A parsed header: its stanzas, its MAC, where the MAC's input ends and where the payload
/// starts.
struct AgeHeader: Sendable {
  var stanzas: [AgeStanza]
  var mac: [UInt8]
  /// The MAC covers `file[..<macInputEnd]`.
  var macInputEnd: Int
  var payloadStart: Int

  static let versionLine = Array("age-encryption.org/v1\n".utf8)
  private static let versionPrefix = Array("age-encryption.org/".utf8)
  private static let lineFeed = UInt8(ascii: "\n")
  private static let bodyColumns = 64

  // MARK: - Reading

  /// The header at the start of `file`.
  /// - Throws: `AgeError.malformed` for any broken rule, `.unsupported` for another version.
  init(parsing file: [UInt8]) throws(AgeError) {
    var position = 0

    /// The bytes of the next line without its LF, and moves past it.
    func nextLine(_ what: String) throws(AgeError) -> ArraySlice<UInt8> {
      guard position < file.count,
        let end = file[position...].firstIndex(of: Self.lineFeed)
      else { throw .malformed("the header ends inside \(what)") }
      defer { position = end + 1 }
      return file[position..<end]
    }

    guard file.starts(with: Self.versionLine) else {
      guard file.starts(with: Self.versionPrefix) else {
        throw .malformed("it does not start with age-encryption.org/")
      }
      let line = try nextLine("the version line")
      let version = line.dropFirst(Self.versionPrefix.count)
      guard !version.isEmpty, version.allSatisfy(Self.isVisible) else {
        throw .malformed("the version line is not printable")
      }
      throw .unsupported("age format version \(String(decoding: version, as: UTF8.self))")
    }
    position = Self.versionLine.count

    var stanzas: [AgeStanza] = []
    while true {
      let lineStart = position
      let line = try nextLine("a stanza or before its MAC line")
      if line.starts(with: "---".utf8) {
        guard line.count == 4 + 43, line[line.startIndex + 3] == UInt8(ascii: " "),
          let mac = AgeBase64.decode(line.dropFirst(4)), mac.count == 32
        else { throw .malformed("the MAC line is not '--- ' and 43 base64 characters") }
        guard !stanzas.isEmpty else { throw .malformed("the header has no stanza") }
        self.stanzas = stanzas
        self.mac = mac
        self.macInputEnd = lineStart + 3
        self.payloadStart = position
        return
      }
      guard line.starts(with: "-> ".utf8) else {
        throw .malformed("a header line starts with neither '->' nor '---'")
      }
      let fields = line.dropFirst(3).split(
        separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
      guard !fields.isEmpty, fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isVisible) })
      else { throw .malformed("a stanza has an empty or unprintable argument") }
      var body: [UInt8] = []
      while true {
        let bodyLine = try nextLine("a stanza's body")
        guard bodyLine.count <= Self.bodyColumns else {
          throw .malformed("a stanza's body line is longer than 64 columns")
        }
        guard let bytes = AgeBase64.decode(bodyLine) else {
          throw .malformed("a stanza's body is not canonical unpadded base64")
        }
        body += bytes
        if bodyLine.count < Self.bodyColumns { break }
      }
      let strings = fields.map { String(decoding: $0, as: UTF8.self) }
      stanzas.append(AgeStanza(type: strings[0], arguments: Array(strings.dropFirst()), body: body))
    }
  }

  /// VCHAR: a printable ASCII byte other than space.
  private static func isVisible(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }

  // MARK: - Writing

  /// Appends the header for `stanzas`, with its MAC under `fileKey`, to `output`.
  static func write(_ stanzas: [AgeStanza], fileKey: [UInt8], into output: inout [UInt8]) {
    let start = output.count
    output += versionLine
    for stanza in stanzas {
      output += "-> ".utf8
      output += stanza.type.utf8
      for argument in stanza.arguments {
        output.append(UInt8(ascii: " "))
        output += argument.utf8
      }
      output.append(lineFeed)
      let encoded = AgeBase64.encode(stanza.body)
      var lineStart = 0
      while lineStart < encoded.count {
        let end = min(lineStart + bodyColumns, encoded.count)
        output += encoded[lineStart..<end]
        output.append(lineFeed)
        lineStart = end
      }
      // The body ends with a line shorter than 64 columns: an empty one when it filled the
      // last line (or was empty).
      if encoded.count % bodyColumns == 0 { output.append(lineFeed) }
    }
    output += "---".utf8
    var key = macKey(fileKey: fileKey)
    defer { Sodium.zero(&key) }
    let mac = Sodium.hmacSHA256(key: key, Array(output[start...]))
    output.append(UInt8(ascii: " "))
    AgeBase64.encode(mac, into: &output)
    output.append(lineFeed)
  }

  /// HMAC key = HKDF-SHA-256(ikm = file key, salt = empty, info = "header").
  static func macKey(fileKey: [UInt8]) -> [UInt8] {
    HKDF.derive(ikm: fileKey, salt: [], info: Array("header".utf8))
  }

  /// True when `mac` is the MAC of `file`'s header under `fileKey` (compared in constant
  /// time).
  func authenticates(_ file: [UInt8], fileKey: [UInt8]) -> Bool {
    var key = Self.macKey(fileKey: fileKey)
    defer { Sodium.zero(&key) }
    let expected = Sodium.hmacSHA256(key: key, Array(file[..<macInputEnd]))
    return Sodium.constantTimeEqual(expected, mac)
  }
}
