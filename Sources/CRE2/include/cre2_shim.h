// The C edge of RE2 (a C++ library): the little docsh needs, as plain C functions that
// Swift can call. Only DocsKit's RegularExpression.swift imports it.
#ifndef CRE2_SHIM_H
#define CRE2_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled regular expression; valid or not, it is freed by cre2_free.
typedef struct cre2_regex cre2_regex;

/// Compiles the UTF-8 `pattern` of `length` bytes: Perl-like syntax (which holds POSIX
/// ERE), leftmost-longest, `.` never matching a newline, case ignored when `ignoring_case`
/// is not 0 (Unicode simple case folding). Never NULL; see cre2_error.
cre2_regex *cre2_compile(const char *pattern, size_t length, int ignoring_case);

/// Why the pattern did not compile, as one line; NULL when it did. Valid until cre2_free.
const char *cre2_error(const cre2_regex *regex);

/// Whether `regex` (compiled) matches somewhere in the UTF-8 `text` of `length` bytes.
int cre2_matches(const cre2_regex *regex, const char *text, size_t length);

void cre2_free(cre2_regex *regex);

#ifdef __cplusplus
}
#endif

#endif
