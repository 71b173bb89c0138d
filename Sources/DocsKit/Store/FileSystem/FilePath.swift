/// The folder and the last component of the file-system path `path`, split at its last
/// slash byte as `dirname(1)` and `basename(1)` would: `("/a", "b")` for `/a/b`, `("/", "b")`
/// for `/b`, `(".", "b")` for a bare `b`. The one place docsh takes a path apart.
public func splitPath(_ path: String) -> (folder: String, name: String) {
  guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
  let folder = String(path[..<slash])
  return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
}
