import DocsKit
import Foundation
import Testing

/// Two docsh processes edit and save one store at the same time: every change either one
/// reported saved is in the final file.
@Suite struct TwoSessionTests {
  @Test func interleavedSavesOfTwoProcessesAllLand() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let seed = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Shared; new Shared/log start"], home: folder.path("home"))
    #expect(seed.status == 0)
    let rounds = 150
    let processes = try Self.runAtOnce(
      ["A", "B"].map { name in
        var script = "mkdir \(name)\nsave\n"
        for index in 0..<rounds {
          script += "new \(name)/doc-\(index) written by \(name) in round \(index)\n"
          script += "save\n"
        }
        return (name, store, script)
      }, in: folder)

    let context = try Context(store: JSONStore(path: store))
    for entry in processes {
      let errors = try String(contentsOf: entry.errors, encoding: .utf8)
      #expect(entry.process.terminationStatus == 0, "\(entry.name): \(errors)")
      let category = try #require(context.category(named: entry.name))
      let names = Set(try context.documents(in: category.id).map(\.name.text))
      #expect(names == Set((0..<rounds).map { "doc-\($0)" }), "\(entry.name) lost documents")
      for index in [0, rounds - 1] {
        let document = try #require(try context.document(named: "doc-\(index)", in: category.id))
        #expect(
          try context.content(of: document.id) == "written by \(entry.name) in round \(index)")
      }
    }
    #expect(JSONStore(path: store).check().isSound)
  }

  /// Eight processes append to one document at once, saving after every line: their
  /// contents merge by lines, so every line lands, once, and each process's lines in the
  /// order it appended them (a save puts its line right after what it loaded).
  @Test func eightProcessesAppendingToOneDocumentKeepEveryLine() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let seed = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Shared; new Shared/log start"], home: folder.path("home"))
    #expect(seed.status == 0, "\(seed.errors)")
    let writers = (1...8).map { "w\($0)" }
    let rounds = 30
    let processes = try Self.runAtOnce(
      writers.map { name in
        let script = (0..<rounds).map { "append Shared/log \(name) line \($0)\nsave\n" }
        return (name, store, script.joined())
      }, in: folder)

    for entry in processes {
      let errors = try String(contentsOf: entry.errors, encoding: .utf8)
      #expect(entry.process.terminationStatus == 0, "\(entry.name): \(errors)")
      // Eight processes at once may find the index cache busy past its wait: one then works
      // from the store file alone and says so, which loses nothing. Nothing else may be said.
      let other = errors.split(separator: "\n").filter {
        !($0.hasPrefix("docsh: warning: cannot use the index cache ")
          && $0.hasSuffix("(database is locked); working from the store file alone"))
      }
      #expect(other.isEmpty, "\(entry.name): \(errors)")
    }
    let context = try Context(store: JSONStore(path: store))
    let shared = try #require(context.category(named: "Shared"))
    let log = try #require(try context.document(named: "log", in: shared.id))
    let content = try context.content(of: log.id)
    #expect(content.hasPrefix("start\n") && content.hasSuffix("\n"))
    let lines = content.split(separator: "\n").dropFirst().map(String.init)
    #expect(lines.count == writers.count * rounds)
    for name in writers {
      let own = lines.filter { $0.hasPrefix(name + " ") }
      #expect(own == (0..<rounds).map { "\(name) line \($0)" }, "\(name)'s lines")
    }
    #expect(JSONStore(path: store).check().isSound)
  }

  /// One process saves through a symbolic link, the other through the file it names, at the
  /// same time: they share one lock, every save lands in the target, the link stays a link.
  @Test func savesThroughALinkAndThroughItsTargetAllLandInTheTarget() throws {
    let folder = try DocshProcess.Folder()
    try FileManager.default.createDirectory(
      atPath: folder.path("cloud"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: folder.path("dotfiles"), withIntermediateDirectories: true)
    let target = folder.path("cloud/notes.json")
    let link = folder.path("dotfiles/store.json")
    try FileManager.default.createSymbolicLink(
      atPath: link, withDestinationPath: "../cloud/notes.json")
    // A link to no file yet: the first save creates the target.
    let seed = try DocshProcess.run(["-s", link, "-c", "mkdir Shared"], home: folder.path("home"))
    #expect(seed.status == 0, "\(seed.errors)")
    let rounds = 40
    let processes = try Self.runAtOnce(
      [("L", link), ("T", target)].map { name, path in
        var script = "mkdir \(name)\nsave\n"
        for index in 0..<rounds { script += "new \(name)/doc-\(index) \(name) \(index)\nsave\n" }
        return (name, path, script)
      }, in: folder)
    // The last run to leave handed the fold to a child (which keeps the old file aside as
    // .bak): waited for before this process opens the store, which would keep it waiting.
    FoldClaim.waitForRest(storePath: target)

    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../cloud/notes.json")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path("dotfiles")) == ["store.json"]
    )
    let context = try Context(store: JSONStore(path: target))
    #expect(context.category(named: "Shared") != nil)
    for entry in processes {
      let errors = try String(contentsOf: entry.errors, encoding: .utf8)
      #expect(entry.process.terminationStatus == 0, "\(entry.name): \(errors)")
      let category = try #require(context.category(named: entry.name))
      let names = Set(try context.documents(in: category.id).map(\.name.text))
      #expect(names == Set((0..<rounds).map { "doc-\($0)" }), "\(entry.name) lost documents")
    }
    #expect(FileManager.default.fileExists(atPath: target + ".bak"))
    #expect(JSONStore(path: target).check().isSound)
  }

  /// Starts one docsh per `(name, store, script)` at once, each running its script on its
  /// store, and waits for all of them; each with the file its standard error went to.
  static func runAtOnce(
    _ sessions: [(name: String, store: String, script: String)], in folder: DocshProcess.Folder
  ) throws -> [(name: String, process: Process, errors: URL)] {
    var processes: [(name: String, process: Process, errors: URL)] = []
    for session in sessions {
      let scriptPath = folder.path("\(session.name).docsh")
      try session.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
      let errors = folder.url.appendingPathComponent("\(session.name).err")
      _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
      let process = Process()
      process.executableURL = DocshProcess.executable
      process.arguments = ["-s", session.store, scriptPath]
      // A wait for the index no loaded machine runs out of: eight processes at once bet on
      // no machine's speed (their index updates queue behind each other).
      process.environment = [
        "HOME": folder.path("home"), "PATH": "/usr/bin:/bin",
        "DOCSH_TEST_INDEX_WAIT_MS": "600000",
      ]
      process.standardError = try FileHandle(forWritingTo: errors)
      process.standardOutput = FileHandle.nullDevice
      processes.append((session.name, process, errors))
    }
    for entry in processes { try entry.process.run() }
    for entry in processes { entry.process.waitUntilExit() }
    return processes
  }
}
