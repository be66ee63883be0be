//go:build race

package zset

const raceEnabled = true
