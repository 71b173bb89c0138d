#if canImport(Glibc)
  import Glibc
#endif

/// How the documents a query matches are scored, the same in the index (the `docsh_rank`
/// FTS5 function) and in Swift (unsaved documents): BM25 over the query's words.
///
/// Each word is a group of phrases: for a plain word, the word as typed and its stem (which
/// every form of the word carries in the index). A group's frequency in a column is the
/// weighted sum of its phrases' occurrences there, another form weighing less than the one
/// typed; its IDF comes from the documents holding its widest phrase (any form of the word),
/// so a word counts once however many forms it matches in. Name and content are scored
/// apart, each with its own length normalization (BM25F-like, as Lucene and tantivy score
/// fields), the name's part weighted more; a word the query holds more than once counts
/// more, saturating (BM25's k3). A document holding any word as typed (or a phrase, a
/// prefix) ranks above every document found only through other forms of the words: the
/// *typed tier*.
///
/// Parameters were chosen by the mean nDCG@10 over Cranfield, CISI, CACM and MEDLINE
/// (bench/relevance.py, bench/relevance_model.py): k1 = 3, b = 0.7, k3 = 5.
struct RankingPlan: Sendable, Equatable {
  static let k1 = 3.0
  static let b = 0.7
  /// BM25's k3: how fast a word's weight saturates as the query repeats it.
  static let k3 = 5.0
  /// The weight of the name's part of a word's score, against 1 for the content's.
  static let nameWeight = 2.0
  /// The weight of a form of a word other than the one typed, against 1.
  static let otherFormWeight = 0.8
  /// Scores of documents in the typed tier are raised by this (bm25 is kept below it).
  static let typedTier = 1e6

  /// For each phrase of the query, the group (word) it counts for; -1 for excluded ones.
  var groups: [Int]
  /// For each phrase, the weight of one occurrence.
  var weights: [Double]
  /// For each phrase, whether it is a word as typed (or a phrase, a prefix): a document
  /// holding it is in the typed tier.
  var typedForms: [Bool]
  /// For each group, how many times the query holds it.
  var queryCounts: [Int]
  /// For each group, how many documents hold its counting phrase (any form of the word).
  var documentCounts: [Int]

  /// The plan with the document counts of `statistics`.
  func completed(with statistics: SearchStatistics) -> RankingPlan {
    var plan = self
    plan.documentCounts = queryCounts.indices.map { group in
      group < statistics.groupDocumentCounts.count ? statistics.groupDocumentCounts[group] : 0
    }
    return plan
  }

  /// The plan for an FTS5 expression whose phrases are the plan's `order` (see
  /// ``FullTextQuery/phraseOrder``): a phrase the expression holds again counts only the
  /// first time, so that its occurrences are not counted twice.
  func inExpressionOrder(_ order: [Int]) -> RankingPlan {
    var plan = self
    var seen = Set<Int>()
    plan.groups = order.map { phrase in
      seen.insert(phrase).inserted && phrase < groups.count ? groups[phrase] : -1
    }
    plan.weights = order.map { $0 < weights.count ? weights[$0] : 0 }
    plan.typedForms = order.map { $0 < typedForms.count ? typedForms[$0] : false }
    return plan
  }

  /// Each group's IDF in a collection of `rows` documents: BM25's
  /// log((N − n + 0.5) / (n + 0.5)), floored at 1e-6 as FTS5's bm25.
  func idf(rows: Int) -> [Double] {
    let rows = Double(max(rows, 1))
    return documentCounts.map { count in
      let hits = Double(count)
      let idf = log((rows - hits + 0.5) / (hits + 0.5))
      return idf > 0 ? idf : 1e-6
    }
  }

  /// The score of a document from its occurrences of each phrase in its name and content
  /// and the lengths of both in tokens: the bm25 sum, plus ``typedTier`` when the document
  /// holds a typed form.
  func score(
    nameCounts: [Int], contentCounts: [Int], lengths: ColumnLengths,
    averages: ColumnLengths.Averages, idf: [Double]
  ) -> (score: Double, holdsTypedForm: Bool) {
    var frequencies = Array(repeating: 0.0, count: 2 * queryCounts.count)
    return nameCounts.withUnsafeBufferPointer { names in
      contentCounts.withUnsafeBufferPointer { contents in
        idf.withUnsafeBufferPointer { idf in
          frequencies.withUnsafeMutableBufferPointer { frequencies in
            score(
              nameCounts: names, contentCounts: contents, lengths: lengths, averages: averages,
              idf: idf, scratch: frequencies)
          }
        }
      }
    }
  }

  /// ``score(nameCounts:contentCounts:lengths:averages:idf:)`` on buffers, `scratch`
  /// holding two values per group: what `docsh_rank` runs for every row, allocating nothing.
  func score(
    nameCounts: UnsafeBufferPointer<Int>, contentCounts: UnsafeBufferPointer<Int>,
    lengths: ColumnLengths, averages: ColumnLengths.Averages, idf: UnsafeBufferPointer<Double>,
    scratch frequencies: UnsafeMutableBufferPointer<Double>
  ) -> (score: Double, holdsTypedForm: Bool) {
    for index in frequencies.indices { frequencies[index] = 0 }
    let groupCount = frequencies.count / 2
    var holdsTypedForm = false
    for phrase in 0..<min(groups.count, nameCounts.count, contentCounts.count) {
      let group = groups[phrase]
      guard group >= 0, group < groupCount else { continue }
      let inName = nameCounts[phrase]
      let inContent = contentCounts[phrase]
      if inName + inContent > 0 && typedForms[phrase] { holdsTypedForm = true }
      frequencies[2 * group] += weights[phrase] * Double(inName)
      frequencies[2 * group + 1] += weights[phrase] * Double(inContent)
    }
    let k1 = RankingPlan.k1
    let b = RankingPlan.b
    let nameNorm = k1 * (1 - b + b * Double(lengths.name) / max(averages.name, 1e-9))
    let contentNorm = k1 * (1 - b + b * Double(lengths.content) / max(averages.content, 1e-9))
    var score = 0.0
    for group in 0..<groupCount {
      let inName = frequencies[2 * group]
      let inContent = frequencies[2 * group + 1]
      guard inName > 0 || inContent > 0 else { continue }
      var part = 0.0
      if inName > 0 { part += RankingPlan.nameWeight * inName * (k1 + 1) / (inName + nameNorm) }
      if inContent > 0 { part += inContent * (k1 + 1) / (inContent + contentNorm) }
      let weight = group < idf.count ? idf[group] : 1e-6
      score +=
        weight * RankingPlan.queryWeight(group < queryCounts.count ? queryCounts[group] : 1)
        * part
    }
    // Below the tier, whatever the query.
    score = min(score, RankingPlan.typedTier / 2)
    return (holdsTypedForm ? score + RankingPlan.typedTier : score, holdsTypedForm)
  }

  /// The weight of a word the query holds `count` times: BM25's (k3 + 1) q / (k3 + q).
  static func queryWeight(_ count: Int) -> Double {
    let count = Double(max(count, 1))
    return (k3 + 1) * count / (k3 + count)
  }

  /// A score split into its tier and its bm25.
  static func split(_ score: Double) -> (bm25: Double, holdsTypedForm: Bool) {
    score >= typedTier ? (score - typedTier, true) : (score, false)
  }

  /// The plan as the `docsh_rank` SQL function reads it: `group:weight:typed` per phrase
  /// (typed 1 or 0), `|`, then `documents:count` per group (how many times the query holds it).
  var encoded: String {
    let phrases = zip(zip(groups, weights), typedForms).map { "\($0.0):\($0.1):\($1 ? 1 : 0)" }
      .joined(separator: " ")
    let words = zip(documentCounts, queryCounts).map { "\($0):\($1)" }.joined(separator: " ")
    return phrases + "|" + words
  }

  /// The plan `encoded` describes; `nil` when it is not one.
  init?(encoded: String) {
    let halves = encoded.split(separator: "|", omittingEmptySubsequences: false)
    guard halves.count == 2 else { return nil }
    groups = []
    weights = []
    typedForms = []
    documentCounts = []
    queryCounts = []
    for triple in halves[0].split(separator: " ") {
      let parts = triple.split(separator: ":")
      guard parts.count == 3, let group = Int(parts[0]), let weight = Double(parts[1]) else {
        return nil
      }
      groups.append(group)
      weights.append(weight)
      typedForms.append(parts[2] == "1")
    }
    for pair in halves[1].split(separator: " ") {
      let parts = pair.split(separator: ":")
      guard parts.count == 2, let value = Int(parts[0]), let count = Int(parts[1]) else {
        return nil
      }
      documentCounts.append(value)
      queryCounts.append(count)
    }
  }

  init(groups: [Int], weights: [Double], typedForms: [Bool], queryCounts: [Int]) {
    self.groups = groups
    self.weights = weights
    self.typedForms = typedForms
    self.queryCounts = queryCounts
    documentCounts = Array(repeating: 0, count: queryCounts.count)
  }
}

/// How long a document's name and content are, in tokens.
struct ColumnLengths: Sendable, Equatable {
  var name: Int
  var content: Int

  /// The mean lengths of a collection's names and contents.
  struct Averages: Sendable, Equatable {
    var name: Double
    var content: Double
  }
}
