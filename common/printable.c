/* SPDX-License-Identifier: MIT */
/* One escaping of printed text (common/printable.h): every writer of text
 * people read (messages, tables, drain lines, OpenMetrics labels) uses it. */
#include "config.h"

#include <string.h>

#include "printable.h"

/* The length of the valid, printable UTF-8 character at p (1 to 4), or 0
 * when the byte at p must be escaped: a C0 control, DEL, a C1 control
 * (U+0080 to U+009F, which some terminals obey as ESC [), or a byte that
 * does not start a valid sequence (overlong, surrogate, above U+10FFFF). */
static size_t char_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n;
	unsigned cp, min;

	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		n = 2, cp = c & 0x1f, min = 0xa0; /* below U+00A0: overlong or C1 */
	else if ((c & 0xf0) == 0xe0)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *np_printable(char *buf, size_t len, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t w = 0;

	if (!len)
		return buf;
	while (*p) {
		size_t n = char_len(p);
		if (n) {
			if (w + n >= len)
				break;
			memcpy(buf + w, p, n);
			w += n;
			p += n;
		} else {
			if (w + 4 >= len)
				break;
			buf[w++] = '\\';
			buf[w++] = 'x';
			buf[w++] = hex[*p >> 4];
			buf[w++] = hex[*p & 15];
			p++;
		}
	}
	buf[w] = '\0';
	return buf;
}

void np_fputs_printable(FILE *f, const char *s)
{
	char buf[1024];
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	/* in pieces that end on a whole character (at most 4 bytes, each
	 * escaped to at most 4) */
	while (*p) {
		size_t take = 0;
		while (p[take] && take < 200) {
			size_t n = char_len(p + take);
			take += n ? n : 1;
		}
		char piece[208];
		memcpy(piece, p, take);
		piece[take] = '\0';
		fputs(np_printable(buf, sizeof(buf), piece), f);
		p += take;
	}
}
