/* SPDX-License-Identifier: MIT */
/* Unit tests: text from a file or another rank as printed
 * (common/printable.c): controls and bytes that are not UTF-8 as \xNN,
 * valid UTF-8 whole, a short buffer cut at a whole character or escape. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "../../common/printable.h"
#include "tap.h"

int main(void)
{
	char b[256], small[8];

	tap_is_str(np_printable(b, sizeof(b), "node-01.example"), "node-01.example",
		   "plain text is unchanged");
	tap_is_str(np_printable(b, sizeof(b), NULL), "", "NULL is empty");
	tap_is_str(np_printable(b, sizeof(b), "a\033[2J\r\nerror: x\a\177"),
		   "a\\x1b[2J\\x0d\\x0aerror: x\\x07\\x7f",
		   "ESC, CR, LF, BEL and DEL as \\xNN: no second line, no control sequence");
	tap_is_str(np_printable(b, sizeof(b), "\302\2332J"), "\\xc2\\x9b2J",
		   "a C1 control (U+009B, CSI) is escaped");
	tap_is_str(np_printable(b, sizeof(b), "caf\303\251 \346\227\245 \360\237\230\200"),
		   "caf\303\251 \346\227\245 \360\237\230\200",
		   "UTF-8 of 2, 3 and 4 bytes passes whole");
	tap_is_str(np_printable(b, sizeof(b), "\377\300\257x\355\240\200"),
		   "\\xff\\xc0\\xafx\\xed\\xa0\\x80",
		   "bytes that are not UTF-8 (0xff, an overlong '/', a surrogate) are escaped");
	tap_is_str(np_printable(small, sizeof(small), "abcd\033ef"), "abcd",
		   "a short buffer ends before an escape that does not fit");
	tap_is_str(np_printable(small, sizeof(small), "abcdef\303\251"), "abcdef",
		   "... and before a character that does not fit");
	{
		FILE *f = tmpfile();
		char big[3000], got[8000];
		size_t n;
		memset(big, 'x', sizeof(big) - 2);
		big[sizeof(big) - 2] = '\n';
		big[sizeof(big) - 1] = '\0';
		np_fputs_printable(f, big);
		rewind(f);
		n = fread(got, 1, sizeof(got) - 1, f);
		got[n] = '\0';
		tap_ok(n == sizeof(big) - 2 + 4 && !strcmp(got + n - 4, "\\x0a") &&
			       !strchr(got, '\n'),
		       "np_fputs_printable writes a long string whole, escaped");
		fclose(f);
	}
	return tap_done();
}
