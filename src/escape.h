/*
 * escape.h - text escaping for the output formats kgb writes from stored strings: HTML (the
 * report of `kgb report -o`) and CSV (`kgb export`, RFC 4180). Both append to a strbuf; NULL
 * appends nothing (an empty field).
 */
#ifndef KGB_ESCAPE_H
#define KGB_ESCAPE_H

#include "util/strbuf.h"

/* s with & < > " ' as character references: safe in element text and quoted attributes. */
void escape_html(struct strbuf *sb, const char *s);
/*
 * s as one CSV field (RFC 4180): quoted, with each '"' doubled, when it holds a comma, a quote,
 * CR or LF, or starts or ends with a space; else as is.
 */
void escape_csv(struct strbuf *sb, const char *s);

#endif
