package zlite

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/zset"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if commands["zadd"] == nil {
		// Stand-in while cmd_zset.go (another engineer's) does not register ZADD yet:
		// plain "ZADD key score member ...", enough to create sorted sets in tests.
		register(&command{name: "zadd", arity: -4, write: true, run: func(tx *Tx, a []string) (any, error) {
			s, err := tx.zsetWrite(a[1])
			if err != nil {
				return nil, err
			}
			if s == nil {
				s = tx.newZSet(a[1])
			}
			n := 0
			for i := 2; i+1 < len(a); i += 2 {
				f, _ := strconv.ParseFloat(a[i], 64)
				k, _ := s.Add(zset.AddOptions{}, zset.Entry{Member: a[i+1], Score: f})
				n += k
			}
			tx.signal(a[1])
			return int64(n), nil
		}})
	}
	code := m.Run()
	closeRedisClient()
	redistest.Stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
