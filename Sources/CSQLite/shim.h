// The C edge of docsh's SQLite index: the SQLite API (FTS5's extension API included), the
// constants Swift cannot import and a non-variadic way to reach fts5_api. Only
// Store/SQLite.swift imports it.
#ifndef DOCSH_CSQLITE_SHIM_H
#define DOCSH_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT: SQLite copies a bound value before the call returns.
static inline sqlite3_destructor_type docsh_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE on `db` (sqlite3_db_config is variadic, which Swift
/// cannot call): closing the last connection leaves the -wal file for the next process.
static inline int docsh_no_checkpoint_on_close(sqlite3 *db) {
  return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

// MARK: - FTS5's extension API (declared in sqlite3.h)

/// FTS5_TOKENIZE_DOCUMENT: tokenize text as a document is tokenized when inserted.
static const int docsh_fts5_tokenize_document = FTS5_TOKENIZE_DOCUMENT;
/// FTS5_TOKENIZE_QUERY: tokenize a string of a MATCH expression.
static const int docsh_fts5_tokenize_query = FTS5_TOKENIZE_QUERY;
/// FTS5_TOKEN_COLOCATED: a token at the same position as the one before (a synonym).
static const int docsh_fts5_token_colocated = FTS5_TOKEN_COLOCATED;

/// The FTS5 API of `db` (NULL when FTS5 is not built in): `SELECT fts5(?1)` with a pointer.
static inline fts5_api *docsh_fts5_api(sqlite3 *db) {
  fts5_api *api = 0;
  sqlite3_stmt *statement = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0) != SQLITE_OK) return 0;
  sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
  sqlite3_step(statement);
  sqlite3_finalize(statement);
  return api;
}

#endif
