import DocsKit
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The save log as users meet it through the binary: saves go to `STORE.wal`, the last
/// session to leave folds it (a script or `-c` in a detached child of its own), and at rest
/// the store file alone holds every save, as any JSON tool reads it.
@Suite struct SaveLogProcessTests {
  /// Runs Python's own `json` module on the store file: the names of every category's
  /// documents, `category/name=content` per line (newlines in contents as `|`), sorted.
  static func pythonReads(_ store: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c",
      """
      import json, sys
      store = json.load(open(sys.argv[1], encoding="utf-8"))
      for c in store["categories"]:
          for d in c["documents"]:
              print(c["name"] + "/" + d["name"] + "=" + d["content"].replace("\\n", "|"))
      """,
      store,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "python could not read \(store)")
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
  }

  @Test func afterTheLastRunLeavesTheFileAloneHoldsEverySaveAsPythonReadsIt() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let home = folder.path("home")
    // No DOCSH_FOLD seam: each run hands the fold to a detached child, which waits for the
    // store to be left alone and folds once.
    let background = ["DOCSH_FOLD": "", "DOCSH_FOLD_DELAY_MS": "50"]
    let first = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Notes; new Notes/a alpha"], environment: background, home: home)
    #expect(first.status == 0, "\(first.errors)")
    for (name, text) in [("b", "beta"), ("c", "gamma"), ("d", "delta")] {
      let run = try DocshProcess.run(
        ["-s", store, "-c", "new Notes/\(name) \(text)"], environment: background, home: home)
      #expect(run.status == 0, "\(run.errors)")
    }
    let edit = try DocshProcess.run(
      ["-s", store, "-c", "append Notes/a more"], environment: background, home: home)
    #expect(edit.status == 0, "\(edit.errors)")
    FoldClaim.waitForRest(storePath: store)
    #expect(!FileManager.default.fileExists(atPath: store + ".wal"), "the log was folded")
    #expect(
      try SaveLogProcessTests.pythonReads(store) == [
        "Notes/a=alpha|more|", "Notes/b=beta", "Notes/c=gamma", "Notes/d=delta",
      ])
  }

  /// The processes whose command line is `docsh --checkpoint --store STORE`.
  static func foldChildren(of store: String?) -> Int {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.filter { entry in
      guard entry.allSatisfy(\.isNumber),
        let bytes = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
      else { return false }
      let words = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      return words.contains("--checkpoint") && (store == nil || words.last == store)
    }.count
  }

  @Test func aLoopOfRunsLeavesOneFoldWaitingNotOneARun() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let home = folder.path("home")
    // The first child waits for the store to rest longer than the loop takes.
    let background = ["DOCSH_FOLD": "", "DOCSH_FOLD_DELAY_MS": "3000"]
    let seed = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Notes; new Notes/a alpha"], environment: background, home: home)
    #expect(seed.status == 0, "\(seed.errors)")
    for index in 0..<6 {
      let run = try DocshProcess.run(
        ["-s", store, "-c", "new Notes/n\(index) x"], environment: background, home: home)
      #expect(run.status == 0, "\(run.errors)")
    }
    #expect(
      SaveLogProcessTests.foldChildren(of: store) == 1,
      "\(SaveLogProcessTests.foldChildren(of: nil)) fold children of any store")
    FoldClaim.waitForRest(storePath: store)
    // The claim is let go of as the child ends: the log is folded by then.
    #expect(!FileManager.default.fileExists(atPath: store + ".wal"))
    #expect(try SaveLogProcessTests.pythonReads(store).count == 7)
  }

  @Test func checkpointFoldsTheLogAndSaysSo() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let home = folder.path("home")
    let keepLog = ["DOCSH_FOLD": "never"]
    for command in ["mkdir Notes; new Notes/a alpha", "new Notes/b beta"] {
      let run = try DocshProcess.run(
        ["-s", store, "-c", command], environment: keepLog, home: home)
      #expect(run.status == 0, "\(run.errors)")
    }
    #expect(FileManager.default.fileExists(atPath: store + ".wal"))
    let checkpoint = try DocshProcess.run(["-s", store, "--checkpoint"], home: home)
    #expect(checkpoint.status == 0, "\(checkpoint.errors)")
    #expect(checkpoint.output == "Folded the save log into \(store).\n")
    #expect(!FileManager.default.fileExists(atPath: store + ".wal"))
    #expect(try SaveLogProcessTests.pythonReads(store) == ["Notes/a=alpha", "Notes/b=beta"])
    let again = try DocshProcess.run(["-s", store, "--checkpoint"], home: home)
    #expect(again.output == "Nothing to fold: the store file holds every save.\n")
  }

  @Test func aLogOfAnotherFileIsReportedOnStandardErrorAndNotApplied() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let home = folder.path("home")
    let keepLog = ["DOCSH_FOLD": "never"]
    let seed = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Notes; new Notes/a alpha"], home: home)
    #expect(seed.status == 0, "\(seed.errors)")
    let backup = try Data(contentsOf: URL(fileURLWithPath: store))
    let logged = try DocshProcess.run(
      ["-s", store, "-c", "new Notes/b beta"], environment: keepLog, home: home)
    #expect(logged.status == 0)
    // Another store file put in its place: its own saves, another epoch.
    let other = folder.path("other.json")
    let made = try DocshProcess.run(["-s", other, "-c", "mkdir Else"], home: home)
    #expect(made.status == 0)
    try Data(contentsOf: URL(fileURLWithPath: other)).write(to: URL(fileURLWithPath: store))
    let listed = try DocshProcess.run(["-s", store, "-c", "ls"], environment: keepLog, home: home)
    #expect(listed.status == 0)
    #expect(listed.output.hasPrefix("Else/ "), "\(listed.output)")
    #expect(!listed.output.contains("Notes"), "\(listed.output)")
    #expect(listed.errors.contains("warning: \(store).wal holds saves of another version"))
    // The backup put back is the file the log extends: the log applies to it again.
    try backup.write(to: URL(fileURLWithPath: store))
    let restored = try DocshProcess.run(
      ["-s", store, "-c", "cat Notes/b"], environment: keepLog, home: home)
    #expect(restored.output == "beta", "\(restored.output) \(restored.errors)")
    #expect(restored.errors.isEmpty)
  }
}
