import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a program of the user's (the editor, the pager) while docsh waits for it.
///
/// The command is the user's own setting, run by `/bin/sh -c` as git does; arguments reach
/// it as `"$@"`, never spliced into the shell text. While it runs, docsh ignores Ctrl-C so
/// that only the program sees it; the program gets SIGINT, SIGQUIT and SIGPIPE at their
/// defaults whatever docsh does with them.
enum ChildProcess {
  /// Why the program could not be started.
  /// Runs `/bin/sh -c SCRIPT NAME ARGUMENTS…` and waits for it.
  /// - Parameters:
  ///   - script: the shell text (the user's `$EDITOR "$@"`, `$PAGER`).
  ///   - name: the program's `$0`, shown in the shell's own messages.
  ///   - arguments: the positional parameters, `"$@"` in `script`.
  ///   - input: bytes written to the program's standard input through a pipe; `nil` leaves
  ///     standard input as it is. A program that stops reading early (a pager quit before
  ///     the end) is no error: the rest is dropped.
  /// - Returns: the exit status, or 128 + N when a signal N ended it.
  /// - Throws: ``SpawnFailure`` when the program cannot be started.
  static func runShell(
    _ script: String, name: String, arguments: [String] = [], input: [UInt8]? = nil
  ) throws(SpawnFailure) -> Int32 {
    let words = ["/bin/sh", "-c", script, name] + arguments
    var pipeEnds: [Int32] = [-1, -1]
    if input != nil {
      // Both ends close on exec (no other child inherits them); dup2 clears the flag on
      // the child's standard input.
      let ends = try ChildSpawn.makePipe().get()
      pipeEnds = [ends.read, ends.write]
    }
    defer { for end in pipeEnds where end >= 0 { close(end) } }

    var ignore = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    var previousInterrupt = sigaction()
    var previousPipe = sigaction()
    sigaction(SIGINT, &ignore, &previousInterrupt)
    sigaction(SIGPIPE, &ignore, &previousPipe)
    defer {
      sigaction(SIGINT, &previousInterrupt, nil)
      sigaction(SIGPIPE, &previousPipe, nil)
    }

    let inputEnd = pipeEnds[0]
    let child = try ChildSpawn.start("/bin/sh", words: words) { actions in
      if inputEnd >= 0 { posix_spawn_file_actions_adddup2(&actions, inputEnd, 0) }
    }.get()
    if let input {
      close(pipeEnds[0])
      pipeEnds[0] = -1
      // A program that stops reading early (a pager quit) is no error: the rest is dropped.
      try? SystemFileSystem().writeFully(pipeEnds[1], input)
      close(pipeEnds[1])
      pipeEnds[1] = -1
    }
    return (try? ChildSpawn.waitForExit(of: child).get()) ?? -1
  }
}
