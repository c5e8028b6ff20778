#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/nccl-probe-validate names the bad node or link: 4 virtual nodes
# of 2 ranks on this host, one made slow on purpose (test-only switch: a
# rank that sleeps 100 ms before each collective) inside the node, on its
# network, or on one link; a healthy run passes; bad input exits 64.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

V="$srcdir/contrib/nccl-probe-validate"
val() { python3 "$V" --nccl-probe "$NP_BIN" --backend mpi --size 1M --out "$TEST_TMP/runs" "$@"; }
# tolerance 90%: this host's noise (oversubscribed ranks, other tests) stays inside
# it, a 100 ms sleep per collective far outside
virt() { val --virtual 4 --ppn 2 --tolerance 90 "$@"; }

expect_success "4 healthy virtual nodes pass" virt
expect_grep '^verdict: ok, 4 nodes' "$TEST_OUT" "  the verdict says ok"

NP_VALIDATE_TEST_SLOW=node:2 expect_code 1 "a slow node: exit 1" virt
expect_grep '^bad: node vnode2: all-reduce inside the node' "$TEST_OUT" "  names vnode2, inside the node"
n=$(grep -c '^bad:' "$TEST_OUT")
[ "$n" -eq 1 ]
ok $? "  and nothing else (got $n lines)" || grep '^bad:' "$TEST_OUT" | sed 's/^/# /'

NP_VALIDATE_TEST_SLOW=net:1 expect_code 1 "a node slow only with other nodes: exit 1" virt
expect_grep '^bad: node vnode1: fine alone but slow in both of its pairs' "$TEST_OUT" "  names vnode1's network"
n=$(grep -c '^bad:' "$TEST_OUT")
[ "$n" -eq 1 ]
ok $? "  and nothing else (got $n lines)" || grep '^bad:' "$TEST_OUT" | sed 's/^/# /'

NP_VALIDATE_TEST_SLOW=link:2-3 expect_code 1 "a slow link: exit 1" virt
expect_grep '^bad: link vnode2-vnode3: ' "$TEST_OUT" "  names the link vnode2-vnode3"
n=$(grep -c '^bad:' "$TEST_OUT")
[ "$n" -eq 1 ]
ok $? "  and nothing else (got $n lines)" || grep '^bad:' "$TEST_OUT" | sed 's/^/# /'

# a real host list: topology through 'nccl-probe topo' under mpirun too
expect_success "one real node" val --hosts localhost --ppn 2 --mpi-args "--oversubscribe --bind-to none"
expect_grep '^\[1/4\] topology: 1 node compared' "$TEST_OUT" "  the topology step ran"

expect_code 64 "no nodes: exit 64" python3 "$V" --nccl-probe "$NP_BIN"
expect_code 64 "a node twice: exit 64" python3 "$V" --nccl-probe "$NP_BIN" --hosts a,a
expect_code 64 "bad --ppn: exit 64" python3 "$V" --nccl-probe "$NP_BIN" --virtual 2 --ppn 0
expect_grep "invalid --ppn 0" "$TEST_ERR" "  the message names the value"
expect_code 64 "missing hostfile: exit 64" python3 "$V" --nccl-probe "$NP_BIN" --hostfile /nonexistent/h
done_testing
