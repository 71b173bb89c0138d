/// What checking a store found (``Context/check()``).
public struct StoreCheckReport: Sendable {
  /// The store checked.
  public var path: String
  /// Whether there was a file to check.
  public var exists = true
  /// Every problem found, one sentence each; empty when the store is sound.
  public var problems: [String] = []
  /// The generation of the file, when it could be read.
  public var generation = 0
  /// How many categories the file holds.
  public var categoryCount = 0
  /// How many documents the file holds.
  public var documentCount = 0
  /// How many saves its save log holds beyond the file (0 when it has none).
  public var logRecords = 0
  /// What is worth knowing but no problem (the bytes a crash left after the log's last
  /// whole record: a save that never finished, removed by the next save).
  public var notes: [String] = []

  /// What checking did with the index, when the store has one: agreed, rebuilt (and why),
  /// or unavailable. The index is derived data: it never makes the store unsound.
  public var index: IndexState?

  /// Whether the interruption stopped the check before it went through every content:
  /// then the report is incomplete, and the index was not looked at.
  public var wasInterrupted = false

  /// Whether no problem was found.
  public var isSound: Bool { problems.isEmpty }
}
