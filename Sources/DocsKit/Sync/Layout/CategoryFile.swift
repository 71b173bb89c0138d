/// How one category is recorded in a repository clone: a file named ``fileName`` in the
/// category's folder, a front-matter header alone.
///
/// ```
/// ---
/// id: 0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2a11
/// name: Work
/// ---
/// ```
///
/// A category of more documents than ``RepositoryLayout/fanOutLimit`` keeps them in bucket
/// subfolders, and its record says so with a third line, `fan-out: 256`; a record without
/// it (every record of docsh before fan-out) means the documents lie in the folder itself.
///
/// Every category has one, so an empty category survives (git keeps no empty folders) and
/// its identity travels with it. The name is the category's name as typed; the folder is
/// that name encoded by ``FileNameEncoding``. Pure: bytes in, bytes out, no file system.
public enum CategoryFile {
  /// The record's file name inside its category's folder. A dot file: no encoded name
  /// starts with `.`, so no document can take it.
  public static let fileName = ".docsh-category"

  /// The bytes of a category's record; `fanOut`, the number of bucket subfolders its
  /// documents lie in (`0`: none, the line left out).
  public static func render(id: ObjectID, name: Name, fanOut: Int = 0) -> [UInt8] {
    let fanOutLine = fanOut > 0 ? "fan-out: \(fanOut)\n" : ""
    return Array("---\nid: \(id)\nname: \(name.text)\n\(fanOutLine)---\n".utf8)
  }

  /// Reads the bytes of a record found in a clone.
  ///
  /// The rules of ``DocumentFile/parse(_:)`` apply, with the keys `id:`, `name:` and, if
  /// present, `fan-out:` (a value that is not a number of buckets reads as none: the
  /// category's documents are then looked for in its folder alone); a file without a header
  /// is invalid, and nothing but blank lines may follow the closing line.
  public static func parse(_ bytes: [UInt8]) -> CategoryFileParse {
    guard String(validating: bytes, as: UTF8.self) != nil else { return .invalid(reason: .notUTF8) }
    let start = bytes.starts(with: FrontMatter.byteOrderMark) ? FrontMatter.byteOrderMark.count : 0
    guard let header = FrontMatter(scanning: bytes, from: start) else {
      return .invalid(reason: .noHeader)
    }
    guard header.isClosed else {
      return .invalid(reason: header.hasKey("id") ? .unclosedHeader : .noHeader)
    }
    let values: [(value: String, line: Int)?]
    switch header.values(of: ["id", "name", "fan-out"]) {
    case .success(let found): values = found
    case .failure(let problem): return .invalid(reason: problem)
    }
    guard let idLine = values[0] else { return .invalid(reason: .missingKey("id")) }
    guard let id = ObjectID(idLine.value) else {
      return .invalid(reason: .malformedID(idLine.value, line: idLine.line))
    }
    guard let nameLine = values[1] else { return .invalid(reason: .missingKey("name")) }
    let name: Name
    do {
      name = try Name(nameLine.value)
    } catch {
      return .invalid(reason: .invalidName(nameLine.value, error, line: nameLine.line))
    }
    if let line = firstNonBlankLine(of: bytes, from: header.end, number: header.lines.count + 3) {
      return .invalid(reason: .contentAfterHeader(line: line))
    }
    let fanOut = values[2].flatMap { Int($0.value) }.map { max(0, $0) } ?? 0
    return .category(id: id, name: name, fanOut: fanOut)
  }

  /// The number of the first line from `start` that holds more than spaces, tabs and a line
  /// end (`number` being the number of the line at `start`); `nil` when there is none.
  private static func firstNonBlankLine(of bytes: [UInt8], from start: Int, number: Int) -> Int? {
    var number = number
    for byte in bytes[start...] {
      switch byte {
      case UInt8(ascii: "\n"): number += 1
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
      default: return number
      }
    }
    return nil
  }
}

/// What a category record in a clone turned out to hold.
public enum CategoryFileParse: Equatable, Sendable {
  /// A category's identity and name, and the number of bucket subfolders its documents lie
  /// in (`0`: none).
  case category(id: ObjectID, name: Name, fanOut: Int = 0)
  /// A record docsh cannot read.
  case invalid(reason: FrontMatterProblem)
}
