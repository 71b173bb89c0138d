import CSQLite

// `docsh_rank(full_text, plan)`: the FTS5 auxiliary function that scores a matching row as
// ``RankingPlan`` says (the plan's text as its argument, parsed once per query). Part of the
// SQLite layer with SQLite.swift and FoldingTokenizer.swift.

/// A plan parsed for one query, with its IDFs and counting buffers reused row after row.
private final class RankCall {
  let plan: RankingPlan
  let averageLength: Double
  let idf: UnsafeMutableBufferPointer<Double>
  let nameCounts: UnsafeMutableBufferPointer<Int>
  let contentCounts: UnsafeMutableBufferPointer<Int>
  let frequencies: UnsafeMutableBufferPointer<Double>

  init(plan: RankingPlan, rows: Int, averageLength: Double) {
    self.plan = plan
    self.averageLength = averageLength
    idf = .allocate(capacity: plan.nameGroups.count)
    _ = idf.initialize(from: plan.idf(rows: rows))
    nameCounts = .allocate(capacity: plan.groups.count)
    nameCounts.initialize(repeating: 0)
    contentCounts = .allocate(capacity: plan.groups.count)
    contentCounts.initialize(repeating: 0)
    frequencies = .allocate(capacity: plan.nameGroups.count)
    frequencies.initialize(repeating: 0)
  }

  deinit {
    idf.deallocate()
    nameCounts.deallocate()
    contentCounts.deallocate()
    frequencies.deallocate()
  }
}

/// Registers `docsh_rank` through `api`.
/// - Throws: ``SQLiteError`` when FTS5 refuses it.
func registerRankFunction(_ api: UnsafeMutablePointer<fts5_api>) throws(SQLiteError) {
  guard let create = api.pointee.xCreateFunction else {
    throw SQLiteError(operation: "fts5", code: SQLITE_ERROR, message: "no xCreateFunction")
  }
  let code = create(
    api, "docsh_rank", nil,
    { api, fts, context, count, values in
      guard let api, let fts, let context else { return }
      let functions = api.pointee
      guard let instCount = functions.xInstCount, let inst = functions.xInst,
        let columnSize = functions.xColumnSize, let getAuxdata = functions.xGetAuxdata,
        let setAuxdata = functions.xSetAuxdata
      else {
        sqlite3_result_error(context, "docsh_rank: FTS5 too old", -1)
        return
      }
      let call: RankCall
      if let cached = getAuxdata(fts, 0) {
        call = Unmanaged<RankCall>.fromOpaque(cached).takeUnretainedValue()
      } else {
        guard count >= 1, let values, let text = sqlite3_value_text(values[0]),
          let plan = RankingPlan(encoded: String(cString: text))
        else {
          sqlite3_result_error(context, "docsh_rank: no plan", -1)
          return
        }
        var rows: Int64 = 0
        var tokens: Int64 = 0
        _ = functions.xRowCount?(fts, &rows)
        _ = functions.xColumnTotalSize?(fts, -1, &tokens)
        call = RankCall(
          plan: plan, rows: Int(rows), averageLength: Double(tokens) / Double(max(rows, 1)))
        let retained = Unmanaged.passRetained(call).toOpaque()
        guard
          setAuxdata(fts, retained) { pointer in
            guard let pointer else { return }
            Unmanaged<RankCall>.fromOpaque(pointer).release()
          } == SQLITE_OK
        else {
          sqlite3_result_error(context, "docsh_rank: out of memory", -1)
          return
        }
      }
      let names = call.nameCounts
      let contents = call.contentCounts
      for index in names.indices {
        names[index] = 0
        contents[index] = 0
      }
      var instances: Int32 = 0
      guard instCount(fts, &instances) == SQLITE_OK else {
        sqlite3_result_error(context, "docsh_rank: cannot read the matches", -1)
        return
      }
      for index in 0..<instances {
        var phrase: Int32 = 0
        var column: Int32 = 0
        var offset: Int32 = 0
        guard inst(fts, index, &phrase, &column, &offset) == SQLITE_OK, phrase >= 0,
          Int(phrase) < names.count
        else { continue }
        if column == 0 {
          names[Int(phrase)] += 1
        } else {
          contents[Int(phrase)] += 1
        }
      }
      var length: Int32 = 0
      _ = columnSize(fts, -1, &length)
      let score = call.plan.score(
        nameCounts: UnsafeBufferPointer(names), contentCounts: UnsafeBufferPointer(contents),
        length: Int(length), averageLength: call.averageLength,
        idf: UnsafeBufferPointer(call.idf), scratch: call.frequencies
      ).score
      sqlite3_result_double(context, score)
    }, nil)
  guard code == SQLITE_OK else {
    throw SQLiteError(operation: "fts5", code: code, message: "cannot register docsh_rank")
  }
}
