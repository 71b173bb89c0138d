#if canImport(Glibc)
  import Glibc
#endif

extension Interpreter {
  /// Runs the REPL's startup file (`docshrc`) before the first prompt.
  ///
  /// The file runs like a script: nobody is asked anything (a confirmation fails unless
  /// `-f`), and the first failing line stops it, reported as `FILE:LINE: error: …` on
  /// standard error — later lines may depend on it (`cd Work` then `rm -f Draft`), so they
  /// are skipped. Whatever happens, the REPL starts afterwards; `exit` in the file only ends
  /// the file. A missing file is no error.
  func runStartupFile(at path: String) {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else {
      if errno != ENOENT {
        session.errors.writeLine(
          "docsh: \(session.displayed(path)): \(String(cString: strerror(errno)))")
      }
      return
    }
    defer { close(file) }
    let wasInteractive = session.settings.isInteractive
    session.settings.isInteractive = false
    defer {
      session.settings.isInteractive = wasInteractive
      session.wantsToExit = false
    }
    var reader = PlainLineReader(fileDescriptor: file)
    let failure = runScript(&reader)
    session.output.flush()
    if let (line, error) = failure {
      session.errors.writeLine(session.displayed("\(path):\(line): error: \(error)"))
    }
  }
}
