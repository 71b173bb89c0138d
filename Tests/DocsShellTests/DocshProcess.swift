import DocsTestSupport
import Foundation

/// Runs the real `docsh` binary built beside the tests, with a clean environment.
struct DocshProcess {
  struct Result {
    var status: Int32
    var output: String
    var errors: String
  }

  /// The `docsh` executable of this build.
  static let executable: URL = {
    if let path = ProcessInfo.processInfo.environment["DOCSH_BINARY"] {
      return URL(fileURLWithPath: path)
    }
    // The test bundle lives in the build's products folder, beside docsh.
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("docsh")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      folder.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: ".build/debug/docsh")
  }()

  /// A temporary folder removed when the value goes away.
  typealias Folder = TemporaryFolder

  /// Runs docsh with `arguments`, `input` on standard input and `environment` added to a
  /// minimal one (HOME in `home`, no colors, UTC); through `wrapper` when given (a program
  /// and its arguments before docsh's path: `/usr/bin/time -f %M -o FILE`).
  static func run(
    _ arguments: [String], input: String = "", environment: [String: String] = [:], home: String,
    wrapper: [String] = []
  ) throws -> Result {
    let process = Process()
    if let program = wrapper.first {
      process.executableURL = URL(fileURLWithPath: program)
      process.arguments = wrapper.dropFirst() + [executable.path] + arguments
    } else {
      process.executableURL = executable
      process.arguments = arguments
    }
    var base = [
      "HOME": home, "PATH": "/usr/bin:/bin", "TZ": "UTC", "LANG": "C.UTF-8", "NO_COLOR": "1",
      // A run folds the save log before it ends, so that a test reads the file at once
      // (the background fold has tests of its own).
      "DOCSH_FOLD": "foreground",
    ]
    base.merge(environment) { $1 }
    process.environment = base
    // Files, not pipes: nothing can fill up and block while the process runs.
    let scratch = try Folder()
    let inputURL = scratch.url.appendingPathComponent("stdin")
    let outputURL = scratch.url.appendingPathComponent("stdout")
    let errorURL = scratch.url.appendingPathComponent("stderr")
    try Data(input.utf8).write(to: inputURL)
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    process.standardInput = try FileHandle(forReadingFrom: inputURL)
    process.standardOutput = try FileHandle(forWritingTo: outputURL)
    process.standardError = try FileHandle(forWritingTo: errorURL)
    try process.run()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus,
      output: try String(contentsOf: outputURL, encoding: .utf8),
      errors: try String(contentsOf: errorURL, encoding: .utf8))
  }
}
