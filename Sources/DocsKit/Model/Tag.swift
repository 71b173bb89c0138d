/// A tag: a word put on documents, many to many (``Context/tag(_:with:)``).
///
/// A tag name holds letters, digits, `-`, `_` and `/` (`project/docsh`), at most
/// ``maximumByteCount`` bytes of UTF-8, and does not start or end with `/`. It is shown as
/// first written; ``key`` is what comparisons use: the name with case and accents folded,
/// so `Café`, `cafe` and `CAFÉ` are one tag.
public struct Tag: Hashable, Sendable, CustomStringConvertible, Comparable {
  /// The most UTF-8 bytes a tag may hold.
  public static let maximumByteCount = 100

  /// The tag as written.
  public let text: String
  /// Its folded form, what equality of tags compares.
  public let key: TagKey

  /// Validates `raw` (a leading `#` is dropped, as a tag is often written `#tag`).
  /// - Throws: ``TagError`` saying what is wrong with it.
  public init(_ raw: String) throws(TagError) {
    var text = Substring(raw)
    if text.hasPrefix("#") { text = text.dropFirst() }
    guard !text.isEmpty else { throw .empty }
    guard text.utf8.count <= Tag.maximumByteCount else {
      throw .tooLong(String(text), byteCount: text.utf8.count)
    }
    // Most tags are ASCII words: checked byte by byte, without Unicode properties.
    if !text.utf8.allSatisfy(Tag.isAllowedASCII) {
      for character in text where !Tag.isAllowed(character) {
        throw .invalidCharacter(String(raw), character)
      }
    }
    let slash = UInt8(ascii: "/")
    let bytes = text.utf8
    guard bytes.first != slash, bytes.last != slash,
      !zip(bytes, bytes.dropFirst()).contains(where: { $0 == slash && $1 == slash })
    else { throw .misplacedSlash(String(raw)) }
    self.init(unchecked: String(text))
  }

  /// A tag read from a store that was validated.
  init(unchecked text: String) {
    self.text = text
    key = TagKey(text)
  }

  public var description: String { text }

  /// Tags are equal when their keys are: `Swift` and `swift` are one tag.
  public static func == (lhs: Tag, rhs: Tag) -> Bool { lhs.key == rhs.key }
  public func hash(into hasher: inout Hasher) { hasher.combine(key) }
  /// Tags sort by key, then as written.
  public static func < (lhs: Tag, rhs: Tag) -> Bool {
    lhs.key == rhs.key ? lhs.text < rhs.text : lhs.key.folded < rhs.key.folded
  }

  /// Whether `byte` is an ASCII letter, digit, `-`, `_` or `/`.
  private static func isAllowedASCII(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
      UInt8(ascii: "/"):
      return true
    default:
      return false
    }
  }

  private static func isAllowed(_ character: Character) -> Bool {
    if character == "-" || character == "_" || character == "/" { return true }
    return character.unicodeScalars.allSatisfy { scalar in
      let properties = scalar.properties
      return properties.isAlphabetic || properties.numericType != nil
        || TextFolding.isDiacriticalMark(scalar.value)
    }
  }
}

/// What tags compare by: the text with case folded (as `grep -i` does) and accents folded
/// (as search does), so that `Café` and `cafe` are one key.
public struct TagKey: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The folded text.
  public let folded: String

  /// The key of `text`.
  public init(_ text: String) {
    if text.utf8.allSatisfy({ $0 < 0x80 }) {
      folded = NameKey.asciiLowercased(text)
      return
    }
    var folder = CaseFolder()
    folded = TextFolding.fold(folder.folded(text))
  }

  public var description: String { folded }
  public static func < (lhs: TagKey, rhs: TagKey) -> Bool { lhs.folded < rhs.folded }
}

/// Why a tag was refused.
public enum TagError: Error, Equatable, Sendable {
  case empty
  case tooLong(String, byteCount: Int)
  case invalidCharacter(String, Character)
  case misplacedSlash(String)
}

extension TagError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .empty:
      return "a tag cannot be empty"
    case .tooLong(_, let byteCount):
      return
        "a tag may hold at most \(Tag.maximumByteCount) bytes of UTF-8, this one has \(byteCount)"
    case .invalidCharacter(let tag, let character):
      return
        "\"\(tag.count <= 40 ? tag : tag.prefix(39) + "…")\" is not a tag: a tag holds letters, digits, \"-\", \"_\" and \"/\", not \(character.shownInErrors)"
    case .misplacedSlash(let tag):
      return
        "\"\(tag)\" is not a tag: \"/\" separates words of a tag, it cannot start, end or double"
    }
  }
}

extension Array where Element == Tag {
  /// The tags sorted by key, without two of one key (the first written kept).
  func normalizedTags() -> [Tag] {
    var seen = Set<TagKey>()
    return filter { seen.insert($0.key).inserted }.sorted()
  }
}

extension Tag {
  /// The tags of a three-way merge, element by element: a tag either side added is kept, a
  /// tag either side removed (and the other did not add again) is gone, the rest stay.
  /// Without a base (both sides made the document), both sides' tags.
  static func merged(base: [Tag]?, current: [Tag], other: [Tag]) -> [Tag] {
    guard let base else { return (current + other).normalizedTags() }
    let baseKeys = Set(base.map(\.key))
    let otherKeys = Set(other.map(\.key))
    let currentKeys = Set(current.map(\.key))
    var kept: [Tag] = []
    for tag in current where otherKeys.contains(tag.key) || !baseKeys.contains(tag.key) {
      kept.append(tag)
    }
    for tag in other where !currentKeys.contains(tag.key) && !baseKeys.contains(tag.key) {
      kept.append(tag)
    }
    return kept.normalizedTags()
  }
}
