#if canImport(Glibc)
  import Glibc
#endif

/// Which files the processes of this machine hold open, as `/proc` shows (only the
/// processes this user may look into: the ones that could be working in the user's
/// repository).
enum ProcessTable {
  /// Whether any process has `path` open (`false` when `path` cannot be resolved).
  static func isOpen(_ path: String, fileSystem: any FileSystem) -> Bool {
    guard let resolved = try? fileSystem.resolvedPath(path),  // gone: held by nobody
      let processes = opendir("/proc")
    else { return false }
    defer { closedir(processes) }
    while let entry = readdir(processes) {
      let pid = name(of: entry)
      guard !pid.isEmpty, pid.allSatisfy(\.isNumber) else { continue }
      let folder = "/proc/" + pid + "/fd"
      guard let descriptors = opendir(folder) else { continue }
      defer { closedir(descriptors) }
      while let descriptor = readdir(descriptors) {
        let number = name(of: descriptor)
        guard number != ".", number != ".." else { continue }
        if link(folder + "/" + number) == resolved { return true }
      }
    }
    return false
  }

  private static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafePointer(to: entry.pointee.d_name) { pointer in
      pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
    }
  }

  private static func link(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
