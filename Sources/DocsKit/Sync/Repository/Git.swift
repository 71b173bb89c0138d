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

/// Runs git for one folder through a ``GitRunner``, turning a failure into a
/// ``SyncError/gitFailed(step:message:)`` that names the step in the user's words.
///
/// Every run is hardened from outside (``hardening``), since anything can push to a remote:
/// no hook runs, objects fetched are checked by git's fsck (`..`, `.git` in any spelling, `/`
/// in a name, duplicate entries, bad modes are refused as they arrive), and no attributes
/// (a tree's `.gitattributes` included) select a filter, textconv or driver.
struct Git {
  let runner: any GitRunner
  /// The folder git runs in.
  let folder: String

  /// Runs `arguments`; a status outside `accepting` (0 unless given) is a failure of `step`.
  /// - Throws: ``SyncError/gitFailed(step:message:)`` with git's last line, or
  ///   ``SyncError/gitUnavailable(_:)``.
  @discardableResult
  func run(
    _ step: String, _ arguments: [String], input: [UInt8]? = nil,
    environment: [String: String] = [:], accepting: Set<Int32> = [0]
  ) throws(SyncError) -> GitOutput {
    let output: GitOutput
    do {
      output = try runner.run(
        arguments, in: folder, environment: hardened(environment), input: input)
    } catch {
      throw .gitUnavailable(error)
    }
    return try checked(output, of: step, accepting: accepting)
  }

  /// Runs `arguments` with the file open at `inputFile` as standard input; otherwise as
  /// ``run(_:_:input:environment:accepting:)``.
  @discardableResult
  func run(
    _ step: String, _ arguments: [String], inputFile: Int32, accepting: Set<Int32> = [0]
  ) throws(SyncError) -> GitOutput {
    let output: GitOutput
    do {
      output = try runner.run(
        arguments, in: folder, environment: hardened([:]), inputFile: inputFile)
    } catch {
      throw .gitUnavailable(error)
    }
    return try checked(output, of: step, accepting: accepting)
  }

  /// The configuration every git process of docsh runs with, given the way git passes
  /// configuration to a process and its children (`GIT_CONFIG_COUNT`), over any other:
  /// - `core.hooksPath=/dev/null`: no hook (not even `reference-transaction`, which
  ///   `update-ref` runs) — nothing can be made below `/dev/null`, unlike an empty folder;
  /// - `fetch.fsckObjects` and `transfer.fsckObjects`: a fetch checks every object it brings
  ///   and refuses the pack when one is malformed (git's own defence against CVE-2014-9390,
  ///   CVE-2018-11235 and their kin);
  /// - `core.attributesFile=/dev/null` and `attr.tree` the empty tree: no attributes from the
  ///   user's file or (git 2.42 on, in a bare repository) from HEAD's tree, so nothing a
  ///   remote commits selects a filter, textconv or merge driver;
  /// - `core.fsmonitor=false`: no monitor program started;
  /// - `core.bigFileThreshold` at the largest document a remote may bring
  ///   (``RemoteRefusal/maximumDocumentSize``): git streams a larger blob as a fetch unpacks
  ///   it instead of holding it whole (512 MiB at git's default), so that a blob of 200 MiB
  ///   that packs small costs its size in memory nowhere.
  ///
  /// `protocol.file.allow` and `safe.directory` stay at git's defaults.
  static let hardening: [(key: String, value: String)] = [
    ("core.hooksPath", "/dev/null"),
    ("fetch.fsckObjects", "true"),
    ("transfer.fsckObjects", "true"),
    ("core.attributesFile", "/dev/null"),
    ("attr.tree", StoreRepository.emptyTree),
    ("core.fsmonitor", "false"),
    ("core.bigFileThreshold", String(RemoteRefusal.maximumDocumentSize)),
  ]

  /// `environment` with ``hardening`` added after the configuration the process's or the
  /// runner's environment already gives that way (kept: it comes first, ours wins).
  private func hardened(_ environment: [String: String]) -> [String: String] {
    let given =
      environment["GIT_CONFIG_COUNT"] ?? runner.environment["GIT_CONFIG_COUNT"]
      ?? SystemGitRunner.currentEnvironment()["GIT_CONFIG_COUNT"]
    let first = given.flatMap { Int($0) }.map { max(0, $0) } ?? 0
    var result = environment
    for (offset, setting) in Git.hardening.enumerated() {
      result["GIT_CONFIG_KEY_\(first + offset)"] = setting.key
      result["GIT_CONFIG_VALUE_\(first + offset)"] = setting.value
    }
    result["GIT_CONFIG_COUNT"] = String(first + Git.hardening.count)
    return result
  }

  /// `output`, unless its status is outside `accepting`: a failure of `step`.
  private func checked(_ output: GitOutput, of step: String, accepting: Set<Int32>)
    throws(SyncError) -> GitOutput
  {
    guard accepting.contains(output.status) else {
      throw .gitFailed(step: step, message: output.lastErrorLine)
    }
    return output
  }

  /// Runs `arguments` and returns standard output without its last newline.
  /// - Throws: as ``run(_:_:input:environment:accepting:)``.
  func text(
    _ step: String, _ arguments: [String], input: [UInt8]? = nil,
    environment: [String: String] = [:]
  ) throws(SyncError) -> String {
    var text = try run(step, arguments, input: input, environment: environment).text
    while text.hasSuffix("\n") { text.removeLast() }
    return text
  }

  /// The commit `revision` names, or `nil` when it names none (an unborn HEAD, a missing
  /// remote branch).
  /// - Throws: when git cannot be run.
  func commit(_ revision: String) throws(SyncError) -> CommitID? {
    let output = try run(
      "read \(revision)", ["rev-parse", "--verify", "--quiet", revision + "^{commit}"],
      accepting: [0, 1, 128])
    guard output.succeeded, let line = output.lines.first, !line.isEmpty else { return nil }
    return CommitID(line)
  }

  /// The object `revision` names (`COMMIT:path` for a file), or `nil`.
  /// - Throws: when git cannot be run.
  func object(_ revision: String) throws(SyncError) -> String? {
    let output = try run(
      "read \(revision)", ["rev-parse", "--verify", "--quiet", revision], accepting: [0, 1, 128])
    guard output.succeeded, let line = output.lines.first, !line.isEmpty else { return nil }
    return String(line)
  }

  /// The contents of the objects `revisions` name (blobs, by `COMMIT:path`), read through one
  /// `git cat-file --batch`; `nil` for each that does not exist.
  /// - Throws: when git fails.
  func blobs(_ revisions: [String], step: String) throws(SyncError) -> [[UInt8]?] {
    guard !revisions.isEmpty else { return [] }
    let input = Array(revisions.map { $0 + "\n" }.joined().utf8)
    let output = try run(step, ["cat-file", "--batch"], input: input).output
    var results: [[UInt8]?] = []
    var position = 0
    for _ in revisions {
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

  /// The sizes of the objects `revisions` name, read through one `git cat-file
  /// --batch-check` from the objects' headers, without reading their contents (a blob of
  /// 200 MiB that packs small costs nothing here); `nil` for each that does not exist.
  /// - Throws: when git fails.
  func objectSizes(_ revisions: [String], step: String) throws(SyncError) -> [Int?] {
    guard !revisions.isEmpty else { return [] }
    let input = Array(revisions.map { $0 + "\n" }.joined().utf8)
    let output = try run(step, ["cat-file", "--batch-check"], input: input)
    let lines = output.lines
    guard lines.count == revisions.count else {
      throw .gitFailed(step: step, message: "git cat-file stopped early")
    }
    return lines.map { line in
      let fields = line.split(separator: " ")
      return fields.count == 3 ? Int(fields[2]) : nil  // "<name> missing"
    }
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

  /// The entries of the tree `revision` (`COMMIT` or `COMMIT:path`) through `git ls-tree -z`:
  /// the one place its output is read. `recursive`: the files of every subfolder too, by
  /// their paths; `fullTree`: paths from the commit's root, whatever the current folder.
  /// - Throws: when git fails (a listing that fails is never an empty tree).
  func treeEntries(
    _ revision: String, recursive: Bool = false, fullTree: Bool = false, step: String
  ) throws(SyncError) -> [TreeEntry] {
    let arguments =
      ["ls-tree", "-z"] + (recursive ? ["-r"] : [])
      + (fullTree ? ["--full-tree"] : []) + [revision]
    let output = try run(step, arguments).output
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
}
