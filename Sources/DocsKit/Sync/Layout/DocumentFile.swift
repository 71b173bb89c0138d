/// How one document is written as a file in a repository clone: a front-matter header with
/// its identity and modification time, then its content byte for byte.
///
/// ```
/// ---
/// id: 1b4e28ba-2fa1-41d2-883f-0016d3cca427
/// modified: 2026-12-01T23:29:00.123Z
/// tags: project/docsh urgent
/// ---
/// the content, exactly as stored
/// ```
///
/// The document's name is the file's name and its category the folder (see
/// ``FileNameEncoding``), so neither is in the header: renaming a document in a clone is a
/// rename in git. The `tags:` line is there only when the document holds tags: separated by
/// spaces (commas and a YAML list's brackets are read too, and a leading `#`). Its size is the UTF-8 byte count of the content. Pure: bytes in, bytes
/// out, no file system.
public enum DocumentFile {
  /// The bytes of the file of a document.
  public static func render(
    id: ObjectID, modified: Timestamp, tags: [Tag] = [], content: String
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(80 + content.utf8.count)
    bytes.append(contentsOf: "---\nid: ".utf8)
    bytes.append(contentsOf: id.description.utf8)
    bytes.append(contentsOf: "\nmodified: ".utf8)
    bytes.append(contentsOf: modified.iso8601.utf8)
    if !tags.isEmpty {
      bytes.append(contentsOf: "\ntags: ".utf8)
      bytes.append(contentsOf: tags.map(\.text).joined(separator: " ").utf8)
    }
    bytes.append(contentsOf: "\n---\n".utf8)
    bytes.append(contentsOf: content.utf8)
    return bytes
  }

  /// Reads the bytes of a file found in a clone.
  ///
  /// A file whose first line is `---` and whose header holds an `id:` line is docsh's: it
  /// must then hold exactly `id:` and `modified:`, once each. Any other UTF-8 file is plain
  /// text, all of it the content — front matter of other tools included. A UTF-8 byte order
  /// mark before a docsh header is dropped; header lines may end in `\r\n`.
  public static func parse(_ bytes: [UInt8]) -> DocumentFileParse {
    guard let whole = String(validating: bytes, as: UTF8.self) else {
      return .invalid(reason: .notUTF8)
    }
    let start = bytes.starts(with: FrontMatter.byteOrderMark) ? FrontMatter.byteOrderMark.count : 0
    guard let header = FrontMatter(scanning: bytes, from: start), header.hasKey("id") else {
      return .plain(content: whole)
    }
    guard header.isClosed else { return .invalid(reason: .unclosedHeader) }
    let values: [(value: String, line: Int)?]
    switch header.values(of: ["id", "modified", "tags"]) {
    case .success(let found): values = found
    case .failure(let problem): return .invalid(reason: problem)
    }
    guard let idLine = values[0] else { return .invalid(reason: .missingKey("id")) }
    guard let id = ObjectID(idLine.value) else {
      return .invalid(reason: .malformedID(idLine.value, line: idLine.line))
    }
    guard let modifiedLine = values[1] else { return .invalid(reason: .missingKey("modified")) }
    guard let modified = Timestamp(fileHeaderValue: modifiedLine.value) else {
      return .invalid(reason: .malformedTimestamp(modifiedLine.value, line: modifiedLine.line))
    }
    var tags: [Tag] = []
    if let tagsLine = values[2] {
      let words = tagsLine.value.split {
        $0 == " " || $0 == "," || $0 == "\t" || $0 == "[" || $0 == "]"
      }
      for word in words {
        do {
          tags.append(try Tag(String(word)))
        } catch {
          return .invalid(reason: .malformedTags(String(word), error, line: tagsLine.line))
        }
      }
    }
    // The whole file is valid UTF-8 and the content starts after a line end: a valid slice.
    let content = String(decoding: bytes[header.end...], as: UTF8.self)
    return .docsh(id: id, modified: modified, content: content, tags: tags.normalizedTags())
  }
}

/// What a file in a clone turned out to hold.
public enum DocumentFileParse: Equatable, Sendable {
  /// A document docsh wrote (or one edited since): its identity, time, content and tags.
  case docsh(id: ObjectID, modified: Timestamp, content: String, tags: [Tag] = [])
  /// A file without a docsh header, e.g. one made in the clone: all of it is the content.
  case plain(content: String)
  /// A file docsh cannot take as a document.
  case invalid(reason: FrontMatterProblem)
}

extension Timestamp {
  /// Parses a header's `modified:` value: any ISO 8601 form ``init(iso8601:)`` reads, as long
  /// as ``iso8601`` writes the moment back in its fixed shape (years 0000 to 9999).
  init?(fileHeaderValue text: String) {
    guard let parsed = Timestamp(iso8601: text), Timestamp(iso8601: parsed.iso8601) == parsed
    else { return nil }
    self = parsed
  }
}
