#!/usr/bin/env bash
# Watches a test run for the two ways a whole run can stand still, and says which it was.
#
#   scripts/stall-watch.sh &   (scripts/test.sh starts it, and kills it at the end)
#
# Silent while all is well. Every 2 s it looks at the running test binary (*PackageTests.xctest):
# - when its own 2 s sleep took more than 15 s, the machine ran nothing at all for that long (a
#   frozen or starved machine: no code of ours can cause or avoid that), and it says so;
# - when the test binary used no CPU time for 20 s while it ran, every thread of it was waiting:
#   a deadlock or a starved cooperative pool. It prints each thread's kernel wait channel and, when
#   gdb is installed, every thread's backtrace, once per stall.
# A CI run once stood still for a minute (every test in flight ended after ~60 s) and left no other
# trace; this is what the next such run will print.
set -uo pipefail

tick=2
last=$(date +%s)
quiet_since=$last
last_cpu=""
dumped_pid=""
while :; do
    sleep "$tick"
    now=$(date +%s)
    if ((now - last > 15)); then
        echo "== stall-watch: this machine ran nothing for $((now - last)) s (until $(date -u +%H:%M:%S) UTC)" >&2
    fi
    last=$now
    pid=$(pgrep -n -f 'PackageTests\.xctest' || true)
    [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || { last_cpu=""; continue; }
    # Fields 14 and 15 of /proc/PID/stat: user and system time in clock ticks.
    cpu=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || true)
    if [ "$cpu" != "$last_cpu" ]; then
        last_cpu=$cpu
        quiet_since=$now
        continue
    fi
    if ((now - quiet_since >= 20)) && [ "$dumped_pid" != "$pid" ]; then
        dumped_pid=$pid
        echo "== stall-watch: test process $pid used no CPU for $((now - quiet_since)) s; its threads:" >&2
        for task in /proc/"$pid"/task/*; do
            printf '%s %s %s\n' "${task##*/}" "$(cat "$task/comm" 2>/dev/null)" "$(cat "$task/wchan" 2>/dev/null)" >&2
        done
        if command -v gdb >/dev/null; then
            timeout 60 gdb -p "$pid" -batch -nx -ex "thread apply all bt 12" 2>&1 | grep -E '^(Thread|#)' >&2
        fi
    fi
done
