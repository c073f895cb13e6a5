/*
 * escape.h - text escaping for every place kgb writes a string that may have come from a
 * candidate (an exception message, a worker's stderr, a file name): the terminal, the JSON
 * records of `eval --json` and `export --format jsonl`, CSV (`kgb export`, RFC 4180) and the
 * HTML report. All append to a strbuf; NULL appends nothing (an empty field).
 *
 * escape_text() is the one function that makes such a string inert: every other function here
 * applies it first. A candidate controls these strings, and raw control characters would reach
 * the reader's terminal (ANSI/OSC sequences: moving the cursor, rewriting earlier lines,
 * setting the window title or the clipboard), a spreadsheet (formulas) or a browser.
 */
#ifndef KGB_ESCAPE_H
#define KGB_ESCAPE_H

#include <jansson.h>
#include <stdbool.h>

#include "util/strbuf.h"

/*
 * s with every control character written out, so that printing it anywhere shows what it holds
 * and does nothing: C0 controls and DEL as \t \n \r or \xHH, C1 controls (U+0080-U+009F, an
 * 8-bit CSI is U+009B) and the invisible format characters that reorder or hide text (bidi
 * overrides and isolates, zero-width characters, U+FEFF) as \uHHHH, and bytes that are not
 * UTF-8 as \xHH. Everything else, backslashes included, is copied: the result is for reading,
 * not for decoding back.
 */
void escape_text(struct strbuf *sb, const char *s);
/* escape_text() into a new string (the caller frees it); "" for NULL. */
char *escape_text_dup(const char *s);
/* Whether s is valid UTF-8 (no stray, overlong, surrogate or cut-off sequence). */
bool escape_utf8_valid(const char *s);
/* Whether escape_text() would change s. */
bool escape_text_needed(const char *s);
/* escape_text(), then & < > " ' as character references: safe in element text and attributes. */
void escape_html(struct strbuf *sb, const char *s);
/*
 * s as one CSV field: a value starting with = + - @ TAB or CR gets a ' in front (OWASP's
 * guidance against CSV injection: spreadsheets run such cells as formulas), then escape_text(),
 * then RFC 4180 quoting (the field quoted, each '"' doubled) when it holds a comma or a quote, or
 * starts or ends with a space.
 */
void escape_csv(struct strbuf *sb, const char *s);
/*
 * Every string in a JSON value (object keys aside), in place, through escape_text(): for
 * records whose strings came from a worker or a file name. JSON's own escaping keeps the file
 * well-formed, but a reader that prints a decoded value would print the raw controls.
 */
void escape_json_strings(json_t *v);

#endif
