#!/usr/bin/env bash
# A misbehaving GTP engine for the engine fault tests (tests/engine_faults.rs). The first argument picks
# how it misbehaves:
#   exit-at-start  writes a line to stderr and exits with status 3 before reading anything
#   hang           answers the handshake, then reads `genmove` and never answers
#   garbage        answers every command with text that is not GTP (a multi-byte character first)
#   binary         answers every command with bytes that are not UTF-8 text
#   die-mid-search answers the handshake and the set-up, then dies (status 9) when asked to search
#   endless-line   writes one line that never ends (zero bytes without a newline), as `cat /dev/zero`;
#                  it serves as a KataGo analysis engine too (`katago:fake_gtp.sh endless-line`)
mode=$1
if [ "$mode" = endless-line ]; then
  exec cat /dev/zero
fi
if [ "$mode" = exit-at-start ]; then
  echo "fake engine: cannot open the network file" >&2
  exit 3
fi
while IFS= read -r line; do
  cmd=${line%% *}
  case "$mode:$cmd" in
    garbage:*) printf '\xc3\xa9 garbage \xe2\x9c\x93\n\n' ;;
    binary:*) printf '\xff\xfe\x00garbage\x01\n\n' ;;
    *:name) printf '= FakeGTP\n\n' ;;
    *:version) printf '= 0.1\n\n' ;;
    *:list_commands) printf '= name\nversion\nlist_commands\nboardsize\nclear_board\nkomi\nplay\ngenmove\nquit\n\n' ;;
    *:quit) printf '=\n\n'; exit 0 ;;
    hang:genmove) ;;
    die-mid-search:genmove) echo "fake engine: out of memory in the search" >&2; exit 9 ;;
    *) printf '=\n\n' ;;
  esac
done
