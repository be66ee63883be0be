package zlite

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/zlite/zlite/list"
)

func TestUpdateNoRollback(t *testing.T) {
	ctx := context.Background()
	db := New()
	boom := errors.New("boom")
	err := db.Update(func(tx *Tx) error {
		if _, err := tx.RPush("l", "a"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v; want fn's error", err)
	}
	if got, _ := db.LRange(ctx, "l", 0, -1); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("LRANGE after failed Update = %q; want [a] (no rollback)", got)
	}
}

func TestViewReadOnly(t *testing.T) {
	ctx := context.Background()
	db := New()
	db.RPush(ctx, "l", "a")
	err := db.View(func(tx *Tx) error {
		if n, err := tx.LLen("l"); n != 1 || err != nil {
			t.Errorf("tx.LLen = %d, %v; want 1, nil", n, err)
		}
		if _, err := tx.RPush("l", "b"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("tx.RPush in View = %v; want ErrReadOnly", err)
		}
		if _, err := tx.Do("LPOP", "l"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("tx.Do LPOP in View = %v; want ErrReadOnly", err)
		}
		if _, err := tx.Do("BLPOP", "l", "0"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("tx.Do BLPOP in View = %v; want ErrReadOnly", err)
		}
		if _, err := tx.Del("l"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("tx.Del in View = %v; want ErrReadOnly", err)
		}
		r, err := tx.Do("LRANGE", "l", "0", "-1")
		if err != nil || len(r.([]any)) != 1 {
			t.Errorf("tx.Do LRANGE in View = %v, %v; want [a]", r, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := db.LRange(ctx, "l", 0, -1); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("LRANGE after View = %q; want [a]", got)
	}
}

// TestTypedLists checks the typed list methods against the Do replies of the same
// operations (Do itself is checked against Redis).
func TestTypedLists(t *testing.T) {
	ctx := context.Background()
	db := New()
	if n, err := db.RPush(ctx, "l", "a", "b", "c", "b"); n != 4 || err != nil {
		t.Fatalf("RPush = %d, %v; want 4, nil", n, err)
	}
	if _, err := db.LPush(ctx, "l"); err == nil || err.Error() != "ERR wrong number of arguments for 'lpush' command" {
		t.Fatalf("LPush without values = %v; want the arity error", err)
	}
	if i, ok, err := db.LPos(ctx, "l", "b", LPosArgs{}); i != 1 || !ok || err != nil {
		t.Fatalf("LPos(b) = %d, %v, %v; want 1, true, nil", i, ok, err)
	}
	if i, ok, err := db.LPos(ctx, "l", "b", LPosArgs{Rank: -1}); i != 3 || !ok || err != nil {
		t.Fatalf("LPos(b, rank -1) = %d, %v, %v; want 3, true, nil", i, ok, err)
	}
	if idx, err := db.LPosCount(ctx, "l", "b", 0, LPosArgs{}); !slices.Equal(idx, []int64{1, 3}) || err != nil {
		t.Fatalf("LPosCount(b, 0) = %v, %v; want [1 3]", idx, err)
	}
	if _, err := db.LPosCount(ctx, "l", "b", -1, LPosArgs{}); !errors.Is(err, list.ErrNegativeCount) {
		t.Fatalf("LPosCount(-1) = %v; want the COUNT error", err)
	}
	if v, ok, err := db.LIndex(ctx, "l", -2); v != "c" || !ok || err != nil {
		t.Fatalf("LIndex(-2) = %q, %v, %v; want c", v, ok, err)
	}
	if err := db.LSet(ctx, "missing", 0, "x"); !errors.Is(err, ErrNoSuchKey) {
		t.Fatalf("LSet(missing) = %v; want ErrNoSuchKey", err)
	}
	if n, err := db.LInsertAfter(ctx, "l", "c", "d"); n != 5 || err != nil {
		t.Fatalf("LInsertAfter = %d, %v; want 5", n, err)
	}
	if vs, err := db.RPopCount(ctx, "l", 2); !slices.Equal(vs, []string{"b", "d"}) || err != nil {
		t.Fatalf("RPopCount(2) = %q, %v; want [b d]", vs, err)
	}
	if vs, err := db.LPopCount(ctx, "missing", 2); vs != nil || err != nil {
		t.Fatalf("LPopCount(missing) = %q, %v; want nil, nil", vs, err)
	}
	if _, err := db.LPopCount(ctx, "l", -1); !errors.Is(err, ErrNotPositive) {
		t.Fatalf("LPopCount(-1) = %v; want ErrNotPositive", err)
	}
	if v, ok, err := db.LMove(ctx, "l", "m", "LEFT", "RIGHT"); v != "a" || !ok || err != nil {
		t.Fatalf("LMove = %q, %v, %v; want a", v, ok, err)
	}
	if _, _, err := db.LMove(ctx, "l", "m", "UP", "RIGHT"); !errors.Is(err, ErrSyntax) {
		t.Fatalf("LMove(UP) = %v; want ErrSyntax", err)
	}
	if k, vs, err := db.LMPop(ctx, "LEFT", 5, "missing", "l"); k != "l" || !slices.Equal(vs, []string{"b", "c"}) || err != nil {
		t.Fatalf("LMPop = %q %q %v; want l [b c]", k, vs, err)
	}
	if n, _ := db.Exists(ctx, "l", "m", "m"); n != 2 {
		t.Fatalf("Exists(l, m, m) = %d; want 2 (l drained and deleted)", n)
	}
	if err := db.LTrim(ctx, "m", 1, 0); err != nil {
		t.Fatal(err)
	}
	if typ, _ := db.Type(ctx, "m"); typ != "none" {
		t.Fatalf("Type after LTRIM to empty = %q; want none", typ)
	}
	if _, _, _, err := db.BLPop(ctx, -1, "x"); !errors.Is(err, ErrTimeoutNegative) {
		t.Fatalf("BLPop(-1s) = %v; want ErrTimeoutNegative", err)
	}
}
