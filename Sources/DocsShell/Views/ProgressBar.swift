import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// What a piece of long work counts in.
enum ProgressUnit: Sendable {
  /// Bytes, shown as sizes: `86 MB of 227 MB`.
  case bytes
  /// Things, shown as counts: `1200 of 5000 files`.
  case items(String)
}

/// Long work the shell itself does (import, export), reported as it goes.
protocol ProgressShowing: AnyObject {
  /// Work called `title` starts, `total` units long.
  func begin(_ title: String, total: Int, unit: ProgressUnit)
  /// `completed` units are done.
  func advance(to completed: Int)
  /// The work is over.
  func end()
}

/// Draws long work as one line on a terminal's standard error, redrawn in place and cleared
/// at the end: what, how far, how long left. Nothing shows for work done within ``delay``;
/// the shell makes one only when standard error is a terminal, so a pipe or a `--json`
/// output never sees it. It draws the store's work (opening, indexing, checking) and the
/// shell's own.
final class ProgressBar: ProgressObserver, ProgressShowing {
  /// How long work runs before the bar appears, unless told otherwise: half a second.
  static let defaultDelay: Int64 = 500_000_000
  /// The variable that sets the delay in milliseconds, for tests: with 0 the bar shows
  /// however fast the machine does the work.
  static let delayVariable = "DOCSH_PROGRESS_DELAY_MS"
  /// The least time between two redraws.
  static let redrawInterval: Int64 = 100_000_000
  /// The width of the bar itself, in characters.
  static let barWidth = 24

  /// How long work runs before this bar appears, in nanoseconds.
  let delay: Int64
  private let output: TextOutput
  private let clock: () -> Int64
  private var title: String?
  private var unit = ProgressUnit.bytes
  private var total = 0
  private var started: Int64 = 0
  private var lastDrawn: Int64?

  /// A bar on `output` that appears after `delay` nanoseconds; `clock` gives monotonic
  /// nanoseconds (injected for tests).
  init(
    output: TextOutput, delay: Int64 = ProgressBar.defaultDelay,
    clock: @escaping () -> Int64 = ProgressBar.monotonicNanoseconds
  ) {
    self.output = output
    self.delay = delay
    self.clock = clock
  }

  /// The delay `environment` sets through ``delayVariable``: a whole number of milliseconds
  /// from 0 to a day; anything else (unset, empty, negative, not a number) is the default.
  static func delay(in environment: [String: String]) -> Int64 {
    guard let text = environment[delayVariable], let milliseconds = Int64(text),
      (0...86_400_000).contains(milliseconds)
    else { return defaultDelay }
    return milliseconds * 1_000_000
  }

  // MARK: - The store's work

  func beginTask(_ task: ProgressTask, totalBytes: Int) {
    begin(task.description, total: totalBytes, unit: .bytes)
  }

  func advanceTask(to completedBytes: Int) {
    advance(to: completedBytes)
  }

  func endTask() {
    end()
  }

  // MARK: - Drawing

  func begin(_ title: String, total: Int, unit: ProgressUnit) {
    self.title = title
    self.unit = unit
    self.total = max(total, 1)
    started = clock()
    lastDrawn = nil
  }

  func advance(to completed: Int) {
    guard let title else { return }
    let now = clock()
    let elapsed = now - started
    guard elapsed >= delay else { return }
    if let lastDrawn, now - lastDrawn < ProgressBar.redrawInterval { return }
    lastDrawn = now
    output.write(
      "\r" + ProgressBar.line(title, completed: completed, of: total, unit: unit, elapsed: elapsed)
        + "\u{1B}[K")
    output.flush()
  }

  func end() {
    if lastDrawn != nil {
      output.write("\r\u{1B}[K")
      output.flush()
    }
    title = nil
    lastDrawn = nil
  }

  /// `indexing the store  [#########---------------]  38%  86 MB of 227 MB, 2 s left`.
  static func line(
    _ title: String, completed: Int, of total: Int, unit: ProgressUnit = .bytes, elapsed: Int64
  ) -> String {
    let done = min(max(completed, 0), total)
    let filled = done * barWidth / total
    let bar =
      String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
    var text = "\(title)  [\(bar)]  \(done * 100 / total)%  "
    switch unit {
    case .bytes:
      text += SizeFormatting.humanReadable(done) + " of " + SizeFormatting.humanReadable(total)
    case .items(let noun):
      text += "\(done) of \(total) \(noun)"
    }
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
