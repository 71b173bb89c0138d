import Testing

@testable import DocsKit

/// The document file's front matter as YAML tools write and read it: tags as a YAML list,
/// the forms Obsidian's properties and Hugo write read back, keys docsh does not know kept
/// byte for byte, and a note with front matter of its own read into one header.
@Suite struct YAMLFrontMatterTests {
  let id = ObjectID(high: 0x1b4e_28ba_2fa1_11d2, low: 0x883f_0016_d3cc_a427)
  let modified = Timestamp(millisecondsSince1970: 1_796_167_740_123)
  let start = "---\nid: 1b4e28ba-2fa1-11d2-883f-0016d3cca427\nmodified: 2026-12-01T23:29:00.123Z\n"

  func tags(_ words: String...) throws -> [DocsKit.Tag] {
    try words.map { try DocsKit.Tag($0) }.normalizedTags()
  }

  @Test func tagsAreWrittenAsABlockListQuotingWhatYAMLWouldNotReadAsAString() throws {
    let file = DocumentFile.render(
      id: id, modified: modified, tags: try tags("café", "2026", "yes", "project/docsh"),
      content: "x")
    #expect(
      String(decoding: file, as: UTF8.self)
        == start + "tags:\n  - \"2026\"\n  - café\n  - project/docsh\n  - \"yes\"\n---\nx")
  }

  @Test(arguments: [
    "tags:\n  - café\n  - groceries\n", "tags: [café, groceries]\n",
    "tags: ['café', \"groceries\"]\n",
    "tags: café groceries\n", "tags: café, groceries\n", "tags:\n- café\n- \"groceries\"\n",
  ])
  func everyFormOfAListReadsAsTheTags(entry: String) throws {
    #expect(
      DocumentFile.parse(Array((start + entry + "---\nbody").utf8))
        == .docsh(id: id, modified: modified, content: "body", tags: try tags("café", "groceries")))
  }

  @Test func keysDocshDoesNotKnowAreKeptAsTheContentsOwnFrontMatter() throws {
    let others = "aliases: [Einkauf]\ncssclasses:\n  - wide\ntitle: \"A: b\"\r\n"
    let file = Array((start + "tags: [a]\n" + others + "---\n# List\n").utf8)
    let content = "---\n" + others + "---\n# List\n"
    #expect(
      DocumentFile.parse(file)
        == .docsh(id: id, modified: modified, content: content, tags: try tags("a")))
    // Written back: one header, the other keys after docsh's, byte for byte.
    let again = DocumentFile.render(
      id: id, modified: modified, tags: try tags("a"), content: content)
    #expect(
      String(decoding: again, as: UTF8.self) == start + "tags:\n  - a\n" + others + "---\n# List\n")
  }

  @Test(arguments: [
    // What cannot share the header stays after it, so that it comes back exactly.
    "---\ntags: [x]\n---\nbody", "---\nid: 1\n---\n", "---\n---\n", "---\r\ntitle: x\r\n---\r\n",
    "---\ntitle: x\n---", "---\njust words\n---\n", "---\n  indented: first\n---\n",
  ])
  func aContentWhoseFrontMatterCannotShareTheHeaderKeepsItsOwn(content: String) throws {
    let file = DocumentFile.render(id: id, modified: modified, content: content)
    #expect(String(decoding: file, as: UTF8.self) == start + "---\n" + content)
    #expect(DocumentFile.parse(file) == .docsh(id: id, modified: modified, content: content))
  }

  @Test func aNoteWithItsOwnTagsComesInWithThemAndWithoutThem() throws {
    let note =
      "---\ntitle: Hello\ntags:\n  - project/docsh\n  - urgent\nlayout: post\n---\n# Hello\n"
    #expect(
      DocumentFile.parse(Array(note.utf8))
        == .plain(
          content: "---\ntitle: Hello\nlayout: post\n---\n# Hello\n",
          tags: try tags("project/docsh", "urgent")))
    #expect(
      DocumentFile.parse(Array("---\ntags: [a]\n---\nbody".utf8))
        == .plain(content: "body", tags: try tags("a")))
    // A tag docsh cannot hold: the whole file is the content, as before.
    #expect(
      DocumentFile.parse(Array("---\ntags: [a b]\n---\nbody".utf8))
        == .plain(content: "---\ntags: [a b]\n---\nbody"))
  }
}
