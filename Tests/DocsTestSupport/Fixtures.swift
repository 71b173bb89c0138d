import DocsKit
import Foundation

// The fixtures every test target shares: an injected clock, identities made in order, a
// seeded random generator and temporary folders. One copy, so the shell's tests and the
// model's tests stamp dates and make ids the same way.

// MARK: - Injected clock and identities

/// A clock that never reads the system time: reading n returns `start + n × step`, so every
/// reading is distinct and tests can say exactly which reading a date is.
public final class TestClock {
  /// The default start: a moment with milliseconds.
  public static let defaultStart: Int64 = 1_800_000_000_123
  /// The default step, 1.001 s, so that readings carry milliseconds too.
  public static let defaultStep: Int64 = 1_001

  /// The moment before the first reading.
  public let start: Int64
  /// How far apart two readings are, in milliseconds.
  public let step: Int64
  /// How many times the clock was read.
  public private(set) var readings = 0

  /// A clock whose first reading is `start + step`.
  public init(start: Int64 = TestClock.defaultStart, step: Int64 = TestClock.defaultStep) {
    self.start = start
    self.step = step
  }

  /// The next reading.
  public func now() -> Timestamp {
    readings += 1
    return reading(readings)
  }

  /// The value of reading `number` (counting from 1).
  public func reading(_ number: Int) -> Timestamp {
    Timestamp(millisecondsSince1970: start + Int64(number) * step)
  }

  /// The value of reading `number` of a clock with the default start and step.
  public static func reading(_ number: Int) -> Timestamp {
    TestClock().reading(number)
  }
}

/// Identities 1, 2, 3 … in the order objects are made.
public final class SequentialIDs {
  private var next: UInt64

  /// Starts after `number`: the first identity made is `number + 1`.
  public init(after number: UInt64 = 0) {
    next = number
  }

  /// The next identity.
  public func make() -> ObjectID {
    next += 1
    return SequentialIDs.id(next)
  }

  /// Identity `number`: a valid version-4 UUID whose last digits are the number.
  public static func id(_ number: UInt64) -> ObjectID {
    ObjectID(high: 0x0000_0000_0000_4000, low: 0x8000_0000_0000_0000 | number)
  }
}

// MARK: - Seeded randomness

/// SplitMix64: a small seeded generator, so a failing random case can be replayed.
public struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  /// A generator that starts from `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

// MARK: - Folders

/// A unique folder under the system's temporary folder, removed when the value goes away.
public final class TemporaryFolder {
  /// The folder.
  public let url: URL

  /// Makes the folder; `label` (letters and digits of it) appears in its name.
  public init(_ label: String = "test") throws {
    let safe = label.filter { $0.isLetter || $0.isNumber }.prefix(40)
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("docsh-\(safe)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    // Put back write permission on anything a test locked down, then remove it all.
    chmod(url.path, 0o700)
    try? FileManager.default.removeItem(at: url)
  }

  /// The folder's path.
  public var path: String { url.path }

  /// The path of `name` inside the folder.
  public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  /// The names in the folder, sorted.
  public func entries() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }

  /// Names left by a save in progress: `.NAME.*` (temp files, backups being linked).
  public func temporaryEntries(of storeName: String = "store.json") throws -> [String] {
    try entries().filter { $0.hasPrefix("." + storeName + ".") }
  }
}

// MARK: - File times

/// Sets the access and modification times of the file at `path` to `nanoseconds` since the
/// epoch, as a tool that keeps a file's time does; whether `utimensat` succeeded.
@discardableResult
public func setFileTimes(of path: String, toNanoseconds nanoseconds: Int64) -> Bool {
  let time = timespec(
    tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
  var times = [time, time]
  return utimensat(AT_FDCWD, path, &times, 0) == 0
}
