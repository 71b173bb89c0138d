import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Draws the store's long work as one line on a terminal's standard error, redrawn in place
/// and cleared at the end: what, how far, how long left. Nothing shows for work done within
/// ``delay``; the shell makes one only when standard error is a terminal, so a pipe or a
/// `--json` output never sees it.
final class ProgressBar: ProgressObserver {
  /// How long work runs before the bar appears.
  static let delay: Int64 = 500_000_000
  /// The least time between two redraws.
  static let redrawInterval: Int64 = 100_000_000
  /// The width of the bar itself, in characters.
  static let barWidth = 24

  private let output: TextOutput
  private let clock: () -> Int64
  private var task: ProgressTask?
  private var total = 0
  private var started: Int64 = 0
  private var lastDrawn: Int64?

  /// A bar on `output`; `clock` gives monotonic nanoseconds (injected for tests).
  init(output: TextOutput, clock: @escaping () -> Int64 = ProgressBar.monotonicNanoseconds) {
    self.output = output
    self.clock = clock
  }

  func beginTask(_ task: ProgressTask, totalBytes: Int) {
    self.task = task
    total = max(totalBytes, 1)
    started = clock()
    lastDrawn = nil
  }

  func advanceTask(to completedBytes: Int) {
    guard let task else { return }
    let now = clock()
    let elapsed = now - started
    guard elapsed >= ProgressBar.delay else { return }
    if let lastDrawn, now - lastDrawn < ProgressBar.redrawInterval { return }
    lastDrawn = now
    output.write(
      "\r" + ProgressBar.line(task, completed: completedBytes, of: total, elapsed: elapsed)
        + "\u{1B}[K")
    output.flush()
  }

  func endTask() {
    if lastDrawn != nil {
      output.write("\r\u{1B}[K")
      output.flush()
    }
    task = nil
    lastDrawn = nil
  }

  /// `indexing the store  [#########---------------]  38%  86 MB of 227 MB, 2 s left`.
  static func line(_ task: ProgressTask, completed: Int, of total: Int, elapsed: Int64) -> String {
    let done = min(max(completed, 0), total)
    let filled = done * barWidth / total
    let bar =
      String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
    let percent = done * 100 / total
    var text = "\(task)  [\(bar)]  \(percent)%  "
    text += SizeFormatting.humanReadable(done) + " of " + SizeFormatting.humanReadable(total)
    if done > 0 && done < total {
      let left = Int64(Double(elapsed) * Double(total - done) / Double(done) / 1e9)
      text +=
        ", " + (left < 1 ? "under a second" : left < 120 ? "\(left) s" : "\(left / 60) min")
        + " left"
    }
    return text
  }

  /// The monotonic clock in nanoseconds.
  static func monotonicNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}
