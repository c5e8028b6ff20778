/* SPDX-License-Identifier: MIT */
/* The one writer of output files (sweep --output, topo --output and
 * --export): a random temporary beside the target, created with O_EXCL and
 * the umask's mode, written, fsync'ed and renamed over the target, so a
 * crash never leaves half a file and nothing is written through a link.
 *
 * Targets: "-" and /dev/stdout are standard output, /dev/stderr standard
 * error, /dev/fd/N and /proc/self/fd/N that open descriptor, /dev/null
 * nothing: written as they are (no temporary). Any other target must be
 * absent or a regular file that may be written; a symbolic link, a
 * directory, a FIFO, a device or a socket is refused (usage error), since
 * replacing it would destroy it and writing through it is writing where
 * the user did not name.
 *
 * A file replaced keeps the old file's group and mode where the user may
 * set them (its owner, or root); a new file has the umask's mode.
 *
 * The outputs of one run are one group (np_outfile_commit_all): every
 * temporary is written, fsync'ed and closed first, and only then are they
 * renamed into place; when any of them fails, every temporary is removed
 * and every old file is left as it was. */
#ifndef NP_OUTFILE_H
#define NP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "../common/status.h"

#define NP_OUTFILE_GROUP_MAX 8 /* outputs in one np_outfile_commit_all */

struct np_outfile {
	FILE *f;          /* write the contents here */
	const char *what; /* the option, for messages: "--output" */
	const char *path; /* as given */
	char tmp[4096];   /* the temporary, "" when writing to a stream */
	int cleanup;      /* np_cleanup slot of tmp, -1 none */
	bool own_stream;  /* f is a stream this writer opened (fclose it) */
	bool written;     /* closed, fsync'ed, waiting for its rename */
};

/* Whether path may be written as what (an option name): NP_EUSAGE with a
 * message naming it and what to do, or NP_OK. Touches nothing. */
enum np_status np_outfile_check(const char *path, const char *what, struct np_err *err);
/* Open of->f for path (checked again). NP_EUSAGE for a target refused,
 * NP_ESYS when the system refuses the temporary. */
enum np_status np_outfile_open(struct np_outfile *of, const char *path, const char *what,
			       struct np_err *err);
/* Flush, fsync and rename into place (streams: flush). Always closes.
 * np_outfile_commit_all(&of, 1). */
enum np_status np_outfile_commit(struct np_outfile *of, struct np_err *err);
/* Commit the n outputs of one run, all or none: every file's temporary
 * is flushed, given the old file's group and mode, fsync'ed and closed
 * (streams flushed); only when all of them were is each renamed over its
 * target. On any failure every temporary is removed, every old file is
 * left in place (a rename that fails after others were done puts those
 * back where the file system can swap two names), err names the output
 * that failed, and the status is NP_ESYS (NP_EUSAGE when a target was
 * replaced meanwhile by something that is refused). Entries whose f is
 * NULL and that hold no temporary (never opened) are skipped. Always
 * closes every entry. */
enum np_status np_outfile_commit_all(struct np_outfile *const *ofs, int n, struct np_err *err);
/* Close and remove the temporary: the target is left as it was. */
void np_outfile_discard(struct np_outfile *of);
/* open + write len bytes of buf + commit. */
enum np_status np_outfile_write(const char *path, const char *what, const void *buf, size_t len,
				struct np_err *err);

/* Whether path names a stream ("-", /dev/stdout, /dev/fd/N, /dev/null...),
 * written as it is, with no temporary. */
bool np_outfile_is_stream(const char *path);

/* "FIFO", "directory", "symbolic link"...: what a non-regular file is */
const char *np_file_type_str(mode_t m);

#endif
