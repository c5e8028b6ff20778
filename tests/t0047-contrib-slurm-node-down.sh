#!/bin/sh
# SPDX-License-Identifier: MIT
# A node whose slurmd is down when validate runs, under a real Slurm
# (tests/slurm-local.sh, three slurmd on this host: npn-a, npn-b, npn-c).
# npn-c's slurmd is stopped; Slurm still allocates it (it is marked down
# only after SlurmdTimeout), and validate in salloc -N3 cannot start
# anything there: exit 3 (it could not run; nobody is accused), no node
# is "ok" in the JSON (npn-c is "unknown", and so are the others, which
# were never measured), no node is named bad or drained, and the error
# names npn-c once Slurm marks it not responding (never another node).
# The launcher is mpirun inside the allocation (see t0046).
# Skips without slurm-wlm unless NP_REQUIRE_SLURM=1.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/slurm-local.sh"

slurm_require
command -v python3 >/dev/null || skip_all "python3 not found"

V="$srcdir/contrib/nccl-probe-validate"

expect_success "Slurm starts: slurmd for npn-a npn-b npn-c" slurm_start_nodes "$T/slurm" "npn-a npn-b npn-c" || {
	echo "1..$_np_n"
	exit 1
}
slurm_stop_slurmd npn-c
ok $? "npn-c's slurmd stopped (sinfo: $(slurm_state npn-c))"
expect_code 3 "validate in salloc -N3 with npn-c's slurmd down, --drain: exit 3" \
	timeout 300 salloc -N3 -n3 "$V" --nccl-probe "$NP_BIN" --launcher mpirun --ppn 1 --backend mpi --size 16K \
	--timeout 30 --budget 60 --drain --json "$T/v.json"
# the error accuses nobody; it names npn-c when Slurm has already marked
# it not responding (its ping comes within SlurmdTimeout / 3), and never
# another node
expect_grep "^error: .*nobody is accused" "$TEST_ERR" "  the error accuses nobody"
! grep -E -q "Slurm reports .*npn-[ab] " "$TEST_ERR"
ok $? "  and names no healthy node as down ($(grep -o 'Slurm reports [^:]*' "$TEST_ERR" || echo 'Slurm had not marked npn-c yet'))"
! grep -q -e '^bad:' -e '^drain:' "$TEST_OUT"
ok $? "  no node named bad, no drain line"
! grep -q "^validate: drained" "$TEST_ERR"
ok $? "  nothing drained"
case "$(slurm_state npn-a) $(slurm_state npn-b)" in
*drain* | *drng*) false ;;
*) true ;;
esac
ok $? "  npn-a and npn-b not drained ($(slurm_state npn-a), $(slurm_state npn-b))"
case $(slurm_state npn-c) in
drain* | drng*) false ;;
*) true ;;
esac
ok $? "  npn-c not drained by validate ($(slurm_state npn-c))"
python3 - "$T/v.json" <<'PY' >"$T/json.check"
import json, sys
r = json.load(open(sys.argv[1]))
st = sorted((n["name"], n["state"]) for n in r["nodes"])
ok = r["exit_code"] == 3 and st == [("npn-a", "unknown"), ("npn-b", "unknown"), ("npn-c", "unknown")] \
    and all(n["drain"] is None for n in r["nodes"]) and r["error"]
print("ok" if ok else "exit_code %r, states %r, error %r" % (r["exit_code"], st, r["error"]))
PY
[ "$(cat "$T/json.check")" = ok ]
ok $? "  JSON: exit 3, every node unknown (never ok), none to drain, the error given ($(cat "$T/json.check"))"
done_testing
