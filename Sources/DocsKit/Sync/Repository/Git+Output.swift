/// A commit, by its full object name.
public struct CommitID: Hashable, Sendable, CustomStringConvertible {
  /// The full hexadecimal object name.
  public let hex: String

  /// A commit named `hex` (as git printed it).
  public init(_ hex: some StringProtocol) {
    self.hex = String(hex)
  }

  /// The first seven digits, as `git log --oneline` shows.
  public var short: String { String(hex.prefix(7)) }

  /// The full name.
  public var description: String { hex }
}

// The typed values ``Git`` answers with, and the one place each kind of git's output is
// read into them: pure functions of the bytes git printed, so that each can be tested
// without git.
extension Git {
  /// Where git found a folder's repository (``Git/lookUpRepository()``).
  enum Lookup: Equatable {
    /// In the repository whose git folder is `directory`: bare (no work tree) or not, the
    /// folder lying at `prefix` (`""` or `notes/`) in its work tree.
    case found(directory: String, isBare: Bool, prefix: String)
    /// In none, or one git refuses: git's line saying why.
    case notFound(reason: String)
  }

  /// One setting of git's config, as `git config --get-regexp` prints it.
  struct ConfigEntry: Equatable {
    /// Its name, lower case as git prints it (`docsh.layout`).
    var key: String
    /// Its value (`""` for a setting without one).
    var value: String

    /// An entry setting `key` to `value`.
    init(key: String, value: String) {
      self.key = key
      self.value = value
    }

    /// The entry of a line `KEY VALUE` (or `KEY` alone).
    init(line: some StringProtocol) {
      let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
      key = parts.first.map { String($0) } ?? ""
      value = parts.count > 1 ? String(parts[1]) : ""
    }
  }

  /// What a committer's identity lacks in git's configuration, supplied for one command.
  struct IdentityFallback: Equatable {
    /// The name to use where git has none configured; `nil` when it has one.
    var name: String?
    /// The email to use where git has none configured; `nil` when it has one.
    var email: String?
  }

  /// Where a ref must be for ``Git/updateRef(_:to:expecting:reason:)`` to move it.
  enum ExpectedRef {
    /// Anywhere, or nowhere yet.
    case anything
    /// Nowhere: the ref must not exist yet.
    case absent
    /// At this commit.
    case at(CommitID)
  }

  /// What ``Git/fastImport(_:forcing:incompressible:)`` reads.
  enum FastImportInput {
    /// A stream in memory.
    case bytes([UInt8])
    /// A stream in the file open here, read from its start.
    case file(Int32)
  }

  /// How a push ended, when the remote was reached.
  enum PushOutcome: Equatable {
    /// The remote took it.
    case pushed
    /// The remote refused it for having moved: fetch and merge first.
    case remoteMoved
  }

  /// One commit of a log, as ``Git/commits(reachableFrom:excluding:)`` gives it.
  struct CommitRecord: Equatable {
    var commit: CommitID
    var parents: [CommitID]
    /// The committer's date, in seconds since 1970.
    var seconds: Int64
    /// Its tree's object name.
    var tree: String
  }

  /// One file that differs between two commits (``Git/changedFiles(from:to:)``).
  struct ChangedFile: Equatable {
    /// Its path; when its bytes are not UTF-8, their printable spelling
    /// (``PrintableText/escaped(_:)``), and ``isUTF8`` is `false`.
    var path: String
    /// Whether the path's bytes are UTF-8.
    var isUTF8: Bool
    /// Its blob in the old commit, `nil` when it was not there.
    var old: GitBlobID?
    /// Its blob in the new commit, `nil` when it is not there.
    var new: GitBlobID?
    /// Its mode in the new commit (`100644`, `120000` for a symbolic link, `160000` for a
    /// submodule).
    var mode: String
  }

  /// One entry of a tree, as `git ls-tree` names it.
  struct TreeEntry: Sendable {
    /// `100644`, `100755`, `040000`, `120000` or `160000`.
    var mode: String
    /// A file (a symbolic link too), a folder, or a submodule's commit.
    var kind: Kind
    /// The object: a blob, a tree or a commit.
    var object: String
    /// Its path from the tree listed; when its bytes are not UTF-8, the printable spelling
    /// of ``PrintableText/escaped(_:)`` (and ``isUTF8`` is `false`).
    var path: String
    /// Whether the path's bytes are UTF-8: a path that is not can only be named, never
    /// used as a path again.
    var isUTF8 = true

    /// What an entry is.
    enum Kind: Sendable {
      case blob, tree, commit
    }

    /// A symbolic link (`120000`): a blob holding the link's target, never a document.
    var isSymbolicLink: Bool { mode == "120000" }
  }

  // MARK: - Reading git's output

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
  static func treeEntries(in output: [UInt8]) -> [TreeEntry] {
    var entries: [TreeEntry] = []
    for record in output.split(separator: 0, omittingEmptySubsequences: true) {
      // "MODE TYPE OBJECT\tPATH"
      guard let tab = record.firstIndex(of: 0x09) else { continue }
      let fields = record[..<tab].split(separator: 0x20)
      guard fields.count == 3 else { continue }
      let kind: TreeEntry.Kind
      switch String(decoding: fields[1], as: UTF8.self) {
      case "blob": kind = .blob
      case "tree": kind = .tree
      case "commit": kind = .commit
      default: continue
      }
      let pathBytes = record[(tab + 1)...]
      let path = String(validating: pathBytes, as: UTF8.self)
      entries.append(
        TreeEntry(
          mode: String(decoding: fields[0], as: UTF8.self), kind: kind,
          object: String(decoding: fields[2], as: UTF8.self),
          path: path ?? PrintableText.escaped(pathBytes), isUTF8: path != nil))
    }
    return entries
  }

  /// The files `git diff-tree -r -z --no-commit-id` printed.
  static func changedFiles(in output: [UInt8]) -> [ChangedFile] {
    func blob(_ field: ArraySlice<UInt8>) -> GitBlobID? {
      let hex = String(decoding: field, as: UTF8.self)
      return hex.allSatisfy({ $0 == "0" }) ? nil : GitBlobID(hex: hex)
    }
    var files: [ChangedFile] = []
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
        ChangedFile(
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
  static func commitRecords(in lines: [Substring]) -> [CommitRecord] {
    lines.compactMap { line in
      let fields = line.split(separator: "\u{1F}", omittingEmptySubsequences: false)
      guard fields.count == 4, let seconds = Int64(fields[2]) else { return nil }
      return CommitRecord(
        commit: CommitID(fields[0]),
        parents: fields[1].split(separator: " ").map { CommitID($0) }, seconds: seconds,
        tree: String(fields[3]))
    }
  }
}
