/// A growable byte buffer the tokenizer writes tokens into, reused token after token.
struct TokenBuffer {
  private(set) var bytes: UnsafeMutablePointer<UInt8>
  private(set) var capacity: Int

  init(capacity: Int) {
    self.capacity = capacity
    bytes = .allocate(capacity: capacity)
  }

  /// Makes room for `count` bytes (what it held is lost when it grows).
  mutating func reserve(_ count: Int) {
    guard count > capacity else { return }
    bytes.deallocate()
    capacity = count * 2
    bytes = .allocate(capacity: capacity)
  }

  func deallocate() { bytes.deallocate() }
}
