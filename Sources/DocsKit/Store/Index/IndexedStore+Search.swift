// Full-text search: answered by the index, whose full text is built on the first search.

extension IndexedStore {
  // MARK: - Searching

  public func search(_ request: IndexSearchRequest) throws(WorkInterrupted)
    -> IndexSearchResult?
  {
    guard let (index, identity, _) = state.trusted else { return nil }
    let found = try searching(index) { () throws(SQLiteError) -> StoreIndex.FullTextAnswer? in
      try index.search(request, identity: identity)
    }
    switch found {
    case .answered(.found(let result)):
      return issued(result)
    case .answered(.noFullText):
      guard try buildFullText(index, identity) else { return nil }
      let again = try searching(index) { () throws(SQLiteError) -> StoreIndex.FullTextAnswer? in
        try index.search(request, identity: identity)
      }
      guard case .answered(.found(let result)) = again else { return nil }
      return issued(result)
    case .describesAnotherFile, .failed:
      return nil
    }
  }

  public func links(to target: LinkedDocument) throws(WorkInterrupted) -> [IndexedLink]? {
    guard let isRacy = state.trusted?.isRacy,
      let found = try fromLinks({ index throws(SQLiteError) in try index.links(to: target) })
    else { return nil }
    issue(found.map(\.source))
    guard isRacy else { return found }
    // Racily clean: the file may have changed in the instant it was indexed, with the same
    // size and times. The rows say which documents link; their lines are read from the
    // file, as faulting a category in checks its rows against the file.
    var links: [IndexedLink] = []
    var read = Set<ObjectID>()
    for source in found.map(\.source) where read.insert(source.id).inserted {
      // Not read: the context reads every content, and reports what fails to be read.
      guard let content = try? readContent(at: source.contentLocation) else { return nil }
      for (link, lineText) in target.links(in: content, from: source.id, in: source.categoryID) {
        links.append(IndexedLink(source: source, link: link, lineText: lineText))
      }
    }
    return links
  }

  public func documents(linkingInto category: Name) throws(WorkInterrupted) -> [StoredDocument]? {
    let found = try fromLinks { index throws(SQLiteError) in
      try index.documents(linkingInto: category)
    }
    issue(found ?? [])
    return found
  }

  /// What `query` answers from the index's links, built with the full text first when they
  /// are not yet; `nil` when the index cannot answer.
  private func fromLinks<Value>(
    _ query: (StoreIndex) throws(SQLiteError) -> Value?
  ) throws(WorkInterrupted) -> Value? {
    guard let (index, identity, _) = state.trusted else { return nil }
    func asked() -> IndexAnswer<Value?> {
      ask(index) { () throws(SQLiteError) -> Value?? in
        try index.reading(identity) { _ throws(SQLiteError) in try query(index) }
      }
    }
    var answer = asked()
    // The links are kept with the full text: built on the first search, or here.
    if case .answered(nil) = answer {
      guard try buildFullText(index, identity) else { return nil }
      answer = asked()
    }
    guard case .answered(let found?) = answer else { return nil }
    return found
  }

  /// The index's tokenizer, from the SQLite the index uses.
  public func makeSearchTokenizer() throws(SearchUnavailable) -> IndexTokenizer {
    try IndexTokenizer(library: sqlite)
  }

  /// `result`, its hits recorded as handed out from the index.
  private func issued(_ result: IndexSearchResult) -> IndexSearchResult {
    for hit in result.hits { issuedFromIndex[hit.document.contentLocation] = hit.document.id }
    return result
  }

  /// ``ask(_:_:)`` for a query that may run long (a full-text search of a large store):
  /// SQLite asks the interruption as it runs; stopped, the index stays in use.
  /// - Throws: ``WorkInterrupted`` when the interruption stopped the query.
  private func searching<Value>(
    _ index: StoreIndex, _ body: () throws(SQLiteError) -> Value?
  ) throws(WorkInterrupted) -> IndexAnswer<Value> {
    guard let interruption else { return ask(index, body) }
    let handler = SQLiteProgressHandler { interruption.isRequested(during: .rankedSearch) }
    do {
      return IndexAnswer(try index.database.asking(handler, every: interruptionInterval, body))
    } catch let error where error.isInterruption {
      throw WorkInterrupted(.rankedSearch)
    } catch {
      disable(index, error)
      return .failed
    }
  }

  /// Fills the index's full text; whether it could.
  /// - Throws: ``WorkInterrupted`` when the interruption stopped it: rolled back, the index
  ///   stands as it was, without full text, for the next search.
  private func buildFullText(_ index: StoreIndex, _ identity: IndexIdentity)
    throws(WorkInterrupted) -> Bool
  {
    guard
      let rows = withIndex(index, { () throws(SQLiteError) in try index.documentsInFileOrder() })
    else { return false }
    var built = false
    var interrupted = false
    reportProgress(.indexingContents, total: Int(identity.size)) { advance in
      do {
        try index.buildFullText(identity: identity) { insert in
          var position = 0
          // Unwrapped, so that the catches below see what the file or the visitor threw.
          do throws(EncodedContentsError<any Error>) {
            try file.withEncodedContents(at: rows.map(\.content)) {
              (row, literal) throws(any Error) in
              try stopIfInterrupted(.fullTextIndex)
              // Contents come in file order: decode, then hand the UTF-8 to SQLite.
              let text = try JSONText.decodeLiteral(literal)
              var content = text
              try content.withUTF8 { bytes in
                try insert(rows[row].rowID, rows[row].name, UnsafeRawBufferPointer(bytes))
              }
              position += 1
              if position % 512 == 0 { advance(rows[row].content.end) }
            }
          } catch {
            throw error.unwrapped { $0 }
          }
        }
        built = true
      } catch let error as SQLiteError where error.isInterruption {
        interrupted = true
      } catch let error as SQLiteError {
        disable(index, error)
      } catch {
        // The file could not be read as the index said: the index is wrong. Reading the file
        // whole rebuilds it; when that read fails too, the search answers from the file,
        // whose next read reports the failure (a search cannot fail on the index's account).
        do {
          try scanLoadedFile(rebuildingIndex: true)
        } catch {}
      }
    }
    if interrupted { throw WorkInterrupted(.fullTextIndex) }
    return built
  }
}
