import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Starts the pager program with output on its standard input.
protocol PagerLaunching {
  /// Runs `command` with `output` on its standard input; returns its exit status.
  /// - Throws: ``SpawnFailure`` when it cannot be started.
  func run(_ command: String, input output: [UInt8]) throws(SpawnFailure) -> Int32
}

/// The real launcher: `/bin/sh -c COMMAND`, as git runs its pager.
struct ShellPagerLauncher: PagerLaunching {
  func run(_ command: String, input output: [UInt8]) throws(SpawnFailure) -> Int32 {
    try ChildProcess.runShell(command, name: "docsh-pager", input: output)
  }
}

/// Shows a command's output through a pager (`$DOCSH_PAGER`, else `$PAGER`, else
/// `less -FRX`) when it does not fit on the screen above the prompt. Only the REPL pages,
/// and only the commands whose configuration says ``CommandConfiguration/pagesOutput``.
struct Pager: Paging {
  /// The pager's shell command.
  let command: String
  /// The terminal's height in rows, read when output is ready (the window may have changed).
  let rows: () -> Int
  /// What starts the pager program.
  let launcher: any PagerLaunching

  /// A pager running `command` through `launcher`, for a screen `rows` high.
  init(
    command: String, rows: @escaping () -> Int,
    launcher: any PagerLaunching = ShellPagerLauncher()
  ) {
    self.command = command
    self.rows = rows
    self.launcher = launcher
  }

  /// The default when neither variable is set: quit when it fits (`-F`), keep colors
  /// (`-R`), leave the text on the screen afterwards (`-X`).
  static let defaultCommand = "less -FRX"

  /// The pager the environment asks for; `nil` when it turns paging off (`cat` or an empty
  /// value, as git takes them) or when the default `less` is not installed.
  static func fromEnvironment(_ environment: [String: String], rows: @escaping () -> Int) -> Pager?
  {
    for key in ["DOCSH_PAGER", "PAGER"] {
      guard let value = environment[key] else { continue }
      let command = value.trimmingBlanks()
      guard !command.isEmpty, command != "cat" else { return nil }
      return Pager(command: command, rows: rows)
    }
    guard isInstalled("less", path: environment["PATH"] ?? "/usr/bin:/bin") else { return nil }
    return Pager(command: defaultCommand, rows: rows)
  }

  /// The number of rows of the terminal on `fileDescriptor`; else `$LINES`; else 24.
  static func terminalRows(of fileDescriptor: Int32, environment: [String: String]) -> Int {
    var size = winsize()
    if ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 {
      return Int(size.ws_row)
    }
    if let lines = environment["LINES"].flatMap({ Int($0) }), lines > 0 { return lines }
    return 24
  }

  /// How many rows `output` takes: its lines, counting a last line without a newline.
  static func lineCount(of output: [UInt8]) -> Int {
    var count = 0
    for byte in output where byte == UInt8(ascii: "\n") { count += 1 }
    if let last = output.last, last != UInt8(ascii: "\n") { count += 1 }
    return count
  }

  /// Whether `output` needs the pager: it would not fit above the prompt's line.
  func needsPaging(_ output: [UInt8]) -> Bool {
    Pager.lineCount(of: output) > max(1, rows() - 1)
  }

  /// Shows `output`: through the pager when it is long, else written to `screen`. When
  /// the pager cannot run (not found: status 126 or 127), the output is written to `screen`
  /// after all and `errors` says why, so that nothing is lost.
  func show(_ output: [UInt8], on screen: TextOutput, errors: TextOutput) {
    guard needsPaging(output) else {
      screen.write(bytes: output)
      return
    }
    screen.flush()
    let status: Int32
    do {
      status = try launcher.run(command, input: output)
    } catch {
      errors.writeLine("docsh: cannot start the pager (\(command)): \(error)")
      screen.write(bytes: output)
      return
    }
    if status == 126 || status == 127 {
      errors.writeLine(
        "docsh: the pager (\(command)) could not run; set DOCSH_PAGER or use --no-pager")
      screen.write(bytes: output)
    }
  }

  private static func isInstalled(_ program: String, path: String) -> Bool {
    path.split(separator: ":").contains { folder in
      access("\(folder)/\(program)", X_OK) == 0
    }
  }
}
