import Foundation
import Testing

@testable import DocsKit

/// A second reader of store files, built only on Foundation, to check DocsKit's streaming
/// reader and writer against. It knows the format's shape and nothing of DocsKit's code
/// beyond the value types it fills in.
///
/// Two back ends:
/// - `JSONSerialization` (swift-corelibs-foundation). It has one known fault: it drops a
///   U+FEFF that directly follows an escape in a string (`"\r\u{FEFF}"` decodes as `"\r"`),
///   so generated stores meant for it leave U+FEFF out.
/// - `JSONDecoder` (swift-foundation's parser), which gets U+FEFF right.
enum ReferenceReader {
  enum Backend: String, CaseIterable, Sendable {
    case serialization, decoder
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func snapshot(of data: Data, using backend: Backend) throws -> GraphSnapshot {
    switch backend {
    case .serialization: return try viaSerialization(data)
    case .decoder: return try viaDecoder(data)
    }
  }

  static func snapshot(at path: String, using backend: Backend = .decoder) throws -> GraphSnapshot {
    try snapshot(of: Data(contentsOf: URL(fileURLWithPath: path)), using: backend)
  }

  // MARK: - JSONSerialization

  private static func viaSerialization(_ data: Data) throws -> GraphSnapshot {
    guard let top = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      top["format"] as? String == "docsh-store",
      let categories = top["categories"] as? [[String: Any]]
    else { throw Failure(description: "not a store") }
    return try GraphSnapshot(
      categories: categories.map { category in
        guard let idText = category["id"] as? String, let id = ObjectID(idText),
          let name = category["name"] as? String,
          let documents = category["documents"] as? [[String: Any]]
        else { throw Failure(description: "bad category") }
        return GraphSnapshot.Cat(
          id: id, name: name,
          documents: try documents.map { document in
            guard let idText = document["id"] as? String, let docID = ObjectID(idText),
              let name = document["name"] as? String, let content = document["content"] as? String,
              let size = document["size"] as? Int, let modified = document["modified"] as? String
            else { throw Failure(description: "bad document") }
            return GraphSnapshot.Doc(
              id: docID, name: name, categoryID: id, size: size,
              modified: try parseDate(modified), content: Array(content.utf8))
          }.sorted { $0.id < $1.id })
      }.sorted { $0.id < $1.id })
  }

  // MARK: - JSONDecoder

  private struct File: Decodable {
    var format: String
    var version: Int
    var generation: Int
    var categories: [FileCategory]
  }
  private struct FileCategory: Decodable {
    var id: String
    var name: String
    var documents: [FileDocument]
  }
  private struct FileDocument: Decodable {
    var id: String
    var name: String
    var content: String
    var size: Int
    var modified: String
  }

  private static func viaDecoder(_ data: Data) throws -> GraphSnapshot {
    let file = try JSONDecoder().decode(File.self, from: data)
    guard file.format == "docsh-store" else { throw Failure(description: "not a store") }
    return try GraphSnapshot(
      categories: file.categories.map { category in
        guard let id = ObjectID(category.id) else { throw Failure(description: "bad id") }
        return GraphSnapshot.Cat(
          id: id, name: category.name,
          documents: try category.documents.map { document in
            guard let docID = ObjectID(document.id) else { throw Failure(description: "bad id") }
            return GraphSnapshot.Doc(
              id: docID, name: document.name, categoryID: id, size: document.size,
              modified: try parseDate(document.modified), content: Array(document.content.utf8))
          }.sorted { $0.id < $1.id })
      }.sorted { $0.id < $1.id })
  }

  // MARK: - Dates

  /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` with Foundation's calendar.
  static func parseDate(_ text: String) throws -> Timestamp {
    let pattern =
      /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/
    guard let match = text.wholeMatch(of: pattern) else {
      throw Failure(description: "bad date \(text)")
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
    let components = DateComponents(
      year: Int(match.1), month: Int(match.2), day: Int(match.3), hour: Int(match.4),
      minute: Int(match.5), second: Int(match.6))
    guard let date = calendar.date(from: components) else {
      throw Failure(description: "bad date \(text)")
    }
    var millis = Int64(date.timeIntervalSince1970.rounded()) * 1000
    if let fraction = match.7 {
      let digits = String(fraction.prefix(3)).padding(toLength: 3, withPad: "0", startingAt: 0)
      millis += Int64(digits) ?? 0
    }
    if let sign = match.9, let hours = match.10, let minutes = match.11 {
      let offset = (Int64(hours) ?? 0) * 3_600_000 + (Int64(minutes) ?? 0) * 60_000
      millis += sign == "+" ? -offset : offset
    }
    return Timestamp(millisecondsSince1970: millis)
  }
}
