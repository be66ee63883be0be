module github.com/zlite/zlite/bench

go 1.26.0

require (
	github.com/alicebob/miniredis/v2 v2.40.0
	github.com/redis/go-redis/v9 v9.23.0
	github.com/tidwall/buntdb v1.3.0
	github.com/zlite/zlite v0.0.0
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/tidwall/btree v1.4.2 // indirect
	github.com/tidwall/gjson v1.14.3 // indirect
	github.com/tidwall/grect v0.1.4 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/tidwall/rtred v0.1.2 // indirect
	github.com/tidwall/tinyqueue v0.1.1 // indirect
	github.com/yuin/gopher-lua v1.1.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

// The comparison tools measure the engine of this checkout, not a released one.
replace github.com/zlite/zlite => ../
