/// Rows of cells laid out in aligned columns for the terminal.
struct TableRenderer: Sendable {
  /// Which side of its column a cell's text keeps to.
  enum Alignment: Sendable {
    /// Padding on the right (names).
    case left
    /// Padding on the left (numbers).
    case right
  }

  /// One cell: its text and an optional style.
  struct Cell: Equatable, Sendable, ExpressibleByStringLiteral {
    /// The text; control characters are escaped when rendered.
    var text: String
    /// The style applied when colors are enabled.
    var style: TerminalStyle?

    /// Makes a cell with an optional style.
    init(_ text: String, style: TerminalStyle? = nil) {
      self.text = text
      self.style = style
    }

    /// Makes an unstyled cell from a literal.
    init(stringLiteral text: String) {
      self.init(text)
    }
  }

  /// The alignment of each column; columns past the end are left-aligned.
  var alignments: [Alignment]
  /// The colors used for styled cells.
  var colors: Colors
  /// The text between columns.
  var separator = "  "

  /// Makes a renderer with per-column alignments and colors (off by default).
  init(alignments: [Alignment] = [], colors: Colors = .disabled) {
    self.alignments = alignments
    self.colors = colors
  }

  /// The lines of the table, header first when given, without trailing newlines. Rows may
  /// have fewer cells than others; no line ends in spaces.
  func render(header: [Cell]? = nil, rows: [[Cell]]) -> [String] {
    let allRows = (header.map { [$0] } ?? []) + rows
    let texts = allRows.map { row in
      row.map { escapedForTerminal($0.text, allowingNewlinesAndTabs: false) }
    }
    var widths: [Int] = []
    for row in texts {
      for (column, text) in row.enumerated() {
        let width = DisplayWidth.of(text)
        if column < widths.count {
          widths[column] = max(widths[column], width)
        } else {
          widths.append(width)
        }
      }
    }
    return zip(allRows, texts).map { row, rowTexts in
      var line = ""
      for (column, text) in rowTexts.enumerated() {
        let isLast = column == rowTexts.count - 1
        let padding = String(repeating: " ", count: widths[column] - DisplayWidth.of(text))
        let alignment = column < alignments.count ? alignments[column] : .left
        let padded: String
        switch alignment {
        case .left: padded = isLast ? text : text + padding
        case .right: padded = padding + text
        }
        if column > 0 { line += separator }
        line += colors.styled(padded, row[column].style)
      }
      while line.utf8.last == UInt8(ascii: " ") { line.removeLast() }
      return line
    }
  }
}
