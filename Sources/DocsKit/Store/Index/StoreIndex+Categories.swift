// A category's row: how it is read, for the whole list and for one looked up by name (an
// open that defers its category list reads only the one a command names).

extension StoreIndex {
  /// The columns a category's row is read from, as ``category(_:)`` reads them.
  static let categoryColumns = CategoryColumn.allCases.map(\.rawValue).joined(separator: ", ")

  /// The category whose name is spelled `name`, byte for byte; `nil` when none is, or more
  /// than one (another spelling of the same key may name one, and two break a rule of the
  /// file: the caller reads the whole list, which finds the one or reports the broken rule).
  func category(spelled name: String) throws(SQLiteError) -> IndexedCategory? {
    var found: [IndexedCategory] = []
    try database.query(
      "SELECT \(StoreIndex.categoryColumns) FROM categories WHERE name = ? LIMIT 2",
      [.text(name)]
    ) { row throws(SQLiteError) in found.append(try StoreIndex.category(row)) }
    return found.count == 1 ? found.first : nil
  }

  /// The category a row of `SELECT categoryColumns FROM categories` holds.
  /// - Throws: ``SQLiteError`` (damage) when its uuid is not one.
  static func category(_ row: SQLiteRow) throws(SQLiteError) -> IndexedCategory {
    func column(_ column: CategoryColumn) -> Int { row.int(column.rawValue) }
    guard let id = row.objectID(CategoryColumn.uuid.rawValue) else {
      throw SQLiteError(operation: "read", code: SQLiteError.corrupt, message: "bad uuid")
    }
    let latest = CategoryColumn.latestModified.rawValue
    return IndexedCategory(
      rowID: row.integer(CategoryColumn.id.rawValue), id: id,
      name: row.text(CategoryColumn.name.rawValue), ordinal: column(.ordinal),
      placement: CategoryPlacement(
        start: column(.start),
        documents: StoredLocation(
          offset: column(.documentsOffset), length: column(.documentsLength))),
      summary: CategorySummary(
        documentCount: column(.documentCount), totalSize: column(.totalSize),
        latestModification: row.isNull(latest)
          ? nil : Timestamp(millisecondsSince1970: row.integer(latest))),
      touchedByLog: column(.inLog) != 0)
  }
}
