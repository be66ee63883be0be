package bench

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/zlite/zlite/bench/respbench"
	"github.com/zlite/zlite/internal/redistest"
)

// Provenance says what produced a [Report], so that two reports can be compared
// honestly: the versions of everything measured and of the Go toolchain, where the
// Redis server came from, and the command line.
type Provenance struct {
	Go        string // the Go version the run was built with
	GoRedis   string // the go-redis module version, "" when unknown
	Miniredis string // the miniredis module version, "" when unknown
	Redis     string // redis_version from INFO server, "" when no Redis system ran
	RedisFrom string // "REDIS_ADDR" or how the server was started, "" when none ran
	Benchmark string // redis-benchmark's version line, "" when the resp group did not run it
	Flags     string // the command line's flags, from [Config].Flags
}

// versioned is a system backed by a server that reports its version.
type versioned interface {
	serverVersion(ctx context.Context) (string, error)
}

// provenance collects the provenance of a run of cfg.
func provenance(ctx context.Context, cfg *Config) (Provenance, error) {
	p := Provenance{Go: runtime.Version(), Flags: cfg.Flags}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Replace != nil {
				m = m.Replace
			}
			switch m.Path {
			case "github.com/redis/go-redis/v9":
				p.GoRedis = m.Version
			case "github.com/alicebob/miniredis/v2":
				p.Miniredis = m.Version
			}
		}
	}
	for _, s := range cfg.Systems {
		if v, ok := s.(versioned); ok && p.Redis == "" {
			ver, err := v.serverVersion(ctx)
			if err != nil {
				return p, fmt.Errorf("%s: INFO server: %w", s.Name(), err)
			}
			p.Redis, p.RedisFrom = ver, redistest.Origin()
		}
	}
	if cfg.wants("resp") {
		p.Benchmark, _ = respbench.Version(ctx) // absent: the resp group notes why
	}
	return p, nil
}

// String renders p as one line, e.g. "Go go1.26.8; go-redis v9.23.0; miniredis
// v2.40.0; Redis 7.0.15 (REDIS_ADDR); flags: -sizes 1000".
func (p Provenance) String() string {
	or := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	parts := []string{"Go " + p.Go, "go-redis " + or(p.GoRedis), "miniredis " + or(p.Miniredis)}
	if p.Redis != "" {
		redis := "Redis " + p.Redis
		if p.RedisFrom != "" {
			redis += " (" + p.RedisFrom + ")"
		}
		parts = append(parts, redis)
	}
	if p.Benchmark != "" {
		parts = append(parts, p.Benchmark)
	}
	flags := p.Flags
	if flags == "" {
		flags = "(defaults)"
	}
	parts = append(parts, "flags: "+flags)
	return strings.Join(parts, "; ")
}
