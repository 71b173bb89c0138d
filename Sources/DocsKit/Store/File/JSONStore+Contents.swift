// Reading the contents of the loaded store file: one at a time (decoded), or many in one
// sequential pass (as the file spells them); every read of a stored range goes through
// `withBytes` or `read(_:of:into:atLeast:)`, which say when the file was cut short.
extension JSONStore {
  public func readContent(at location: StoredLocation) throws(StoreError) -> String {
    try decodeContent(at: location, in: descriptor(holding: location))
  }

  /// The open file `location` lies in.
  /// - Throws: ``StoreError/invalidStore(_:reason:)`` when that file is not open (a log's
  ///   range in a store that has none).
  func descriptor(holding location: StoredLocation) throws(StoreError) -> Int32 {
    guard let file = descriptor(for: location.file) else {
      throw .invalidStore(path, reason: "no content at offset \(location.offset)")
    }
    return file
  }

  public func withEncodedContents<Stop: Error>(
    at locations: [StoredLocation], _ visit: (Int, UnsafeRawBufferPointer) throws(Stop) -> Void
  ) throws(EncodedContentsError<Stop>) {
    guard !locations.isEmpty else { return }
    let windowSize = 1 << 20
    let window = UnsafeMutableRawBufferPointer.allocate(byteCount: windowSize, alignment: 16)
    defer { window.deallocate() }
    var windowFile = StoredLocation.File.store
    var windowStart = 0
    var windowCount = 0
    func hand(_ index: Int, _ literal: UnsafeRawBufferPointer) throws(EncodedContentsError<Stop>) {
      do {
        try visit(index, literal)
      } catch {
        throw .visitor(error)
      }
    }
    // The store file's contents in file order, then the log's: each read sequentially.
    let order = locations.indices.sorted {
      (locations[$0].file.rawValue, locations[$0].offset)
        < (locations[$1].file.rawValue, locations[$1].offset)
    }
    for index in order {
      let location = locations[index]
      let file: Int32
      do {
        file = try descriptor(holding: location)
      } catch {
        throw .store(error)
      }
      if location.length > windowSize {
        let large = UnsafeMutableRawBufferPointer.allocate(byteCount: location.length, alignment: 1)
        defer { large.deallocate() }
        do {
          try read(location, of: file, into: large, atLeast: location.length)
        } catch {
          throw .store(error)
        }
        try hand(index, UnsafeRawBufferPointer(large))
        continue
      }
      if location.file != windowFile || location.offset < windowStart
        || location.end > windowStart + windowCount
      {
        windowFile = location.file
        windowStart = location.offset
        do {
          windowCount = try read(location, of: file, into: window, atLeast: location.length)
        } catch {
          throw .store(error)
        }
      }
      let start = location.offset - windowStart
      try hand(index, UnsafeRawBufferPointer(rebasing: window[start..<(start + location.length)]))
    }
  }

  func decodeContent(at location: StoredLocation, in file: Int32) throws(StoreError)
    -> String
  {
    try withBytes(at: location, of: file) { bytes throws(StoreError) in
      do throws(JSONTextError) {
        return try JSONText.decodeLiteral(bytes)
      } catch {
        let (line, column) = position(of: location.offset + error.offset, in: file)
        throw .malformed(path, line: line, column: column, reason: error.reason)
      }
    }
  }

  /// Hands `body` the `location.length` bytes at `location` of `file`, read whole: the one
  /// reader of a stored range, whether a content is decoded, searched or copied.
  /// - Throws: ``StoreError/system(_:operation:errno:)`` when the read fails,
  ///   ``StoreError/invalidStore(_:reason:)`` when the file ends before the range does, or
  ///   what `body` throws.
  func withBytes<Result>(
    at location: StoredLocation, of file: Int32,
    _ body: (UnsafeRawBufferPointer) throws(StoreError) -> Result
  ) throws(StoreError) -> Result {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: location.length, alignment: 1)
    defer { bytes.deallocate() }
    try read(location, of: file, into: bytes, atLeast: location.length)
    return try body(UnsafeRawBufferPointer(bytes))
  }

  /// Reads the bytes at `location` of `file` into `buffer`, as many as fit; the count read.
  /// - Throws: ``StoreError/system(_:operation:errno:)`` when the read fails,
  ///   ``StoreError/invalidStore(_:reason:)`` when the file ends before `atLeast` bytes
  ///   (where the range ends past the file's end).
  @discardableResult
  func read(
    _ location: StoredLocation, of file: Int32, into buffer: UnsafeMutableRawBufferPointer,
    atLeast needed: Int
  ) throws(StoreError) -> Int {
    let count: Int
    do {
      count = try fileSystem.readFully(file, into: buffer, at: location.offset)
    } catch {
      throw .system(path, operation: "read", errno: error.code)
    }
    guard count >= needed else {
      throw .invalidStore(path, reason: "the file was cut short (a content ends past its end)")
    }
    return count
  }
}
