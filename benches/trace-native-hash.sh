#!/usr/bin/env bash
# Instructions per event of `locksim run --trace` as the machine runs it, with the CPU's SHA
# instructions: what cachegrind cannot count directly.
#
# Why: valgrind does not run the SHA extensions (`is_x86_feature_detected!("sha")` is false under
# it), so under valgrind `sha2` hashes in software, at ~3,300 instructions per 64-byte block;
# natively it takes its SHA-NI path, ~160 per block. Both paths are straight-line loops with one
# iteration per block, so the native count follows exactly from the valgrind run: take callgrind's
# total, remove the software compression function (its inclusive cost), and add the SHA-NI
# function's instructions for the same calls and blocks, counted in this very binary's
# disassembly. The block count is derived from the software function's own cost and checked to
# come out whole, which also checks the instruction counts read from the disassembly.
#
#   cargo build --release --example bench_workload
#   benches/trace-native-hash.sh [WORKLOAD] [SEEDS]      # default: gc-pause 21
#
# Needs valgrind, callgrind_annotate, objdump and nm (binutils). Prints the per-event figures
# for `trace` under valgrind (software hash) and as run natively (SHA-NI), N seeds minus 1 seed.
set -euo pipefail

bin=target/release/examples/bench_workload
workload=${1:-gc-pause}
seeds=${2:-21}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The instructions of function $1 (a substring of its mangled name) in the binary, one per line.
instructions() {
    local sym start size
    sym=$(nm -S "$bin" | awk -v name="$1" 'index($0, name) && !found { print; found = 1 }')
    [ -n "$sym" ] || { echo "no function matching $1 in $bin" >&2; exit 2; }
    read -r start size _ <<<"$sym"
    objdump -d --no-show-raw-insn "$bin" --start-address=$((16#$start)) \
        --stop-address=$((16#$start + 16#$size)) |
        awk -F'\t' '/^ +[0-9a-f]+:\t/ && $2 !~ /^int3/ { sub(/:$/, "", $1); gsub(/ /, "", $1); print $1 "\t" $2 }'
}

# "PER_CALL PER_BLOCK" for a compression function: the loop is the one backward jump; a call
# runs every other instruction up to its `ret` once (the only other branch is the early exit
# when there are no blocks).
costs() {
    instructions "$1" | awk -F'\t' '
        # Hex to a number (mawk has no strtonum).
        function hex(s,    n, i) { for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
        { addr[NR] = hex($1); op[NR] = $2 }
        END {
            for (i = 1; i <= NR; i++) if (op[i] ~ /^j/ && split(op[i], f, " ") && hex(f[2]) < addr[i]) { jump = i; target = hex(f[2]) }
            for (i = 1; i <= NR; i++) {
                if (addr[i] >= target && i <= jump) loop++; else if (!done) once++
                if (i > jump && op[i] ~ /^ret/) done = 1
            }
            if (!jump) { print "no loop found" > "/dev/stderr"; exit 2 }
            print once, loop
        }'
}

read -r soft_call soft_block < <(costs '4soft6unroll8compress')
read -r ni_call ni_block < <(costs '7x86_sha8compress')
echo "software compression: $soft_call per call + $soft_block per block; SHA-NI: $ni_call + $ni_block"

# "EVENTS TOTAL NATIVE" for a run of $1 seeds.
measure() {
    local out=$tmp/cl.$1 events total soft calls blocks
    events=$(valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$workload" "$1" trace 2>/dev/null |
        grep -o ' events=[0-9]*' | cut -d= -f2)
    total=$(awk '/^summary:/ { print $2 }' "$out")
    soft=$(callgrind_annotate --inclusive=yes "$out" |
        awk '/soft::unroll::compress \[/ && !found { gsub(",", "", $1); print $1; found = 1 }')
    # The calls: the counts on the callers' lines above the function's own line in the tree.
    calls=$(callgrind_annotate --tree=caller --inclusive=yes "$out" | awk '
        /^ *[0-9,]+ .* < / { n = $NF; gsub(/[(),x]/, "", n); sum += n; next }
        /\* .*soft::unroll::compress \[/ && !found { print sum; found = 1 }
        { sum = 0 }')
    if (((soft - calls * soft_call) % soft_block != 0)); then
        echo "the software hash's cost ($soft over $calls calls) is not whole blocks: counts misread" >&2
        exit 2
    fi
    blocks=$(((soft - calls * soft_call) / soft_block))
    echo "$events $total $((total - soft + calls * ni_call + blocks * ni_block)) $blocks"
}

read -r e1 t1 n1 b1 < <(measure 1)
read -r en tn nn bn < <(measure "$seeds")
events=$((en - e1))
echo "$workload, $seeds seeds minus 1: $events events, $(((bn - b1) * 64 / events)) bytes hashed per event"
echo "trace under valgrind (software SHA-256): $(((tn - t1) / events)) instructions per event"
echo "trace as run natively (SHA-NI):          $(((nn - n1) / events)) instructions per event"
