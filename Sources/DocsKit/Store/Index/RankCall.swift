// `docsh_rank(full_text, plan, limit)`: the FTS5 auxiliary function that scores a matching
// row as ``RankingPlan`` says (the plan's text as its argument, parsed once per query).
//
// With a `limit` above 0 the caller promises to keep only the `limit` best rows of every
// row it asks about (`ORDER BY docsh_rank(…) DESC LIMIT limit`, nothing else filtering):
// once that many are scored, a row whose score cannot reach the lowest of them, even as
// short as a document can be (bm25 only falls as a name or content grows), is not scored
// exactly: its lengths, a look-up in FTS5's docsize table that was half of what a search of
// common words cost, are never read. Such a row gets that bound as its score, below every row kept,
// so the rows kept and their order are the same as when every row is scored.
//
// The C side, registering the function and reading FTS5's matches, is in SQLite.swift;
// what one query keeps between rows is here, in Swift alone.

/// A plan parsed for one query, with its IDFs and counting buffers reused row after row, and
/// the best scores so far when the caller keeps only the best `limit` rows.
final class RankCall {
  let plan: RankingPlan
  let averages: ColumnLengths.Averages
  let idf: UnsafeMutableBufferPointer<Double>
  let nameCounts: UnsafeMutableBufferPointer<Int>
  let contentCounts: UnsafeMutableBufferPointer<Int>
  let frequencies: UnsafeMutableBufferPointer<Double>
  /// The best `limit` exact scores so far.
  private var best: BestScores
  /// The last row scored and its score: a row asked about again is not recorded twice.
  var lastRow: (id: Int64, score: Double)?

  init(plan: RankingPlan, rows: Int, averages: ColumnLengths.Averages, limit: Int) {
    self.plan = plan
    self.averages = averages
    idf = .allocate(capacity: plan.queryCounts.count)
    _ = idf.initialize(from: plan.idf(rows: rows))
    nameCounts = .allocate(capacity: plan.groups.count)
    nameCounts.initialize(repeating: 0)
    contentCounts = .allocate(capacity: plan.groups.count)
    contentCounts.initialize(repeating: 0)
    frequencies = .allocate(capacity: 2 * plan.queryCounts.count)
    frequencies.initialize(repeating: 0)
    best = BestScores(limit: limit)
  }

  deinit {
    idf.deallocate()
    nameCounts.deallocate()
    contentCounts.deallocate()
    frequencies.deallocate()
    best.deallocate()
  }

  /// The plan's score of the counts held, for a document whose columns are `lengths` long.
  func score(lengths: ColumnLengths) -> Double {
    plan.score(
      nameCounts: UnsafeBufferPointer(nameCounts),
      contentCounts: UnsafeBufferPointer(contentCounts),
      lengths: lengths, averages: averages, idf: UnsafeBufferPointer(idf),
      scratch: frequencies)
  }

  /// The score below which a row cannot be kept; `nil` while fewer than `limit` are scored.
  var threshold: Double? { best.threshold }

  /// Records an exact score among the best ones.
  func record(_ score: Double) { best.record(score) }
}

/// Why `docsh_rank` failed, as SQLite reports it.
struct RankFailure: Error {
  let text: String
}
