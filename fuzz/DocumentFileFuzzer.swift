// libFuzzer entry for the files of a repository clone: reads the input as a document file, as
// a category record and as a file name, and checks that whatever reads renders back to the
// same value. Built by fuzz/run.sh with swiftc directly, from the model and Sync's codec
// files alone (see ../shared/notes/atomic-save.md for why not through SwiftPM).

#if canImport(Glibc)
  import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocumentFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []

  switch DocumentFile.parse(input) {
  case .docsh(let id, let modified, let content, _):
    let again = DocumentFile.parse(
      DocumentFile.render(id: id, modified: modified, content: content))
    guard case .docsh(id, modified, let contentAgain, _) = again,
      contentAgain.utf8.elementsEqual(content.utf8)
    else { fail("a document file does not survive render and parse: \(again)") }
  case .plain(let content, let tags):
    // All of the file, unless its own front matter gave tags (its `tags:` entry left out).
    guard content.utf8.elementsEqual(input) || input.starts(with: Array("---".utf8)) else {
      fail("a plain file's content is not its bytes")
    }
    // Any text at all is a content docsh may write: it must come back exactly too.
    let id = ObjectID(high: 0x1b4e_28ba_2fa1_41d2, low: 0x883f_0016_d3cc_a427)
    let modified = Timestamp(millisecondsSince1970: 1_796_167_740_123)
    let written = DocumentFile.parse(
      DocumentFile.render(id: id, modified: modified, tags: tags, content: content))
    guard case .docsh(id, modified, let contentAgain, let tagsAgain) = written,
      contentAgain.utf8.elementsEqual(content.utf8), tagsAgain == tags
    else { fail("a content does not survive render and parse: \(written)") }
  case .invalid:
    break
  }

  if case .category(let id, let name, let fanOut) = CategoryFile.parse(input) {
    let again = CategoryFile.parse(CategoryFile.render(id: id, name: name, fanOut: fanOut))
    guard case .category(id, let nameAgain, fanOut) = again,
      nameAgain.text.utf8.elementsEqual(name.text.utf8)
    else { fail("a category record does not survive render and parse: \(again)") }
  }

  if size <= 1024 {
    if let name = FileNameEncoding.decode(bytes: input) {
      checkRoundTrip(of: name)
    }
    if let text = String(validating: input, as: UTF8.self), let name = try? Name(text) {
      checkRoundTrip(of: name)
    }
  }
  return 0
}

/// Checks that `name`'s file name decodes to it and holds nothing a file system refuses.
private func checkRoundTrip(of name: Name) {
  let fileName = FileNameEncoding.encode(name)
  guard let decoded = FileNameEncoding.decode(fileName),
    decoded.text.utf8.elementsEqual(name.text.utf8)
  else { fail("\(name.text) encodes as \(fileName), which does not decode to it") }
  let bytes = Array(fileName.utf8)
  guard !bytes.contains(where: { Array(":\\*?\"<>|/".utf8).contains($0) }),
    bytes.first != UInt8(ascii: "."),
    bytes.last != UInt8(ascii: "."), bytes.last != UInt8(ascii: " ")
  else { fail("\(name.text) encodes as \(fileName), which file systems refuse") }
}

private func fail(_ message: String) -> Never {
  fputs("DocumentFileFuzzer: \(message)\n", stderr)
  abort()
}
