import DocsKit

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
  /// - Throws: ``EditorError`` when the editor fails or leaves text that is not UTF-8.
  func edit(_ text: String) throws(EditorError) -> String {
    var template = Array("\(temporaryRoot())/docsh-XXXXXX".utf8CString)
    guard let folderPointer = mkdtemp(&template) else { throw .noTemporaryFolder(errno: errno) }
    let folder = String(cString: folderPointer)
    let path = folder + "/document.txt"
    defer {
      unlink(path)
      rmdir(folder)
    }
    try write(text, to: path)
    let status = try run(path)
    guard status == 0 else { throw .failed(command: command, status: status) }
    return try read(path)
  }

  private func temporaryRoot() -> String {
    if let root = getenv("TMPDIR").map({ String(cString: $0) }), root.hasPrefix("/") {
      return root
    }
    return "/tmp"
  }

  private func write(_ text: String, to path: String) throws(EditorError) {
    let file = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard file >= 0 else { throw .cannotWrite(path: path, errno: errno) }
    defer { close(file) }
    do {
      try SystemFileSystem().writeFully(file, Array(text.utf8))
    } catch {
      throw .cannotWrite(path: path, errno: error.code)
    }
  }

  private func read(_ path: String) throws(EditorError) -> String {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { throw .cannotRead(errno: errno) }
    defer { close(file) }
    let bytes: [UInt8]
    do {
      bytes = try SystemFileSystem().readToEnd(file)
    } catch {
      throw .cannotRead(errno: error.code)
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
    return text
  }

  /// Runs `/bin/sh -c 'COMMAND "$@"' docsh-editor PATH` and waits; returns its exit status.
  private func run(_ path: String) throws(EditorError) -> Int32 {
    do {
      return try ChildProcess.runShell(command + " \"$@\"", name: "docsh-editor", arguments: [path])
    } catch {
      throw .cannotStart(errno: error.code)
    }
  }
}
