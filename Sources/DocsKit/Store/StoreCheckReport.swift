/// What ``JSONStore/check()`` found.
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

  /// Whether no problem was found.
  public var isSound: Bool { problems.isEmpty }
}
