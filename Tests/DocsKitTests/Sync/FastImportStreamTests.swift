import Testing

@testable import DocsKit

/// The fast-import stream of a commit handed over in pieces, as the commit of a whole store
/// is written to git's input: the same bytes as the stream made at once, never one piece
/// holding every file.
@Suite struct FastImportStreamTests {
  /// A commit that puts `count` files of 100 bytes each, and deletes and renames one.
  func commit(files count: Int) -> FastImportCommit {
    var changes: [FastImportCommit.Change] = (0..<count).map { index in
      .put("Category/Document \(index).md", Array(repeating: 0x61, count: 100))
    }
    changes += [.delete("Old/Gone.md"), .rename("From", "To \"quoted\"")]
    return FastImportCommit(
      ref: "refs/docsh/build", committer: "Someone <someone@example.org> 0 +0000",
      message: "Save: 200 documents", parent: CommitID(String(repeating: "a", count: 40)),
      changes: changes)
  }

  @Test(arguments: [false, true])
  func thePiecesMakeTheStreamMadeAtOnce(afterHeader: Bool) {
    let commit = commit(files: 200)
    var joined: [UInt8] = []
    commit.write(afterHeader: afterHeader, piecesOf: 1_000) { (piece: [UInt8]) -> Void in
      joined += piece
    }
    #expect(joined == commit.stream(afterHeader: afterHeader))
    #expect(joined.starts(with: FastImportCommit.streamHeader) == !afterHeader)
  }

  @Test func changesMadeAsTheyAreWrittenComeFirstAsIfTheyWereTheCommitsOwn() {
    let whole = commit(files: 200)
    var rest = whole
    rest.changes = Array(whole.changes.dropFirst(150))
    var made = 0
    let leading = whole.changes.prefix(150).lazy.map { change -> FastImportCommit.Change in
      made += 1
      return change
    }
    var joined: [UInt8] = []
    rest.write(afterHeader: true, piecesOf: 1_000, leading: leading) {
      (piece: [UInt8]) -> Void in joined += piece
    }
    #expect(made == 150)
    #expect(joined == whole.stream(afterHeader: true))
  }

  @Test(arguments: [3, 400])
  func aMessageWrittenAsItsLinesAreMadeIsTheMessageMadeAtOnce(lines count: Int) {
    let lines = (0..<count).map { "Trailer: line \($0) é" }
    let head = "3 new: Work/\n\n"
    var whole = commit(files: 3)
    whole.message = head + lines.map { $0 + "\n" }.joined()
    let inPieces = FastImportCommit(
      ref: whole.ref, committer: whole.committer,
      message: FastImportCommit.Message(
        head: head, lines: AnySequence(lines),
        linesSize: lines.reduce(0) { $0 + $1.utf8.count + 1 }),
      parent: whole.parent, changes: whole.changes)
    var joined: [UInt8] = []
    inPieces.write(piecesOf: 1_000) { (piece: [UInt8]) -> Void in joined += piece }
    #expect(joined == whole.stream())
  }

  @Test func aStoresChangesMakeTheSameMessageInPieces() {
    var changes = StoreChanges()
    changes.categories = [.init(kind: .new, name: "Work")]
    changes.documents = (0..<300).map { index in
      StoreChanges.DocumentChange(
        id: ObjectID(high: 1, low: UInt64(index)), kind: index == 7 ? .deleted : .new,
        category: "Work", name: "Plan \(index)", size: index, fingerprint: "abc\(index)")
    }
    let message = changes.messageInPieces(prefix: "Sync: ", storePath: "notes/store.json")
    let text = message.head + message.lines.map { $0 + "\n" }.joined()
    #expect(text == changes.message(prefix: "Sync: ", storePath: "notes/store.json"))
    #expect(message.linesSize == text.utf8.count - message.head.utf8.count)
  }

  @Test func noPieceHoldsMoreThanItsSizeAndOneFile() {
    let commit = commit(files: 200)
    var pieces: [Int] = []
    commit.write(piecesOf: 1_000) { (piece: [UInt8]) -> Void in pieces.append(piece.count) }
    // A file's change is about 150 bytes: a piece ends within one of the size asked for.
    #expect(pieces.count > 20)
    #expect(pieces.allSatisfy { $0 > 0 && $0 < 1_000 + 200 })
    #expect(pieces.reduce(0, +) == commit.stream().count)
  }

  @Test func aFailingSinkStopsTheStream() {
    struct Refused: Error {}
    var handed = 0
    #expect(throws: Refused.self) {
      try commit(files: 200).write(piecesOf: 1_000) { (_: [UInt8]) throws(Refused) -> Void in
        handed += 1
        throw Refused()
      }
    }
    #expect(handed == 1)
  }

  @Test func aMessageOfAPiecesSizeOrMoreIsHandedOverInPieces() {
    var commit = commit(files: 3)
    commit.message = String(repeating: "Trailer: a line\n", count: 400)
    var pieces: [[UInt8]] = []
    commit.write(piecesOf: 1_000) { (piece: [UInt8]) -> Void in pieces.append(piece) }
    // The message's 6,400 bytes go over in pieces of 1,000, none copied into a piece of
    // commands.
    let message = Array(commit.message.utf8)
    #expect(pieces.contains(Array(message[0..<1_000])))
    #expect(pieces.contains(Array(message[6_000...])))
    #expect(pieces.allSatisfy { $0.count < 1_000 + 200 })
    #expect(Array(pieces.joined()) == commit.stream())
  }
}
