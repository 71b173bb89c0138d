// The `docsh` FTS5 tokenizer: unicode61 (created with the arguments given to `docsh`, as
// FTS5's own porter wraps its parent), then ``TextFolding`` on every token, so that accents
// fold in every script, not only Latin; and, in documents, each ASCII token's English
// (Porter) stem as a colocated token marked with a leading U+0001 when it differs from the
// token (a token that is its own stem stands for itself: half the extra postings of
// marking every token), so that one table answers both exact and stemmed words.
// SystemSQLite registers it on every connection it opens (SQLite.swift, which holds the
// C calls); this file holds what one xTokenize call does, in Swift alone.
//
// Words of ASCII letters and digits are tokenized here, as unicode61 would (lower-cased,
// nothing to fold), straight from the input's bytes: only runs of bytes holding something
// else go to unicode61, each on its own. That is exact because ASCII punctuation and blanks
// always separate words in unicode61 (with no `tokenchars` or `separators` given: with any
// argument but `remove_diacritics`, all of the text goes to unicode61), so a run between
// two of them holds the same tokens tokenized alone as within the whole text.
//
// In a query, a string starting with U+0001 asks for stems: its tokens come back marked.
// Porter is FTS5's own, reached through a tokenizer (`docsh_word`) that hands it its whole
// input as one token, and its stems are kept in a ``StemCache``.

/// What one call of xTokenize needs: the caller's callback, what it wants, and buffers for
/// lower-cased and folded tokens and for stems.
final class TokenizeCall {
  let context: UnsafeMutableRawPointer?
  let token: FTS5TokenCallback
  let instance: FoldingTokenizerInstance
  let flags: Int32
  /// Documents get stems beside their tokens.
  let addsStems: Bool
  /// A query string marked as stems: every token marked.
  let marksTokens: Bool
  var folded: [UInt8] = []
  /// Where the run unicode61 is tokenizing starts in the whole text.
  var runOffset: Int32 = 0
  /// An ASCII token lower-cased.
  private var lowered = TokenBuffer(capacity: 64)
  /// The marked stem being made: U+0001, then the stem.
  private var stem = TokenBuffer(capacity: 128)
  private var stemCount = 0

  init(
    context: UnsafeMutableRawPointer?, token: @escaping FTS5TokenCallback,
    instance: FoldingTokenizerInstance, flags: Int32, marksTokens: Bool
  ) {
    self.context = context
    self.token = token
    self.instance = instance
    self.flags = flags
    addsStems = flags & FTS5Flag.tokenizeDocument != 0
    self.marksTokens = marksTokens
  }

  deinit {
    lowered.deallocate()
    stem.deallocate()
  }

  /// `docsh`'s xTokenize: tokenizes `length` bytes at `text` for `instance`, handing each
  /// token to `token` with `context`; a query string that starts with ``stemMarker`` asks
  /// for its tokens marked as stems.
  static func tokenize(
    _ text: UnsafePointer<CChar>?, length: Int32, flags: Int32,
    instance: FoldingTokenizerInstance, context: UnsafeMutableRawPointer?,
    token: @escaping FTS5TokenCallback
  ) -> Int32 {
    guard let text, length > 0 else { return SQLiteResult.ok }
    var start = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
    var count = Int(length)
    var marksTokens = false
    if flags & FTS5Flag.tokenizeQuery != 0, start.pointee == stemMarker {
      marksTokens = true
      start += 1
      count -= 1
    }
    let call = TokenizeCall(
      context: context, token: token, instance: instance, flags: flags,
      marksTokens: marksTokens)
    return withExtendedLifetime(call) { call.tokenize(start, count: count) }
  }

  /// Tokenizes `text`: words of ASCII letters and digits here, the runs between ASCII
  /// separators that hold other bytes by unicode61.
  func tokenize(_ text: UnsafePointer<UInt8>, count: Int) -> Int32 {
    guard instance.tokenizesASCII else { return tokenizeRun(text, count: count, offset: 0) }
    let kinds = UnsafePointer(instance.byteKinds.table)
    var position = 0
    while position < count {
      guard kinds[Int(text[position])] != TokenByteKinds.separator else {
        position += 1
        continue
      }
      let start = position
      // The kinds of the word's bytes or-ed: their bits say which were met.
      var met: UInt8 = 0
      while position < count {
        let kind = kinds[Int(text[position])]
        if kind == TokenByteKinds.separator { break }
        met |= kind
        position += 1
      }
      let code =
        met & TokenByteKinds.nonASCII == TokenByteKinds.nonASCII
        ? tokenizeRun(text + start, count: position - start, offset: start)
        : emitASCII(
          text + start, count: position - start, start: start,
          lowering: met & TokenByteKinds.uppercase == TokenByteKinds.uppercase)
      guard code == SQLiteResult.ok else { return code }
    }
    return SQLiteResult.ok
  }

  /// Hands on an ASCII word, lower-cased as unicode61 does.
  private func emitASCII(
    _ word: UnsafePointer<UInt8>, count: Int, start: Int, lowering: Bool
  ) -> Int32 {
    var bytes = word
    if lowering {
      lowered.reserve(count)
      for index in 0..<count {
        let byte = word[index]
        lowered.bytes[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
      }
      bytes = UnsafePointer(lowered.bytes)
    }
    return emit(
      UnsafeRawBufferPointer(start: bytes, count: count), isASCII: true, start: Int32(start),
      end: Int32(start + count))
  }

  /// Has unicode61 tokenize `count` bytes at `text`, which start at `offset` in the whole
  /// text, and hands on its tokens folded.
  private func tokenizeRun(_ text: UnsafePointer<UInt8>, count: Int, offset: Int) -> Int32 {
    guard let tokenize = instance.tokenizeWords else { return SQLiteResult.error }
    runOffset = Int32(offset)
    return UnsafeRawPointer(text).withMemoryRebound(to: CChar.self, capacity: count) { text in
      tokenize(
        instance.words, Unmanaged.passUnretained(self).toOpaque(), flags, text, Int32(count)
      ) { context, _, token, length, start, end in
        guard let context, let token else { return SQLiteResult.ok }
        let call = Unmanaged<TokenizeCall>.fromOpaque(context).takeUnretainedValue()
        return call.emitFolded(
          UnsafeRawBufferPointer(start: token, count: Int(length)), start: start, end: end)
      }
    }
  }

  /// Hands on one of unicode61's tokens, folded.
  private func emitFolded(_ bytes: UnsafeRawBufferPointer, start: Int32, end: Int32) -> Int32 {
    let start = start + runOffset
    let end = end + runOffset
    // The fast path: ASCII tokens are as unicode61 made them.
    if !bytes.contains(where: { $0 >= 0x80 }) {
      return emit(bytes, isASCII: true, start: start, end: end)
    }
    guard TextFolding.fold(bytes, into: &folded) else {
      return emit(bytes, isASCII: false, start: start, end: end)
    }
    guard !folded.isEmpty else { return SQLiteResult.ok }
    let isASCII = !folded.contains { $0 >= 0x80 }
    return folded.withUnsafeBytes { folded in
      emit(folded, isASCII: isASCII, start: start, end: end)
    }
  }

  /// Hands on one folded token (and its stem).
  private func emit(
    _ bytes: UnsafeRawBufferPointer, isASCII: Bool, start: Int32, end: Int32
  ) -> Int32 {
    if marksTokens {
      setStem(bytes)
      return sendStem(flags: 0, start: start, end: end)
    }
    let code = token(
      context, 0, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
      start, end)
    guard code == SQLiteResult.ok, addsStems, bytes.count >= 3, isASCII else { return code }
    switch instance.stems.find(bytes) {
    case .same:
      return SQLiteResult.ok
    case .stem(let found):
      setStem(found)
      return sendStem(flags: FTS5Flag.tokenColocated, start: start, end: end)
    case .missing:
      break
    }
    stemCount = 0
    let stemmed = porterStem(bytes)
    guard stemmed == SQLiteResult.ok else { return stemmed }
    let found = UnsafeRawBufferPointer(start: stem.bytes + 1, count: max(stemCount - 1, 0))
    guard stemCount > 0,
      found.count != bytes.count || !found.elementsEqual(bytes)
    else {
      instance.stems.insert(bytes, stem: nil)
      return SQLiteResult.ok
    }
    instance.stems.insert(bytes, stem: found)
    return sendStem(flags: FTS5Flag.tokenColocated, start: start, end: end)
  }

  /// Has FTS5's Porter stemmer stem `bytes` into the marked stem.
  private func porterStem(_ bytes: UnsafeRawBufferPointer) -> Int32 {
    instance.tokenizeStem?(
      instance.stemmer, Unmanaged.passUnretained(self).toOpaque(), FTS5Flag.tokenizeDocument,
      bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count)
    ) { context, _, token, length, _, _ in
      guard let context, let token else { return SQLiteResult.ok }
      let call = Unmanaged<TokenizeCall>.fromOpaque(context).takeUnretainedValue()
      call.setStem(UnsafeRawBufferPointer(start: token, count: Int(length)))
      return SQLiteResult.ok
    } ?? SQLiteResult.error
  }

  /// Starts the marked stem with `bytes` after the marker.
  private func setStem(_ bytes: UnsafeRawBufferPointer) {
    stem.reserve(bytes.count + 1)
    stem.bytes[0] = stemMarker
    if let base = bytes.baseAddress, bytes.count > 0 {
      (stem.bytes + 1).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }
    stemCount = bytes.count + 1
  }

  private func sendStem(flags: Int32, start: Int32, end: Int32) -> Int32 {
    UnsafeRawPointer(stem.bytes).withMemoryRebound(to: CChar.self, capacity: stemCount) {
      bytes in
      token(context, flags, bytes, Int32(stemCount), start, end)
    }
  }
}
