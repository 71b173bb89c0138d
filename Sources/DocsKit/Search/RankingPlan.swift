#if canImport(Glibc)
  import Glibc
#endif

/// How the documents a query matches are scored, the same in the index (the `docsh_rank`
/// FTS5 function) and in Swift (unsaved documents): BM25F over the query's words.
///
/// Each word is a group of phrases: for a plain word, the word as typed and its stem (which
/// every form of the word carries in the index). A group's frequency in a column is the
/// weighted sum of its phrases' occurrences there, another form weighing less than the one
/// typed — the typed form is a signal inside the score, not a tier above it; its IDF comes
/// from the documents holding its widest phrase (any form of the word), so a word counts
/// once however many forms it matches in. Name and content are BM25F's fields: each
/// column's frequency is normalized by that column's length against its mean, the name's
/// weighted more, and their sum saturates once (k1); a word the query holds more than once
/// counts more, saturating (BM25's k3).
///
/// Every rule and constant was chosen by leaving each of six judged collections out in turn
/// and scoring it with the setting best on the other five, among those that keep the typed
/// form a signal and README's `search planning` example (bench/relevance_model.py --loco;
/// bench/README.md, "Relevance"): BM25F (rather than BM25 per column summed, or one length
/// for both), no tier, k1 = 2, b = 0.75, k3 = 2, a name weighing 3, another form 0.55 — the
/// setting best on all six, and the one chosen in four folds of six (k3 = 8 in the others).
struct RankingPlan: Sendable, Equatable {
  static let k1 = 2.0
  static let b = 0.75
  /// BM25's k3: how fast a word's weight saturates as the query repeats it.
  static let k3 = 2.0
  /// The weight of the name's frequency, against 1 for the content's.
  static let nameWeight = 3.0
  /// The weight of a form of a word other than the one typed, against 1: low enough that
  /// one typed occurrence outweighs two of other forms in documents of about one length.
  static let otherFormWeight = 0.55

  /// For each phrase of the query, the group (word) it counts for; -1 for excluded ones.
  var groups: [Int]
  /// For each phrase, the weight of one occurrence.
  var weights: [Double]
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
  /// and the lengths of both in tokens.
  func score(
    nameCounts: [Int], contentCounts: [Int], lengths: ColumnLengths,
    averages: ColumnLengths.Averages, idf: [Double]
  ) -> Double {
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
  /// The score only falls as a name or a content grows (the index's bound on a row it does
  /// not score exactly is the score at length 0).
  func score(
    nameCounts: UnsafeBufferPointer<Int>, contentCounts: UnsafeBufferPointer<Int>,
    lengths: ColumnLengths, averages: ColumnLengths.Averages, idf: UnsafeBufferPointer<Double>,
    scratch frequencies: UnsafeMutableBufferPointer<Double>
  ) -> Double {
    for index in frequencies.indices { frequencies[index] = 0 }
    let groupCount = frequencies.count / 2
    for phrase in 0..<min(groups.count, nameCounts.count, contentCounts.count) {
      let group = groups[phrase]
      guard group >= 0, group < groupCount else { continue }
      frequencies[2 * group] += weights[phrase] * Double(nameCounts[phrase])
      frequencies[2 * group + 1] += weights[phrase] * Double(contentCounts[phrase])
    }
    let k1 = RankingPlan.k1
    let b = RankingPlan.b
    // b < 1: neither is ever 0.
    let nameNorm = 1 - b + b * Double(lengths.name) / max(averages.name, 1e-9)
    let contentNorm = 1 - b + b * Double(lengths.content) / max(averages.content, 1e-9)
    var score = 0.0
    for group in 0..<groupCount {
      let frequency =
        RankingPlan.nameWeight * frequencies[2 * group] / nameNorm
        + frequencies[2 * group + 1] / contentNorm
      guard frequency > 0 else { continue }
      let weight = group < idf.count ? idf[group] : 1e-6
      score +=
        weight * RankingPlan.queryWeight(group < queryCounts.count ? queryCounts[group] : 1)
        * frequency * (k1 + 1) / (frequency + k1)
    }
    return score
  }

  /// The weight of a word the query holds `count` times: BM25's (k3 + 1) q / (k3 + q).
  static func queryWeight(_ count: Int) -> Double {
    let count = Double(max(count, 1))
    return (k3 + 1) * count / (k3 + count)
  }

  /// The plan as the `docsh_rank` SQL function reads it: `group:weight` per phrase, `|`,
  /// then `documents:count` per group (how many times the query holds it).
  var encoded: String {
    let phrases = zip(groups, weights).map { "\($0):\($1)" }.joined(separator: " ")
    let words = zip(documentCounts, queryCounts).map { "\($0):\($1)" }.joined(separator: " ")
    return phrases + "|" + words
  }

  /// The plan `encoded` describes; `nil` when it is not one.
  init?(encoded: String) {
    let halves = encoded.split(separator: "|", omittingEmptySubsequences: false)
    guard halves.count == 2 else { return nil }
    guard let phrases = Self.pairs(in: halves[0], { Int($0) }, { Double($0) }),
      let words = Self.pairs(in: halves[1], { Int($0) }, { Int($0) })
    else { return nil }
    (groups, weights) = phrases
    (documentCounts, queryCounts) = words
  }

  /// The `first:second` pairs of `text`, separated by spaces, as two columns; `nil` when one
  /// is not such a pair.
  private static func pairs<First, Second>(
    in text: Substring, _ first: (Substring) -> First?, _ second: (Substring) -> Second?
  ) -> ([First], [Second])? {
    var firsts: [First] = []
    var seconds: [Second] = []
    for pair in text.split(separator: " ") {
      let parts = pair.split(separator: ":")
      guard parts.count == 2, let left = first(parts[0]), let right = second(parts[1]) else {
        return nil
      }
      firsts.append(left)
      seconds.append(right)
    }
    return (firsts, seconds)
  }

  init(groups: [Int], weights: [Double], queryCounts: [Int]) {
    self.groups = groups
    self.weights = weights
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
