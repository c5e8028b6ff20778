/* SPDX-License-Identifier: MIT */
/* Unit tests of the table's summary: the busbw at the largest size per
 * collective, and the peak named beside it only when another size was 1%
 * or more above it and above it as both are printed (two decimals). */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/opts.h"
#include "../../src/report.h"
#include "../../src/results.h"
#include "../../src/sweep_verdict.h"
#include "tap.h"

/* What fn writes of rep, into buf; false when no file could hold it */
static bool written(void (*fn)(FILE *, const struct np_sweep_report *),
		    const struct np_sweep_report *rep, char *buf, size_t len)
{
	FILE *f = tmpfile();
	size_t n;

	buf[0] = '\0';
	if (!f)
		return false;
	fn(f, rep);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

/* The summary line of a two-rank allreduce whose rows at 1, 4 and 16 KiB
 * had busbw b[0..2], as np_report_table_footer prints it, in line. */
static void summary(const double b[3], char *line, size_t len)
{
	static struct np_opts opts;
	static struct np_world world;
	struct np_result rows[3];
	struct np_sweep_report rep;
	char buf[4096];
	char *at, *end;

	memset(&rep, 0, sizeof(rep));
	memset(rows, 0, sizeof(rows));
	world.size = 2;
	rep.opts = &opts;
	rep.world = &world;
	for (int i = 0; i < 3; i++) {
		rows[i].coll = &np_colls[NP_COLL_ALLREDUCE];
		rows[i].lay.size = (size_t)1024 << (2 * i);
		rows[i].busbw = rows[i].algbw = b[i];
		rows[i].eff = NAN;
		rows[i].slow_rank = -1;
	}
	rep.rows = rows;
	rep.nrows = 3;
	line[0] = '\0';
	if (!written(np_report_table_footer, &rep, buf, sizeof(buf)))
		return;
	at = strstr(buf, "#   allreduce: ");
	if (!at)
		return;
	end = strchr(at, '\n');
	snprintf(line, len, "%.*s", (int)(end ? end - at : (ptrdiff_t)strlen(at)), at);
}

static void peak(double b0, double b1, double b2, const char *want, const char *why)
{
	const double b[3] = { b0, b1, b2 };
	char line[512];
	const char *got;

	summary(b, line, sizeof(line));
	got = strstr(line, "limit unknown (see limits above)");
	got = got ? got + strlen("limit unknown (see limits above)") : "(no summary line)";
	tap_is_str(got, want, "%s", why);
}

/* The verdict of one judged two-rank allreduce row of busbw 10 GB/s whose
 * median's 95% interval of time is [lo, hi] times the median, against
 * --min-busbw floor (and --min-eff eff_floor with its eff at 50%). */
static enum np_stop judge_stop = NP_STOP_CONVERGED;
static double judge_floor_rel = 1; /* unsteady rows: measure.h's floor_rel */

static int judge(double lo, double hi, double floor, double eff_floor, int *pass)
{
	static struct np_opts opts;
	static struct np_world world = { .size = 2 };
	struct np_result row;
	struct np_sweep_report rep;
	int code;

	memset(&opts, 0, sizeof(opts));
	memset(&rep, 0, sizeof(rep));
	memset(&row, 0, sizeof(row));
	opts.colls[NP_COLL_ALLREDUCE] = true;
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = floor;
	opts.coll_min_eff[NP_COLL_ALLREDUCE] = eff_floor;
	row.coll = &np_colls[NP_COLL_ALLREDUCE];
	row.lay.size = 1 << 20;
	row.t_med = 1e-3, row.t_ci_lo = lo * 1e-3, row.t_ci_hi = hi * 1e-3;
	row.busbw = row.algbw = 10;
	row.eff = 0.5;
	row.judged = true;
	row.slow_rank = -1;
	row.stop = judge_stop;
	row.steady = judge_stop == NP_STOP_UNSTEADY ? 0 : 1;
	row.floor_rel = judge_floor_rel;
	rep.opts = &opts;
	rep.world = &world;
	rep.rows = &row;
	rep.nrows = 1;
	np_sweep_row_verdict(&rep, &row);
	np_sweep_verdict(&rep);
	*pass = row.pass;
	code = rep.exit_code;
	np_notes_release(&rep.verdict);
	free(rep.details);
	return code;
}

/* One field of np_report_nccltests_json (key: "\"nccl_version\": "), its
 * value up to the line's end, for a one-rank run of library on bus_id
 * started at start */
static void nccltests_json(const char *library, const char *bus_id, const char *start,
			   const char *key, char *out, size_t len)
{
	static struct np_opts opts;
	static struct np_world world = { .size = 1 };
	struct np_rank_info ri;
	struct np_sweep_report rep;
	char buf[8192];
	const char *at;

	memset(&rep, 0, sizeof(rep));
	memset(&ri, 0, sizeof(ri));
	snprintf(ri.bus_id, sizeof(ri.bus_id), "%s", bus_id);
	snprintf(rep.info.library, sizeof(rep.info.library), "%s", library);
	snprintf(rep.run.start_time, sizeof(rep.run.start_time), "%s", start);
	rep.opts = &opts;
	rep.world = &world;
	rep.ranks = &ri;
	snprintf(out, len, "(no %s)", key);
	if (!written(np_report_nccltests_json, &rep, buf, sizeof(buf)))
		return;
	at = strstr(buf, key);
	if (at)
		snprintf(out, len, "%.*s", (int)strcspn(at + strlen(key), ",\n"), at + strlen(key));
}

static const char *version_of(const char *library)
{
	static char v[64];

	nccltests_json(library, "", "2026-05-04T09:41:07Z", "\"nccl_version\": ", v, sizeof(v));
	return v;
}

static const char *hex_of(const char *bus_id)
{
	static char v[64];

	nccltests_json("NCCL 2.28.3", bus_id, "2026-05-04T09:41:07Z", "\"device_hex\": ", v,
		       sizeof(v));
	return v;
}

static const char *start_of(const char *iso)
{
	static char v[64];

	nccltests_json("NCCL 2.28.3", "", iso, "\"start_time\": ", v, sizeof(v));
	return v;
}

int main(void)
{
	struct np_sweep_report rep;
	struct np_world world = { .size = 2 };
	struct np_result rows[2];
	struct np_summary sum[NP_COLL_COUNT];
	char line[512];
	const double flat[3] = { 1.0, 1.5, 2.0 };

	summary(flat, line, sizeof(line));
	tap_is_str(line, "#   allreduce: 2.00 GB/s at 16 KiB, limit unknown (see limits above)",
		   "the summary gives the busbw at the largest size");
	peak(1.0, 2.28, 1.52, "; peak 2.28 at 4 KiB",
	     "a peak well above the largest size's is named, at its size");
	peak(1.0, 1.01, 1.0, "; peak 1.01 at 4 KiB", "1% above is named");
	peak(1.0, 1.0099, 1.0, "", "0.99% above is not");
	peak(2.0, 1.0, 2.0, "", "a size as fast as the largest is no peak");
	peak(0.1, 0.5001, 0.4951, "",
	     "1% above but 0.50 as both print: not named (it would read 'peak 0.50' beside 0.50)");
	peak(0.1, 0.5052, 0.5001, "; peak 0.51 at 4 KiB", "1% above and 0.51 against 0.50: named");
	peak(3.0, 1.0, 1.0, "; peak 3.00 at 1 KiB", "the smallest size can be the peak");

	/* np_report_summary: the largest size's row, whatever the order */
	memset(&rep, 0, sizeof(rep));
	memset(rows, 0, sizeof(rows));
	rep.world = &world;
	rows[0].coll = rows[1].coll = &np_colls[NP_COLL_ALLREDUCE];
	rows[0].lay.size = 8192, rows[0].busbw = 4;
	rows[1].lay.size = 1024, rows[1].busbw = 9;
	rep.rows = rows;
	rep.nrows = 2;
	tap_is_int(np_report_summary(&rep, sum, NP_COLL_COUNT), 1, "one collective, one summary");
	tap_is_int(sum[0].last_size, 8192,
		   "the largest size is the last, though its row came first");
	tap_is_dbl(sum[0].last_busbw, 4, 0, "  its busbw");
	tap_is_int(sum[0].peak_size, 1024, "the peak is the fastest row");
	tap_is_dbl(sum[0].peak_busbw, 9, 0, "  its busbw");
	/* a row is below a floor only when its whole interval is (busbw and
	 * eff go as 1/time: the interval's upper end is at its shortest time) */
	{
		int pass;
		tap_is_int(judge(0.98, 1.02, 20, 0, &pass), 1,
			   "busbw 10 [9.8, 10.2] against 20: exit 1");
		tap_is_int(pass, 0, "  the row failed");
		tap_is_int(judge(0.4, 2.2, 20, 0, &pass), 6,
			   "busbw 10 with an interval up to 25 against 20 (noise-bound): inconclusive, exit 6");
		tap_is_int(pass, -1, "  the row neither met nor failed");
		tap_is_int(judge(0.4, 2.2, 5, 0, &pass), 0, "the median above the floor: ok");
		tap_is_int(pass, 1, "  the row met");
		tap_is_int(judge(0.98, 1.02, 0, 0.6, &pass), 1,
			   "eff 50%% [49, 51] against 60%%: exit 1");
		tap_is_int(judge(0.5, 2.0, 0, 0.6, &pass), 6,
			   "eff 50%% up to 100%% against 60%%: exit 6");
		tap_is_int(pass, -1, "  the row neither met nor failed");
		tap_is_int(judge(0.9, 2.0, 20, 0.52, &pass), 1,
			   "busbw up to 11.1 below 20, eff up to 55.5%% against 52%%: the fail wins, exit 1");
		tap_is_int(pass, 0, "  the row failed");
		tap_is_int(judge(1, 1, 20, 0, &pass), 1,
			   "one sample (interval the median) below: exit 1");
		/* batches too short for the steady state: busbw is a lower bound */
		judge_stop = NP_STOP_UNSTEADY;
		judge_floor_rel = 0;
		tap_is_int(judge(0.98, 1.02, 20, 0, &pass), 6,
			   "an unsteady row below the floor, no floor of its time known: inconclusive, exit 6");
		tap_is_int(pass, -1, "  the row neither met nor failed");
		tap_is_int(judge(0.98, 1.02, 5, 0, &pass), 0,
			   "an unsteady row above it: met (the steady state is faster)");
		/* its last lengthening's fall bounds the steady time: busbw at
		 * best 10.2 / 0.8 = 12.75 (below 20), or 10.2 / 0.4 = 25.5 */
		judge_floor_rel = 0.8;
		tap_is_int(judge(0.98, 1.02, 20, 0, &pass), 1,
			   "an unsteady row whose steady busbw is at best 12.75, against 20: below, exit 1");
		tap_is_int(pass, 0, "  the row failed");
		judge_floor_rel = 0.4;
		tap_is_int(judge(0.98, 1.02, 20, 0, &pass), 6,
			   "an unsteady row whose steady busbw could reach 25.5, against 20: inconclusive, exit 6");
		judge_stop = NP_STOP_CONVERGED;
		judge_floor_rel = 1;
	}

	/* --format nccl-tests -J: the fields read from the run's own text */
	setenv("TZ", "UTC", 1);
	tzset();
	tap_is_str(version_of("NCCL 2.28.3"), "22803", "nccl_version of NCCL 2.28.3");
	tap_is_str(version_of("NCCL 2.28.3 (built with the headers of 2.27.7)"), "22803",
		   "  with the headers' note after it");
	tap_is_str(version_of("NCCL 2.28.3x"), "0", "  trailing junk: 0 (unknown)");
	tap_is_str(version_of("NCCL 2.100.3"), "0", "  a minor the code cannot hold: 0");
	tap_is_str(version_of("NCCL 2.28.99999999999999999999"), "0", "  overflow: 0");
	tap_is_str(version_of("NCCL 2.-1.3"), "0", "  a sign: 0");
	tap_is_str(version_of(""), "0", "  empty: 0");
	tap_is_str(version_of("Open MPI v4.1.4"), "0", "  another library: 0");
	tap_is_str(hex_of("0000:19:00.0"), "\"0000:19:00\"", "device_hex of a bus id");
	tap_is_str(hex_of("00000000:3B:00.0"), "\"0000:3b:00\"",
		   "  NVML's 8-digit domain, upper case");
	tap_is_str(hex_of(""), "\"0000:00:00\"", "  host memory: zeros");
	tap_is_str(hex_of("0000:19:00.0x"), "\"0000:00:00\"",
		   "  trailing junk: zeros, no field taken");
	tap_is_str(hex_of("0000:100:00.0"), "\"0000:00:00\"", "  a bus beyond 0xff: zeros");
	tap_is_str(hex_of("100000000:19:00.0"), "\"0000:00:00\"",
		   "  a domain beyond 32 bits: zeros");
	tap_is_str(start_of("2026-05-04T09:41:07Z"), "\"2026-05-04 09:41:07\"",
		   "start_time of the run's stamp");
	tap_ok(strcmp(start_of("2026-05-04T09:41:07Zjunk"), "\"2026-05-04 09:41:07\"") != 0,
	       "  trailing junk: the stamp is not taken (the time now instead)");
	tap_ok(strcmp(start_of("2026-13-04T09:41:07Z"), "\"2027-01-04 09:41:07\"") != 0,
	       "  month 13 is not taken");
	tap_ok(strcmp(start_of("2026-05-04T09:41:99999999999999999999Z"),
		      "\"2026-05-04 09:41:07\"") != 0 &&
		       start_of("")[0] == '"',
	       "  overflow and empty: not taken, a stamp still written");
	return tap_done();
}
