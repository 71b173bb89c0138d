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
    return render(rowCount: allRows.count, cellCount: { allRows[$0].count }) { row, column in
      allRows[row][column]
    }
  }

  /// The lines of a table given column by column, as ``render(header:rows:)`` lays them out:
  /// no array a row, for listings of thousands. Rows past the end of the shortest column are
  /// left out.
  func render(columns: [[Cell]]) -> [String] {
    render(rowCount: columns.map(\.count).min() ?? 0, cellCount: { _ in columns.count }) {
      row, column in columns[column][row]
    }
  }

  /// The lines of `rowCount` rows, row `row` holding `cellCount(row)` cells, each
  /// `cell(row, column)`.
  private func render(
    rowCount: Int, cellCount: (Int) -> Int, cell: (_ row: Int, _ column: Int) -> Cell
  ) -> [String] {
    // Each cell is escaped and measured once, into flat arrays (`firstCell[row]` is where a
    // row's cells start): `ls` of a large category renders thousands of rows.
    var texts: [String] = []
    var cellWidths: [Int] = []
    var firstCell: [Int] = []
    firstCell.reserveCapacity(rowCount + 1)
    var widths: [Int] = []
    for row in 0..<rowCount {
      firstCell.append(texts.count)
      for column in 0..<cellCount(row) {
        let (text, width) = Self.measured(cell(row, column).text)
        texts.append(text)
        cellWidths.append(width)
        if column < widths.count {
          widths[column] = max(widths[column], width)
        } else {
          widths.append(width)
        }
      }
    }
    firstCell.append(texts.count)
    var lines: [String] = []
    lines.reserveCapacity(rowCount)
    // Each line is written into one buffer of bytes, made a string once.
    var line: [UInt8] = []
    for rowIndex in 0..<rowCount {
      line.removeAll(keepingCapacity: true)
      let first = firstCell[rowIndex]
      let count = firstCell[rowIndex + 1] - first
      for column in 0..<count {
        let text = texts[first + column]
        let padding = widths[column] - cellWidths[first + column]
        let alignment = column < alignments.count ? alignments[column] : .left
        let padsLeft = alignment == .right && padding > 0
        let padsRight = alignment == .left && column < count - 1 && padding > 0
        if column > 0 { Self.append(separator, to: &line) }
        // As ``Colors/styled(_:_:)``: the padded text wrapped, unless it is empty.
        let isWrapped = colors.enabled && (padsLeft || padsRight || !text.isEmpty)
        let marks = isWrapped ? colors.marks(cell(rowIndex, column).style) : nil
        if let marks { Self.append(marks.open, to: &line) }
        if padsLeft { line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: padding)) }
        Self.append(text, to: &line)
        if padsRight { line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: padding)) }
        if let marks { Self.append(marks.close, to: &line) }
      }
      while line.last == UInt8(ascii: " ") { line.removeLast() }
      lines.append(String(decoding: line, as: UTF8.self))
    }
    return lines
  }

  /// Appends the bytes of `text` at once (not byte by byte through its UTF-8 view).
  private static func append(_ text: String, to line: inout [UInt8]) {
    var text = text
    text.withUTF8 { line.append(contentsOf: $0) }
  }

  /// A cell's text escaped for the terminal, with its width in columns: printable ASCII
  /// (most cells) as it is, one byte a column, found in one pass over its bytes.
  private static func measured(_ text: String) -> (text: String, width: Int) {
    var text = text
    let isPrintableASCII = text.withUTF8 { bytes in
      bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
    if isPrintableASCII { return (text, text.utf8.count) }
    let escaped = escapedForTerminal(text, allowingNewlinesAndTabs: false)
    return (escaped, DisplayWidth.of(escaped))
  }
}
