/// Runs git for one repository through a ``GitRunner``, turning a failure into a
/// ``SyncError/gitFailed(step:message:)`` that names the step in the user's words.
///
/// `Git` is the one owner of git (as swift-nio's `ChannelCore` is of a socket): this file is
/// the only code that knows git's command lines — ``run(_:_:input:environment:accepting:)``
/// and ``text(_:_:input:environment:)`` are private to it, so the compiler proves that no
/// argument array is built anywhere else — and `Git+Files.swift` the only code that reads or
/// writes the files git keeps under `.git` (HEAD, loose refs, lock files, the index). What
/// git prints is read into typed values in `Git+Output.swift`.
///
/// Every run is hardened from outside (``GitSettings/hardening``), since anything can push to a remote:
/// no hook runs, objects fetched are checked by git's fsck (`..`, `.git` in any spelling, `/`
/// in a name, duplicate entries, bad modes are refused as they arrive), and no attributes
/// (a tree's `.gitattributes` included) select a filter, textconv or driver.
struct Git {
  let runner: any GitRunner
  /// The folder git runs in: the top of the work tree (paths given to git are the
  /// repository's, `notes/store.json`).
  let folder: String
  /// The repository's git folder (`.git`), absolute.
  let directory: String
  let fileSystem: any FileSystem

  /// Git for the repository whose work tree's top is `folder` and whose git folder is
  /// `directory` — `folder`'s own `.git` when not given (a folder not known to be a
  /// repository yet: only ``lookUpRepository()`` and ``createRepository()`` are asked then).
  init(
    runner: any GitRunner, folder: String, directory: String? = nil,
    fileSystem: any FileSystem = SystemFileSystem()
  ) {
    self.runner = runner
    self.folder = folder
    self.directory = directory ?? GitFiles.ownDirectory(of: folder)
    self.fileSystem = fileSystem
  }

  /// The files git keeps under ``directory`` that docsh reads or removes itself.
  var files: GitFiles { GitFiles(directory: directory, fileSystem: fileSystem) }

  // MARK: - Running git

  /// Runs `arguments`; a status outside `accepting` (0 unless given) is a failure of `step`.
  /// - Throws: ``SyncError/gitFailed(step:message:)`` with git's last line, or
  ///   ``SyncError/gitUnavailable(_:)``.
  @discardableResult
  private func run(
    _ step: String, _ arguments: [String], input: [UInt8]? = nil,
    environment: [String: String] = [:], accepting: Set<Int32> = [0]
  ) throws(SyncError) -> GitOutput {
    let output: GitOutput
    do {
      output = try runner.run(
        arguments, in: folder, environment: GitSettings.hardened(environment, runner: runner),
        input: input)
    } catch {
      throw .gitUnavailable(error)
    }
    return try checked(output, of: step, accepting: accepting)
  }

  /// Runs `arguments` with the file open at `inputFile` as standard input; otherwise as
  /// ``run(_:_:input:environment:accepting:)``.
  private func run(
    _ step: String, _ arguments: [String], inputFile: Int32, accepting: Set<Int32> = [0]
  ) throws(SyncError) -> GitOutput {
    let output: GitOutput
    do {
      output = try runner.run(
        arguments, in: folder, environment: GitSettings.hardened([:], runner: runner),
        inputFile: inputFile)
    } catch {
      throw .gitUnavailable(error)
    }
    return try checked(output, of: step, accepting: accepting)
  }

  /// Runs `arguments` and returns standard output without its last newline.
  /// - Throws: as ``run(_:_:input:environment:accepting:)``.
  private func text(
    _ step: String, _ arguments: [String], input: [UInt8]? = nil,
    environment: [String: String] = [:]
  ) throws(SyncError) -> String {
    var text = try run(step, arguments, input: input, environment: environment).text
    while text.hasSuffix("\n") { text.removeLast() }
    return text
  }

  /// The options that carry ``GitSettings/memoryBounds`` to the git a fetch or a push starts at the
  /// other end, when that end is a repository on this machine (a path or a `file://` URL):
  /// git clears the configuration it was given from the environment of that process
  /// (`upload-pack` or `receive-pack`, and the `pack-objects` or `index-pack` it runs), and a
  /// remote's `pack-objects` mapped a whole pack as it sent it. None for a remote elsewhere
  /// (ssh, https): its memory is not this machine's, and a forge runs only the command it
  /// expects. A push looks at the remote's push URLs (`pushurl`, which may differ), every one
  /// of them.
  /// - Throws: when git cannot be run.
  private func otherEndBounds(of remote: String, program: String) throws(SyncError) -> [String] {
    let output = try run(
      "read the remote",
      ["remote", "get-url"] + (program == "receive-pack" ? ["--push"] : []) + [remote],
      accepting: [0, 2, 128])
    let urls = output.lines
    guard output.succeeded, !urls.isEmpty,
      urls.allSatisfy({ GitSettings.isOnThisMachine(url: String($0)) })
    else { return [] }
    let settings = GitSettings.memoryBounds.map { "-c " + $0.key + "=" + $0.value }
    return ["--\(program)=" + (["git"] + settings + [program]).joined(separator: " ")]
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

  // MARK: - The repository

  /// Where git finds the repository of ``folder``: ``Lookup/notFound(reason:)`` when git
  /// says it is in none (or refuses it, say as not safe: `reason` is git's line).
  /// - Throws: when git cannot be run, or answers in a way it never does.
  func lookUpRepository() throws(SyncError) -> Lookup {
    let step = "find the repository"
    let output = try run(
      step, ["rev-parse", "--absolute-git-dir", "--is-bare-repository", "--show-prefix"],
      accepting: [0, 128])
    guard output.succeeded else { return .notFound(reason: output.lastErrorLine) }
    let lines = output.lines
    guard lines.count >= 2 else {
      throw .gitFailed(step: step, message: "unexpected output of git rev-parse")
    }
    return .found(
      directory: String(lines[0]), isBare: lines[1] == "true",
      prefix: lines.count > 2 ? String(lines[2]) : "")
  }

  /// The top of the work tree of a repository that has one.
  /// - Throws: when git fails.
  func topLevel() throws(SyncError) -> String {
    try text("find the repository", ["rev-parse", "--show-toplevel"])
  }

  /// Makes ``folder`` a repository of its own (`git init`).
  /// - Throws: when git fails.
  func createRepository() throws(SyncError) {
    try run("create a git repository", ["init", "--quiet"])
  }

  // MARK: - Configuration

  /// The settings whose names match the regular expression `pattern`, in the repository's
  /// own config only when `localOnly`, else as git reads them from every file.
  /// - Throws: when git fails.
  func configEntries(matching pattern: String, localOnly: Bool) throws(SyncError) -> [ConfigEntry] {
    let output = try run(
      localOnly ? "read the repository's config" : "read the identity",
      ["config"] + (localOnly ? ["--local"] : []) + ["--get-regexp", pattern], accepting: [0, 1])
    return output.lines.map(ConfigEntry.init(line:))
  }

  /// Sets `key` to `value` in the repository's own config.
  /// - Throws: when git fails.
  func setLocalConfig(_ key: String, to value: String) throws(SyncError) {
    try run("set up the repository", ["config", "--local", key, value])
  }

  /// Removes the section `name` from the repository's own config, if it is there.
  /// - Throws: when git cannot be run.
  func removeLocalConfigSection(_ name: String) throws(SyncError) {
    try run(
      "set up the repository", ["config", "--local", "--remove-section", name],
      accepting: [0, 1, 128])
  }

  /// The branch of a remote `branch` follows (`main`), `nil` when none is configured.
  /// - Throws: when git fails.
  func upstream(of branch: String) throws(SyncError) -> String? {
    let configured = try run(
      "read the upstream", ["config", "--get", "branch.\(branch).merge"], accepting: [0, 1])
    guard configured.succeeded, let line = configured.lines.first, line.hasPrefix("refs/heads/")
    else { return nil }
    return String(line.dropFirst("refs/heads/".count))
  }

  /// Makes `branch` follow `remoteBranch` of `remote` (so that a plain `git pull` works).
  /// - Throws: when git fails.
  func setUpstream(of branch: String, remote: String, branch remoteBranch: String)
    throws(SyncError)
  {
    try run("set the upstream", ["config", "branch.\(branch).remote", remote])
    try run("set the upstream", ["config", "branch.\(branch).merge", "refs/heads/" + remoteBranch])
  }

  // MARK: - The committer

  /// `Name <email> SECONDS ZONE` of a commit now, when git's configuration names both;
  /// `nil` when it does not.
  /// - Throws: when git cannot be run.
  func configuredCommitter() throws(SyncError) -> String? {
    let output = try run(
      "read the identity", ["-c", "user.useConfigOnly=true", "var", "GIT_COMMITTER_IDENT"],
      accepting: [0, 128])
    guard output.succeeded, let line = output.lines.first else { return nil }
    return String(line)
  }

  /// `Name <email> SECONDS ZONE` of a commit now, `fallback`'s name and email supplied for
  /// this one command where given (no config is written).
  /// - Throws: when git fails.
  func committer(supplying fallback: IdentityFallback) throws(SyncError) -> String {
    let supplied =
      (fallback.name.map { ["-c", "user.name=" + $0] } ?? [])
      + (fallback.email.map { ["-c", "user.email=" + $0] } ?? [])
    return try text(
      "read the identity",
      supplied + ["-c", "user.useConfigOnly=true", "var", "GIT_COMMITTER_IDENT"])
  }

  // MARK: - Remotes

  /// The URL of the remote `name`, `nil` when there is no such remote.
  /// - Throws: when git cannot be run.
  func remoteURL(_ name: String) throws(SyncError) -> String? {
    let output = try run("read the remote", ["remote", "get-url", name], accepting: [0, 2, 128])
    guard output.succeeded else { return nil }
    return output.lines.first.map(String.init) ?? ""
  }

  /// Adds the remote `name` at `url`.
  /// - Throws: when git fails.
  func addRemote(_ name: String, url: String) throws(SyncError) {
    try run("add the remote \(name)", ["remote", "add", name, url])
  }

  /// Points the remote `name` at `url`.
  /// - Throws: when git fails.
  func setRemoteURL(_ name: String, to url: String) throws(SyncError) {
    try run("set the remote \(name)", ["remote", "set-url", name, url])
  }

  /// Fetches `remote`, with git's checks of every object on (``GitSettings/hardening``).
  /// - Parameter refspecs: where to fetch what, instead of the configured refspec (no
  ///   remote-tracking branch is written then but those named).
  /// - Throws: ``SyncError/refusedByGitChecks(message:)`` when they refuse an object.
  func fetch(remote: String, refspecs: [String] = []) throws(SyncError) {
    let step = "fetch from \(remote)"
    let bounds = try otherEndBounds(of: remote, program: "upload-pack")
    let output = try run(
      step,
      ["fetch", "--quiet"] + bounds + (refspecs.isEmpty ? [] : ["--refmap="]) + [remote]
        + refspecs,
      accepting: [0, 1, 128])
    guard !output.succeeded else { return }
    let errors = String(decoding: output.errorOutput, as: UTF8.self)
    if errors.contains("fsck error") {
      // git names the object and the check on an `error:` line before its `fatal:` ones.
      let line =
        errors.split(separator: "\n").first { $0.hasPrefix("error: object ") }
        .map { String($0.dropFirst("error: ".count)) } ?? output.lastErrorLine
      throw .refusedByGitChecks(message: line)
    }
    throw .gitFailed(step: step, message: output.lastErrorLine)
  }

  /// Pushes `source` (`HEAD`, or a commit's name) to `remote`'s branch `branch`.
  /// - Returns: ``PushOutcome/remoteMoved`` when the remote refused it for having moved.
  /// - Throws: ``SyncError/gitFailed(step:message:)`` when the remote refused for another
  ///   reason, or could not be reached.
  func push(_ source: String, to remote: String, branch: String) throws(SyncError) -> PushOutcome {
    let step = "push to \(remote)"
    let bounds = try otherEndBounds(of: remote, program: "receive-pack")
    let output = try run(
      step, ["push", "--porcelain"] + bounds + [remote, source + ":refs/heads/" + branch],
      accepting: [0, 1])
    if output.succeeded { return .pushed }
    for line in output.lines where line.hasPrefix("!") {
      let reason = line.split(separator: "\t").last.map(String.init) ?? String(line)
      if reason.contains("[rejected]")
        && (reason.contains("fetch first") || reason.contains("non-fast-forward"))
      {
        return .remoteMoved
      }
      throw .gitFailed(step: step, message: reason)
    }
    throw .gitFailed(step: step, message: output.lastErrorLine)
  }

  // MARK: - Refs

  /// The branch HEAD names (`main`), `nil` when HEAD is detached.
  /// - Throws: when git cannot be run.
  func headBranch() throws(SyncError) -> String? {
    let output = try run(
      "read the branch", ["symbolic-ref", "--quiet", "--short", "HEAD"], accepting: [0, 1, 128])
    guard output.succeeded, let line = output.lines.first, !line.isEmpty else { return nil }
    return String(line)
  }

  /// Makes HEAD name the branch `name` (on an unborn branch: renames it).
  /// - Throws: when git fails.
  func pointHead(atBranch name: String) throws(SyncError) {
    try run("name the branch", ["symbolic-ref", "HEAD", "refs/heads/" + name])
  }

  /// The refs whose names start with `prefix` (`refs/remotes/origin/`), with their objects.
  /// - Throws: when git fails.
  func refs(under prefix: String) throws(SyncError) -> [(name: String, commit: CommitID)] {
    let output = try run(
      "list the remote's branches", ["for-each-ref", "--format=%(objectname) %(refname)", prefix])
    return output.lines.compactMap { line in
      let parts = line.split(separator: " ", maxSplits: 1)
      guard parts.count == 2 else { return nil }
      return (String(parts[1]), CommitID(parts[0]))
    }
  }

  /// Moves the ref `name` (`HEAD`: its branch) to `new`, only from where `expected` says —
  /// a ref moved meanwhile by someone else makes it fail rather than be lost.
  /// - Parameter reason: the line of the reflog, after `docsh: `.
  /// - Throws: when git fails, the ref being elsewhere included.
  func updateRef(
    _ name: String, to new: CommitID, expecting expected: ExpectedRef = .anything,
    reason: String? = nil
  ) throws(SyncError) {
    let old: [String]
    switch expected {
    case .anything: old = []
    case .absent: old = [""]
    case .at(let commit): old = [commit.hex]
    }
    let step = name == "HEAD" ? "update the branch" : "update the remote's branches"
    try run(
      step,
      ["update-ref"] + (reason.map { ["-m", "docsh: " + $0] } ?? []) + [name, new.hex] + old)
  }

  /// Moves every ref of `updates` to its commit, in one git process.
  /// - Throws: when git fails.
  func updateRefs(_ updates: [(name: String, commit: CommitID)]) throws(SyncError) {
    let lines = updates.map { "update \($0.name) \($0.commit.hex)\n" }.joined()
    try run("update the remote's branches", ["update-ref", "--stdin"], input: Array(lines.utf8))
  }

  /// Deletes the ref `name`.
  /// - Throws: when git fails.
  func deleteRef(_ name: String) throws(SyncError) {
    try run("update the remote's branches", ["update-ref", "-d", name])
  }

  /// The commit HEAD is at, `nil` on an unborn branch.
  /// - Throws: when git cannot be run.
  func head() throws(SyncError) -> CommitID? {
    try commit("HEAD")
  }

  /// The commit `revision` names, or `nil` when it names none (an unborn HEAD, a missing
  /// remote branch).
  /// - Throws: when git cannot be run.
  func commit(_ revision: String) throws(SyncError) -> CommitID? {
    try object(revision + "^{commit}", step: "read \(revision)").map { CommitID($0) }
  }

  /// The object `revision` names (`COMMIT:path` for a file), or `nil`.
  /// - Throws: when git cannot be run.
  func object(_ revision: String) throws(SyncError) -> String? {
    try object(revision, step: "read \(revision)")
  }

  private func object(_ revision: String, step: String) throws(SyncError) -> String? {
    let output = try run(
      step, ["rev-parse", "--verify", "--quiet", revision], accepting: [0, 1, 128])
    guard output.succeeded, let line = output.lines.first, !line.isEmpty else { return nil }
    return String(line)
  }

  /// The tree of `commit`.
  /// - Throws: when git fails.
  func tree(of commit: CommitID) throws(SyncError) -> String {
    try text("read the repository", ["rev-parse", commit.hex + "^{tree}"])
  }

  // MARK: - Objects

  /// The contents of the objects `revisions` name (blobs, by `COMMIT:path`), read through one
  /// `git cat-file --batch`; `nil` for each that does not exist.
  /// - Throws: when git fails.
  func blobs(_ revisions: [String], step: String) throws(SyncError) -> [[UInt8]?] {
    guard !revisions.isEmpty else { return [] }
    let input = Array(revisions.map { $0 + "\n" }.joined().utf8)
    let output = try run(step, ["cat-file", "--batch"], input: input).output
    return try GitOutputParser.batchContents(output, count: revisions.count, step: step)
  }

  /// The sizes of the objects `revisions` name, read through one `git cat-file
  /// --batch-check` from the objects' headers, without reading their contents (a blob of
  /// 200 MiB that packs small costs nothing here); `nil` for each that does not exist.
  /// - Throws: when git fails.
  func objectSizes(_ revisions: [String], step: String) throws(SyncError) -> [Int?] {
    guard !revisions.isEmpty else { return [] }
    let input = Array(revisions.map { $0 + "\n" }.joined().utf8)
    let output = try run(step, ["cat-file", "--batch-check"], input: input)
    return try GitOutputParser.batchSizes(output.lines, count: revisions.count, step: step)
  }

  /// The entries of the tree `revision` (`COMMIT` or `COMMIT:path`) through `git ls-tree -z`.
  /// `recursive`: the files of every subfolder too, by their paths; `fullTree`: paths from
  /// the commit's root, whatever the current folder.
  /// - Throws: when git fails (a listing that fails is never an empty tree).
  func treeEntries(
    _ revision: String, recursive: Bool = false, fullTree: Bool = false, step: String
  ) throws(SyncError) -> [TreeEntry] {
    let arguments =
      ["ls-tree", "-z"] + (recursive ? ["-r"] : [])
      + (fullTree ? ["--full-tree"] : []) + [revision]
    return GitOutputParser.treeEntries(in: try run(step, arguments).output)
  }

  /// Writes `bytes` as a blob of the repository.
  /// - Throws: when git fails.
  func writeBlob(_ bytes: [UInt8]) throws(SyncError) -> GitBlobID {
    GitBlobID(hex: try text("write a blob", ["hash-object", "-w", "--stdin"], input: bytes))
  }

  /// Runs `git fast-import` on `input` (a stream ending in `done`), writing its commit.
  /// - Parameters:
  ///   - forcing: whether fast-import may move the commit's ref from anywhere; without it,
  ///     a ref it refuses to move (the branch being elsewhere) is `nil`.
  ///   - pack: how the pack is written (``FastImportPack``).
  /// - Returns: the commit written.
  /// - Throws: when git fails.
  func fastImport(_ input: FastImportInput, forcing: Bool, pack: FastImportPack = .standard)
    throws(SyncError) -> CommitID?
  {
    let step = "commit the store"
    let settings: [String]
    switch pack {
    case .standard: settings = []
    case .incompressible: settings = ["-c", "pack.compression=0"]
    case .localOnly: settings = ["-c", "pack.compression=1"]
    }
    let arguments =
      settings + ["fast-import", "--quiet"] + (forcing ? ["--force"] : [])
      + (pack == .standard ? [] : ["--depth=0"]) + ["--done"]
    let accepting: Set<Int32> = forcing ? [0] : [0, 1]
    let output: GitOutput
    switch input {
    case .bytes(let bytes): output = try run(step, arguments, input: bytes, accepting: accepting)
    case .file(let file): output = try run(step, arguments, inputFile: file, accepting: accepting)
    }
    if !output.succeeded {
      guard String(decoding: output.errorOutput, as: UTF8.self).contains("Not updating") else {
        throw .gitFailed(step: step, message: output.lastErrorLine)
      }
      return nil
    }
    guard let line = output.lines.last, line.count >= 40 else {
      throw .gitFailed(step: step, message: "git fast-import named no commit")
    }
    return CommitID(line)
  }

  // MARK: - History

  /// The files that differ between two commits (`nil`: the empty tree), through `git
  /// diff-tree -r` (no renames: a move is a deletion and an addition). From the empty tree,
  /// every file of `new`, through `git ls-tree -r`, which lists them as it reads them where
  /// `diff-tree` queues every pair first (55 MB for 100,000 files, against 27).
  /// - Throws: when git fails.
  func changedFiles(from old: CommitID?, to new: CommitID) throws(SyncError) -> [ChangedFile] {
    guard let old else {
      let listed = try run("compare commits", ["ls-tree", "-r", "-z", "--full-tree", new.hex])
      return GitOutputParser.filesOfTree(in: listed.output)
    }
    let output = try run(
      "compare commits",
      [
        "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id",
        old.hex, new.hex,
      ])
    return GitOutputParser.changedFiles(in: output.output)
  }

  /// The merge base of two commits; `nil` for unrelated histories.
  /// - Throws: when git fails.
  func mergeBase(_ one: CommitID, _ other: CommitID) throws(SyncError) -> CommitID? {
    let output = try run(
      "find the common ancestor", ["merge-base", one.hex, other.hex], accepting: [0, 1])
    guard output.succeeded, let line = output.lines.first else { return nil }
    return CommitID(line)
  }

  /// The newest commit of `tip` (not of `base`) that changed one of `paths` (any path when
  /// none), each path taken literally; `nil` when git cannot tell.
  /// - Throws: when git cannot be run.
  func newestCommit(of tip: CommitID, notOf base: CommitID?, changing paths: [String])
    throws(SyncError) -> CommitID?
  {
    let output = try run(
      "read the history",
      ["rev-list", "-1", tip.hex] + (base.map { ["^" + $0.hex] } ?? [])
        + (paths.isEmpty ? [] : ["--"] + paths.map { ":(literal)" + $0 }),
      accepting: [0, 128])
    guard output.succeeded, let line = output.lines.first else { return nil }
    return CommitID(line)
  }

  /// How many commits of the current branch its upstream does not have yet, as the remote
  /// was last fetched; `nil` when the branch has no upstream.
  /// - Throws: when git cannot be run.
  func unpushedCommitCount() throws(SyncError) -> Int? {
    let output = try run(
      "count the commits not pushed", ["rev-list", "--count", "@{upstream}..HEAD"],
      accepting: [0, 128])
    guard output.succeeded, let line = output.lines.first else { return nil }
    return Int(line)
  }

  /// The first line of `commit`'s message.
  /// - Throws: when git fails.
  func subject(of commit: CommitID) throws(SyncError) -> String {
    try text("read the history", ["log", "-1", "--format=%s", commit.hex])
  }

  /// When `commit` was made (its committer's date; 1970 when git says something else).
  /// - Throws: when git fails.
  func commitDate(of commit: CommitID) throws(SyncError) -> Timestamp {
    let seconds = Int64(try text("read the history", ["show", "-s", "--format=%ct", commit.hex]))
    return Timestamp(millisecondsSince1970: (seconds ?? 0) * 1000)
  }

  /// The commits of HEAD's history, newest first (`limit` at most): each with its author's
  /// date and subject.
  /// - Throws: when git fails.
  func commitSubjects(limit: Int?) throws(SyncError) -> [StoreCommit] {
    let output = try run(
      "read the history",
      ["log", "--format=%H%x1f%at%x1f%s"] + (limit.map { ["-n", String(max(0, $0))] } ?? []))
    return GitOutputParser.commitSubjects(in: output.lines)
  }

  /// The log of `start` (HEAD when `nil`) as bytes: for each commit, newest first, a record
  /// separator (`0x1E`), then its name, author's date in seconds, parents (separated by
  /// spaces) and whole message, separated by unit separators (`0x1F`) — left as bytes, for
  /// the log of a large store holds messages of megabytes.
  /// - Throws: when git fails (an unborn branch included).
  func logRecords(from start: CommitID?) throws(SyncError) -> [UInt8] {
    try run(
      "read the history",
      ["log", "--format=%x1e%H%x1f%at%x1f%P%x1f%B"] + (start.map { [$0.hex] } ?? [])
    ).output
  }

  /// The commits reachable from `tips` and from none of `known` (object names), parents
  /// first.
  /// - Throws: when git fails.
  func commits(reachableFrom tips: [CommitID], excluding known: [String]) throws(SyncError)
    -> [CommitRecord]
  {
    guard !tips.isEmpty else { return [] }
    let input = tips.map { $0.hex + "\n" }.joined() + known.map { "^" + $0 + "\n" }.joined()
    let output = try run(
      "read the history",
      ["log", "--topo-order", "--reverse", "--format=%H%x1f%P%x1f%ct%x1f%T", "--stdin"],
      input: Array(input.utf8))
    return GitOutputParser.commitRecords(in: output.lines)
  }
}
