// Ranked full-text search: the store's FTS5 index answers for documents as saved; documents
// changed since (written, renamed, moved, new) are matched here on what they are now, and
// deleted ones are left out. Without an index, everything is matched here.
extension Context {
  /// The documents matching `query`, best first by BM25F over the query's words
  /// (``RankingPlan``): more of the words, rarer ones, more occurrences in a document of
  /// similar length, occurrences in the name, and the forms as typed rank higher.
  /// - Parameters:
  ///   - category: only this category's documents; every category when `nil`.
  ///   - limit: at most this many hits; `nil` or 0 for all.
  /// - Throws: ``ContextError/invalidSearch(_:)`` for a term with nothing to search for,
  ///   ``ContextError/searchUnavailable(_:)`` when the store cannot make its tokenizer,
  ///   ``ContextError/store(_:)`` when a content cannot be read, ``ContextError/interrupted``
  ///   when the context's interruption asks it to stop (also while it fills the index).
  public func search(
    _ query: SearchQuery, in category: ObjectID? = nil, limit: Int? = 20
  ) throws(ContextError) -> [SearchHit] {
    let tokenizer = try rankedSearchTokenizer()
    let compiled: CompiledQuery
    do {
      compiled = try CompiledQuery(query, tokenizer: tokenizer)
    } catch {
      throw .invalidSearch(error)
    }
    let limit = limit.flatMap { $0 > 0 ? $0 : nil }
    let changed = changedDocumentIDs()
    let changedInScope = changed.filter { id in
      guard let record = documentRecords[id] else { return false }
      return category == nil || record.document.categoryID == category
    }
    let request = IndexSearchRequest(
      query: compiled, category: category, limit: limit, excluding: changed,
      wantsStatistics: !changedInScope.isEmpty)
    var found: [Candidate] = []
    let indexed: IndexSearchResult?
    do {
      indexed = try store.search(request)
    } catch {
      throw .interrupted
    }
    if let result = indexed {
      for hit in result.hits where !changed.contains(hit.document.id) {
        let document =
          documentRecords[hit.document.id]?.document
          ?? hit.document.document
        found.append(
          Candidate(
            document: document,
            content: documentRecords[hit.document.id]?.content
              ?? .fault(hit.document.contentLocation), bm25: hit.bm25, text: nil))
      }
      let statistics =
        result.statistics
        ?? SearchStatistics(
          documentCount: 1, nameTokenCount: 1, contentTokenCount: 1, groupDocumentCounts: [])
      for id in changedInScope {
        try checkForInterruption(.rankedSearch)
        guard let record = documentRecords[id] else { continue }
        let text = try self.text(of: record.content)
        if let candidate = try match(
          compiled, record.document, record.content, text, tokenizer, statistics)
        {
          found.append(candidate)
        }
      }
    } else {
      found = try searchWithoutIndex(compiled, in: category, tokenizer: tokenizer)
    }
    found.sort {
      $0.bm25 != $1.bm25 ? $0.bm25 > $1.bm25 : categoryThenName($0.document, $1.document)
    }
    if let limit, found.count > limit { found.removeSubrange(limit...) }
    var hits: [SearchHit] = []
    hits.reserveCapacity(found.count)
    for candidate in found {
      try checkForInterruption(.rankedSearch)
      let text: String
      if let known = candidate.text {
        text = known
      } else {
        text = try self.text(of: candidate.content)
      }
      hits.append(hit(for: candidate, text: text, compiled, tokenizer))
    }
    return hits
  }

  /// A document that matched, before its snippet is made.
  private struct Candidate {
    var document: Document
    var content: ContentStorage
    var bm25: Double
    var text: String?
  }

  /// The documents whose indexed text may be out of date: changed since the last save.
  func changedDocumentIDs() -> Set<ObjectID> {
    var ids = Set<ObjectID>()
    for (id, saved) in baseline {
      switch saved {
      case .document: ids.insert(id)
      case .absent where documentRecords[id] != nil: ids.insert(id)
      default: break
      }
    }
    return ids
  }

  /// The store's tokenizer, made at the first search.
  /// - Throws: ``ContextError/searchUnavailable(_:)`` when the store cannot make it.
  private func rankedSearchTokenizer() throws(ContextError) -> any SearchTokenizing {
    if let searchTokenizer { return searchTokenizer }
    do {
      let made = try store.makeSearchTokenizer()
      searchTokenizer = made
      return made
    } catch {
      throw .searchUnavailable(error)
    }
  }

  /// Matches one document here, ranking it with the collection's `statistics`.
  private func match(
    _ query: CompiledQuery, _ document: Document, _ content: ContentStorage, _ text: String,
    _ tokenizer: any SearchTokenizing, _ statistics: SearchStatistics
  ) throws(ContextError) -> Candidate? {
    let nameTokens = tokenizer.tokens(of: document.name.text)
    let contentTokens = tokenizer.tokens(of: text)
    let inName = query.occurrences(in: nameTokens).map(\.count)
    let inContent = query.occurrences(in: contentTokens).map(\.count)
    guard query.matches(zip(inName, inContent).map { $0 + $1 }) else { return nil }
    let plan = query.ranking.completed(with: statistics)
    let bm25 = plan.score(
      nameCounts: inName, contentCounts: inContent,
      lengths: ColumnLengths(name: nameTokens.count, content: contentTokens.count),
      averages: statistics.averageLengths, idf: plan.idf(rows: statistics.documentCount))
    return Candidate(document: document, content: content, bm25: bm25, text: text)
  }

  /// Matches every document of the scope here, with statistics of the scope.
  private func searchWithoutIndex(
    _ query: CompiledQuery, in category: ObjectID?, tokenizer: any SearchTokenizing
  ) throws(ContextError) -> [Candidate] {
    let candidates = try contentSearchCandidates(in: category)
    var texts: [String] = []
    texts.reserveCapacity(candidates.count)
    for candidate in candidates {
      try checkForInterruption(.rankedSearch)
      texts.append(try text(of: candidate.content))
    }
    var nameTokenCount = 0
    var contentTokenCount = 0
    var counts = Array(repeating: 0, count: query.countingPhrases.count)
    var perDocument: [([Int], [Int], ColumnLengths)] = []
    for (index, candidate) in candidates.enumerated() {
      try checkForInterruption(.rankedSearch)
      let nameTokens = tokenizer.tokens(of: candidate.document.name.text)
      let contentTokens = tokenizer.tokens(of: texts[index])
      let inName = query.occurrences(in: nameTokens).map(\.count)
      let inContent = query.occurrences(in: contentTokens).map(\.count)
      nameTokenCount += nameTokens.count
      contentTokenCount += contentTokens.count
      for (group, counted) in query.countingPhrases.enumerated() {
        for phrase in counted where inName[phrase] + inContent[phrase] > 0 { counts[group] += 1 }
      }
      perDocument.append(
        (inName, inContent, ColumnLengths(name: nameTokens.count, content: contentTokens.count)))
    }
    let statistics = SearchStatistics(
      documentCount: candidates.count, nameTokenCount: nameTokenCount,
      contentTokenCount: contentTokenCount, groupDocumentCounts: counts)
    let plan = query.ranking.completed(with: statistics)
    let idf = plan.idf(rows: statistics.documentCount)
    var found: [Candidate] = []
    for (index, candidate) in candidates.enumerated() {
      let (inName, inContent, lengths) = perDocument[index]
      guard query.matches(zip(inName, inContent).map { $0 + $1 }) else { continue }
      let bm25 = plan.score(
        nameCounts: inName, contentCounts: inContent, lengths: lengths,
        averages: statistics.averageLengths, idf: idf)
      found.append(
        Candidate(
          document: candidate.document, content: candidate.content, bm25: bm25,
          text: texts[index]))
    }
    return found
  }

  private func hit(
    for candidate: Candidate, text: String, _ query: CompiledQuery,
    _ tokenizer: any SearchTokenizing
  ) -> SearchHit {
    let wanted = Set(query.required.joined()).subtracting(query.excluded)
    func matchedTokens(_ tokens: [FoldedToken]) -> Set<Int> {
      var matched = Set<Int>()
      for (phrase, starts) in query.occurrences(in: tokens).enumerated()
      where wanted.contains(phrase) {
        for start in starts {
          for offset in 0..<query.phrases[phrase].tokens.count { matched.insert(start + offset) }
        }
      }
      return matched
    }
    let nameTokens = tokenizer.tokens(of: candidate.document.name.text)
    let contentTokens = tokenizer.tokens(of: text)
    return SearchHit(
      document: candidate.document,
      score: Ranking.score(bm25: candidate.bm25),
      nameHighlights: Snippets.highlights(
        in: candidate.document.name.text, tokens: nameTokens, matched: matchedTokens(nameTokens)),
      snippet: Snippets.make(
        from: text, tokens: contentTokens, matched: matchedTokens(contentTokens)))
  }

  /// Verifies the store as it is on disk, and that its index agrees with it (rebuilding the
  /// index when it does not); changes nothing in the store. Stopped by the store's
  /// interruption, the report says so (``StoreCheckReport/wasInterrupted``).
  public func check() -> StoreCheckReport {
    store.check()
  }
}
