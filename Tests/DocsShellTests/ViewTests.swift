import DocsKit
import Foundation
import Testing

@testable import DocsShell

@Suite struct TerminalEscapingTests {
  @Test(arguments: [
    ("plain text", "plain text"),
    ("", ""),
    ("Café 日本 🙂", "Café 日本 🙂"),
    (#"back\slash"#, #"back\slash"#),
    ("\u{1B}[31mred", #"\e[31mred"#),
    ("a\tb\nc", #"a\tb\nc"#),
    ("a\r\nb", #"a\r\nb"#),
    ("bell\u{07}", #"bell\x07"#),
    ("nul\u{0}", #"nul\x00"#),
    ("del\u{7F}", #"del\x7F"#),
    ("c1\u{85}\u{9B}", #"c1\u{0085}\u{009B}"#),
    ("line\u{2028}para\u{2029}", #"line\u{2028}para\u{2029}"#),
    ("evil\u{202E}txt.exe", #"evil\u{202E}txt.exe"#),
    ("\u{202A}\u{2066}\u{2069}", #"\u{202A}\u{2066}\u{2069}"#),
    ("\u{2027}\u{2030}\u{2065}\u{206A}", "\u{2027}\u{2030}\u{2065}\u{206A}"),
    ("\u{A0}\u{7E}", "\u{A0}\u{7E}"),
  ])
  func escapesNames(_ text: String, _ escaped: String) {
    #expect(escapedForTerminal(text, allowingNewlinesAndTabs: false) == escaped)
  }

  @Test(arguments: [
    ("a\tb\nc", "a\tb\nc"),
    ("a\r\nb", "a\\r\nb"),
    ("\u{1B}]0;title\u{07}\n", #"\e]0;title\x07"# + "\n"),
  ])
  func keepsNewlinesAndTabsInContent(_ text: String, _ escaped: String) {
    #expect(escapedForTerminal(text, allowingNewlinesAndTabs: true) == escaped)
  }
}

@Suite struct SizeFormattingTests {
  @Test(arguments: [
    (0, "0 B"), (1, "1 B"), (999, "999 B"), (1000, "1.0 kB"), (1049, "1.0 kB"),
    (1050, "1.1 kB"), (1234, "1.2 kB"), (1250, "1.3 kB"), (9949, "9.9 kB"),
    (9950, "10 kB"), (9999, "10 kB"), (12_345, "12 kB"), (12_500, "13 kB"),
    (999_499, "999 kB"), (999_500, "1.0 MB"), (999_999, "1.0 MB"), (1_000_000, "1.0 MB"),
    (224_999_999, "225 MB"), (999_499_999, "999 MB"), (999_500_000, "1.0 GB"),
    (1_500_000_000, "1.5 GB"), (1_000_000_000_000, "1.0 TB"),
    (Int.max, "9.2 EB"), (-1234, "-1.2 kB"), (-5, "-5 B"), (Int.min, "-9.2 EB"),
    (-999_500, "-1.0 MB"), (-12_345, "-12 kB"),
  ])
  func formatsHumanSizes(_ byteCount: Int, _ text: String) {
    #expect(SizeFormatting.humanReadable(byteCount) == text)
  }

  @Test func neverPrintsAThousandOfAUnit() {
    var byteCount = 990
    while byteCount < 3_000_000 {
      let text = SizeFormatting.humanReadable(byteCount)
      #expect(!text.hasPrefix("1000 "), "\(byteCount) → \(text)")
      byteCount += 37
    }
  }

  @Test(arguments: [
    (0, false, "0"), (1234, false, "1234"), (1234, true, "1,234"), (999, true, "999"),
    (1_000_000, true, "1,000,000"), (123_456_789, true, "123,456,789"), (-1234, true, "-1,234"),
  ])
  func formatsExactBytes(_ byteCount: Int, _ grouped: Bool, _ text: String) {
    #expect(SizeFormatting.exactBytes(byteCount, grouped: grouped) == text)
  }
}

@Suite struct DateFormattingTests {
  /// 2025-11-29T14:53:00.123Z.
  static let moment: Int64 = 1_764_427_980_123
  static let day: Int64 = 86_400_000

  @Test(arguments: [
    (moment, moment, "Nov 29 14:53"),
    (moment, moment + day, "Nov 29 14:53"),
    (moment, moment + 180 * day, "Nov 29 14:53"),
    (moment, moment + 183 * day, "Nov 29  2025"),
    (moment, moment - 1, "Nov 29  2025"),
    (moment - 20 * day, moment, "Nov  9 14:53"),
    (0, moment, "Jan  1  1970"),
    (-1, moment, "Dec 31  1969"),
  ])
  func formatsShortDatesInUTC(_ milliseconds: Int64, _ now: Int64, _ text: String) {
    #expect(DateFormatting(timeZone: .utc).short(milliseconds, now: now) == text)
  }

  @Test(arguments: [
    (0, moment, "2025-11-29 14:53:00.123 +0000"),
    (3600, moment, "2025-11-29 15:53:00.123 +0100"),
    (-9000, moment, "2025-11-29 12:23:00.123 -0230"),
    (36_000, moment, "2025-11-30 00:53:00.123 +1000"),
    (0, 0, "1970-01-01 00:00:00.000 +0000"),
    (0, -1, "1969-12-31 23:59:59.999 +0000"),
    (0, 951_782_400_000, "2000-02-29 00:00:00.000 +0000"),
  ])
  func formatsFullDates(_ offset: Int, _ milliseconds: Int64, _ text: String) {
    #expect(DateFormatting(timeZone: .fixed(seconds: offset)).full(milliseconds) == text)
  }

  @Test func shortFormUsesLocalTime() {
    let formatting = DateFormatting(timeZone: .fixed(seconds: 10 * 3600))
    #expect(formatting.short(Self.moment, now: Self.moment) == "Nov 30 00:53")
  }

  @Test func aZoneCanDependOnTheMoment() {
    let summer = TimeZoneOffset { $0 >= 1_000_000_000 ? 7200 : 3600 }
    let formatting = DateFormatting(timeZone: summer)
    #expect(formatting.full(0) == "1970-01-01 01:00:00.000 +0100")
    #expect(formatting.full(Self.moment) == "2025-11-29 16:53:00.123 +0200")
  }

  @Test func theSystemZoneIsAPlausibleOffset() {
    let offset = TimeZoneOffset.system.secondsEast(Self.moment / 1000)
    #expect((-14 * 3600...14 * 3600).contains(offset))
  }
}

@Suite struct DisplayWidthTests {
  @Test(arguments: [
    ("", 0), ("abc", 3), ("Café", 4), ("Cafe\u{301}", 4), ("日本語", 6), ("한국", 4),
    ("🙂", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("❤️", 2), ("🇫🇷", 2), ("ｆｕｌｌ", 8),
    ("a\u{200B}b", 2), ("\u{301}", 0), ("x\u{FE0E}", 1), ("\u{1B}", 0), ("｡", 1),
    ("☕", 2), ("🫠", 2), ("a☕b🫠", 6), ("\u{1160}", 0), ("\u{AD}", 1),
  ])
  func measuresColumns(_ text: String, _ width: Int) {
    #expect(DisplayWidth.of(text) == width)
  }

  /// `wcwidth()` of the Python package for every code point, as runs `START WIDTH`, from
  /// `Reference/wcwidth.txt` (written by `scripts/generate-width-table.py`).
  static func referenceRuns() throws -> [(start: UInt32, width: Int)] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Reference/wcwidth.txt")
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
      .filter { !$0.hasPrefix("#") }
      .map { line in
        let fields = line.split(separator: " ")
        return (
          try #require(UInt32(fields[0], radix: 16)), try #require(Int(fields[1]))
        )
      }
  }

  /// Every scalar measures as wcwidth() measures it, but the controls, which it calls -1
  /// and docsh 0 (they never reach a terminal unescaped).
  @Test func everyScalarMeasuresAsWcwidthDoes() throws {
    let runs = try Self.referenceRuns()
    #expect(runs.count > 500)
    var differences: [String] = []
    for (index, run) in runs.enumerated() {
      let end = index + 1 < runs.count ? runs[index + 1].start : 0x110000
      for value in run.start..<end {
        guard let scalar = Unicode.Scalar(value) else { continue }
        let expected = run.width < 0 ? 0 : run.width
        if DisplayWidth.of(scalar) != expected, differences.count < 20 {
          differences.append(
            String(value, radix: 16) + ": \(DisplayWidth.of(scalar)) ≠ \(expected)")
        }
      }
    }
    #expect(differences.isEmpty, "\(differences)")
  }

  /// wcwidth's -1 means exactly the C0 and C1 controls.
  @Test func onlyTheControlsAreUnprintableInTheReference() throws {
    let runs = try Self.referenceRuns()
    let unprintable = runs.enumerated().filter { $0.element.width < 0 }.map { index, run in
      run.start..<(index + 1 < runs.count ? runs[index + 1].start : 0x110000)
    }
    #expect(unprintable == [1..<0x20, 0x7F..<0xA0])
  }
}

@Suite struct ColorsTests {
  @Test func disabledColorsLeaveTextUnchanged() {
    #expect(Colors(enabled: false).styled("Work", .category) == "Work")
  }

  @Test(arguments: [
    (TerminalStyle.category, "\u{1B}[1;34mWork\u{1B}[0m"),
    (.size, "\u{1B}[32mWork\u{1B}[0m"),
    (.error, "\u{1B}[1;31mWork\u{1B}[0m"),
    (.dim, "\u{1B}[2mWork\u{1B}[0m"),
  ])
  func enabledColorsWrapText(_ style: TerminalStyle, _ text: String) {
    #expect(Colors(enabled: true).styled("Work", style) == text)
  }

  @Test func noStyleAndEmptyTextStayPlain() {
    #expect(Colors(enabled: true).styled("Work", nil) == "Work")
    #expect(Colors(enabled: true).styled("", .dim) == "")
  }

  @Test(arguments: [
    (true, [String: String](), true),
    (false, [:], false),
    (true, ["NO_COLOR": "1"], false),
    (true, ["NO_COLOR": ""], true),
    (true, ["TERM": "dumb"], false),
    (true, ["TERM": "xterm-256color"], true),
  ])
  func decidesAutomatically(_ isTerminal: Bool, _ environment: [String: String], _ enabled: Bool) {
    #expect(Colors.automatic(isTerminal: isTerminal) { environment[$0] }.enabled == enabled)
  }
}

@Suite struct TableRendererTests {
  @Test func alignsColumnsWithTwoSpaces() {
    let renderer = TableRenderer(alignments: [.left, .right, .left])
    let lines = renderer.render(
      header: ["NAME", "SIZE", "MODIFIED"],
      rows: [["Notes", "1.2 kB", "Nov 29 14:53"], ["Meeting Notes", "12 B", "Jan  1  1970"]])
    #expect(
      lines == [
        "NAME             SIZE  MODIFIED",
        "Notes          1.2 kB  Nov 29 14:53",
        "Meeting Notes    12 B  Jan  1  1970",
      ])
  }

  @Test func doesNotPadTheLastColumnOrEndInSpaces() {
    let lines = TableRenderer().render(rows: [
      ["a", "long text"], ["bbbb", "x"], ["c", ""], ["d"],
    ])
    #expect(lines == ["a     long text", "bbbb  x", "c", "d"])
  }

  @Test func rightAlignsTheLastColumnToo() {
    let lines = TableRenderer(alignments: [.left, .right]).render(rows: [
      ["a", "1"], ["b", "100"],
    ])
    #expect(lines == ["a    1", "b  100"])
  }

  @Test func measuresWideCharacters() {
    let lines = TableRenderer().render(rows: [["日本", "x"], ["abc", "y"], ["🙂", "z"]])
    #expect(lines == ["日本  x", "abc   y", "🙂    z"])
  }

  @Test func escapesControlCharactersBeforeMeasuring() {
    let lines = TableRenderer().render(rows: [["a\u{1B}b", "x"], ["abcd", "y"]])
    #expect(lines == [#"a\eb  x"#, "abcd  y"])
  }

  @Test func stylesPaddedCellsOnlyWhenEnabled() {
    let rows: [[TableRenderer.Cell]] = [
      [TableRenderer.Cell("Work", style: .category), "3"], ["x", "10"],
    ]
    let plain = TableRenderer(alignments: [.left, .right]).render(rows: rows)
    #expect(plain == ["Work   3", "x     10"])
    let colored = TableRenderer(alignments: [.left, .right], colors: Colors(enabled: true))
      .render(rows: rows)
    #expect(colored == ["\u{1B}[1;34mWork\u{1B}[0m   3", "x     10"])
  }

  /// A styled cell keeps its padding inside its colors, on whichever side it is padded; an
  /// empty cell with no padding gets no colors; an unstyled one none whatever its padding.
  @Test func stylesEachPaddedCellAsAWhole() {
    let rows: [[TableRenderer.Cell]] = [
      [TableRenderer.Cell("", style: .category), TableRenderer.Cell("7", style: .size), "x"],
      [TableRenderer.Cell("Work", style: .category), TableRenderer.Cell("123", style: .size)],
      [TableRenderer.Cell("ab", style: .dim), "", TableRenderer.Cell("", style: .dim)],
    ]
    let colored = TableRenderer(alignments: [.left, .right], colors: Colors(enabled: true))
      .render(rows: rows)
    #expect(
      colored == [
        "\u{1B}[1;34m    \u{1B}[0m  \u{1B}[32m  7\u{1B}[0m  x",
        "\u{1B}[1;34mWork\u{1B}[0m  \u{1B}[32m123\u{1B}[0m",
        "\u{1B}[2mab  \u{1B}[0m",
      ])
    let plain = TableRenderer(alignments: [.left, .right]).render(rows: rows)
    #expect(plain == ["        7  x", "Work  123", "ab"])
  }

  /// Text that is not printable ASCII is escaped and measured in columns, colors or not.
  @Test func measuresEscapedAndWideCellsWithColors() {
    let rows: [[TableRenderer.Cell]] = [
      [TableRenderer.Cell("日本\t", style: .category), "1"], ["abcdefg", "2"],
    ]
    let colored = TableRenderer(colors: Colors(enabled: true)).render(rows: rows)
    #expect(colored == ["\u{1B}[1;34m日本\\t \u{1B}[0m  1", "abcdefg  2"])
  }

  /// A table given column by column is laid out as the same table given row by row.
  @Test(arguments: [false, true])
  func rendersColumnsAsTheRowsTheyHold(colored: Bool) {
    let rows: [[TableRenderer.Cell]] = [
      ["Plan", TableRenderer.Cell("1.2 kB", style: .size), TableRenderer.Cell("", style: .dim)],
      ["日本\u{1B}", TableRenderer.Cell("12 B", style: .size), "Nov 29 14:53"],
      ["", TableRenderer.Cell("999 kB", style: .size), TableRenderer.Cell("x", style: .dim)],
    ]
    let columns = (0..<3).map { column in rows.map { $0[column] } }
    let renderer = TableRenderer(
      alignments: [.left, .right, .left], colors: Colors(enabled: colored))
    #expect(renderer.render(columns: columns) == renderer.render(rows: rows))
    #expect(renderer.render(columns: columns).count == 3)
    // A shorter column ends the table where it ends.
    #expect(
      renderer.render(columns: [columns[0], Array(columns[1].prefix(2)), columns[2]])
        == renderer.render(rows: Array(rows.prefix(2))))
  }

  @Test func rendersNothingForNoRows() {
    #expect(TableRenderer().render(rows: []) == [])
  }
}

/// Every command's output with colors on, to a terminal: the views' own escape sequences
/// reach it as colors, never escaped into visible text (`\e[32m`), while a name or content
/// holding ESC is still shown escaped.
@Suite struct ColoredOutputTests {
  static let setup = [
    "mkdir Work Archive", "new Work/Plan ship it", "new Work/Notes todo: call", "save",
    "write Work/Plan ship it now", "new Archive/Old todo: gone", "rm Archive/Old",
  ]

  @Test(arguments: [
    "ls", "ls -l", "ls Work", "ls -l Work", "info Work/Plan", "find plan", "grep todo",
    "grep -l todo", "grep -c todo", "status", "check", "help", "help ls", "pwd", "cat Work/Plan",
    "undo", "redo", "cd Nowhere", "ls --json", "status --json", "tree", "tree Work",
    "cp Work/Plan Work/Notes",
  ])
  func colorsAreNeverShownAsText(command: String) throws {
    let harness = try ShellHarness(colored: true)
    for line in Self.setup { harness.run(line) }
    let result = harness.run(command)
    #expect(!result.output.isEmpty || !result.errors.isEmpty, "\(command) printed nothing")
    for (name, text) in [("output", result.output), ("errors", result.errors)] {
      #expect(!text.contains("\\e["), "\(command): \(name) shows a color as text: \(text)")
    }
  }

  @Test(arguments: [("ls", "Work/"), ("status", "changed:"), ("info Work/Plan", "category:")])
  func colorsAreOnWhereTheViewStylesText(command: String, styled: String) throws {
    let harness = try ShellHarness(colored: true)
    for line in Self.setup { harness.run(line) }
    let output = harness.run(command).output
    #expect(output.contains("\u{1B}["), "\(command) is not colored: \(output)")
    #expect(output.contains(styled))
  }

  @Test func aNameHoldingNothingButTextIsNotMistakenForColor() throws {
    let harness = try ShellHarness(colored: true)
    harness.run("mkdir Work")
    harness.run("new Work/Plan \u{1B}[31mred")
    let output = harness.run("cat Work/Plan").output
    #expect(output.contains("\\e[31mred"), "content with ESC is shown escaped: \(output)")
  }
}

/// The progress line of long store work: nothing within half a second, then one line
/// redrawn in place at most every 100 ms, cleared at the end.
@Suite struct ProgressBarTests {
  final class Clock {
    var now: Int64 = 0
  }

  @Test func countsThingsInTheirOwnUnit() {
    let line = ProgressBar.line(
      "importing", completed: 1200, of: 5000, unit: .items("files"), elapsed: 2_000_000_000)
    #expect(
      line.contains("1200 of 5000 files") && line.contains("24%") && line.contains("6 s left"))
  }

  @Test func showsNothingForShortWork() {
    let output = TextOutput(capturingAsTerminal: true)
    let clock = Clock()
    let bar = ProgressBar(output: output) { clock.now }
    bar.beginTask(.indexingStore, totalBytes: 1000)
    clock.now = 400_000_000
    bar.advanceTask(to: 900)
    bar.endTask()
    #expect(output.takeCaptured() == "")
  }

  @Test func drawsWhatHowFarAndHowLongLeftThenClears() {
    let output = TextOutput(capturingAsTerminal: true)
    let clock = Clock()
    let bar = ProgressBar(output: output) { clock.now }
    bar.beginTask(.indexingStore, totalBytes: 200_000_000)
    clock.now = 1_000_000_000
    bar.advanceTask(to: 50_000_000)
    let first = output.takeCaptured()
    #expect(first.hasPrefix("\r") && first.hasSuffix("\u{1B}[K"))
    #expect(first.contains("indexing the store"))
    #expect(
      first.contains("25%") && first.contains("50 MB of 200 MB") && first.contains("3 s left"))
    clock.now += 50_000_000
    bar.advanceTask(to: 60_000_000)
    #expect(output.takeCaptured() == "", "redrawn within 100 ms")
    clock.now += 100_000_000
    bar.advanceTask(to: 100_000_000)
    #expect(output.takeCaptured().contains("50%"))
    bar.endTask()
    #expect(output.takeCaptured() == "\r\u{1B}[K")
  }

  @Test func withNoDelayTheFirstAdvanceDrawsAtOnce() {
    let output = TextOutput(capturingAsTerminal: true)
    let clock = Clock()
    let bar = ProgressBar(output: output, delay: 0) { clock.now }
    bar.beginTask(.indexingStore, totalBytes: 1000)
    bar.advanceTask(to: 10)
    #expect(output.takeCaptured().contains("indexing the store"))
    bar.endTask()
    #expect(output.takeCaptured() == "\r\u{1B}[K")
  }

  /// `DOCSH_PROGRESS_DELAY_MS`, for tests: whole milliseconds from 0 to a day, else the default.
  @Test(
    arguments: [
      (nil, ProgressBar.defaultDelay), ("0", 0), ("250", 250_000_000),
      ("", ProgressBar.defaultDelay),
      ("-1", ProgressBar.defaultDelay), ("fast", ProgressBar.defaultDelay),
      ("1.5", ProgressBar.defaultDelay), ("99999999999999999999", ProgressBar.defaultDelay),
      ("86400001", ProgressBar.defaultDelay),
    ] as [(String?, Int64)])
  func takesItsDelayFromTheEnvironmentForTests(value: String?, delay: Int64) {
    let environment = value.map { [ProgressBar.delayVariable: $0] } ?? [:]
    #expect(ProgressBar.delay(in: environment) == delay)
    #expect(ProgressBar.defaultDelay == 500_000_000)
  }

  @Test(arguments: [(0, 1000, "0%"), (1000, 1000, "100%"), (1500, 1000, "100%")])
  func neverOverflowsTheBar(done: Int, total: Int, percent: String) {
    let line = ProgressBar.line(
      ProgressTask.indexingContents.description, completed: done, of: total,
      elapsed: 1_000_000_000)
    #expect(line.contains(percent) && line.contains("building the search index"))
    #expect(
      line.contains(
        "[" + String(repeating: done == 0 ? "-" : "#", count: ProgressBar.barWidth) + "]"))
  }
}
