import CSQLite

// `docsh_rank(full_text, plan)`: the FTS5 auxiliary function that scores a matching row as
// ``RankingPlan`` says (the plan's text as its argument, parsed once per query). Part of the
// SQLite layer with SQLite.swift and FoldingTokenizer.swift.

/// A plan parsed for one query, with counting buffers reused row after row.
private final class RankCall {
  let plan: RankingPlan
  let averageLength: Double
  var nameCounts: [Int]
  var contentCounts: [Int]

  init(plan: RankingPlan, averageLength: Double) {
    self.plan = plan
    self.averageLength = averageLength
    nameCounts = Array(repeating: 0, count: plan.groups.count)
    contentCounts = nameCounts
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
        call = RankCall(plan: plan, averageLength: Double(tokens) / Double(max(rows, 1)))
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
      for index in call.nameCounts.indices {
        call.nameCounts[index] = 0
        call.contentCounts[index] = 0
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
        guard inst(fts, index, &phrase, &column, &offset) == SQLITE_OK,
          Int(phrase) < call.nameCounts.count
        else { continue }
        if column == 0 {
          call.nameCounts[Int(phrase)] += 1
        } else {
          call.contentCounts[Int(phrase)] += 1
        }
      }
      var length: Int32 = 0
      _ = columnSize(fts, -1, &length)
      let score = call.plan.score(
        nameCounts: call.nameCounts, contentCounts: call.contentCounts, length: Int(length),
        averageLength: call.averageLength
      ).score
      sqlite3_result_double(context, score)
    }, nil)
  guard code == SQLITE_OK else {
    throw SQLiteError(operation: "fts5", code: code, message: "cannot register docsh_rank")
  }
}
