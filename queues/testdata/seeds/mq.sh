#!/bin/sh
# The message-queue recipes over redis-cli, as a program:
#   a FIFO is LPUSH + BRPOP on a plain list; levels are one "BRPOP a b 0" over several
#   lists; a timed queue is a sorted set scored by a timestamp, consumed with
#   ZRANGEBYSCORE set 0 <now> LIMIT 0 1 then ZREM, trying again when ZREM returns 0.
#
#   sh mq.sh push LIST VALUE...     LPUSH LIST VALUE...; prints the new length
#   sh mq.sh pop LIST...            BRPOP LIST... $BRPOP_TIMEOUT (0); prints "LIST VALUE"
#   sh mq.sh timed-add SET SCORE MEMBER
#   sh mq.sh timed-pop SET NOW      prints the member taken, or nothing when none is due
#
# The server is REDIS_HOST:REDIS_PORT (127.0.0.1:6379).
set -eu

cli() { redis-cli -h "${REDIS_HOST:-127.0.0.1}" -p "${REDIS_PORT:-6379}" "$@"; }

op=$1
shift
case $op in
push)
	cli lpush "$@"
	;;
pop)
	cli brpop "$@" "${BRPOP_TIMEOUT:-0}" | paste -sd ' ' -
	;;
timed-add)
	cli zadd "$1" "$2" "$3" >/dev/null
	;;
timed-pop)
	while :; do
		m=$(cli zrangebyscore "$1" 0 "$2" limit 0 1)
		[ -n "$m" ] || exit 0
		# Another consumer may have taken it first: then ZREM returns 0; try again.
		if [ "$(cli zrem "$1" "$m")" = 1 ]; then
			echo "$m"
			exit 0
		fi
	done
	;;
*)
	echo "mq.sh: unknown operation $op" >&2
	exit 2
	;;
esac
