package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// zliteSys is the zlite keyspace, in process, through its typed methods or through Do.
type zliteSys struct {
	db *zlite.DB
	do bool
}

var _ System = (*zliteSys)(nil)

// NewZlite returns the System for a new zlite keyspace driven through its typed
// methods (db.ZAdd, db.ZScore, ...). Its Memory is the Go heap.
func NewZlite() System { return &zliteSys{db: zlite.New()} }

// NewZliteDo returns the System for a new zlite keyspace driven through db.Do with
// string arguments, as a caller porting Redis commands would. Its memory is not
// measured (it is the same keyspace as [NewZlite]'s).
func NewZliteDo() System { return &zliteSys{db: zlite.New(), do: true} }

func (s *zliteSys) Name() string {
	if s.do {
		return "zlite-do"
	}
	return "zlite"
}

func (s *zliteSys) Close() error { return nil }

// QueueBackend returns the embedded backend on the keyspace; the Do system has none
// (it would measure the same thing).
func (s *zliteSys) QueueBackend() queues.Backend {
	if s.do {
		return nil
	}
	return embedded.New(s.db)
}

func (s *zliteSys) Del(ctx context.Context, keys ...string) error {
	_, err := s.db.Del(ctx, keys...)
	return err
}

func toZliteZ(zs []Z) []zlite.Z {
	out := make([]zlite.Z, len(zs))
	for i, z := range zs {
		out[i] = zlite.Z{Member: z.Member, Score: z.Score}
	}
	return out
}

func (s *zliteSys) ZAddBulk(ctx context.Context, key string, zs []Z) error {
	for lo := 0; lo < len(zs); lo += fillBatch {
		if _, err := s.db.ZAdd(ctx, key, toZliteZ(zs[lo:min(lo+fillBatch, len(zs))])...); err != nil {
			return err
		}
	}
	return nil
}

func (s *zliteSys) ZRemBulk(ctx context.Context, key string, members []string) error {
	for lo := 0; lo < len(members); lo += fillBatch {
		if _, err := s.db.ZRem(ctx, key, members[lo:min(lo+fillBatch, len(members))]...); err != nil {
			return err
		}
	}
	return nil
}

func (s *zliteSys) RPushBulk(ctx context.Context, key string, values []string) error {
	for lo := 0; lo < len(values); lo += fillBatch {
		if _, err := s.db.RPush(ctx, key, values[lo:min(lo+fillBatch, len(values))]...); err != nil {
			return err
		}
	}
	return nil
}

func score(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func (s *zliteSys) ZAddKeys(ctx context.Context, keys []string, zs [][]Z) error {
	for i, key := range keys {
		if _, err := s.db.ZAdd(ctx, key, toZliteZ(zs[i])...); err != nil {
			return err
		}
	}
	return nil
}

func (s *zliteSys) RPushKeys(ctx context.Context, keys []string, values [][]string) error {
	for i, key := range keys {
		if _, err := s.db.RPush(ctx, key, values[i]...); err != nil {
			return err
		}
	}
	return nil
}

func (s *zliteSys) ZAdd(ctx context.Context, keys []string, zs []Z) error {
	for i, z := range zs {
		key := keys[i]
		var err error
		if s.do {
			_, err = s.db.Do(ctx, "ZADD", key, score(z.Score), z.Member)
		} else {
			_, err = s.db.ZAdd(ctx, key, zlite.Z{Member: z.Member, Score: z.Score})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *zliteSys) ZScore(ctx context.Context, keys []string, members []string) error {
	for i, m := range members {
		key := keys[i]
		if s.do {
			v, err := s.db.Do(ctx, "ZSCORE", key, m)
			if err != nil {
				return err
			}
			if v == nil {
				return missing("ZSCORE", m)
			}
			continue
		}
		_, ok, err := s.db.ZScore(ctx, key, m)
		if err != nil {
			return err
		}
		if !ok {
			return missing("ZSCORE", m)
		}
	}
	return nil
}

func (s *zliteSys) ZRank(ctx context.Context, keys []string, members []string, rev bool) error {
	cmd, rank := "ZRANK", s.db.ZRank
	if rev {
		cmd, rank = "ZREVRANK", s.db.ZRevRank
	}
	for i, m := range members {
		key := keys[i]
		if s.do {
			v, err := s.db.Do(ctx, cmd, key, m)
			if err != nil {
				return err
			}
			if v == nil {
				return missing(cmd, m)
			}
			continue
		}
		_, ok, err := rank(ctx, key, m)
		if err != nil {
			return err
		}
		if !ok {
			return missing(cmd, m)
		}
	}
	return nil
}

func (s *zliteSys) ZRangeByScore(ctx context.Context, key string, mins []float64, offset, count int) error {
	off, cnt := strconv.Itoa(offset), strconv.Itoa(count)
	for _, min := range mins {
		if s.do {
			v, err := s.db.Do(ctx, "ZRANGEBYSCORE", key, formatBound(min), "+inf", "LIMIT", off, cnt)
			if err != nil {
				return err
			}
			if len(v.([]any)) == 0 {
				return errEmpty
			}
			continue
		}
		v, err := s.db.ZRangeByScore(ctx, key, &zlite.ZRangeBy{Min: formatBound(min), Max: "+inf", Offset: int64(offset), Count: int64(count)})
		if err != nil {
			return err
		}
		if len(v) == 0 {
			return errEmpty
		}
	}
	return nil
}

func (s *zliteSys) ZPopMax(ctx context.Context, key string, k int) ([]Z, error) {
	out := make([]Z, 0, k)
	for range k {
		z, err := s.popOne(ctx, key, true)
		if err != nil {
			return out, err
		}
		out = append(out, z)
	}
	return out, nil
}

// popOne pops the member with the lowest score at key (the highest with max) through
// the typed method or, for zlite-do, through Do.
func (s *zliteSys) popOne(ctx context.Context, key string, max bool) (Z, error) {
	if s.do {
		name := "ZPOPMIN"
		if max {
			name = "ZPOPMAX"
		}
		v, err := s.db.Do(ctx, name, key)
		if err != nil {
			return Z{}, err
		}
		return doZ(v)
	}
	pop := s.db.ZPopMin
	if max {
		pop = s.db.ZPopMax
	}
	zs, err := pop(ctx, key)
	if err != nil {
		return Z{}, err
	}
	if len(zs) != 1 {
		return Z{}, errEmpty
	}
	return Z{Member: zs[0].Member, Score: zs[0].Score}, nil
}

func (s *zliteSys) ZRange(ctx context.Context, keys []string) error {
	for _, key := range keys {
		if s.do {
			v, err := s.db.Do(ctx, "ZRANGE", key, "0", "-1")
			if err != nil {
				return err
			}
			if len(v.([]any)) == 0 {
				return errEmpty
			}
			continue
		}
		v, err := s.db.ZRange(ctx, key, 0, -1)
		if err != nil {
			return err
		}
		if len(v) == 0 {
			return errEmpty
		}
	}
	return nil
}

func (s *zliteSys) ZPopMin(ctx context.Context, keys []string) ([]Z, error) {
	out := make([]Z, 0, len(keys))
	for _, key := range keys {
		z, err := s.popOne(ctx, key, false)
		if err != nil {
			return out, err
		}
		out = append(out, z)
	}
	return out, nil
}

// doZ decodes the reply of Do("ZPOPMIN"/"ZPOPMAX", key): one member and its score.
func doZ(v any) (Z, error) {
	a := v.([]any)
	if len(a) != 2 {
		return Z{}, errEmpty
	}
	f, err := strconv.ParseFloat(a[1].(string), 64)
	if err != nil {
		return Z{}, err
	}
	return Z{Member: a[0].(string), Score: f}, nil
}

func (s *zliteSys) ZRem(ctx context.Context, key string, members []string) error {
	for _, m := range members {
		var n any
		var err error
		if s.do {
			n, err = s.db.Do(ctx, "ZREM", key, m)
		} else {
			n, err = s.db.ZRem(ctx, key, m)
		}
		if err != nil {
			return err
		}
		if n != int64(1) {
			return missing("ZREM", m)
		}
	}
	return nil
}

func (s *zliteSys) LPushRPop(ctx context.Context, keys []string, values []string) error {
	for i, v := range values {
		key := keys[i]
		if s.do {
			if _, err := s.db.Do(ctx, "LPUSH", key, v); err != nil {
				return err
			}
			r, err := s.db.Do(ctx, "RPOP", key)
			if err != nil {
				return err
			}
			if r == nil {
				return errEmpty
			}
			continue
		}
		if _, err := s.db.LPush(ctx, key, v); err != nil {
			return err
		}
		_, ok, err := s.db.RPop(ctx, key)
		if err != nil {
			return err
		}
		if !ok {
			return errEmpty
		}
	}
	return nil
}

func (s *zliteSys) LRange(ctx context.Context, key string, k, start, stop int) error {
	a, b := strconv.Itoa(start), strconv.Itoa(stop)
	for range k {
		if s.do {
			v, err := s.db.Do(ctx, "LRANGE", key, a, b)
			if err != nil {
				return err
			}
			if len(v.([]any)) == 0 {
				return errEmpty
			}
			continue
		}
		v, err := s.db.LRange(ctx, key, int64(start), int64(stop))
		if err != nil {
			return err
		}
		if len(v) == 0 {
			return errEmpty
		}
	}
	return nil
}

func (s *zliteSys) Blocking() bool { return true }

func (s *zliteSys) LPush(ctx context.Context, key, value string) error {
	var err error
	if s.do {
		_, err = s.db.Do(ctx, "LPUSH", key, value)
	} else {
		_, err = s.db.LPush(ctx, key, value)
	}
	return err
}

// seconds formats a timeout as BRPOP's argument.
func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

func (s *zliteSys) BRPop(ctx context.Context, key string, timeout time.Duration) (string, bool, error) {
	if s.do {
		v, err := s.db.Do(ctx, "BRPOP", key, seconds(timeout))
		if err != nil || v == nil {
			return "", false, err
		}
		return v.([]any)[1].(string), true, nil
	}
	_, v, ok, err := s.db.BRPop(ctx, timeout, key)
	return v, ok, err
}

func (s *zliteSys) ZAddOne(ctx context.Context, key string, z Z) error {
	return s.ZAdd(ctx, []string{key}, []Z{z})
}

func (s *zliteSys) BZPopMin(ctx context.Context, key string, timeout time.Duration) (Z, bool, error) {
	if s.do {
		v, err := s.db.Do(ctx, "BZPOPMIN", key, seconds(timeout))
		if err != nil || v == nil {
			return Z{}, false, err
		}
		a := v.([]any)
		f, err := strconv.ParseFloat(a[2].(string), 64)
		if err != nil {
			return Z{}, false, fmt.Errorf("bench: BZPOPMIN score %q: %w", a[2], err)
		}
		return Z{Member: a[1].(string), Score: f}, true, nil
	}
	_, z, ok, err := s.db.BZPopMin(ctx, timeout, key)
	return Z{Member: z.Member, Score: z.Score}, ok, err
}

// fresh replaces the keyspace, which is empty, with a new one: zlite's key table
// keeps the slots of deleted keys for the next keys of their type (see package
// internal/keytable), so a build after another of the same type would not pay for
// its own.
func (s *zliteSys) fresh(context.Context) error {
	s.db = zlite.New()
	return nil
}

func (s *zliteSys) Memory(ctx context.Context) (int64, bool, error) {
	if s.do {
		return 0, false, nil
	}
	return heapInUse(), true, nil
}
