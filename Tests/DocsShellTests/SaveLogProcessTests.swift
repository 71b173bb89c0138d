import DocsKit
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The save log as users meet it through the binary: saves go to `STORE.wal`, the last
/// session to leave folds it before it returns (a `-c` or script on a store of up to 64 MiB),
/// and then the store file alone holds every save, as any JSON tool reads it.
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

  @Test func whenACommandReturnsTheFileHoldsEverySaveAsPythonReadsItWithNoWait() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let home = folder.path("home")
    // No DOCSH_FOLD seam: each run that leaves last folds before it returns.
    let plain = ["DOCSH_FOLD": ""]
    let first = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Notes; new Notes/a alpha"], environment: plain, home: home)
    #expect(first.status == 0, "\(first.errors)")
    var expected = ["Notes/a=alpha"]
    for (name, text) in [("b", "beta"), ("c", "gamma"), ("d", "delta")] {
      let run = try DocshProcess.run(
        ["-s", store, "-c", "new Notes/\(name) \(text)"], environment: plain, home: home)
      #expect(run.status == 0, "\(run.errors)")
      expected.append("Notes/\(name)=\(text)")
      // Read at once, as `docsh -c … && jq … store.json` does.
      #expect(try SaveLogProcessTests.pythonReads(store) == expected.sorted())
      #expect(SaveLogProcessTests.logIsEmpty(store), "the log was folded")
    }
    let edit = try DocshProcess.run(
      ["-s", store, "-c", "append Notes/a more"], environment: plain, home: home)
    #expect(edit.status == 0, "\(edit.errors)")
    #expect(
      try SaveLogProcessTests.pythonReads(store) == [
        "Notes/a=alpha|more|", "Notes/b=beta", "Notes/c=gamma", "Notes/d=delta",
      ])
    // The backup is the file before the last fold.
    #expect(
      try SaveLogProcessTests.pythonReads(store + ".bak") == [
        "Notes/a=alpha", "Notes/b=beta", "Notes/c=gamma", "Notes/d=delta",
      ])
    #expect(SaveLogProcessTests.processes(naming: store) == 0, "nothing outlives the command")
  }

  /// Whether the log beside `store` holds nothing: absent, or kept empty by a fold.
  static func logIsEmpty(_ store: String) -> Bool {
    let attributes = try? FileManager.default.attributesOfItem(atPath: store + ".wal")
    return attributes.map { ($0[.size] as? Int) == 0 } ?? true
  }

  /// How many processes have `store` among the words of their command line.
  static func processes(naming store: String) -> Int {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.filter { entry in
      guard entry.allSatisfy(\.isNumber),
        let bytes = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
      else { return false }
      return bytes.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == store }
    }.count
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
    #expect(SaveLogProcessTests.logIsEmpty(store))
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
    // The backup put back was written by another program since the log began: the log is
    // not applied to it (the user put it back to go back to it), and nothing is lost.
    try backup.write(to: URL(fileURLWithPath: store))
    let restored = try DocshProcess.run(
      ["-s", store, "-c", "ls Notes"], environment: keepLog, home: home)
    #expect(restored.output.hasPrefix("a "), "\(restored.output) \(restored.errors)")
    #expect(!restored.output.contains("b "), "\(restored.output)")
    #expect(restored.errors.contains("was written by another program since its save log began"))
  }
}
