package queues

import "strconv"

// Arrival sequence: every queue that needs arrival order keeps a counter as the score
// of member "seq" in its sorted set "{name}:meta" (ZINCRBY; exact up to 2^53) and
// prefixes members with it in fixed-width hexadecimal, so that among equal scores the
// byte order of members, which Redis uses, is arrival order.

// luaSeq defines seq(key) in a Lua script: the next arrival prefix.
const luaSeq = `
local function seq(k)
  return string.format('%016x', tonumber(redis.call('ZINCRBY', k, 1, 'seq')))
end
`

// nextSeq is luaSeq for the embedded engine.
func nextSeq(tx Tx, metaKey string) (string, error) {
	n, err := tx.ZIncrBy(metaKey, 1, "seq")
	if err != nil {
		return "", err
	}
	return seqPrefix(int64(n)), nil
}

// seqNumber returns the sequence number of an arrival prefix.
func seqNumber(prefix string) float64 {
	n, _ := strconv.ParseUint(prefix, 16, 64)
	return float64(n)
}

// stripSeq removes the arrival prefix from a member.
func stripSeq(member string) string {
	if len(member) < seqWidth {
		return member
	}
	return member[seqWidth:]
}

// seqID returns the arrival prefix of a member: the id of the item it holds.
func seqID(member string) string { return member[:min(seqWidth, len(member))] }
