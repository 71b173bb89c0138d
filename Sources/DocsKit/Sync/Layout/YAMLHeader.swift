/// The subset of YAML that front matter of Obsidian's properties and of Hugo is written in,
/// as docsh reads a header: each entry a `key: value` line, followed by lines that continue
/// it (indented, or list items `- item`); a value is a scalar — plain, `"double"` or
/// `'single'` quoted — a flow list `[a, "b"]`, or, when the key's line holds none, the block
/// list of the lines after it.
///
/// Only `tags:` (and docsh's own `id:` and `modified:`) are read for their values; every
/// other entry is kept as its bytes, exactly, so that a header another tool wrote comes back
/// as it was.
struct YAMLHeader {
  /// One entry: its key's line and the lines continuing it.
  struct Entry {
    /// The key, as written before the `:`.
    var key: String
    /// The key's line and its continuation lines.
    var lines: [FrontMatter.Line]
    /// Where the entry lies in the file, line ends included.
    var range: Range<Int> {
      (lines.first?.range.lowerBound ?? 0)..<(lines.last?.range.upperBound ?? 0)
    }
  }

  /// The entries, in order.
  var entries: [Entry]

  /// The entries of `header`; the number of the first line that neither starts an entry
  /// nor continues one when there is such a line.
  static func read(_ header: FrontMatter) -> Result<YAMLHeader, FrontMatterProblem> {
    var entries: [Entry] = []
    for line in header.lines {
      let first = line.bytes.first
      let continues =
        first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") || first == UInt8(ascii: "-")
        || first == UInt8(ascii: "#")
      if continues, !entries.isEmpty {
        entries[entries.count - 1].lines.append(line)
        continue
      }
      guard !continues, let key = line.key else {
        return .failure(.malformedLine(line: line.number))
      }
      entries.append(Entry(key: String(decoding: key, as: UTF8.self), lines: [line]))
    }
    return .success(YAMLHeader(entries: entries))
  }

  /// The one scalar of `entry`: its line's value, unquoted; `nil` when continuation lines
  /// follow it or it is a list.
  static func scalar(of entry: Entry) -> String? {
    guard entry.lines.count == 1, let line = entry.lines.first else { return nil }
    let value = line.value
    guard !value.hasPrefix("[") else { return nil }
    return unquoted(value[...])
  }

  /// The words of a `tags:` entry: a flow list, a block list, or a scalar (whose words, in
  /// the form docsh wrote before, are separated by spaces or commas).
  static func listItems(of entry: Entry) -> [(text: String, line: Int)]? {
    guard let line = entry.lines.first else { return [] }
    let value = line.value
    var items: [(String, Int)] = []
    if value.isEmpty {
      for item in entry.lines.dropFirst() {
        // By scalars, not characters: a combining mark after a blank is no part of it.
        var text = trimmed(Substring(String(decoding: item.bytes, as: UTF8.self)))
        if text.unicodeScalars.first == "#" || text.isEmpty { continue }
        guard text.unicodeScalars.first == "-" else { return nil }
        text = Substring(text.unicodeScalars.dropFirst())
        items.append((unquoted(trimmed(text)), item.number))
      }
      return items
    }
    guard entry.lines.count == 1 else { return nil }
    if value.hasPrefix("[") {
      guard value.hasSuffix("]") else { return nil }
      for part in split(value.dropFirst().dropLast(), at: [","]) {
        let text = trimmed(part)
        if !text.isEmpty { items.append((unquoted(text), line.number)) }
      }
      return items
    }
    if value.first == "\"" || value.first == "'" { return [(unquoted(value[...]), line.number)] }
    return split(value[...], at: [" ", ",", "\t"]).map { (String($0), line.number) }
  }

  /// The non-empty pieces of `text` between the scalars `separators`: by scalars, not
  /// characters, so that a combining mark after a separator does not hide it.
  private static func split(_ text: Substring, at separators: Set<Unicode.Scalar>)
    -> [Substring]
  {
    text.unicodeScalars.split(whereSeparator: { separators.contains($0) }).map { Substring($0) }
  }

  /// `text` without the quotes around it (`''` in single quotes is one `'`; `\"` and `\\`
  /// in double quotes are one character).
  static func unquoted(_ text: Substring) -> String {
    // By scalars: a combining mark after a quote is inside it, not the quote's.
    let scalars = text.unicodeScalars
    guard scalars.count >= 2, let first = scalars.first, first == scalars.last,
      first == "'" || first == "\""
    else { return String(text) }
    let inner = scalars.dropFirst().dropLast()
    if first == "'" { return String(String.UnicodeScalarView(inner)).replacing("''", with: "'") }
    var result = String.UnicodeScalarView()
    var escaped = false
    for scalar in inner {
      if escaped || scalar != "\\" {
        result.append(scalar)
        escaped = false
      } else {
        escaped = true
      }
    }
    return String(result)
  }

  /// `text` without spaces and tabs around it, by scalars (a combining mark after a blank
  /// stays).
  private static func trimmed(_ text: Substring) -> Substring {
    var scalars = text.unicodeScalars[...]
    while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
    while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
    return Substring(scalars)
  }

  /// `tag` as a YAML scalar that reads back as that string: plain when it starts with a
  /// letter and is no word YAML reads as a boolean or null, double-quoted otherwise (a tag
  /// holds no quote or backslash).
  static func scalar(_ tag: String) -> String {
    let reserved: Set<String> = ["yes", "no", "true", "false", "on", "off", "null", "y", "n"]
    guard let first = tag.unicodeScalars.first, first.properties.isAlphabetic,
      !reserved.contains(tag.lowercased())
    else { return "\"" + tag + "\"" }
    return tag
  }
}
