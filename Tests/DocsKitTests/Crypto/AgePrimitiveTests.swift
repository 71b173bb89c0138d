import Testing

@testable import DocsKit

/// Bytes from hexadecimal text (test data only).
func hex(_ text: String) -> [UInt8] {
  var bytes: [UInt8] = []
  var index = text.startIndex
  while index < text.endIndex {
    let next = text.index(index, offsetBy: 2)
    bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
    index = next
  }
  return bytes
}

@Suite struct HKDFTests {
  struct Case: Sendable, CustomStringConvertible {
    var name: String
    var ikm: [UInt8]
    var salt: [UInt8]
    var info: [UInt8]
    var prk: String
    var okm: String
    var description: String { name }
  }

  /// RFC 5869, appendix A, test cases 1 to 3 (SHA-256).
  static let cases = [
    Case(
      name: "1: basic", ikm: [UInt8](repeating: 0x0b, count: 22), salt: Array(0x00...0x0c),
      info: Array(0xf0...0xf9),
      prk: "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
      okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
    Case(
      name: "2: longer inputs", ikm: Array(0x00...0x4f), salt: Array(0x60...0xaf),
      info: Array(0xb0...0xff),
      prk: "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
      okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
        + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
        + "cc30c58179ec3e87c14c01d5c1f3434f1d87"),
    Case(
      name: "3: empty salt and info", ikm: [UInt8](repeating: 0x0b, count: 22), salt: [],
      info: [],
      prk: "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
      okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
  ]

  @Test(arguments: cases)
  func rfc5869TestCase(_ test: Case) {
    #expect(HKDF.extract(salt: test.salt, ikm: test.ikm) == hex(test.prk))
    let okm = hex(test.okm)
    #expect(HKDF.derive(ikm: test.ikm, salt: test.salt, info: test.info, length: okm.count) == okm)
  }
}

@Suite struct Bech32Tests {
  /// BIP-173's valid Bech32 strings (those within its length limit, which age drops).
  @Test(arguments: [
    "A12UEL5L", "a12uel5l", "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
    "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", "?1ezyfcl",
  ])
  func bip173ValidStringsDecode(_ text: String) throws {
    let (hrp, data) = try Bech32.decode(text)
    // Encoding again gives the same string (in the case of its HRP).
    #expect(Bech32.encode(hrp: hrp, data: data) == text)
  }

  /// BIP-173's invalid strings (a space and DEL outside the range, no separator, an empty
  /// HRP, a character outside the charset, a checksum too short, a checksum computed over the
  /// upper-case HRP), and mixed case.
  @Test(arguments: [
    " 1nwldj5", "\u{7F}1axkwrx", "pzry9x0s0muk", "1pzry9x0s0muk", "x1b4n0q5v", "li1dgmt3",
    "de1lg7wt\u{FF}", "A1G7SGD8", "10a06t8", "1qzzfhee", "A12uEL5L",
  ])
  func bip173InvalidStringsAreRefused(_ text: String) {
    #expect(throws: AgeError.self) { try Bech32.decode(text) }
  }
}

@Suite struct AgeBase64Tests {
  @Test(arguments: 0...40)
  func encodingRoundTripsWithoutPadding(count: Int) throws {
    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
    let encoded = AgeBase64.encode(bytes)
    #expect(!encoded.contains(UInt8(ascii: "=")))
    #expect(encoded.count == (count * 4 + 2) / 3)
    #expect(AgeBase64.decode(encoded) == bytes)
  }

  @Test(arguments: [
    "AA==",  // padding
    "A",  // one character left over
    "AB",  // non-zero unused bits: 'B' sets a bit after the byte
    "AAB",  // likewise after two bytes
    "AA AA",  // a space
    "AA-_",  // the URL alphabet
    "AA\nA",  // a line break
  ])
  func nonCanonicalOrPaddedTextIsRefused(_ text: String) {
    #expect(AgeBase64.decode(Array(text.utf8)) == nil)
  }
}

@Suite struct AgeKeyTests {
  /// The identity and recipient c2sp.org/age gives as examples of one another.
  static let specIdentity =
    "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX"
  static let specRecipient = "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj"

  @Test func theSpecsIdentityHasTheSpecsRecipient() throws {
    let identity = try AgeIdentity(parsing: Self.specIdentity)
    #expect(identity.recipient.encoded == Self.specRecipient)
    #expect(identity.encoded == Self.specIdentity)
    #expect(try AgeRecipient(parsing: Self.specRecipient) == identity.recipient)
  }

  @Test func anIdentityFileAsAgeKeygenWritesItParses() throws {
    let file = """
      # created: 2026-12-06T03:00:00Z\r
      # public key: \(Self.specRecipient)\r
      \r
      \(Self.specIdentity)\r

      """
    #expect(try AgeIdentity(parsing: file).recipient.encoded == Self.specRecipient)
  }

  @Test func generatedIdentitiesDifferAndRoundTrip() throws {
    let first = AgeIdentity.generate()
    let second = AgeIdentity.generate()
    #expect(first != second)
    #expect(try AgeIdentity(parsing: first.encoded) == first)
    #expect(try AgeRecipient(parsing: first.recipient.encoded) == first.recipient)
    #expect(first.encoded.hasPrefix("AGE-SECRET-KEY-1"))
    #expect(first.recipient.encoded.hasPrefix("age1"))
  }

  /// Texts that hold no valid X25519 identity, and why.
  static let badIdentities: [(String, String)] = [
    ("", "no identity"), ("# only a comment\n\n", "no identity"),
    (specIdentity.lowercased(), "lower case"),
    (specIdentity + "\n" + specIdentity, "two keys"),
    (specRecipient, "a recipient, not an identity"),
    (String(specIdentity.dropLast()) + "Q", "a bad checksum"),
    ("AGE-SECRET-KEY-1" + String(specIdentity.dropFirst(16).dropLast(6)), "no checksum"),
  ]

  @Test(arguments: badIdentities)
  func badIdentitiesAreMalformed(text: String, why: String) {
    #expect(throws: AgeError.self, "\(why)") { try AgeIdentity(parsing: text) }
    do {
      _ = try AgeIdentity(parsing: text)
    } catch {
      guard case .malformed = error else {
        Issue.record("\(why): \(error)")
        return
      }
    }
  }

  @Test func aPostQuantumIdentityIsUnsupported() {
    let text = "AGE-SECRET-KEY-PQ-1XX76JRALNLXDMEW0CRK45QMCCH4X06SE84UN3VPM33W6HWDX0H3SK3ZQFR"
    #expect(throws: AgeError.unsupported("post-quantum (ML-KEM) identities")) {
      try AgeIdentity(parsing: text)
    }
  }

  @Test func badRecipientsAreMalformed() {
    let lowOrder = Bech32.encode(hrp: "age", data: [UInt8](repeating: 0, count: 32))
    let short = Bech32.encode(hrp: "age", data: [UInt8](repeating: 9, count: 31))
    for text in [
      Self.specRecipient.uppercased(), Self.specIdentity, lowOrder, short, "age1", "",
      String(Self.specRecipient.dropLast()) + "q",
    ] {
      #expect(throws: AgeError.self, "\(text)") { try AgeRecipient(parsing: text) }
    }
  }
}
