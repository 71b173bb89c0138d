import DocsKit
import Foundation
import Testing

/// Eight real docsh processes add documents to one store at once, as cron jobs and scripts
/// beside an open session do, each document a `docsh -c` run of its own: every document
/// lands, in the store and in its index, and no run has to give up its index.
@Suite struct ConcurrentIndexLoadTests {
  static let workers = 8
  static let documentsEach = 40

  @Test func eightProcessesAddingDocumentsAtOnceNeverLoseTheIndex() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let home = folder.path("home")
    // The store exists, its index does not: the workers' first runs create it at once.
    let seed = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Load"], environment: ["XDG_CACHE_HOME": folder.path("seed")],
      home: home)
    #expect(seed.status == 0, "\(seed.errors)")

    // Each worker runs its documents one `docsh -c` at a time. A run the store's lock turns
    // away ("another process is saving the store right now; try again") wrote nothing and
    // is run again, as its message says (up to 200 times); any other failure stops the worker.
    let worker = """
      n=0
      refused=0
      while [ "$n" -lt \(Self.documentsEach) ]; do
        if "$DOCSH" -s "$STORE" -c "new Load/Doc-$W-$n written by $W as $n" 2>"$OUT/last.$W"
        then
          cat "$OUT/last.$W" >>"$OUT/errors.$W"
          n=$((n + 1))
        elif [ "$refused" -lt 200 ] &&
          grep -q 'another process is saving the store right now' "$OUT/last.$W"
        then
          refused=$((refused + 1))
          grep -v 'another process is saving the store right now' "$OUT/last.$W" \\
            >>"$OUT/errors.$W"
        else
          cat "$OUT/last.$W" >>"$OUT/errors.$W"
          exit 1
        fi
      done
      """
    var processes: [Process] = []
    for number in 0..<Self.workers {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", worker]
      process.environment = [
        "HOME": home, "PATH": "/usr/bin:/bin", "TZ": "UTC", "LANG": "C.UTF-8", "NO_COLOR": "1",
        // A run folds the save log before it ends, so that a test reads the file at once
        // (the background fold has tests of its own).
        "DOCSH_FOLD": "foreground",
        "DOCSH": DocshProcess.executable.path, "STORE": store, "OUT": folder.url.path,
        "W": "\(number)",
        // Eight runs at once on a loaded machine may wait long for each other's index
        // writes: the test is that none gives its index up, not how fast the machine is.
        "DOCSH_TEST_INDEX_WAIT_MS": "600000",
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      processes.append(process)
    }
    for process in processes { try process.run() }
    for process in processes { process.waitUntilExit() }

    for (number, process) in processes.enumerated() {
      let errors =
        (try? String(contentsOfFile: folder.path("errors.\(number)"), encoding: .utf8)) ?? ""
      #expect(process.terminationStatus == 0, "worker \(number): \(errors)")
      // Not one index warning, nor anything else, on any run's standard error.
      #expect(errors == "", "worker \(number)")
    }

    // Every document is in the store file…
    let context = try Context(store: JSONStore(path: store))
    let category = try #require(context.category(named: "Load"))
    var expected: [String: String] = [:]
    for number in 0..<Self.workers {
      for index in 0..<Self.documentsEach {
        expected["Doc-\(number)-\(index)"] = "written by \(number) as \(index)"
      }
    }
    let documents = try context.documents(in: category.id)
    #expect(Set(documents.map(\.name.text)) == Set(expected.keys))
    for document in documents {
      #expect(try context.content(of: document.id) == expected[document.name.text])
    }
    // …and the index describes it, row for row (`check` compares every one).
    let check = try DocshProcess.run(["-s", store, "-c", "check"], home: home)
    #expect(check.status == 0, "\(check.errors)")
    #expect(check.output.contains("  index: the index agrees with the store"), "\(check.output)")
    #expect(check.errors == "")
    let listing = try DocshProcess.run(["-s", store, "-c", "ls Load"], home: home)
    #expect(listing.errors == "")
    #expect(listing.output.split(separator: "\n").count == expected.count)
  }
}
