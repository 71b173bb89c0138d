// libFuzzer entry for docsh's store reader: writes the input to a file, opens it as a store
// and reads every content the way a session would, then checks it. Built by fuzz/run.sh with
// swiftc directly (see ../shared/notes/atomic-save.md for why not through SwiftPM).

#if canImport(Glibc)
  import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreReader(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
  let folder = String(cString: getenv("DOCSH_FUZZ_DIR") ?? strdup("/tmp"))
  let path = "\(folder)/docsh-fuzz-\(getpid()).json"
  let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard file >= 0 else { return 0 }
  if let data, size > 0 { _ = write(file, data, size) }
  close(file)
  defer { unlink(path) }
  let store = JSONStore(path: path)
  guard let context = try? Context(store: store) else {
    _ = store.check()
    return 0
  }
  for category in context.categories() {
    for document in (try? context.documents(in: category.id)) ?? [] {
      _ = try? context.content(of: document.id)
    }
  }
  _ = store.check()
  return 0
}
