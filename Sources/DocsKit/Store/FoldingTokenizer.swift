import CSQLite

#if canImport(Glibc)
  import Glibc
#endif

// The `docsh` FTS5 tokenizer: unicode61 (created with the arguments given to `docsh`, as
// FTS5's own porter wraps its parent), then ``TextFolding`` on every token, so that accents
// fold in every script, not only Latin; and, in documents, each ASCII token's English
// (Porter) stem as a colocated token marked with a leading U+0001 when it differs from the
// token (a token that is its own stem stands for itself: half the extra postings of
// marking every token), so that one table answers both exact and stemmed words. Part of the SQLite layer
// with SQLite.swift; SystemSQLite registers it on every connection it opens.
//
// In a query, a string starting with U+0001 asks for stems: its tokens come back marked.
// Porter is FTS5's own, reached through a tokenizer (`docsh_word`) that hands it its whole
// input as one token.

/// An FTS5 token callback (`xToken`).
typealias FTS5TokenCallback = @convention(c) (
  UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32
) -> Int32

/// The name the index's schema and the Swift-side tokenizer use.
let foldingTokenizerName = "docsh"

/// The byte that marks a stem, in the index and in query strings.
let stemMarker: UInt8 = 0x01

/// unicode61's and porter's methods, found once per connection: the tokenizer's context.
private final class Parents {
  let unicode61: (userData: UnsafeMutableRawPointer?, methods: fts5_tokenizer)
  let porter: (userData: UnsafeMutableRawPointer?, methods: fts5_tokenizer)

  init(
    unicode61: (UnsafeMutableRawPointer?, fts5_tokenizer),
    porter: (UnsafeMutableRawPointer?, fts5_tokenizer)
  ) {
    self.unicode61 = unicode61
    self.porter = porter
  }
}

/// One `docsh` tokenizer: the unicode61 and porter instances it uses.
private final class FoldingTokenizerInstance {
  let words: OpaquePointer
  let wordMethods: fts5_tokenizer
  let stemmer: OpaquePointer
  let stemmerMethods: fts5_tokenizer

  init(
    words: OpaquePointer, wordMethods: fts5_tokenizer, stemmer: OpaquePointer,
    stemmerMethods: fts5_tokenizer
  ) {
    self.words = words
    self.wordMethods = wordMethods
    self.stemmer = stemmer
    self.stemmerMethods = stemmerMethods
  }

  deinit {
    wordMethods.xDelete?(words)
    stemmerMethods.xDelete?(stemmer)
  }
}

/// What one call of xTokenize hands unicode61's callback: the caller's callback, what it
/// wants, and buffers for folded tokens and stems.
private final class TokenizeCall {
  let context: UnsafeMutableRawPointer?
  let token: FTS5TokenCallback
  let instance: FoldingTokenizerInstance
  /// Documents get stems beside their tokens.
  let addsStems: Bool
  /// A query string marked as stems: every token marked.
  let marksTokens: Bool
  var buffer: [UInt8] = []
  /// The marked stem being made: U+0001, then the stem (grown as needed).
  private var stem: UnsafeMutablePointer<UInt8>
  private var stemCapacity = 128
  private var stemCount = 0

  init(
    context: UnsafeMutableRawPointer?, token: @escaping FTS5TokenCallback,
    instance: FoldingTokenizerInstance, addsStems: Bool, marksTokens: Bool
  ) {
    self.context = context
    self.token = token
    self.instance = instance
    self.addsStems = addsStems
    self.marksTokens = marksTokens
    buffer.reserveCapacity(64)
    stem = .allocate(capacity: stemCapacity)
  }

  deinit { stem.deallocate() }

  /// Starts the marked stem with `bytes` after the marker.
  private func setStem(_ bytes: UnsafeRawBufferPointer) {
    if bytes.count + 1 > stemCapacity {
      stem.deallocate()
      stemCapacity = bytes.count * 2 + 1
      stem = .allocate(capacity: stemCapacity)
    }
    stem[0] = stemMarker
    if let base = bytes.baseAddress, bytes.count > 0 {
      (stem + 1).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }
    stemCount = bytes.count + 1
  }

  /// Hands on one folded token (and its stem).
  func emit(_ bytes: UnsafeRawBufferPointer, flags: Int32, start: Int32, end: Int32) -> Int32 {
    if marksTokens {
      setStem(bytes)
      return sendStem(flags: flags, start: start, end: end)
    }
    let code = token(
      context, flags, bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
      Int32(bytes.count), start, end)
    guard code == SQLITE_OK, addsStems, bytes.count >= 3, !bytes.contains(where: { $0 >= 0x80 })
    else { return code }
    stemCount = 0
    let stemmed =
      instance.stemmerMethods.xTokenize?(
        instance.stemmer, Unmanaged.passUnretained(self).toOpaque(), docsh_fts5_tokenize_document,
        bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count)
      ) { context, _, token, length, _, _ in
        guard let context, let token else { return SQLITE_OK }
        let call = Unmanaged<TokenizeCall>.fromOpaque(context).takeUnretainedValue()
        call.setStem(UnsafeRawBufferPointer(start: token, count: Int(length)))
        return SQLITE_OK
      } ?? SQLITE_ERROR
    guard stemmed == SQLITE_OK, stemCount > 0 else { return stemmed }
    if stemCount - 1 == bytes.count, let base = bytes.baseAddress,
      memcmp(stem + 1, base, bytes.count) == 0
    {
      return SQLITE_OK
    }
    return sendStem(flags: flags | docsh_fts5_token_colocated, start: start, end: end)
  }

  private func sendStem(flags: Int32, start: Int32, end: Int32) -> Int32 {
    UnsafeRawPointer(stem).withMemoryRebound(to: CChar.self, capacity: stemCount) { bytes in
      token(context, flags, bytes, Int32(stemCount), start, end)
    }
  }

}

/// Registers the `docsh` tokenizer (and `docsh_word`, which it stems through) and the
/// `docsh_rank` function on `connection`.
/// - Throws: ``SQLiteError`` when FTS5, unicode61 or porter is missing.
func registerSearchExtensions(_ connection: OpaquePointer) throws(SQLiteError) {
  guard let api = docsh_fts5_api(connection), api.pointee.iVersion >= 2,
    let find = api.pointee.xFindTokenizer, let createTokenizer = api.pointee.xCreateTokenizer
  else {
    throw SQLiteError(operation: "fts5", code: SQLITE_ERROR, message: "FTS5 is not available")
  }
  // docsh_word: the whole input is one token (porter's parent, to stem one word).
  var word = fts5_tokenizer(
    xCreate: { _, _, _, instance in
      instance?.pointee = OpaquePointer(bitPattern: 1)
      return SQLITE_OK
    },
    xDelete: { _ in },
    xTokenize: { _, context, _, text, length, token in
      token?(context, 0, text, length, 0, length) ?? SQLITE_ERROR
    })
  var code = createTokenizer(api, "docsh_word", nil, &word, nil)
  guard code == SQLITE_OK else {
    throw SQLiteError(operation: "fts5", code: code, message: "cannot register docsh_word")
  }
  var unicode61Data: UnsafeMutableRawPointer?
  var unicode61 = fts5_tokenizer()
  var porterData: UnsafeMutableRawPointer?
  var porter = fts5_tokenizer()
  code = find(api, "unicode61", &unicode61Data, &unicode61)
  if code == SQLITE_OK { code = find(api, "porter", &porterData, &porter) }
  guard code == SQLITE_OK else {
    throw SQLiteError(operation: "fts5", code: code, message: "no unicode61 or porter tokenizer")
  }
  let parents = Unmanaged.passRetained(
    Parents(unicode61: (unicode61Data, unicode61), porter: (porterData, porter)))
  var folding = fts5_tokenizer(
    xCreate: { context, arguments, count, instance in
      guard let context, let instance else { return SQLITE_ERROR }
      let parents = Unmanaged<Parents>.fromOpaque(context).takeUnretainedValue()
      guard let createWords = parents.unicode61.methods.xCreate,
        let createStemmer = parents.porter.methods.xCreate
      else { return SQLITE_ERROR }
      var words: OpaquePointer?
      var code = createWords(parents.unicode61.userData, arguments, count, &words)
      guard code == SQLITE_OK, let words else { return code == SQLITE_OK ? SQLITE_ERROR : code }
      var stemmer: OpaquePointer?
      code = "docsh_word".withCString { name -> Int32 in
        var arguments: [UnsafePointer<CChar>?] = [name]
        return createStemmer(parents.porter.userData, &arguments, 1, &stemmer)
      }
      guard code == SQLITE_OK, let stemmer else {
        parents.unicode61.methods.xDelete?(words)
        return code == SQLITE_OK ? SQLITE_ERROR : code
      }
      let folding = FoldingTokenizerInstance(
        words: words, wordMethods: parents.unicode61.methods, stemmer: stemmer,
        stemmerMethods: parents.porter.methods)
      instance.pointee = OpaquePointer(Unmanaged.passRetained(folding).toOpaque())
      return SQLITE_OK
    },
    xDelete: { instance in
      guard let instance else { return }
      Unmanaged<FoldingTokenizerInstance>.fromOpaque(UnsafeRawPointer(instance)).release()
    },
    xTokenize: { instance, context, flags, text, length, token in
      guard let instance, let token else { return SQLITE_ERROR }
      let folding = Unmanaged<FoldingTokenizerInstance>.fromOpaque(UnsafeRawPointer(instance))
        .takeUnretainedValue()
      guard let tokenize = folding.wordMethods.xTokenize else { return SQLITE_ERROR }
      var text = text
      var length = length
      let isQuery = flags & docsh_fts5_tokenize_query != 0
      var marksTokens = false
      if isQuery, length > 0, let first = text, UInt8(bitPattern: first.pointee) == stemMarker {
        marksTokens = true
        text = first + 1
        length -= 1
      }
      let call = TokenizeCall(
        context: context, token: token, instance: folding,
        addsStems: flags & docsh_fts5_tokenize_document != 0, marksTokens: marksTokens)
      return withExtendedLifetime(call) {
        tokenize(
          folding.words, Unmanaged.passUnretained(call).toOpaque(), flags, text, length
        ) { context, flags, token, length, start, end in
          guard let context, let token else { return SQLITE_OK }
          let call = Unmanaged<TokenizeCall>.fromOpaque(context).takeUnretainedValue()
          let bytes = UnsafeRawBufferPointer(start: token, count: Int(length))
          // The fast path: ASCII tokens are as unicode61 made them.
          if !bytes.contains(where: { $0 >= 0x80 })
            || !TextFolding.fold(bytes, into: &call.buffer)
          {
            return call.emit(bytes, flags: flags, start: start, end: end)
          }
          guard !call.buffer.isEmpty else { return SQLITE_OK }
          let folded = call.buffer
          return folded.withUnsafeBytes { folded in
            call.emit(folded, flags: flags, start: start, end: end)
          }
        }
      }
    })
  code = createTokenizer(api, foldingTokenizerName, parents.toOpaque(), &folding) { context in
    guard let context else { return }
    Unmanaged<Parents>.fromOpaque(context).release()
  }
  guard code == SQLITE_OK else {
    parents.release()
    throw SQLiteError(operation: "fts5", code: code, message: "cannot register the tokenizer")
  }
  try registerRankFunction(api)
}
