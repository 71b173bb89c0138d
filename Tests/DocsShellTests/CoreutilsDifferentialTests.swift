import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// docsh's `cat -n`, `head`, `tail` and `wc`, through the real binary, print what GNU
/// coreutils prints (with `LC_ALL=C.UTF-8`) for the same documents exported as files by
/// docsh's own `export`: byte for byte, headers, alignment and totals included. The store
/// holds the awkward cases on purpose — an empty document, one without a final newline, a
/// single line, one of only newlines, more than ten lines, CRLF, tabs, a long line, CJK,
/// emoji, combining accents, no-break and ideographic spaces, a control character — and
/// documents generated from a seed out of the same pieces.
@Suite struct CoreutilsDifferentialTests {
  static let pieces: [String] = [
    "word", "two words", "  ", "\t", "\n", "\n", "\n\n", "\r\n", "café", "cafe\u{301}", "東京",
    "日本語 テキスト", "😀", "👍🏽", "☕", "\u{A0}", "\u{2007}", "\u{202F}", "\u{2060}",
    "\u{3000}", "\u{2003}", "\u{200B}", "\u{1}", "Ελλάδα", "x", "12345", "-", "==> <==",
  ]

  /// Documents whose shape matters, by name.
  static let fixed: [(String, String)] = [
    ("empty", ""),
    ("no final newline", "first\nsecond\nthird"),
    ("one line", "just one line\n"),
    ("one line no newline", "just one line"),
    ("only newlines", "\n\n\n"),
    ("twenty-five lines", (1...25).map { "line \($0)" }.joined(separator: "\n") + "\n"),
    ("twelve lines no newline", (1...12).map { "l\($0)" }.joined(separator: "\n")),
    ("crlf", "a\r\nb\r\n\r\nc"),
    ("tabs", "\tindented\n\t\ttwice\ncol1\tcol2\tcol3\n"),
    ("long line", String(repeating: "abcdefghij ", count: 900) + "\n"),
    ("multibyte", "café ☕ 🫠\n東京\u{3000}大阪\nno\u{A0}break here\n👨‍👩‍👧 family\n"),
    ("control", "bell\u{7}ring\n\u{1}\n"),
    // Every separator glibc's iswspace and coreutils' no-break spaces make, and some
    // look-alikes that are none, each between two letters.
    (
      "separators",
      [
        0x9, 0xB, 0xC, 0xD, 0x20, 0x85, 0xA0, 0x1680, 0x180E, 0x2000, 0x2006, 0x2007, 0x2008,
        0x200A, 0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x2060, 0x3000, 0xFEFF,
      ].map { "a" + String(Character(Unicode.Scalar(UInt32($0)) ?? "?")) }.joined() + "b\n"
    ),
  ]

  /// A store and its export, from `seed`: one category of the fixed documents, two of
  /// generated ones.
  struct Corpus {
    let folder: DocshProcess.Folder
    let store: String
    let tree: String
    /// Every document's path, `CATEGORY/NAME`, in a stable order.
    var paths: [String] = []

    init(seed: UInt64) throws {
      folder = try DocshProcess.Folder()
      store = folder.path("store.json")
      tree = folder.path("tree")
      var random = SeededGenerator(seed: seed)
      let context = try Context(store: JSONStore(path: store))
      let shapes = try context.createCategory(named: "Shapes")
      for (name, content) in CoreutilsDifferentialTests.fixed {
        try context.createDocument(named: name, in: shapes.id, content: content)
        paths.append("Shapes/" + name)
      }
      for categoryName in ["Mixed", "Über"] {
        let category = try context.createCategory(named: categoryName)
        for index in 0..<8 {
          let count = Int.random(in: 0...60, using: &random)
          let content = (0..<count).map { _ in
            CoreutilsDifferentialTests.pieces.randomElement(using: &random) ?? ""
          }.joined()
          try context.createDocument(named: "doc \(index)", in: category.id, content: content)
          paths.append(categoryName + "/doc \(index)")
        }
      }
      try context.save()
      let export = try DocshProcess.run(
        ["-s", store, "-c", "export '\(tree)'"], home: folder.path("home"))
      #expect(export.status == 0, "export: \(export.errors)")
      // Export writes NAME.md; coreutils are given the files under the documents' names, so
      // that both print the same names.
      for path in paths {
        try FileManager.default.moveItem(
          atPath: tree + "/" + path + ".md", toPath: tree + "/" + path)
      }
    }

    /// What docsh prints for `command` followed by `paths`, each quoted.
    func docsh(_ command: String, _ paths: [String]) throws -> String {
      let line = command + " " + paths.map { "'" + $0 + "'" }.joined(separator: " ")
      let result = try DocshProcess.run(
        ["-s", store, "--no-save", "-c", line], home: folder.path("home"))
      #expect(result.status == 0, "docsh \(line): \(result.errors)")
      return result.output
    }

    /// What coreutils prints for `command` (its words) followed by `paths`, run in the tree.
    func coreutils(_ command: [String], _ paths: [String]) throws -> String {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/" + command[0])
      process.arguments = Array(command.dropFirst()) + paths
      process.currentDirectoryURL = URL(fileURLWithPath: tree)
      process.environment = ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]
      let output = folder.url.appendingPathComponent("coreutils.out")
      _ = FileManager.default.createFile(atPath: output.path, contents: nil)
      process.standardOutput = try FileHandle(forWritingTo: output)
      try process.run()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "\(command) failed")
      return try String(contentsOf: output, encoding: .utf8)
    }
  }

  /// Each command as docsh is given it and as coreutils is.
  static let commands: [(docsh: String, coreutils: [String])] = [
    ("cat -n", ["cat", "-n"]),
    ("head", ["head"]), ("head -n 3", ["head", "-n", "3"]), ("head -n 0", ["head", "-n", "0"]),
    ("head -n -2", ["head", "-n", "-2"]), ("head -n -30", ["head", "-n", "-30"]),
    ("head -n +4", ["head", "-n", "+4"]), ("head -3", ["head", "-3"]), ("tail -4", ["tail", "-4"]),
    ("tail", ["tail"]), ("tail -n 1", ["tail", "-n", "1"]), ("tail -n 0", ["tail", "-n", "0"]),
    ("tail -n -3", ["tail", "-n", "-3"]), ("tail -n +3", ["tail", "-n", "+3"]),
    ("tail -n +0", ["tail", "-n", "+0"]), ("tail -n 40", ["tail", "-n", "40"]),
    ("wc", ["wc"]), ("wc -l", ["wc", "-l"]), ("wc -w", ["wc", "-w"]), ("wc -c", ["wc", "-c"]),
    ("wc -lw", ["wc", "-lw"]), ("wc -c -l", ["wc", "-c", "-l"]),
  ]

  @Test(arguments: [20_261_201, 3, 99_991] as [UInt64])
  func printsWhatCoreutilsPrints(seed: UInt64) throws {
    let corpus = try Corpus(seed: seed)
    // Each document alone, then all of them, then a few together (a name twice too).
    var selections = corpus.paths.map { [$0] }
    selections.append(corpus.paths)
    selections.append(["Shapes/empty", "Shapes/no final newline", "Mixed/doc 3"])
    selections.append(["Shapes/one line no newline", "Shapes/one line no newline"])
    var compared = 0
    for command in Self.commands {
      // coreutils' tail takes the old form -N only for one file ("option used in invalid
      // context"); docsh takes it for any number, which nothing here can compare.
      for paths in selections where !(command.docsh == "tail -4" && paths.count > 1) {
        let expected = try corpus.coreutils(command.coreutils, paths)
        let actual = try corpus.docsh(command.docsh, paths)
        #expect(actual == expected, "\(command.docsh) \(paths), seed \(seed)")
        compared += expected.utf8.count
      }
    }
    // The comparison saw real output, not empty strings on both sides.
    #expect(compared > 100_000)
  }

  @Test func theExportHoldsTheDocumentsByteForByte() throws {
    let corpus = try Corpus(seed: 1)
    for (name, content) in Self.fixed {
      let file = try Data(contentsOf: URL(fileURLWithPath: corpus.tree + "/Shapes/" + name))
      #expect(file == Data(content.utf8), "\(name)")
    }
  }
}
