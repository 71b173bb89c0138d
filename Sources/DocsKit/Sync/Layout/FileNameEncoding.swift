/// How names become file names in a repository clone, and back: a category is a folder, a
/// document a file in it, each named after the name as typed.
///
/// A name is its own file name except for what git or the file systems of Windows and macOS
/// would refuse or read otherwise, which is percent-encoded as `%XX` (each UTF-8 byte, hex in
/// upper case):
/// - `%` itself, and `:` `\` `*` `?` `"` `<` `>` `|` anywhere;
/// - a leading `.`: no document or category is a dot file (`.gitignore`, `.git`,
///   ``CategoryFile/fileName``);
/// - a trailing `.` or space, which Windows drops;
/// - the first letter of a Windows device name (`CON`, `PRN`, `AUX`, `NUL`, `COM1`–`COM9`,
///   `LPT1`–`LPT9` and `COM¹`–`COM³`, `LPT¹`–`LPT³`, in any case, alone or before a `.`):
///   `con.txt` is `%63on.txt`;
/// - the first letter of `git~1` in any case, which git refuses in a path on every system
///   (the short name Windows gives `.git`).
///
/// Every other character, any Unicode, stays as typed. The encoding is injective, each escape
/// stands for one ASCII character and no two escapes are equal ignoring case, so names whose
/// ``Name/key``s differ never get file names that are equal ignoring case. An encoded name can
/// hold up to three times the 255 bytes a name may: git stores it, but a file system limited
/// to 255 bytes a name cannot check it out.
public enum FileNameEncoding {
  /// The file name of `name`, as a folder (a category) or a file (a document).
  public static func encode(_ name: Name) -> String {
    let bytes = Array(name.text.utf8)
    let leadingEscape = isDeviceName(bytes) || isGitShortName(bytes)
    var encoded: [UInt8] = []
    encoded.reserveCapacity(bytes.count)
    for (index, byte) in bytes.enumerated() {
      let needsEscape =
        isAlwaysEscaped(byte)
        || (index == 0 && (byte == UInt8(ascii: ".") || leadingEscape))
        || (index == bytes.count - 1 && (byte == UInt8(ascii: ".") || byte == UInt8(ascii: " ")))
      if needsEscape {
        encoded.append(UInt8(ascii: "%"))
        encoded.append(hexDigits[Int(byte >> 4)])
        encoded.append(hexDigits[Int(byte & 0xF)])
      } else {
        encoded.append(byte)
      }
    }
    return String(decoding: encoded, as: UTF8.self)
  }

  /// The name a file name in a clone stands for; `nil` when it stands for none.
  ///
  /// Each `%XX` (hex in either case) is one byte; every other character is itself, so a name
  /// typed in a clone without escapes (`Plan for May`, even `what?`) is read as typed. `nil`
  /// for a `%` not followed by two hex digits, bytes that are not UTF-8, a result that is not
  /// a valid name exactly as spelled (``Name`` would trim it, or refuses it), and a file name
  /// starting with `.`: dot files are never documents or categories.
  public static func decode(_ fileName: String) -> Name? {
    decode(bytes: Array(fileName.utf8))
  }

  /// The name the bytes of a file name (as git lists them) stand for; see ``decode(_:)``.
  public static func decode(bytes fileName: [UInt8]) -> Name? {
    guard fileName.first != UInt8(ascii: ".") else { return nil }
    var decoded: [UInt8] = []
    decoded.reserveCapacity(fileName.count)
    var index = 0
    while index < fileName.count {
      let byte = fileName[index]
      guard byte == UInt8(ascii: "%") else {
        decoded.append(byte)
        index += 1
        continue
      }
      guard index + 2 < fileName.count, let high = hexValue(fileName[index + 1]),
        let low = hexValue(fileName[index + 2])
      else { return nil }
      decoded.append(high << 4 | low)
      index += 3
    }
    guard let text = String(validating: decoded, as: UTF8.self),
      let name = try? Name(text), name.text.utf8.elementsEqual(decoded)
    else { return nil }
    return name
  }

  /// The path of a document's file from the top of the clone: `CATEGORY/DOCUMENT`.
  public static func path(category: Name, document: Name) -> String {
    encode(category) + "/" + encode(document)
  }

  /// The path of a category's record from the top of the clone: `CATEGORY/.docsh-category`.
  public static func recordPath(category: Name) -> String {
    encode(category) + "/" + CategoryFile.fileName
  }

  // MARK: - The characters escaped

  private static let hexDigits = Array("0123456789ABCDEF".utf8)

  /// `%` and the characters Windows refuses in a name (macOS's Finder shows `:` as `/`).
  private static func isAlwaysEscaped(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "%"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "*"),
      UInt8(ascii: "?"), UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"),
      UInt8(ascii: "|"):
      return true
    default:
      return false
    }
  }

  /// Whether `name` is a Windows device name, alone or followed by `.` and anything.
  private static func isDeviceName(_ name: [UInt8]) -> Bool {
    let stem =
      name.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
      .first ?? []
    let lowered = stem.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    switch lowered.count {
    case 3:
      return ["con", "prn", "aux", "nul"].contains { lowered.elementsEqual($0.utf8) }
    case 4:
      let prefix = lowered.prefix(3)
      guard prefix.elementsEqual("com".utf8) || prefix.elementsEqual("lpt".utf8) else {
        return false
      }
      return (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(lowered[3])
    case 5:
      // COM¹, COM², COM³ (U+00B9, U+00B2, U+00B3: C2 B9, C2 B2, C2 B3), LPT likewise.
      let prefix = lowered.prefix(3)
      guard prefix.elementsEqual("com".utf8) || prefix.elementsEqual("lpt".utf8) else {
        return false
      }
      return lowered[3] == 0xC2 && [0xB9, 0xB2, 0xB3].contains(lowered[4])
    default:
      return false
    }
  }

  /// Whether `name` is `git~1` in any case, which git's `core.protectNTFS` (on by default
  /// everywhere) refuses as a path component.
  private static func isGitShortName(_ name: [UInt8]) -> Bool {
    name.count == 5
      && name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }.elementsEqual("git~1".utf8)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    default: return nil
    }
  }
}
