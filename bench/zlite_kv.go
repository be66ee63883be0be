package bench

import (
	"context"
	"fmt"
)

// This file holds the zlite System's string, hash and set commands, of the
// many-keys rows on those types (see kvOps).

// SetKeys sets each key with db.Set, without expiry.
func (s *zliteSys) SetKeys(ctx context.Context, keys, values []string) error {
	for i, key := range keys {
		if err := s.db.Set(ctx, key, values[i], 0); err != nil {
			return err
		}
	}
	return nil
}

// IncrKeys increments each key once with db.Incr.
func (s *zliteSys) IncrKeys(ctx context.Context, keys []string) error {
	for _, key := range keys {
		if _, err := s.db.Incr(ctx, key); err != nil {
			return err
		}
	}
	return nil
}

// HSetKeys sets each key's pairs with one db.HSet.
func (s *zliteSys) HSetKeys(ctx context.Context, keys []string, pairs [][]string) error {
	for i, key := range keys {
		if _, err := s.db.HSet(ctx, key, pairs[i]...); err != nil {
			return err
		}
	}
	return nil
}

// SAddKeys adds each key's members with one db.SAdd.
func (s *zliteSys) SAddKeys(ctx context.Context, keys []string, members [][]string) error {
	for i, key := range keys {
		if _, err := s.db.SAdd(ctx, key, members[i]...); err != nil {
			return err
		}
	}
	return nil
}

// Get sends GET through db.Get or, for zlite-do, Do.
func (s *zliteSys) Get(ctx context.Context, keys []string) error {
	for _, key := range keys {
		var ok bool
		if s.do {
			v, err := s.db.Do(ctx, "GET", key)
			if err != nil {
				return err
			}
			ok = v != nil
		} else {
			var err error
			if _, ok, err = s.db.Get(ctx, key); err != nil {
				return err
			}
		}
		if !ok {
			return absent("GET", key)
		}
	}
	return nil
}

// Set sends SET through db.Set or, for zlite-do, Do.
func (s *zliteSys) Set(ctx context.Context, keys, values []string) error {
	for i, key := range keys {
		var err error
		if s.do {
			_, err = s.db.Do(ctx, "SET", key, values[i])
		} else {
			err = s.db.Set(ctx, key, values[i], 0)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Incr sends INCR through db.Incr or, for zlite-do, Do.
func (s *zliteSys) Incr(ctx context.Context, keys []string) error {
	for _, key := range keys {
		var err error
		if s.do {
			_, err = s.db.Do(ctx, "INCR", key)
		} else {
			_, err = s.db.Incr(ctx, key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// MGet sends MGET through db.MGet or, for zlite-do, Do.
func (s *zliteSys) MGet(ctx context.Context, keys [][]string) error {
	var args []string // Do's words, reused from one command to the next
	for _, ks := range keys {
		if s.do {
			args = append(append(args[:0], "MGET"), ks...)
			v, err := s.db.Do(ctx, args...)
			if err != nil {
				return err
			}
			for i, x := range v.([]any) {
				if x == nil {
					return absent("MGET", ks[i])
				}
			}
			continue
		}
		_, ok, err := s.db.MGet(ctx, ks...)
		if err != nil {
			return err
		}
		for i, found := range ok {
			if !found {
				return absent("MGET", ks[i])
			}
		}
	}
	return nil
}

// HSet sends HSET through db.HSet or, for zlite-do, Do.
func (s *zliteSys) HSet(ctx context.Context, keys, fields, values []string) error {
	for i, key := range keys {
		var n any
		var err error
		if s.do {
			n, err = s.db.Do(ctx, "HSET", key, fields[i], values[i])
		} else {
			n, err = s.db.HSet(ctx, key, fields[i], values[i])
		}
		if err != nil {
			return err
		}
		if n != int64(0) {
			return fmt.Errorf("bench: HSET %s %s: field was missing", key, fields[i])
		}
	}
	return nil
}

// HGet sends HGET through db.HGet or, for zlite-do, Do.
func (s *zliteSys) HGet(ctx context.Context, keys, fields []string) error {
	for i, key := range keys {
		var ok bool
		if s.do {
			v, err := s.db.Do(ctx, "HGET", key, fields[i])
			if err != nil {
				return err
			}
			ok = v != nil
		} else {
			var err error
			if _, ok, err = s.db.HGet(ctx, key, fields[i]); err != nil {
				return err
			}
		}
		if !ok {
			return missing("HGET", fields[i])
		}
	}
	return nil
}

// sCount sends SADD or SREM key member and returns its reply.
func (s *zliteSys) sCount(ctx context.Context, cmd, key, member string) (any, error) {
	switch {
	case s.do:
		return s.db.Do(ctx, cmd, key, member)
	case cmd == "SADD":
		return s.db.SAdd(ctx, key, member)
	}
	return s.db.SRem(ctx, key, member)
}

// SAdd sends SADD through db.SAdd or, for zlite-do, Do.
func (s *zliteSys) SAdd(ctx context.Context, keys, members []string) error {
	for i, key := range keys {
		n, err := s.sCount(ctx, "SADD", key, members[i])
		if err != nil {
			return err
		}
		if n != int64(1) {
			return present("SADD", members[i])
		}
	}
	return nil
}

// SRem sends SREM through db.SRem or, for zlite-do, Do.
func (s *zliteSys) SRem(ctx context.Context, keys, members []string) error {
	for i, key := range keys {
		n, err := s.sCount(ctx, "SREM", key, members[i])
		if err != nil {
			return err
		}
		if n != int64(1) {
			return missing("SREM", members[i])
		}
	}
	return nil
}

// SIsMember sends SISMEMBER through db.SIsMember or, for zlite-do, Do.
func (s *zliteSys) SIsMember(ctx context.Context, keys, members []string) error {
	for i, key := range keys {
		var ok bool
		if s.do {
			v, err := s.db.Do(ctx, "SISMEMBER", key, members[i])
			if err != nil {
				return err
			}
			ok = v == int64(1)
		} else {
			var err error
			if ok, err = s.db.SIsMember(ctx, key, members[i]); err != nil {
				return err
			}
		}
		if !ok {
			return missing("SISMEMBER", members[i])
		}
	}
	return nil
}
