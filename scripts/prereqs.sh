#!/usr/bin/env bash
# Finds or installs what `make test` needs: PostgreSQL's server binaries
# (initdb, pg_ctl), psql, curl, nats-server, redis-server, Prometheus's promtool and
# prometheus (the alert rules' unit tests, the failover test), iproute2's ip
# on Linux (the partition test's network namespaces) and a Chromium (or
# Google Chrome) for the browser tests. It prints one line per thing, found or installed.
#
# Debian/Ubuntu: installs with apt-get when it may: as root, or through
# `sudo -n` (which fails at once rather than ask for a password). macOS:
# installs with Homebrew. Where it may not install, it exits 1 at once and
# prints the one command to run.
#
# Settings (environment):
#   CHROMIUM           the browser the tests drive, if not one of the usual
#   PREREQS_CHROMIUM   look for the browser only there (a path or a name on
#                      PATH): the prerequisite test uses it to hide one
#   PREREQS_INSTALL=0  never install: report what is missing and the command
#
# Written for bash 3.2 too (macOS's /bin/bash): no namerefs, no `set -u`.
set -o pipefail

say() { printf 'prereqs: %s\n' "$*"; }

# first_executable prints the first argument that is an executable file or a
# command on PATH.
first_executable() {
	local c p
	for c in "$@"; do
		case $c in
		*/*) if [ -f "$c" ] && [ -x "$c" ]; then printf '%s\n' "$c"; return 0; fi ;;
		*) if p=$(command -v "$c" 2>/dev/null) && [ -n "$p" ]; then printf '%s\n' "$p"; return 0; fi ;;
		esac
	done
	return 1
}

# newest_first lists the existing directories among its arguments, the
# highest version (…/postgresql/16/bin, …/postgresql@17/bin) first.
newest_first() {
	local d v
	for d in "$@"; do
		[ -d "$d" ] || continue
		v=${d%/bin}; v=${v##*/}; v=${v##*@}
		case $v in '' | *[!0-9]*) v=0 ;; esac
		printf '%s %s\n' "$v" "$d"
	done | sort -rn | cut -d' ' -f2-
}

# The server binaries: on PATH, in Debian's versioned directories, in
# Homebrew's keg-only postgresql@N (where migrations/pglocal looks too).
find_pg_server() {
	local d p
	if p=$(command -v initdb 2>/dev/null) && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$p"
		return 0
	fi
	while read -r d; do
		if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then printf '%s\n' "$d"; return 0; fi
	done < <(newest_first /usr/lib/postgresql/*/bin /opt/homebrew/opt/postgresql@*/bin /usr/local/opt/postgresql@*/bin)
	return 1
}

# psql: on PATH, else Homebrew's keg-only libpq or postgresql@N, or Debian's
# versioned directory (system/readme_test.go adds the same directories to the
# PATH it runs the README's lines with).
find_psql() {
	local d
	command -v psql 2>/dev/null && return 0
	while read -r d; do
		if [ -n "$d" ] && [ -x "$d/psql" ]; then printf '%s\n' "$d/psql"; return 0; fi
	done < <(newest_first /opt/homebrew/opt/libpq/bin /opt/homebrew/opt/postgresql@*/bin \
		/usr/local/opt/libpq/bin /usr/local/opt/postgresql@*/bin /usr/lib/postgresql/*/bin)
	return 1
}

find_nats() { first_executable nats-server /usr/sbin/nats-server /opt/homebrew/bin/nats-server /usr/local/bin/nats-server; }

find_curl() { first_executable curl; }

# redis-server: the seed design's gate test starts one of its own.
find_redis() { first_executable redis-server /usr/bin/redis-server /opt/homebrew/bin/redis-server /usr/local/bin/redis-server; }

# promtool and prometheus come together: Debian's prometheus package, Homebrew's formula.
find_prometheus() {
	local p
	p=$(first_executable promtool /usr/bin/promtool /opt/homebrew/bin/promtool /usr/local/bin/promtool) || return 1
	first_executable prometheus /usr/bin/prometheus /opt/homebrew/bin/prometheus /usr/local/bin/prometheus >/dev/null || return 1
	printf '%s\n' "$p"
}

find_ip() { first_executable ip /usr/sbin/ip /sbin/ip /usr/bin/ip; }

# The browser, in the order system/browser_test.go looks for it.
find_chromium() {
	if [ -n "${PREREQS_CHROMIUM+x}" ]; then
		first_executable "$PREREQS_CHROMIUM"
		return
	fi
	if [ -n "$CHROMIUM" ]; then
		first_executable "$CHROMIUM"
		return
	fi
	first_executable /usr/bin/chromium chromium chromium-browser google-chrome google-chrome-stable \
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
		"/Applications/Chromium.app/Contents/MacOS/Chromium" \
		"$HOME/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
		"$HOME/Applications/Chromium.app/Contents/MacOS/Chromium"
}

# Debian's Chromium; Ubuntu's is chromium-browser.
apt_chromium=chromium
if [ -r /etc/os-release ] && grep -q '^ID=ubuntu' /etc/os-release; then
	apt_chromium=chromium-browser
fi

# Each thing: its name, how to find it, its Debian package, its Homebrew
# formula ("cask:" for a cask). On macOS the browser installed is Google
# Chrome: Homebrew's chromium cask is an unsigned snapshot that Gatekeeper
# calls damaged, and Homebrew deprecates such casks; an existing
# Chromium.app is used all the same.
things="PostgreSQL server (initdb, pg_ctl)|find_pg_server|postgresql|postgresql@17
psql|find_psql|postgresql-client|postgresql@17
curl|find_curl|curl|curl
nats-server|find_nats|nats-server|nats-server
redis-server|find_redis|redis-server|redis
promtool and prometheus|find_prometheus|prometheus|prometheus
Chromium|find_chromium|$apt_chromium|cask:google-chrome"
# The partition test's network namespaces need iproute2's ip (Linux only).
if [ "$(uname -s)" = Linux ]; then
	things="$things
ip (iproute2)|find_ip|iproute2|iproute2"
fi

# check prints a line per thing and gathers the packages of the missing ones
# (space-separated, each once) in apt_missing, brew_missing and cask_missing.
check() {
	local name finder apt brew where
	apt_missing="" brew_missing="" cask_missing=""
	while IFS='|' read -r name finder apt brew; do
		if where=$($finder) && [ -n "$where" ]; then
			say "found $name: $where"
			continue
		fi
		say "missing $name"
		apt_missing=$(add_word "$apt_missing" "$apt")
		case $brew in
		cask:*) cask_missing=$(add_word "$cask_missing" "${brew#cask:}") ;;
		*) brew_missing=$(add_word "$brew_missing" "$brew") ;;
		esac
	done <<EOF
$things
EOF
}

add_word() {
	case " $1 " in
	*" $2 "*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "${1:+$1 }$2" ;;
	esac
}

# refuse says why it cannot install, prints the one command to run and
# exits 1.
refuse() {
	say "cannot install here: $1. Run:"
	printf '\n    %s\n\n' "$2"
	say "then run make test again"
	exit 1
}

install_debian() {
	local sudo="" cmd="apt-get install -y $apt_missing"
	if [ "$(id -u)" != 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			refuse "not root, and no sudo" "su -c '$cmd'"
		fi
		cmd="sudo $cmd"
		[ "$PREREQS_INSTALL" != 0 ] || refuse "PREREQS_INSTALL=0" "$cmd"
		sudo -n true </dev/null >/dev/null 2>&1 || refuse "not root, and sudo asks for a password" "$cmd"
		sudo="sudo -n"
	fi
	[ "$PREREQS_INSTALL" != 0 ] || refuse "PREREQS_INSTALL=0" "$cmd"
	say "installing with apt-get: $apt_missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # word lists
	if ! $sudo apt-get install -y -qq $apt_missing </dev/null >/dev/null; then
		say "apt-get install failed; updating the package lists and trying again"
		$sudo apt-get update -qq </dev/null >/dev/null &&
			$sudo apt-get install -y -qq $apt_missing </dev/null >/dev/null ||
			{ say "$cmd failed"; exit 1; }
	fi
	# Debian's prometheus starts a service on :9090 (and its node exporter on
	# :9100); the tests start their own Prometheus on free ports.
	case " $apt_missing " in
	*" prometheus "*)
		if command -v systemctl >/dev/null 2>&1; then
			$sudo systemctl disable --now prometheus prometheus-node-exporter </dev/null >/dev/null 2>&1 || true
		fi
		;;
	esac
}

install_macos() {
	local brew cmd=""
	[ -n "$brew_missing" ] && cmd="brew install $brew_missing"
	[ -n "$cask_missing" ] && cmd="${cmd:+$cmd && }brew install --cask $cask_missing"
	brew=$(first_executable brew /opt/homebrew/bin/brew /usr/local/bin/brew) ||
		refuse "no Homebrew (install it from https://brew.sh first)" "$cmd"
	[ "$(id -u)" != 0 ] || refuse "Homebrew does not run as root" "$cmd"
	[ "$PREREQS_INSTALL" != 0 ] || refuse "PREREQS_INSTALL=0" "$cmd"
	say "installing with Homebrew: $cmd"
	export HOMEBREW_NO_AUTO_UPDATE=1 HOMEBREW_NO_INSTALL_CLEANUP=1 NONINTERACTIVE=1
	# shellcheck disable=SC2086 # word lists
	if [ -n "$brew_missing" ]; then
		"$brew" install --quiet $brew_missing </dev/null || { say "brew install $brew_missing failed"; exit 1; }
	fi
	if [ -n "$cask_missing" ]; then
		"$brew" install --quiet --cask $cask_missing </dev/null || { say "brew install --cask $cask_missing failed"; exit 1; }
	fi
}

# A CHROMIUM that names no browser is the user's to correct, not to install.
if [ -z "${PREREQS_CHROMIUM+x}" ] && [ -n "$CHROMIUM" ] && ! first_executable "$CHROMIUM" >/dev/null; then
	say "CHROMIUM=$CHROMIUM is not an executable: correct it or unset it"
	exit 1
fi

check
[ -n "$apt_missing" ] || exit 0
case $(uname -s) in
Linux)
	command -v apt-get >/dev/null 2>&1 ||
		refuse "no apt-get; install them with this system's package manager" "(Debian's names) $apt_missing"
	install_debian
	;;
Darwin) install_macos ;;
*) refuse "$(uname -s) is neither Linux nor macOS" "(Debian's names) $apt_missing" ;;
esac

# What was installed must now be found.
check
if [ -n "$apt_missing" ]; then
	say "still missing after installing: $apt_missing"
	exit 1
fi
say "all installed"
