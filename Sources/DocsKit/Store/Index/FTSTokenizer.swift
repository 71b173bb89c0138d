// The index's tokenizer as DocsKit calls it from Swift. No C here: the function pointers
// come from `SystemSQLite.makeTokenizer` (SQLite.swift, the one file that imports CSQLite),
// and the result codes and flags by the names SQLite.swift gives them.

/// An FTS5 token callback (`xToken`).
typealias FTS5TokenCallback =
  @convention(c) (
    UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32
  ) -> Int32

/// An FTS5 tokenizer's `xTokenize`: an instance, the callback's context, flags, the text
/// and its length in bytes, the callback.
typealias FTS5TokenizeFunction =
  @convention(c) (
    OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32,
    FTS5TokenCallback?
  ) -> Int32

/// The name the index's schema and the Swift-side tokenizer use.
let foldingTokenizerName = "docsh"

/// The byte that marks a stem, in the index and in query strings.
let stemMarker: UInt8 = 0x01

/// One token as FTS5 indexes it: the folded text and where it lies in the input (UTF-8).
struct FoldedToken: Hashable, Sendable {
  /// The token after case and diacritic folding.
  var text: String
  /// Its byte range in the text tokenized.
  var range: Range<Int>
  /// Its English stem, when the index holds one beside it (it differs from `text`).
  var stem: String? = nil
}

/// The index's own `docsh remove_diacritics 2` tokenizer, called directly, so that what
/// DocsKit matches, counts and highlights in Swift is exactly what the index holds.
final class FTSTokenizer {
  private let instance: OpaquePointer
  private let tokenizeFunction: FTS5TokenizeFunction
  private let deleteFunction: (@convention(c) (OpaquePointer?) -> Void)?

  /// The tokenizer `instance`, called through `tokenize` and deleted by `delete`.
  init(
    instance: OpaquePointer, tokenize: @escaping FTS5TokenizeFunction,
    delete: (@convention(c) (OpaquePointer?) -> Void)?
  ) {
    self.instance = instance
    self.tokenizeFunction = tokenize
    self.deleteFunction = delete
  }

  deinit {
    deleteFunction?(instance)
  }

  /// The tokens of `text`, in order; `nil` when the tokenizer failed.
  func tokens(of text: String) -> [FoldedToken]? {
    final class Sink {
      var tokens: [FoldedToken] = []
    }
    let sink = Sink()
    var text = text
    let code = text.withUTF8 { bytes -> Int32 in
      let context = Unmanaged.passUnretained(sink).toOpaque()
      return bytes.withMemoryRebound(to: CChar.self) { characters in
        tokenizeFunction(
          instance, context, FTS5Flag.tokenizeDocument, characters.baseAddress,
          Int32(characters.count)
        ) { context, flags, token, length, start, end in
          guard let context, let token else { return SQLiteResult.ok }
          let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
          let folded = UnsafeRawBufferPointer(start: token, count: Int(length))
          if flags & FTS5Flag.tokenColocated != 0, folded.first == stemMarker,
            !sink.tokens.isEmpty
          {
            sink.tokens[sink.tokens.count - 1].stem = String(
              decoding: folded.dropFirst(), as: UTF8.self)
            return SQLiteResult.ok
          }
          sink.tokens.append(
            FoldedToken(
              text: String(decoding: folded, as: UTF8.self), range: Int(start)..<Int(end)))
          return SQLiteResult.ok
        }
      }
    }
    return code == SQLiteResult.ok ? sink.tokens : nil
  }
}
