/// The index's query language: a ``CompiledQuery`` (phrases of folded tokens) as the FTS5
/// `MATCH` text of the index's `full_text` table, and what the index counts for each ranking
/// group's IDF. Built from quoted tokens only, so that nothing typed is FTS5 syntax; a stem
/// is asked for with a leading U+0001, which the `docsh` tokenizer reads as such.
struct FullTextQuery: Equatable {
  /// The FTS5 MATCH expression.
  var expression: String
  /// What to count for each ranking group of the query's plan.
  var counting: [IndexCountingTerm]
  /// For each phrase of `expression`, in the order FTS5 numbers them, the query's phrase:
  /// a phrase two groups share (`(a OR b) (a OR c)`) is in the expression twice.
  var phraseOrder: [Int]

  /// The FTS5 text of `query`.
  init(_ query: CompiledQuery) {
    var order: [Int] = []
    var expression = query.required.map { group in
      order += group
      return "("
        + group.map { FullTextQuery.literal(query.phrases[$0]) }.joined(separator: " OR ") + ")"
    }.joined(separator: " AND ")
    for index in query.excluded {
      order.append(index)
      expression = "(" + expression + ") NOT " + FullTextQuery.literal(query.phrases[index])
    }
    self.expression = expression
    phraseOrder = order
    // The vocabulary's document counts of single tokens (stems marked), or the documents
    // matching an expression.
    counting = query.countingPhrases.map { indexes in
      let counted = indexes.map { query.phrases[$0] }
      if counted.allSatisfy({ $0.tokens.count == 1 && !$0.isPrefix }) {
        return .terms(
          counted.map { ($0.isStem ? FullTextQuery.stemPrefix : "") + ($0.tokens.first ?? "") })
      }
      return .expression(counted.map(FullTextQuery.literal).joined(separator: " OR "))
    }
  }

  /// What starts a stem, in the index and in query strings (``stemMarker``).
  static let stemPrefix = String(UnicodeScalar(stemMarker))

  /// One phrase quoted, a prefix followed by ` *`.
  static func literal(_ phrase: CompiledQuery.Phrase) -> String {
    let quoted =
      "\"" + (phrase.isStem ? stemPrefix : "")
      + phrase.tokens.joined(separator: " ").replacingQuotes() + "\""
    return phrase.isPrefix ? quoted + " *" : quoted
  }
}

extension String {
  /// Every `"` doubled, as inside an FTS5 string.
  fileprivate func replacingQuotes() -> String {
    var result = ""
    for character in self {
      result.append(character)
      if character == "\"" { result.append("\"") }
    }
    return result
  }
}
