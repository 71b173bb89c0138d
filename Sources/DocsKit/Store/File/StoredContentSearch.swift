// Content search over what the store holds: the store hands its contents to the engine as
// it spells them (JSON string literals, for the JSON store), and a spelling that cannot be
// decoded is the store's error. The context asks which documents match and gets their hits.

// An extension rather than requirements: the engine's types are DocsKit's own, and a public
// protocol's requirements would make them public.
extension StoreReading {
  /// Matches `searcher` against the contents at `locations` as the file spells them, in
  /// one sequential pass (``withEncodedContents(at:_:)``); calls `check` before each
  /// content and hands each one that matches to `found` with its index in `locations`.
  /// - Throws: ``EncodedContentsError/store(_:)`` when the file cannot be read or a content
  ///   decoded, ``EncodedContentsError/visitor(_:)`` with what `check` throws.
  func searchContents<Stop: Error>(
    at locations: [StoredLocation], with searcher: ContentSearcher,
    checkingBeforeEach check: () throws(Stop) -> Void, found: (Int, DocumentHits) -> Void
  ) throws(EncodedContentsError<Stop>) {
    do throws(EncodedContentsError<EncodedContentsError<Stop>>) {
      try withEncodedContents(at: locations) {
        (position, literal) throws(EncodedContentsError<Stop>) in
        do throws(Stop) {
          try check()
        } catch {
          throw .visitor(error)
        }
        do throws(JSONTextError) {
          if let hits = try searcher.search(literal: literal) { found(position, hits) }
        } catch {
          throw .store(undecodableContent(error))
        }
      }
    } catch {
      // What the visitor threw is already one of the two; the store's own failures as well.
      switch error {
      case .store(let error): throw .store(error)
      case .visitor(let error): throw error
      }
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
