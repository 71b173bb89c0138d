#include "cre2_shim.h"

#include <re2/re2.h>

#include <string>

struct cre2_regex {
  RE2 re2;
  std::string error;

  cre2_regex(const re2::StringPiece &pattern, const RE2::Options &options)
      : re2(pattern, options) {
    if (!re2.ok()) {
      error = re2.error();
      // One line, whatever the pattern held.
      for (char &c : error) {
        if (c == '\n' || c == '\r') c = ' ';
      }
      if (error.empty()) error = "does not compile";
    }
  }
};

extern "C" cre2_regex *cre2_compile(const char *pattern, size_t length, int ignoring_case) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_longest_match(true);
  options.set_never_nl(true);
  options.set_case_sensitive(ignoring_case == 0);
  // The error goes to the caller, not to standard error.
  options.set_log_errors(false);
  return new cre2_regex(re2::StringPiece(pattern, length), options);
}

extern "C" const char *cre2_error(const cre2_regex *regex) {
  return regex->re2.ok() ? nullptr : regex->error.c_str();
}

extern "C" int cre2_matches(const cre2_regex *regex, const char *text, size_t length) {
  return RE2::PartialMatch(re2::StringPiece(text, length), regex->re2) ? 1 : 0;
}

extern "C" void cre2_free(cre2_regex *regex) { delete regex; }
