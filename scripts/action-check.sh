#!/usr/bin/env bash
# The check step of action.yml: `tfsum lock --check -r PATH...` or `tfsum verify -r
# PATH...`, its report in the job log and in the job summary ($GITHUB_STEP_SUMMARY, when
# set). Exits with tfsum's status, or 2 for a bad input.
#
# Environment, set by action.yml from its inputs:
#   INPUT_COMMAND    lock (default): every lock file is complete and up to date;
#                    verify: every hash in every lock file is genuine
#   INPUT_PATHS      directories to search, separated by whitespace (default: .)
#   INPUT_PLATFORMS  OS_ARCH values, separated by commas or whitespace (lock only;
#                    default: none given, so .tfsum.toml or this machine decides)
#   INPUT_ARGS       more `tfsum lock`/`tfsum verify` arguments, separated by whitespace
#                    (no quoting)
set -eo pipefail

# Inputs are split on whitespace, newlines included (they are often YAML block scalars),
# with globbing off, so each word reaches tfsum as written. (Plain bash 3 arrays: the
# macOS runners' /bin/bash is 3.2.)
set -f
# shellcheck disable=SC2206 # word splitting is the point here
paths=(${INPUT_PATHS:-.})
# shellcheck disable=SC2206
platforms=(${INPUT_PLATFORMS//,/ })
# shellcheck disable=SC2206
extra=(${INPUT_ARGS:-})
set +f

command="${INPUT_COMMAND:-lock}"
case "$command" in
    lock) cmd=(tfsum lock --check -r) ;;
    verify)
        cmd=(tfsum verify -r)
        if [ "${#platforms[@]}" -gt 0 ]; then
            echo "action: the platforms input is for command: lock; verify checks every hash the lock files hold" >&2
            exit 2
        fi
        ;;
    *)
        echo "action: command must be lock or verify, not '$command'" >&2
        exit 2
        ;;
esac
for p in "${platforms[@]}"; do cmd+=(--platform "$p"); done
cmd+=("${extra[@]}" -- "${paths[@]}")

report="$(mktemp)"
trap 'rm -f "$report"' EXIT
echo "+ ${cmd[*]}" >&2
status=0
"${cmd[@]}" 2>&1 | tee "$report" || status=$?

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    # GitHub refuses a step summary over 1 MiB; keep the report well under that.
    limit=900000
    {
        case "$command" in
            lock) echo "### tfsum lock --check" ;;
            verify) echo "### tfsum verify" ;;
        esac
        echo
        case "$command:$status" in
            lock:0) echo ":white_check_mark: Every lock file is up to date." ;;
            lock:1) echo ":x: Some lock files are missing or out of date, or a root could not be locked. Run \`tfsum lock -r\` and commit the result." ;;
            verify:0) echo ":white_check_mark: Every hash in every lock file is vouched for." ;;
            verify:1) echo ":x: A lock file holds a hash nobody vouches for or a version that is not published, or could not be checked: see each FILE:LINE below." ;;
            *) echo ":x: tfsum stopped with exit status $status." ;;
        esac
        echo
        echo "\`${cmd[*]}\`"
        echo
        echo '~~~~text'
        head -c "$limit" "$report"
        [ "$(wc -c <"$report")" -le "$limit" ] || printf '\n[report cut at %s bytes; the job log has all of it]\n' "$limit"
        echo '~~~~'
    } >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
