#!/usr/bin/env bash
# Records what tfupdate 0.10.2 does to each case of testdata/upgrade/cases, so that the
# `tfsum upgrade` conformance tests need no tfupdate binary (layout: testdata/upgrade/README.md).
#
#   scripts/record-tfupdate.sh [PATH-TO-TFUPDATE]
#
# The binary is the argument, else $TFUPDATE, else ../shared/bin/tfupdate beside the
# repository. Every case's expected/ is deleted and written again; each command runs twice
# on fresh copies and the script fails if the two runs differ, so a second run of the script
# leaves `git status` clean.
set -euo pipefail
export LC_ALL=C

repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=$repo/testdata/upgrade
tfupdate=${1:-${TFUPDATE:-$repo/../shared/bin/tfupdate}}
want_version=0.10.2

die() {
	echo "record-tfupdate: $*" >&2
	exit 1
}

[ -x "$tfupdate" ] || die "no tfupdate binary at $tfupdate (pass its path or set TFUPDATE)"
tfupdate=$(cd "$(dirname "$tfupdate")" && pwd)/$(basename "$tfupdate")
got_version=$("$tfupdate" --version)
[ "$got_version" = "$want_version" ] || die "$tfupdate is version $got_version, the corpus is recorded with $want_version"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Shell-quotes one word only when it needs it, so `command` files read like what one types.
quote() {
	case $1 in
	'' | *[!A-Za-z0-9_./:@=+,-]*) printf "'%s'" "${1//\'/\'\\\'\'}" ;;
	*) printf '%s' "$1" ;;
	esac
}

# A Go panic's goroutine dump holds addresses that change between runs: keep the panic line.
strip_goroutines() {
	if grep -q '^goroutine [0-9]* \[' "$1"; then
		awk '/^goroutine [0-9]+ \[/ { exit } { line[++n] = $0 }
			END { while (n > 0 && line[n] == "") n--; for (i = 1; i <= n; i++) print line[i] }' "$1"
	else
		cat "$1"
	fi
}

# Blanks the inside of every double-quoted string on each line (heredoc and comment lines
# are blanked the same way on both sides, so they still compare).
mask_strings() {
	sed -E 's/"([^"\\]|\\.)*"/""/g' "$1"
}

# How a changed file differs from its input: only inside quoted strings (value-only), also
# in blanks outside them (reformatted), or in anything else (structural).
classify() {
	local before=$1 after=$2
	if cmp -s <(mask_strings "$before") <(mask_strings "$after"); then
		echo value-only
	elif cmp -s <(mask_strings "$before" | tr -d ' \t') <(mask_strings "$after" | tr -d ' \t'); then
		echo reformatted
	else
		echo structural
	fi
}

# run_once INPUT-DIR OUT-DIR ARGS...: runs tfupdate in a fresh copy of INPUT-DIR, leaving
# OUT-DIR/{tree,stdout,stderr,exit}.
run_once() {
	local input=$1 out=$2
	shift 2
	mkdir -p "$out/tree"
	cp -a "$input/." "$out/tree/"
	local status=0
	(cd "$out/tree" && env -i HOME="$out" PATH=/usr/bin:/bin "$tfupdate" "$@") \
		>"$out/stdout" 2>"$out/raw-stderr" </dev/null || status=$?
	echo "$status" >"$out/exit"
	strip_goroutines "$out/raw-stderr" >"$out/stderr"
	rm "$out/raw-stderr"
}

record_case() {
	local case_dir=$1 name
	name=$(basename "$case_dir")
	[ -d "$case_dir/input" ] || die "$name: no input/ directory"
	[ -f "$case_dir/commands" ] || die "$name: no commands file"
	rm -rf "$case_dir/expected"
	mkdir "$case_dir/expected"

	local line slug rest lineno=0
	local -a args
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		case $line in '' | '#'*) continue ;; esac
		slug=${line%%[[:space:]]*}
		rest=${line#"$slug"}
		[[ $slug =~ ^[a-z0-9][a-z0-9-]*$ ]] || die "$name/commands:$lineno: bad slug '$slug'"
		[ ! -e "$case_dir/expected/$slug" ] || die "$name/commands:$lineno: slug '$slug' used twice"
		eval "args=($rest)"

		local a="$scratch/$name.$slug.a" b="$scratch/$name.$slug.b"
		run_once "$case_dir/input" "$a" "${args[@]}"
		run_once "$case_dir/input" "$b" "${args[@]}"
		diff -r "$a" "$b" >/dev/null ||
			die "$name/$slug: two runs of tfupdate differ; the case is not deterministic"

		local exp="$case_dir/expected/$slug"
		mkdir -p "$exp"
		{
			printf 'tfupdate'
			for w in "${args[@]}"; do printf ' %s' "$(quote "$w")"; done
			printf '\n'
		} >"$exp/command"
		if [ ${#args[@]} -gt 0 ]; then printf '%s\n' "${args[@]}" >"$exp/args"; else : >"$exp/args"; fi
		cp "$a/exit" "$a/stdout" "$a/stderr" "$exp/"

		: >"$exp/changes"
		local rel
		while IFS= read -r rel; do
			local before="$case_dir/input/$rel" after="$a/tree/$rel"
			if [ ! -e "$after" ]; then
				printf 'deleted\t%s\n' "$rel" >>"$exp/changes"
			elif [ ! -e "$before" ]; then
				printf 'added\t%s\n' "$rel" >>"$exp/changes"
			elif ! cmp -s "$before" "$after"; then
				printf '%s\t%s\n' "$(classify "$before" "$after")" "$rel" >>"$exp/changes"
			else
				continue
			fi
			if [ -e "$after" ]; then
				mkdir -p "$exp/files/$(dirname "$rel")"
				cp "$after" "$exp/files/$rel"
			fi
		done < <({
			(cd "$case_dir/input" && find . -type f)
			(cd "$a/tree" && find . -type f)
		} | sed 's|^\./||' | sort -u)
		rm -rf "$a" "$b"
	done <"$case_dir/commands"
}

count=0
for case_dir in "$corpus"/cases/*/; do
	record_case "${case_dir%/}"
	count=$((count + 1))
done
printf 'tfupdate %s\n' "$want_version" >"$corpus/recorded-with"
echo "record-tfupdate: recorded $count cases with tfupdate $got_version" >&2
