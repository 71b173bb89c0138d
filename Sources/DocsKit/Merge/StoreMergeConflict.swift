#if canImport(Glibc)
  import Glibc
#endif

/// The day of a merge, as the siblings it makes are named: `NAME (conflict 2026-05-01)`.
public struct MergeDate: Hashable, Sendable, CustomStringConvertible {
  /// The year.
  public var year: Int
  /// The month, 1 to 12.
  public var month: Int
  /// The day of the month, 1 to 31.
  public var day: Int

  /// The date of `year`, `month` and `day`.
  public init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// The calendar date of `timestamp`, `offsetSeconds` east of UTC.
  public init(_ timestamp: Timestamp, offsetSeconds: Int = 0) {
    let fields = timestamp.calendarFields(offsetSeconds: offsetSeconds)
    self.init(year: fields.year, month: fields.month, day: fields.day)
  }

  /// Today in the process's local time zone.
  public static func today() -> MergeDate {
    let now = Timestamp.now()
    var time = time_t(now.secondsSince1970)
    var fields = tm()
    guard localtime_r(&time, &fields) != nil else { return MergeDate(now) }
    return MergeDate(now, offsetSeconds: fields.tm_gmtoff)
  }

  /// `YYYY-MM-DD`.
  public var description: String {
    func padded(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
  }
}

/// Something both sides of a three-way store merge changed in ways that contradict: how
/// the merge settled it, never losing a side. "Here" is CURRENT (this machine, the branch
/// merged into), "the other side" is OTHER.
public struct StoreMergeConflict: Hashable, Sendable, CustomStringConvertible {
  /// What contradicted what, and what the merge did about it.
  public enum Kind: Hashable, Sendable {
    /// Both sides changed these properties of the document: this side's values stay and the
    /// other side's version is a sibling document at `otherVersion` (a path).
    case changedOnBothSides([DocumentProperty], otherVersion: String)
    /// This side changed the object, the other deleted it: it is kept.
    case changedHereDeletedThere
    /// This side deleted the object, the other changed it: it is kept.
    case deletedHereChangedThere
    /// Both sides created a document of this name: the other side's is at `otherRenamedTo`.
    case createdOnBothSides(otherRenamedTo: String)
    /// The object's name was taken by another one in the merged store: renamed to
    /// `renamedTo` (a path).
    case nameTaken(renamedTo: String)
    /// Both sides renamed the category, differently: this side's name (in the path) stays.
    case renamedBothWays(otherName: String)
  }

  /// The object as the merged store names it: `Category/` or `Category/Document`.
  public var path: String
  /// What contradicted what.
  public var kind: Kind

  /// A conflict at `path` of kind `kind`.
  public init(path: String, kind: Kind) {
    self.path = path
    self.kind = kind
  }

  /// One line saying what happened.
  public var description: String {
    switch kind {
    case .changedOnBothSides(let properties, let otherVersion):
      return
        "\(path): \(StoreMergeConflict.list(properties.map(\.rawValue))) changed on both sides; the other side's version is \(otherVersion)"
    case .changedHereDeletedThere:
      return "\(path): changed here, deleted on the other side; kept"
    case .deletedHereChangedThere:
      return "\(path): deleted here, changed on the other side; kept"
    case .createdOnBothSides(let otherRenamedTo):
      return "\(path): created on both sides; the other side's is \(otherRenamedTo)"
    case .nameTaken(let renamedTo):
      return "\(path): the name is taken in the merged store; renamed \(renamedTo)"
    case .renamedBothWays(let otherName):
      return "\(path): renamed on both sides (the other side named it \(otherName)); kept this name"
    }
  }

  /// "a", "a and b", "a, b and c".
  private static func list(_ words: [String]) -> String {
    guard words.count > 1, let last = words.last else { return words.first ?? "" }
    return words.dropLast().joined(separator: ", ") + " and " + last
  }
}
