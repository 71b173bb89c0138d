import DocsKit

/// What `check` and `docsh --check` print.
struct CheckReportView {
  let report: StoreCheckReport

  var lines: [String] {
    storeLines + report.notes.map { "  note: " + $0 } + indexLines
  }

  /// `  index: the index agrees with the store`, or why it was rebuilt or cannot be used;
  /// nothing without an index.
  private var indexLines: [String] {
    guard let index = report.index, index != .none else { return [] }
    return ["  index: \(index)"]
  }

  private var storeLines: [String] {
    if !report.exists && report.isSound {
      return ["\(report.path): no store yet (nothing saved), nothing to check"]
    }
    guard !report.isSound else {
      let categories =
        report.categoryCount == 1 ? "1 category" : "\(report.categoryCount) categories"
      let documents = report.documentCount == 1 ? "1 document" : "\(report.documentCount) documents"
      return [
        "\(report.path): sound (generation \(report.generation), \(categories), \(documents))"
      ]
    }
    let count = report.problems.count
    return ["\(report.path): \(count) problem\(count == 1 ? "" : "s")"]
      + report.problems.map { "  " + $0 }
  }
}
