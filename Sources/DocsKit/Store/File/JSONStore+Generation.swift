#if canImport(Glibc)
  import Glibc
#endif

// The generation of a store on disk, as a sync asks it before and after writing: from the
// file's header and the log's frame lines, at the cost of a line a record — never a parse of
// the records (which ``JSONStore/readRecords(of:from:after:)`` makes, reading the whole log).

extension JSONStore {
  public func currentGeneration() throws(StoreError) -> Int? {
    try resolveLinks()
    let file: Int32
    do {
      file = try fileSystem.open(targetPath, flags: O_RDONLY | O_CLOEXEC, mode: 0)
    } catch {
      if error.code == ENOENT || error.code == EISDIR { return nil }
      throw .system(path, operation: "open", errno: error.code)
    }
    defer { try? fileSystem.close(file) }  // read-only: nothing to lose
    let status = try systemCalls { () throws(SystemCallError) in try fileSystem.status(of: file) }
    guard !status.isDirectory else { return nil }
    var reader = StoreReader(file: file, fileSystem: fileSystem, startingAt: 0)
    let header: StoreReader.Header
    do {
      header = try reader.readHeader()
    } catch {
      if case .system(let failure) = error.kind { throw storeError(failure) }
      return nil  // not the start of a store: its header says no generation
    }
    guard let generation = header.generation else { return nil }
    let finding: LogFinding
    do {
      finding = try findLog(extending: header.epoch, generation: generation, file: status)
    } catch {
      if case .system = error { throw error }
      return generation  // a log that cannot extend this file adds no save to it
    }
    guard case .extends(let log) = finding else { return generation }
    let last = try systemCalls(on: logPath) { () throws(SystemCallError) in
      try log.lastFrame(after: generation)
    }
    guard let last else { return generation }
    // The mark a fold leaves ends the log with no save of its own, and a record that does
    // not read is damage a load stops before: either way the saves before it stand.
    do {
      if try readRecord(of: log, last).foldedInto != nil { return last.generation - 1 }
    } catch {
      return last.generation - 1
    }
    return last.generation
  }
}

extension SaveLog {
  /// The last whole record of the run after the header, each record the save after the one
  /// before (the first after `generation`), found from the frame lines alone: a line a
  /// record is read, and the checksum of the last (stepping back over a torn tail, as a load
  /// stops before it). What a load finds beyond that — damage inside an earlier record's
  /// body — is not looked for: this costs the records' count, not the log's size.
  /// - Throws: ``SystemCallError`` when the log cannot be read.
  func lastFrame(after generation: Int) throws(SystemCallError) -> SaveLogFrame? {
    let size = try fileSystem.status(of: descriptor).size
    var frames: [SaveLogFrame] = []
    var at = headerLength
    while at < size, let frame = try unverifiedFrame(at: at, size: size),
      frame.generation == generation + frames.count + 1
    {
      frames.append(frame)
      at = frame.end
    }
    for frame in frames.reversed() {
      if try isWhole(frame) { return frame }
    }
    return nil
  }
}
