package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite"
)

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string // nil with ok false: unbalanced
		ok   bool
	}{
		{"save 3600 1", []string{"save", "3600", "1"}, true},
		{"  \tport\t 7000  ", []string{"port", "7000"}, true},
		{`requirepass "a b"`, []string{"requirepass", "a b"}, true},
		{`requirepass ""`, []string{"requirepass", ""}, true},
		{`save ''`, []string{"save", ""}, true},
		{`x "\x41\x4a\n\r\t\b\a\"\\\q"`, []string{"x", "AJ\n\r\t\b\a\"\\q"}, true},
		{`x "\x4"`, []string{"x", "x4"}, true},
		{`x 'it\'s' '\n'`, []string{"x", "it's", `\n`}, true},
		{`x ab"c d"e`, nil, false}, // a closing quote must end the argument
		{`x ab"c d"`, []string{"x", "abc d"}, true},
		{`x "abc`, nil, false},
		{`x 'abc`, nil, false},
		{`x "a"b`, nil, false},
		{`x 'a'b`, nil, false},
		{`x "a\`, nil, false},
		{"", nil, true},
	} {
		got, err := splitArgs(tc.line)
		if !tc.ok {
			if err == nil || err.Error() != "Unbalanced quotes in configuration line" {
				t.Errorf("splitArgs(%q) = %q, %v; want Redis's unbalanced quotes error", tc.line, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("splitArgs(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
}

// TestLoadGood checks the settings of valid configuration files.
func TestLoadGood(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		check      func(c *config) bool
	}{
		{"empty", "\n\n# nothing\n   \n", func(c *config) bool { return reflect.DeepEqual(c, defaultConfig()) }},
		{"port and bind", "port 7000\nbind 127.0.0.1 -::1\n", func(c *config) bool {
			return c.port == 7000 && slices.Equal(c.bind, []string{"127.0.0.1", "-::1"}) &&
				reflect.DeepEqual(c.listenAddrs(), []listenAddr{{"127.0.0.1:7000", false}, {"[::1]:7000", true}})
		}},
		{"bind in one argument", "bind \"* ::*\"\n", func(c *config) bool {
			return reflect.DeepEqual(c.listenAddrs(), []listenAddr{{"0.0.0.0:6379", false}, {"[::]:6379", false}})
		}},
		{"case and CRLF", "PORT 7001\r\nRequirePass \"s e\\\"cret\"\r\n", func(c *config) bool {
			return c.port == 7001 && c.password == `s e"cret`
		}},
		{"limits", "maxclients 5\ntimeout 300\nproto-max-bulk-len 2mb\nlua-time-limit 250\n", func(c *config) bool {
			return c.maxClients == 5 && c.idle == 300*time.Second && c.maxBulk == 2<<20 && c.busy == 250*time.Millisecond
		}},
		{"busy-reply-threshold", "busy-reply-threshold 0\nshutdown-timeout 3\n", func(c *config) bool {
			return c.busy == 0 && c.grace == 3*time.Second
		}},
		{"persistence", "dir /data\nappendonly yes\nappendfsync always\nsave 900 1\nsave 60 1000\nauto-aof-rewrite-percentage 50\nauto-aof-rewrite-min-size 1k\n", func(c *config) bool {
			return c.dir == "/data" && c.appendOnly && c.fsync == zlite.SyncAlways && c.fsyncName == "always" &&
				// as in Redis, the file's save lines replace the default schedule and add up
				slices.Equal(c.save, []savePoint{{900, 1}, {60, 1000}}) && c.autoPct == 50 && c.autoMin == 1000
		}},
		{"save in one argument", "save \"3600 1 300 100\"\n", func(c *config) bool {
			return slices.Equal(c.save, []savePoint{{3600, 1}, {300, 100}})
		}},
		{"save off", "save \"\"\n", func(c *config) bool { return len(c.save) == 0 }},
		{"save off then on", "save \"\"\nsave 10 2\n", func(c *config) bool { return slices.Equal(c.save, []savePoint{{10, 2}}) }},
		{"appendfsync no", "appendfsync NO\nappendonly no\n", func(c *config) bool {
			return c.fsync == zlite.SyncNever && !c.appendOnly
		}},
		{"log", "loglevel warning\nlogfile /tmp/x.log\ndaemonize no\ndatabases 16\n", func(c *config) bool {
			return c.logLevel == slog.LevelWarn && c.logFile == "/tmp/x.log"
		}},
		{"ignored", "maxmemory 1gb\nslaveof 10.0.0.1 6379\ntcp-keepalive 300\nport 7002\n", func(c *config) bool {
			return c.port == 7002 && slices.Equal(c.runtime, []runtimeSetting{
				{1, "maxmemory", "1gb"}, {2, "slaveof", "10.0.0.1 6379"}, {3, "tcp-keepalive", "300"}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaultConfig()
			if err := c.load(tc.text); err != nil {
				t.Fatalf("load(%q): %v", tc.text, err)
			}
			if !tc.check(c) {
				t.Errorf("load(%q) = %+v", tc.text, c)
			}
		})
	}
}

// TestLoadBad checks the exact report of each kind of bad configuration file.
func TestLoadBad(t *testing.T) {
	for _, tc := range []struct {
		text string
		line int
		err  string
	}{
		{"port 6379\nportt 6380\n", 2, "Bad directive or wrong number of arguments"},
		{"port 6379 6380\n", 1, "wrong number of arguments"},
		{"port\n", 1, "wrong number of arguments"},
		{"port 65536\n", 1, "argument must be between 0 and 65535 inclusive"},
		{"port six\n", 1, "argument couldn't be parsed into an integer"},
		{"maxclients 0\n", 1, "argument must be between 1 and 4294967295 inclusive"},
		{"timeout -1\n", 1, "argument must be between 0 and 2147483647 inclusive"},
		{"proto-max-bulk-len 1k\n", 1, "argument must be between 1048576 and 9223372036854775807 inclusive"},
		{"proto-max-bulk-len 1q\n", 1, "argument must be a memory value"},
		{"auto-aof-rewrite-min-size -1\n", 1, "argument must be a memory value"},
		{"appendonly maybe\n", 1, "argument must be 'yes' or 'no'"},
		{"appendfsync sometimes\n", 1, "argument(s) must be one of the following: everysec, always, no"},
		{"loglevel loud\n", 1, "argument(s) must be one of the following: debug, verbose, notice, warning"},
		{"save 60\n", 1, "Invalid save parameters"},
		{"save 0 1\n", 1, "Invalid save parameters"},
		{"save 60 -1\n", 1, "Invalid save parameters"},
		{"save 60 x\n", 1, "Invalid save parameters"},
		{"requirepass \"unterminated\n", 1, "Unbalanced quotes in configuration line"},
		{"bind " + strings.Repeat("127.0.0.1 ", 17) + "\n", 1, "Too many bind addresses specified."},
		{"daemonize yes\n", 1, "zlite-server does not daemonize: run it under a supervisor (systemd, a container) with daemonize no"},
		{"databases 32\n", 1, "zlite-server has exactly 16 databases"},
		{"include /etc/other.conf\n", 1, "include is not supported: put the directives in one file"},
		{"rename-command FLUSHALL \"\"\n", 1, "rename-command is not supported"},
		{"user alice on >pw ~* +@all\n", 1, "ACL users are not supported (use requirepass)"},
		{"maxmemory\n", 1, "Bad directive or wrong number of arguments"},
	} {
		c := defaultConfig()
		err := c.load(tc.text)
		lineText := strings.Trim(strings.Split(tc.text, "\n")[tc.line-1], " \t\r")
		want := "\n*** FATAL CONFIG FILE ERROR ***\nReading the configuration file, at line " +
			strconv.Itoa(tc.line) + "\n>>> '" + lineText + "'\n" + tc.err
		if err == nil || err.Error() != want {
			t.Errorf("load(%q) = %v; want %q", tc.text, err, want)
		}
	}
}

// TestPrecedence checks that flags override the file, which overrides the
// defaults, wherever the file's name is among the arguments.
func TestPrecedence(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "zlite.conf")
	text := "port 7000\ndir /from/file\nappendfsync always\nrequirepass filepw\nsave 10 1\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{conf, "-port", "7001", "--save", "20 2 30 3", "-v"},
		{"-port", "7001", conf, "-save=20 2 30 3", "-v"},
		{"-port", "7001", "-save", "20 2 30 3", "-v", conf},
	} {
		c, err := parseArgs(args, io.Discard)
		if err != nil {
			t.Fatalf("parseArgs(%q): %v", args, err)
		}
		if c.port != 7001 || c.dir != "/from/file" || c.fsync != zlite.SyncAlways || c.password != "filepw" ||
			!slices.Equal(c.save, []savePoint{{20, 2}, {30, 3}}) || c.logLevel != slog.LevelDebug {
			t.Errorf("parseArgs(%q) = %+v; want port 7001 and save from the flags, the rest from the file", args, c)
		}
	}
	c, err := parseArgs([]string{conf, "-addr", "127.0.0.1:7005", "-save", ""}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.listenAddrs(); !reflect.DeepEqual(got, []listenAddr{{addr: "127.0.0.1:7005"}}) || len(c.save) != 0 {
		t.Errorf("-addr over port 7000, -save \"\": listen on %v, save %v; want 127.0.0.1:7005 and no schedule", got, c.save)
	}
	c, err = parseArgs(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, defaultConfig()) || !reflect.DeepEqual(c.listenAddrs(), []listenAddr{{addr: "127.0.0.1:6379"}}) {
		t.Errorf("no arguments: %+v; want the defaults, listening on 127.0.0.1:6379", c)
	}
	if _, err := parseArgs([]string{conf, "-port", "x"}, io.Discard); err == nil {
		t.Error("parseArgs with -port x: no error")
	}
}
