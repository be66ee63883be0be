package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestQueueSuiteOnServer runs the whole queue suite (go test ./queues/...: every
// queue type through queues/redisq, go-redis and the types' Lua scripts) with
// REDIS_ADDR naming a zlite server of this test, so its "redis" backend is zlite
// over RESP. It builds and runs another package's tests, so it runs only with
// ZLITE_SERVER_SUITE=1 (as CI sets it):
//
//	ZLITE_SERVER_SUITE=1 go test ./server -run TestQueueSuiteOnServer
func TestQueueSuiteOnServer(t *testing.T) {
	if os.Getenv("ZLITE_SERVER_SUITE") != "1" {
		t.Skip("skipping: set ZLITE_SERVER_SUITE=1 to run the queue suite against a zlite server")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: no go command")
	}
	addr, _ := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "test", "-count=1", "./queues/...")
	cmd.Dir = filepath.Join("..")
	cmd.Env = append(os.Environ(), "REDIS_ADDR="+addr, "ZLITE_REQUIRE_REDIS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("queue suite against zlite server: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
