// Content search over what the store holds: the store hands its contents to the engine as
// it spells them (JSON string literals, for the JSON store), and a spelling that cannot be
// decoded is the store's error. The context asks which documents match and gets their hits.

// An extension rather than requirements: the engine's types are DocsKit's own, and a public
// protocol's requirements would make them public.
extension StoreReading {
  /// Matches `searcher` against the contents at `locations` as the file spells them, in
  /// one sequential pass (``withEncodedContents(at:_:)``); calls `check` before each
  /// content and hands each one that matches to `found` with its index in `locations`.
  /// - Throws: ``StoreError`` when the file cannot be read or a content decoded, or what
  ///   `check` or `found` throws.
  func searchContents(
    at locations: [StoredLocation], with searcher: ContentSearcher,
    checkingBeforeEach check: () throws -> Void, found: (Int, DocumentHits) throws -> Void
  ) throws {
    do {
      try withEncodedContents(at: locations) { position, literal in
        try check()
        if let hits = try searcher.search(literal: literal) { try found(position, hits) }
      }
    } catch let error as JSONTextError {
      throw undecodableContent(error)
    }
  }

  /// The hits of `searcher` in `text`, a content held in memory, or `nil` when no line
  /// matches.
  /// - Throws: ``StoreError/invalidStore(_:reason:)`` when a line to report is no text.
  func searchContent(
    _ text: String, with searcher: ContentSearcher
  ) throws(StoreError) -> DocumentHits? {
    do {
      return try searcher.search(text: text)
    } catch {
      throw undecodableContent(error)
    }
  }

  private func undecodableContent(_ error: JSONTextError) -> StoreError {
    .invalidStore(displayName, reason: "a content cannot be decoded: \(error.reason)")
  }
}
