import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// A remote that may be hostile, or only careless: commits crafted with git's plumbing
/// (trees `mktree` refuses written with `hash-object --literally`) land on the bare remote
/// after both machines synced, and each machine's `sync` through the real binary either
/// refuses them in one line, changing nothing, or leaves what it cannot read in the
/// repository as it is — with no raw escape printed, memory bounded, nothing written outside
/// the store's folder, and the next legitimate change syncing once the remote is repaired.
@Suite struct HostileRemoteTests {
  let machines: TwoMachines
  var sandbox: GitSandbox { machines.sandbox }
  var remote: String { machines.remote }
  var laptop: SyncMachine { machines.laptop }
  var desktop: SyncMachine { machines.desktop }

  init() throws {
    machines = try TwoMachines("hostile")
    // The remote's own git, which a fetch from a path starts here (on a server it runs
    // there): without this it would hold a 200 MiB blob whole as it packs it to send. What
    // is measured of the machines is their own side.
    try sandbox.text(["config", "core.bigFileThreshold", "32m"], in: remote)
  }

  /// Both machines synced with Work/Plan, Work/Café (NFC) and Keepcat/Doc.
  func startBoth() throws {
    try laptop.succeed(
      "mkdir Work Keepcat; new Work/Plan plan 0; new Work/Caf\u{E9} coffee; new Keepcat/Doc doc 0")
    try laptop.sync(remote)
    try desktop.sync(remote)
    #expect(try desktop.contents() == laptop.contents())
  }

  // MARK: - Refused

  /// A hostile commit that docsh refuses as a whole, and what the refusal names.
  enum Refused: String, CaseIterable, CustomTestStringConvertible {
    case folderEqualButForCase, documentEqualButForCase, documentEqualButForNormalization
    case recordWithAnotherCategorysID, symbolicLinkInACategory, submoduleInACategory
    case nameThatIsNotUTF8, documentOverTheSizeLimit

    var testDescription: String { rawValue }

    /// What the one line of the refusal holds besides the commit.
    var named: [String] {
      switch self {
      case .folderEqualButForCase:
        ["KEEPCAT/ and Keepcat/: two names equal but for case or Unicode normalization"]
      case .documentEqualButForCase:
        ["Work/PLAN.md and Work/Plan.md: two names equal but for case or Unicode normalization"]
      case .documentEqualButForNormalization:
        // In the order of the tree: by bytes, NFD's `e` before NFC's `é`.
        ["Work/Cafe\u{301}.md and Work/Caf\u{E9}.md: two names equal but for case"]
      case .recordWithAnotherCategorysID:
        ["Aaa/ and Keepcat/: two categories whose records hold one id"]
      case .symbolicLinkInACategory: ["Work/Link: a symbolic link in a category is no document"]
      case .submoduleInACategory: ["Work/Sub: a submodule in a category is no document"]
      case .nameThatIsNotUTF8: ["\\xFF\\xFECat: its name is not UTF-8"]
      case .documentOverTheSizeLimit:
        ["Work/Big.md: it is 209715200 bytes, over the 32 MiB a document from a remote may be"]
      }
    }
  }

  /// Makes the hostile commit of `kind` on the remote.
  func push(_ kind: Refused) throws -> String {
    let crafter = RemoteCrafter(sandbox: sandbox, remote: remote)
    let plain = try crafter.blob(Array("from elsewhere\n".utf8))
    return try crafter.commit("hostile: \(kind)") { root in
      switch kind {
      case .folderEqualButForCase:
        root.entries[Array("KEEPCAT".utf8)] = .tree(
          CraftedTree(entries: [Array("Other".utf8): .file("100644", plain)]))
      case .documentEqualButForCase:
        try root.change("Work") { $0.entries[Array("PLAN.md".utf8)] = .file("100644", plain) }
      case .documentEqualButForNormalization:
        try root.change("Work") {
          $0.entries[Array("Cafe\u{301}.md".utf8)] = .file("100644", plain)
        }
      case .recordWithAnotherCategorysID:
        let record = root[folder: "Keepcat"]?.entries[Array(CategoryFile.fileName.utf8)]
        root.entries[Array("Aaa".utf8)] = .tree(
          CraftedTree(entries: [Array(CategoryFile.fileName.utf8): try #require(record)]))
      case .symbolicLinkInACategory:
        let target = try crafter.blob(Array("../../../etc/passwd".utf8))
        try root.change("Work") { $0.entries[Array("Link".utf8)] = .file("120000", target) }
      case .submoduleInACategory:
        let commit = try crafter.head()
        try root.change("Work") { $0.entries[Array("Sub".utf8)] = .file("160000", commit) }
      case .nameThatIsNotUTF8:
        root.entries[[0xFF, 0xFE] + Array("Cat".utf8)] = .tree(
          CraftedTree(entries: [Array("Note".utf8): .file("100644", plain)]))
      case .documentOverTheSizeLimit:
        // 200 MiB of zeros: a few hundred kilobytes in the repository.
        let big = try crafter.blob(zeros: 200 << 20)
        try root.change("Work") { $0.entries[Array("Big.md".utf8)] = .file("100644", big) }
      }
    }
  }

  @Test(arguments: Refused.allCases)
  func aHostileCommitIsRefusedOnBothMachinesAndARevertLetsTheNextChangeThrough(
    _ kind: Refused
  ) throws {
    try startBoth()
    let before = try crafterHead()
    let hostile = try push(kind)
    for machine in [laptop, desktop] {
      let result = try expectRefusal(on: machine)
      #expect(result.errors.contains("origin's commit \(hostile.prefix(7)) is refused: "))
      for text in kind.named {
        #expect(result.errors.contains(text), "\(machine.name): \(result.errors)")
      }
      #expect(result.errors.contains("revert it on the remote (git revert \(hostile.prefix(7))"))
    }
    try expectRepairByRevertLetsChangesThrough(revertingTo: before)
  }

  /// `sync` on `machine`, which must be refused in one line, changing neither its store, nor
  /// its branch, nor anything outside the store's folder, printing no raw escape, with
  /// memory bounded.
  func expectRefusal(
    on machine: SyncMachine, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> DocshProcess.Result {
    let store = try machine.storeBytes()
    let head = try machine.gitText(["rev-parse", "HEAD"])
    let outside = try filesOutsideStores()
    let (result, peak) = try measuredSync(on: machine)
    let now = try filesOutsideStores()
    #expect(
      now == outside, "\(now.symmetricDifference(outside))", sourceLocation: sourceLocation)
    #expect(result.status != 0, "\(machine.name)", sourceLocation: sourceLocation)
    #expect(result.output == "", sourceLocation: sourceLocation)
    #expect(
      result.errors.contains("error: ") && result.errors.hasSuffix("\n")
        && result.errors.filter({ $0 == "\n" }).count == 1,
      "\(machine.name): \(result.errors)", sourceLocation: sourceLocation)
    expectPrintable(result, sourceLocation: sourceLocation)
    #expect(try machine.storeBytes() == store, sourceLocation: sourceLocation)
    #expect(try machine.gitText(["rev-parse", "HEAD"]) == head, sourceLocation: sourceLocation)
    #expect(peak < 100 << 10, "\(machine.name): peak \(peak) KiB", sourceLocation: sourceLocation)
    return result
  }

  /// The remote repaired by a commit whose tree is `before`'s (what `git revert` makes):
  /// a change of the laptop syncs out, and the desktop takes it, both keeping every document.
  func expectRepairByRevertLetsChangesThrough(
    revertingTo before: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let crafter = RemoteCrafter(sandbox: sandbox, remote: remote)
    try crafter.revert(to: before)
    try expectChangesThrough(sourceLocation: sourceLocation)
  }

  /// A change of the laptop syncs out and the desktop takes it; both hold every document.
  func expectChangesThrough(sourceLocation: SourceLocation = #_sourceLocation) throws {
    try laptop.succeed("write Work/Plan plan 1", sourceLocation: sourceLocation)
    let out = try laptop.run("sync")
    #expect(out.status == 0, "laptop: \(out.errors)", sourceLocation: sourceLocation)
    let result = try desktop.run("sync")
    #expect(result.status == 0, "desktop: \(result.errors)", sourceLocation: sourceLocation)
    let expected = [
      "Work/": "", "Keepcat/": "", "Work/Plan": "plan 1", "Work/Caf\u{E9}": "coffee",
      "Keepcat/Doc": "doc 0",
    ]
    #expect(try laptop.contents() == expected, sourceLocation: sourceLocation)
    #expect(try desktop.contents() == expected, sourceLocation: sourceLocation)
  }

  @Test func aFreshMachineTakesNothingOfARefusedRemoteAndEverythingOnceItIsReverted() throws {
    try startBoth()
    let before = try crafterHead()
    let hostile = try push(.folderEqualButForCase)
    let fresh = try SyncMachine("fresh", in: sandbox)
    let result = try fresh.run("sync '\(remote)'")
    #expect(result.status != 0)
    #expect(
      result.errors.contains(
        "origin's commit \(hostile.prefix(7)) is refused: KEEPCAT/ and Keepcat/: two names"),
      "\(result.errors)")
    expectPrintable(result)
    #expect(try fresh.run("ls").output == "")
    try RemoteCrafter(sandbox: sandbox, remote: remote).revert(to: before)
    try fresh.sync()
    #expect(try fresh.contents() == laptop.contents())
  }

  // MARK: - Refused by git's own checks

  /// Trees git's fsck refuses as a fetch brings them.
  enum RefusedByGit: String, CaseIterable, CustomTestStringConvertible {
    case dotGitInAnotherCase, nameHoldingASlash, dotDot
    var testDescription: String { rawValue }
  }

  @Test(arguments: RefusedByGit.allCases)
  func aTreeGitsChecksRefuseIsRefusedAtTheFetchAndRemovingTheCommitLetsChangesThrough(
    _ kind: RefusedByGit
  ) throws {
    try startBoth()
    let crafter = RemoteCrafter(sandbox: sandbox, remote: remote)
    let before = try crafter.head()
    let plain = try crafter.blob(Array("[core]\n\thooksPath = /tmp\n".utf8))
    try crafter.commit("hostile: \(kind)") { root in
      switch kind {
      case .dotGitInAnotherCase:
        root.entries[Array(".GIT".utf8)] = .tree(
          CraftedTree(entries: [Array("config".utf8): .file("100644", plain)]))
      case .nameHoldingASlash:
        try root.change("Work") { $0.entries[Array("a/b".utf8)] = .file("100644", plain) }
      case .dotDot:
        try root.change("Work") {
          $0.entries[Array("..".utf8)] = .tree(
            CraftedTree(entries: [Array("x".utf8): .file("100644", plain)]))
        }
      }
    }
    for machine in [laptop, desktop] {
      let result = try expectRefusal(on: machine)
      #expect(
        result.errors.contains("fetch from origin: git's checks refuse an object of the remote"),
        "\(machine.name): \(result.errors)")
      #expect(result.errors.contains("remove the commit that brought it"))
    }
    // A revert keeps the object in the history a fetch brings: the commit is taken away.
    try crafter.reset(to: before)
    try expectChangesThrough()
  }

  // MARK: - Skipped

  @Test func entriesDocshCannotReadAreLeftAsTheyAreAndMergesKeepThemWithTheirModes() throws {
    try startBoth()
    let crafter = RemoteCrafter(sandbox: sandbox, remote: remote)
    let target = try crafter.blob(Array("Work/Plan".utf8))
    let note = try crafter.blob(Array("a note\n".utf8))
    let submodule = try crafter.head()
    let escaped = Array("\u{1B}]0;pwned\u{7}Cat".utf8)
    try crafter.commit("odd entries") { root in
      root.entries[Array("README".utf8)] = .file("120000", target)
      root.entries[Array("vendor".utf8)] = .file("160000", submodule)
      root.entries[escaped] = .tree(
        CraftedTree(entries: [Array("Note".utf8): .file("100644", note)]))
    }
    let odd = try crafter.entries(of: "HEAD")
    // The desktop changed a document meanwhile: its sync merges, taking the odd entries in
    // through the merge, as the remote has them, modes and all.
    try desktop.succeed("write Keepcat/Doc doc 1")
    for machine in [laptop, desktop] {
      let result = try machine.run("sync")
      #expect(result.status == 0, "\(machine.name): \(result.errors)")
      expectPrintable(result)
      let warnings = result.errors.split(separator: "\n").map(String.init)
      #expect(
        Set(warnings) == [
          "docsh: warning: README: a symbolic link is no document or category; left in the repository as it is",
          "docsh: warning: vendor: a submodule is no document or category; left in the repository as it is",
          "docsh: warning: \\e]0;pwned\\x07Cat/: not a category name docsh accepts; left in the repository as it is",
        ], "\(machine.name): \(warnings)")
    }
    #expect(try crafter.parents(of: "HEAD").count == 2)
    func expectOddEntriesKept(sourceLocation: SourceLocation = #_sourceLocation) throws {
      let now = try crafter.entries(of: "HEAD")
      for name in [Array("README".utf8), Array("vendor".utf8), escaped] {
        #expect(now[name] == odd[name], "\(name)", sourceLocation: sourceLocation)
      }
    }
    try expectOddEntriesKept()
    // Later commits of both keep them too, and say nothing more of them.
    #expect(try laptop.succeed("write Work/Plan plan 1; sync").contains("1 change in, 1 out"))
    let quiet = try desktop.run("sync")
    #expect(quiet.status == 0 && quiet.errors == "", "\(quiet.errors)")
    try expectOddEntriesKept()
    let expected = [
      "Work/": "", "Keepcat/": "", "Work/Plan": "plan 1", "Work/Caf\u{E9}": "coffee",
      "Keepcat/Doc": "doc 1",
    ]
    #expect(try laptop.contents() == expected)
    #expect(try desktop.contents() == expected)
  }

  @Test func aRemoteCommitsSubjectWithEscapesIsPrintedEscapedByLog() throws {
    try startBoth()
    let crafter = RemoteCrafter(sandbox: sandbox, remote: remote)
    let plan = try crafter.blob(Array("plan from a clone\n".utf8))
    try crafter.commit("\u{1B}]0;pwned\u{7}\u{1B}[2J edited") { root in
      try root.change("Work") { $0.entries[Array("Plan.md".utf8)] = .file("100644", plan) }
    }
    try laptop.sync()
    let result = try laptop.run("log")
    #expect(result.status == 0, "\(result.errors)")
    expectPrintable(result)
    #expect(result.output.contains("\\e]0;pwned\\x07\\e[2J edited"), "\(result.output)")
  }

  // MARK: - git, hardened

  @Test func noHookRunsAndEveryGitOfDocshRunsWithGitsChecksOn() throws {
    try startBoth()
    let marker = sandbox.folder.path("hook-ran")
    let hooks = laptop.folder + "/.git/hooks"
    for hook in ["reference-transaction", "pre-push", "post-commit", "pre-auto-gc"] {
      let path = hooks + "/" + hook
      try Data("#!/bin/sh\ntouch '\(marker)'\n".utf8).write(to: URL(fileURLWithPath: path))
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }
    let git = try WrappedGit(
      in: sandbox.folder.path("wrapped"),
      before:
        "env | grep '^GIT_CONFIG_[KV]' | sort | tr '\\n' ' ' >> \"$(dirname \"$0\")/env\"; echo >> \"$(dirname \"$0\")/env\""
    )
    try laptop.succeed("write Work/Plan plan 1; sync", extra: git.environment)
    #expect(!FileManager.default.fileExists(atPath: marker))
    let runs = try String(contentsOfFile: git.folder + "/env", encoding: .utf8)
      .split(separator: "\n")
    #expect(runs.count == git.calls().count && !runs.isEmpty)
    for run in runs {
      for setting in [
        "core.hooksPath GIT_CONFIG_VALUE", "fetch.fsckObjects", "transfer.fsckObjects",
        "core.attributesFile",
      ] {
        #expect(run.contains(String(setting.split(separator: " ")[0])), "\(run)")
      }
    }
  }

  // MARK: - Helpers

  /// Output free of raw escapes and of bytes that were not UTF-8.
  func expectPrintable(
    _ result: DocshProcess.Result, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for text in [result.output, result.errors] {
      #expect(
        !text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F },
        "\(text.debugDescription)", sourceLocation: sourceLocation)
      #expect(!text.contains("\u{FFFD}"), sourceLocation: sourceLocation)
    }
  }

  /// `sync` on `machine` through `/usr/bin/time`: its result and its peak resident memory
  /// in KiB, docsh's and that of the git processes it waited for.
  func measuredSync(on machine: SyncMachine) throws -> (DocshProcess.Result, Int) {
    let report = sandbox.folder.path("time-\(machine.name)")
    let result = try DocshProcess.run(
      ["--store", machine.storePath, "-c", "sync"], environment: machine.environment,
      home: machine.home, wrapper: ["/usr/bin/time", "-f", "%M", "-o", report])
    // The last line (time says first when the command failed).
    let peak =
      try String(contentsOfFile: report, encoding: .utf8)
      .split(separator: "\n").last.map(String.init) ?? ""
    try FileManager.default.removeItem(atPath: report)
    return (result, try #require(Int(peak)))
  }

  /// Every path in the sandbox outside the machines' store folders, their index caches
  /// (docsh's own, made by any command that opens the store) and the remote.
  func filesOutsideStores() throws -> Set<String> {
    let root = sandbox.folder.path
    let skipped =
      [laptop.folder, desktop.folder, remote, laptop.home + "/.cache", desktop.home + "/.cache"]
    var paths = Set<String>()
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let relative = enumerator?.nextObject() as? String {
      let path = root + "/" + relative
      if skipped.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { continue }
      paths.insert(relative)
    }
    return paths
  }

  func crafterHead() throws -> String {
    try RemoteCrafter(sandbox: sandbox, remote: remote).head()
  }
}

/// A tree as crafted: each entry's name (any bytes) and what it is.
struct CraftedTree: Equatable {
  enum Item: Equatable {
    /// A blob (`100644`, `100755`, `120000`) or a submodule's commit (`160000`).
    case file(_ mode: String, _ object: String)
    case tree(CraftedTree)
  }
  var entries: [[UInt8]: Item] = [:]

  /// The subtree `name`, if there is one.
  subscript(folder name: String) -> CraftedTree? {
    if case .tree(let tree) = entries[Array(name.utf8)] { return tree }
    return nil
  }

  /// Changes the subtree `name`, which must exist, with `body`.
  mutating func change(_ name: String, _ body: (inout CraftedTree) throws -> Void) throws {
    guard case .tree(var tree) = entries[Array(name.utf8)] else {
      throw SandboxError("no folder \(name)")
    }
    try body(&tree)
    entries[Array(name.utf8)] = .tree(tree)
  }
}

/// The branch `main` of a bare remote, changed with git's plumbing in the remote itself.
struct RemoteCrafter {
  let sandbox: GitSandbox
  let remote: String

  func git(_ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8] {
    let output = try sandbox.git(arguments, in: remote, input: input)
    guard output.succeeded else {
      throw SandboxError("git \(arguments.joined(separator: " ")): \(output.lastErrorLine)")
    }
    return output.output
  }

  func text(_ arguments: [String], input: [UInt8]? = nil) throws -> String {
    String(decoding: try git(arguments, input: input), as: UTF8.self)
      .trimmingCharacters(in: .newlines)
  }

  func head() throws -> String { try text(["rev-parse", "refs/heads/main"]) }

  func parents(of revision: String) throws -> [String] {
    try text(["rev-list", "--parents", "-1", revision]).split(separator: " ").dropFirst().map(
      String.init)
  }

  func blob(_ bytes: [UInt8]) throws -> String {
    try text(["hash-object", "-w", "--stdin"], input: bytes)
  }

  /// A blob of `count` zero bytes, streamed into git (never held here).
  func blob(zeros count: Int) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", "head -c \(count) /dev/zero | git -C '\(remote)' hash-object -w --stdin",
    ]
    process.environment = sandbox.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw SandboxError("hash-object failed") }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
  }

  /// The tree `object`, read entry by entry.
  func tree(_ object: String) throws -> CraftedTree {
    var tree = CraftedTree()
    for record in try git(["ls-tree", "-z", object]).split(separator: 0) {
      let tab = try #require(record.firstIndex(of: 0x09))
      let fields = record[..<tab].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
      let name = Array(record[(tab + 1)...])
      tree.entries[name] =
        fields[1] == "tree"
        ? .tree(try self.tree(fields[2])) : .file(fields[0], fields[2])
    }
    return tree
  }

  /// The entries of `revision`'s root tree.
  func entries(of revision: String) throws -> [[UInt8]: CraftedTree.Item] {
    try tree(revision + "^{tree}").entries
  }

  /// Writes `tree` as git objects, as they are (no check: `hash-object --literally`), in
  /// git's order of entries.
  func write(_ tree: CraftedTree) throws -> String {
    var sorted: [(key: [UInt8], bytes: [UInt8])] = []
    for (name, item) in tree.entries {
      let mode: String
      let object: String
      switch item {
      case .file(let fileMode, let id):
        (mode, object) = (fileMode, id)
      case .tree(let subtree):
        (mode, object) = ("40000", try write(subtree))
      }
      var raw: [UInt8] = []
      var digits = Array(object.utf8)[...]
      while digits.count >= 2 {
        raw.append(
          try #require(UInt8(String(decoding: digits.prefix(2), as: UTF8.self), radix: 16)))
        digits = digits.dropFirst(2)
      }
      let isTree = if case .tree = item { true } else { false }
      sorted.append(
        (name + (isTree ? [0x2F] : []), Array("\(mode) ".utf8) + name + [0] + raw))
    }
    sorted.sort { $0.key.lexicographicallyPrecedes($1.key) }
    return try text(
      ["hash-object", "--literally", "-t", "tree", "-w", "--stdin"],
      input: sorted.flatMap(\.bytes))
  }

  /// A commit on `main` whose tree is its head's changed by `change`.
  @discardableResult
  func commit(_ message: String, _ change: (inout CraftedTree) throws -> Void) throws -> String {
    let parent = try head()
    var root = try tree(parent + "^{tree}")
    try change(&root)
    let made = try text(["commit-tree", try write(root), "-p", parent, "-m", message])
    _ = try git(["update-ref", "refs/heads/main", made, parent])
    return made
  }

  /// A commit on `main` whose tree is `earlier`'s: what `git revert` of what came since makes.
  func revert(to earlier: String) throws {
    let parent = try head()
    let made = try text(["commit-tree", earlier + "^{tree}", "-p", parent, "-m", "Revert"])
    _ = try git(["update-ref", "refs/heads/main", made, parent])
  }

  /// `main` moved back to `earlier`, as a forced push of the repaired history does.
  func reset(to earlier: String) throws {
    _ = try git(["update-ref", "refs/heads/main", earlier])
  }
}
