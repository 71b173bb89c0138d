/// The best `limit` scores recorded so far, as a min-heap in a buffer allocated once: the
/// lowest of them first, the bar a row must pass to be kept (``RankCall`` uses it).
struct BestScores {
  /// The heap; its count is the limit, 0 when every row is scored exactly.
  private let scores: UnsafeMutableBufferPointer<Double>
  /// How many of `scores` are recorded.
  private var count = 0

  /// Room for the best `limit` scores; none are kept when `limit` is 0 or less.
  init(limit: Int) {
    scores = .allocate(capacity: max(limit, 0))
    scores.initialize(repeating: 0)
  }

  /// The score below which a row cannot be kept; `nil` while fewer than `limit` are recorded.
  var threshold: Double? {
    count == scores.count && count > 0 ? scores[0] : nil
  }

  /// Records `score`: kept while fewer than `limit` are, afterwards in place of the lowest
  /// when it is higher.
  mutating func record(_ score: Double) {
    guard scores.count > 0 else { return }
    if count < scores.count {
      // Sift up.
      var child = count
      count += 1
      scores[child] = score
      while child > 0 {
        let parent = (child - 1) / 2
        guard scores[parent] > scores[child] else { break }
        scores.swapAt(parent, child)
        child = parent
      }
      return
    }
    guard score > scores[0] else { return }
    // Replace the lowest, sift down.
    scores[0] = score
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < count else { break }
      let right = left + 1
      let child = right < count && scores[right] < scores[left] ? right : left
      guard scores[child] < scores[parent] else { break }
      scores.swapAt(parent, child)
      parent = child
    }
  }

  /// Frees the heap; the owner calls it once, from its `deinit`.
  func deallocate() { scores.deallocate() }
}
