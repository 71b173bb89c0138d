// libFuzzer entry for docsh's command tokenizer; built by fuzz/run.sh with swiftc directly
// (see ../shared/notes/atomic-save.md for why not through SwiftPM).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenizer(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
  if let commands = try? Tokenizer.commands(in: line) {
    for command in commands { _ = command.words.map(Tokenizer.escapeWord) }
  }
  _ = Tokenizer.unescapePartialWord(line)
  _ = CompletionContext(lineBeforeCursor: line, wordBeingCompleted: String(line.suffix(8)))
  return 0
}
