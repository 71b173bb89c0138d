#if canImport(Glibc)
  import Glibc
#endif

/// How the documents a query matches are scored, the same in the index (the `docsh_rank`
/// FTS5 function) and in Swift (unsaved documents): BM25 over the query's words.
///
/// Each word is a group of phrases: for a plain word, the word as typed and its stem (which
/// every form of the word carries in the index). A group's frequency in a document is the
/// weighted sum of its phrases' occurrences, a name's occurrences weighing more; its IDF
/// comes from the documents holding its widest phrase (any form of the word), so a word
/// counts once however many forms it matches in. A name holding a word of `nameGroups`
/// puts the document in the upper tier. Parameters were tuned on Cranfield
/// (bench/relevance.py): k1 = 2, b = 0.6 rather than FTS5's fixed 1.2, 0.75.
struct RankingPlan: Sendable, Equatable {
  static let k1 = 2.0
  static let b = 0.6
  /// The weight of an occurrence in a name, against 1 in a content.
  static let nameWeight = 3.0
  /// The weight of a form of a word other than the one typed, against 1.
  static let stemWeight = 0.8
  /// Scores of documents in the name tier are raised by this (bm25 stays far below it).
  static let nameTier = 1e6

  /// For each phrase of the query, the group (word) it counts for; -1 for excluded ones.
  var groups: [Int]
  /// For each phrase, the weight of one occurrence.
  var weights: [Double]
  /// For each group, whether a name holding it ranks the document first.
  var nameGroups: [Bool]
  /// For each group, how many documents hold its counting phrase (any form of the word).
  var documentCounts: [Int]

  /// The plan with the document counts of `statistics`.
  func completed(with statistics: SearchStatistics) -> RankingPlan {
    var plan = self
    plan.documentCounts = nameGroups.indices.map { group in
      group < statistics.groupDocumentCounts.count ? statistics.groupDocumentCounts[group] : 0
    }
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
  /// and its length in tokens: the bm25 sum, plus ``nameTier`` when the name tier applies.
  func score(
    nameCounts: [Int], contentCounts: [Int], length: Int, averageLength: Double, idf: [Double]
  ) -> (score: Double, matchesName: Bool) {
    var frequencies = Array(repeating: 0.0, count: nameGroups.count)
    return nameCounts.withUnsafeBufferPointer { names in
      contentCounts.withUnsafeBufferPointer { contents in
        idf.withUnsafeBufferPointer { idf in
          frequencies.withUnsafeMutableBufferPointer { frequencies in
            score(
              nameCounts: names, contentCounts: contents, length: length,
              averageLength: averageLength, idf: idf, scratch: frequencies)
          }
        }
      }
    }
  }

  /// ``score(nameCounts:contentCounts:length:averageLength:idf:)`` on buffers, `scratch`
  /// holding one value per group: what `docsh_rank` runs for every row, allocating nothing.
  func score(
    nameCounts: UnsafeBufferPointer<Int>, contentCounts: UnsafeBufferPointer<Int>, length: Int,
    averageLength: Double, idf: UnsafeBufferPointer<Double>,
    scratch frequencies: UnsafeMutableBufferPointer<Double>
  ) -> (score: Double, matchesName: Bool) {
    for group in frequencies.indices { frequencies[group] = 0 }
    var matchesName = false
    for phrase in 0..<min(groups.count, nameCounts.count, contentCounts.count) {
      let group = groups[phrase]
      guard group >= 0, group < frequencies.count else { continue }
      let inName = nameCounts[phrase]
      let inContent = contentCounts[phrase]
      if inName > 0 && nameGroups[group] { matchesName = true }
      frequencies[group] +=
        weights[phrase] * (RankingPlan.nameWeight * Double(inName) + Double(inContent))
    }
    let k1 = RankingPlan.k1
    let b = RankingPlan.b
    let norm = k1 * (1 - b + b * Double(length) / max(averageLength, 1))
    var score = 0.0
    for group in frequencies.indices where frequencies[group] > 0 {
      let frequency = frequencies[group]
      let weight = group < idf.count ? idf[group] : 1e-6
      score += weight * frequency * (k1 + 1) / (frequency + norm)
    }
    return (matchesName ? score + RankingPlan.nameTier : score, matchesName)
  }

  /// The plan as the `docsh_rank` SQL function reads it: `group:weight` per phrase, `|`, then
  /// `documents:tier` per group (tier 1 or 0).
  var encoded: String {
    let phrases = zip(groups, weights).map { "\($0):\($1)" }.joined(separator: " ")
    let words = zip(documentCounts, nameGroups).map { "\($0):\($1 ? 1 : 0)" }
      .joined(separator: " ")
    return phrases + "|" + words
  }

  /// The plan `encoded` describes; `nil` when it is not one.
  init?(encoded: String) {
    let halves = encoded.split(separator: "|", omittingEmptySubsequences: false)
    guard halves.count == 2 else { return nil }
    groups = []
    weights = []
    documentCounts = []
    nameGroups = []
    for pair in halves[0].split(separator: " ") {
      let parts = pair.split(separator: ":")
      guard parts.count == 2, let group = Int(parts[0]), let weight = Double(parts[1]) else {
        return nil
      }
      groups.append(group)
      weights.append(weight)
    }
    for pair in halves[1].split(separator: " ") {
      let parts = pair.split(separator: ":")
      guard parts.count == 2, let value = Int(parts[0]) else { return nil }
      documentCounts.append(value)
      nameGroups.append(parts[1] == "1")
    }
  }

  init(groups: [Int], weights: [Double], nameGroups: [Bool]) {
    self.groups = groups
    self.weights = weights
    self.nameGroups = nameGroups
    documentCounts = Array(repeating: 0, count: nameGroups.count)
  }
}
