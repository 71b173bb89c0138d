#if canImport(DocsKit)
  @testable import DocsKit
#endif

/// A random three-way history of a store, driven by bytes (a seed's or a fuzzer's): a base,
/// two sides edited from it, their merge by ``StoreMerge``, and that merge written as the
/// files of a commit's tree. ``problems`` lists what breaks the promises of a sync: every
/// document a side created or changed survives (as itself, or as a conflict copy holding its
/// content), and the files read back as exactly the merged store.
struct TreeMergeHistory {
  private var bytes: [UInt8]
  private var position = 0
  private var nextID: UInt64 = 1
  /// How many documents the last merge held (a history that merged nothing proves nothing).
  private(set) var mergedDocumentCount = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes.isEmpty ? [0] : bytes }

  private mutating func byte() -> UInt8 {
    defer { position += 1 }
    return bytes[position % bytes.count] &+ UInt8(truncatingIfNeeded: position / bytes.count)
  }

  private mutating func id() -> ObjectID {
    nextID += 1
    return ObjectID(high: 0x1000_0000_0000_4000 | nextID, low: 0x8000_0000_0000_0000 | nextID)
  }

  private static let names = ["Plan", "plan", "Notes: q?", ".hidden", "con", "Idée", "a b ", "Log"]
  private static let lines = ["one", "two", "three", "", "four\r", "ünï"]

  private mutating func name() -> Name {
    let text = Self.names[Int(byte()) % Self.names.count]
    return (try? Name(text)) ?? Name(unchecked: "Plan")
  }

  private mutating func content() -> String {
    let count = Int(byte()) % 5
    var text = (0..<count).map { _ in Self.lines[Int(byte()) % Self.lines.count] }
      .joined(separator: "\n")
    if byte() % 2 == 0 { text += "\n" }
    return text
  }

  private mutating func edit(_ store: inout StoreSnapshot) {
    for _ in 0..<(2 + Int(byte()) % 8) {
      switch byte() % 7 {
      case 0:
        store.categories.append(SnapshotCategory(id: id(), name: name(), documents: []))
      case 1 where !store.categories.isEmpty:
        store.categories.remove(at: Int(byte()) % store.categories.count)
      case 2 where !store.categories.isEmpty:
        store.categories[Int(byte()) % store.categories.count].name = name()
      default:
        guard !store.categories.isEmpty else { continue }
        let index = Int(byte()) % store.categories.count
        var documents = store.categories[index].documents
        if documents.isEmpty || byte() % 3 == 0 {
          let text = content()
          documents.append(
            SnapshotDocument(
              id: id(), name: name(), size: text.utf8.count,
              modified: Timestamp(millisecondsSince1970: Int64(byte())), content: text))
        } else {
          let which = Int(byte()) % documents.count
          if byte() % 4 == 0 {
            documents.remove(at: which)
          } else {
            // Appends (which merge by line) and rewrites (which conflict).
            let text = byte() % 2 == 0 ? documents[which].content + content() : content()
            documents[which].content = text
            documents[which].size = text.utf8.count
            if byte() % 3 == 0 { documents[which].name = name() }
          }
        }
        store.categories[index].documents = documents
      }
    }
    // One name per category and per store, ignoring case, as the store's rules say.
    var keys = Set<NameKey>()
    store.categories.removeAll { !keys.insert($0.name.key).inserted }
    for index in store.categories.indices {
      var documentKeys = Set<NameKey>()
      store.categories[index].documents.removeAll { !documentKeys.insert($0.name.key).inserted }
    }
  }

  /// Builds the history and returns what broke, one line each.
  mutating func problems() -> [String] {
    var base = StoreSnapshot.empty
    for _ in 0..<3 { edit(&base) }
    var current = base
    edit(&current)
    var other = base
    edit(&other)
    let merged = StoreMerge(
      base: base, current: current, other: other,
      date: MergeDate(year: 2026, month: 12, day: 1)
    ).merged
    var problems: [String] = []
    let mergedDocuments = merged.categories.flatMap(\.documents)
    mergedDocumentCount = mergedDocuments.count
    let mergedIDs = Set(mergedDocuments.map(\.id))
    let mergedContents = Set(mergedDocuments.map(\.content))
    let baseDocuments = Dictionary(
      base.categories.flatMap(\.documents).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    for side in [current, other] {
      for document in side.categories.flatMap(\.documents)
      where baseDocuments[document.id] != document {
        if !mergedIDs.contains(document.id) && !mergedContents.contains(document.content) {
          problems.append("lost \(document.name.text): \(document.content.debugDescription)")
        }
      }
    }
    problems += Self.readBack(merged)
    return problems
  }

  /// Writes `merged` as the files of a tree and reads them back as a sync would.
  static func readBack(_ merged: StoreSnapshot) -> [String] {
    let layout = RepositoryLayout(prefix: "")
    let folders = Set(merged.categories.map { layout.folder(of: $0.name) })
    var files: [String: [UInt8]] = [:]
    for change in layout.changes(from: TreeReading(), to: merged, folders: folders) {
      guard case .put(let path, let bytes) = change else { return ["not a file: \(change)"] }
      guard files.updateValue(bytes, forKey: path) == nil else { return ["twice: \(path)"] }
    }
    var problems: [String] = []
    for category in merged.categories {
      let folder = layout.folder(of: category.name)
      guard FileNameEncoding.decode(folder)?.text == category.name.text else {
        problems.append("folder \(folder) is not \(category.name.text)")
        continue
      }
      let record = files[folder + "/" + CategoryFile.fileName].map(CategoryFile.parse)
      guard case .category(category.id, let name)? = record, name.text == category.name.text
      else {
        problems.append("record of \(category.name.text): \(String(describing: record))")
        continue
      }
      for document in category.documents {
        let file = FileNameEncoding.encode(document.name)
        guard FileNameEncoding.decode(file)?.text == document.name.text else {
          problems.append("file \(file) is not \(document.name.text)")
          continue
        }
        let parsed = files[folder + "/" + file].map(DocumentFile.parse)
        guard case .docsh(document.id, document.modified, let content)? = parsed,
          content.utf8.elementsEqual(document.content.utf8)
        else {
          problems.append(
            "\(category.name.text)/\(document.name.text): \(String(describing: parsed))")
          continue
        }
      }
    }
    let expected = merged.categories.count + merged.categories.reduce(0) { $0 + $1.documents.count }
    if files.count != expected { problems.append("\(files.count) files for \(expected) objects") }
    return problems
  }
}
