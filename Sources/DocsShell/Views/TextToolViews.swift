/// What `cat -n`, `head`, `tail` and `wc` print, byte for byte as coreutils prints it for
/// files holding the same bytes.
enum TextToolViews {
  /// The contents one after the other, each line after its number right-aligned in six
  /// columns and a tab; a document that does not end in a newline runs on into the next,
  /// as `cat -n` of the files does.
  static func numberedLines(_ contents: [String]) -> String {
    let text = contents.joined()
    let utf8 = text.utf8
    var result = ""
    var number = 0
    var lineStart = utf8.startIndex
    while lineStart < utf8.endIndex {
      let lineEnd =
        utf8[lineStart...].firstIndex(of: UInt8(ascii: "\n")).map { utf8.index(after: $0) }
        ?? utf8.endIndex
      number += 1
      let digits = String(number)
      result += String(repeating: " ", count: max(6 - digits.count, 0)) + digits + "\t"
      result += text[lineStart..<lineEnd]
      lineStart = lineEnd
    }
    return result
  }

  /// The excerpts; with more than one, each after a line `==> NAME <==`, and every one but
  /// the first after an empty line too.
  static func excerpts(_ excerpts: [Excerpt]) -> String {
    guard excerpts.count > 1 else { return excerpts.first?.text ?? "" }
    var result = ""
    for (index, excerpt) in excerpts.enumerated() {
      result += (index > 0 ? "\n" : "") + "==> " + excerpt.name + " <==\n" + excerpt.text
    }
    return result
  }

  /// A line per document, then `total` when there are several: the counts asked for, in
  /// the order lines, words, bytes, right-aligned to one width — the digits of all the
  /// documents' bytes together, or none for one count of one document — then the name.
  static func wordCounts(_ report: WordCountReport) -> String {
    var total = TextCounts()
    for row in report.rows {
      total.lines += row.counts.lines
      total.words += row.counts.words
      total.bytes += row.counts.bytes
    }
    let width = report.rows.count == 1 && report.counted.count == 1 ? 1 : String(total.bytes).count
    var rows = report.rows
    if rows.count > 1 { rows.append(WordCountReport.Row(name: "total", counts: total)) }
    var result = ""
    for row in rows {
      var fields: [String] = []
      for count in WordCountReport.Count.allCases where report.counted.contains(count) {
        let value: Int
        switch count {
        case .lines: value = row.counts.lines
        case .words: value = row.counts.words
        case .bytes: value = row.counts.bytes
        }
        let digits = String(value)
        fields.append(String(repeating: " ", count: max(width - digits.count, 0)) + digits)
      }
      result += fields.joined(separator: " ") + " " + row.name + "\n"
    }
    return result
  }
}
