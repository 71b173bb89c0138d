import Foundation
import Testing

/// `search` through the real binary: the form of a word as typed weighs more than its other
/// forms inside the score (no wall above them), and `a OR b` ranks as `a b`, with the index
/// (saved documents) and without (unsaved ones, matched in Swift).
@Suite struct SearchRankingTests {
  let folder: DocshProcess.Folder
  let store: String

  init() throws {
    folder = try DocshProcess.Folder()
    store = folder.path("store.json")
  }

  func docsh(_ script: String) throws -> DocshProcess.Result {
    try DocshProcess.run(["-s", store, "-c", script], home: folder.path("home"))
  }

  /// The names `search` lists, in order.
  func names(_ query: String, unsaved setup: String = "") throws -> [String] {
    let result = try docsh((setup.isEmpty ? "" : setup + "\n") + "search --json " + query)
    #expect(result.status == 0, "\(result.errors)")
    let hits = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]
    return (hits ?? []).compactMap { $0["name"] as? String }
  }

  /// The example: two stemmed matches do not outrank the one document holding the
  /// word as typed.
  @Test func theWordAsTypedRanksAboveItsOtherForms() throws {
    let setup = try docsh(
      """
      mkdir Work
      new Work/Release We are planning the release for Friday
      new Work/Roadmap The plans for next year, planned in May
      """)
    #expect(setup.status == 0, "\(setup.errors)")
    #expect(try names("planning") == ["Release", "Roadmap"])
    #expect(try names("plans") == ["Roadmap", "Release"])
    #expect(try names("planned") == ["Roadmap", "Release"])
    // Unsaved, both are matched in Swift: the same order.
    let unsaved = "write Work/Release We are planning the release for Friday"
    #expect(try names("planning", unsaved: unsaved) == ["Release", "Roadmap"])
  }

  /// Documents alike but for the form they use: the one holding the form as typed first,
  /// whichever form is typed.
  @Test func theFormAsTypedDecidesBetweenDocumentsOtherwiseAlike() throws {
    let setup = try docsh(
      """
      mkdir Work
      new Work/A we are planning the trip
      new Work/B we have planned the trip
      """)
    #expect(setup.status == 0, "\(setup.errors)")
    #expect(try names("planning trip") == ["A", "B"])
    #expect(try names("planned trip") == ["B", "A"])
    #expect(
      try names("planned trip", unsaved: "write Work/A we are planning the trip") == ["B", "A"])
  }

  /// A short document holding other forms of every searched word is more relevant than a
  /// long one holding one of the words as typed: the typed form is a signal, not a wall.
  /// (Documents holding neither word keep both words' IDF above 0.)
  @Test func otherFormsOfEveryWordOutrankOneTypedWordInALongDocument() throws {
    let long = (0..<60).map { "word\($0)" }.joined(separator: " ")
    let setup = try docsh(
      """
      mkdir Notes
      new Notes/Long \(long) planning \(long)
      new Notes/Short the plans of our meetings
      new Notes/Other nothing to find
      new Notes/More nothing here either
      new Notes/Most still nothing
      new Notes/Last not a thing
      """)
    #expect(setup.status == 0, "\(setup.errors)")
    for unsaved in ["", "write Notes/Long \(long) planning \(long)"] {
      #expect(try names("planning meeting", unsaved: unsaved) == ["Short", "Long"], "\(unsaved)")
    }
  }

  /// `a OR b` finds and ranks what `a b` does, other forms included.
  @Test func alternativesRankAsPlainWords() throws {
    let setup = try docsh(
      """
      mkdir Work
      new Work/One the wings were heated at high speed
      new Work/Two heating of the wing
      new Work/Three aerodynamic heating, heated wings, swept wings
      new Work/Four nothing about it
      new Work/Five speed of the body
      """)
    #expect(setup.status == 0, "\(setup.errors)")
    let plain = try names("heating wing speed")
    #expect(Set(plain) == ["One", "Two", "Three", "Five"])
    #expect(try names("heating OR wing OR speed") == plain)
    let unsaved = "append Work/Four heated"
    let plainUnsaved = try names("heating wing speed", unsaved: unsaved)
    #expect(plainUnsaved.contains("Four"))
    #expect(try names("heating OR wing OR speed", unsaved: unsaved) == plainUnsaved)
  }
}
