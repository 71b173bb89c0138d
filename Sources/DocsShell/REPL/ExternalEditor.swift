#if canImport(Glibc)
  import Glibc
#endif

/// Opens text in the user's editor (`$VISUAL`, else `$EDITOR`) and returns what was saved.
///
/// The text goes into a generic file name inside a private 0700 folder, removed afterwards
/// whatever happens. The editor runs through ``ChildProcess``: by `/bin/sh` as git does,
/// the file reaching it as an argument (`"$@"`), Ctrl-C seen only by the editor.
struct ExternalEditor {
  /// The editor command, as the environment gives it.
  let command: String

  /// The editor named by the environment, if any.
  static func fromEnvironment(_ environment: [String: String]) -> ExternalEditor? {
    for key in ["VISUAL", "EDITOR"] {
      if let value = environment[key], !value.trimmingBlanks().isEmpty {
        return ExternalEditor(command: value)
      }
    }
    return nil
  }

  /// Lets the user edit `text`; returns the edited text.
  /// - Throws: ``ShellError/input(_:)`` when the editor fails or leaves text that is not UTF-8.
  func edit(_ text: String) throws(ShellError) -> String {
    var template = Array("\(temporaryRoot())/docsh-XXXXXX".utf8CString)
    guard let folderPointer = mkdtemp(&template) else {
      throw .input("cannot create a private temporary folder: \(String(cString: strerror(errno)))")
    }
    let folder = String(cString: folderPointer)
    let path = folder + "/document.txt"
    defer {
      unlink(path)
      rmdir(folder)
    }
    try write(text, to: path)
    let status = try run(path)
    guard status == 0 else {
      throw .input("the editor (\(command)) exited with status \(status); nothing changed")
    }
    return try read(path)
  }

  private func temporaryRoot() -> String {
    if let root = getenv("TMPDIR").map({ String(cString: $0) }), root.hasPrefix("/") {
      return root
    }
    return "/tmp"
  }

  private func write(_ text: String, to path: String) throws(ShellError) {
    let file = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard file >= 0 else {
      throw .input("cannot create \(path): \(String(cString: strerror(errno)))")
    }
    defer { close(file) }
    var bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeMutableBytes {
        Glibc.write(file, $0.baseAddress.map { $0 + done }, $0.count - done)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        throw .input("cannot write \(path): \(String(cString: strerror(errno)))")
      }
      done += count
    }
  }

  private func read(_ path: String) throws(ShellError) -> String {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else {
      throw .input("cannot read the edited text: \(String(cString: strerror(errno)))")
    }
    defer { close(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else {
        throw .input("cannot read the edited text: \(String(cString: strerror(errno)))")
      }
      if count == 0 { break }
      bytes.append(contentsOf: chunk[0..<count])
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .input("the edited text is not valid UTF-8; nothing changed")
    }
    return text
  }

  /// Runs `/bin/sh -c 'COMMAND "$@"' docsh-editor PATH` and waits; returns its exit status.
  private func run(_ path: String) throws(ShellError) -> Int32 {
    do {
      return try ChildProcess.runShell(command + " \"$@\"", name: "docsh-editor", arguments: [path])
    } catch {
      throw .input("cannot start the editor: \(error)")
    }
  }
}
