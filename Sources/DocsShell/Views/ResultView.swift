import DocsKit

/// Shows what a command returned: picks the view for the kind of result, which decides table,
/// text or JSON and colors, and writes it out. The one place output is made.
struct ResultView {
  /// Standard output.
  let output: TextOutput
  /// Standard error, for messages.
  let errors: TextOutput
  /// Colors, when on.
  let colors: Colors
  /// How dates are shown.
  let dates: DateFormatting
  /// The time now, for short dates.
  let now: Timestamp

  /// Writes `result` out. Requests to the interpreter (`runFile`, `exit`) show nothing.
  func show(_ result: CommandResult) {
    switch result {
    case .nothing, .runFile, .exit:
      break
    case .messages(let lines):
      for line in lines { errors.writeLine(escapedOnTerminal(line, errors)) }
    case .location(let location):
      writeLine(location)
    case .categories(let listings, let format):
      if format == .json { return writeJSON(ListingView.categoriesJSON(listings)) }
      writeTable(listingView(format).categoryTable(listings))
    case .documents(let documents, let format):
      if format == .json { return writeJSON(ListingView.documentsJSON(documents)) }
      writeTable(listingView(format).documentTable(documents))
    case .documentInfo(let document, let format):
      let view = InfoView(document: document)
      if format == .json { return writeJSON(view.json()) }
      writeTable(view.lines(colors: colors, dates: dates))
    case .foundDocuments(let documents, let format):
      if format == .json { return writeJSON(MatchesView.foundJSON(documents)) }
      for document in documents { writeLine(document.path) }
    case .links(let links, let format):
      if format == .json { return writeJSON(LinkViews.linksJSON(links)) }
      writeLines(LinkViews.linkLines(links))
    case .backlinks(let backlinks, let format):
      if format == .json { return writeJSON(LinkViews.backlinksJSON(backlinks)) }
      writeLines(LinkViews.backlinkLines(backlinks))
    case .tagCounts(let counts, let format):
      if format == .json { return writeJSON(ListingView.tagsJSON(counts)) }
      writeTable(listingView(format).tagTable(counts))
    case .matches(let report, let format):
      let view = MatchesView(report: report)
      if format == .json { return writeJSON(view.json()) }
      view.write(to: output)
    case .searchHits(let hits, let format):
      let view = SearchView(hits: hits)
      if format == .json { return writeJSON(view.json()) }
      writeTable(view.lines(colors: colors))
    case .contents(let contents):
      for content in contents { writeContent(content) }
    case .numberedContents(let contents):
      writeContent(TextToolViews.numberedLines(contents))
    case .excerpts(let excerpts):
      writeContent(TextToolViews.excerpts(excerpts))
    case .wordCounts(let report):
      writeContent(TextToolViews.wordCounts(report))
    case .status(let report, let format):
      let view = StatusView(report: report)
      if format == .json { return writeJSON(view.json()) }
      writeTable(view.lines(colors: colors))
    case .checkReport(let report, let missingLinks):
      writeLines(CheckReportView(report: report).lines + LinkViews.missingLines(missingLinks))
    case .commandList(let commands):
      writeTable(HelpView.commandTable(commands, colors: colors))
    case .commandHelp(let command):
      writeLines(HelpView.help(of: command))
    case .history(let entries):
      writeLines(HistoryView.lines(entries))
    case .clearScreen:
      // As clear(1) does: home the cursor, erase the screen and the scrollback (ED 3); to a
      // pipe or a file, nothing.
      if output.isTerminal { output.write("\u{1B}[H\u{1B}[2J\u{1B}[3J") }
    case .tree(let report):
      writeTable(TreeView(report: report).lines(colors: colors))
    case .syncReport(let report):
      writeLines(HistoryViews.syncLines(report))
    case .versions(let versions, let format):
      if format == .json { return writeJSON(HistoryViews.versionsJSON(versions)) }
      writeTable(HistoryViews.versionTable(versions, dates: dates, colors: colors))
    case .commits(let commits, let format):
      if format == .json { return writeJSON(HistoryViews.commitsJSON(commits)) }
      writeTable(HistoryViews.commitTable(commits, dates: dates, colors: colors))
    case .diff(let report):
      writeTable(HistoryViews.diffLines(report, colors: colors))
    case .conflictVersions(let versions):
      writeTable(HistoryViews.conflictLines(versions, colors: colors))
    }
  }

  private func listingView(_ format: OutputFormat) -> ListingView {
    ListingView(colors: colors, dates: dates, now: now, long: format == .long)
  }

  private func writeJSON(_ value: JSONValue) {
    output.writeLine(value.rendered)
  }

  /// Writes a line of text that holds no color, escaped when it goes to a terminal.
  private func writeLine(_ line: String) {
    output.writeLine(escapedOnTerminal(line, output))
  }

  private func writeLines(_ lines: [String]) {
    for line in lines { writeLine(line) }
  }

  /// Writes the lines of a table as they are: its cells are escaped by ``TableRenderer``, and
  /// its colors are the view's own, never to be escaped.
  private func writeTable(_ lines: [String]) {
    for line in lines { output.writeLine(line) }
  }

  /// Writes a document's content byte for byte to a pipe; to a terminal with control
  /// characters escaped and a final newline, so the prompt keeps off its last line.
  private func writeContent(_ content: String) {
    guard output.isTerminal else { return output.write(content) }
    output.write(escapedForTerminal(content, allowingNewlinesAndTabs: true))
    if !content.isEmpty && !content.hasSuffix("\n") { output.write("\n") }
  }
}

/// `text` escaped for the terminal when `destination` is one, as it is otherwise.
func escapedOnTerminal(_ text: String, _ destination: TextOutput) -> String {
  destination.isTerminal ? escapedForTerminal(text, allowingNewlinesAndTabs: false) : text
}

/// What `info` shows: a document's name, category, exact size, date and id.
struct InfoView {
  let document: LocatedDocument

  /// The table of fields.
  func lines(colors: Colors, dates: DateFormatting) -> [String] {
    let size = document.document.size
    let rows: [[TableRenderer.Cell]] =
      [
        ["name:", TableRenderer.Cell(document.document.name.text)],
        ["category:", TableRenderer.Cell(document.categoryName, style: .category)],
        [
          "size:",
          TableRenderer.Cell(SizeFormatting.exactBytes(size) + (size == 1 ? " byte" : " bytes")),
        ],
        [
          "modified:",
          TableRenderer.Cell(dates.full(document.document.modified.millisecondsSince1970)),
        ],
        ["id:", TableRenderer.Cell(document.document.id.description, style: .dim)],
      ]
      + (document.document.tags.isEmpty
        ? []
        : [
          ["tags:", TableRenderer.Cell(document.document.tags.map(\.text).joined(separator: " "))]
        ])
    return TableRenderer(colors: colors).render(rows: rows)
  }

  /// The fields as JSON: `{"id","name","category","size","modified"}`.
  func json() -> JSONValue {
    .object(
      [
        ("id", .string(document.document.id.description)),
        ("name", .string(document.document.name.text)),
        ("category", .string(document.categoryName)), ("size", .integer(document.document.size)),
        ("modified", .date(document.document.modified)),
      ] + ListingView.tagsField(document.document))
  }
}

/// What `find` and `grep` print.
struct MatchesView {
  let report: GrepReport

  /// `find --json`: `[{"category","name","size","modified"}]`.
  static func foundJSON(_ documents: [LocatedDocument]) -> JSONValue {
    .array(
      documents.map { document in
        .object(
          [
            ("category", .string(document.categoryName)),
            ("name", .string(document.document.name.text)),
            ("size", .integer(document.document.size)),
            ("modified", .date(document.document.modified)),
          ] + ListingView.tagsField(document.document))
      })
  }

  /// Writes the lines (`CATEGORY/NAME:LINE: text`), the documents (`CATEGORY/NAME`) or the
  /// counts (`CATEGORY/NAME:2`), escaped on a terminal.
  func write(to output: TextOutput) {
    switch report {
    case .lines(let located):
      for lines in located.documents {
        let place = located.categoryName(of: lines.document) + "/" + lines.document.name.text + ":"
        if output.isTerminal {
          lines.forEachLine { number, line in
            let text = place + String(number) + ": " + String(decoding: line, as: UTF8.self)
            output.writeLine(escapedOnTerminal(text, output))
          }
          continue
        }
        // Bytes as they are, no string per line (grep prints hundreds of thousands): the
        // document's lines formatted into one buffer, written at once.
        output.write(bytes: MatchesView.formatted(lines, prefix: Array(place.utf8)))
      }
    case .documents(let documents):
      for document in documents { output.writeLine(escapedOnTerminal(document.path, output)) }
    case .counts(let counts):
      for (document, count) in counts {
        output.writeLine(escapedOnTerminal(document.path + ":" + String(count), output))
      }
    }
  }

  /// `PREFIX` `LINE: text` and a line feed for each line of `lines`, as bytes.
  static func formatted(_ lines: MatchingLines, prefix: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(lines.byteCount + lines.count * (prefix.count + 12))
    lines.forEachLine { number, line in
      bytes.append(contentsOf: prefix)
      appendDecimal(number, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      bytes.append(UInt8(ascii: " "))
      bytes.append(contentsOf: line)
      bytes.append(0x0A)
    }
    return bytes
  }

  /// `number` in decimal, appended to `bytes`.
  static func appendDecimal(_ number: Int, to bytes: inout [UInt8]) {
    if number < 0 { bytes.append(UInt8(ascii: "-")) }
    var value = number.magnitude
    var divisor: UInt = 1
    while value / divisor >= 10 { divisor *= 10 }
    while divisor > 0 {
      bytes.append(UInt8(ascii: "0") + UInt8(value / divisor))
      value %= divisor
      divisor /= 10
    }
  }

  /// `grep --json`: lines `[{"category","name","line","text"}]`, documents
  /// `[{"category","name"}]`, counts `[{"category","name","count"}]`.
  func json() -> JSONValue {
    switch report {
    case .lines(let located):
      var lines: [JSONValue] = []
      for document in located.documents {
        document.forEachLine { number, line in
          lines.append(
            .object([
              ("category", .string(located.categoryName(of: document.document))),
              ("name", .string(document.document.name.text)),
              ("line", .integer(number)), ("text", .string(String(decoding: line, as: UTF8.self))),
            ]))
        }
      }
      return .array(lines)
    case .documents(let documents):
      return .array(
        documents.map {
          .object([
            ("category", .string($0.categoryName)), ("name", .string($0.document.name.text)),
          ])
        })
    case .counts(let counts):
      return .array(
        counts.map { document, count in
          .object([
            ("category", .string(document.categoryName)),
            ("name", .string(document.document.name.text)), ("count", .integer(count)),
          ])
        })
    }
  }
}

/// What `help` shows.
enum HelpView {
  /// Every command with its abstract, then how to get more.
  static func commandTable(_ commands: [CommandConfiguration], colors: Colors) -> [String] {
    let rows = commands.map { configuration -> [TableRenderer.Cell] in
      let names = ([configuration.name] + configuration.aliases).joined(separator: ", ")
      return [TableRenderer.Cell(names, style: .bold), TableRenderer.Cell(configuration.abstract)]
    }
    return TableRenderer(colors: colors).render(rows: rows).map { "  " + $0 }
      + ["Type 'help COMMAND' for its usage and an example."]
  }

  /// One command's usage line, abstract, discussion, aliases and example.
  static func help(of configuration: CommandConfiguration) -> [String] {
    var lines = ["usage: \(configuration.usage)", "  \(configuration.abstract)"]
    if !configuration.discussion.isEmpty {
      lines += configuration.discussion.split(separator: "\n").map { "  \($0)" }
    }
    if !configuration.aliases.isEmpty {
      lines.append("also: \(configuration.aliases.joined(separator: ", "))")
    }
    lines.append("example: \(configuration.example)")
    return lines
  }
}

/// What `history` shows: the entries numbered from 1, numbers right-aligned.
enum HistoryView {
  static func lines(_ entries: [String]) -> [String] {
    let width = String(entries.count).count
    return entries.enumerated().map { index, entry in
      let number = String(index + 1)
      return String(repeating: " ", count: width - number.count) + number + "  " + entry
    }
  }
}

/// What `tree` draws: tree(1)'s lines, names escaped as table cells are, categories colored
/// as `ls` colors them, and the counts at the end.
struct TreeView {
  let report: TreeReport

  func lines(colors: Colors) -> [String] {
    func name(_ text: String) -> String { escapedForTerminal(text, allowingNewlinesAndTabs: false) }
    func leaves(_ names: [String], indent: String) -> [String] {
      names.enumerated().map { index, leaf in
        indent + (index == names.count - 1 ? "└── " : "├── ") + name(leaf)
      }
    }
    let documentCount = report.branches.reduce(0) { $0 + $1.documentNames.count }
    let documents = documentCount == 1 ? "1 document" : "\(documentCount) documents"
    if let root = report.rootCategory {
      let names = report.branches.first?.documentNames ?? []
      return [colors.styled(name(root) + "/", .category)] + leaves(names, indent: "")
        + ["", documents]
    }
    var lines = ["/"]
    for (index, branch) in report.branches.enumerated() {
      let isLast = index == report.branches.count - 1
      lines.append(
        (isLast ? "└── " : "├── ") + colors.styled(name(branch.categoryName) + "/", .category))
      lines += leaves(branch.documentNames, indent: isLast ? "    " : "│   ")
    }
    let count = report.branches.count
    return lines + ["", "\(count) categor\(count == 1 ? "y" : "ies"), \(documents)"]
  }
}

/// What `search` prints: `CATEGORY/NAME  …snippet…`, the words that matched marked in the
/// name and the snippet; or JSON with the score.
struct SearchView {
  let hits: [LocatedHit]

  /// One line per hit, best first; control characters escaped, highlights styled.
  func lines(colors: Colors) -> [String] {
    hits.map { located in
      let name = located.document.document.name.text
      return escapedForTerminal(located.document.categoryName, allowingNewlinesAndTabs: false)
        + "/" + SearchView.marked(name, located.hit.nameHighlights, colors: colors) + "  "
        + SearchView.marked(
          located.hit.snippet.text, located.hit.snippet.highlights, colors: colors)
    }
  }

  /// `[{"category","name","score","snippet"}]`, in the order printed.
  func json() -> JSONValue {
    .array(
      hits.map { located in
        .object([
          ("category", .string(located.document.categoryName)),
          ("name", .string(located.document.document.name.text)),
          ("score", .number(located.hit.score)), ("snippet", .string(located.hit.snippet.text)),
        ])
      })
  }

  /// `text` escaped, with the pieces in `highlights` styled as matches.
  static func marked(_ text: String, _ highlights: [Range<String.Index>], colors: Colors)
    -> String
  {
    var result = ""
    var position = text.startIndex
    for range in highlights.sorted(by: { $0.lowerBound < $1.lowerBound })
    where range.lowerBound >= position && range.upperBound <= text.endIndex {
      result += escapedForTerminal(
        String(text[position..<range.lowerBound]), allowingNewlinesAndTabs: false)
      result += colors.styled(
        escapedForTerminal(String(text[range]), allowingNewlinesAndTabs: false), .match)
      position = range.upperBound
    }
    return result
      + escapedForTerminal(String(text[position..<text.endIndex]), allowingNewlinesAndTabs: false)
  }
}
