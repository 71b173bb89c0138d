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
  /// How many categories the last merge took across the fan-out limit, either way.
  private(set) var crossingCount = 0

  /// Over this many documents a category's files lie in buckets (tiny, so that histories
  /// cross it).
  private let fanOutLimit: Int

  init(_ bytes: [UInt8], fanOutLimit: Int = RepositoryLayout.defaultFanOutLimit) {
    self.bytes = bytes.isEmpty ? [0] : bytes
    self.fanOutLimit = fanOutLimit
  }

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
    let baseCounts = Dictionary(
      base.categories.map { ($0.id, $0.documents.count) }, uniquingKeysWith: { a, _ in a })
    crossingCount =
      merged.categories.filter {
        (baseCounts[$0.id].map { $0 > fanOutLimit } ?? false) != ($0.documents.count > fanOutLimit)
      }.count
    problems += Self.readBack(merged, over: base, fanOutLimit: fanOutLimit)
    return problems
  }

  /// Writes `base` as the files of a tree, then `merged` as a sync's changes over it, and
  /// reads the files back as a sync would: each object where the layout puts it (a category
  /// of more than `fanOutLimit` documents in buckets, its record saying so), nothing else.
  static func readBack(
    _ merged: StoreSnapshot, over base: StoreSnapshot = .empty,
    fanOutLimit: Int = RepositoryLayout.defaultFanOutLimit
  ) -> [String] {
    let layout = RepositoryLayout(prefix: "", fanOutLimit: fanOutLimit)
    var files: [String: [UInt8]] = [:]
    let baseFolders = Set(base.categories.map { layout.folder(of: $0.name) })
    if let problem = apply(
      layout.changes(from: TreeReading(), to: base, folders: baseFolders), to: &files)
    {
      return ["base: " + problem]
    }
    var parent = TreeReading()
    parent.snapshot = base
    for category in base.categories {
      parent.folders[category.id] = layout.folder(of: category.name)
      if layout.isFannedOut(documentCount: category.documents.count) {
        parent.fannedOut.insert(category.id)
      }
    }
    for (path, bytes) in files {
      parent.files[path] = GitBlobID(of: bytes)
      parent.docshFiles.insert(path)
    }
    let folders = baseFolders.union(merged.categories.map { layout.folder(of: $0.name) })
    if let problem = apply(layout.changes(from: parent, to: merged, folders: folders), to: &files) {
      return [problem]
    }
    var problems: [String] = []
    for category in merged.categories {
      problems += Self.problems(of: category, in: files, layout: layout)
    }
    let expected = merged.categories.count + merged.categories.reduce(0) { $0 + $1.documents.count }
    if files.count != expected { problems.append("\(files.count) files for \(expected) objects") }
    return problems
  }

  /// Applies `changes` to `files` as fast-import would (a blob put by its id is one of
  /// `files`); what it cannot apply, if anything.
  private static func apply(
    _ changes: [FastImportCommit.Change], to files: inout [String: [UInt8]]
  ) -> String? {
    var blobs: [GitBlobID: [UInt8]] = [:]
    for bytes in files.values { blobs[GitBlobID(of: bytes)] = bytes }
    for change in changes {
      switch change {
      case .put(let path, let bytes):
        files[path] = bytes
      case .putBlob(let path, let blob):
        guard let bytes = blobs[blob] else { return "no blob \(blob.hex) for \(path)" }
        files[path] = bytes
      case .delete(let path):
        guard files.removeValue(forKey: path) != nil else { return "deleted nothing: \(path)" }
      case .rename:
        return "a rename: \(change)"
      case .putEntry:
        return "an entry that is not a file: \(change)"
      case .putMark:
        return "a blob of a whole-store stream: \(change)"
      }
    }
    return nil
  }

  /// What is wrong with `category`'s record and files in `files`.
  private static func problems(
    of category: SnapshotCategory, in files: [String: [UInt8]], layout: RepositoryLayout
  ) -> [String] {
    let folder = layout.folder(of: category.name)
    guard FileNameEncoding.decode(folder)?.text == category.name.text else {
      return ["folder \(folder) is not \(category.name.text)"]
    }
    let fannedOut = layout.isFannedOut(documentCount: category.documents.count)
    let record = files[folder + "/" + CategoryFile.fileName].map(CategoryFile.parse)
    guard case .category(category.id, let name, let fanOut)? = record,
      name.text == category.name.text, fanOut == (fannedOut ? 256 : 0)
    else {
      return ["record of \(category.name.text): \(String(describing: record))"]
    }
    var problems: [String] = []
    for document in category.documents {
      let file = FileNameEncoding.encode(document.name)
      guard FileNameEncoding.decode(file)?.text == document.name.text else {
        problems.append("file \(file) is not \(document.name.text)")
        continue
      }
      let path = layout.path(of: document.name, in: category.name, fannedOut: fannedOut)
      let parsed = files[path].map(DocumentFile.parse)
      guard case .docsh(document.id, document.modified, let content, _)? = parsed,
        content.utf8.elementsEqual(document.content.utf8)
      else {
        problems.append(
          "\(category.name.text)/\(document.name.text): \(String(describing: parsed))")
        continue
      }
    }
    return problems
  }
}
