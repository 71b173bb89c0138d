/// One commit written by `git fast-import`: files put, folders renamed and paths deleted on
/// top of a parent's tree, in one git process that reads only the trees on the paths it
/// changes — how a save is committed without reading, hashing or listing the whole store.
struct FastImportCommit {
  /// A change to the parent's tree, applied in order.
  enum Change: Equatable {
    /// The file at this path holds these bytes.
    case put(String, [UInt8])
    /// The file at this path is this existing blob.
    case putBlob(String, GitBlobID)
    /// The entry at this path is this object with this mode (`100755`, `120000` for a
    /// symbolic link, `160000` for a submodule's commit), as another tree has it.
    case putEntry(String, mode: String, GitBlobID)
    /// The file at this path is the blob given this mark earlier in the stream
    /// (``blobCommand(_:mark:)``).
    case putMark(String, Int)
    /// The file or folder at this path is gone.
    case delete(String)
    /// The file or folder at the first path moves to the second.
    case rename(String, String)
  }

  /// The ref fast-import writes: a ref of docsh's own, HEAD's branch then moving with
  /// `update-ref` only from the commit it was at; or, for a save's commit, HEAD's branch,
  /// which fast-import (without `--force`) moves only from an ancestor of the commit.
  var ref: String
  /// `Name <email> SECONDS ZONE` of the author and committer, as `git var` gives it.
  var committer: String
  var message: String
  /// Lines of the message after ``message``, each written with a newline as it is made
  /// (``Message``), and their size.
  var messageLines: (lines: AnySequence<String>, size: Int)?
  /// The first parent, whose tree the changes apply to; `nil` for a first commit.
  var parent: CommitID?
  /// Further parents (a merge).
  var mergedParents: [CommitID] = []
  var changes: [Change] = []

  /// A message written in pieces: `head`, then each of `lines` and a newline, made as they
  /// are written (a first commit's trailers name every document).
  struct Message {
    var head: String
    var lines: AnySequence<String>
    /// The bytes of `lines`, each with its newline.
    var linesSize: Int
  }

  /// The header every stream starts with (before any blob): docsh's streams end with
  /// `done`, so that one cut short is an error, never a shorter commit.
  static let streamHeader = Array("feature done\n".utf8)

  /// The stream fast-import reads: the header (unless `afterHeader`, for a stream whose
  /// blobs came first), the commit, then `get-mark` to print its name.
  func stream(afterHeader: Bool = false) -> [UInt8] {
    var out: [UInt8] = []
    write(afterHeader: afterHeader, piecesOf: Int.max) { (piece: [UInt8]) -> Void in
      out += piece
    }
    return out
  }

  /// Hands ``stream(afterHeader:)`` to `sink` in pieces of about `pieceSize` bytes (a
  /// piece holding one file's bytes may be larger), so that a commit of every document
  /// never stands in memory as one stream.
  /// - Throws: what `sink` throws; the pieces after are not made.
  func write<Failure: Error>(
    afterHeader: Bool = false, piecesOf pieceSize: Int = 1 << 20,
    to sink: ([UInt8]) throws(Failure) -> Void
  ) throws(Failure) {
    try write(
      afterHeader: afterHeader, piecesOf: pieceSize, leading: EmptyCollection(), to: sink)
  }

  /// ``write(afterHeader:piecesOf:to:)`` with `leading` before ``changes``: changes made as
  /// they are written (a first commit's thousands), never held all at once.
  func write<Failure: Error>(
    afterHeader: Bool = false, piecesOf pieceSize: Int = 1 << 20,
    leading: some Sequence<Change>, to sink: ([UInt8]) throws(Failure) -> Void
  ) throws(Failure) {
    var out: [UInt8] = afterHeader ? [] : FastImportCommit.streamHeader
    func line(_ text: String) { out += Array(text.utf8) + [0x0A] }
    func flush(atLeast size: Int) throws(Failure) {
      guard out.count >= size, !out.isEmpty else { return }
      try sink(out)
      out.removeAll(keepingCapacity: true)
    }
    // Bytes of a piece's size or more (the message of a first commit names every document)
    // are handed over as they are, never copied into the piece.
    func data(_ bytes: [UInt8]) throws(Failure) {
      line("data \(bytes.count)")
      if bytes.count >= pieceSize {
        try flush(atLeast: 1)
        try sink(bytes)
      } else {
        out += bytes
      }
      out.append(0x0A)
    }
    line("commit " + ref)
    line("mark :1")
    line("author " + committer)
    line("committer " + committer)
    let text = message.utf8
    let linesSize = messageLines?.size ?? 0
    if text.count + linesSize >= pieceSize {
      // A first commit's message names every document: handed over a piece at a time.
      line("data \(text.count + linesSize)")
      try flush(atLeast: 1)
      var start = text.startIndex
      while start < text.endIndex {
        let end = text.index(start, offsetBy: pieceSize, limitedBy: text.endIndex) ?? text.endIndex
        try sink(Array(text[start..<end]))
        start = end
      }
      for entry in messageLines?.lines ?? AnySequence([]) {
        out += Array(entry.utf8)
        out.append(0x0A)
        try flush(atLeast: pieceSize)
      }
      out.append(0x0A)
    } else {
      try data(
        Array(text) + (messageLines?.lines ?? AnySequence([])).flatMap { Array($0.utf8) + [0x0A] })
    }
    if let parent { line("from " + parent.hex) }
    for merged in mergedParents { line("merge " + merged.hex) }
    for change in [AnySequence(leading), AnySequence(changes)].joined() {
      switch change {
      case .put(let path, let bytes):
        line("M 100644 inline " + FastImportCommit.quoted(path))
        try data(bytes)
      case .putBlob(let path, let blob):
        line("M 100644 \(blob.hex) " + FastImportCommit.quoted(path))
      case .putEntry(let path, let mode, let object):
        line("M \(mode) \(object.hex) " + FastImportCommit.quoted(path))
      case .putMark(let path, let mark):
        line("M 100644 :\(mark) " + FastImportCommit.quoted(path))
      case .delete(let path):
        line("D " + FastImportCommit.quoted(path))
      case .rename(let from, let to):
        line("R " + FastImportCommit.quoted(from) + " " + FastImportCommit.quoted(to))
      }
      try flush(atLeast: pieceSize)
    }
    line("")
    line("get-mark :1")
    line("done")
    try flush(atLeast: 1)
  }

  /// The first mark a blob may be given: the commit's is 1.
  static let firstBlobMark = 2

  /// The command that makes a blob of `bytes` under `mark`, for a stream that then names it
  /// (``Change/putMark(_:_:)``).
  static func blobCommand(_ bytes: [UInt8], mark: Int) -> [UInt8] {
    Array("blob\nmark :\(mark)\ndata \(bytes.count)\n".utf8) + bytes + [0x0A]
  }

  /// `path` as fast-import reads it: in C-style double quotes (always, so that spaces,
  /// quotes and a leading `"` mean nothing special).
  static func quoted(_ path: String) -> String {
    var result = "\""
    for scalar in path.unicodeScalars {
      switch scalar.value {
      case 0x22: result += "\\\""
      case 0x5C: result += "\\\\"
      case 0x0A: result += "\\n"
      case 0x00..<0x20, 0x7F:
        let digits = String(scalar.value, radix: 8)
        result += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}

extension FastImportCommit {
  /// A commit whose message is written in pieces.
  init(
    ref: String, committer: String, message: Message, parent: CommitID?,
    changes: [Change] = []
  ) {
    self.init(
      ref: ref, committer: committer, message: message.head, parent: parent, changes: changes)
    messageLines = (message.lines, message.linesSize)
  }
}

/// How `git fast-import` writes a commit's pack.
enum FastImportPack {
  /// git's way: zlib, and each blob deltified against the one before where that pays.
  case standard
  /// Blobs that neither compress nor delta (age files): stored as they are, without zlib or
  /// delta search (less than half the time, as large).
  case incompressible
  /// Text for the local repository alone (the plain first commit of a repository syncing
  /// with an encrypted remote, which receives age files): zlib's fastest level and no delta
  /// search — on the large store about half the time for a pack 2 % larger (one document
  /// rarely deltas against the one written before it).
  case localOnly
}
