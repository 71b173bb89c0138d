import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Differential tests: randomly generated store files (every awkward character, every kind
/// of escape, pretty or minified, keys shuffled, unknown keys) read by DocsKit and by a
/// reference reader built on Foundation must give exactly the same graph.
@Suite struct ReferenceReaderTests {
  /// Writes JSON text by hand, choosing escapes, white space and key order at random.
  struct Writer {
    var random: SeededGenerator
    let pretty: Bool
    var text = ""

    mutating func space() {
      guard pretty else { return }
      let choices = ["", " ", "\n", "  ", "\n    ", "\t", "\r\n"]
      text += choices.randomElement(using: &random) ?? ""
    }

    mutating func string(_ value: String) {
      text += "\""
      for scalar in value.unicodeScalars {
        let roll = Int.random(in: 0..<10, using: &random)
        switch scalar {
        case "\"": text += roll < 7 ? "\\\"" : "\\u0022"
        case "\\": text += roll < 7 ? "\\\\" : "\\u005C"
        case "/": text += roll < 5 ? "/" : "\\/"
        case "\n": text += roll < 7 ? "\\n" : "\\u000a"
        case "\t": text += roll < 7 ? "\\t" : "\\u0009"
        case "\r": text += "\\r"
        case "\u{8}": text += "\\b"
        case "\u{C}": text += "\\f"
        default:
          if scalar.value < 0x20 || roll < 3 {
            text += Writer.unicodeEscape(scalar, upper: roll % 2 == 0)
          } else {
            text.unicodeScalars.append(scalar)
          }
        }
      }
      text += "\""
    }

    static func unicodeEscape(_ scalar: Unicode.Scalar, upper: Bool) -> String {
      func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: upper)
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
      }
      if scalar.value > 0xFFFF {
        let value = scalar.value - 0x10000
        return hex(0xD800 + (value >> 10)) + hex(0xDC00 + (value & 0x3FF))
      }
      return hex(scalar.value)
    }

    /// Some JSON value other readers might put in a key the format does not know.
    mutating func unknownValue(depth: Int = 0) {
      switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &random) {
      case 0:
        // Every part of JSON's number grammar: sign, zero, fraction, exponent and its sign.
        text +=
          ["0", "-0", "-1.5e-3", "12345678901234567890", "3.0E+2", "0.5e10", "1E-7", "-0.0"]
          .randomElement(using: &random) ?? "0"
      case 1: text += ["true", "false", "null"].randomElement(using: &random) ?? "null"
      case 2, 3: string(AwkwardText.random(using: &random, maxPieces: 4))
      case 4:
        text += "["
        for index in 0..<Int.random(in: 0...3, using: &random) {
          if index > 0 { text += "," }
          space()
          unknownValue(depth: depth + 1)
        }
        text += "]"
      default:
        object(
          (0..<Int.random(in: 0...3, using: &random)).map { index in
            ("k\(index)", { (writer: inout Writer) in writer.unknownValue(depth: depth + 1) })
          })
      }
    }

    /// Writes an object whose members come in a random order, sometimes with unknown keys.
    mutating func object(_ members: [(String, (inout Writer) -> Void)]) {
      var members = members
      if Int.random(in: 0..<3, using: &random) == 0 {
        members.append(("x-unknown", { writer in writer.unknownValue() }))
      }
      members.shuffle(using: &random)
      text += "{"
      for (index, member) in members.enumerated() {
        if index > 0 { text += "," }
        space()
        string(member.0)
        space()
        text += ":"
        space()
        member.1(&self)
      }
      space()
      text += "}"
    }
  }

  /// A random graph: what the file will hold.
  static func makeGraph(random: inout SeededGenerator, allowBOM: Bool) -> (
    GraphSnapshot, [ObjectID: String]
  ) {
    let nameParts =
      [
        "a", "Z", "é", "e\u{301}", "日本語", "😀", "👍🏽", "👨‍👩‍👧‍👦", "\"", "\\", "{", "]", ":", ",", "x y", "ü",
        "𝄞", "<", "'", "~", "null",
      ] + (allowBOM ? ["\u{FEFF}"] : [])
    func name(taken: inout Set<String>) -> String {
      while true {
        let candidate = (0..<Int.random(in: 1...4, using: &random)).map { _ in
          nameParts.randomElement(using: &random) ?? "a"
        }.joined()
        if taken.insert(candidate.lowercased()).inserted { return candidate }
      }
    }
    func content() -> String {
      let text = AwkwardText.random(using: &random, maxPieces: 20)
      return allowBOM ? text : text.replacingOccurrences(of: "\u{FEFF}", with: "")
    }
    var next: UInt64 = 0
    func id() -> ObjectID {
      next += 1
      return ObjectID(high: random.next(), low: random.next() ^ next)
    }
    var dates: [ObjectID: String] = [:]
    var categoryNames: Set<String> = []
    let categories = (0..<Int.random(in: 0...6, using: &random)).map { _ -> GraphSnapshot.Cat in
      let categoryID = id()
      var documentNames: Set<String> = []
      let documents = (0..<Int.random(in: 0...7, using: &random)).map { _ -> GraphSnapshot.Doc in
        let text = content()
        let documentID = id()
        let millis = Int64.random(in: 0...4_102_444_800_000, using: &random)  // 1970 to 2100
        let modified = Timestamp(millisecondsSince1970: millis)
        // The date in one of the shapes other tools write; all mean `millis`.
        dates[documentID] = dateText(millis, random: &random)
        return GraphSnapshot.Doc(
          id: documentID, name: name(taken: &documentNames), categoryID: categoryID,
          // Now and then a stored size that disagrees with the content.
          size: Int.random(in: 0..<10, using: &random) == 0
            ? Int.random(in: 0...999, using: &random) : text.utf8.count,
          modified: modified, content: Array(text.utf8))
      }
      return GraphSnapshot.Cat(
        id: categoryID, name: name(taken: &categoryNames), documents: documents)
    }
    return (GraphSnapshot(categories: categories), dates)
  }

  /// `millis` as ISO 8601 in a random shape: with or without milliseconds, in UTC or with
  /// an offset.
  static func dateText(_ millis: Int64, random: inout SeededGenerator) -> String {
    let formatter = ISO8601DateFormatter()
    let shape = Int.random(in: 0..<3, using: &random)
    let offsetMinutes =
      shape == 2
      ? Int.random(in: -12...14, using: &random) * 60 + (Bool.random(using: &random) ? 30 : 0) : 0
    formatter.timeZone = TimeZone(secondsFromGMT: offsetMinutes * 60)
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let seconds = Double(millis) / 1000
    var text = formatter.string(from: Date(timeIntervalSince1970: seconds))
    if millis % 1000 == 0 && shape == 0 {
      formatter.formatOptions = [.withInternetDateTime]
      text = formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
    return text
  }

  static func write(
    _ graph: GraphSnapshot, dates: [ObjectID: String], generation: Int,
    random: inout SeededGenerator
  ) -> String {
    var writer = Writer(random: random, pretty: Bool.random(using: &random))
    func idText(_ id: ObjectID, _ writer: inout Writer) -> String {
      Bool.random(using: &writer.random) ? id.description.uppercased() : id.description
    }
    writer.object([
      ("format", { $0.string("docsh-store") }),
      ("version", { $0.text += "1" }),
      ("generation", { $0.text += String(generation) }),
      (
        "categories",
        { writer in
          writer.text += "["
          for (index, category) in graph.categories.enumerated() {
            if index > 0 { writer.text += "," }
            writer.space()
            writer.object([
              ("id", { $0.string(idText(category.id, &$0)) }),
              ("name", { $0.string(category.name) }),
              (
                "documents",
                { writer in
                  writer.text += "["
                  for (index, document) in category.documents.enumerated() {
                    if index > 0 { writer.text += "," }
                    writer.space()
                    writer.object([
                      ("id", { $0.string(idText(document.id, &$0)) }),
                      ("name", { $0.string(document.name) }),
                      ("content", { $0.string(String(decoding: document.content, as: UTF8.self)) }),
                      ("size", { $0.text += String(document.size) }),
                      ("modified", { $0.string(dates[document.id] ?? "") }),
                    ])
                  }
                  writer.space()
                  writer.text += "]"
                }
              ),
            ])
          }
          writer.space()
          writer.text += "]"
        }
      ),
    ])
    random = writer.random
    return writer.text
  }

  /// Sorted the way ``snapshot(of:)`` sorts, for comparing.
  static func sorted(_ graph: GraphSnapshot) -> GraphSnapshot {
    GraphSnapshot(
      categories: graph.categories.map {
        GraphSnapshot.Cat(
          id: $0.id, name: $0.name, documents: $0.documents.sorted { $0.id < $1.id })
      }.sorted { $0.id < $1.id })
  }

  @Test(arguments: ReferenceReader.Backend.allCases)
  func randomStoresReadTheSameAsTheReference(backend: ReferenceReader.Backend) throws {
    for seed in 1...40 as ClosedRange<UInt64> {
      var random = SeededGenerator(seed: seed &* 7919 &+ (backend == .decoder ? 1 : 2))
      let (graph, dates) = ReferenceReaderTests.makeGraph(
        random: &random, allowBOM: backend == .decoder)
      let generation = Int.random(in: 1...1000, using: &random)
      let text = ReferenceReaderTests.write(
        graph, dates: dates, generation: generation, random: &random)
      let harness = try Harness("differential\(seed)")
      try Data(text.utf8).write(to: URL(fileURLWithPath: harness.storePath))

      let reference = try ReferenceReader.snapshot(at: harness.storePath, using: backend)
      // The generator and the reference agree on what the file says…
      #expect(
        reference == ReferenceReaderTests.sorted(graph),
        "seed \(seed): reference reader vs generator")
      // …and DocsKit reads the same.
      let context = try harness.openContext()
      let loaded = try snapshot(of: context)
      #expect(loaded == reference, "seed \(seed): DocsKit vs \(backend)\n\(text.prefix(600))")
      #expect(context.generation == generation)

      // DocsKit writes it back so the reference still reads the same graph, after a change
      // that makes the save copy the untouched documents of this foreign-shaped file.
      let bystander = try context.createCategory(named: "bystander \(seed)")
      try context.save()
      let saved = try snapshot(of: context)
      #expect(saved.categories.count == reference.categories.count + 1)
      #expect(
        try ReferenceReader.snapshot(at: harness.storePath, using: .decoder) == saved,
        "seed \(seed): after save")
      #expect(try snapshot(of: harness.openContext()) == saved, "seed \(seed): reload after save")
      #expect(context.category(withID: bystander.id) != nil)
    }
  }
}
