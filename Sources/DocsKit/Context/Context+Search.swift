/// What a content search looks for.
public enum ContentPattern: Sendable {
  /// A piece of text, matched literally.
  case text(String, ignoringCase: Bool)
  /// A regular expression (Swift `Regex` syntax), matched against each line.
  case regularExpression(String, ignoringCase: Bool)
}

/// One line of a document that matched a content search.
public struct ContentMatch: Hashable, Sendable {
  /// The document the line is in.
  public var document: Document
  /// The line's number, counting from 1.
  public var lineNumber: Int
  /// The line, without its newline.
  public var line: Substring
}

extension Context {
  /// The lines matching `pattern` in the documents of the category `id` (of every category
  /// when `nil`), sorted by category, document name and line.
  /// - Throws: ``ContextError/invalidPattern(_:reason:)`` for a regular expression that does
  ///   not compile, or a store error when a content cannot be read.
  public func searchContents(
    for pattern: ContentPattern, in id: ObjectID? = nil
  ) throws(ContextError) -> [ContentMatch] {
    let matchesLine = try lineMatcher(for: pattern)
    // Sorting only what matched is cheaper than sorting every document first. Documents of
    // categories not loaded come from the store, without loading them into the graph.
    let found = try contentSearchCandidates(in: id)
    let candidates = found.map(\.document)
    // Contents still in the file are read in one sequential pass; a plain ASCII pattern
    // first rejects documents whose encoded bytes cannot hold it, without decoding them.
    let needle = Context.rawNeedle(for: pattern)
    var faults: [(index: Int, location: StoredLocation)] = []
    var texts: [Int: String] = [:]
    for (index, candidate) in found.enumerated() {
      switch candidate.content {
      case .fault(let location): faults.append((index, location))
      case .text(let text): texts[index] = text
      }
    }
    do {
      try store.withEncodedContents(at: faults.map(\.location)) { position, literal in
        if let needle, !JSONText.mayContain(needle, literal) { return }
        texts[faults[position].index] = try JSONText.decodeLiteral(literal)
      }
    } catch let error as StoreError {
      throw .store(error)
    } catch let error as JSONTextError {
      throw .store(
        .invalidStore(store.displayName, reason: "a content cannot be decoded: \(error.reason)"))
    } catch {
      throw .store(.invalidStore(store.displayName, reason: "\(error)"))
    }
    var matches: [ContentMatch] = []
    for (index, document) in candidates.enumerated() {
      guard let content = texts[index] else { continue }
      var lineNumber = 0
      for line in Context.lines(of: content) {
        lineNumber += 1
        if matchesLine(line) {
          matches.append(ContentMatch(document: document, lineNumber: lineNumber, line: line))
        }
      }
    }
    return matches.sorted {
      $0.document.id != $1.document.id
        ? categoryThenName($0.document, $1.document) : $0.lineNumber < $1.lineNumber
    }
  }

  /// The lines of `text`: split at `\n`, a `\r` before it dropped (Windows line ends), the
  /// piece after a final newline included. Works on bytes; every line is a slice of `text`.
  static func lines(of text: String) -> [Substring] {
    var lines: [Substring] = []
    let utf8 = text.utf8
    var lineStart = utf8.startIndex
    var index = utf8.startIndex
    while index != utf8.endIndex {
      if utf8[index] == 0x0A {
        var lineEnd = index
        if lineEnd != lineStart, utf8[utf8.index(before: lineEnd)] == 0x0D {
          lineEnd = utf8.index(before: lineEnd)
        }
        lines.append(text[lineStart..<lineEnd])
        lineStart = utf8.index(after: index)
      }
      index = utf8.index(after: index)
    }
    lines.append(text[lineStart..<utf8.endIndex])
    return lines
  }

  /// The bytes a matching document's encoded content must hold: a case-sensitive ASCII
  /// text that encodes as itself (no quote, backslash or control character). `nil` when no
  /// such test is exact.
  static func rawNeedle(for pattern: ContentPattern) -> [UInt8]? {
    guard case .text(let text, ignoringCase: false) = pattern, !text.isEmpty else { return nil }
    let bytes = Array(text.utf8)
    let encodesAsItself = bytes.allSatisfy {
      $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
    }
    return encodesAsItself ? bytes : nil
  }

  private func lineMatcher(
    for pattern: ContentPattern
  ) throws(ContextError) -> (Substring) -> Bool {
    switch pattern {
    case .text(let text, ignoringCase: false):
      // Bytes, as grep(1) compares: fast, and what the encoded-bytes test assumes.
      let needle = Array(text.utf8)
      return { line in
        var line = line
        return line.withUTF8 { bytes in
          needle.withUnsafeBytes { JSONText.contains($0, in: UnsafeRawBufferPointer(bytes)) }
        }
      }
    case .text(let text, ignoringCase: true):
      let needle = text.lowercased()
      return { $0.lowercased().contains(needle) }
    case .regularExpression(let source, let ignoringCase):
      let regex: Regex<AnyRegexOutput>
      do {
        regex = try Regex(source)
      } catch {
        throw .invalidPattern(source, reason: "\(error)")
      }
      let matcher = ignoringCase ? regex.ignoresCase() : regex
      return { (try? matcher.firstMatch(in: $0)) != nil }
    }
  }
}
