import DocsKit
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What the save log promises at its edges, through the binary: damage inside the log is
/// never cut off, a header cut short is an empty log, a fold cut short leaves nothing
/// behind, a file another program replaced never gets the log applied, and only the store
/// file's owner saves into its log.
@Suite struct SaveLogPromisesTests {
  static let keepLog = ["DOCSH_FOLD": "never"]

  /// A store at rest with `A/one`, then three saves in its log: `A/two`, `A/three`, and
  /// `A/four` with the tag `t1` on `A/one`.
  static func threeRecords(_ folder: DocshProcess.Folder) throws -> (store: String, home: String) {
    let store = folder.path("w.json")
    let home = folder.path("home")
    for command in [
      "mkdir A; new A/one first", "new A/two second", "new A/three third",
      "new A/four fourth; tag A/one t1",
    ] {
      let run = try DocshProcess.run(
        ["-s", store, "-c", command], environment: keepLog, home: home)
      #expect(run.status == 0, "\(run.errors)")
    }
    return (store, home)
  }

  static func flip(_ word: String, in path: String) throws {
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let needle = Array(word.utf8)
    let index = try #require(
      bytes.indices.first { bytes[$0...].starts(with: needle) }, "\(word) in \(path)")
    bytes[index] ^= 0x20
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  static func names(_ store: String, home: String) throws -> [String] {
    let run = try DocshProcess.run(
      ["-s", store, "--no-save", "-c", "ls A"], environment: keepLog, home: home)
    #expect(run.status == 0, "\(run.errors)")
    return run.output.split(separator: "\n").compactMap { $0.split(separator: " ").first }
      .map(String.init)
  }

  @Test(arguments: [("second", 3), ("third", 2)])
  func aDamagedRecordWithSavesAfterItIsKeptAsideAndBroughtBack(word: String, unapplied: Int)
    throws
  {
    let folder = try DocshProcess.Folder()
    let (store, home) = try SaveLogPromisesTests.threeRecords(folder)
    try SaveLogPromisesTests.flip(word, in: store + ".wal")
    // check sees the damage before anything else touches the store.
    let checked = try DocshProcess.run(["-s", store, "--check"], home: home)
    #expect(checked.status == 1, "\(checked.output)")
    #expect(checked.output.contains("w.json.wal is damaged"), "\(checked.output)")
    #expect(checked.output.contains("\(unapplied) saves from there on"), "\(checked.output)")
    // The next save warns, keeps the whole log aside first and cuts nothing off.
    let logBytes = try Data(contentsOf: URL(fileURLWithPath: store + ".wal"))
    let next = try DocshProcess.run(
      ["-s", store, "-c", "new A/five fifth"], environment: SaveLogPromisesTests.keepLog,
      home: home)
    #expect(next.status == 0, "\(next.errors)")
    let warnings = next.errors.split(separator: "\n")
    #expect(
      warnings.count == 1
        && warnings[0].contains("\(unapplied) saves from there on were not applied"),
      "\(next.errors)")
    let kept = try folder.entries().filter { $0.hasPrefix("w.json.wal.damaged-") }
    try #require(kept.count == 1)
    #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path(kept[0]))) == logBytes)
    // check names it, with the command that brings it back, until it is applied.
    let listed = try DocshProcess.run(["-s", store, "--check"], home: home)
    #expect(listed.status == 1)
    #expect(listed.output.contains("--apply-log \(folder.path(kept[0]))"), "\(listed.output)")
    let applied = try DocshProcess.run(
      ["-s", store, "--apply-log", folder.path(kept[0])], home: home)
    #expect(applied.status == 0, "\(applied.errors)")
    #expect(applied.output.contains("1 damaged records could not be read"), "\(applied.output)")
    // Every save after the damaged one is back; the damaged one's own document is not.
    let damagedName = word == "second" ? "two" : "three"
    let expected = ["five", "four", "one", "three", "two"].filter { $0 != damagedName }
    #expect(try SaveLogPromisesTests.names(store, home: home) == expected)
    let info = try DocshProcess.run(["-s", store, "-c", "info A/one"], home: home)
    #expect(info.output.contains("t1"), "the tag the last save made: \(info.output)")
    let sound = try DocshProcess.run(["-s", store, "--check"], home: home)
    #expect(sound.status == 0, "\(sound.output)")
    #expect(!FileManager.default.fileExists(atPath: folder.path(kept[0])))
  }

  @Test func aDamagedLastRecordIsATornTailDroppedSilently() throws {
    let folder = try DocshProcess.Folder()
    let (store, home) = try SaveLogPromisesTests.threeRecords(folder)
    try SaveLogPromisesTests.flip("fourth", in: store + ".wal")
    let listed = try DocshProcess.run(
      ["-s", store, "--no-save", "-c", "ls A"], environment: SaveLogPromisesTests.keepLog,
      home: home)
    #expect(listed.errors.isEmpty, "\(listed.errors)")
    #expect(try SaveLogPromisesTests.names(store, home: home) == ["one", "three", "two"])
    #expect(try folder.entries().filter { $0.contains(".damaged-") }.isEmpty)
  }

  @Test(arguments: ["torn", "zeros", "empty"])
  func aLogWhoseHeaderNeverReachedTheDiskIsEmptyWithNoWarning(kind: String) throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("w.json")
    let home = folder.path("home")
    let made = try DocshProcess.run(["-s", store, "-c", "mkdir A; new A/one first"], home: home)
    #expect(made.status == 0)
    let header = Array(
      "{\"format\":\"docsh-save-log\",\"version\":2,\"epoch\":\"0123456789abcdef0123456789abcdef\",\"generation\":1"
        .utf8)
    let bytes: [UInt8] =
      switch kind {
      case "torn": Array(header.prefix(57))
      case "zeros": [UInt8](repeating: 0, count: 98)
      default: []
      }
    try Data(bytes).write(to: URL(fileURLWithPath: store + ".wal"))
    for command in ["ls A", "new A/two second"] {
      let run = try DocshProcess.run(
        ["-s", store, "-c", command], environment: SaveLogPromisesTests.keepLog, home: home)
      #expect(run.status == 0 && run.errors.isEmpty, "\(command): \(run.errors)")
    }
    let checked = try DocshProcess.run(["-s", store, "--check"], home: home)
    #expect(checked.status == 0, "\(checked.output)")
    #expect(try SaveLogPromisesTests.names(store, home: home) == ["one", "two"])
    #expect(try folder.entries().filter { $0.contains(".wal.") }.isEmpty)
  }

  @Test func aBackupCopiedOverTheFileNeverGetsTheLogAppliedAndLosesNothing() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("w.json")
    let home = folder.path("home")
    let made = try DocshProcess.run(["-s", store, "-c", "mkdir A; new A/one first"], home: home)
    #expect(made.status == 0)
    let backup = try Data(contentsOf: URL(fileURLWithPath: store))
    // A session killed with its saves in the log: the file is the same bytes as the backup.
    let logged = try DocshProcess.run(
      ["-s", store, "-c", "new A/two second"], environment: SaveLogPromisesTests.keepLog,
      home: home)
    #expect(logged.status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == backup)
    usleep(20_000)  // a new modification time, even on a file system with coarse times
    try backup.write(to: URL(fileURLWithPath: store))  // `cp backup w.json`, in place
    let next = try DocshProcess.run(
      ["-s", store, "-c", "new A/three third"], environment: SaveLogPromisesTests.keepLog,
      home: home)
    #expect(next.status == 0)
    #expect(next.errors.contains("was written by another program"), "\(next.errors)")
    #expect(try SaveLogPromisesTests.names(store, home: home) == ["one", "three"])
    let kept = try folder.entries().filter { $0.hasPrefix("w.json.wal.ignored-") }
    try #require(kept.count == 1)
    let checked = try DocshProcess.run(["-s", store, "--check"], home: home)
    #expect(checked.output.contains("--apply-log \(folder.path(kept[0]))"), "\(checked.output)")
    let applied = try DocshProcess.run(
      ["-s", store, "--apply-log", folder.path(kept[0])], home: home)
    #expect(applied.status == 0, "\(applied.errors)")
    #expect(try SaveLogPromisesTests.names(store, home: home) == ["one", "three", "two"])
  }

  @Test func whatAKilledWholeWriteLeftIsRemovedByTheNextFold() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("w.json")
    let home = folder.path("home")
    let made = try DocshProcess.run(["-s", store, "-c", "mkdir A; new A/one first"], home: home)
    #expect(made.status == 0)
    // What a fold SIGKILLed before its rename leaves: a whole temporary copy of the store
    // and the backup's temporary link; and someone else's file of a similar name.
    let leftovers = [".w.json.k3j2x9", ".w.json.bak.0abc"]
    for name in leftovers {
      try Data("half".utf8).write(to: URL(fileURLWithPath: folder.path(name)))
    }
    try Data("mine".utf8).write(to: URL(fileURLWithPath: folder.path(".w.json.notes.txt")))
    let next = try DocshProcess.run(["-s", store, "-c", "new A/two second"], home: home)
    #expect(next.status == 0, "\(next.errors)")
    let entries = try folder.entries()
    for name in leftovers { #expect(!entries.contains(name), "\(name) is still there") }
    #expect(entries.contains(".w.json.notes.txt"))
  }

  @Test func onlyTheStoreFilesOwnerSavesIntoItsLog() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("w.json")
    let home = folder.path("home")
    let made = try DocshProcess.run(["-s", store, "-c", "mkdir A; new A/one first"], home: home)
    #expect(made.status == 0)
    // The file belongs to another user (these tests run as root, which can chown).
    try #require(geteuid() == 0, "the test hands the store to another user")
    #expect(chown(store, 65534, 65534) == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: store))
    let save = try DocshProcess.run(
      ["-s", store, "-c", "new A/two second"], environment: SaveLogPromisesTests.keepLog,
      home: home)
    #expect(save.status == 3, "\(save.output) \(save.errors)")
    #expect(save.errors.contains("belongs to another user"), "\(save.errors)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    #expect(SaveLogProcessTests.logIsEmpty(store))
    // Another user's log beside the file is never applied to it.
    let foreign = folder.path("f.json")
    _ = try DocshProcess.run(["-s", foreign, "-c", "mkdir F"], home: home)
    let logged = try DocshProcess.run(
      ["-s", foreign, "-c", "new F/x injected"], environment: SaveLogPromisesTests.keepLog,
      home: home)
    #expect(logged.status == 0)
    #expect(chown(foreign + ".wal", 65534, 65534) == 0)
    let listed = try DocshProcess.run(
      ["-s", foreign, "--no-save", "-c", "ls F"], environment: SaveLogPromisesTests.keepLog,
      home: home)
    #expect(!listed.output.contains("x "), "\(listed.output)")
    #expect(listed.errors.contains("belongs to another user"), "\(listed.errors)")
  }
}

/// A fold on a full disk, through the binary on a 1 MiB tmpfs of its own.
@Suite(.serialized) struct FullDiskFoldTests {
  /// Runs `program` with `arguments`; its exit status.
  @discardableResult
  static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  @Test func aFoldThatCannotFinishGivesUpAtOnceSaysSoAndLosesNothing() throws {
    let scratch = try DocshProcess.Folder()
    let mount = scratch.path("disk")
    try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
    // These tests run as root (as CI does), which may mount a tmpfs.
    try #require(
      try FullDiskFoldTests.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount])
        == 0, "mount a 1 MiB tmpfs")
    defer { _ = try? FullDiskFoldTests.run("/bin/umount", [mount]) }
    let store = mount + "/w.json"
    let home = scratch.path("home")
    let big = String(repeating: "x", count: 300_000)
    let made = try DocshProcess.run(
      ["-s", store], input: "mkdir A\nnew A/big \(big)\nnew A/one first\n", home: home)
    #expect(made.status == 0, "\(made.errors)")
    // Fill the disk but for a little: a record fits, a whole copy of the store does not.
    let filler = mount + "/filler"
    var free = statvfs()
    #expect(statvfs(mount, &free) == 0)
    let room = Int(free.f_bavail) * Int(free.f_frsize)
    try Data(count: max(0, room - 64 * 1024)).write(to: URL(fileURLWithPath: filler))
    let file = try Data(contentsOf: URL(fileURLWithPath: store))
    let save = try DocshProcess.run(
      ["-s", store, "-c", "new A/two second"], environment: ["DOCSH_FOLD": ""], home: home)
    // The save returned (it is in the log); the fold gave up and said so, and nothing waits.
    #expect(save.status == 0, "\(save.errors)")
    #expect(save.errors.contains("the save log was not folded"), "\(save.errors)")
    #expect(save.errors.contains("No space left on device"), "\(save.errors)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == file)
    #expect(!SaveLogProcessTests.logIsEmpty(store))
    #expect(SaveLogProcessTests.processes(naming: store) == 0, "nothing outlives the command")
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: mount)
      .filter { $0.hasPrefix(".w.json") }
    #expect(leftovers.isEmpty, "\(leftovers)")
    let listed = try DocshProcess.run(
      ["-s", store, "--no-save", "-c", "ls A"], environment: ["DOCSH_FOLD": "never"], home: home)
    #expect(listed.output.contains("two "), "\(listed.output)")
    // With room again, the next command that leaves folds.
    try FileManager.default.removeItem(atPath: filler)
    let next = try DocshProcess.run(["-s", store, "-c", "ls A"], home: home)
    #expect(next.status == 0 && next.errors.isEmpty, "\(next.errors)")
    #expect(SaveLogProcessTests.logIsEmpty(store))
    #expect(try SaveLogProcessTests.pythonReads(store).contains("A/two=second"))
  }
}
