import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// New documents' rows are written many to a statement (``StoreIndex/DocumentBatch``), each
/// with its row id given before: the rows, their full text, links and tags agree with the
/// file whatever the number of documents.
@Suite struct IndexBatchTests {
  /// More new documents than one statement writes (64, then the rest), some tagged, some
  /// linking, saved into an indexed store whose full text is built: the next open trusts
  /// the index, its check agrees row for row, and its tags, links and search find them.
  @Test(arguments: [1, 64, 150])
  func aSaveOfNewDocumentsIsIndexedRowForRow(count: Int) throws {
    let harness = try Harness("batch\(count)")
    // A file of version 1 takes no save log: the save writes it whole, and the index is
    // brought in step document by document.
    try """
    {"format":"docsh-store","version":1,"generation":1,"categories":[
    {"id":"ffffffff-0000-4000-8000-000000000001","name":"Cat 0","documents":[
    {"id":"ffffffff-0000-4000-8000-000000000002","name":"Doc 0.0","content":"x","size":1,"modified":"2026-11-29T14:53:00.000Z"}]},
    {"id":"ffffffff-0000-4000-8000-000000000003","name":"Cat 1","documents":[]}]}
    """.write(toFile: harness.storePath, atomically: true, encoding: .utf8)
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let first = try #require(context.category(named: "Cat 0"))
    let target = try #require(try context.document(named: "Doc 0.0", in: first.id))
    _ = try context.backlinks(to: target.id)  // builds the full text and the links
    let category = try #require(context.category(named: "Cat 1"))
    for n in 0..<count {
      let linking = n % 10 == 0
      let made = try context.createDocument(
        named: "New \(n)", in: category.id,
        content: linking ? "see [[Cat 0/Doc 0.0]] zebra" : "plain \(n)")
      if n % 7 == 0 { try context.tag([made.id], with: [try DocsKit.Tag("batch")]) }
    }
    try context.save()
    let (reopened, store) = try harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .trusted)
    let tagged = try reopened.documents(taggedWith: [try DocsKit.Tag("batch")])
    #expect(tagged.count == (count + 6) / 7)
    let linking = (count + 9) / 10
    #expect(try reopened.backlinks(to: target.id).count == linking)
    #expect(try reopened.search(try SearchQuery("zebra"), limit: nil).count == linking)
    #expect(reopened.check().index == .trusted)
    #expect(try Answers(reopened) == Answers(harness.openContext()))
  }
}
