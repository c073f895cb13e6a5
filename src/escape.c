#include "escape.h"

#include <stdlib.h>
#include <string.h>

/*
 * The length of the UTF-8 sequence at s (1-4) and its code point, or 0 when s does not start a
 * valid one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut off).
 */
static size_t utf8_decode(const unsigned char *s, unsigned *ret_cp)
{
	unsigned c = s[0], cp, n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80) {
		*ret_cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	for (unsigned i = 1; i < n; i++) {
		unsigned char b = s[i];

		/* The first continuation byte has the narrower range (overlongs, surrogates). */
		if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf))
			return 0;
		cp = cp << 6 | (b & 0x3f);
	}
	*ret_cp = cp;
	return n;
}

/*
 * Code points that control how text shows rather than being text: C1 controls, and the
 * invisible format characters that reorder (bidi embeddings, overrides and isolates: "Trojan
 * Source") or hide text (zero-width characters, the word joiner family, the BOM).
 */
static bool invisible_control(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

bool escape_text_needed(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		unsigned cp;
		size_t n = utf8_decode(p, &cp);

		if (!n || cp < 0x20 || cp == 0x7f || invisible_control(cp))
			return true;
		p += n;
	}
	return false;
}

bool escape_utf8_valid(const char *s)
{
	unsigned cp;

	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_decode(p, &cp);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

void escape_text(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		unsigned cp;
		size_t n = utf8_decode(p, &cp);

		if (!n) {
			strbuf_addf(sb, "\\x%02x", *p);
			p++;
			continue;
		}
		if (cp == '\t')
			strbuf_addstr(sb, "\\t");
		else if (cp == '\n')
			strbuf_addstr(sb, "\\n");
		else if (cp == '\r')
			strbuf_addstr(sb, "\\r");
		else if (cp < 0x20 || cp == 0x7f)
			strbuf_addf(sb, "\\x%02x", cp);
		else if (invisible_control(cp))
			strbuf_addf(sb, "\\u%04x", cp);
		else
			strbuf_add(sb, p, n);
		p += n;
	}
}

char *escape_text_dup(const char *s)
{
	struct strbuf t = STRBUF_INIT;

	escape_text(&t, s);
	return strbuf_detach(&t, NULL);
}

void escape_html(struct strbuf *sb, const char *s)
{
	struct strbuf t = STRBUF_INIT;

	if (!s)
		return;
	escape_text(&t, s);
	for (const char *c = t.buf; c && *c; c++) {
		switch (*c) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			strbuf_addch(sb, *c);
		}
	}
	strbuf_release(&t);
}

void escape_csv(struct strbuf *sb, const char *s)
{
	struct strbuf t = STRBUF_INIT;
	size_t n;

	if (!s)
		return;
	/* Judged on the raw value: a leading TAB or CR would be escaped away below. */
	if (s[0] && strchr("=+-@\t\r", s[0]))
		strbuf_addch(&t, '\'');
	escape_text(&t, s);
	n = t.len;
	if (!n || (!strpbrk(t.buf, ",\"") && t.buf[0] != ' ' && t.buf[n - 1] != ' ')) {
		strbuf_add(sb, t.buf, n);
		strbuf_release(&t);
		return;
	}
	strbuf_addch(sb, '"');
	for (const char *c = t.buf; *c; c++) {
		if (*c == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *c);
	}
	strbuf_addch(sb, '"');
	strbuf_release(&t);
}

void escape_json_strings(json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_string(v)) {
		struct strbuf t = STRBUF_INIT;

		if (!escape_text_needed(json_string_value(v)))
			return;
		escape_text(&t, json_string_value(v));
		json_string_set(v, t.buf);
		strbuf_release(&t);
	} else if (json_is_object(v)) {
		json_object_foreach(v, key, item)
			escape_json_strings(item);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			escape_json_strings(item);
	}
}
