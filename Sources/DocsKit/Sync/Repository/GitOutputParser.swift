// Reading git's output: pure functions over the bytes a git command printed, tested without
// git. ``Git`` runs the commands and hands their output here.
enum GitOutputParser {

  /// The contents `git cat-file --batch` gave for `count` names, `nil` for each missing.
  /// - Throws: when the output stops early.
  static func batchContents(_ output: [UInt8], count: Int, step: String) throws(SyncError)
    -> [[UInt8]?]
  {
    var results: [[UInt8]?] = []
    var position = 0
    for _ in 0..<count {
      guard let newline = output[position...].firstIndex(of: 0x0A) else {
        throw .gitFailed(step: step, message: "git cat-file stopped early")
      }
      let header = String(decoding: output[position..<newline], as: UTF8.self)
      position = newline + 1
      let fields = header.split(separator: " ")
      guard fields.count == 3, let size = Int(fields[2]) else {
        results.append(nil)  // "<name> missing" or "<name> ambiguous"
        continue
      }
      guard position + size <= output.count else {
        throw .gitFailed(step: step, message: "git cat-file stopped early")
      }
      results.append(Array(output[position..<(position + size)]))
      position += size + 1
    }
    return results
  }

  /// The sizes `git cat-file --batch-check` gave for `count` names, `nil` for each missing.
  /// - Throws: when the output stops early.
  static func batchSizes(_ lines: [Substring], count: Int, step: String) throws(SyncError)
    -> [Int?]
  {
    guard lines.count == count else {
      throw .gitFailed(step: step, message: "git cat-file stopped early")
    }
    return lines.map { line in
      let fields = line.split(separator: " ")
      return fields.count == 3 ? Int(fields[2]) : nil  // "<name> missing"
    }
  }

  /// The entries `git ls-tree -z` printed: the one place its output is read.
  static func treeEntries(in output: [UInt8]) -> [Git.TreeEntry] {
    var entries: [Git.TreeEntry] = []
    forEachTreeEntry(in: output) { entries.append($0) }
    return entries
  }

  /// Every file `git ls-tree -r -z` printed, as a change from the empty tree (``changedFiles(in:)``),
  /// made without a list of the entries first.
  static func filesOfTree(in output: [UInt8]) -> [Git.ChangedFile] {
    var files: [Git.ChangedFile] = []
    forEachTreeEntry(in: output) { entry in
      files.append(
        Git.ChangedFile(
          path: entry.path, isUTF8: entry.isUTF8, old: nil, new: GitBlobID(hex: entry.object),
          mode: entry.mode))
    }
    return files
  }

  /// Hands each entry `git ls-tree -z` printed to `body`, in order.
  private static func forEachTreeEntry(in output: [UInt8], _ body: (Git.TreeEntry) -> Void) {
    for record in output.split(separator: 0, omittingEmptySubsequences: true) {
      // "MODE TYPE OBJECT\tPATH"
      guard let tab = record.firstIndex(of: 0x09) else { continue }
      let fields = record[..<tab].split(separator: 0x20)
      guard fields.count == 3 else { continue }
      let kind: Git.TreeEntry.Kind
      switch String(decoding: fields[1], as: UTF8.self) {
      case "blob": kind = .blob
      case "tree": kind = .tree
      case "commit": kind = .commit
      default: continue
      }
      let pathBytes = record[(tab + 1)...]
      let path = String(validating: pathBytes, as: UTF8.self)
      body(
        Git.TreeEntry(
          mode: String(decoding: fields[0], as: UTF8.self), kind: kind,
          object: String(decoding: fields[2], as: UTF8.self),
          path: path ?? PrintableText.escaped(pathBytes), isUTF8: path != nil))
    }
  }

  /// The files `git diff-tree -r -z --no-commit-id` printed.
  static func changedFiles(in output: [UInt8]) -> [Git.ChangedFile] {
    func blob(_ field: ArraySlice<UInt8>) -> GitBlobID? {
      let hex = String(decoding: field, as: UTF8.self)
      return hex.allSatisfy({ $0 == "0" }) ? nil : GitBlobID(hex: hex)
    }
    var files: [Git.ChangedFile] = []
    let fields = output.split(separator: 0, omittingEmptySubsequences: false)
    var index = 0
    while index + 1 < fields.count {
      // ":OLDMODE NEWMODE OLD NEW STATUS" then the path.
      let meta = fields[index].split(separator: 0x20)
      let path = String(validating: fields[index + 1], as: UTF8.self)
      let printable = path ?? PrintableText.escaped(fields[index + 1])
      index += 2
      guard meta.count == 5 else { continue }
      files.append(
        Git.ChangedFile(
          path: printable, isUTF8: path != nil, old: blob(meta[2]), new: blob(meta[3]),
          mode: String(decoding: meta[1], as: UTF8.self)))
    }
    return files
  }

  /// The commits of lines `NAME 0x1F SECONDS 0x1F SUBJECT`.
  static func commitSubjects(in lines: [Substring]) -> [StoreCommit] {
    lines.compactMap { line in
      let fields = line.split(separator: "\u{1F}", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3, let seconds = Int64(fields[1]) else { return nil }
      return StoreCommit(
        commit: CommitID(fields[0]), date: Timestamp(millisecondsSince1970: seconds * 1000),
        message: String(fields[2]))
    }
  }

  /// The commits of lines `NAME 0x1F PARENTS 0x1F SECONDS 0x1F TREE`.
  static func commitRecords(in lines: [Substring]) -> [Git.CommitRecord] {
    lines.compactMap { line in
      let fields = line.split(separator: "\u{1F}", omittingEmptySubsequences: false)
      guard fields.count == 4, let seconds = Int64(fields[2]) else { return nil }
      return Git.CommitRecord(
        commit: CommitID(fields[0]),
        parents: fields[1].split(separator: " ").map { CommitID($0) }, seconds: seconds,
        tree: String(fields[3]))
    }
  }
}
