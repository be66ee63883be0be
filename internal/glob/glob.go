package glob

// Match reports whether s matches the glob pattern p exactly as Redis's
// stringmatchlen does (KEYS, SCAN MATCH): '*' any run of bytes, '?' one byte,
// '[abc]', '[^abc]', '[a-z]' (bounds in either order) and '\' escaping the next byte.
// An unterminated '[' set extends to the end of the pattern. Bytes, not runes, are
// compared, as in Redis.
func Match(p, s string) bool {
	skipLonger := false
	return globMatchImpl(p, s, &skipLonger)
}

func globMatchImpl(p, s string, skipLonger *bool) bool {
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if globMatchImpl(p[1:], s, skipLonger) {
					return true
				}
				if *skipLonger {
					return false
				}
				s = s[1:]
			}
			// No match for the rest of the pattern anywhere in the rest of s: a longer
			// match for an earlier '*' cannot help either.
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			match := false
			for {
				if len(p) == 0 {
					// Unterminated set: stop at the end of the pattern (the p = p[1:]
					// below must then leave p empty, so step back one).
					p = "]"
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						match = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					lo, hi := p[0], p[2]
					if lo > hi {
						lo, hi = hi, lo
					}
					p = p[2:]
					if s[0] >= lo && s[0] <= hi {
						match = true
					}
				} else if p[0] == s[0] {
					match = true
				}
				p = p[1:]
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if p[0] != s[0] {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}
