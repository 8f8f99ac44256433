#!/usr/bin/env bash
# Times the steps of a long run (`make test`) and prints them as a table at its end,
# failed or not, so that a step that grew shows the day it grew.
#
#   scripts/steps.sh run COMMAND...         runs COMMAND, then prints the steps it recorded
#   scripts/steps.sh step NAME COMMAND...   runs COMMAND as step NAME; outside `run`, only runs it
#
# `run` names a log in TFSUM_STEPS_LOG; each `step` inside appends to it: when it started
# (seconds after `run` began), its wall time, the CPU time it and its children used (user
# + system; steady on a busy machine, where wall times are not) and its exit status.
# Steps may run side by side (make -j): the start column shows which overlapped.
set -uo pipefail

now() { date +%s.%N; }

# Sets CPU to the user + system seconds of this shell's waited-for children. `times`
# prints them as "1m2.345s 0m0.678s" on its second line; it must run in this shell, not
# in a $(…) subshell, whose children they would be.
children_cpu() {
    times >"$times_file"
    CPU=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } print s }' "$times_file")
}

# m:ss from seconds.
mmss() { awk -v s="$1" 'BEGIN { s = int(s + 0.5); printf "%d:%02d", s / 60, s % 60 }'; }

table() {
    local log="$1" started="$2" status="$3"
    local total
    total=$(awk -v a="$started" -v b="$(now)" 'BEGIN { print b - a }')
    echo
    printf '%-34s %7s %7s %7s  %s\n' "step" "start" "wall" "cpu" "status"
    if [ -s "$log" ]; then
        while IFS=$'\t' read -r name start wall cpu rc; do
            printf '%-34s %7s %7s %7s  %s\n' "$name" "$(mmss "$start")" "$(mmss "$wall")" "$(mmss "$cpu")" \
                "$([ "$rc" = 0 ] && echo ok || echo "FAILED ($rc)")"
        done <"$log"
    fi
    printf '%-34s %7s %7s %7s  %s\n' "total" "" "$(mmss "$total")" "" \
        "$([ "$status" = 0 ] && echo ok || echo "FAILED ($status)")"
}

case "${1:-}" in
run)
    shift
    started=$(now)
    log=$(mktemp "${TMPDIR:-/tmp}/tfsum-steps.XXXXXX")
    export TFSUM_STEPS_LOG="$log" TFSUM_STEPS_START="$started"
    "$@"
    status=$?
    table "$log" "$started" "$status"
    rm -f "$log"
    exit "$status"
    ;;
step)
    name="$2"
    shift 2
    if [ -z "${TFSUM_STEPS_LOG:-}" ]; then
        exec "$@"
    fi
    # CPU time is the difference of this process's children's before and after: a
    # process may have waited for children before it became this script (exec).
    times_file=$(mktemp "${TMPDIR:-/tmp}/tfsum-times.XXXXXX")
    children_cpu
    cpu_before=$CPU
    started=$(now)
    "$@"
    status=$?
    children_cpu
    rm -f "$times_file"
    cpu=$(awk -v a="$cpu_before" -v b="$CPU" 'BEGIN { print b - a }')
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" \
        "$(awk -v a="$TFSUM_STEPS_START" -v b="$started" 'BEGIN { print b - a }')" \
        "$(awk -v a="$started" -v b="$(now)" 'BEGIN { print b - a }')" \
        "$cpu" \
        "$status" >>"$TFSUM_STEPS_LOG"
    exit "$status"
    ;;
*)
    echo "usage: scripts/steps.sh run COMMAND... | step NAME COMMAND..." >&2
    exit 2
    ;;
esac
