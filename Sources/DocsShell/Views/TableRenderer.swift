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
    // Each cell is escaped and measured once.
    let texts = allRows.map { row in
      row.map { escapedForTerminal($0.text, allowingNewlinesAndTabs: false) }
    }
    let cellWidths = texts.map { row in row.map(DisplayWidth.of) }
    var widths: [Int] = []
    for row in cellWidths {
      for (column, width) in row.enumerated() {
        if column < widths.count {
          widths[column] = max(widths[column], width)
        } else {
          widths.append(width)
        }
      }
    }
    var lines: [String] = []
    lines.reserveCapacity(allRows.count)
    for (rowIndex, row) in allRows.enumerated() {
      let rowTexts = texts[rowIndex]
      var line = ""
      for (column, text) in rowTexts.enumerated() {
        let isLast = column == rowTexts.count - 1
        let padding = widths[column] - cellWidths[rowIndex][column]
        let alignment = column < alignments.count ? alignments[column] : .left
        var padded = ""
        switch alignment {
        case .left:
          padded = text
          if !isLast && padding > 0 { padded += String(repeating: " ", count: padding) }
        case .right:
          if padding > 0 { padded = String(repeating: " ", count: padding) }
          padded += text
        }
        if column > 0 { line += separator }
        line += colors.styled(padded, row[column].style)
      }
      while line.utf8.last == UInt8(ascii: " ") { line.removeLast() }
      lines.append(line)
    }
    return lines
  }
}
