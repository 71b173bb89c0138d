import Testing

@testable import DocsKit

@Suite struct ObjectIDTests {
  @Test func parsesAndFormatsTheCanonicalForm() throws {
    let text = "0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2a11"
    let id = try #require(ObjectID(text))
    #expect(id.description == text)
    #expect(id.high == 0x0b0e_5b0e_3f0c_4b8e && id.low == 0x9a43_6f1f_5f0d_2a11)
    #expect(ObjectID(text.uppercased()) == id)
  }

  @Test(arguments: [
    "", "0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2a1", "0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2a111",
    "0b0e5b0e3f0c-4b8e-9a43-6f1f5f0d2a11-", "0b0e5b0g-3f0c-4b8e-9a43-6f1f5f0d2a11",
    "0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2a1 ", "0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2a1@",
    "0b0e5b0e_3f0c_4b8e_9a43_6f1f5f0d2a11", "0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2aé",
  ])
  func refusesWhatIsNotAUUID(text: String) {
    #expect(ObjectID(text) == nil)
  }

  @Test func randomIDsAreVersionFourAndDistinct() {
    var generator = SystemRandomNumberGenerator()
    // A context's default source and any generator make version-4 ids; two sources differ.
    let source = RandomIDSource()
    let other = RandomIDSource()
    let ids =
      (0..<5_000).map { _ in source.make() } + (0..<5_000).map { _ in other.make() }
      + (0..<100).map { _ in ObjectID.random(using: &generator) }
    #expect(Set(ids).count == 10_100)
    for id in ids {
      let text = Array(id.description)
      #expect(text[14] == "4")
      #expect("89ab".contains(text[19]))
    }
  }
}
