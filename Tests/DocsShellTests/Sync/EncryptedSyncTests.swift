import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// Sync through an encrypted remote, driven through the real binary against bare
/// repositories on local disk: `sync --encrypt REMOTE` on one machine, `sync REMOTE` with
/// the passphrase on another, and everything a plain remote does working through it — while
/// the remote holds no name, word, tag, link or date of the store.
@Suite struct EncryptedSyncTests {
  let machines: TwoMachines
  var sandbox: GitSandbox { machines.sandbox }
  var remote: String { machines.remote }
  var laptop: SyncMachine { machines.laptop }
  var desktop: SyncMachine { machines.desktop }
  /// A file holding the passphrase.
  let passphraseFile: String
  /// What every docsh run of the tests gets: the passphrase from its file.
  let withPassphrase: [String: String]

  static let passphrase = "correct horse battery staple"

  init() throws {
    machines = try TwoMachines("encrypted")
    passphraseFile = machines.sandbox.folder.path("passphrase")
    try Data((Self.passphrase + "\n").utf8).write(to: URL(fileURLWithPath: passphraseFile))
    withPassphrase = ["DOCSH_PASSPHRASE_FILE": passphraseFile]
  }

  /// A file holding `text` (a passphrase), in the sandbox.
  func file(_ name: String, holding text: String) throws -> String {
    let path = sandbox.folder.path(name)
    try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// `script` on `machine` with the passphrase, which must succeed; its output.
  @discardableResult
  func succeed(
    _ machine: SyncMachine, _ script: String, extra: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let result = try machine.run(script, extra: withPassphrase.merging(extra) { $1 })
    #expect(
      result.status == 0, "\(machine.name): \(script) exited \(result.status): \(result.errors)",
      sourceLocation: sourceLocation)
    return SyncMachine.withoutDates(result.output)
  }

  /// The laptopside store: names, words, a tag and a link no file of the remote may show.
  static let secrets = [
    "Zanzibarproject", "Quokkaplan", "Marmalades", "wolframite", "Tuesdayish", "xylophonic",
    "sesquipedalia", "hushhushtag", "Quokkaplan",
  ]

  /// Both machines synced through the encrypted remote, with the laptopside store.
  func startBoth() throws {
    try succeed(
      laptop,
      """
      mkdir Zanzibarproject Marmalades
      new Zanzibarproject/Quokkaplan ship the wolframite on Tuesdayish
      new Marmalades/Notes a xylophonic line and [[Zanzibarproject/Quokkaplan]]
      append Marmalades/Notes sesquipedalia
      tag Zanzibarproject/Quokkaplan hushhushtag
      sync --encrypt '\(remote)'
      """)
    let joined = try succeed(desktop, "sync '\(remote)'")
    #expect(joined.contains("fetched the notes of the remote"))
    #expect(try desktop.contents() == laptop.contents())
  }

  /// Every object of the remote (`git cat-file --batch-all-objects --batch`), as bytes.
  func remoteObjects() throws -> [UInt8] {
    let output = try sandbox.git(
      ["cat-file", "--batch-all-objects", "--batch", "--unordered"], in: remote)
    #expect(output.succeeded)
    let refs = try sandbox.git(["for-each-ref"], in: remote)
    return output.output + refs.output
  }

  // MARK: - Set-up and a second machine

  @Test func secondMachineGetsEverythingWithThePassphrase() throws {
    try startBoth()
    #expect(try desktop.run("tags").output.contains("hushhushtag"))
    #expect(
      try desktop.run("backlinks Zanzibarproject/Quokkaplan").output.contains("Marmalades/Notes"))
    // The second machine's edits come back to the first.
    try succeed(desktop, "append Marmalades/Notes from the desktop; sync")
    try succeed(laptop, "sync")
    #expect(try laptop.contents()["Marmalades/Notes"]?.contains("from the desktop") == true)
    #expect(try desktop.contents() == laptop.contents())
  }

  @Test func theRemoteHoldsNoNameWordTagLinkOrDateOfTheStore() throws {
    try startBoth()
    try succeed(laptop, "mv Marmalades/Notes Marmalades/Renamedthing; sync")
    let objects = try remoteObjects()
    let context = try Context(store: JSONStore(path: laptop.storePath))
    var needles = Self.secrets + ["Renamedthing"]
    for category in context.categories() {
      needles.append(category.name.text)
      needles.append(category.id.description)
      for document in try context.documents(in: category.id) {
        needles.append(document.name.text)
        needles.append(document.id.description)
        needles.append(document.modified.iso8601)
        needles.append(String(document.modified.iso8601.prefix(10)))  // the day
      }
    }
    let haystack = Data(objects)
    for needle in Set(needles) {
      #expect(haystack.range(of: Data(needle.utf8)) == nil, "the remote holds \(needle)")
    }
    // The scan finds what is there: the marker's words, in plain text.
    #expect(haystack.range(of: Data("docsh encrypted remote".utf8)) != nil)
    // Commit messages say counts only, in nobody's name.
    let log = try sandbox.text(["log", "--format=%an <%ae> %s"], in: remote)
    for line in log.split(separator: "\n") {
      #expect(line.hasPrefix("docsh <docsh@docsh.invalid> docsh: "), "\(line)")
    }
  }

  @Test func stockAgeOpensEveryFileWithTheIdentity() throws {
    try startBoth()
    let clone = sandbox.folder.path("clone")
    _ = try sandbox.git(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    let identityFile = try Data(
      contentsOf: URL(fileURLWithPath: clone + "/.docsh/identity.age"))
    let identity = try Age.decrypt(
      Array(identityFile), passphrase: Array(Self.passphrase.utf8))
    let identityPath = sandbox.folder.path("identity.txt")
    try Data(identity).write(to: URL(fileURLWithPath: identityPath))
    let documents = try sandbox.text(["ls-files", "documents"], in: clone).split(separator: "\n")
    #expect(documents.count == 2)
    var opened = ""
    for path in documents
      + ["categories"].flatMap({ _ in
        (try? sandbox.text(["ls-files", "categories"], in: clone).split(separator: "\n")) ?? []
      })
    {
      let age = Process()
      age.executableURL = URL(fileURLWithPath: "/usr/bin/age")
      age.arguments = ["-d", "-i", identityPath, clone + "/" + path]
      let pipe = Pipe()
      age.standardOutput = pipe
      try age.run()
      let bytes = pipe.fileHandleForReading.readDataToEndOfFile()
      age.waitUntilExit()
      #expect(age.terminationStatus == 0, "age -d -i on \(path)")
      opened += String(decoding: bytes, as: UTF8.self)
    }
    #expect(opened.contains("name: Quokkaplan"))
    #expect(opened.contains("ship the wolframite on Tuesdayish"))
    #expect(opened.contains("name: Zanzibarproject"))
    #expect(opened.contains("  - hushhushtag"))
  }

  // MARK: - Merging

  /// `write NAME` of `lines`, one a line, as a here-document.
  func write(_ name: String, _ lines: [String]) -> String {
    "write \(name) <<END\n" + lines.joined(separator: "\n") + "\nEND\n"
  }

  @Test func twoMachinesMergeByMeaningThroughTheEncryptedRemote() throws {
    try startBoth()
    let lines = ["one", "two", "three", "four", "five"]
    try succeed(laptop, write("Marmalades/Notes", lines) + "sync")
    try succeed(desktop, "sync")
    // Different lines merge; the same document written both ways becomes a sibling.
    try succeed(
      laptop,
      write("Marmalades/Notes", ["ONE"] + lines.dropFirst())
        + "write Zanzibarproject/Quokkaplan laptopside")
    try succeed(
      desktop,
      write("Marmalades/Notes", lines.dropLast() + ["FIVE"])
        + "write Zanzibarproject/Quokkaplan desktopside\nsync")
    let synced = try succeed(laptop, "sync")
    #expect(synced.contains("conflict: Zanzibarproject/Quokkaplan"), "\(synced)")
    try succeed(desktop, "sync")
    let contents = try laptop.contents()
    let notes = try #require(contents["Marmalades/Notes"])
    #expect(notes.hasPrefix("ONE\ntwo\nthree\nfour\nFIVE"), "\(notes)")
    #expect(contents["Zanzibarproject/Quokkaplan"] == "laptopside")
    #expect(contents["Zanzibarproject/Quokkaplan (conflict DATE)"] == "desktopside")
    #expect(try desktop.contents() == contents)
  }

  @Test func aSaveSendsOnlyTheFileOfTheDocumentItChanged() throws {
    try startBoth()
    let before = try sandbox.text(["ls-tree", "-r", "main"], in: remote)
    try succeed(laptop, "append Marmalades/Notes one more; sync")
    let changed = try sandbox.text(
      ["diff-tree", "-r", "--name-status", "main~1", "main"], in: remote)
    #expect(changed.split(separator: "\n").count == 1)
    #expect(changed.hasPrefix("M\tdocuments/"))
    // A rename keeps the document's file where it was: one file changes again.
    try succeed(laptop, "mv Marmalades/Notes Zanzibarproject/Moved; sync")
    let renamed = try sandbox.text(
      ["diff-tree", "-r", "--name-status", "main~1", "main"], in: remote)
    #expect(renamed == changed)
    // Every other blob is as it was.
    let after = try sandbox.text(["ls-tree", "-r", "main"], in: remote)
    let unchanged = Set(before.split(separator: "\n")).intersection(after.split(separator: "\n"))
    #expect(unchanged.count == before.split(separator: "\n").count - 1)
    try succeed(desktop, "sync")
    #expect(try desktop.contents() == laptop.contents())
  }

  /// git's output in the laptop's repository, `input` on its standard input.
  func laptopGit(_ arguments: [String], input: String? = nil) throws -> String {
    let output = try laptop.git(arguments, input: input.map { Array($0.utf8) })
    #expect(output.succeeded, "git \(arguments): \(output.lastErrorLine)")
    return output.text.trimmingCharacters(in: .newlines)
  }

  @Test func dotFilesOfTheLocalRepositoryAreNeverSent() throws {
    try startBoth()
    // A commit of the laptop's own repository adding a dot folder and a dot file beside a
    // document (a tool's files): never documents, never sent.
    let marker = try laptopGit(["hash-object", "-w", "--stdin"], input: "x\n")
    let dotTree = try laptopGit(["mktree"], input: "100644 blob \(marker)\tworkspace\n")
    let categoryTree = try laptopGit(["rev-parse", "HEAD:Marmalades"])
    let categoryEntries = try laptopGit(["ls-tree", categoryTree])
    let newCategory = try laptopGit(
      ["mktree"], input: categoryEntries + "\n100644 blob \(marker)\t.hidden\n")
    var root = try laptopGit(["ls-tree", "HEAD"]).split(separator: "\n").map(String.init)
    root.removeAll { $0.hasSuffix("\tMarmalades") }
    root.append("040000 tree \(newCategory)\tMarmalades")
    root.append("040000 tree \(dotTree)\t.obsidian")
    let tree = try laptopGit(["mktree"], input: root.joined(separator: "\n") + "\n")
    let commit = try laptopGit(["commit-tree", tree, "-p", "HEAD", "-m", "dot files"])
    _ = try laptopGit(["update-ref", "HEAD", commit])
    try succeed(laptop, "append Marmalades/Notes after the dot files; sync")
    let synced = try desktop.run("sync", extra: withPassphrase)
    #expect(synced.status == 0, "\(synced.errors)")
    #expect(try desktop.contents() == laptop.contents())
    let paths = try sandbox.text(["ls-tree", "-r", "--name-only", "main"], in: remote)
    #expect(!paths.contains("workspace") && !paths.contains(".hidden"))
  }

  // MARK: - History

  @Test func historyWorksOnAStoreSyncingThroughAnEncryptedRemote() throws {
    try startBoth()
    try succeed(laptop, "write Zanzibarproject/Quokkaplan second version; sync")
    try succeed(laptop, "write Zanzibarproject/Quokkaplan third version; sync")
    try succeed(desktop, "sync")
    let log = try succeed(desktop, "log Zanzibarproject/Quokkaplan")
    let lines = log.split(separator: "\n")
    #expect(lines.count == 3, "\(log)")
    let oldest = try #require(lines.last?.split(separator: " ").first).description
    let diff = try succeed(desktop, "diff Zanzibarproject/Quokkaplan \(oldest)")
    #expect(diff.contains("-ship the wolframite on Tuesdayish"))
    #expect(diff.contains("+third version"))
    try succeed(desktop, "restore Zanzibarproject/Quokkaplan \(oldest); save; sync")
    try succeed(laptop, "sync")
    #expect(
      try laptop.contents()["Zanzibarproject/Quokkaplan"] == "ship the wolframite on Tuesdayish")
  }

  // MARK: - Passphrases

  @Test func aWrongPassphraseIsOneLineAndWritesNothing() throws {
    try succeed(laptop, "mkdir Work; new Work/Plan plan; sync --encrypt '\(remote)'")
    let remoteBefore = try sandbox.text(["for-each-ref"], in: remote)
    let wrong = try file("wrong", holding: "not the passphrase")
    let result = try desktop.run(
      "sync '\(remote)'", extra: ["DOCSH_PASSPHRASE_FILE": wrong])
    #expect(result.status == 1)
    #expect(result.errors.split(separator: "\n").count == 1)
    #expect(result.errors.contains("wrong passphrase"))
    #expect(!FileManager.default.fileExists(atPath: desktop.storePath))
    #expect(
      !FileManager.default.fileExists(atPath: desktop.folder + "/.git/docsh/encryption"))
    #expect(try desktop.gitText(["for-each-ref", "refs/remotes"]) == "")
    #expect(try sandbox.text(["for-each-ref"], in: remote) == remoteBefore)
    // The right one then works.
    try succeed(desktop, "sync")
    #expect(try desktop.contents() == laptop.contents())
  }

  @Test func changingThePassphraseRewritesOnlyTheIdentityFile() throws {
    try startBoth()
    let newPassphrase = try file("new", holding: "a brand new passphrase")
    let before = try sandbox.text(["rev-parse", "main^{tree}"], in: remote)
    let changing = try laptop.run(
      "sync --change-passphrase",
      extra: withPassphrase.merging(["DOCSH_NEW_PASSPHRASE_FILE": newPassphrase]) { $1 })
    #expect(changing.status == 0, "\(changing.errors)")
    #expect(changing.errors.contains("under the new passphrase"))
    let changed = try sandbox.text(["diff-tree", "-r", "--name-only", before, "main"], in: remote)
    #expect(changed == ".docsh/identity.age")
    // A third machine: the old passphrase no longer opens the remote; the new one does.
    let third = try SyncMachine("third", in: sandbox)
    let refused = try third.run("sync '\(remote)'", extra: withPassphrase)
    #expect(refused.status == 1)
    #expect(refused.errors.contains("wrong passphrase"))
    let joined = try third.run(
      "sync '\(remote)'", extra: ["DOCSH_PASSPHRASE_FILE": newPassphrase])
    #expect(joined.status == 0, "\(joined.errors)")
    #expect(try third.contents() == laptop.contents())
    // A save on the laptop needs no passphrase at all.
    let saved = try laptop.run("append Marmalades/Notes saved; sync")
    #expect(saved.status == 0, "\(saved.errors)")
  }

  // MARK: - Refusals

  @Test func encryptRefusesARemoteHoldingPlainCommits() throws {
    try laptop.succeed("mkdir Work; new Work/Plan plan; sync '\(remote)'")
    let result = try desktop.run("sync --encrypt '\(remote)'", extra: withPassphrase)
    #expect(result.status == 1)
    #expect(result.errors.contains("holds commits in plain text"))
    #expect(!FileManager.default.fileExists(atPath: desktop.storePath))
  }

  @Test func encryptRefusesAStoreSyncingInPlainText() throws {
    try laptop.succeed("mkdir Work; new Work/Plan plan; sync '\(remote)'")
    let other = try sandbox.makeBareRemote("other.git")
    let result = try laptop.run("sync --encrypt '\(other)'", extra: withPassphrase)
    #expect(result.status == 1)
    #expect(result.errors.contains("syncs in plain text with \(remote)"))
    #expect(try sandbox.text(["for-each-ref"], in: other) == "")
    #expect(try laptop.gitText(["remote", "get-url", "origin"]) == remote)
  }

  @Test func aStoreLeavingItsPlainRemoteSendsItsWholeHistoryEncrypted() throws {
    let plain = try sandbox.makeBareRemote("plain.git")
    try laptop.succeed("mkdir Work; new Work/Plan first; sync '\(plain)'")
    try laptop.succeed("write Work/Plan second; sync")
    _ = try laptopGit(["remote", "remove", "origin"])
    try succeed(laptop, "sync --encrypt '\(remote)'")
    try succeed(desktop, "sync '\(remote)'")
    #expect(try desktop.contents() == laptop.contents())
    // Both versions came, encrypted: the desktop's history has them.
    let log = try succeed(desktop, "log Work/Plan")
    #expect(log.split(separator: "\n").count == 2, "\(log)")
    let objects = Data(try remoteObjects())
    #expect(objects.range(of: Data("Plan".utf8)) == nil)
  }

  /// A commit pushed to the encrypted remote from a clone that docsh refuses.
  enum Hostile: String, CaseIterable, CustomTestStringConvertible {
    case plainFile, notAnAgeFile, tamperedFile, fileAtAnotherDocumentsPath, symbolicLink
    case oversizedFile
    var testDescription: String { rawValue }
  }

  @Test(arguments: Hostile.allCases)
  func aHostileEncryptedRemoteIsRefusedInOneLine(_ kind: Hostile) throws {
    try startBoth()
    let clone = sandbox.folder.path("clone")
    _ = try sandbox.git(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    let documents = try sandbox.text(["ls-files", "documents"], in: clone).split(separator: "\n")
    let victim = try #require(documents.first).description
    let path: String
    switch kind {
    case .plainFile:
      path = "notes.txt"
      try Data("hello\n".utf8).write(to: URL(fileURLWithPath: clone + "/" + path))
    case .notAnAgeFile:
      path = victim
      try Data("not age at all\n".utf8).write(to: URL(fileURLWithPath: clone + "/" + path))
    case .tamperedFile:
      path = victim
      var bytes = try Data(contentsOf: URL(fileURLWithPath: clone + "/" + path))
      bytes[bytes.count - 3] ^= 0x01
      try bytes.write(to: URL(fileURLWithPath: clone + "/" + path))
    case .fileAtAnotherDocumentsPath:
      path = "documents/ab/ab" + String(repeating: "0", count: 30)
      try FileManager.default.createDirectory(
        atPath: clone + "/documents/ab", withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: clone + "/" + victim, toPath: clone + "/" + path)
    case .oversizedFile:
      // 33 MiB of zeros: git packs it small, so only its size read before its bytes can
      // refuse it unread.
      path = victim
      try Data(count: 33 << 20).write(to: URL(fileURLWithPath: clone + "/" + path))
    case .symbolicLink:
      path = "documents/ab/ab" + String(repeating: "1", count: 30)
      try FileManager.default.createDirectory(
        atPath: clone + "/documents/ab", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: clone + "/" + path, withDestinationPath: "/etc/passwd")
    }
    for arguments in [
      ["add", "-A"], ["commit", "--quiet", "-m", "hostile"], ["push", "--quiet"],
    ] {
      let output = try sandbox.git(arguments, in: clone)
      #expect(output.succeeded, "git \(arguments): \(output.lastErrorLine)")
    }
    let storeBefore = try desktop.storeBytes()
    let headBefore = try desktop.gitText(["rev-parse", "HEAD"])
    let result = try desktop.run("sync", extra: withPassphrase)
    #expect(result.status == 1)
    #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
    #expect(result.errors.contains("is refused: \(path): "), "\(result.errors)")
    if kind == .oversizedFile {
      // Refused by its size, before a byte of it is read (it is no age file either).
      #expect(result.errors.contains("MiB a document from a remote may be"), "\(result.errors)")
    }
    #expect(try desktop.storeBytes() == storeBefore)
    #expect(try desktop.gitText(["rev-parse", "HEAD"]) == headBefore)
  }
}
