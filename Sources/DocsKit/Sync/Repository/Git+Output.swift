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
}
