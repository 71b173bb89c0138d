/// CRC-32C (Castagnoli), the checksum of each record of the save log: the polynomial of
/// iSCSI, ext4's metadata and LevelDB's log, computed eight bytes at a time ("slicing by 8").
enum CRC32C {
  /// The checksum of `bytes`.
  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    update(0, with: bytes)
  }

  /// The checksum of `bytes` appended to bytes whose checksum was `crc`.
  static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
    var value = ~crc
    var index = 0
    let count = bytes.count
    table.withUnsafeBufferPointer { table in
      while count - index >= 8 {
        let low = bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian ^ value
        let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
        value =
          table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
          ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
          ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
          ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
        index += 8
      }
      while index < count {
        value = table[Int((value ^ UInt32(bytes[index])) & 0xFF)] ^ (value >> 8)
        index += 1
      }
    }
    return ~value
  }

  /// The checksum of `bytes`, for arrays.
  static func checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBytes { checksum($0) }
  }

  /// Eight tables of 256 entries: the first is the classic byte-at-a-time table of the
  /// reflected polynomial 0x82F63B78, each next one that table applied once more.
  private static let table: [UInt32] = {
    var table = [UInt32](repeating: 0, count: 8 * 256)
    for byte in 0..<256 {
      var value = UInt32(byte)
      for _ in 0..<8 { value = value & 1 != 0 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
      table[byte] = value
    }
    for slice in 1..<8 {
      for byte in 0..<256 {
        let previous = table[(slice - 1) * 256 + byte]
        table[slice * 256 + byte] = table[Int(previous & 0xFF)] ^ (previous >> 8)
      }
    }
    return table
  }()
}
